"""The guard's accounting path (``shared/spec/hooks.md``): binding, both hook orders, the remedy after the fuse.

Expected values come from hooks.md, seeds 000-002 and the photo-renamer
fixture README, never from the code under test: the stop/refusal texts are
compared by identity of behaviour (the same text as the reference guard, the
recorded heads of the fixture), not by copying constants.

H1 order independence, H2 only bound outer calls get allowances, H3 the stop
is the reference's whenever no allowance applied, and H4-H10: the hook
subject's monitor (``properties.hooks``) over its own seeded sequences, its
state machine and hand sequences.
"""

from __future__ import annotations

import sys
import types
from typing import Any

import attrs
import pytest
from hypothesis import settings

from guard.finalization import DELIVERED, IDLE, PENDING, UNAVAILABLE, Finalization
from guard.hooks import Decision, ToolLoopGuard
from guard.inspection import INSPECTION_TOOL
from guard.playground import RoutingState
from properties.catalogue import Tally
from properties.hooks.deliver import SpyBudget, guard_state, memories
from properties.hooks.events import HookSequence
from properties.hooks.generate import Builder, sequences
from properties.hooks.invariants import BY_ID, CATALOGUE
from properties.hooks.monitor import HookMonitor
from properties.hooks.trace_file import load as load_sequence, save as save_sequence
from properties.hooks.shapes import (
    INSPECT_ARGS, INCOMPLETE, INVALID, MEASURED, NO_MATCH, PASSED, PASSED_PAGE_ERRORS, RUN, SESSION, STOP_HEAD,
    blocked, capped, envelope, exec_result, failure, inspection, ok,
)
from properties.hooks.stateful import standalone as hook_machine
from properties.names import FIRST_WRITE_KIND as FIRST_WRITE, PROJECT_PATH_KIND as PROJECT_PATH
from properties.safe_json import JsonFileError as TraceError

REMEDY_PATH = "Playground/photo-renamer/rename_photos.py"
GATE_HEAD = "Not run: write the first project file before running commands"


# -- a budget that remembers what the hooks told it: ``properties.hooks.deliver.SpyBudget`` -------------


def make_guard(playground: bool = False, **kwargs: Any) -> ToolLoopGuard:
    kwargs.setdefault("budget", SpyBudget())
    kwargs.setdefault("routing", RoutingState() if playground else None)
    return ToolLoopGuard(run=RUN, session=SESSION, **kwargs)


# -- receipts: ``properties.hooks.shapes`` (one definition for the tests, the generators and the replay) ----


# -- delivering one call through the hooks ------------------------------------------------------


@attrs.define
class Step:
    decision: Decision
    persisted: Any


def deliver(
    guard: ToolLoopGuard,
    call_id: Any,
    tool: str,
    params: Any,
    result: Any,
    order: str = "after",
    *,
    persisted: Any = None,
    record: Any = None,
    record_id: Any = None,
    record_args: Any = None,
    run: Any = RUN,
    session: Any = SESSION,
    after_params: Any = None,
    result_tool: str | None = None,
    model_call: bool = True,
    before: bool = True,
    states: list | None = None,
) -> Step:
    """One model call, before_tool_call, the tool's own record, then both result hooks in ``order``."""
    if model_call:
        guard.model_call_start()
        guard.model_call_end()
    decision = guard.before_tool_call(run, session, call_id, tool, params) if before else Decision()
    if decision.block:
        result = persisted = blocked(decision.block_reason)
    elif record is not None:
        args = record_args if record_args is not None else (params.get("args") if tool == "tool_call" else params)
        guard.record_tool_result(record_id if record_id is not None else call_id, args, record)
    persisted = result if persisted is None else persisted
    tool_seen = result_tool or tool
    executed = params if after_params is None else after_params
    saved = None
    for hook in (("after", "persist") if order == "after" else ("persist", "after")):
        if hook == "after":
            guard.after_tool_call(call_id, tool_seen, executed, result)
        else:
            saved = guard.tool_result_persist(call_id, tool_seen, persisted)
        if states is not None:
            states.append(snapshot(guard))
    return Step(decision, saved)


def snapshot(guard: ToolLoopGuard) -> tuple:
    """Everything the budget and the phase machine hold: the harness's one view of a guard, plus the memories."""
    return guard_state(guard), memories(guard)


def persisted_text(message: Any) -> str:
    return "".join(part.get("text", "") for part in message.get("content", [])) if isinstance(message, dict) else ""


def fail_three(guard: ToolLoopGuard, order: str = "after", prefix: str = "f") -> None:
    """Three ordinary failures: the global count stands one below the fuse."""
    for index in range(3):
        deliver(guard, f"{prefix}{index}", "web_fetch", {"url": f"https://example.com/{prefix}{index}"}, failure(), order)


ORDERS = ("after", "persist")


# -- photo-renamer shapes (seed 002) --------------------------------------------------------------


GATED = [
    ("c1", {"command": "python3 --version && python3 -c \"from PIL import Image\""}),
    ("c3", {"command": "python3 -c \"import piexif\""}),
    ("c4", {"command": "python3 -c \"import piexif\"", "workdir": "/workspace"}),
    ("c5", {"command": "python3 -c \"from PIL import Image\""}),
    ("c6", {"command": "python3 -c \"from PIL import Image\" 2>&1"}),
]


def trip_photo_renamer(guard: ToolLoopGuard, order: str = "after", idle_rounds: int = 0) -> list[Step]:
    """Calls 1-6 of the recorded run: a gated exec, a version probe that runs, four more gated execs."""
    steps = [deliver(guard, "c1", "exec", GATED[0][1], ok(), order)]
    steps.append(deliver(guard, "c2", "exec", {"command": "python3 --version"}, exec_result(0, "Python 3.11.2"), order))
    for _ in range(idle_rounds):
        guard.model_call_start()
        guard.model_call_end()
    for call_id, params in GATED[1:]:
        steps.append(deliver(guard, call_id, "exec", params, ok(), order))
    return steps


def remedy(content_chars: int = 5853) -> dict:
    return {"path": REMEDY_PATH, "content": "x" * content_chars}


