"""A pytest plugin for the red check: which tests failed and which errored, as pytest itself counts them.

pytest reports a test as *failed* when its body fails and as an *error* when
its set-up or tear-down (a fixture) fails, or its module cannot be collected.
An error says the test never judged the behaviour, so the red check must not
count it as a test that caught the earlier behaviour. ``-p
mutations.red_outcomes --red-outcomes FILE`` appends ``failed<TAB>node id`` or
``error<TAB>node id`` to FILE for each.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

FAILED = "failed"
ERROR = "error"
#: How a failed test failed (issue 22): only an assertion on behaviour catches an earlier behaviour.
ASSERTION = "assertion"
STRUCTURAL = "structural"


def pytest_addoption(parser: Any) -> None:
    parser.addoption("--red-outcomes", metavar="FILE", default=None, help="append failed/error node ids to FILE")


def _append(config: Any, outcome: str, nodeid: str, kind: str = "") -> None:
    target = config.getoption("red_outcomes")
    if target:
        with open(target, "a", encoding="utf-8") as out:
            out.write(f"{outcome}\t{nodeid}\t{kind}\n")


def kind_of(item: Any, excinfo: Any) -> str:
    """``assertion`` for a failed assertion (a Hypothesis group of them too), ``structural`` for a test marked as
    checking the code's shape rather than its behaviour, else the exception's type name (a crash, not a catch)."""
    if item.get_closest_marker("structural") is not None:
        return STRUCTURAL
    error = excinfo.value
    if isinstance(error, BaseExceptionGroup):
        rest = error.split(AssertionError)[1]
        return ASSERTION if rest is None else type(rest.exceptions[0]).__name__
    return ASSERTION if isinstance(error, AssertionError) else type(error).__name__


def pytest_runtest_makereport(item: Any, call: Any) -> None:
    if call.when == "call" and call.excinfo is not None and _CONFIG is not None:
        KINDS[item.nodeid] = kind_of(item, call.excinfo)


#: How each failed test failed, by node id (filled as the tests run, read by ``pytest_runtest_logreport``).
KINDS: dict[str, str] = {}


def pytest_configure(config: Any) -> None:
    global _CONFIG
    _CONFIG = config


_CONFIG: Any = None


def pytest_runtest_logreport(report: Any) -> None:
    if report.failed and _CONFIG is not None:
        failed = report.when == "call"
        _append(_CONFIG, FAILED if failed else ERROR, report.nodeid, KINDS.get(report.nodeid, "") if failed else "")


def pytest_collectreport(report: Any) -> None:
    if report.failed and _CONFIG is not None:
        _append(_CONFIG, ERROR, report.nodeid or "(collection)")


def read(path: Path) -> tuple[list[tuple[str, str]], list[str]]:
    """(failed as (node id, kind), errored node ids) from FILE, each once, in the order pytest reported them."""
    failed: list[tuple[str, str]] = []
    errored: list[str] = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return failed, errored
    for line in lines:
        outcome, _, rest = line.partition("\t")
        nodeid, _, kind = rest.partition("\t")
        if not nodeid:
            continue
        if outcome == FAILED and all(nodeid != seen for seen, _kind in failed):
            failed.append((nodeid, kind))
        elif outcome == ERROR and nodeid not in errored:
            errored.append(nodeid)
    return failed, errored
