"""Delivering hook events to a guard, hook by hook, and recording what each hook did.

``SpyBudget`` is the production budget plus a log of what the hooks told it
(every ``observe_result`` with its flags and the hook that made it, every
admission). ``deliver`` runs one event through a ``ToolLoopGuard`` and returns
one ``HookRecord`` per hook call: which hook, the guard's state after it, the
decision or persisted copy it returned, the receipts it counted.
"""

from __future__ import annotations

import copy
from typing import Any, cast

import attrs

from guard.budget import RunProgressBudget
from guard.hooks import Decision, ToolLoopGuard
from guard.limits import Limits
from guard.playground import RoutingState
from properties.budget.state import Snap, memories as budget_memories, snap_production
from properties.hooks.events import AFTER, Call, Cancel, HookEvent, HookSequence, ModelCall, RouterOff
from properties.hooks.shapes import (
    RUN, SESSION, Shape, blocked, call_shape, host_edits, kind_error, kind_parts, other_tool, rewritten, scribble,
)


@attrs.define(slots=False, eq=False)
class SpyBudget(RunProgressBudget):
    """The production budget, plus a log of every ``observe_result`` and every admission."""

    #: (call id, failed, flags, hook) per counted receipt.
    log: list = attrs.field(factory=list)
    #: (call id, tool, params, failed) per counted receipt, beside ``log``: what H3's oracle feeds the reference.
    received: list = attrs.field(factory=list)
    admissions: int = 0
    #: The hook currently running (set by ``deliver``), recorded with each receipt.
    hook: str = ""

    def observe_result(self, call_id, tool, params, failed, **flags):  # noqa: D401 - a spy
        self.log.append((call_id, bool(failed), dict(flags), self.hook))
        self.received.append((call_id, tool, params, bool(failed)))
        super().observe_result(call_id, tool, params, failed, **flags)

    def correct_fuse(self, remedy):
        reopened = super().correct_fuse(remedy)
        self.admissions += reopened
        return reopened

    # The parent's slotted state leaves out this subclass's own fields, so a copy (``copy.deepcopy``, a pickle)
    # lost the log; the exhaustive model copies whole monitors, guards and budgets included.
    def __getstate__(self):
        return {**super().__getstate__(), **self.__dict__}

    def __setstate__(self, state):
        super().__setstate__(state)
        self.__dict__.update({name: state[name] for name in ("log", "received", "admissions", "hook") if name in state})


def make_guard(sequence: HookSequence, allowances: bool = True) -> ToolLoopGuard:
    """A fresh guard for ``sequence``'s setting (``allowances=False``: production's own earlier mode, which
    the hook replay shows; H3 is judged against ``properties.hooks.earlier_stop`` instead)."""
    return ToolLoopGuard(
        run=RUN, session=SESSION, budget=SpyBudget(limits=Limits(**dict(sequence.limits))), allowances=allowances,
        routing=RoutingState() if sequence.playground else None, strict_stop=sequence.strict_stop,
        root=sequence.root,
    )


@attrs.frozen
class GuardState:
    """The one view of a guard's state the hook invariants compare: the budget's snapshot, phase and abort."""

    budget: Snap
    phase: str
    aborted: bool


def guard_state(guard: ToolLoopGuard) -> GuardState:
    return GuardState(snap_production(guard.budget), guard.finalization.phase, guard.aborted)


def memories(guard: ToolLoopGuard) -> tuple:
    """The guard's budget's two memories (seen call ids, success fingerprints), compared once per step."""
    return budget_memories(guard.budget)


@attrs.frozen
class HookRecord:
    """One hook call: its name, the guard's state after it, what it returned, what it counted."""

    hook: str
    state: GuardState
    #: ``before_tool_call``'s decision, or None for other hooks.
    decision: "Decision | None" = None
    #: ``tool_result_persist``'s returned copy and the message it was given (other hooks: None).
    persisted: Any = None
    message: Any = None
    #: The receipts this hook counted: (call id, failed, flags, hook) entries of the spy's log.
    counted: tuple = ()
    #: Admissions this hook made (0 or 1).
    admitted: int = 0
    #: The state just before this hook (the run's stop and pending correction as the hook found them).
    before: "GuardState | None" = None
    #: What the hook returned (``record_tool_result``: whether the record was kept).
    returned: Any = None
    #: The same receipts as ``counted``, as the budget got them: (call id, tool, params, failed).
    received: tuple = ()
    #: A result hook's receipt and the error its event carried (other hooks: None): what H11 classifies.
    receipt: Any = None
    error: Any = None


