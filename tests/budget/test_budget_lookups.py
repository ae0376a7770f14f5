"""Seed 000 table tests: an empty search is an answer, not a failure, twelve times a run.

Expected values come from seed 000 ("Tests": the allowance is bounded, an
empty search never erases earlier failures, a search-only run still stops on
the rounds fuse) and ``shared/spec/budget.md`` production rule 2, by hand.
"""

from __future__ import annotations

import itertools

import pytest

from guard.budget import RunProgressBudget

_ids = itertools.count()


def fail(budget, *, tool: str = "exec", **flags) -> None:
    call_id = f"call-{next(_ids)}"
    budget.observe_result(call_id, tool, {"command": call_id}, True, **flags)


def ok(budget, *, tool: str = "read", **flags) -> None:
    call_id = f"call-{next(_ids)}"
    budget.observe_result(call_id, tool, {"path": call_id}, False, **flags)


def empty(budget, **flags) -> None:
    fail(budget, empty_lookup=True, **flags)


def counters(budget) -> tuple:
    return (budget.failures, budget.consecutive, budget.rounds, dict(budget.lane_failures),
            set(budget.exhausted_lanes), budget.deferred, budget.terminal)


def test_twelve_empty_lookups_change_nothing() -> None:
    budget = RunProgressBudget()
    fresh = counters(budget)
    for _ in range(12):
        empty(budget)
    assert counters(budget) == fresh
    assert budget.free_lookups_used == 12


def test_the_thirteenth_empty_lookup_is_an_ordinary_failure() -> None:
    budget = RunProgressBudget()
    for _ in range(12):
        empty(budget)
    empty(budget)
    assert (budget.failures, budget.consecutive) == (1, 1)
    assert budget.free_lookups_used == 12


def test_the_allowance_is_bounded_at_twelve() -> None:
    budget = RunProgressBudget()
    for _ in range(12):
        empty(budget)
    for count in range(1, 4):
        empty(budget)
        assert budget.consecutive == count and not budget.terminal
    empty(budget)  # the 16th empty lookup, the 4th charged in a row
    assert budget.terminal


def test_the_allowance_is_per_run_not_per_streak() -> None:
    budget = RunProgressBudget()
    for _ in range(6):
        empty(budget)
    ok(budget)
    for _ in range(6):
        empty(budget)
    ok(budget)
    empty(budget)
    assert budget.failures == 1


def test_an_empty_lookup_never_erases_earlier_failures() -> None:
    budget = RunProgressBudget()
    for _ in range(3):
        fail(budget)
    empty(budget)
    assert (budget.failures, budget.consecutive) == (3, 3)
    fail(budget)
    assert budget.terminal


def test_an_empty_lookup_never_resets_rounds() -> None:
    budget = RunProgressBudget()
    for _ in range(5):
        budget.begin_model_round()
    empty(budget)
    assert budget.rounds == 5


def test_an_empty_lookup_neither_forgives_nor_charges_a_waiting_charge() -> None:
    budget = RunProgressBudget()
    for _ in range(3):
        fail(budget)
    fail(budget, correctable=True)
    assert budget.deferred == "global"
    empty(budget)
    assert budget.deferred == "global"
    assert not budget.terminal and budget.consecutive == 3
    ok(budget)  # an unrelated success still charges the wait
    assert budget.terminal


def test_an_empty_lookup_in_a_lane_charges_no_lane() -> None:
    budget = RunProgressBudget()
    for _ in range(3):
        fail(budget, lane="workspace")
    empty(budget, lane="workspace")
    assert budget.lane_failures["workspace"] == 3
    assert not budget.lane_exhausted("workspace")


def test_a_search_only_run_stops_on_the_rounds_fuse_at_round_nine() -> None:
    budget = RunProgressBudget()
    for round_number in range(1, 9):
        assert budget.begin_model_round() is False, round_number
        empty(budget)
    assert budget.begin_model_round() is True
    assert budget.rounds == 9
    assert budget.failures == 0


@pytest.mark.parametrize("flag", [1, "true", "yes"])
def test_empty_lookup_counts_only_when_exactly_true(flag: object) -> None:
    budget = RunProgressBudget()
    fail(budget, empty_lookup=flag)
    assert budget.failures == 1
    assert budget.free_lookups_used == 0


def test_an_empty_lookup_flag_on_a_success_is_an_ordinary_success() -> None:
    budget = RunProgressBudget()
    for _ in range(3):
        fail(budget)
    ok(budget, empty_lookup=True)
    assert budget.consecutive == 0
    assert budget.free_lookups_used == 0


def test_a_stopped_run_spends_no_allowance() -> None:
    budget = RunProgressBudget()
    budget.stop()
    empty(budget)
    assert budget.free_lookups_used == 0


@pytest.mark.parametrize("free, expected", [(0, False), (11, False), (12, True)])
def test_failure_ends_for_an_empty_lookup_at_consecutive_three(free: int, expected: bool) -> None:
    budget = RunProgressBudget()
    for _ in range(free):
        empty(budget)
    for _ in range(3):
        fail(budget)
    assert budget.failure_ends(empty_lookup=True) is expected
    empty(budget)
    assert budget.terminal is expected


def test_failure_ends_for_a_free_lookup_in_an_exhausted_lane_reports_the_lane() -> None:
    """A free lookup changes nothing, so it "ends" its lane exactly when that lane is already exhausted.

    budget.md asks failure_ends to report whether the failure's own lane would
    be exhausted after it; a free lookup leaves the state as it is, so the
    answer is the lane's current state (and False for the other lane).
    """
    budget = RunProgressBudget()
    for _ in range(4):
        fail(budget, lane="workspace")
    assert budget.lane_exhausted("workspace") and not budget.terminal
    assert budget.failure_ends(lane="workspace", empty_lookup=True) is True
    assert budget.failure_ends(lane="extension", empty_lookup=True) is False
    assert budget.failure_ends(empty_lookup=True) is False
    empty(budget, lane="workspace")
    assert budget.free_lookups_used == 1 and budget.lane_exhausted("workspace") and not budget.terminal
