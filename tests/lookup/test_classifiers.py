"""Table tests for the classifiers that feed the budget (``shared/spec/classifiers.md``).

``failed_outcome`` (both budgets), seed 001's ``correctable_inspection_failure``
and ``passed_inspection``, and seed 002's ``binds_new_project`` over the
seed's twelve path forms, direct and wrapped in Tool Search's ``tool_call``.
Every expected value is written from the spec and the seeds.
"""

from __future__ import annotations

import pytest

from guard.inspection import correctable_inspection_failure, passed_inspection
from guard.outcome import failed_outcome
from guard.playground import RoutingState, binds_new_project

# -- failed outcome --------------------------------------------------------------------------------


def nest(level: dict, depth: int) -> dict:
    """``level`` placed ``depth`` levels down a ``details.result`` chain (depth 1 is the result itself)."""
    for _ in range(depth - 1):
        level = {"details": {"result": level}}
    return level


FAILED_OUTCOME = [
    ("empty result", {}, None, False),
    ("no result", None, None, False),
    ("not an object", "failed", None, False),
    ("event error", {}, "boom", True),
    ("event error without result", None, {"message": "x"}, True),
    ("isError true", {"isError": True}, None, True),
    ("isError false", {"isError": False}, None, False),
    ("isError 1", {"isError": 1}, None, False),
    ("isError string", {"isError": "true"}, None, False),
    ("status failed", {"details": {"status": "failed"}}, None, True),
    ("status error", {"details": {"status": "error"}}, None, True),
    ("status blocked", {"details": {"status": "blocked"}}, None, True),
    ("status incomplete", {"details": {"status": "incomplete"}}, None, False),
    ("status completed", {"details": {"status": "completed"}}, None, False),
    ("status succeeded", {"details": {"status": "succeeded"}}, None, False),
    ("status Failed", {"details": {"status": "Failed"}}, None, False),
    ("exit 1", {"details": {"exitCode": 1}}, None, True),
    ("exit -1", {"details": {"exitCode": -1}}, None, True),
    ("exit 128", {"details": {"exitCode": 128}}, None, True),
    ("exit 0", {"details": {"exitCode": 0}}, None, False),
    ("exit 1.5", {"details": {"exitCode": 1.5}}, None, False),
    ("exit 1.0", {"details": {"exitCode": 1.0}}, None, False),
    ("exit string", {"details": {"exitCode": "1"}}, None, False),
    ("exit true", {"details": {"exitCode": True}}, None, False),
    ("exit null", {"details": {"exitCode": None}}, None, False),
    ("completed exit 0", {"details": {"status": "completed", "exitCode": 0}}, None, False),
    ("level 2 isError", nest({"isError": True}, 2), None, True),
    ("level 2 status", nest({"details": {"status": "failed"}}, 2), None, True),
    ("level 3 isError", nest({"isError": True}, 3), None, True),
    ("level 3 exit code", nest({"details": {"exitCode": 2}}, 3), None, True),
    ("level 4 is not read", nest({"isError": True}, 4), None, False),
    ("level 4 status is not read", nest({"details": {"status": "failed"}}, 4), None, False),
    ("walk stops at a string", {"details": {"result": "isError"}}, None, False),
    ("walk stops at a list", {"details": {"result": [{"isError": True}]}}, None, False),
    ("details not an object", {"details": "failed"}, None, False),
    ("top-level status is not details.status", {"status": "failed"}, None, False),
    ("envelope ok, inner failed", {"isError": False, "details": {"result": {"isError": True}}}, None, True),
    ("envelope ok, inner ok", {"isError": False, "details": {"result": {"details": {"status": "passed"}}}}, None, False),
]


@pytest.mark.parametrize("name, result, error, expected", FAILED_OUTCOME, ids=[row[0] for row in FAILED_OUTCOME])
def test_failed_outcome(name: str, result, error, expected: bool) -> None:
    assert failed_outcome(result, error) is expected


# -- inspection receipts (seed 001) --------------------------------------------------------------------

KIND = "ods-pixel-preview-inspection"


def inspection(is_error=True, **details) -> dict:
    receipt: dict = {"details": {"schemaVersion": 1, "kind": KIND, **details}}
    if is_error is not None:
        receipt["isError"] = is_error
    return receipt


def locator(error_code: str, **extra) -> dict:
    """A failed inspection whose last step failed with ``error_code`` and nothing else went wrong."""
    details = {
        "status": "failed", "blockedRequests": [],
        "steps": [{"index": 0, "status": "passed"}, {"index": 1, "status": "failed", "errorCode": error_code}],
    }
    details.update(extra)
    return inspection(**details)


