"""Budget-level replays of the recorded sessions (``shared/fixtures/pixel``).

The expected outcomes are the fixture README's table and counterfactuals and
seed 002's photo-renamer account, written here by hand. The traces come from
``properties.budget.fixtures``, which converts the recordings exactly as the README
says; the production column is the copy ``P`` (every flag as recorded).
"""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from guard.inspection import INSPECTION_TOOL
from guard.playground import RoutingState, binds_new_project
from properties.budget import fixtures
from properties.budget.copies import applier, new_copies, shared_view
from properties.budget.events import Event, FirstCall, Result, Round
from properties.budget.trace_file import Trace

KIND = "ods-pixel-preview-inspection"
FIRST_WRITE = "playground-first-write"


@attrs.frozen
class Step:
    event: Event
    reference: Any
    production: Any
    admitted: bool


def replay(events) -> list[Step]:
    """Every event to the reference and to production, with a snapshot of both after each."""
    copies = new_copies()
    to_reference, to_production = applier("R"), applier("P")
    steps = []
    for event in events:
        to_reference(copies["R"], event)
        admitted = to_production(copies["P"], event)
        steps.append(Step(event, snapshot(copies["R"]), snapshot(copies["P"]), admitted))
    return steps


def snapshot(budget) -> dict:
    return {
        "terminal": budget.terminal, "consecutive": budget.consecutive, "failures": budget.failures,
        "rounds": budget.rounds, "deferred": getattr(budget, "deferred", None),
        "pending": getattr(budget, "pending_correction", None), "view": shared_view(budget),
    }


def call_number(event: Event) -> int | None:
    label = getattr(event, "label", "")
    return int(label.split()[1]) if label.startswith("call ") else None


def stopped_after(steps: list[Step], which: str) -> int | None:
    """The call whose event first made the budget terminal."""
    for step in steps:
        if getattr(step, which)["terminal"]:
            return call_number(step.event)
    return None


@pytest.fixture(scope="module")
def traces(fixtures_dir) -> dict[str, Trace]:
    return {trace.name: trace for trace in fixtures.recorded_traces()}


@pytest.fixture(scope="module")
def sessions(fixtures_dir) -> dict[str, dict]:
    return fixtures.website_sessions()


def results(trace: Trace) -> list[Result]:
    return [event for event in trace.events if isinstance(event, Result)]


def session_call(sessions, label: str, number: int) -> dict:
    return next(call for call in sessions[label]["calls"] if call["n"] == number)


# -- the conversion --------------------------------------------------------------------------------

WEBSITE = {
    # label: (calls replayed, failed calls, correctable calls) -- README and seed 001.
    "strixy-r107": (11, {8, 9, 10, 11}, [8, 11]),
    "mac-mini-r106": (12, {2, 4, 9, 10, 11, 12}, [9, 10, 11, 12]),
    "windows-laptop-wsl-beta-r107": (40, {4, 5, 9, 10, 13, 14, 16, 24, 26, 30, 33, 40},
                                     [4, 5, 9, 10, 13, 14, 24, 40]),
}


def test_the_recorded_traces_are_the_four_sessions(traces) -> None:
    assert list(traces) == [*WEBSITE, "photo-renamer-bfb62a2b"]


@pytest.mark.parametrize("label", list(WEBSITE))
def test_website_conversion(traces, label: str) -> None:
    calls, failed, correctable = WEBSITE[label]
    trace = traces[label]
    received = results(trace)
    assert [call_number(event) for event in received] == list(range(1, calls + 1))
    assert {call_number(event) for event in received if event.failed} == failed
    assert [call_number(event) for event in received if event.correctable] == correctable
    assert not any(event.corrected or event.lane or event.correctable_refusal or event.empty_lookup
                   for event in received)
    # Every recorded call came from a new assistant entry, so every call has its own model round.
    assert sum(isinstance(event, Round) for event in trace.events) == calls
    assert isinstance(trace.events[0], Round)


def test_laptop_has_twelve_failures_never_more_than_two_in_a_row(traces) -> None:
    flags = [event.failed for event in results(traces["windows-laptop-wsl-beta-r107"])]
    assert sum(flags) == 12
    assert "TTT" not in "".join("T" if flag else "F" for flag in flags)


