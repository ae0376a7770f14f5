"""A pytest plugin for runs under mutation: fastest tests first, and a record of what failed.

Loaded with ``-p mutations.pytest_plugin`` (mutmut's ``pytest_add_cli_args``
and the catalogue's pytest runs). Both runs stop at the first failure (``-x``),
so running the cheapest tests first makes a killed mutant cheap; only a
survivor pays for the whole selection. Durations come from mutmut's own stats
pass (``mutmut-stats.json``); tests it never timed keep their order, after the
timed ones.

When ``MUTATIONS_KILLERS_FILE`` is set, every failing test id is appended to
it as ``<MUTANT_UNDER_TEST>\\t<node id>``, so the report can name the killer
(mutmut itself does not record which test killed a mutant). Appends of one
short line are atomic, so parallel workers can share the file.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

#: Durations by node id, loaded once per process (forked mutant runs inherit them).
_durations: dict[str, float] | None = None


def _load_durations() -> dict[str, float]:
    global _durations
    if _durations is not None:
        return _durations
    named = os.environ.get("MUTATIONS_DURATIONS")
    path = Path(named) if named else Path("mutmut-stats.json")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        loaded = {str(k): float(v) for k, v in data.get("duration_by_test", {}).items()}
    except (OSError, ValueError, AttributeError):
        loaded = {}
    if loaded:
        _durations = loaded
    return loaded


def pytest_collection_modifyitems(session: Any, config: Any, items: list[Any]) -> None:
    durations = _load_durations()
    if not durations:
        return
    position = {id(item): index for index, item in enumerate(items)}
    items.sort(key=lambda item: (durations.get(item.nodeid, math.inf), position[id(item)]))


def _record(nodeid: str) -> None:
    target = os.environ.get("MUTATIONS_KILLERS_FILE")
    if not target:
        return
    line = f"{os.environ.get('MUTANT_UNDER_TEST', '')}\t{nodeid}\n".encode("utf-8")
    descriptor = os.open(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(descriptor, line)
    finally:
        os.close(descriptor)


def pytest_runtest_logreport(report: Any) -> None:
    if report.failed:
        _record(report.nodeid)


def pytest_collectreport(report: Any) -> None:
    if report.failed:
        _record(f"collection error: {report.nodeid or '(session)'}")
