"""What the host sends through the hooks, built from a few named shapes: receipts, call kinds and bindings.

Receipts restate ``shared/spec/hooks.md`` and the seeds' recordings: an
inspection result (``schemaVersion``, ``kind``, ``status`` ...), a Tool
Search envelope (the real tool's result in ``details.result``), the stub the
host persists above 8 KiB (``persistedDetailsTruncated``,
``originalDetailKeys``, ``status``), exec results with an exit code. A *call
kind* names one tool call the generators draw (a read, a failing fetch, an
inspection that measured nothing, a router-gated exec, the remedy write ...);
a *binding* names how its receipt relates to the pending call (bound, a
nested Tool Search child, another run or session, no ``before_tool_call``,
another tool name on the receipt, rewritten executed params).
"""

from __future__ import annotations

import functools
from typing import Any

import attrs

from guard.inspection import INSPECTION_KIND, INSPECTION_TOOL

RUN, SESSION = "run-1", "session-1"
#: The first words of the stop text, as the recorded sessions show it (fixture README); never the guard's constant.
STOP_HEAD = "This response was stopped after repeated tool failures or attempts without progress."
#: Call ids starting with this are Tool Search's nested children (hooks.md).
NESTED_PREFIX = "tool_search_code:"


def text(value: str) -> list:
    return [{"type": "text", "text": value}]


def inspection(status: str, error: bool = True, **details: Any) -> dict:
    return {"isError": error, "content": text(f"inspection {status}"),
            "details": {"schemaVersion": 1, "kind": INSPECTION_KIND, "status": status, **details}}


INVALID = inspection("failed", errorCode="invalid_request")
NO_MATCH = inspection("failed", blockedRequests=[], steps=[{"index": 0, "status": "failed", "errorCode": "no_match"}])
MEASURED = inspection("failed", blockedRequests=[], steps=[{"index": 0, "status": "failed", "errorCode": "visibility_mismatch"}])
INCOMPLETE = inspection("incomplete", errorCode="transition_untested")
PASSED = inspection("passed", error=False, blockedRequests=[], steps=[{"index": 0, "status": "passed"}])
PASSED_PAGE_ERRORS = inspection("passed", error=False, pageErrors=["boom"])
INSPECT_ARGS = {"siteId": "site-1", "sha256": "a" * 64, "steps": [{"action": "assert-visible", "selector": "#x"}]}


def envelope(inner: Any, error: bool = False) -> dict:
    """A Tool Search envelope: the real tool's result inside ``details.result`` (its content, when it has any)."""
    content = inner.get("content", []) if isinstance(inner, dict) else []
    return {"isError": error, "content": content, "details": {"result": inner}}


def capped(result: dict) -> dict:
    """What the host persists when the details are above 8 KiB."""
    details = result.get("details", {})
    stub = {"persistedDetailsTruncated": True, "originalDetailKeys": sorted(details)}
    if "status" in details:
        stub["status"] = details["status"]
    return {"isError": result.get("isError", False), "content": result.get("content", []), "details": stub}


def exec_result(code: int, output: str = "", **details: Any) -> dict:
    return {"isError": False, "content": text(output), "details": {"status": "completed", "exitCode": code, **details}}


def split_output(result: dict, *parts: str) -> dict:
    """``result`` with its content as one text part per item of ``parts``."""
    return {**result, "content": [part for value in parts for part in text(value)]}


def ok(output: str = "done") -> dict:
    return {"content": text(output), "details": {"status": "completed"}}


def failure(reason: str = "nope") -> dict:
    return {"isError": True, "content": text(reason), "details": {"status": "error", "error": reason}}


def blocked(reason: str | None) -> dict:
    """What the host delivers for a call the guard refused: nothing ran."""
    return {"isError": True, "content": text(reason or ""), "details": {"status": "blocked"}}


@attrs.frozen
class Shape:
    """One generated call: its tool and params, the live receipt, the persisted copy, and the tool's own record."""

    tool: str
    params: Any
    live: Any
    persisted: Any
    #: The inspection tool's own record of its result, or None (only the inspection tool records).
    record: Any = None

    @property
    def real_tool(self) -> Any:
        return self.params.get("id") if self.tool == "tool_call" and isinstance(self.params, dict) else self.tool

    @property
    def args(self) -> Any:
        return self.params.get("args") if self.tool == "tool_call" and isinstance(self.params, dict) else self.params