def test_tool_search_params_wrap_the_selected_tool(traces, sessions) -> None:
    call_8 = results(traces["strixy-r107"])[7]
    assert call_8.tool == "tool_call"
    assert call_8.params == {"id": INSPECTION_TOOL, "args": session_call(sessions, "strixy-r107", 8)["args"]}
    call_4 = results(traces["strixy-r107"])[3]
    assert call_4.params == {"argsSha256": session_call(sessions, "strixy-r107", 4)["argsSha256"]}


def test_photo_renamer_conversion(traces) -> None:
    trace = traces["photo-renamer-bfb62a2b"]
    shape = [type(event).__name__ for event in trace.events]
    assert shape == ["Round", "Result"] * 6 + ["Round", "FirstCall", "Result", "Round", "Result"]
    received = results(trace)
    assert [event.failed for event in received] == [True, False, True, True, True, True, False, False]
    assert [event.correctable_refusal for event in received] == [FIRST_WRITE, None, FIRST_WRITE, FIRST_WRITE,
                                                                 FIRST_WRITE, FIRST_WRITE, None, None]
    first_call = next(event for event in trace.events if isinstance(event, FirstCall))
    assert first_call.remedy is True
    assert first_call.label == "call 7"
    assert received[6].params["path"] == "Playground/photo-renamer/rename_photos.py"
    assert len(received[6].params["content"]) == 5853
    assert len(received[7].params["content"]) == 3926


# -- the README's table ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "label, reference_stop, production_stop, production_wait",
    [
        ("strixy-r107", 11, None, "global"),
        ("mac-mini-r106", 12, None, "global"),
        ("windows-laptop-wsl-beta-r107", 40, 40, None),
    ],
)
def test_readme_table(traces, label: str, reference_stop: int, production_stop, production_wait) -> None:
    steps = replay(traces[label].events)
    assert stopped_after(steps, "reference") == reference_stop
    assert stopped_after(steps, "production") == production_stop
    assert steps[-1].production["deferred"] == production_wait
    # No feature stops a run earlier than the reference (B2).
    for step in steps:
        assert step.reference["terminal"] or not step.production["terminal"]


def test_mac_mini_stop_has_consecutive_four_and_total_six(traces) -> None:
    final = replay(traces["mac-mini-r106"].events)[-1]
    assert (final.reference["consecutive"], final.reference["failures"]) == (4, 6)
    assert (final.production["consecutive"], final.production["failures"]) == (3, 6)


def test_mac_mini_calls_9_to_11_are_charged_at_once_and_12_waits(traces) -> None:
    steps = replay(traces["mac-mini-r106"].events)
    by_call = {call_number(step.event): step for step in steps if isinstance(step.event, Result)}
    assert [by_call[n].production["consecutive"] for n in (9, 10, 11, 12)] == [1, 2, 3, 3]
    assert [by_call[n].production["deferred"] for n in (9, 10, 11, 12)] == [None, None, None, "global"]


def test_strixy_waits_at_call_11(traces) -> None:
    final = replay(traces["strixy-r107"].events)[-1]
    assert (final.production["consecutive"], final.production["failures"]) == (3, 4)
    assert not final.production["terminal"]


def test_laptop_accounting_equals_the_reference(traces) -> None:
    # Seed 001: none of its correctable failures reached the fuse, so its accounting equals main's.
    steps = replay(traces["windows-laptop-wsl-beta-r107"].events)
    for step in steps:
        assert step.production["view"] == step.reference["view"]
        assert step.production["deferred"] is None
        assert step.reference["consecutive"] <= 2
    assert steps[-1].reference["failures"] == 12


# -- the README's counterfactuals -------------------------------------------------------------------


def unrecorded(sessions, label: str, number: int, result: dict, **overrides) -> list[Event]:
    """A never-executed recorded call, as the seed reports it ran through the real inspection tool."""
    call = {**session_call(sessions, label, number), "result": result, "stopped": False, **overrides}
    return [Round(), fixtures.website_result(call)]


