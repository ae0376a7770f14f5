"""Seed 001 table tests: a correctable failure at the fuse waits one result.

Every expected value here is written from seed 001's "Tests" list and from
``shared/spec/budget.md`` (production rules 3 and 5), not read off the code.
Failures are global (no lane) unless a test names a lane.
"""

from __future__ import annotations

import copy
import itertools

import pytest

from guard.budget import RunProgressBudget
from guard.inspection import correctable_inspection_failure
from guard.limits import Limits
from reference.budget import ReferenceBudget

_ids = itertools.count()


def new_id() -> str:
    return f"call-{next(_ids)}"


def fail(budget, *, tool: str = "exec", **flags) -> str:
    """One failed receipt with a fresh id; returns the id so a test can repeat it."""
    call_id = new_id()
    budget.observe_result(call_id, tool, {"id": call_id}, True, **flags)
    return call_id


def ok(budget, *, tool: str = "read", **flags) -> str:
    """One successful receipt with fresh params (never an identical success)."""
    call_id = new_id()
    budget.observe_result(call_id, tool, {"id": call_id}, False, **flags)
    return call_id


def correctable(budget, **flags) -> str:
    return fail(budget, tool="pixel_ods_workspace_preview_inspect", correctable=True, **flags)


def passing(budget, **flags) -> str:
    return ok(budget, tool="pixel_ods_workspace_preview_inspect", corrected=True, **flags)


def waiting_at_fuse(lane: str | None = None) -> RunProgressBudget:
    """Three failures, then a correctable one: its charge waits (seed 001's INCOMPLETE at consecutive 3)."""
    budget = RunProgressBudget()
    for _ in range(3):
        fail(budget, lane=lane)
    correctable(budget, lane=lane)
    assert not budget.terminal
    assert budget.deferred == (lane or "global")
    return budget


# -- below the fuse -------------------------------------------------------------------------


def test_below_fuse_shape_keeps_the_run_going() -> None:
    # Seed 001: "the C S C S F F F INCOMPLETE shape keeps the run going".
    budget = RunProgressBudget()
    correctable(budget)
    ok(budget)
    correctable(budget)
    ok(budget)
    for _ in range(3):
        fail(budget)
    correctable(budget)  # the INCOMPLETE at consecutive 3
    assert not budget.terminal
    assert budget.failures == 6
    assert budget.consecutive == 3
    assert budget.deferred == "global"
    # Below the fuse the two earlier correctable failures were charged at once and spent nothing.
    assert budget.deferrals_used == 1


def test_below_fuse_correctable_failure_is_charged_at_once() -> None:
    budget = RunProgressBudget()
    correctable(budget)
    correctable(budget)
    assert budget.consecutive == 2
    assert budget.failures == 2
    assert budget.deferred is None
    assert budget.deferrals_used == 0


@pytest.mark.parametrize("start", [0, 1, 2, 3])
def test_correctable_streak_gets_one_more_attempt_than_the_fuse(start: int) -> None:
    # Seed 001: "exactly one more attempt than the fuse, whichever consecutive count (0 to 3) it starts from".
    production, reference = RunProgressBudget(), ReferenceBudget()
    for _ in range(start):
        call_id = new_id()
        production.observe_result(call_id, "exec", None, True)
        reference.observe_result(call_id, "exec", None, True)
    reference_stop = production_stop = None
    for attempt in range(1, 7):
        call_id = new_id()
        reference.observe_result(call_id, "pixel_ods_workspace_preview_inspect", None, True)
        production.observe_result(call_id, "pixel_ods_workspace_preview_inspect", None, True, correctable=True)
        if reference.terminal and reference_stop is None:
            reference_stop = attempt
        if production.terminal and production_stop is None:
            production_stop = attempt
    assert reference_stop == 4 - start
    assert production_stop == 5 - start


# -- one result of waiting --------------------------------------------------------------------


def test_pass_after_incomplete_at_three_resets_consecutive() -> None:
    budget = waiting_at_fuse()
    passing(budget)
    assert not budget.terminal
    assert budget.consecutive == 0
    assert budget.deferred is None
    assert budget.failures == 4  # the total never forgives


