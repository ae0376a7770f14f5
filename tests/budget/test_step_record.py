"""A budget step is self-contained (issue 18): it holds its history as values fixed at that step, never the monitor.

The checks of a step kept after its trace went on (a counterexample being
shrunk, a step a test holds, the explorer's cached verdicts) must read that
step's own moment. The monitor therefore replaces a history map whose value
changes instead of writing into it; a monitor that wrote into its maps would
change every step made before, which these tests catch.
"""

from __future__ import annotations

import attrs

from guard.limits import Limits
from properties.budget.copies import new_copies
from properties.budget.events import FirstCall, Result, Round
from properties.budget.invariants import CATALOGUE, Step, StepHistory
from properties.budget.monitor import Monitor
from properties.catalogue import Invariant, Tally

FIRST, SECOND = "playground-first-write", "playground-project-path"


def trace() -> list:
    """Every part of the history moves: a correctable failure (Pd), an empty lookup (Pl), three failures and a
    refusal that trips the fuse (Pr, streak fuse), two admissions (admissions, streak admissions), a success that
    ends the streak, and a round."""
    events: list = [Result("l", tool="search", failed=True, empty_lookup=True)]
    events += [Result(f"f{index}", tool="exec", failed=True) for index in range(2)]
    events += [Result("c", tool="inspect", failed=True, correctable=True)]
    events += [Result("r1", tool="exec", failed=True, correctable_refusal=FIRST), FirstCall(remedy=True)]
    events += [Result("r2", tool="write", failed=True, correctable_refusal=SECOND), FirstCall(remedy=True)]
    events += [Result("ok", tool="exec", failed=False), Round()]
    return events


def frozen(history: StepHistory) -> tuple:
    """The history's values, copied out (what the step said at the moment it was judged)."""
    return (
        dict(history.feature_used), dict(history.admissions), dict(history.streak_admissions),
        dict(history.streak_fuse), history.lookups_only, history.reference_fuse,
    )


def run_keeping_steps() -> tuple[list[Step], list[tuple]]:
    kept: list[Step] = []
    seen: list[tuple] = []

    def keep(step: Step) -> tuple[bool, None]:
        kept.append(step)
        seen.append(frozen(step.history))
        return True, None

    spy = Invariant("B99", "test", "keeps every step", keep, "budget")
    monitor = Monitor(limits=Limits(), tally=Tally(), budgets=new_copies(Limits()), invariants=(*CATALOGUE, spy))
    for event in trace():
        assert monitor.step(event) == []
    return kept, seen


def test_a_step_holds_no_monitor() -> None:
    names = {field.name for field in attrs.fields(Step)}
    assert "monitor" not in names and "history" in names
    assert not any(isinstance(value, Monitor) for value in attrs.astuple(StepHistory(
        Limits(), 4, {}, {}, {}, {}, True, "all", None), recurse=False))


def test_kept_steps_read_their_own_moment() -> None:
    kept, seen = run_keeping_steps()
    # Judged at the time: the trace moves every part of the history (else this test proves nothing).
    first, last = seen[0], seen[-1]
    assert first[0] == {"Pd": False, "Pr": False, "Pl": True} and first[4] is True
    assert last[0] == {"Pd": True, "Pr": True, "Pl": True} and last[4] is False
    # P admits both remedies. Pr has no empty-lookup or correctable flag, so the lookup and the correctable
    # failure are its third and fourth failures: it stops at the fuse before the refusals and admits none.
    assert last[1] == {"P": 2, "Pr": 0}
    # P's streak ends at the success; Pr's four failures reached the fuse and, stopped, it never resets.
    assert any(values[3]["P"] > 0 for values in seen) and last[3] == {"P": 0, "Pr": 4}
    assert any(values[2]["P"] == 2 for values in seen) and last[2] == {"P": 0, "Pr": 0}
    # Read again after the trace ended: every kept step still says what it said when it was judged.
    assert [frozen(step.history) for step in kept] == seen


def test_the_explorer_history_maps_are_never_written() -> None:
    """``restore_history_maps`` takes the caller's maps without copying them: a step must leave them as they were."""
    monitor = Monitor(limits=Limits(), tally=Tally(), budgets=new_copies(Limits()))
    for event in trace()[:5]:
        monitor.step(event)
    maps = (dict(monitor.feature_used), dict(monitor.admissions), dict(monitor.streak_admissions),
            dict(monitor.streak_fuse), monitor.lookups_only)
    copies = tuple(dict(part) if isinstance(part, dict) else part for part in maps)
    monitor.restore_history_maps(maps)
    for event in trace()[5:]:
        monitor.step(event)
    assert maps == copies
    assert monitor.admissions != maps[1]