def inspection(**details) -> dict:
    return {"isError": True, "details": {"schemaVersion": 1, "kind": KIND, **details}}


def passing_inspection(call_id: str) -> list[Event]:
    call = {"n": 0, "id": call_id, "tool": "tool_call", "selected": INSPECTION_TOOL, "envelope": True,
            "persistedIsError": False, "args": {"steps": []},
            "result": {"details": {"schemaVersion": 1, "kind": KIND, "status": "passed"}}}
    event = fixtures.website_result(call)
    assert event.corrected and not event.failed
    return [Round(), attrs.evolve(event, label="pass")]


def ordinary_failures(count: int, prefix: str) -> list[Event]:
    return [event for index in range(count)
            for event in (Round(), Result(call_id=f"{prefix}-{index}", tool="tool_call",
                                          params={"id": "tool_describe", "args": {"i": index}}, failed=True,
                                          label=f"fail {index + 1}"))]


def events_through(trace: Trace, number: int) -> list[Event]:
    out: list[Event] = []
    for event in trace.events:
        out.append(event)
        if isinstance(event, Result) and call_number(event) == number:
            return out
    raise AssertionError(f"no call {number}")


def test_strixy_call_12_is_invalid_request_again_and_production_stops(traces, sessions) -> None:
    extra = unrecorded(sessions, "strixy-r107", 12, inspection(status="failed", errorCode="invalid_request"),
                       envelope=True, persistedIsError=False)
    assert extra[1].failed and extra[1].correctable
    steps = replay([*traces["strixy-r107"].events, *extra])
    assert stopped_after(steps, "production") == 12
    assert steps[-1].production["failures"] == 5


def test_mac_mini_call_13_is_incomplete_and_production_stops(traces, sessions) -> None:
    extra = unrecorded(sessions, "mac-mini-r106", 13, inspection(status="incomplete", errorCode="transition_untested"),
                       envelope=None, persistedIsError=True)
    assert extra[1].failed and extra[1].correctable
    steps = replay([*traces["mac-mini-r106"].events, *extra])
    assert stopped_after(steps, "production") == 13
    assert stopped_after(steps, "reference") == 12


def test_a_pass_after_strixy_call_8_resets_and_the_fourth_failure_stops(traces) -> None:
    trace = traces["strixy-r107"]
    head = events_through(trace, 8)
    tail = trace.events[len(head):]
    steps = replay([*head, *passing_inspection("cf-pass-8")])
    assert steps[-1].reference["consecutive"] == 0 and steps[-1].production["consecutive"] == 0
    # Calls 9, 10 and 11 are three more failures: both stay open.
    steps = replay([*head, *passing_inspection("cf-pass-8"), *tail])
    assert not steps[-1].reference["terminal"] and not steps[-1].production["terminal"]
    assert steps[-1].reference["consecutive"] == 3 and steps[-1].production["consecutive"] == 3
    steps = replay([*head, *passing_inspection("cf-pass-8"), *tail, *ordinary_failures(1, "cf")])
    assert steps[-1].reference["terminal"] and steps[-1].production["terminal"]


def test_a_pass_after_strixy_call_11_keeps_production_open(traces) -> None:
    events = [*traces["strixy-r107"].events, *passing_inspection("cf-pass-11")]
    steps = replay(events)
    assert steps[-1].reference["terminal"]
    assert not steps[-1].production["terminal"]
    assert steps[-1].production["consecutive"] == 0
    assert steps[-1].production["deferred"] is None
    steps = replay([*events, *ordinary_failures(3, "cf")])
    assert not steps[-1].production["terminal"]
    steps = replay([*events, *ordinary_failures(4, "cf")])
    assert steps[-1].production["terminal"]
    assert [step.production["terminal"] for step in steps[-8:]] == [False] * 7 + [True]


def test_an_unrelated_read_after_strixy_call_11_stops(traces) -> None:
    read = Result(call_id="cf-read", tool="read", params={"path": "index.html"}, label="read")
    steps = replay([*traces["strixy-r107"].events, Round(), read])
    assert steps[-1].production["terminal"]
    assert steps[-1].production["consecutive"] == 4


# -- photo-renamer (seed 002) -----------------------------------------------------------------------