class TestPhotoRenamerRemedy:
    """Seed 002: the fuse trips at call 6; only the named remedy, first, while pending, re-opens it."""

    @pytest.mark.parametrize("order", ORDERS)
    def test_router_refusals_carry_the_gate_text_and_call_6_trips(self, order: str) -> None:
        guard = make_guard(playground=True)
        steps = trip_photo_renamer(guard, order)
        assert [s.decision.block for s in steps] == [True, False, True, True, True, True]
        assert all(s.decision.block_reason.startswith(GATE_HEAD) for s in steps if s.decision.block)
        assert guard.budget.terminal and guard.budget.consecutive == 4
        assert guard.budget.pending_correction == FIRST_WRITE
        assert guard.finalization.phase == PENDING
        # The receipts were counted as failures carrying the kind, by exact call id.
        kinds = {call_id: flags.get("correctable_refusal") for call_id, _, flags, _hook in guard.budget.log}
        assert kinds == {"c1": FIRST_WRITE, "c2": None, "c3": FIRST_WRITE, "c4": FIRST_WRITE, "c5": FIRST_WRITE, "c6": FIRST_WRITE}

    @pytest.mark.parametrize("order", ORDERS)
    def test_reference_guard_stops_at_call_7_and_aborts_at_call_8(self, order: str) -> None:
        guard = make_guard(playground=True, allowances=False)
        trip_photo_renamer(guard, order)
        seventh = deliver(guard, "c7", "write", remedy(), ok(), order)
        eighth = deliver(guard, "c8", "write", remedy(3926), ok(), order)
        assert seventh.decision.block and eighth.decision.block
        assert not seventh.decision.block_reason.startswith(STOP_HEAD)
        assert eighth.decision.block_reason.startswith(STOP_HEAD)
        assert guard.aborted and guard.routing.binding is None

    @pytest.mark.parametrize("order", ORDERS)
    def test_production_admits_the_binding_write_and_the_fuse_restarts_from_zero(self, order: str) -> None:
        guard = make_guard(playground=True)
        trip_photo_renamer(guard, order)
        seventh = deliver(guard, "c7", "write", remedy(), ok("wrote"), order)
        assert seventh.decision == Decision(block=False, block_reason=None)
        assert guard.budget.admissions == 1 and guard.finalization.phase == IDLE
        assert guard.routing.binding == "Playground/photo-renamer"
        assert not guard.budget.terminal and guard.budget.consecutive == 0
        eighth = deliver(guard, "c8", "write", remedy(3926), ok("wrote"), order)
        assert not eighth.decision.block and not guard.aborted
        # Three failures pass, the fourth stops (the ordinary fuse, from zero).
        for index in range(3):
            assert not deliver(guard, f"e{index}", "exec", {"command": f"false {index}"}, exec_result(2), order).decision.block
            assert not guard.budget.terminal
        deliver(guard, "e3", "exec", {"command": "false 3"}, exec_result(2), order)
        assert guard.budget.terminal and guard.budget.pending_correction is None

    @pytest.mark.parametrize("order", ORDERS)
    def test_tool_search_route_to_the_write_is_admitted_the_same_way(self, order: str) -> None:
        guard = make_guard(playground=True)
        trip_photo_renamer(guard, order)
        params = {"id": "openclaw:core:write", "args": remedy()}
        step = deliver(guard, "c7", "tool_call", params, envelope(ok("wrote")), order)
        assert not step.decision.block and guard.budget.admissions == 1
        assert guard.routing.binding == "Playground/photo-renamer" and not guard.budget.terminal

    @pytest.mark.parametrize("order", ORDERS)
    def test_the_tripping_refusal_keeps_its_text_while_the_correction_pends(self, order: str) -> None:
        production = trip_photo_renamer(make_guard(playground=True), order)
        reference = trip_photo_renamer(make_guard(playground=True, allowances=False), order)
        assert persisted_text(production[-1].persisted).startswith(GATE_HEAD)
        # On the earlier guard (and the recording) the tripping copy carries the stop text.
        assert persisted_text(reference[-1].persisted).startswith(STOP_HEAD)
        assert persisted_text(production[-2].persisted).startswith(GATE_HEAD)

    @pytest.mark.parametrize("order", ORDERS)
    def test_after_a_declined_correction_later_receipts_carry_the_stop_text(self, order: str) -> None:
        guard = make_guard(playground=True)
        trip_photo_renamer(guard, order)
        late = deliver(guard, "c7", "read", {"path": "notes.txt"}, ok(), order)
        assert late.decision.block and persisted_text(late.persisted).startswith(STOP_HEAD)
        # The tripping call's copy, persisted again after the decline, is no longer exempt.
        assert persisted_text(guard.tool_result_persist("c6", "exec", blocked("x"))).startswith(STOP_HEAD)

    def test_the_kind_never_reaches_the_runtime(self) -> None:
        assert [field.name for field in attrs.fields(Decision)] == ["block", "block_reason"]
        guard = make_guard(playground=True)
        steps = trip_photo_renamer(guard)
        steps.append(deliver(guard, "w1", "write", {"path": "notes.py", "content": "x"}, ok()))
        for step in steps:
            assert set(attrs.asdict(step.decision)) == {"block", "block_reason"}
            assert FIRST_WRITE not in (step.decision.block_reason or "")
            assert PROJECT_PATH not in (step.decision.block_reason or "")


#: A usable path of exactly 512 characters (classifiers.md: at most 512).
LONG_PATH = "Playground/" + "a" * 60 + "/" + "/".join(["b" * 63] * 6) + "/" + "c" * 56
assert len(LONG_PATH) == 512

#: Seed 002's first calls after the fuse that must be refused as on main, and nothing written.
NOT_REMEDIES = {
    "bare filename": ("write", {"path": "rename_photos.py", "content": "x"}, "c7"),
    "generic folder": ("write", {"path": "Playground/app/rename_photos.py", "content": "x"}, "c7"),
    "Playground/<file>": ("write", {"path": "Playground/rename_photos.py", "content": "x"}, "c7"),
    "lowercase playground/": ("write", {"path": "playground/photo-renamer/rename_photos.py", "content": "x"}, "c7"),
    "outside the workspace": ("write", {"path": "/etc/photo-renamer/rename_photos.py", "content": "x"}, "c7"),
    "parent directory": ("write", {"path": "../photo-renamer/rename_photos.py", "content": "x"}, "c7"),
    "edit": ("edit", {"path": REMEDY_PATH, "oldText": "a", "newText": "b"}, "c7"),
    "apply_patch": ("apply_patch", {"input": "*** Begin Patch\n*** Add File: " + REMEDY_PATH + "\n+x\n*** End Patch"}, "c7"),
    "mkdir": ("exec", {"command": "mkdir -p Playground/photo-renamer"}, "c7"),
    "read": ("read", {"path": REMEDY_PATH}, "c7"),
    "nested child": ("write", remedy(), "tool_search_code:c7"),
    # The remedy under an id the budget ignores (no non-empty string): admitted, its failure could never stop the
    # run again (guard/hooks.py's documented choice; hooks.md is silent).
    "unusable id: a list": ("write", remedy(), ["c7"]),
    "unusable id: a number": ("write", remedy(), 7),
    "unusable id: empty": ("write", remedy(), ""),
    "wrapped read": ("tool_call", {"id": "openclaw:core:read", "args": {"path": REMEDY_PATH}}, "c7"),
}