def test_failure_after_the_wait_stops_the_run() -> None:
    budget = waiting_at_fuse()
    fail(budget)
    assert budget.terminal
    # Its own charge and the waiting one land together (4 + 1).
    assert budget.consecutive == 5
    assert budget.failures == 5
    assert budget.deferred is None


def test_unrelated_read_after_the_wait_stops_the_run() -> None:
    budget = waiting_at_fuse()
    ok(budget, tool="read")
    assert budget.terminal
    assert budget.consecutive == 4
    assert budget.deferred is None


def test_running_process_receipt_after_the_wait_stops_the_run() -> None:
    budget = waiting_at_fuse()
    ok(budget, tool="exec", pending=True)
    assert budget.terminal
    assert budget.consecutive == 4


@pytest.mark.parametrize("flag", [1, "true", "yes", [True]])
def test_corrected_counts_only_when_exactly_true(flag: object) -> None:
    budget = waiting_at_fuse()
    ok(budget, tool="pixel_ods_workspace_preview_inspect", corrected=flag)
    assert budget.terminal


@pytest.mark.parametrize("flag", [1, "true", "yes"])
def test_correctable_counts_only_when_exactly_true(flag: object) -> None:
    budget = RunProgressBudget()
    for _ in range(3):
        fail(budget)
    fail(budget, correctable=flag)
    assert budget.terminal
    assert budget.deferrals_used == 0


def test_two_correctable_failures_at_the_fuse_are_charged_together() -> None:
    budget = waiting_at_fuse()
    correctable(budget)
    assert budget.terminal
    assert budget.consecutive == 5
    assert budget.failures == 5
    assert budget.deferrals_used == 1


def test_third_deferral_is_not_granted() -> None:
    # Three deferrals need twelve failures at the real total cap, which would stop the run by itself;
    # a larger total cap isolates the allowance of two deferrals per run.
    budget = RunProgressBudget(Limits(total_failures=40))
    for used in (1, 2):
        for _ in range(3):
            fail(budget)
        correctable(budget)
        assert budget.deferred == "global" and budget.deferrals_used == used
        passing(budget)
        assert not budget.terminal and budget.consecutive == 0
    for _ in range(3):
        fail(budget)
    assert budget.failure_ends(correctable=True) is True
    correctable(budget)
    assert budget.terminal
    assert budget.deferred is None
    assert budget.deferrals_used == 2
    assert budget.consecutive == 4


# -- the total cap ------------------------------------------------------------------------------


def spaced_failures(budget, count: int) -> None:
    """``count`` failures never more than two in a row (the consecutive count ends at 0)."""
    for index in range(count):
        fail(budget)
        if index % 2 == 1:
            ok(budget)


def test_total_cap_stops_at_twelve() -> None:
    budget = RunProgressBudget()
    spaced_failures(budget, 10)
    fail(budget)
    assert not budget.terminal and budget.failures == 11
    correctable(budget)  # consecutive 2 -> 3 would not trip; the total does
    assert budget.terminal
    assert budget.failures == 12


def test_correctable_failure_twelve_at_consecutive_three_stops() -> None:
    # Seed 001: "The total cap still stops at 12, including a correctable failure 12 at consecutive 3."
    budget = RunProgressBudget()
    spaced_failures(budget, 8)
    for _ in range(3):
        fail(budget)
    assert (budget.failures, budget.consecutive, budget.terminal) == (11, 3, False)
    assert budget.failure_ends(correctable=True) is True
    correctable(budget)
    assert budget.terminal
    assert budget.failures == 12


def test_total_counts_a_deferred_failure_at_once() -> None:
    budget = waiting_at_fuse()
    assert budget.failures == 4


# -- discovery and free corrections --------------------------------------------------------------


@pytest.mark.parametrize(
    "neutral",
    [
        {"tool": "tool_search"},
        {"tool": "tool_describe"},
        {"tool": "pixel_ods_skill"},
        {"tool": "read", "discovery": True},
        {"tool": "tool_search", "corrected": True},
    ],
)
def test_discovery_neither_charges_nor_forgives(neutral: dict) -> None:
    budget = waiting_at_fuse()
    for _ in range(3):
        ok(budget, **neutral)
    assert not budget.terminal
    assert budget.deferred == "global"
    assert budget.consecutive == 3


