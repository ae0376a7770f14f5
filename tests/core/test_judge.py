"""The one judge (``properties/judge.py``), unique invariant ids, and the budget monitor's public history."""

from __future__ import annotations

from collections import Counter

import pytest

from properties.catalogue import DuplicateInvariant, Invariant, Tally, unique_ids
from properties.judge import Judge


def _even(step: int) -> tuple[bool, "str | None"]:
    """Exercised on even steps; never broken."""
    return step % 2 == 0, None


def _small(step: int) -> tuple[bool, "str | None"]:
    """Always exercised; broken above 2."""
    return True, (f"{step} is above 2" if step > 2 else None)


EVEN = Invariant("X1", "-", "even", _even, "test")
SMALL = Invariant("X2", "-", "small", _small, "test")


def test_the_judge_counts_checks_exercises_violations_and_coverage_in_order() -> None:
    judge = Judge((EVEN, SMALL))
    tally = Tally()
    calls: list[tuple[int, int]] = []

    def coverage(step: int) -> None:
        # Called after the checks: the tally already holds this step's exercised counts.
        calls.append((step, tally.exercised["X2"]))
        tally.coverage["seen"] += 1

    held: list[str] = []
    found = [judge(step, step, tally, coverage, held) for step in range(5)]
    assert [len(item) for item in found] == [0, 0, 0, 1, 1]
    assert str(found[3][0]) == "X2 (small) violated at step 3: 3 is above 2"
    assert tally.checked == Counter({"X1": 5, "X2": 5})
    assert tally.exercised == Counter({"X1": 3, "X2": 5})
    assert tally.coverage["seen"] == 5 and calls == [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]
    assert [v.invariant for v in tally.violations] == ["X2", "X2"]
    assert held == ["X1", "X2", "X2", "X1", "X2", "X2", "X1", "X2"]


def test_two_invariants_with_one_id_are_an_error() -> None:
    twin = Invariant("X1", "-", "another even", _small, "other")
    with pytest.raises(DuplicateInvariant, match="X1 is declared twice: 'even' \\(test\\) and 'another even' \\(other\\)"):
        unique_ids((EVEN, SMALL, twin))
    with pytest.raises(DuplicateInvariant):
        Judge((EVEN, twin))


def test_the_registry_holds_every_id_once() -> None:
    from properties.subject import all_invariants, available

    ids = [invariant.id for subject in available() for invariant in subject.catalogue]
    assert len(ids) == len(set(ids)) == len(all_invariants())


def test_a_budget_monitors_history_is_saved_and_restored_through_public_methods() -> None:
    from properties.budget.events import FirstCall, Result, Round
    from properties.budget.monitor import new_monitor

    events = [Result(call_id="a", tool="exec", failed=True, correctable=True), FirstCall(remedy=True),
              Result(call_id="b", tool="exec", failed=True, correctable_refusal="playground_dependency_missing"),
              Round(), Result(call_id="c", tool="read", empty_lookup=True, failed=True)]
    stepped = new_monitor(Tally())
    fresh = new_monitor(Tally())
    start = fresh.save_history()
    for event in events:
        stepped.step(event)
    saved = stepped.save_history()
    assert saved != start, "the events must move the history, or the test shows nothing"
    fresh.restore_history(saved)
    assert fresh.save_history() == saved
    fresh.restore_history(start)
    assert fresh.save_history() == start