class TestNotTheRemedy:
    """Seed 002 / H3: every other first call is refused exactly as on main; the late write then aborts."""

    @pytest.mark.parametrize("order", ORDERS)
    @pytest.mark.parametrize("name", sorted(NOT_REMEDIES))
    def test_refused_as_on_main(self, name: str, order: str) -> None:
        tool, params, call_id = NOT_REMEDIES[name]
        decisions = {}
        for allowances in (True, False):
            guard = make_guard(playground=True, allowances=allowances)
            trip_photo_renamer(guard, order)
            first = deliver(guard, call_id, tool, params, ok(), order)
            late = deliver(guard, "c8", "write", remedy(), ok(), order)
            decisions[allowances] = (first.decision, late.decision, guard.aborted)
            assert first.decision.block and late.decision.block
            assert guard.budget.admissions == 0 and guard.budget.correction is None
            assert guard.routing.binding is None and guard.aborted
        assert decisions[True] == decisions[False]

    def _compare(self, scenario) -> None:
        outcomes = []
        for allowances in (True, False):
            guard = make_guard(playground=True, allowances=allowances)
            outcomes.append(scenario(guard))
            assert guard.budget.admissions == 0 and guard.routing.binding is None
        assert outcomes[0] == outcomes[1]

    def test_a_forfeited_answer_turn_admits_nothing(self) -> None:
        def scenario(guard):
            trip_photo_renamer(guard)
            guard.model_call_start()
            guard.model_call_end()
            first = deliver(guard, "c7", "write", remedy(), ok())
            late = deliver(guard, "c8", "write", remedy(), ok())
            return first.decision, late.decision, guard.aborted
        self._compare(scenario)

    def test_one_model_call_between_the_trip_and_the_remedy_is_not_a_forfeit(self) -> None:
        guard = make_guard(playground=True)
        trip_photo_renamer(guard)
        assert not deliver(guard, "c7", "write", remedy(), ok()).decision.block

    def test_a_model_call_that_started_before_a_late_trip_does_not_count(self) -> None:
        # after_tool_call is fire-and-forget: the trip can land after the next model call started.
        guard = make_guard(playground=True)
        deliver(guard, "c1", "exec", GATED[0][1], ok())
        deliver(guard, "c2", "exec", {"command": "python3 --version"}, exec_result(0, "Python 3.11.2"))
        for call_id, params in GATED[1:4]:
            deliver(guard, call_id, "exec", params, ok())
        guard.model_call_start()
        decision = guard.before_tool_call(RUN, SESSION, "c6", "exec", GATED[4][1])
        guard.model_call_start()
        guard.after_tool_call("c6", "exec", GATED[4][1], blocked(decision.block_reason))
        guard.tool_result_persist("c6", "exec", blocked(decision.block_reason))
        assert guard.budget.pending_correction == FIRST_WRITE
        assert not deliver(guard, "c7", "write", remedy(), ok()).decision.block
        assert guard.budget.admissions == 1

    def test_two_model_calls_after_a_late_trip_forfeit(self) -> None:
        guard = make_guard(playground=True)
        for call_id, params in GATED[1:4]:
            deliver(guard, call_id, "exec", params, ok())
        guard.model_call_start()
        decision = guard.before_tool_call(RUN, SESSION, "c6", "exec", GATED[4][1])
        guard.model_call_start()
        guard.after_tool_call("c6", "exec", GATED[4][1], blocked(decision.block_reason))
        guard.model_call_start()
        assert guard.budget.pending_correction == FIRST_WRITE
        guard.model_call_start()
        assert guard.budget.pending_correction is None
        assert deliver(guard, "c7", "write", remedy(), ok(), model_call=False).decision.block

    def test_an_owner_cancel_after_the_trip_admits_nothing(self) -> None:
        def scenario(guard):
            trip_photo_renamer(guard)
            guard.owner_cancel()
            assert guard.finalization.phase == UNAVAILABLE
            first = deliver(guard, "c7", "write", remedy(), ok())
            late = deliver(guard, "c8", "write", remedy(), ok())
            return first.decision, late.decision, guard.aborted
        self._compare(scenario)

    def test_a_strict_stop_run_admits_nothing(self) -> None:
        def scenario(guard):
            guard.strict_stop = True
            trip_photo_renamer(guard)
            assert guard.finalization.phase == UNAVAILABLE
            return deliver(guard, "c7", "write", remedy(), ok()).decision, guard.aborted
        self._compare(scenario)

    def test_a_delivered_instruction_is_never_withdrawn(self) -> None:
        guard = make_guard(playground=True)
        trip_photo_renamer(guard)
        guard.finalization.phase = DELIVERED
        assert deliver(guard, "c7", "write", remedy(), ok()).decision.block
        assert guard.budget.admissions == 0

    def test_without_playground_routing_the_write_is_not_admitted(self) -> None:
        guard = make_guard(playground=True)
        trip_photo_renamer(guard)
        guard.routing = None
        assert deliver(guard, "c7", "write", remedy(), ok()).decision.block
        assert guard.budget.admissions == 0

    @pytest.mark.parametrize("where", [{"run": "run-2"}, {"session": "session-2"}])
    def test_a_remedy_from_another_run_or_session_is_not_admitted(self, where) -> None:
        guard = make_guard(playground=True)
        trip_photo_renamer(guard)
        assert deliver(guard, "c7", "write", remedy(), ok(), **where).decision.block
        assert guard.budget.admissions == 0

    @pytest.mark.parametrize("path", ["/srv/pixel/ws/" + REMEDY_PATH, "/workspace/" + REMEDY_PATH, "./" + REMEDY_PATH])
    def test_a_remedy_under_the_configured_root_or_workspace_is_admitted(self, path) -> None:
        guard = make_guard(playground=True, root="/srv/pixel/ws")
        trip_photo_renamer(guard)
        assert not deliver(guard, "c7", "write", {"path": path, "content": "x"}, ok()).decision.block
        assert guard.routing.binding == "Playground/photo-renamer"

    @pytest.mark.parametrize("idle, admitted", [(3, True), (4, False)])
    def test_round_cap(self, idle: int, admitted: bool) -> None:
        guard = make_guard(playground=True)
        trip_photo_renamer(guard, idle_rounds=idle)
        assert deliver(guard, "c7", "write", remedy(), ok()).decision.block is not admitted
        assert guard.budget.admissions == int(admitted)

    def test_a_file_read_earlier_is_not_a_new_project(self) -> None:
        guard = make_guard(playground=True)
        deliver(guard, "r0", "read", {"path": REMEDY_PATH}, failure("missing"))
        trip_photo_renamer(guard)
        assert deliver(guard, "c7", "write", remedy(), ok()).decision.block

    def test_an_admitted_remedy_that_fails_stops_again_at_once(self) -> None:
        guard = make_guard(playground=True)
        trip_photo_renamer(guard)
        assert not deliver(guard, "c7", "write", remedy(), failure("disk full")).decision.block
        assert guard.budget.terminal and guard.budget.pending_correction is None
        assert guard.finalization.phase == PENDING
        late = deliver(guard, "c8", "write", remedy(), ok())
        assert late.decision.block and guard.budget.admissions == 1

    def test_refusals_then_another_failing_tool_leave_no_correction(self) -> None:
        guard = make_guard(playground=True)
        for call_id, params in GATED[1:4]:
            deliver(guard, call_id, "exec", params, ok())
        deliver(guard, "f", "web_fetch", {"url": "https://example.com"}, failure())
        assert guard.budget.terminal and guard.budget.pending_correction is None
        assert deliver(guard, "c7", "write", remedy(), ok()).decision.block

    def test_failure_12_as_the_fourth_refusal_leaves_no_correction(self) -> None:
        guard = make_guard(playground=True)
        probes = ["python3 --version", "pip --version", "git --version", "node --version"]
        for block in range(4):
            for index in range(2):
                deliver(guard, f"g{block}{index}", "exec", {"command": f"cat x{block}{index}"}, ok())
            deliver(guard, f"p{block}", "exec", {"command": probes[block]}, exec_result(0, "v1"))
        assert guard.budget.failures == 8 and not guard.budget.terminal
        for index in range(4):
            deliver(guard, f"z{index}", "exec", {"command": f"cat z{index}"}, ok())
        assert guard.budget.terminal and guard.budget.failures == 12
        assert guard.budget.pending_correction is None

    @pytest.mark.parametrize(
        "path, refused",
        [
            (LONG_PATH, False),
            (LONG_PATH + "x", True),
            ("Playground/photo-renamer/" + "/".join(["d"] * 10), False),
            ("Playground/photo-renamer/" + "/".join(["d"] * 11), True),
            ("/srv/pixel/ws/Playground/photo-renamer/a.py", False),
            ("/srv/other/Playground/photo-renamer/a.py", True),
            ("photo-renamer/rename.py", False),
            ("playground/photo-renamer/rename.py", False),
            ("Playground/PROJECT/rename.py", True),
            ("src/rename.py", True),
            ("Playground/photo-renamer/con.py", True),
        ],
    )
    def test_the_router_path_rules(self, path, refused) -> None:
        guard = make_guard(playground=True, root="/srv/pixel/ws")
        step = deliver(guard, "w", "write", {"path": path, "content": "x"}, ok())
        assert step.decision.block is refused
        assert (guard.routing.binding is None) is refused

    def test_the_router_refuses_a_generic_first_write_with_the_path_kind(self) -> None:
        guard = make_guard(playground=True)
        step = deliver(guard, "w", "write", {"path": "Playground/website/index.html", "content": "x"}, ok())
        assert step.decision.block and guard.budget.log[-1][2]["correctable_refusal"] == PROJECT_PATH
        assert guard.routing.binding is None

    def test_a_project_path_refusal_trip_is_admitted_once(self) -> None:
        guard = make_guard(playground=True)
        for index in range(4):
            deliver(guard, f"w{index}", "write", {"path": f"page{index}.html", "content": "x"}, ok())
        assert guard.budget.pending_correction == PROJECT_PATH
        assert not deliver(guard, "w4", "write", {"path": "Playground/night-garden/index.html", "content": "x"}, ok()).decision.block