CORRECTABLE = [
    ("invalid_request", inspection(status="failed", errorCode="invalid_request"), True),
    ("incomplete transition_untested", inspection(status="incomplete", errorCode="transition_untested"), True),
    ("last step no_match", locator("no_match"), True),
    ("last step selector_not_unique", locator("selector_not_unique"), True),
    ("last step invalid_selector", locator("invalid_selector"), True),
    ("single step no_match", inspection(status="failed", blockedRequests=[],
                                        steps=[{"status": "failed", "errorCode": "no_match"}]), True),
    # Not an error receipt, or not the inspection tool's.
    ("invalid_request without isError", inspection(is_error=None, status="failed", errorCode="invalid_request"), False),
    ("invalid_request isError false", inspection(is_error=False, status="failed", errorCode="invalid_request"), False),
    ("invalid_request isError string", inspection(is_error="true", status="failed", errorCode="invalid_request"), False),
    ("other kind", {"isError": True, "details": {"kind": "ods-pixel-workspace-preview", "status": "failed",
                                                 "errorCode": "invalid_request"}}, False),
    ("no kind", {"isError": True, "details": {"status": "failed", "errorCode": "invalid_request"}}, False),
    ("not an object", "invalid_request", False),
    ("details not an object", {"isError": True, "details": KIND}, False),
    # The categories must be exact.
    ("invalid_request with status error", inspection(status="error", errorCode="invalid_request"), False),
    ("invalid_request incomplete", inspection(status="incomplete", errorCode="invalid_request"), False),
    ("incomplete with another code", inspection(status="incomplete", errorCode="unstable"), False),
    ("incomplete without a code", inspection(status="incomplete"), False),
    ("transition_untested with status failed", inspection(status="failed", errorCode="transition_untested"), False),
    # Measured failures (seed 001: never correctable).
    ("visibility mismatch", locator("visibility_mismatch"), False),
    ("click failed", locator("click_failed"), False),
    ("unstable", locator("unstable"), False),
    ("page errors", locator("no_match", pageErrors=["TypeError: x is undefined"]), False),
    ("page errors key even empty", locator("no_match", pageErrors=[]), False),
    ("blocked requests", locator("no_match", blockedRequests=["http://10.0.0.1/x.js"]), False),
    ("blockedRequests missing", inspection(status="failed", steps=[{"status": "failed", "errorCode": "no_match"}]),
     False),
    ("blockedRequests not a list", locator("no_match", blockedRequests={}), False),
    ("top-level errorCode beside a locator step", locator("no_match", errorCode="timeout"), False),
    ("unavailable", inspection(status="failed", errorCode="unavailable"), False),
    ("timeout", inspection(status="failed", errorCode="timeout"), False),
    ("cancelled", inspection(status="failed", errorCode="cancelled"), False),
    ("output limit", inspection(status="failed", errorCode="output_limit"), False),
    ("blocked receipt", inspection(status="blocked", errorCode="invalid_request"), False),
    ("blocked receipt with locator", locator("no_match", status="blocked"), False),
    ("no steps", inspection(status="failed", blockedRequests=[], steps=[]), False),
    ("steps missing", inspection(status="failed", blockedRequests=[]), False),
    ("steps not a list", inspection(status="failed", blockedRequests=[], steps={"errorCode": "no_match"}), False),
    ("only an earlier step no_match", inspection(status="failed", blockedRequests=[], steps=[
        {"status": "failed", "errorCode": "no_match"}, {"status": "failed", "errorCode": "visibility_mismatch"}]),
     False),
    ("last step not an object", inspection(status="failed", blockedRequests=[], steps=["no_match"]), False),
    ("a passed inspection", inspection(is_error=False, status="passed"), False),
]


@pytest.mark.parametrize("name, receipt, expected", CORRECTABLE, ids=[row[0] for row in CORRECTABLE])
def test_correctable_inspection_failure(name: str, receipt, expected: bool) -> None:
    assert correctable_inspection_failure(receipt) is expected


PASSED = [
    ("passed", inspection(is_error=False, status="passed"), True),
    ("passed without isError", inspection(is_error=None, status="passed"), True),
    ("passed with an empty page error list", inspection(is_error=False, status="passed", pageErrors=[]), True),
    ("passed with page errors", inspection(is_error=False, status="passed", pageErrors=["ReferenceError"]), False),
    ("passed but isError", inspection(is_error=True, status="passed"), False),
    ("failed", inspection(is_error=False, status="failed"), False),
    ("incomplete", inspection(is_error=False, status="incomplete"), False),
    ("other kind", {"details": {"kind": "ods-pixel-workspace-preview", "status": "passed"}}, False),
    ("preview succeeded", {"details": {"kind": "ods-pixel-workspace-preview", "status": "succeeded"}}, False),
    ("no details", {"isError": False}, False),
    ("not an object", None, False),
    ("a correctable failure", inspection(status="failed", errorCode="invalid_request"), False),
]