#: Inspection calls and what their result is, direct or through Tool Search (``ts_``).
_DIRECT_INSPECTIONS = {"invalid": INVALID, "no_match": NO_MATCH, "incomplete": INCOMPLETE, "measured": MEASURED,
                       "passed": PASSED, "passed_page_errors": PASSED_PAGE_ERRORS}
_WRAPPED_INSPECTIONS = {"ts_invalid": INVALID, "ts_no_match": NO_MATCH, "ts_passed": PASSED}

#: Router shapes (Playground): a gated exec, the version probe that runs, the remedy write, a write to a
#: bare file (refused, not a remedy), a read of the remedy's path.
PLAYGROUND_KINDS = ("gate", "probe", "remedy", "bad_write", "read_remedy", "remedy_rooted")
#: The workspace root a sequence's guard may be configured with (``HookSequence.root``); ``remedy_rooted``
#: writes the remedy by its absolute path under it.
WORKSPACE_ROOT = "/home/agent/workspace"
#: Issue 24: values hooks.md and classifiers.md leave open, drawn as results and arguments: a receipt that is no
#: object (a bare text, null, a list), details that are no object, a search's arguments as a bare command line
#: (no ``command`` to read), and a search's content holding parts that are no text part. classifiers.md stops
#: walking at the first value that is not an object, so each is an ordinary success or failure; none is an empty
#: lookup but the one whose text parts say nothing.
ODD_KINDS = ("odd_receipt", "odd_details", "odd_args", "odd_content")
#: Every call kind the generators draw as such (each may also be drawn in the variants ``kind_name`` spells).
BASE_KINDS = (
    "read", "read_same", "exec_ok", "exec_fail", "lookup", "lying_lookup", "lookup_error", "fetch_fail", "invalid",
    "no_match", "passed_error_receipt",
    "incomplete", "measured", "passed", "passed_page_errors", "ts_invalid", "ts_no_match", "ts_passed",
    "describe_fail", "search", "big_read",
) + PLAYGROUND_KINDS + ODD_KINDS
#: Tools a call may name whatever its result looks like (issue 24: hooks.md ties no result shape to a tool, so
#: the generators draw the tool independently: an exec or a fetch answering with an inspection's result, the
#: inspection tool answering with an exec's).
DISGUISES = ("read", "exec", "web_fetch", "write", INSPECTION_TOOL)
#: Prefix of a kind delivered through Tool Search (``tool_call`` naming the real tool) instead of directly.
WRAPPED = "ts:"
#: Suffix of a kind whose receipt, when the guard refused the call, is still the tool's own result (hooks.md says
#: a refused call runs nothing, not what receipt the host then sends; a refused search may read "nothing found").
OWN_RECEIPT = "!own"
#: Suffix of a kind whose ``after_tool_call`` carries an error beside its result (classifiers.md: a receipt is a
#: failure when the event carries an error), whatever the result says; the persist hook carries none.
WITH_ERROR = "!error"
#: The error such an event carries.
EVENT_ERROR = "the tool raised: connection reset"


def kind_name(base: str, tool: str | None = None, wrapped: bool = False, own: bool = False, error: bool = False) -> str:
    """The kind that is ``base`` through ``tool`` (None: its own), through Tool Search or not, its own receipt
    when refused or not, its live event carrying an error or not: ``[ts:]base[@tool][!own][!error]``."""
    return (f"{WRAPPED if wrapped else ''}{base}{'@' + tool if tool else ''}{OWN_RECEIPT if own else ''}"
            f"{WITH_ERROR if error else ''}")


def kind_parts(kind: str) -> tuple[str, str | None, bool, bool]:
    """``kind_name``'s inverse but for the error (``kind_error``): (base, tool or None, wrapped, own receipt)."""
    wrapped = kind.startswith(WRAPPED)
    core = kind[len(WRAPPED) if wrapped else 0:].removesuffix(WITH_ERROR)
    own = core.endswith(OWN_RECEIPT)
    base, _, tool = core.removesuffix(OWN_RECEIPT).partition("@")
    return base, tool or None, wrapped, own


def kind_error(kind: str) -> str | None:
    """The error a kind's ``after_tool_call`` carries, or None."""
    return EVENT_ERROR if kind.endswith(WITH_ERROR) else None