# -- seed 001: deferral through the hooks, binding (H2) ------------------------------------------


def inspect_call(guard, call_id, result, order="after", *, route="direct", record=True, persisted=None, **kwargs):
    """An inspection, direct or through Tool Search, with the tool's own record unless ``record`` is False."""
    if route == "direct":
        return deliver(guard, call_id, INSPECTION_TOOL, INSPECT_ARGS, result, order,
                       record=result if record else None, persisted=persisted, **kwargs)
    wrapped = envelope(result)
    return deliver(guard, call_id, "tool_call", {"id": INSPECTION_TOOL, "args": INSPECT_ARGS}, wrapped, order,
                   record=result if record else None, persisted=persisted, **kwargs)


ROUTES = ("direct", "tool-search")


class TestDeferral:
    @pytest.mark.parametrize("order", ORDERS)
    @pytest.mark.parametrize("route", ROUTES)
    @pytest.mark.parametrize("result", [INVALID, NO_MATCH, INCOMPLETE], ids=["invalid", "no_match", "incomplete"])
    def test_a_bound_correctable_failure_waits_at_the_fuse(self, result, route, order) -> None:
        guard = make_guard()
        fail_three(guard, order)
        inspect_call(guard, "i1", result, order, route=route)
        assert not guard.budget.terminal and guard.budget.deferred == "global"
        assert guard.budget.failures == 4

    @pytest.mark.parametrize("order", ORDERS)
    @pytest.mark.parametrize("route", ROUTES)
    def test_a_passing_inspection_forgives(self, route, order) -> None:
        guard = make_guard()
        fail_three(guard, order)
        inspect_call(guard, "i1", NO_MATCH, order, route=route)
        inspect_call(guard, "i2", PASSED, order, route=route)
        assert not guard.budget.terminal and guard.budget.consecutive == 0

    @pytest.mark.parametrize("route", ROUTES)
    def test_without_a_record_the_live_receipt_is_classified(self, route) -> None:
        guard = make_guard()
        fail_three(guard)
        inspect_call(guard, "i1", NO_MATCH, route=route, record=False)
        assert not guard.budget.terminal and guard.budget.deferred == "global"

    @pytest.mark.parametrize("order", ORDERS)
    def test_a_pass_with_page_errors_does_not_forgive(self, order) -> None:
        guard = make_guard()
        fail_three(guard, order)
        inspect_call(guard, "i1", NO_MATCH, order)
        inspect_call(guard, "i2", PASSED_PAGE_ERRORS, order)
        assert guard.budget.terminal

    @pytest.mark.parametrize("order", ORDERS)
    def test_a_failed_envelope_around_a_pass_does_not_forgive(self, order) -> None:
        guard = make_guard()
        fail_three(guard, order)
        inspect_call(guard, "i1", NO_MATCH, order)
        params = {"id": INSPECTION_TOOL, "args": INSPECT_ARGS}
        deliver(guard, "i2", "tool_call", params, envelope(PASSED, error=True), order, record=PASSED)
        assert guard.budget.terminal

    @pytest.mark.parametrize("order", ORDERS)
    def test_a_measured_failure_is_charged_at_once(self, order) -> None:
        guard = make_guard()
        fail_three(guard, order)
        inspect_call(guard, "i1", MEASURED, order)
        assert guard.budget.terminal and guard.budget.deferred is None

    def test_the_recorded_result_is_classified_not_the_receipt(self) -> None:
        # The receipt looks correctable but the tool's own result measured a failure: charged at once.
        guard = make_guard()
        fail_three(guard)
        deliver(guard, "i1", INSPECTION_TOOL, INSPECT_ARGS, NO_MATCH, "persist", record=MEASURED)
        assert guard.budget.terminal
        # And the other way round: a record that is correctable defers a receipt the persist hook cannot read.
        guard = make_guard()
        fail_three(guard)
        deliver(guard, "i1", INSPECTION_TOOL, INSPECT_ARGS, MEASURED, "persist", record=NO_MATCH, persisted=capped(MEASURED))
        assert guard.budget.deferred == "global"


class TestCappedCopy:
    """hooks.md: with the record both orders defer; without it, persistence first charges at once."""

    @pytest.mark.parametrize("order", ORDERS)
    @pytest.mark.parametrize("route", ROUTES)
    def test_with_the_record_both_orders_defer(self, route, order) -> None:
        guard = make_guard()
        fail_three(guard, order)
        live = NO_MATCH if route == "direct" else envelope(NO_MATCH)
        inspect_call(guard, "i1", NO_MATCH, order, route=route, persisted=capped(live))
        assert not guard.budget.terminal and guard.budget.deferred == "global"

    @pytest.mark.parametrize("route", ROUTES)
    def test_without_the_record_persistence_first_charges_at_once(self, route) -> None:
        live = NO_MATCH if route == "direct" else envelope(NO_MATCH)
        first = make_guard()
        fail_three(first, "persist")
        inspect_call(first, "i1", NO_MATCH, "persist", route=route, record=False, persisted=capped(live))
        assert first.budget.terminal and first.budget.deferred is None
        second = make_guard()
        fail_three(second, "after")
        inspect_call(second, "i1", NO_MATCH, "after", route=route, record=False, persisted=capped(live))
        assert not second.budget.terminal and second.budget.deferred == "global"

    def test_a_capped_copy_without_a_record_is_a_charged_failure(self) -> None:
        guard = make_guard()
        guard.before_tool_call(RUN, SESSION, "r1", "read", {"path": "big.json"})
        guard.tool_result_persist("r1", "read", capped(ok("x" * 9000)))
        assert guard.budget.failures == 1 and guard.budget.consecutive == 1


UNBOUND = {
    "nested child": dict(call_id="tool_search_code:i1"),
    "other run": dict(run="run-2"),
    "other session": dict(session="session-2"),
    "no pending call": dict(before=False),
    "receipt names another tool": dict(result_tool="pixel_ods_workspace_preview"),
}