@pytest.mark.parametrize("name, receipt, expected", PASSED, ids=[row[0] for row in PASSED])
def test_passed_inspection(name: str, receipt, expected: bool) -> None:
    assert passed_inspection(receipt) is expected


# -- binds a new project (seed 002) -----------------------------------------------------------------

ROOT = "/home/pixel/workspace"

# The twelve path forms: admitted only in the exact form the refusal asks for.
PATH_FORMS = [
    ("project path", "Playground/photo-renamer/rename_photos.py", True),
    ("under /workspace/", "/workspace/Playground/photo-renamer/rename_photos.py", True),
    ("leading ./", "./Playground/photo-renamer/rename_photos.py", True),
    ("backslashes", "Playground\\photo-renamer\\rename_photos.py", True),
    ("under the configured root", f"{ROOT}/Playground/photo-renamer/rename_photos.py", True),
    ("deeper file", "Playground/photo-renamer/tests/test_rename.py", True),
    ("bare filename", "rename_photos.py", False),
    ("Playground/<file>", "Playground/rename_photos.py", False),
    ("generic folder", "Playground/project/rename_photos.py", False),
    ("lowercase playground", "playground/photo-renamer/rename_photos.py", False),
    ("<name>/<file>", "photo-renamer/rename_photos.py", False),
    ("rooted /<name>/<file>", "/photo-renamer/rename_photos.py", False),
]
PATH_FORM_IDS = [row[0] for row in PATH_FORMS]

WRAPPINGS = ["direct", "tool_call write", "tool_call openclaw:core:write"]


def call(path, wrapping: str = "direct") -> tuple[str, dict]:
    args = {"path": path, "content": "print('hello')\n"}
    if wrapping == "direct":
        return "write", args
    return "tool_call", {"id": wrapping.split(" ", 1)[1], "args": args}


def test_there_are_twelve_path_forms() -> None:
    assert len(PATH_FORMS) == 12
    assert len(set(PATH_FORM_IDS)) == 12


@pytest.mark.parametrize("wrapping", WRAPPINGS)
@pytest.mark.parametrize("name, path, expected", PATH_FORMS, ids=PATH_FORM_IDS)
def test_path_forms(name: str, path: str, expected: bool, wrapping: str) -> None:
    tool, params = call(path, wrapping)
    assert binds_new_project(tool, params, RoutingState(), root=ROOT) is expected


@pytest.mark.parametrize(
    "name, path, expected",
    [
        ("outside the workspace", "/tmp/Playground/photo-renamer/rename_photos.py", False),
        ("other root not configured", "/srv/Playground/photo-renamer/rename_photos.py", False),
        ("space in a component", "Playground/photo renamer/rename_photos.py", False),
        ("component ending in a dot", "Playground/photo-renamer./rename_photos.py", False),
        ("file ending in a dot", "Playground/photo-renamer/rename_photos.", False),
        ("parent component", "Playground/../photo-renamer/rename_photos.py", False),
        ("dot component", "Playground/./photo-renamer/rename_photos.py", False),
        ("empty component", "Playground//photo-renamer/rename_photos.py", False),
        ("trailing slash", "Playground/photo-renamer/", False),
        ("leading dash", "Playground/-renamer/rename_photos.py", False),
        ("leading underscore", "Playground/_renamer/rename_photos.py", False),
        ("non-ASCII letter", "Playground/fotó/rename_photos.py", False),
        ("Windows device folder", "Playground/con/rename_photos.py", False),
        ("Windows device file", "Playground/photo-renamer/NUL", False),
        ("Windows device com1", "Playground/photo-renamer/com1", False),
        ("Windows device lpt9", "Playground/LPT9/rename_photos.py", False),
        ("com0 is not a device", "Playground/com0/rename_photos.py", True),
        ("64-character component", "Playground/" + "a" * 64 + "/x.py", True),
        ("65-character component", "Playground/" + "a" * 65 + "/x.py", False),
        ("12 components", "Playground/photo-renamer/" + "/".join(["d"] * 9) + "/x.py", True),
        ("13 components", "Playground/photo-renamer/" + "/".join(["d"] * 10) + "/x.py", False),
        ("512 characters", "Playground/photo-renamer/" + "/".join(["a" * 60] * 7) + "/" + "b" * 60, True),
        ("513 characters", "Playground/photo-renamer/" + "/".join(["a" * 60] * 7) + "/" + "b" * 61, False),
        ("dots and underscores", "Playground/photo_renamer.v2/rename-photos_1.py", True),
        ("PLAYGROUND in capitals", "PLAYGROUND/photo-renamer/rename_photos.py", False),
        ("root with backslashes", "C:\\ws\\Playground\\photo-renamer\\rename_photos.py", True),
        ("/workspace/ then ./", "/workspace/./Playground/photo-renamer/rename_photos.py", True),
    ],
)
def test_path_rules(name: str, path: str, expected: bool) -> None:
    root = "C:\\ws" if name == "root with backslashes" else ROOT
    if name.startswith(("512", "513")):
        assert len(path) == int(name[:3])
    assert binds_new_project("write", {"path": path}, RoutingState(), root=root) is expected