#: Kinds only a motif draws (``generate.Builder.trip``): a read of the very path the trip's remedy will write
#: (seed 002: the router preserves a file read earlier instead of binding it, so that remedy is not admitted),
#: or at odd call numbers an edit of it (no read: that remedy is admitted).
MOTIF_KINDS = ("read_ahead",)
#: The trip motif's remedy comes this many calls after its read (four gated calls between them).
READ_AHEAD = 5
#: Every call kind a sequence (or a sequence file) may hold: the base kinds first, then every variant.
CALL_KINDS = BASE_KINDS + MOTIF_KINDS + tuple(
    kind_name(base, tool, wrapped, own, error)
    for base in BASE_KINDS for tool in (None, *DISGUISES) for wrapped in (False, True) for own in (False, True)
    for error in (False, True) if (tool, wrapped, own, error) != (None, False, False, False)
)
#: How a receipt relates to its pending call (hooks.md "Binding"); weighted toward bound receipts.
#: ``unusable_id`` (issue 24): the call's own id is no non-empty string (``events.Call.call_id``), which budget.md
#: ignores, so nothing may bind to it.
BINDINGS = ("bound",) * 8 + ("nested", "other_run", "other_session", "no_before", "other_tool", "rewritten",
                             "rewritten", "unusable_id")
#: The bindings under which a receipt is not its call's (every other: bound, or rewritten params seen only by the
#: persist hook).
UNBOUND_BINDINGS = frozenset({"nested", "other_run", "other_session", "no_before", "other_tool", "unusable_id"})


@functools.lru_cache(maxsize=8192)
def call_shape(kind: str, index: int) -> Shape:
    """The call of kind ``kind``, the ``index``-th of its sequence (paths and commands vary with it).

    A variant (``kind_name``) keeps its base's result and persisted copy and changes only what it names: the
    real tool (the params stay the base's: any tool, any arguments), the transport (Tool Search's envelope
    around the same result). Only the inspection tool records its own result, so a variant has a record
    exactly when its real tool is the inspection tool (then the result itself, unwrapped). ``!own`` changes
    nothing here: the delivery reads it (``properties.hooks.deliver``).

    Cached: a shape is built once and shared by every guard it is delivered to, so nothing may change it
    (the guard copies what it keeps).
    """
    base, tool, wrapped, _own = kind_parts(kind)
    if (tool, wrapped) == (None, False):
        return _base_shape(base, index)
    shape = _base_shape(base, index)
    inner = shape.live.get("details", {}).get("result", shape.live) if shape.tool == "tool_call" else shape.live
    real = tool or shape.real_tool
    args = shape.args
    capped_copy = shape.persisted is not shape.live
    if wrapped or shape.tool == "tool_call":
        live = envelope(inner, isinstance(inner, dict) and inner.get("isError", False) is True) \
            if shape.tool != "tool_call" else shape.live
        params: Any = {"id": real, "args": args}
        name = "tool_call"
    else:
        live, params, name = inner, args, real
    return Shape(name, params, live, capped(live) if capped_copy else live, inner if real == INSPECTION_TOOL else None)