class TestOnlyBoundOuterCalls:
    """H2: nested, unbound and other-tool receipts are never deferred, never free, never admitted."""

    @pytest.mark.parametrize("order", ORDERS)
    @pytest.mark.parametrize("name", sorted(UNBOUND))
    def test_a_correctable_inspection_is_not_deferred(self, name, order) -> None:
        guard = make_guard()
        fail_three(guard, order)
        options = dict(UNBOUND[name])
        call_id = options.pop("call_id", "i1")
        inspect_call(guard, call_id, NO_MATCH, order, **options)
        assert guard.budget.deferred is None and guard.budget.deferrals_used == 0
        if name == "nested child":
            # Never observed at all: the count stays below the fuse.
            assert not guard.budget.terminal and call_id not in guard.budget.seen_calls
        else:
            assert guard.budget.terminal

    def test_executed_params_that_differ_unbind_the_receipt(self) -> None:
        guard = make_guard()
        fail_three(guard)
        changed = dict(INSPECT_ARGS, viewport={"width": 375})
        deliver(guard, "i1", INSPECTION_TOOL, INSPECT_ARGS, NO_MATCH, "after", after_params=changed)
        assert guard.budget.terminal and guard.budget.deferred is None

    def test_params_equal_in_value_but_not_in_type_do_not_bind(self) -> None:
        guard = make_guard()
        fail_three(guard)
        params = {"siteId": "s", "width": 1}
        deliver(guard, "i1", INSPECTION_TOOL, params, NO_MATCH, "after", after_params={"siteId": "s", "width": True})
        assert guard.budget.terminal

    @pytest.mark.parametrize("order", ORDERS)
    def test_another_tool_with_an_inspection_shaped_result_gets_nothing(self, order) -> None:
        guard = make_guard()
        fail_three(guard, order)
        deliver(guard, "x1", "pixel_ods_workspace_preview", INSPECT_ARGS, NO_MATCH, order)
        assert guard.budget.terminal and guard.budget.deferred is None
        guard = make_guard()
        fail_three(guard, order)
        inspect_call(guard, "i1", NO_MATCH, order)
        deliver(guard, "x2", "pixel_ods_workspace_preview", INSPECT_ARGS, PASSED, order)
        assert guard.budget.terminal

    @pytest.mark.parametrize("order", ORDERS)
    @pytest.mark.parametrize("name", ["other run", "other session", "receipt names another tool"])
    def test_an_unbound_refusal_gets_no_correction(self, name, order) -> None:
        guard = make_guard(playground=True)
        options = {key: value for key, value in UNBOUND[name].items()}
        for call_id, params in GATED[1:4]:
            deliver(guard, call_id, "exec", params, ok(), order)
        deliver(guard, "c6", "exec", GATED[4][1], ok(), order, **options)
        assert guard.budget.terminal and guard.budget.pending_correction is None

    def test_nested_receipts_are_never_observed(self) -> None:
        guard = make_guard()
        for order in ORDERS:
            deliver(guard, f"tool_search_code:{order}", "exec", {"command": "false"}, exec_result(2), order)
        assert guard.budget.failures == 0 and not guard.budget.seen_calls

    @pytest.mark.parametrize("order", ORDERS)
    def test_a_reused_call_id_keeps_its_first_record(self, order) -> None:
        guard = make_guard()
        fail_three(guard, order)
        guard.before_tool_call(RUN, SESSION, "i1", INSPECTION_TOOL, INSPECT_ARGS)
        guard.before_tool_call(RUN, SESSION, "i1", INSPECTION_TOOL, {"siteId": "other"})
        deliver(guard, "i1", INSPECTION_TOOL, INSPECT_ARGS, NO_MATCH, order, record=NO_MATCH, before=False)
        assert guard.budget.deferred == "global"

    def test_a_reused_call_id_is_decided_on_its_own_params(self) -> None:
        guard = make_guard(playground=True)
        assert not guard.before_tool_call(RUN, SESSION, "d", "exec", {"command": "python3 --version"}).block
        assert guard.before_tool_call(RUN, SESSION, "d", "exec", {"command": "python3 setup.py"}).block
        # The refusal of the second call does not turn the first call's receipt into a kind-carrying refusal.
        guard.after_tool_call("d", "exec", {"command": "python3 --version"}, exec_result(0, "Python 3.11.2"))
        assert guard.budget.failures == 0 and not guard.refusal_kinds

    @pytest.mark.parametrize("order", ORDERS)
    def test_a_refused_call_is_a_failure_whatever_its_receipt_says(self, order) -> None:
        guard = make_guard(playground=True)
        assert guard.before_tool_call(RUN, SESSION, "c1", "exec", {"command": "ls"}).block
        receipt = ok("looks fine")
        if order == "after":
            guard.after_tool_call("c1", "exec", {"command": "ls"}, receipt)
        else:
            guard.tool_result_persist("c1", "exec", receipt)
        assert guard.budget.failures == 1 and guard.budget.consecutive == 1


class TestRecordedResult:
    def test_the_tool_search_parent_keeps_its_child_result(self) -> None:
        guard = make_guard()
        guard.before_tool_call(RUN, SESSION, "p1", "tool_call", {"id": INSPECTION_TOOL, "args": INSPECT_ARGS})
        assert guard.record_tool_result("child-1", INSPECT_ARGS, NO_MATCH)
        assert guard.pending["p1"].recorded == NO_MATCH

    def test_a_parent_from_another_run_is_no_candidate(self) -> None:
        guard = make_guard()
        guard.before_tool_call("run-2", SESSION, "p0", "tool_call", {"id": INSPECTION_TOOL, "args": INSPECT_ARGS})
        guard.before_tool_call(RUN, "session-2", "p1", "tool_call", {"id": INSPECTION_TOOL, "args": INSPECT_ARGS})
        guard.before_tool_call(RUN, SESSION, "p2", "tool_call", {"id": INSPECTION_TOOL, "args": INSPECT_ARGS})
        assert guard.record_tool_result("child-1", INSPECT_ARGS, NO_MATCH)
        assert guard.pending["p2"].has_record and not guard.pending["p0"].has_record

    def test_two_matching_parents_get_nothing(self) -> None:
        guard = make_guard()
        for parent in ("p1", "p2"):
            guard.before_tool_call(RUN, SESSION, parent, "tool_call", {"id": INSPECTION_TOOL, "args": INSPECT_ARGS})
        assert not guard.record_tool_result("child-1", INSPECT_ARGS, NO_MATCH)

    @pytest.mark.parametrize(
        "call_id, tool, params, record_args",
        [
            ("r1", "read", {"path": "a"}, {"path": "a"}),
            ("i1", INSPECTION_TOOL, INSPECT_ARGS, {"siteId": "other"}),
            ("tool_search_code:i1", INSPECTION_TOOL, INSPECT_ARGS, INSPECT_ARGS),
        ],
        ids=["other tool", "other args", "nested"],
    )
    def test_only_the_exact_pending_inspection_keeps_a_record(self, call_id, tool, params, record_args) -> None:
        guard = make_guard()
        guard.before_tool_call(RUN, SESSION, call_id, tool, params)
        assert not guard.record_tool_result(call_id, record_args, NO_MATCH)

    def test_a_counted_call_takes_no_late_record(self) -> None:
        guard = make_guard()
        deliver(guard, "i1", INSPECTION_TOOL, INSPECT_ARGS, MEASURED)
        assert not guard.record_tool_result("i1", INSPECT_ARGS, NO_MATCH)

    def test_the_record_is_a_copy(self) -> None:
        guard = make_guard()
        params = {"siteId": "s", "steps": [{"action": "click"}]}
        guard.before_tool_call(RUN, SESSION, "i1", INSPECTION_TOOL, params)
        params["steps"].append({"action": "changed"})
        assert guard.pending["i1"].params == {"siteId": "s", "steps": [{"action": "click"}]}