GENERIC = ["playground", "project", "projeto", "app", "application", "site", "website", "web", "game", "jogo",
           "public", "src", "source", "build", "dist", "assets", "static", "css", "js", "test", "tests", "folder",
           "new-project"]


@pytest.mark.parametrize("name", GENERIC + [name.upper() for name in GENERIC] + ["Website", "New-Project"])
def test_generic_project_names_are_refused(name: str) -> None:
    assert binds_new_project("write", {"path": f"Playground/{name}/index.html"}, RoutingState()) is False


@pytest.mark.parametrize("name", ["photo-renamer", "apps", "my-site", "game2", "testing", "srcs"])
def test_specific_project_names_are_admitted(name: str) -> None:
    assert binds_new_project("write", {"path": f"Playground/{name}/index.html"}, RoutingState()) is True


@pytest.mark.parametrize(
    "state",
    [
        RoutingState(initialized=False),
        RoutingState(first_project_file=True),
        RoutingState(binding="Playground/other"),
        RoutingState(preserved=True),
        RoutingState(routing_failure=True),
    ],
    ids=["not initialized", "first project file exists", "bound", "preserved", "routing failure"],
)
@pytest.mark.parametrize("wrapping", WRAPPINGS)
def test_only_a_fresh_routing_state_binds(state: RoutingState, wrapping: str) -> None:
    tool, params = call("Playground/photo-renamer/rename_photos.py", wrapping)
    assert binds_new_project(tool, params, state) is False


@pytest.mark.parametrize(
    "read",
    [
        ["Playground/photo-renamer/rename_photos.py"],
        ["/workspace/Playground/photo-renamer/rename_photos.py"],
    ],
    ids=["relative form read", "given form read"],
)
def test_a_file_read_earlier_is_not_a_new_project(read: list[str]) -> None:
    path = "/workspace/Playground/photo-renamer/rename_photos.py"
    assert binds_new_project("write", {"path": path}, RoutingState(), read_paths=read) is False
    assert binds_new_project("write", {"path": path}, RoutingState(), read_paths=["Playground/other/x.py"]) is True


@pytest.mark.parametrize(
    "tool, params",
    [
        ("edit", {"path": "Playground/photo-renamer/rename_photos.py", "oldText": "a", "newText": "b"}),
        ("apply_patch", {"path": "Playground/photo-renamer/rename_photos.py"}),
        ("mkdir", {"path": "Playground/photo-renamer/rename_photos.py"}),
        ("read", {"path": "Playground/photo-renamer/rename_photos.py"}),
        ("exec", {"command": "touch Playground/photo-renamer/rename_photos.py"}),
        ("tool_call", {"id": "edit", "args": {"path": "Playground/photo-renamer/rename_photos.py"}}),
        ("tool_call", {"id": "openclaw:core:edit", "args": {"path": "Playground/photo-renamer/rename_photos.py"}}),
        ("tool_call", {"id": "write", "path": "Playground/photo-renamer/rename_photos.py"}),
        ("tool_call", {"id": "write", "args": "Playground/photo-renamer/rename_photos.py"}),
        ("tool_call", {"args": {"path": "Playground/photo-renamer/rename_photos.py"}}),
        ("write", {"path": ["Playground/photo-renamer/rename_photos.py"]}),
        ("write", {"file": "Playground/photo-renamer/rename_photos.py"}),
        ("write", "Playground/photo-renamer/rename_photos.py"),
        ("write", None),
        ("Write", {"path": "Playground/photo-renamer/rename_photos.py"}),
    ],
)
def test_only_a_write_binds(tool: str, params) -> None:
    assert binds_new_project(tool, params, RoutingState()) is False


def test_the_recorded_remedy_binds_direct_and_wrapped() -> None:
    # Seed 002's call 7, and the Tool Search route to the same write.
    args = {"path": "Playground/photo-renamer/rename_photos.py", "content": "x" * 5853}
    assert binds_new_project("write", args, RoutingState()) is True
    assert binds_new_project("tool_call", {"id": "openclaw:core:write", "args": args}, RoutingState()) is True