def _run_hook(guard: ToolLoopGuard, name: str, action: Any, before: GuardState, message: Any = None,
              receipt: Any = None, error: Any = None) -> HookRecord:
    # Every guard the hook drivers make holds a ``SpyBudget`` (``make_guard``).
    budget = cast(SpyBudget, guard.budget)
    logged, admissions = len(budget.log), budget.admissions
    budget.hook = name
    returned = action()
    budget.hook = ""
    return HookRecord(
        name, guard_state(guard), decision=returned if name == "before_tool_call" else None,
        counted=tuple(budget.log[logged:]) if len(budget.log) > logged else (), admitted=budget.admissions - admissions,
        before=before, persisted=returned if name == "tool_result_persist" else None, message=message, returned=returned,
        received=tuple(budget.received[logged:]) if len(budget.received) > logged else (),
        receipt=receipt, error=error,
    )


def deliver(guard: ToolLoopGuard, event: HookEvent, before: "GuardState | None" = None) -> list[HookRecord]:
    """Run ``event`` through ``guard``; one record per hook call (``before``: the guard's state now, if known)."""
    state = before if before is not None else guard_state(guard)
    if isinstance(event, ModelCall):
        def model_call() -> tuple[bool, None]:
            # What both calls returned (the second returns nothing), as the record has always kept it.
            started = guard.model_call_start()
            guard.model_call_end()
            return started, None

        return [_run_hook(guard, "model_call", model_call, state)]
    if isinstance(event, Cancel):
        return [_run_hook(guard, "owner_cancel", guard.owner_cancel, state)]
    if isinstance(event, RouterOff):
        def lose_routing() -> None:
            guard.routing = None
        return [_run_hook(guard, "router_off", lose_routing, state)]
    return deliver_call(guard, event, call_shape(event.kind, event.index), state)


def deliver_call(guard: ToolLoopGuard, call: Call, shape: Shape, state: GuardState) -> list[HookRecord]:
    """``before_tool_call``, the tool's own record, then both result hooks in the call's order."""
    records = []
    call_id = call.call_id
    run = "run-2" if call.binding == "other_run" else RUN
    session = "session-2" if call.binding == "other_session" else SESSION
    live, persisted = shape.live, shape.persisted
    if not call.capped:
        persisted = live
    decision = Decision()
    # The host's own copies, edited after each hook returned (``host_edits``): the guard must have kept its own.
    edits = host_edits(call.index)
    params = copy.deepcopy(shape.params) if edits else shape.params
    if call.binding != "no_before":
        record = _run_hook(guard, "before_tool_call", lambda: guard.before_tool_call(run, session, call_id, shape.tool, params), state)
        if edits:
            scribble(params)
        records.append(record)
        state = record.state
        decision = cast(Decision, record.decision)  # a before_tool_call record always holds its decision
    if decision.block and not kind_parts(call.kind)[3]:
        # The call ran nothing: the host delivers its refusal as the receipt (an ``!own`` kind: the tool's own
        # result shape, say a search's "nothing found", which the guard must still count as the refused call's).
        live = persisted = blocked(decision.block_reason)
    if shape.record is not None and call.record and not decision.block:
        # A refused call ran nothing, so its tool recorded nothing either (whatever receipt the host sends).
        recorded_under = call.recorded_under
        kept = copy.deepcopy(shape.record) if edits else shape.record
        record = _run_hook(guard, "record_tool_result",
                           lambda: guard.record_tool_result(recorded_under, shape.args, kept), state)
        if edits:
            scribble(kept)
        records.append(record)
        state = record.state
    tool = other_tool(shape.tool) if call.binding == "other_tool" else shape.tool
    executed = rewritten(shape.params, call.index) if call.binding == "rewritten" else shape.params
    hooks = ("after", "persist") if call.order == AFTER else ("persist", "after")
    error = kind_error(call.kind)
    for hook in hooks:
        if hook == "after":
            record = _run_hook(guard, "after_tool_call", lambda: guard.after_tool_call(call_id, tool, executed, live, error),
                               state, receipt=live, error=error)
        else:
            record = _run_hook(guard, "tool_result_persist", lambda: guard.tool_result_persist(call_id, tool, persisted), state,
                               persisted, receipt=persisted)
        records.append(record)
        state = record.state
    return records