def test_photo_renamer_on_both_budgets(traces) -> None:
    trace = traces["photo-renamer-bfb62a2b"]
    steps = replay(trace.events)
    assert stopped_after(steps, "reference") == 6
    assert stopped_after(steps, "production") == 6
    by_call: dict[int, list[Step]] = {}
    for step in steps:
        if call_number(step.event) is not None:
            by_call.setdefault(call_number(step.event), []).append(step)
    assert by_call[6][-1].production["pending"] == FIRST_WRITE
    assert by_call[6][-1].production["consecutive"] == 4
    # The reference refuses calls 7 and 8: their receipts change nothing.
    assert steps[-1].reference["failures"] == 5 and steps[-1].reference["terminal"]
    assert results(trace)[6].call_id not in steps[-1].reference["view"].seen_calls
    # Production admits call 7 and stays open after call 8.
    first_call, write = by_call[7]
    assert first_call.admitted is True and not first_call.production["terminal"]
    assert write.production["consecutive"] == 0
    assert not steps[-1].production["terminal"]
    assert [step.admitted for step in steps].count(True) == 1


def test_photo_renamer_ordinary_fuse_applies_from_zero(traces) -> None:
    base = list(traces["photo-renamer-bfb62a2b"].events)
    assert not replay([*base, *ordinary_failures(3, "after")])[-1].production["terminal"]
    final = replay([*base, *ordinary_failures(4, "after")])[-1]
    assert final.production["terminal"]
    assert final.production["pending"] is None


@pytest.mark.parametrize("idle, admitted", [(3, True), (4, False)])
def test_photo_renamer_round_cap(traces, idle: int, admitted: bool) -> None:
    events = list(traces["photo-renamer-bfb62a2b"].events)
    at = next(index for index, event in enumerate(events) if isinstance(event, FirstCall)) - 1  # call 7's round
    events[at:at] = [Round() for _ in range(idle)]
    steps = replay(events)
    first_call = next(step for step in steps if isinstance(step.event, FirstCall))
    assert first_call.admitted is admitted
    assert steps[-1].production["terminal"] is not admitted


def replace_first_call(trace: Trace, remedy: bool) -> list[Event]:
    return [FirstCall(remedy=remedy, label="call 7") if isinstance(event, FirstCall) else event
            for event in trace.events]


def test_photo_renamer_other_first_call_is_refused_as_on_the_reference(traces) -> None:
    steps = replay(replace_first_call(traces["photo-renamer-bfb62a2b"], remedy=False))
    assert all(not step.admitted for step in steps)
    final = steps[-1]
    assert final.production["terminal"] and final.production["pending"] is None
    assert final.production["view"] == final.reference["view"]


@pytest.mark.parametrize(
    "tool, params, binds",
    [
        ("tool_call", {"id": "openclaw:core:write", "args": {"path": "Playground/photo-renamer/rename_photos.py"}}, True),
        ("write", {"path": "rename_photos.py"}, False),
        ("write", {"path": "playground/photo-renamer/rename_photos.py"}, False),
        ("edit", {"path": "Playground/photo-renamer/rename_photos.py"}, False),
    ],
)
def test_photo_renamer_first_call_forms(traces, tool: str, params: dict, binds: bool) -> None:
    remedy = binds_new_project(tool, params, RoutingState())
    assert remedy is binds
    steps = replay(replace_first_call(traces["photo-renamer-bfb62a2b"], remedy=remedy))
    assert (not steps[-1].production["terminal"]) is binds


def test_missing_fixture_is_a_one_line_error(tmp_path) -> None:
    from properties.budget.trace_file import TraceError

    with pytest.raises(TraceError) as caught:
        fixtures.photo_renamer_trace(tmp_path / "absent.json")
    assert "absent.json" in str(caught.value) and "\n" not in str(caught.value)
    broken = tmp_path / "broken.json"
    broken.write_text('{"calls": [{"id": "a", "tool": "exec", "args": {}}]}')
    with pytest.raises(TraceError, match=r"broken\.json: calls\[0\]\.recorded: missing"):
        fixtures.photo_renamer_trace(broken)
