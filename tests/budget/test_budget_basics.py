"""The reference rules, checked on the reference and on production without the seeds' arguments.

``shared/spec/budget.md`` ("Shared state", "Reference budget") is the source
of every expected value; each test runs on both budgets because production
with every new argument omitted must behave exactly like the reference (B1).
A seeded random comparison closes the file.
"""

from __future__ import annotations

import itertools
import random

import pytest

from guard.budget import RunProgressBudget
from properties.budget.copies import applier, new_copies, shared_view
from properties.budget.events import Result, Round, Stop
from reference.budget import ReferenceBudget

BUDGETS = {"reference": ReferenceBudget, "production": RunProgressBudget}

_ids = itertools.count()


@pytest.fixture(params=sorted(BUDGETS))
def budget(request):
    return BUDGETS[request.param]()


def fail(budget, *, tool: str = "exec", **flags) -> None:
    call_id = f"call-{next(_ids)}"
    budget.observe_result(call_id, tool, {"n": call_id}, True, **flags)


def ok(budget, *, tool: str = "read", params=None, fresh: bool = True, **flags) -> None:
    call_id = f"call-{next(_ids)}"
    budget.observe_result(call_id, tool, {"n": call_id} if fresh else params, False, **flags)


def resets_rounds(budget, tool: str, params) -> bool:
    """Whether one more success of ``(tool, params)`` resets the rounds count."""
    budget.begin_model_round()
    before = budget.rounds
    ok(budget, tool=tool, params=params, fresh=False)
    return budget.rounds == 0 and before > 0


# -- failures ----------------------------------------------------------------------------------


def test_four_consecutive_failures_stop(budget) -> None:
    for _ in range(3):
        fail(budget)
    assert not budget.terminal
    fail(budget)
    assert budget.terminal and budget.exhausted


def test_a_success_resets_consecutive(budget) -> None:
    for _ in range(3):
        fail(budget)
    ok(budget)
    assert budget.consecutive == 0
    for _ in range(3):
        fail(budget)
    assert not budget.terminal and budget.failures == 6


def test_twelve_failures_stop(budget) -> None:
    for index in range(11):
        fail(budget)
        if index % 3 == 2:
            ok(budget)
    assert not budget.terminal and budget.failures == 11
    fail(budget)
    assert budget.terminal


@pytest.mark.parametrize("failed", [1, "x", [0]])
def test_failed_counts_when_truthy(budget, failed) -> None:
    budget.observe_result("c1", "exec", None, failed)
    assert budget.failures == 1


@pytest.mark.parametrize("call_id", ["", None, 7, ("a",)])
def test_unusable_call_ids_are_ignored(budget, call_id) -> None:
    budget.observe_result(call_id, "exec", None, True)
    assert budget.failures == 0
    assert len(budget.seen_calls) == 0


def test_a_duplicate_call_id_is_ignored(budget) -> None:
    budget.observe_result("same", "exec", None, True)
    budget.observe_result("same", "exec", None, True)
    budget.observe_result("same", "read", None, False)
    assert (budget.failures, budget.consecutive) == (1, 1)


# -- seen calls: first in, first out, 256 ---------------------------------------------------------


def test_seen_calls_evict_the_oldest_after_256(budget) -> None:
    for index in range(256):
        budget.observe_result(f"seen-{index}", "read", {"i": index}, False)
    assert len(budget.seen_calls) == 256
    budget.observe_result("seen-0", "exec", None, True)
    assert budget.failures == 0  # still remembered
    budget.observe_result("seen-256", "read", None, False)  # the 257th evicts seen-0
    assert len(budget.seen_calls) == 256
    budget.observe_result("seen-0", "exec", None, True)
    assert budget.failures == 1
    budget.observe_result("seen-2", "exec", None, True)  # seen-1 went out when seen-0 came back; seen-2 stays
    assert budget.failures == 1


# -- identical successes and their memory -----------------------------------------------------------


def test_the_same_success_resets_rounds_twice(budget) -> None:
    params = {"path": "a.txt"}
    assert [resets_rounds(budget, "read", params) for _ in range(4)] == [True, True, False, False]


@pytest.mark.parametrize(
    "first, second, identical",
    [
        ({"a": 1, "b": {"x": 1, "y": 2}}, {"b": {"y": 2, "x": 1}, "a": 1}, True),  # keys sorted at every depth
        ({"list": [1, 2]}, {"list": [2, 1]}, False),  # arrays keep their order
        (None, None, True),  # a missing params is null
        (None, {}, False),
        ({"a": 1}, {"a": 1.5}, False),
        ({"a": "1"}, {"a": 1}, False),
    ],
)
def test_fingerprint(budget, first, second, identical: bool) -> None:
    assert resets_rounds(budget, "read", first)
    assert resets_rounds(budget, "read", second)
    # A third success identical to both earlier ones no longer counts as progress.
    assert resets_rounds(budget, "read", first) is not identical


def test_the_tool_is_part_of_the_fingerprint(budget) -> None:
    params = {"path": "a"}
    assert resets_rounds(budget, "read", params)
    assert resets_rounds(budget, "read", params)
    assert resets_rounds(budget, "exec", params)


def test_successes_memory_evicts_by_first_insertion_after_128(budget) -> None:
    first = {"path": "first"}
    assert resets_rounds(budget, "read", first)
    for index in range(127):
        ok(budget, params={"i": index}, fresh=False)
    # Updating an existing key does not move it: "first" is still the oldest.
    assert resets_rounds(budget, "read", first)
    assert len(budget.successes) == 128
    ok(budget, params={"i": "new"}, fresh=False)  # the 129th key evicts "first"
    assert len(budget.successes) == 128
    assert resets_rounds(budget, "read", first)  # counted afresh: 1
    assert resets_rounds(budget, "read", first)  # 2