class TestOddReceipts:
    """Receipts and calls of the wrong shape are accounted, never crash the guard, and earn nothing."""

    @pytest.mark.parametrize("order", ORDERS)
    def test_a_receipt_that_is_not_an_object_is_an_ordinary_success(self, order) -> None:
        guard = make_guard()
        deliver(guard, "r1", "read", {"path": "a"}, None, order, persisted="plain text")
        assert guard.budget.failures == 0 and "r1" in guard.budget.seen_calls

    @pytest.mark.parametrize("order", ORDERS)
    def test_an_event_error_is_a_failure(self, order) -> None:
        guard = make_guard()
        guard.before_tool_call(RUN, SESSION, "r1", "read", {"path": "a"})
        if order == "after":
            guard.after_tool_call("r1", "read", {"path": "a"}, ok(), error="ENOENT")
        guard.tool_result_persist("r1", "read", failure("ENOENT"))
        if order == "persist":
            guard.after_tool_call("r1", "read", {"path": "a"}, ok(), error="ENOENT")
        assert guard.budget.failures == 1

    def test_an_event_error_beside_a_recorded_pass_is_a_failure(self) -> None:
        guard = make_guard()
        guard.before_tool_call(RUN, SESSION, "i2", INSPECTION_TOOL, INSPECT_ARGS)
        guard.record_tool_result("i2", INSPECT_ARGS, PASSED)
        guard.after_tool_call("i2", INSPECTION_TOOL, INSPECT_ARGS, PASSED, error="aborted")
        assert guard.budget.failures == 1

    def test_an_exec_without_object_args_is_gated_and_never_free(self, fake_lookup) -> None:
        guard = make_guard(playground=True)
        assert guard.before_tool_call(RUN, SESSION, "x1", "exec", "grep -n foo a.js").block
        guard = make_guard()
        deliver(guard, "x2", "exec", "grep -n foo a.js", exec_result(1))
        deliver(guard, "x3", "exec", {"command": "grep -n foo a.js"}, None, after_params={"command": "grep -n foo a.js"})
        guard.before_tool_call(RUN, SESSION, "x4", "exec", {"command": "grep -n foo a.js"})
        guard.after_tool_call("x4", "exec", {"command": "grep -n foo a.js"}, None, error="killed")
        assert guard.budget.free_lookups_used == 0 and guard.budget.failures == 2
        assert [call[:2] for call in fake_lookup] == [(None, 1), ("grep -n foo a.js", None)]

    def test_a_record_for_an_unhashable_or_missing_id_is_refused(self) -> None:
        guard = make_guard()
        assert not guard.record_tool_result(["i1"], INSPECT_ARGS, NO_MATCH)
        assert not guard.record_tool_result(None, INSPECT_ARGS, NO_MATCH)

    def test_a_nested_child_record_never_reaches_its_parent(self) -> None:
        guard = make_guard()
        guard.before_tool_call(RUN, SESSION, "p1", "tool_call", {"id": INSPECTION_TOOL, "args": INSPECT_ARGS})
        assert not guard.record_tool_result("tool_search_code:p1", INSPECT_ARGS, NO_MATCH)
        assert not guard.pending["p1"].has_record

    def test_the_record_is_kept_as_it_was_returned(self) -> None:
        # The host may cap or edit the returned object before persisting; the record must not follow.
        guard = make_guard()
        fail_three(guard)
        result = inspection("failed", errorCode="invalid_request")
        guard.before_tool_call(RUN, SESSION, "i1", INSPECTION_TOOL, INSPECT_ARGS)
        guard.record_tool_result("i1", INSPECT_ARGS, result)
        result["details"]["errorCode"] = "timeout"
        guard.tool_result_persist("i1", INSPECTION_TOOL, result)
        assert guard.budget.deferred == "global"

    @pytest.mark.parametrize("message", [failure("late"), "plain text", None])
    def test_the_stop_copy_keeps_the_message_and_replaces_its_text(self, message) -> None:
        guard = make_guard()
        for _ in range(9):
            guard.model_call_start()
        guard.before_tool_call(RUN, SESSION, "late", "read", {"path": "a"})
        saved = guard.tool_result_persist("late", "read", message)
        assert saved["content"] == [{"type": "text", "text": saved["content"][0]["text"]}]
        assert saved["content"][0]["text"].startswith(STOP_HEAD)
        expected = {key: value for key, value in message.items() if key != "content"} if isinstance(message, dict) else {}
        assert {key: value for key, value in saved.items() if key != "content"} == expected
        if isinstance(message, dict):
            assert persisted_text(message) == "late"

    @pytest.mark.parametrize("state", [RoutingState(first_project_file=True), RoutingState(binding="Playground/night-garden")])
    def test_a_run_with_a_project_runs_commands(self, state) -> None:
        guard = make_guard(routing=state)
        assert not guard.before_tool_call(RUN, SESSION, "x1", "exec", {"command": "python3 app.py"}).block
        assert not guard.before_tool_call(RUN, SESSION, "x2", "write", {"path": "notes.txt", "content": "x"}).block

    def test_an_edit_of_the_remedy_path_is_not_a_read(self) -> None:
        guard = make_guard(playground=True)
        deliver(guard, "e0", "edit", {"path": REMEDY_PATH, "oldText": "a", "newText": "b"}, failure("no such file"))
        trip_photo_renamer(guard)
        assert not deliver(guard, "c7", "write", remedy(), ok()).decision.block


    @pytest.mark.parametrize("order", ORDERS)
    def test_unusable_call_ids_pass_through_without_binding(self, order) -> None:
        guard = make_guard(playground=True)
        for call_id in (["x"], 7, ""):
            decision = guard.before_tool_call(RUN, SESSION, call_id, "exec", {"command": "ls"})
            assert decision.block
            deliver(guard, call_id, "exec", {"command": "ls"}, blocked(decision.block_reason), order, before=False)
        # The budget ignores ids that are not non-empty strings; none of them left a kind or a record.
        assert guard.budget.failures == 0 and not guard.pending and not guard.refusal_kinds

    def test_an_unrecorded_receipt_is_no_repeat_of_a_recorded_call(self) -> None:
        guard = make_guard()
        for call_id in ("n1", "n2"):
            deliver(guard, call_id, "read", None, ok())
        guard.model_call_start()
        # A third success of (read, null) would not reset the rounds; a receipt never recorded is another call.
        deliver(guard, "u1", "read", None, ok(), before=False, model_call=False)
        assert guard.budget.rounds == 0
        for call_id in ("u2", "u3"):
            guard.model_call_start()
            deliver(guard, call_id, "read", {"path": call_id}, ok(), before=False, model_call=False)
        # The unrecorded receipts all count as repeats of each other: the third resets nothing.
        assert guard.budget.rounds == 1

    def test_a_discovery_success_neither_resets_nor_charges(self) -> None:
        guard = make_guard()
        fail_three(guard)
        deliver(guard, "s1", "tool_search", {"query": "inspect"}, ok())
        assert guard.budget.consecutive == 3
        deliver(guard, "f4", "web_fetch", {"url": "https://example.com/4"}, failure())
        assert guard.budget.terminal

    @pytest.mark.parametrize("order", ORDERS)
    def test_an_unrecorded_discovery_success_is_read_by_its_own_tool_name(self, order) -> None:
        # A receipt with no before_tool_call has no record to take the tool from: whichever hook counts it must
        # pass the receipt's own tool name, or a Tool Search success would reset the failure streak (budget.md).
        guard = make_guard()
        fail_three(guard, order)
        deliver(guard, "s1", "tool_search", {"query": "inspect"}, ok(), order, before=False)
        assert guard.budget.consecutive == 3
        deliver(guard, "f4", "web_fetch", {"url": "https://example.com/4"}, failure(), order)
        assert guard.budget.terminal

    def test_the_project_path_refusal_names_the_usable_form(self) -> None:
        guard = make_guard(playground=True)
        decision = guard.before_tool_call(RUN, SESSION, "w", "write", {"path": "index.html", "content": "x"})
        assert decision.block and "Playground/" in decision.block_reason

    @pytest.mark.parametrize("order", ORDERS)
    def test_a_late_receipt_after_the_trip_is_not_the_tripping_refusal(self, order) -> None:
        guard = make_guard(playground=True)
        guard.before_tool_call(RUN, SESSION, "slow", "read", {"path": "a"})
        trip_photo_renamer(guard, order)
        late = guard.tool_result_persist("slow", "read", ok("contents"))
        assert persisted_text(late).startswith(STOP_HEAD)
        assert persisted_text(guard.tool_result_persist("c6", "exec", blocked(GATE_HEAD))).startswith(GATE_HEAD)
        assert guard.tripped_by == "c6" and guard.finalization.phase == PENDING