def _base_shape(kind: str, index: int) -> Shape:
    if kind in _DIRECT_INSPECTIONS:
        result = _DIRECT_INSPECTIONS[kind]
        return Shape(INSPECTION_TOOL, INSPECT_ARGS, result, capped(result), result)
    if kind == "passed_error_receipt":
        # The tool's own record says the inspection passed, the host's receipt says isError (issue 24: hooks.md ties
        # the record to the call, not to what the host then delivers; the guard's documented choice, restated in
        # ``spec_outcome``: the receipt's isError still fails the call). Every other kind's record is its receipt.
        receipt = {**PASSED, "isError": True}
        return Shape(INSPECTION_TOOL, INSPECT_ARGS, receipt, capped(receipt), PASSED)
    if kind in _WRAPPED_INSPECTIONS:
        inner = _WRAPPED_INSPECTIONS[kind]
        live = envelope(inner)
        return Shape("tool_call", {"id": INSPECTION_TOOL, "args": INSPECT_ARGS}, live, capped(live), inner)
    simple: dict[str, tuple[Any, ...]] = {
        "read": ("read", {"path": f"f{index}.txt"}, ok()),
        "read_same": ("read", {"path": "same.txt"}, ok()),
        "exec_ok": ("exec", {"command": f"ls {index}"}, exec_result(0, "a")),
        "exec_fail": ("exec", {"command": f"make {index}"}, exec_result(2, "error")),
        "lookup": ("exec", {"command": "grep -n foo a.js"}, exec_result(1)),
        # A failing build whose receipt claims a search's command: the command must come from the record.
        "lying_lookup": ("exec", {"command": f"make {index}"}, exec_result(1, "", command="grep -n foo a.js")),
        # A search that exits 1 and says why: an error line is no "nothing found" (classifiers.md, seed 000), so
        # the classifier must be handed the receipt's text (issue 24: every other generated search printed nothing).
        # At odd call numbers the host hands its output as two text parts, nothing printed, then the error line: the
        # classifier must read every part, one per line (a join that glued the parts would hide the error line).
        "lookup_error": ("exec", {"command": "grep -n foo a.js"}, exec_result(1, "grep: a.js: No such file or directory")
                         if index % 2 == 0 else split_output(exec_result(1), "", "grep: a.js: No such file or directory")),
        "fetch_fail": ("web_fetch", {"url": f"https://example.com/{index}"}, failure()),
        "describe_fail": ("tool_call", {"id": "tool_describe", "args": {"name": "x"}}, failure("Unknown tool id")),
        "search": ("tool_search", {"query": f"q{index}"}, ok()),
        "big_read": ("read", {"path": f"big{index}.json"}, ok("x" * 10)),
        "gate": (*_gated_call(index), exec_result(0)),
        "probe": ("exec", {"command": VERSION_PROBES[index % len(VERSION_PROBES)]}, exec_result(0, "Python 3.11.2")),
        "remedy": ("write", {"path": remedy_path(index), "content": "x"}, ok()),
        "bad_write": ("write", {"path": no_remedy_path(index), "content": "x"}, ok()),
        # The remedy by its absolute path: a remedy when the guard's root is WORKSPACE_ROOT, else a bad write.
        "remedy_rooted": ("write", {"path": f"{WORKSPACE_ROOT}/Playground/project-{index % 3}/main.py", "content": "x"},
                          ok()),
        "read_remedy": ("read", {"path": "Playground/project-0/main.py"}, failure("ENOENT")),
        "odd_receipt": ("read", {"path": f"odd{index}.txt"}, ("done", None, text("done"))[index % 3]),
        "odd_details": ("exec", {"command": f"make {index}"}, {"isError": False, "content": text("built"), "details": "completed"}),
        "odd_args": ("exec", "grep -n foo a.js", exec_result(1)),
        # A search that found nothing: no part is a text part with text, so nothing was printed (issue 24).
        "odd_content": ("exec", {"command": "grep -n foo a.js"}, {"isError": False, "content": [
            "grep -n foo a.js", {"type": "image", "data": "AAAA"}, {"type": "text", "text": 7}, {"type": "text"}],
            "details": {"status": "completed", "exitCode": 1}}),
        # A successful read (a failed one would count toward the fuse, and the third gate would trip it); at odd
        # call numbers an edit of that path instead, which reads nothing (the remedy after it is still admitted).
        "read_ahead": (("read", {"path": remedy_path(index + READ_AHEAD)}) if index % 2 == 0 else
                       ("edit", {"path": remedy_path(index + READ_AHEAD), "oldText": "a", "newText": "b"}))
        + (ok("existing text"),),
    }
    tool, params, live = simple[kind]
    return Shape(tool, params, live, live, None)


#: Issue 24: the router's decisions, drawn in every form seed 002 and hooks.md tell apart. The commands the
#: first-write gate refuses (one by index): code, a patch, the seed's recorded call 1 (a version probe with code
#: chained to it), a probe followed by another command.
def _gated_call(index: int) -> tuple[str, dict]:
    form = index % 4
    if form == 1:
        return "apply_patch", {"patch": f"*** Begin Patch\n*** Add File: m{index}.py\n+x = {index}\n*** End Patch"}
    command = (
        f"python3 -c 'import m{index}'",
        "",
        "python3 --version && python3 -c 'from PIL import Image'",
        f"node --version; ls {index}",
    )[form]
    return "exec", {"command": command}


#: Version probes the gate lets run (seed 002's recorded call 2, and the same question asked other ways).
VERSION_PROBES = ("python3 --version", "node -V", "  git --version  ", "python3.11 --version")


def _deep(parts: int) -> str:
    """A remedy path of exactly ``parts`` components (classifiers.md allows at most 12)."""
    return "/".join(["Playground", "deep-project", *(f"d{number}" for number in range(parts - 3)), "main.py"])


def _long(length: int) -> str:
    """A remedy path of exactly ``length`` characters (classifiers.md allows at most 512), in folders of at most
    60 characters (each component within classifiers.md's 64)."""
    head, tail = "Playground/long-project/", "/main.py"
    remaining = length - len(head) - len(tail)
    names = []
    while remaining > 64:
        names.append("a" * 60)
        remaining -= 61
    names.append("b" * remaining)
    return head + "/".join(names) + tail