def test_free_empty_lookups_neither_charge_nor_forgive() -> None:
    budget = waiting_at_fuse()
    for _ in range(3):
        fail(budget, empty_lookup=True)
    assert not budget.terminal
    assert budget.deferred == "global"
    assert (budget.consecutive, budget.failures) == (3, 4)


@pytest.mark.parametrize(
    "after, stops",
    [("failure", True), ("unrelated success", True), ("passing inspection", False)],
)
def test_after_discovery_the_wait_still_decides(after: str, stops: bool) -> None:
    # Seed 001: "after them, a failure or an unrelated success stops the run and a passing inspection does not".
    budget = waiting_at_fuse()
    ok(budget, tool="tool_search")
    fail(budget, empty_lookup=True)
    ok(budget, tool="read", discovery=True)
    {"failure": fail, "unrelated success": ok, "passing inspection": passing}[after](budget)
    assert budget.terminal is stops


def test_rounds_keep_counting_while_a_charge_waits() -> None:
    budget = waiting_at_fuse()
    rounds = budget.rounds
    for _ in range(3):
        budget.begin_model_round()
        ok(budget, tool="tool_search")
    assert budget.rounds == rounds + 3
    assert budget.deferred == "global"


# -- lanes ------------------------------------------------------------------------------------


def test_lane_charge_is_forgiven_by_a_pass_in_the_same_lane() -> None:
    budget = waiting_at_fuse("workspace")
    assert budget.lane_failures["workspace"] == 3
    passing(budget, lane="workspace")
    assert not budget.terminal
    assert budget.exhausted_lanes == set()
    assert budget.lane_failures["workspace"] == 0
    assert budget.deferred is None


@pytest.mark.parametrize(
    "after",
    [
        "pass in the other lane",
        "unrelated success in the lane",
        "unrelated success in the other lane",
        "failure in the other lane",
        "pass without a lane",
    ],
)
def test_lane_charge_is_exhausted_by_anything_else(after: str) -> None:
    # Seed 001: the lane is exhausted and the other lane remains.
    budget = waiting_at_fuse("workspace")
    if after == "pass in the other lane":
        passing(budget, lane="extension")
    elif after == "unrelated success in the lane":
        ok(budget, lane="workspace")
    elif after == "unrelated success in the other lane":
        ok(budget, lane="extension")
    elif after == "failure in the other lane":
        fail(budget, lane="extension")
    else:
        passing(budget)
    assert budget.lane_exhausted("workspace")
    assert not budget.lane_exhausted("extension")
    assert not budget.terminal
    assert budget.deferred is None


def test_lane_failure_waits_only_at_the_lane_fuse() -> None:
    budget = RunProgressBudget()
    for _ in range(2):
        fail(budget, lane="extension")
    correctable(budget, lane="extension")
    assert budget.deferred is None
    assert budget.lane_failures["extension"] == 3
    correctable(budget, lane="extension")
    assert budget.deferred == "extension"
    assert not budget.lane_exhausted("extension")


def test_an_exhausted_lane_never_waits() -> None:
    budget = RunProgressBudget()
    for _ in range(4):
        fail(budget, lane="workspace")
    assert budget.lane_exhausted("workspace")
    correctable(budget, lane="workspace")
    assert budget.deferred is None
    assert budget.deferrals_used == 0


# -- measured failures, duplicates, sticky stops ----------------------------------------------------


@pytest.mark.parametrize(
    "last_step_error",
    ["visibility_mismatch", "click_failed", "unstable", "timeout", "cancelled", "output_limit", "unavailable"],
)
def test_measured_failures_are_never_deferred(last_step_error: str) -> None:
    receipt = {
        "isError": True,
        "details": {
            "kind": "ods-pixel-preview-inspection", "status": "failed", "blockedRequests": [],
            "steps": [{"index": 0, "status": "failed", "errorCode": last_step_error}],
        },
    }
    budget = RunProgressBudget()
    for _ in range(3):
        fail(budget)
    fail(budget, tool="pixel_ods_workspace_preview_inspect", correctable=correctable_inspection_failure(receipt))
    assert budget.terminal
    assert budget.deferrals_used == 0