def test_deep_strict_equality() -> None:
    from guard.hooks import same

    assert same({"a": [1, {"b": "c"}]}, {"a": [1, {"b": "c"}]})
    assert not same([1], [1, 2]) and not same([1, 2], [1])
    assert not same({"a": 1}, {"a": 1, "b": 2}) and not same({"a": 1}, {"b": 1})
    assert not same(1, True) and not same(1, 1.0) and not same([1], (1,))
    assert not same({"a": [1]}, {"a": [2]})


# -- seed 000: empty lookups through the hooks ---------------------------------------------------


@pytest.fixture
def fake_lookup(monkeypatch):
    """A stand-in ``guard.lookup`` that records what it is asked and finds 'grep -n foo a.js' empty."""
    calls: list = []

    def lookup_found_nothing(command, exit_code, output):
        calls.append((command, exit_code, output))
        return command == "grep -n foo a.js" and exit_code == 1 and output == ""

    module = types.ModuleType("guard.lookup")
    module.lookup_found_nothing = lookup_found_nothing
    monkeypatch.setitem(sys.modules, "guard.lookup", module)
    return calls


class TestEmptyLookups:
    @pytest.mark.parametrize("order", ORDERS)
    def test_a_bound_empty_search_is_free(self, fake_lookup, order) -> None:
        guard = make_guard()
        deliver(guard, "g1", "exec", {"command": "grep -n foo a.js"}, exec_result(1), order)
        assert guard.budget.failures == 0 and guard.budget.free_lookups_used == 1
        assert fake_lookup == [("grep -n foo a.js", 1, "")]

    @pytest.mark.parametrize("order", ORDERS)
    def test_through_tool_search(self, fake_lookup, order) -> None:
        guard = make_guard()
        params = {"id": "exec", "args": {"command": "grep -n foo a.js"}}
        deliver(guard, "g1", "tool_call", params, envelope(exec_result(1)), order)
        assert guard.budget.free_lookups_used == 1

    @pytest.mark.parametrize("order", ORDERS)
    @pytest.mark.parametrize("name", sorted(UNBOUND))
    def test_an_unbound_empty_search_is_charged(self, fake_lookup, name, order) -> None:
        guard = make_guard()
        options = dict(UNBOUND[name])
        call_id = options.pop("call_id", "g1")
        deliver(guard, call_id, "exec", {"command": "grep -n foo a.js"}, exec_result(1), order, **options)
        assert guard.budget.free_lookups_used == 0
        assert guard.budget.failures == (0 if name == "nested child" else 1)

    def test_the_command_comes_from_the_record_not_the_result(self, fake_lookup) -> None:
        guard = make_guard()
        # The result claims the harmless search; the recorded call ran something else.
        claim = exec_result(1, command="grep -n foo a.js")
        claim["command"] = "grep -n foo a.js"
        deliver(guard, "g1", "exec", {"command": "grep -n foo a.js; rm -rf build"}, claim, "persist")
        assert guard.budget.failures == 1 and guard.budget.free_lookups_used == 0
        assert [call[0] for call in fake_lookup] == ["grep -n foo a.js; rm -rf build"]

    def test_changed_executed_params_are_charged(self, fake_lookup) -> None:
        guard = make_guard()
        deliver(guard, "g1", "exec", {"command": "grep -n foo a.js"}, exec_result(1), "after",
                after_params={"command": "grep -n foo a.js; touch x"})
        assert guard.budget.failures == 1

    def test_output_and_exit_code_come_from_the_receipt(self, fake_lookup) -> None:
        guard = make_guard()
        deliver(guard, "g1", "exec", {"command": "grep -n foo a.js"}, exec_result(1, "grep: a.js: No such file"))
        deliver(guard, "g2", "exec", {"command": "grep -n foo a.js"}, exec_result(2))
        assert guard.budget.failures == 2 and guard.budget.free_lookups_used == 0

    @pytest.mark.parametrize("order", ORDERS)
    def test_a_refused_search_is_not_free(self, fake_lookup, order) -> None:
        # The router refused it, so it ran nothing, even if a receipt claims an empty search's exit 1.
        guard = make_guard(playground=True)
        params = {"command": "grep -n foo a.js"}
        assert guard.before_tool_call(RUN, SESSION, "g1", "exec", params).block
        if order == "after":
            guard.after_tool_call("g1", "exec", params, exec_result(1))
        else:
            guard.tool_result_persist("g1", "exec", exec_result(1))
        assert guard.budget.failures == 1 and guard.budget.free_lookups_used == 0

    def test_the_output_is_the_text_parts_one_per_line(self, fake_lookup) -> None:
        guard = make_guard()
        receipt = exec_result(1)
        receipt["content"] = [{"type": "text", "text": "a"}, {"type": "image", "data": "x"}, "junk", {"type": "text", "text": "b"}]
        deliver(guard, "g1", "exec", {"command": "grep -n foo a.js"}, receipt)
        receipt = exec_result(1)
        receipt["content"] = "not a list"
        deliver(guard, "g2", "exec", {"command": "grep -n foo a.js"}, receipt)
        deliver(guard, "g3", "exec", {"command": "grep -n foo a.js"}, {"details": {"exitCode": 1}, "text": "ignored"})
        assert [call[2] for call in fake_lookup] == ["a\nb", "", ""]

    def test_the_real_classifier_frees_the_spark_chain(self) -> None:
        guard = make_guard()
        chain = "sed -n '860,900p' ui.js; echo ===; grep -n \"function showScreen\" -A 15 ui.js"
        deliver(guard, "g1", "exec", {"command": chain}, exec_result(1, "  const x = 1;\n==="))
        deliver(guard, "g2", "exec", {"command": "grep -n foo a.js || true"}, exec_result(1))
        assert guard.budget.free_lookups_used == 1 and guard.budget.failures == 1

    def test_without_the_classifier_nothing_is_free(self, monkeypatch) -> None:
        monkeypatch.setitem(sys.modules, "guard.lookup", None)
        guard = make_guard()
        deliver(guard, "g1", "exec", {"command": "grep -n foo a.js"}, exec_result(1))
        assert guard.budget.failures == 1


# -- the finalization phase machine ---------------------------------------------------------------