#: Remedies (binds_new_project holds in a fresh routing state): the seed's plain form, or at a few call numbers
#: another spelling of it: the limits exactly (12 components, 512 characters), a leading ``./``, backslashes,
#: ``/workspace/``. By call number, so that a seed draws the same events as before; the numbers are ones the trip
#: motif's remedy often has (calls 3-8), so each form is admitted in the default run.
REMEDY_FORMS = {3: "@deep", 4: "@long", 5: "./Playground/project-{n}/index.html",
                7: "Playground\\project-{n}\\main.py", 8: "/workspace/Playground/project-{n}/app.js"}
REMEDY_PLAIN = "Playground/project-{n}/main.py"
#: Writes that are no remedy: refused by the router (bare, generic, unusable: a device name, a trailing dot, a
#: space, 13 components, 513 characters) or bound by it where binds_new_project is narrower (``playground`` in
#: lower case, ``<name>/<file>``: seed 002). One form per call number, the twelve spread over calls 0-11
#: (``NO_REMEDY_STRIDE`` is prime to 12) so that every form comes at a call number sequences often reach.
NO_REMEDY_FORMS = (
    "main{i}.py", "Playground/main.py", "Playground/src/app{i}.js", "playground/Assets/x{i}.css",
    "Playground/con/x{i}.py", "Playground/demo./x{i}.py", "@deep13", "@long513", "Playground/my project/x{i}.py",
    "src/main{i}.py", "playground/notes-{n}/main.py", "photo-renamer-{n}/main.py",
)
NO_REMEDY_STRIDE = 5


def remedy_path(index: int) -> str:
    form = REMEDY_FORMS.get(index, REMEDY_PLAIN)
    return _deep(12) if form == "@deep" else _long(512) if form == "@long" else form.format(n=index % 3)


def no_remedy_path(index: int) -> str:
    form = NO_REMEDY_FORMS[index * NO_REMEDY_STRIDE % len(NO_REMEDY_FORMS)]
    return _deep(13) if form == "@deep13" else _long(513) if form == "@long513" else form.format(i=index, n=index % 3)


def other_tool(tool: str) -> str:
    """A tool name the receipt may carry that is not the recorded one (and not Tool Search's wrapper)."""
    return "read" if tool != "read" else "exec"


def rewritten(params: Any, index: int = 0) -> Any:
    """Executed params that differ from the recorded ones (the host rewrote them): a key added, or, where the
    params hold a list, that list one element longer with the same elements before it (call numbers 1 mod 4) or
    the same elements as a tuple (3 mod 4). Issue 24: deep equality must compare lengths and types, and a rewrite
    that only added keys showed neither."""
    form = rewrite_form(params, index)
    if form != "key":
        return _first_list_changed(params, form)
    return {**params, "rewritten": True} if isinstance(params, dict) else {"rewritten": True}


def host_edits(index: int) -> bool:
    """Whether the host edits, right after each hook returned, the params and the record it handed over (call
    numbers 2 mod 5; issue 24). A host may reuse its objects: hooks.md does not forbid it, and guard/hooks.py keeps
    deep copies for that reason. Deterministic in the call number, so no draw of a sequence depends on it."""
    return index % 5 == 2


def nested_containers(value: Any) -> list:
    """The non-empty lists and objects nested one level inside ``value``."""
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    return [item for item in items if isinstance(item, (dict, list)) and item]


def scribble(value: Any) -> None:
    """Empty, in place, every list and object nested one level inside ``value`` (what a host reusing its buffers
    would leave behind). ``value`` must be the host's own copy, never a shape's."""
    for item in nested_containers(value):
        item.clear()


def rewrite_form(params: Any, index: int) -> str:
    """How ``rewritten(params, index)`` differs from ``params``: ``longer``, ``tuple`` or ``key``."""
    if index % 2 == 0 or _first_list_changed(params, "longer") is None:
        return "key"
    return "longer" if index % 4 == 1 else "tuple"


def _first_list_changed(value: Any, form: str) -> Any:
    """``value`` with its first list (depth first) one element longer or made a tuple; None if it has none."""
    if isinstance(value, list):
        return [*value, value[-1] if value else None] if form == "longer" else tuple(value)
    if isinstance(value, dict):
        for key, item in value.items():
            changed = _first_list_changed(item, form)
            if changed is not None:
                return {**value, key: changed}
    return None
