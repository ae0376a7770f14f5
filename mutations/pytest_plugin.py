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
import signal
from pathlib import Path
from typing import Any

import pytest

#: (path, modification time) -> durations by node id; forked mutant runs inherit what their parent read.
_durations: dict[tuple[str, float], dict[str, float]] = {}


def _load_durations() -> dict[str, float]:
    named = os.environ.get("MUTATIONS_DURATIONS")
    path = Path(named) if named else Path("mutmut-stats.json")
    try:
        key = (str(path.resolve()), path.stat().st_mtime)
    except OSError:
        return {}
    if key not in _durations:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            _durations[key] = {str(k): float(v) for k, v in data.get("duration_by_test", {}).items()}
        except (OSError, ValueError, AttributeError):
            return {}
    return _durations[key]


def pytest_configure(config: Any) -> None:
    """Under mutmut, tolerate a test method meeting a new ``self``: mutmut re-runs pytest in one process.

    mutmut's stats, clean and per-mutant runs call ``pytest.main`` again and
    again in one (forked) process, so a Hypothesis test defined on a class is
    called through a fresh instance each time, and Hypothesis' differing
    executors health check fails the clean run although nothing is wrong. The
    loaded profile (``mutants``, from ``properties/profiles.py``) is kept; only
    that check is added to its suppressed ones.
    """
    if "MUTANT_UNDER_TEST" not in os.environ:
        return
    # Issue 25: every process of the mutation layers runs under a memory limit, so a mutant that allocates
    # without bound fails its test with MemoryError instead of being left to the kernel. mutmut and the
    # catalogue run at most two of these side by side, beside their parent.
    from properties import workers

    workers.limit_memory(workers.memory_limit(3))
    try:
        from hypothesis import HealthCheck, settings
    except ImportError:
        return
    current = settings.default
    if current is None:
        return
    if HealthCheck.differing_executors in current.suppress_health_check:
        return
    settings.register_profile(
        "mutants-under-mutmut", parent=current,
        suppress_health_check=[*current.suppress_health_check, HealthCheck.differing_executors],
    )
    settings.load_profile("mutants-under-mutmut")


#: The committed list of tests left out of every run under mutation, with the reason for each (``left_out.toml``).
LEFT_OUT_FILE = Path(__file__).with_name("left_out.toml")


class LeftOutError(Exception):
    """``left_out.toml`` is unreadable or malformed (one line naming the file and the field)."""


def left_out(path: Path = LEFT_OUT_FILE) -> dict[str, str]:
    """Node id -> why it is left out of runs under mutation; a fixed list, never a timing (see the file)."""
    import tomllib

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise LeftOutError(f"{path}: {error}") from None
    tests = data.get("test", [])
    if not isinstance(tests, list):
        raise LeftOutError(f"{path}: `test` must be an array of tables")
    found: dict[str, str] = {}
    for number, row in enumerate(tests, 1):
        test_id, why = (row.get("id"), row.get("why")) if isinstance(row, dict) else (None, None)
        if not isinstance(test_id, str) or "::" not in test_id:
            raise LeftOutError(f"{path}: test {number}: `id` must be a pytest node id")
        if not isinstance(why, str) or not why.strip():
            raise LeftOutError(f"{path}: test {number} ({test_id}): `why` must give the reason")
        if test_id in found:
            raise LeftOutError(f"{path}: test {number}: {test_id} is listed twice")
        found[test_id] = why
    return found


_left_out: dict[str, str] | None = None


def _left_out_ids() -> frozenset[str]:
    global _left_out
    if _left_out is None:
        _left_out = left_out()
    return frozenset(_left_out)


def _under_mutation_run() -> bool:
    """Any run mutmut or this package starts (stats, listing, clean, forced-fail, per mutant, catalogue, red check).

    They leave out the same tests, so mutmut's stats never time a test its
    per-mutant runs would not run, and its listing never sees one as new.
    """
    return "MUTANT_UNDER_TEST" in os.environ


def pytest_collection_modifyitems(session: Any, config: Any, items: list[Any]) -> None:
    durations = _load_durations()
    if _under_mutation_run():
        # Runs under mutation stay short: a survivor pays for every selected test, so the few whole-driver
        # tests named in left_out.toml are left to `nox -s tests` and `nox -s properties`. The report lists them.
        leave = _left_out_ids()
        kept = [item for item in items if item.nodeid not in leave]
        if len(kept) != len(items):
            config.hook.pytest_deselected(items=[item for item in items if item.nodeid in leave])
            items[:] = kept
    priority = _priority()
    position = {id(item): index for index, item in enumerate(items)}
    items.sort(key=lambda item: (item.nodeid not in priority, durations.get(item.nodeid, math.inf), position[id(item)]))


def _priority() -> frozenset[str]:
    """Tests to run before all others (the catalogue names those that exercise the mutated function)."""
    named = os.environ.get("MUTATIONS_PRIORITY")
    if not named:
        return frozenset()
    try:
        return frozenset(line for line in Path(named).read_text(encoding="utf-8").splitlines() if line)
    except OSError:
        return frozenset()


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


class MutantDeadline(BaseException):
    """A test ran far longer than it did unmutated: the mutant made it hang.

    A BaseException, so that Hypothesis does not catch it and shrink (re-running
    the hanging code); pytest still reports the test as failed.
    """


#: A test may take this many times its unmutated duration (from mutmut's stats), and at least MIN_DEADLINE seconds.
DEADLINE_FACTOR = 20.0
MIN_DEADLINE = 3.0


def _under_mutation() -> bool:
    """A mutant is in place. Not in the red check: it runs without ``-x`` and its outcome is the list of
    failing tests, which must not depend on whether earlier timings were at hand."""
    label = os.environ.get("MUTANT_UNDER_TEST", "")
    return "__mutmut_" in label or (label.startswith("catalogue:") and label != "catalogue:baseline")


def _on_deadline(signum: int, frame: Any) -> None:
    raise MutantDeadline("the test exceeded its deadline under this mutant (it ran far longer than unmutated)")


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: Any) -> Any:
    """Arm a wall-clock deadline around each test while a mutant is under test (see MutantDeadline)."""
    if not _under_mutation() or not hasattr(signal, "setitimer"):
        return (yield)
    known = _load_durations().get(item.nodeid)
    if known is None:
        # Never timed unmutated (a new test): no basis for a deadline, so the suite's own timeout applies.
        return (yield)
    # A confirmation re-run (``mutmut_layer.confirm_hangs``) asks for a much larger deadline.
    factor = float(os.environ.get("MUTATIONS_DEADLINE_FACTOR", DEADLINE_FACTOR))
    floor = float(os.environ.get("MUTATIONS_MIN_DEADLINE", MIN_DEADLINE))
    deadline = max(floor, factor * known)
    previous = signal.signal(signal.SIGALRM, _on_deadline)
    signal.setitimer(signal.ITIMER_REAL, deadline)
    try:
        return (yield)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous or signal.SIG_DFL)


def pytest_runtest_logreport(report: Any) -> None:
    if report.failed:
        hung = "MutantDeadline" in str(report.longrepr)
        _record(report.nodeid + (" [deadline]" if hung else ""))


def pytest_collectreport(report: Any) -> None:
    if report.failed:
        _record(f"collection error: {report.nodeid or '(session)'}")

