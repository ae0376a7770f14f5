"""Seed 002 table tests: a refusal's own remedy may run once after the fuse.

Expected values come from seed 002 ("Tests": no double grant, bounds kept)
and ``shared/spec/budget.md`` (production rule 3's refusal clause,
``correct_fuse``, ``begin_model_round`` and ``stop``), written by hand.
"""

from __future__ import annotations

import itertools

import pytest

from guard.budget import RunProgressBudget

FIRST_WRITE = "playground-first-write"
PROJECT_PATH = "playground-project-path"

_ids = itertools.count()


def fail(budget, *, tool: str = "exec", **flags) -> None:
    call_id = f"call-{next(_ids)}"
    budget.observe_result(call_id, tool, {"id": call_id}, True, **flags)


def ok(budget, *, tool: str = "write", **flags) -> None:
    call_id = f"call-{next(_ids)}"
    budget.observe_result(call_id, tool, {"id": call_id}, False, **flags)


def refuse(budget, kind: str = FIRST_WRITE, **flags) -> None:
    fail(budget, correctable_refusal=kind, **flags)


def tripped(kind: str = FIRST_WRITE, rounds: bool = False) -> RunProgressBudget:
    """Four router refusals in a row (one model round each when ``rounds``): the fourth trips the fuse."""
    budget = RunProgressBudget()
    for _ in range(4):
        if rounds:
            budget.begin_model_round()
        refuse(budget, kind)
    assert budget.terminal
    return budget


def test_the_tripping_refusal_leaves_its_kind_pending() -> None:
    budget = tripped()
    assert budget.pending_correction == FIRST_WRITE
    assert (budget.consecutive, budget.failures) == (4, 4)


def test_admitting_the_remedy_reopens_with_every_counter_unchanged() -> None:
    budget = tripped()
    assert budget.correct_fuse(True) is True
    assert not budget.terminal
    assert (budget.consecutive, budget.failures) == (4, 4)
    assert budget.pending_correction is None


def test_an_admitted_remedy_that_fails_stops_at_once() -> None:
    budget = tripped()
    budget.correct_fuse(True)
    fail(budget, tool="write")
    assert budget.terminal
    assert budget.consecutive == 5
    assert budget.pending_correction is None


def test_after_an_admission_even_a_correctable_failure_stops_at_once() -> None:
    # Seed 002: "the consecutive count stays at the fuse, so that call's own failure (or any other) stops the
    # response again at once"; seed 001 defers only a charge that takes the counter to the fuse (at 3).
    budget = tripped()
    budget.correct_fuse(True)
    assert budget.failure_ends() is True
    assert budget.failure_ends(correctable=True) is True
    fail(budget, tool="pixel_ods_workspace_preview_inspect", correctable=True)
    assert budget.terminal
    assert budget.deferred is None and budget.deferrals_used == 0


def test_after_a_successful_remedy_the_ordinary_fuse_applies_from_zero() -> None:
    budget = tripped()
    budget.correct_fuse(True)
    ok(budget, tool="write")
    assert budget.consecutive == 0
    for _ in range(3):
        fail(budget)
        assert not budget.terminal
    fail(budget)
    assert budget.terminal


@pytest.mark.parametrize("answer", [False, None, 1, "yes", [True]])
def test_a_declined_correction_is_spent(answer: object) -> None:
    budget = tripped()
    assert budget.correct_fuse(answer) is False
    assert budget.terminal
    assert budget.pending_correction is None
    # Spent: a later remedy is not admitted.
    assert budget.correct_fuse(True) is False
    assert budget.terminal


def test_a_kind_is_never_granted_twice() -> None:
    budget = tripped(FIRST_WRITE)
    budget.correct_fuse(True)
    refuse(budget, FIRST_WRITE)  # the fifth in a row, same kind
    assert budget.terminal
    assert budget.pending_correction is None
    assert budget.correct_fuse(True) is False


def test_a_kind_is_never_granted_twice_after_progress() -> None:
    budget = tripped(FIRST_WRITE)
    budget.correct_fuse(True)
    ok(budget)
    for _ in range(4):
        refuse(budget, FIRST_WRITE)
    assert budget.terminal and budget.failures == 8
    assert budget.pending_correction is None


def test_a_second_kind_gets_its_own_single_grant() -> None:
    budget = tripped(FIRST_WRITE)
    assert budget.correct_fuse(True) is True
    refuse(budget, PROJECT_PATH)
    assert budget.terminal
    assert budget.pending_correction == PROJECT_PATH
    assert budget.correct_fuse(True) is True
    assert not budget.terminal
    refuse(budget, PROJECT_PATH)
    assert budget.terminal and budget.pending_correction is None
    assert budget.correct_fuse(True) is False