def test_duplicate_receipts_are_ignored() -> None:
    budget = RunProgressBudget()
    for _ in range(3):
        fail(budget)
    deferred_id = correctable(budget)
    # after_tool_call and tool_result_persist both deliver the same receipt.
    budget.observe_result(deferred_id, "pixel_ods_workspace_preview_inspect", None, True, correctable=True)
    budget.observe_result(deferred_id, "pixel_ods_workspace_preview_inspect", None, False)
    assert not budget.terminal
    assert budget.deferred == "global"
    assert budget.failures == 4
    passing_id = passing(budget)
    budget.observe_result(passing_id, "read", None, True)
    assert not budget.terminal
    assert (budget.failures, budget.consecutive) == (4, 0)


def test_stop_is_sticky_while_a_charge_waits() -> None:
    budget = waiting_at_fuse()
    budget.stop()
    assert budget.terminal
    passing(budget)
    assert budget.terminal
    assert budget.correct_fuse(True) is False
    assert budget.terminal


def test_stopped_run_ignores_every_receipt() -> None:
    budget = waiting_at_fuse()
    fail(budget)
    before = (budget.failures, budget.consecutive, budget.rounds, budget.deferred)
    passing(budget)
    fail(budget)
    ok(budget, pending=True)
    assert budget.terminal
    assert (budget.failures, budget.consecutive, budget.rounds, budget.deferred) == before


# -- failure_ends on hand-built states ----------------------------------------------------------------


def _state(name: str) -> RunProgressBudget:
    budget = RunProgressBudget()
    if name == "fresh":
        pass
    elif name == "consecutive 2":
        for _ in range(2):
            fail(budget)
    elif name == "consecutive 3":
        for _ in range(3):
            fail(budget)
    elif name == "waiting":
        budget = waiting_at_fuse()
    elif name == "waiting in workspace":
        budget = waiting_at_fuse("workspace")
    elif name == "failures 11":
        spaced_failures(budget, 10)
        fail(budget)
    elif name == "rounds 8":
        for _ in range(8):
            budget.begin_model_round()
    elif name == "workspace 3":
        for _ in range(3):
            fail(budget, lane="workspace")
    elif name == "both allowances spent":
        budget = RunProgressBudget(Limits(total_failures=40))
        for _ in range(2):
            for _ in range(3):
                fail(budget)
            correctable(budget)
            passing(budget)
        for _ in range(3):
            fail(budget)
    elif name == "stopped":
        budget.stop()
    return budget


# (state, lane, correctable, empty_lookup, expected) -- expected by hand from budget.md's failure_ends.
FAILURE_ENDS = [
    ("fresh", None, False, False, False),
    ("consecutive 2", None, False, False, False),
    ("consecutive 3", None, False, False, True),
    ("consecutive 3", None, True, False, False),
    ("consecutive 3", None, False, True, False),
    ("consecutive 3", "workspace", False, False, False),
    ("waiting", None, True, False, True),
    ("waiting", "extension", False, False, True),
    ("waiting", None, False, True, False),
    ("waiting in workspace", "workspace", False, False, True),
    # The waiting workspace charge exhausts that lane, but this failure has no lane of its own.
    ("waiting in workspace", None, False, False, False),
    ("failures 11", None, True, False, True),
    ("failures 11", "workspace", False, False, True),
    ("failures 11", None, False, True, False),
    ("rounds 8", None, False, False, True),
    ("rounds 8", None, False, True, True),
    ("workspace 3", "workspace", False, False, True),
    ("workspace 3", "workspace", True, False, False),
    ("workspace 3", "extension", False, False, False),
    ("workspace 3", None, False, False, False),
    ("both allowances spent", None, True, False, True),
    ("stopped", None, False, False, True),
]


@pytest.mark.parametrize("state, lane, is_correctable, empty, expected", FAILURE_ENDS)
def test_failure_ends_on_hand_states(state: str, lane, is_correctable: bool, empty: bool, expected: bool) -> None:
    budget = _state(state)
    assert budget.failure_ends(lane=lane, correctable=is_correctable, empty_lookup=empty) is expected
    # And it agrees with observing that failure (plus, for the rounds clause, the next round) on a copy.
    trial = copy.deepcopy(budget)
    fail(trial, lane=lane, correctable=is_correctable, empty_lookup=empty)
    ends = trial.terminal or (lane is not None and trial.lane_exhausted(lane))
    if not ends:
        trial.begin_model_round()
        ends = trial.terminal
    assert ends is expected