class TestFinalization:
    @pytest.mark.parametrize("phase", [IDLE, DELIVERED, UNAVAILABLE])
    def test_disarm_does_nothing_outside_pending(self, phase) -> None:
        machine = Finalization(phase)
        machine.disarm()
        assert machine.phase == phase

    def test_disarm_from_pending_returns_to_idle(self) -> None:
        machine = Finalization(PENDING)
        machine.disarm()
        assert machine.phase == IDLE

    def test_the_instruction_is_delivered_once(self) -> None:
        machine = Finalization()
        machine.stopped(False)
        assert machine.phase == PENDING
        assert machine.deliver() and machine.phase == DELIVERED
        assert not machine.deliver()
        machine.stopped(False)
        assert machine.phase == DELIVERED

    def test_strict_stop_and_cancel_are_unavailable(self) -> None:
        machine = Finalization()
        machine.stopped(True)
        assert machine.phase == UNAVAILABLE and not machine.deliver()
        machine = Finalization(PENDING)
        machine.cancel()
        assert machine.phase == UNAVAILABLE

    @pytest.mark.parametrize("order", ORDERS)
    def test_the_rounds_cap_leaves_the_instruction_pending(self, order) -> None:
        guard = make_guard()
        for _ in range(9):
            guard.model_call_start()
        assert guard.budget.terminal and guard.finalization.phase == PENDING
        first = deliver(guard, "a", "read", {"path": "x"}, ok(), order, model_call=False)
        second = deliver(guard, "b", "read", {"path": "y"}, ok(), order, model_call=False)
        assert first.decision.block and not first.decision.block_reason.startswith(STOP_HEAD)
        assert second.decision.block_reason.startswith(STOP_HEAD) and guard.aborted


# -- H1-H10 over generated sequences: the hook subject's own generators and monitor -------------------


def check_sequence(sequence: HookSequence) -> Tally:
    """Every hook invariant over ``sequence`` (both orders and the earlier guard); fails naming the invariant."""
    tally = Tally()
    found = HookMonitor(tally).check(sequence)
    assert not found, "\n".join(str(v) for v in found)
    return tally


HookMachineTest = hook_machine().TestCase
HookMachineTest.settings = settings(max_examples=40, stateful_step_count=12, deadline=None)


def test_seeded_bulk_sequences() -> None:
    seed = 20261130
    print(f"hook sequences: seed {seed}")
    tally = Tally()
    monitor = HookMonitor(tally)
    for sequence in sequences(seed, 0, 300):
        found = monitor.check(sequence)
        assert not found, "\n".join(str(v) for v in found)
    coverage = tally.coverage
    print(f"hook sequences: {tally.traces} checked, {tally.steps} steps, coverage {dict(coverage)}")
    # The generated sequences must reach the allowances and the stops, or the invariants were checked only on
    # easy sequences.
    assert coverage["deferrals through the hooks"] >= 10 and coverage["admissions"] >= 3
    assert coverage["capped copies with a record"] >= 10 and coverage["capped copies without a record"] >= 10
    assert all(tally.exercised[invariant.id] > 0 for invariant in CATALOGUE), dict(tally.exercised)


def test_the_monitor_finds_a_guard_that_drops_the_kind_on_one_hook(monkeypatch) -> None:
    """A planted H1 bug: after_tool_call forgets the refusal kind, so the two orders part at the trip. The whole
    catalogue sees it first at the first refused gate, whose own receipt (after-first) lost its kind (H12); H1
    alone sees the two orders part."""
    original = ToolLoopGuard.after_tool_call

    def forgetful(self, call_id, tool, params, result, error=None):
        self.refusal_kinds.pop(call_id, None)
        return original(self, call_id, tool, params, result, error)

    monkeypatch.setattr(ToolLoopGuard, "after_tool_call", forgetful)
    builder = Builder(playground=True, policy="after")
    builder.trip("remedy")
    sequence = builder.build()
    found = HookMonitor(Tally()).check(sequence)
    assert found and found[0].invariant == "H12" and found[0].step == 0, found
    found = HookMonitor(Tally(), (BY_ID["H1"],)).check(sequence)
    assert found and found[0].invariant == "H1", found


def test_the_monitor_finds_an_admission_after_a_forfeited_turn(monkeypatch) -> None:
    """A planted H5 bug: the forfeit no longer spends the correction, so the late remedy is admitted."""
    def start(self):
        self.budget.begin_model_round()
        return self.budget.terminal

    monkeypatch.setattr(ToolLoopGuard, "model_call_start", start)
    builder = Builder(playground=True, policy="persist")
    builder.trip("forfeit")
    found = HookMonitor(Tally()).check(builder.build())
    assert found and found[0].invariant == "H5", found


def test_bulk_sequences_are_deterministic_for_a_seed() -> None:
    first = [sequence for sequence in sequences(7, 0, 40)]
    second = [sequence for sequence in sequences(7, 0, 40)]
    assert first == second
    assert first != [sequence for sequence in sequences(8, 0, 40)]


def test_sequence_files_round_trip(tmp_path) -> None:
    drawn = list(sequences(3, 1, 30))
    # Rooted and unrooted guards both among them, so the optional root is written and read back as well.
    assert {sequence.root for sequence in drawn} >= {None, "/home/agent/workspace"}
    assert {event.record_id for sequence in drawn for event in sequence.events if hasattr(event, "record_id")} == {
        "own", "nested", "foreign", "unhashable"}
    for sequence in drawn:
        path = save_sequence(sequence, tmp_path / "s.json", "s", "H1")
        assert load_sequence(path) == (sequence, "s", "H1")


@pytest.mark.parametrize("content, field", [
    ("{", "not JSON"), ('{"schema": "x"}', "schema"), ('{"schema": "guard-hook-sequence/1", "events": [{"event": "call"}]}', "events[0].index"),
    ('{"schema": "guard-hook-sequence/1", "events": [{"event": "call", "index": 0, "kind": "nope"}]}', "events[0].kind"),
    ('{"schema": "guard-hook-sequence/1", "root": 7, "events": []}', "root"),
    ('{"schema": "guard-hook-sequence/1", "events": [{"event": "call", "index": 0, "kind": "read", "record_id": "x"}]}',
     "events[0].record_id"),
])
def test_a_malformed_sequence_file_names_the_field(tmp_path, content, field) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(TraceError) as caught:
        load_sequence(path)
    assert str(path) in str(caught.value) and field in str(caught.value)


# -- hand sequences: each names the rule it walks through -----------------------------------------------


def _hand(playground: bool, build) -> HookSequence:
    sequence = Builder(playground=playground, policy="mixed")
    build(sequence)
    return sequence.build()


HAND_SEQUENCES = {
    "deferral then pass": (False, lambda b: b.deferral("passed", 0.3)),
    "tool search deferral capped": (False, lambda b: [b.call("fetch_fail") for _ in range(3)] and None or b.call("ts_invalid") or b.call("ts_invalid", order_pick=0.9)),
    "refusal remedy": (True, lambda b: b.trip("remedy", 0.2)),
    "forfeit": (True, lambda b: b.trip("forfeit", 0.7)),
    "cancel": (True, lambda b: b.trip("cancel", 0.1)),
    "router off": (True, lambda b: b.trip("router_off", 0.6)),
    "lookups": (False, lambda b: [b.call("lookup"), b.call("lookup", "other_run", order_pick=0.8), b.call("lying_lookup"), b.call("exec_fail")]),
}


@pytest.mark.parametrize("name", sorted(HAND_SEQUENCES))
def test_hand_sequences(name: str) -> None:
    playground, build = HAND_SEQUENCES[name]
    tally = check_sequence(_hand(playground, build))
    assert tally.steps >= 4


def test_the_remedy_is_admitted_in_both_orders_of_the_hand_sequence() -> None:
    tally = check_sequence(_hand(True, lambda b: b.trip("remedy", 0.2)))
    assert tally.coverage["admissions"] == 1