def test_without_eviction_the_third_success_does_not_count(budget) -> None:
    first = {"path": "first"}
    assert resets_rounds(budget, "read", first)
    for index in range(126):
        ok(budget, params={"i": index}, fresh=False)
    assert resets_rounds(budget, "read", first)
    ok(budget, params={"i": "new"}, fresh=False)  # 128 keys: nothing evicted
    assert not resets_rounds(budget, "read", first)


# -- discovery, pending, lanes ------------------------------------------------------------------------


@pytest.mark.parametrize("tool, discovery", [("tool_search", False), ("tool_describe", False),
                                             ("pixel_ods_skill", False), ("read", True), ("exec", 1)])
def test_discovery_success_changes_nothing(budget, tool: str, discovery) -> None:
    for _ in range(3):
        fail(budget)
    budget.begin_model_round()
    ok(budget, tool=tool, discovery=discovery)
    assert (budget.consecutive, budget.rounds, budget.failures) == (3, 1, 3)
    assert len(budget.successes) == 0


def test_a_discovery_tool_failure_is_charged(budget) -> None:
    fail(budget, tool="tool_describe")
    assert (budget.failures, budget.consecutive) == (1, 1)


def test_a_pending_receipt_resets_rounds_without_a_fingerprint(budget) -> None:
    for _ in range(3):
        fail(budget)
    for _ in range(5):
        budget.begin_model_round()
        budget.observe_result(f"p-{next(_ids)}", "exec", {"same": True}, False, pending=True)
        assert budget.rounds == 0
    assert budget.consecutive == 0
    assert len(budget.successes) == 0


def test_lane_failures_charge_the_lane_not_the_global_count(budget) -> None:
    for _ in range(3):
        fail(budget, lane="workspace")
    assert budget.consecutive == 0
    assert budget.lane_failures["workspace"] == 3
    fail(budget, lane="workspace")
    assert budget.lane_exhausted("workspace")
    assert budget.exhausted_lanes == {"workspace"}
    assert not budget.terminal
    for _ in range(4):
        fail(budget, lane="extension")
    assert budget.terminal


@pytest.mark.parametrize("lane", [None, "fake-lane", "Workspace", 3, ("workspace",)])
def test_anything_but_a_lane_name_charges_the_global_count(budget, lane) -> None:
    for _ in range(4):
        fail(budget, lane=lane)
    assert budget.terminal
    assert budget.exhausted_lanes == set()


def test_a_lane_success_resets_its_lane_and_the_global_count(budget) -> None:
    fail(budget)
    for _ in range(3):
        fail(budget, lane="extension")
    ok(budget, lane="extension")
    assert budget.lane_failures["extension"] == 0
    assert budget.consecutive == 0


def test_an_exhausted_lane_stays_exhausted(budget) -> None:
    for _ in range(4):
        fail(budget, lane="workspace")
    ok(budget, lane="workspace")
    assert budget.lane_exhausted("workspace")


def test_lane_failures_count_toward_the_total(budget) -> None:
    for index in range(12):
        fail(budget, lane=("workspace", "extension")[index % 2])
        if index % 6 == 5:
            ok(budget, lane="workspace")
            ok(budget, lane="extension")
    assert budget.terminal and budget.failures == 12


# -- rounds and stop -----------------------------------------------------------------------------


def test_the_ninth_round_without_progress_stops(budget) -> None:
    assert [budget.begin_model_round() for _ in range(9)] == [False] * 8 + [True]
    assert budget.terminal


def test_progress_resets_the_round_count(budget) -> None:
    for _ in range(8):
        budget.begin_model_round()
    ok(budget)
    assert budget.rounds == 0
    assert budget.begin_model_round() is False


def test_stop_is_sticky_and_changes_no_counter(budget) -> None:
    fail(budget)
    budget.begin_model_round()
    budget.stop()
    assert budget.terminal
    assert (budget.failures, budget.consecutive, budget.rounds) == (1, 1, 1)
    ok(budget)
    fail(budget)
    assert (budget.failures, budget.consecutive) == (1, 1)
    assert budget.terminal


def test_a_stopped_run_records_no_call_id(budget) -> None:
    budget.stop()
    budget.observe_result("late", "exec", None, True)
    assert "late" not in budget.seen_calls


# -- production with every new argument omitted equals the reference (B1) ---------------------------


SEED = 20261130


def random_events(rng: random.Random, length: int) -> list:
    events: list = []
    ids = [f"id{index}" for index in range(length // 2 + 1)]
    for _ in range(length):
        roll = rng.random()
        if roll < 0.2:
            events.append(Round())
        elif roll < 0.22:
            events.append(Stop())
        else:
            events.append(Result(
                call_id=rng.choice(ids + ["", None]),
                tool=rng.choice(["read", "exec", "tool_search", "write"]),
                params=rng.choice([None, {"a": 1}, {"a": [1, 2]}]),
                failed=rng.random() < 0.5,
                pending=rng.random() < 0.1,
                discovery=rng.random() < 0.1,
                lane=rng.choice([None, None, "workspace", "extension", "fake-lane"]),
            ))
    return events


def test_production_without_new_arguments_equals_the_reference() -> None:
    rng = random.Random(SEED)
    print(f"seed {SEED}")
    for trace_number in range(300):
        copies = new_copies()
        to_reference, to_p0 = applier("R"), applier("P0")
        for step, event in enumerate(random_events(rng, 60)):
            to_reference(copies["R"], event)
            to_p0(copies["P0"], event)
            assert shared_view(copies["P0"]) == shared_view(copies["R"]), (SEED, trace_number, step, event)
