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


def pytest_addoption(parser: Any) -> None:
    parser.addoption("--red-outcomes", metavar="FILE", default=None, help="append failed/error node ids to FILE")


def _append(config: Any, outcome: str, nodeid: str) -> None:
    target = config.getoption("red_outcomes")
    if target:
        with open(target, "a", encoding="utf-8") as out:
            out.write(f"{outcome}\t{nodeid}\n")


def pytest_configure(config: Any) -> None:
    global _CONFIG
    _CONFIG = config


_CONFIG: Any = None


def pytest_runtest_logreport(report: Any) -> None:
    if report.failed and _CONFIG is not None:
        _append(_CONFIG, FAILED if report.when == "call" else ERROR, report.nodeid)


def pytest_collectreport(report: Any) -> None:
    if report.failed and _CONFIG is not None:
        _append(_CONFIG, ERROR, report.nodeid or "(collection)")


def read(path: Path) -> tuple[list[str], list[str]]:
    """(failed, errored) node ids from FILE, each once, in the order pytest reported them."""
    failed: list[str] = []
    errored: list[str] = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return failed, errored
    for line in lines:
        outcome, _, nodeid = line.partition("\t")
        bucket = failed if outcome == FAILED else errored if outcome == ERROR else None
        if bucket is not None and nodeid and nodeid not in bucket:
            bucket.append(nodeid)
    return failed, errored