def test_a_lane_refusal_is_never_granted_even_at_the_global_fuse() -> None:
    # Seed 002: "even while the global count stands at the fuse after an admission".
    budget = tripped(FIRST_WRITE)
    budget.correct_fuse(True)
    refuse(budget, PROJECT_PATH, lane="workspace")
    assert budget.terminal  # the global count still stands at 4
    assert budget.pending_correction is None


def test_lane_refusals_exhausting_both_lanes_leave_no_correction() -> None:
    budget = RunProgressBudget()
    for lane in ("workspace", "extension"):
        for _ in range(4):
            refuse(budget, FIRST_WRITE, lane=lane)
    assert budget.terminal
    assert budget.pending_correction is None


def test_a_refusal_with_the_second_lane_exhausted_earlier_leaves_no_correction() -> None:
    budget = RunProgressBudget()
    for lane in ("workspace", "extension"):
        for _ in range(3):
            fail(budget, lane=lane)
    ok(budget)  # no lane: resets only the global count
    for _ in range(4):
        fail(budget, lane="extension")
    assert not budget.terminal
    # Nine failures so far; the tenth exhausts workspace too (both lanes): terminal, no grant.
    refuse(budget, FIRST_WRITE, lane="workspace")
    assert budget.terminal
    assert budget.pending_correction is None


def spaced_failures(budget, count: int) -> None:
    """``count`` failures, never more than two in a row, ending on a success."""
    for index in range(count):
        fail(budget)
        if index % 2 == 1:
            ok(budget)
    ok(budget)


@pytest.mark.parametrize("earlier, pending", [(8, None), (7, FIRST_WRITE)])
def test_total_cap_leaves_no_correction(earlier: int, pending: str | None) -> None:
    # Seed 002: "failure 12 is also the fourth consecutive refusal, and no correction pends".
    budget = RunProgressBudget()
    spaced_failures(budget, earlier)
    assert budget.consecutive == 0
    for _ in range(4):
        refuse(budget)
    assert budget.terminal
    assert budget.failures == earlier + 4
    assert budget.pending_correction == pending


@pytest.mark.parametrize("idle, admitted", [(3, True), (4, False)])
def test_round_cap(idle: int, admitted: bool) -> None:
    # Seed 002: with 3 idle rounds the remedy is admitted; with 4 it falls in round 9 and gets the stop.
    budget = tripped(rounds=True)
    assert budget.rounds == 4
    for _ in range(idle):
        budget.begin_model_round()
    budget.begin_model_round()  # the model call that sends the remedy
    assert budget.pending_correction == (FIRST_WRITE if admitted else None)
    assert budget.correct_fuse(True) is admitted
    assert budget.terminal is not admitted


def test_stop_leaves_no_correction() -> None:
    budget = tripped()
    budget.stop()
    assert budget.terminal
    assert budget.pending_correction is None
    assert budget.correct_fuse(True) is False
    assert budget.terminal


def test_correct_fuse_on_an_open_run_does_nothing() -> None:
    budget = RunProgressBudget()
    for _ in range(3):
        refuse(budget)
    assert budget.correct_fuse(True) is False
    assert not budget.terminal
    assert budget.consecutive == 3
    # The kind was never granted, so the trip still grants it.
    refuse(budget)
    assert budget.pending_correction == FIRST_WRITE


def test_a_refusal_below_the_fuse_grants_nothing() -> None:
    budget = RunProgressBudget()
    refuse(budget)
    assert budget.corrected_kinds == set()
    assert budget.correction is None


def test_three_refusals_and_a_failed_ls_trip_with_no_correction() -> None:
    budget = RunProgressBudget()
    for _ in range(3):
        refuse(budget)
    fail(budget, tool="exec")  # ls failed; it carries no kind
    assert budget.terminal
    assert budget.pending_correction is None


@pytest.mark.parametrize("kind", ["", None, 7, True])
def test_a_refusal_kind_counts_only_as_a_non_empty_string(kind: object) -> None:
    budget = RunProgressBudget()
    for _ in range(4):
        fail(budget, correctable_refusal=kind)
    assert budget.terminal
    assert budget.pending_correction is None


def test_pending_correction_shows_only_while_stopped() -> None:
    budget = tripped()
    budget.correct_fuse(True)
    assert budget.pending_correction is None


def test_a_refusal_landing_with_a_waiting_charge_is_granted() -> None:
    # Composition (seed 002): deferral and settle first, then the refusal rule.
    budget = RunProgressBudget()
    for _ in range(3):
        fail(budget)
    fail(budget, correctable=True)
    assert budget.deferred == "global"
    refuse(budget)
    assert budget.terminal
    assert budget.consecutive == 5
    assert budget.pending_correction == FIRST_WRITE


def test_without_kinds_the_trip_is_the_reference_trip() -> None:
    budget = RunProgressBudget()
    for _ in range(4):
        fail(budget)
    assert budget.terminal
    assert budget.pending_correction is None
    assert budget.correct_fuse(True) is False
