"""The hook subject's invariants (``shared/spec/hooks.md``), written once and checked at every step.

A step is one hook event (a model call, a tool call through every hook, an
owner cancel, the router going inactive) delivered to two guards that each
keep their own production budget:

* ``G``: the sequence as generated (each call's result hooks in its order);
* ``M``: the mirror: every call's two result hooks in the other order.

Three invariants are judged against expectations that run none of the
production code they judge (issue 22):

* H3 against ``properties.hooks.earlier_stop``: the reference budget
  (``reference/``) fed what G's hooks counted, and hooks.md's stop restated
  (which boundary is refused, with which text, one abort);
* H5 against ``properties.hooks.spec_playground`` (classifiers.md "binds a
  new project", restated);
* H8 against ``properties.hooks.spec_lookup`` (classifiers.md "lookup found
  nothing", restated);
* H12 against ``properties.hooks.spec_router`` (the router's refusals before
  the first project file and the folder a first write binds, as hooks.md and
  seed 002 describe them, restated).

H1-H3 are hooks.md's; H4-H12 state promises of hooks.md and seeds 000-002
that no one of H1-H3 covers, each named by the rule catalogue entry that
breaks it. Each check is a documented predicate over one ``HookStep``
returning ``(exercised, violation message or None)``; it reads the step and
returns. Coverage is counted by ``HookMonitor.count_coverage``, never by a
check.

Scope choices (where hooks.md is silent; a safety guard's reading):

* H1 is stated "for every trace"; ``guard/hooks.py`` documents two
  deliberate order dependences that hooks.md itself implies: executed params
  rewritten by the host are seen only by ``after_tool_call`` (the persist hook
  carries none), and a capped copy with no record is charged at once (fail
  closed) while the live result is classified. H1 is checked on every
  sequence up to its first receipt outside that scope (``event_in_h1_scope``); every step is still checked
  against H2-H10.
* "Bound" for H2 is the generator's ground truth, not the guard's opinion: a
  call whose ``before_tool_call`` came from this run and session, whose
  receipt names the same tool, and whose executed params are the recorded
  ones, or whose receipt the persist hook counted (rewritten params are
  invisible there).
* The classifiers (``binds_new_project``, ``lookup_found_nothing``) are
  judged by their own tables and properties too; H5 and H8 never call them,
  so a bug in either shows as H5 or H8 violated instead of agreeing with
  itself.
"""

from __future__ import annotations

from typing import Any, cast

import attrs

from guard.finalization import PENDING
from guard.hooks import Decision
from properties.catalogue import Invariant, Outcome, unique_ids
from properties.hooks.deliver import GuardState, HookRecord
from properties.hooks.earlier_stop import refusal_problem
from properties.hooks.earlier_view import EarlierView
from properties.hooks.events import Call, HookEvent, HookSequence, ModelCall
from guard.inspection import INSPECTION_TOOL
from properties.hooks.shapes import NESTED_PREFIX, STOP_HEAD, UNBOUND_BINDINGS, Shape, call_shape, kind_error
from properties.hooks.spec_outcome import expected_failed, expected_inspection_flags
from properties.hooks.spec_lookup import search_found_nothing
from properties.hooks.spec_router import FIRST_WRITE, FIRST_WRITE_HEAD, RouterExpectation
from properties.names import REFUSAL_KINDS

#: Tool ids whose receipts may be empty lookups (hooks.md: the command is the record's ``command``).
EXEC_TOOLS = frozenset({"exec", "openclaw:core:exec"})
ALLOWANCE_FLAGS = ("correctable", "corrected", "correctable_refusal", "empty_lookup")


def granted(flags: dict) -> list[str]:
    """The allowance flags a receipt was given (a kind, or any of the seeds' flags exactly True)."""
    return [name for name in ALLOWANCE_FLAGS if (flags.get(name) is not None if name == "correctable_refusal" else flags.get(name) is True)]


def lines_of(result: Any) -> str:
    """The output a receipt shows, one content part per line (classifiers.md: stdout and stderr merged)."""
    content = result.get("content") if isinstance(result, dict) else None
    if not isinstance(content, list):
        return ""
    return "\n".join(part["text"] for part in content if isinstance(part, dict) and isinstance(part.get("text"), str))


def text_of(message: Any) -> str:
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        return ""
    return "".join(part.get("text", "") for part in content if isinstance(part, dict) and isinstance(part.get("text"), str))


@attrs.define(slots=True)
class HookStep:
    """Everything a hook invariant may read about one step."""

    index: int
    event: HookEvent
    #: Per guard ("G", "M", "R"): the hook records of this step, in order.
    records: dict[str, list[HookRecord]]
    #: Per guard: the state before the step and the budget's memories after it.
    start: dict[str, GuardState]
    memories: dict[str, tuple]
    #: The call's shape (None for other events).
    shape: "Shape | None"
    #: What H5 expects of an admission at this call on G (None: no correction was pending, nothing may be admitted).
    expect_admit: "bool | None"
    #: Per record of G: the call id whose receipt stopped the run, as of that record (None: no receipt did).
    tripped_by: list
    #: The sequence so far, as it stood before this step (the step carries it, not the monitor: a step record is
    #: a value, judged the same whoever holds it; issue 18). Every step so far was in H1's scope (and this one):
    in_h1_scope: bool
    #: An earlier step of this sequence admitted a call on G.
    admitted_before: bool
    #: The instruction text a refused boundary showed at an earlier trip (None: none yet).
    instruction_seen: "str | None"
    #: Per record of G: what a refused boundary of a stopped run must show ("instruction", "stop"), else None.
    shown: list = attrs.field(factory=list)
    #: Per record of G: H3's oracle after that hook (``earlier_view``); None once an allowance applied.
    earlier: "list[EarlierView] | None" = None
    #: Per guard ("G", "M"): whether the tool's own record was kept, and kept for this call (the monitor's
    #: ``record_expected``; False when none was sent); None when the record went to an id no call has while an
    #: earlier inspection call of the run was still uncounted, so that which call took it depends on pending
    #: calls the harness does not restate (H9 and H11 then judge nothing of that guard at this step).
    record_kept: "dict[str, bool | None]" = attrs.field(factory=dict)
    #: What the router must do with this call on G (``spec_router.expect_router``, read before the call was
    #: delivered); None when no ``before_tool_call`` ran or Playground routing was not active.
    router: "RouterExpectation | None" = None
    #: G's routing state after the step (the router's binding is part of it).
    routing_after: Any = None
    #: Model calls on G since the run last stopped, before this step (H5: the second forfeits the answer turn).
    model_calls_since_trip: int = 0
    #: The run's consecutive-failure fuse (the sequence's scaled limit, else budget.md's 4): H2 tells a forgiven
    #: waiting charge from one that landed by whether landing it stops the run.
    fuse: int = 4
    #: H3's reference budget's memories after this step (seen call ids, success fingerprints), while H3's oracle runs.
    reference_memories: "tuple | None" = None
    #: The run's rounds-without-progress limit (the sequence's scaled limit, else budget.md's 8): H5 tells a model call
    #: that passes it, which clears a pending correction, from one that forfeits nothing.
    round_cap: int = 8

    @property
    def call(self) -> "Call | None":
        return self.event if isinstance(self.event, Call) else None

    @property
    def this_call(self) -> "Call":
        """The step's call, where the invariant reading it already knows the step is one (messages, mostly)."""
        return cast(Call, self.event)

    def bound(self, hook: str) -> bool:
        """Ground truth: the call's receipt, as counted by ``hook``, is its pending call's (see the module notes)."""
        call = self.call
        if call is None or call.binding in UNBOUND_BINDINGS:
            return False
        return call.binding == "bound" or hook == "tool_result_persist"


# -- the invariants -------------------------------------------------------


def h1_order_independence(step: HookStep) -> Outcome:
    """After-first and persist-first delivery leave the guard in the same state after every hook, with the same
    decisions and persisted copies, and the same memories after every step (every sequence in H1's scope)."""
    if not step.in_h1_scope:
        return False, None
    left, right = step.records["G"], step.records["M"]
    for position, (a, b) in enumerate(zip(left, right)):
        if a.state != b.state:
            return True, f"after hook {position} ({a.hook} vs {b.hook}): {a.state} vs {b.state}"
        if a.decision != b.decision:
            return True, f"{a.hook} decided {a.decision} in one order, {b.decision} in the other"
    persisted = [text_of(r.persisted) for r in left if r.hook == "tool_result_persist"]
    mirrored = [text_of(r.persisted) for r in right if r.hook == "tool_result_persist"]
    if persisted != mirrored:
        return True, f"persisted copies differ between orders: {persisted} vs {mirrored}"
    if step.memories["G"] != step.memories["M"]:
        return True, "the budget's memories differ between orders"
    return isinstance(step.event, Call), None


def h2_only_bound_outer_calls(step: HookStep) -> Outcome:
    """Nested, unbound and other-tool receipts are never deferred, never free, never admitted: only a bound outer
    call's receipt earns a flag, only a bound outer call is admitted, and a nested child's receipt is never counted.
    "Other-tool" also reads the other way (issue 24): a receipt of a tool other than the inspection tool is never
    deferred nor a correction, whatever its result looks like, and one of a tool other than exec is never free."""
    call = step.call
    if call is None:
        return False, None
    shape = step.shape
    real_tool = shape.real_tool if shape is not None else None
    exercised = call.binding in UNBOUND_BINDINGS or call.binding == "rewritten" or real_tool != INSPECTION_TOOL
    for guard in ("G", "M"):
        for record in step.records[guard]:
            for call_id, failed, flags, hook in record.counted:
                if call.binding == "nested":
                    return True, f"{guard}: the nested child {call_id} was counted by {hook}"
                given = granted(flags)
                if given and not step.bound(hook):
                    return True, f"{guard}: {call_id} ({call.binding}, counted by {hook}) got {given}"
                wrong_tool = [name for name in given if (name in ("correctable", "corrected") and real_tool != INSPECTION_TOOL)
                              or (name == "empty_lookup" and real_tool not in EXEC_TOOLS)]
                if wrong_tool:
                    return True, f"{guard}: {call_id} ({call.kind}: a {real_tool!r} receipt, counted by {hook}) got {wrong_tool}"
                took = allowance_taken(record, failed, step.fuse)
                if took is not None and (not step.bound(hook) or (took != "a free empty lookup" and real_tool != INSPECTION_TOOL)
                                         or (took == "a free empty lookup" and real_tool not in EXEC_TOOLS)):
                    return True, (f"{guard}: the budget took {call_id}'s receipt ({call.binding}, a {real_tool!r} receipt, "
                                  f"counted by {hook}) as {took}")
            # The call itself came from this run and session unless its binding says otherwise; the receipt's
            # later tool name or params do not make the call another's.
            if record.admitted and call.binding not in ("bound", "rewritten", "other_tool"):
                return True, f"{guard}: {call.call_id!r} ({call.binding}) was admitted"
    return exercised, None


def allowance_taken(record: Any, failed: bool, fuse: int) -> "str | None":
    """The allowance the budget itself applied to the one receipt ``record``'s hook counted, read off its state
    before and after (None: none): a deferral, a free empty lookup, or a waiting charge forgiven by a success.

    H2 is about what the budget does, not only about the flags it was handed: a budget that defers or frees a
    receipt handed no flag (a default changed, say) breaks "never deferred, never free" as much as a guard that
    hands an unbound receipt a flag does."""
    before = record.before.budget if record.before is not None else None
    after = record.state.budget
    if before is None:
        return None
    if after.deferrals_used > before.deferrals_used:
        return "a deferral"
    if after.free_used > before.free_used:
        return "a free empty lookup"
    if not failed and before.deferred == "global" and after.deferred is None and before.consecutive + 1 >= fuse:
        # budget.md, production step 5: a success charges the waiting counter unless it forgives it, and charging a
        # charge that waits at the fuse stops the run. (The hook path has no lanes. A charge that waited below the
        # fuse, which only a budget bug makes, lands without a trace in the counters: B5 names that bug.)
        if not after.terminal:
            return "a correction forgiving the waiting charge"
    return None


def h3_same_stop_without_allowances(step: HookStep) -> Outcome:
    """Whenever no allowance applied (no deferral, no free lookup, no admission), the stop is the earlier hook
    path's: the reference budget stops the run at the same hook, the same boundaries are refused with the same
    text (the finalization instruction first, then the stop text), and the run aborts once, at the first stop
    text. The expectation is ``properties.hooks.earlier_stop``'s, which runs no production code."""
    g = step.records["G"]
    end = g[-1].state if g else step.start["G"]
    budget = end.budget
    if step.earlier is None or budget.deferrals_used or budget.free_used or step.admitted_before or any(record.admitted for record in g):
        return False, None
    exercised = budget.terminal or (bool(step.earlier) and step.earlier[-1].stopped)
    instruction = step.instruction_seen
    for record, view in zip(g, step.earlier):
        if view.missing:
            return True, f"{record.hook}: {view.missing}"
        if record.hook == "before_tool_call":
            decision = cast(Decision, record.decision)  # a before_tool_call record holds its decision
            problem = refusal_problem(view.refusal, decision.block, decision.block_reason, instruction)
            if problem is not None:
                return True, f"{step.this_call.call_id}: {problem}"
        state = record.state
        if state.budget.terminal != view.stopped:
            return True, f"after {record.hook}: stopped={state.budget.terminal} where the reference's run has stopped={view.stopped}"
        if state.aborted != view.aborted:
            return True, f"after {record.hook}: aborted={state.aborted} where the earlier path has aborted={view.aborted}"
    # budget.md: with every new argument omitted (here False or None: no allowance applied) production behaves
    # exactly like the reference, memories included: a budget that skips a success's fingerprint, say, keeps
    # resetting rounds where the reference stops.
    if step.reference_memories is not None and step.memories["G"] != step.reference_memories:
        seen, successes = step.memories["G"]
        other_seen, other_successes = step.reference_memories
        what = "seen call ids" if seen != other_seen else "success fingerprints"
        return True, f"the budget's {what} differ from the reference's fed the same receipts"
    return exercised, None


def h4_kind_stays_inside(step: HookStep) -> Outcome:
    """A refusal's kind never reaches the host: ``before_tool_call`` returns only the block and its reason, and
    the reason never names a kind (seed 002: the kind travels by call id to the result hooks)."""
    exercised = False
    for guard in ("G", "M"):
        for record in step.records[guard]:
            decision = record.decision
            if decision is None or not decision.block:
                continue
            exercised = True
            shown = {field.name for field in attrs.fields(type(decision))}
            if shown != {"block", "block_reason"}:
                return True, f"{guard}: the decision carries {sorted(shown)}"
            reason = decision.block_reason or ""
            named = [kind for kind in REFUSAL_KINDS if kind in reason]
            if named:
                return True, f"{guard}: the block reason names {named}"
    return exercised, None


def h5_admission_exact(step: HookStep) -> Outcome:
    """The first ``before_tool_call`` after a trip with a pending correction is admitted exactly when the
    instruction is still pending, no answer turn was forfeited since the trip (two model calls), the call is an
    outer call of this run and session, Playground routing is active and the call binds a new project; nothing
    else is ever admitted (seed 002)."""
    if isinstance(step.event, ModelCall):
        return forfeit_problem(step)
    admitted = sum(record.admitted for record in step.records["G"])
    expected = step.expect_admit
    if expected is None:
        return False, None if not admitted else f"{step.event} was admitted with no correction pending"
    if bool(admitted) != expected:
        return True, f"{step.this_call.call_id} ({step.this_call.kind}, {step.this_call.binding}) admitted={bool(admitted)}, expected {expected}"
    return True, None


def forfeit_problem(step: HookStep) -> Outcome:
    """H5 at a model call: a correction pending since the trip is spent by the second model call without a tool
    boundary (hooks.md: "a forfeited answer turn (two model calls without a tool boundary) ... admits nothing"),
    never by the first, so that the remedy after one model call (the model's answer turn) is still admitted;
    except that a model call passing the rounds cap spends it whichever it is (budget.md ``begin_model_round``:
    "when it makes the run terminal it also clears correction", read as applying to a run the trip already
    stopped, since hooks.md is silent on the pair: the cap is never deferred).

    Judged from the harness's own count of model calls since the run stopped, never from the guard's: an
    expectation read off production's pending correction would follow a guard that forfeits too soon."""
    records = step.records["G"]
    before = records[0].before if records else None
    if before is None or not before.budget.terminal or before.budget.correction is None:
        return False, None
    calls = step.model_calls_since_trip + 1
    spent = records[-1].state.budget.correction is None
    if before.budget.rounds + 1 > step.round_cap:
        # budget.md: a model round past the rounds cap makes the run terminal and clears the correction, first model
        # call or not: a remedy admitted then would run past a cap the earlier budget stops at (and its success would
        # reset the rounds). The rounds are production's, which H3 holds to the reference's while no allowance applied.
        if not spent:
            return True, f"model round {before.budget.rounds + 1} passed the cap of {step.round_cap}, yet the correction still pends"
        return True, None
    if calls < 2 and spent:
        return True, "the first model call since the trip spent the pending correction (only a second one forfeits the turn)"
    if calls >= 2 and not spent:
        return True, f"{calls} model calls since the trip without a tool boundary, yet the correction still pends"
    return True, None


def h12_router_as_seed_002(step: HookStep) -> Outcome:
    """The router decides every call it sees as hooks.md and seed 002 say (``spec_router``): before the first
    project file an exec or apply_patch that is not a version probe is refused as ``playground-first-write``, a
    write to a bare, generic or unusable path as ``playground-project-path``, each with a text naming its
    remedy (a write into a Playground project folder) and its kind on the call's own receipt; anything else
    goes through, and a first write binds its project folder before it runs. A call the stopped run refused
    never reached the router: the routing state stays as it was."""
    expected = step.router
    if expected is None:
        return False, None
    before = next((record for record in step.records["G"] if record.hook == "before_tool_call"), None)
    if before is None or before.decision is None or before.before is None:
        return False, None
    call = step.this_call  # the router saw it: a call
    routing = step.routing_after
    if before.before.budget.terminal and not before.admitted:
        if routing != expected.routing:
            return True, f"{call.call_id} ({call.kind}): refused by the stopped run, yet the routing became {routing!r}"
        return False, None
    decision, kind = before.decision, expected.kind
    reason = decision.block_reason
    if kind is None and decision.block:
        return True, f"{call.call_id} ({call.kind}): the router refused it ({str(reason)[:60]!r}); seed 002 lets it through"
    if kind is not None:
        if not decision.block:
            return True, f"{call.call_id} ({call.kind}): the router let it through; seed 002 refuses it as {kind}"
        if not isinstance(reason, str) or "Playground/" not in reason:
            return True, f"{call.call_id} ({call.kind}): the {kind} refusal does not name its remedy: {reason!r}"
        if kind == FIRST_WRITE and not reason.startswith(FIRST_WRITE_HEAD):
            return True, f"{call.call_id} ({call.kind}): the first-write refusal reads {reason[:60]!r}"
    wanted = attrs.evolve(expected.routing, binding=expected.binding)
    if routing != wanted:
        return True, f"{call.call_id} ({call.kind}): the routing after it is {routing!r}, expected {wanted!r}"
    if call.binding == "bound" and isinstance(call.call_id, str) and not call.call_id.startswith(NESTED_PREFIX):
        # hooks.md: the kind travels by exact call id to whichever result hook counts the receipt first.
        # A capped copy without a record is charged with no flags at all (hooks.md: fail closed), kind included.
        first = next((entry for record in step.records["G"] for entry in record.counted if entry[0] == call.call_id), None)
        if first is not None and first[2] and first[2].get("correctable_refusal") != kind:
            return True, (f"{call.call_id} ({call.kind}): its receipt was counted with kind "
                          f"{first[2].get('correctable_refusal')!r}, expected {kind!r}")
    return True, None


def h6_instruction_pends_only_while_stopped(step: HookStep) -> Outcome:
    """The finalization instruction is pending only while the run is stopped: admitting the remedy disarms it
    (hooks.md: ``correct_fuse(True)`` and ``disarm()``), so an open run has nothing left to deliver."""
    exercised = False
    for guard in ("G", "M"):
        for record in step.records[guard]:
            if record.state.phase == PENDING or record.admitted:
                exercised = True
                if record.state.phase == PENDING and not record.state.budget.terminal:
                    return True, f"{guard}: the instruction is pending after {record.hook} while the run is open"
    return exercised, None


def h7_persisted_copies(step: HookStep) -> Outcome:
    """A persisted copy is the host's message while the run is open; once stopped it carries the stop text,
    except the tripping refusal's own copy while its correction pends, which stays the host's message (seed 002).

    Where hooks.md is silent, the careful reading: the stopped copy is still the host's transcript entry, its
    other keys kept (the call it answers, its details, its error flag), with its content replaced by exactly
    one text part (``{"type": "text", "text": ...}``) holding the stop text."""
    exercised = False
    for record, tripped in zip(step.records["G"], step.tripped_by):
        if record.hook != "tool_result_persist":
            continue
        state = record.state.budget
        if not state.terminal:
            if record.persisted != record.message:
                return True, f"{step.this_call.call_id}: an open run changed the persisted copy"
            continue
        exercised = True
        kept = text_of(record.persisted)
        if state.correction is not None and step.this_call.call_id == tripped:
            if record.persisted != record.message:
                return True, f"{step.this_call.call_id}: the tripping refusal's copy lost its text while the correction pends: {kept[:60]!r}"
        elif not kept.startswith(STOP_HEAD):
            return True, f"{step.this_call.call_id}: a stopped run persisted {kept[:60]!r} instead of the stop text"
        else:
            message = record.message if isinstance(record.message, dict) else {}
            if record.persisted != {**message, "content": [{"type": "text", "text": kept}]}:
                return True, (f"{step.this_call.call_id}: the stopped copy is not the host's message with one text part: "
                              f"{str(record.persisted)[:120]}")
    return exercised, None


def h8_lookup_from_the_record(step: HookStep) -> Outcome:
    """A bound exec receipt is an empty lookup exactly when the recorded command is a search that found nothing
    (seed 000: the command comes from the pending call's record, never from the result)."""
    shape = step.shape
    if shape is None or shape.real_tool not in EXEC_TOOLS:
        return False, None
    exercised = False
    for guard in ("G", "M"):
        records = step.records[guard]
        refused = any(r.decision is not None and r.decision.block for r in records)
        for record in records:
            for call_id, failed, flags, hook in record.counted:
                if not step.bound(hook):
                    continue
                exercised = True
                command = shape.args.get("command") if isinstance(shape.args, dict) else None
                # hooks.md: through Tool Search the real tool's result is the envelope's ``details.result``.
                result = unwrapped(shape)
                details = result.get("details") if isinstance(result, dict) else None
                code = details.get("exitCode") if isinstance(details, dict) else None
                expected = bool(failed and not refused and search_found_nothing(command, code, lines_of(result)))
                if (flags.get("empty_lookup") is True) != expected:
                    return True, f"{guard}: {call_id} ({step.this_call.kind}) empty_lookup={flags.get('empty_lookup')!r}, expected {expected}"
    return exercised, None


def h9_capped_copy_fails_closed(step: HookStep) -> Outcome:
    """A capped persisted copy counted without the tool's own record cannot be classified: it is charged as a
    failure at once and earns nothing (hooks.md; seed 001: fail closed)."""
    call = step.call
    if call is None:
        return False, None
    exercised = False
    for guard in ("G", "M"):
        for record in step.records[guard]:
            if record.hook != "tool_result_persist" or not record.counted:
                continue
            details = record.message.get("details") if isinstance(record.message, dict) else None
            if not (isinstance(details, dict) and details.get("persistedDetailsTruncated") is True):
                continue
            kept = step.record_kept.get(guard, False)
            if kept is None:
                continue
            with_record = kept and call.binding in ("bound", "rewritten")
            if with_record:
                continue
            exercised = True
            for call_id, failed, flags, _hook in record.counted:
                if not failed or granted(flags):
                    return True, f"{guard}: the capped copy of {call_id} was counted failed={failed} with {granted(flags)}"
    return exercised, None


def h10_instruction_then_stop(step: HookStep) -> Outcome:
    """After a trip the first refused tool boundary shows the finalization instruction (never in a strict-stop or
    cancelled run), every later one the stop text, and the run aborts exactly once, at the first stop text
    (hooks.md "After the fuse"; seed 002)."""
    exercised = False
    aborted = step.start["G"].aborted
    for record, expect in zip(step.records["G"], step.shown):
        if expect is not None:
            exercised = True
            # Shown only at a refused before_tool_call (``HookMonitor.step``), whose record holds its decision.
            reason = cast(Decision, record.decision).block_reason or ""
            if expect == "instruction":
                if reason.startswith(STOP_HEAD) or record.state.aborted != aborted:
                    return True, f"{step.this_call.call_id}: the first refused boundary after the trip showed {reason[:50]!r} (aborted={record.state.aborted})"
            elif not reason.startswith(STOP_HEAD) or not record.state.aborted:
                return True, f"{step.this_call.call_id}: a later refused boundary showed {reason[:50]!r} (aborted={record.state.aborted})"
        aborted = record.state.aborted
    return exercised, None


def h11_failure_as_classified(step: HookStep) -> Outcome:
    """Every counted receipt reaches the budget as a failure exactly when classifiers.md's failed outcome says so
    of what hooks.md has classified: the tool's kept record for a bound call, else the receipt itself, a capped
    copy without a record failing closed, a refused call failing whatever its receipt (issue 24: hooks.md ties
    the failure to the receipt, never to the tool or the result's shape; ``properties.hooks.spec_outcome``).
    Which record that is, is judged too: kept exactly as ``HookStep.record_kept`` expects (hooks.md: for "the
    exact pending call", never a nested child's; under an id no call has, the one fitting Tool Search parent,
    guard/hooks.py's documented rule)."""
    call = step.call
    if call is None:
        return False, None
    exercised = False
    for guard in ("G", "M"):
        kept = step.record_kept.get(guard, False)
        if kept is None:
            continue
        record = None
        refused = False
        for hook_record in step.records[guard]:
            if hook_record.decision is not None and hook_record.decision.block:
                refused = True
            if hook_record.hook == "record_tool_result":
                exercised = True
                if (hook_record.returned is True) != kept:
                    return True, (f"{guard}: the record of {call.call_id} ({call.kind}, {call.binding}) under "
                                  f"{call.recorded_under!r} kept={hook_record.returned!r}, expected {kept}")
                if kept and step.shape is not None:
                    record = step.shape.record
            for call_id, failed, flags, hook in hook_record.counted:
                exercised = True
                bound = step.bound(hook)
                expected = expected_failed(hook_record.receipt, hook_record.error, bound=bound, record=record, refused=refused)
                if failed != expected:
                    return True, (f"{guard}: {call_id} ({call.kind}, {call.binding}, counted by {hook}) reached the budget "
                                  f"failed={failed}, expected {expected}")
                shape = step.shape
                if bound and not refused and shape is not None and shape.real_tool == INSPECTION_TOOL:
                    # Seed 001's flags, classified as the failure is (a refused call ran nothing: H2's business).
                    due = expected_inspection_flags(hook_record.receipt, record=record, wrapped=shape.tool == "tool_call")
                    got = (flags.get("correctable") is True, flags.get("corrected") is True)
                    if got != (due or (False, False)):
                        return True, (f"{guard}: {call_id} ({call.kind}, {call.binding}, counted by {hook}) reached the budget "
                                      f"correctable={got[0]}, corrected={got[1]}; classifiers.md gives {due or (False, False)}")
    return exercised, None


CATALOGUE: tuple[Invariant, ...] = unique_ids((
    Invariant("H1", "000, 001, 002", "order independence", h1_order_independence, subject="hooks"),
    Invariant("H2", "000, 001, 002", "only bound outer calls get allowances", h2_only_bound_outer_calls, subject="hooks"),
    Invariant("H3", "001, 002", "the reference's stop when no allowance applied", h3_same_stop_without_allowances, subject="hooks"),
    Invariant("H4", "002", "the refusal kind never reaches the host", h4_kind_stays_inside, subject="hooks"),
    Invariant("H5", "002", "admission exactly as hooks.md lists it", h5_admission_exact, subject="hooks"),
    Invariant("H6", "002", "the instruction pends only while stopped", h6_instruction_pends_only_while_stopped, subject="hooks"),
    Invariant("H7", "002", "stopped copies carry the stop text, the tripping refusal's excepted", h7_persisted_copies, subject="hooks"),
    Invariant("H8", "000", "the lookup command comes from the record", h8_lookup_from_the_record, subject="hooks"),
    Invariant("H9", "001", "a capped copy without a record fails closed", h9_capped_copy_fails_closed, subject="hooks"),
    Invariant("H10", "002", "the instruction once, then the stop and one abort", h10_instruction_then_stop, subject="hooks"),
    Invariant("H11", "000, 001, 002", "a receipt fails exactly as classified", h11_failure_as_classified, subject="hooks"),
    Invariant("H12", "002", "the router refuses and binds as seed 002 says", h12_router_as_seed_002, subject="hooks"),
))

BY_ID = {invariant.id: invariant for invariant in CATALOGUE}

#: Coverage counts a default run must reach (issue 9: each at least 20).
COVERAGE_MINIMUMS = {
    "deferrals through the hooks": 20,
    "admissions": 20,
    "capped copies with a record": 20,
    "capped copies without a record": 20,
    "nested-child receipts": 20,
    "forfeited turns": 20,
    "owner cancels": 20,
    "sequences delivered after-first": 20,
    "sequences delivered persist-first": 20,
    "sequences delivered in mixed order": 20,
    # Issue 24: the dimensions the spec leaves independent, each reached in the default run.
    "inspection-shaped results from other tools": 20,
    "inspection tool with other results": 20,
    "direct kinds through Tool Search": 20,
    "refused calls with their own receipt": 20,
    "refused searches reading nothing found": 20,
    "trips after model calls": 20,
    "events carrying an error": 20,
    # A search's receipt carrying an error line: the classifier must read the receipt's text, not just its exit.
    "searches exiting 1 with an error line": 20,
    # Its error line in the second of two text parts, and rewritten params whose list grew by one element with the
    # same elements before it (issue 24): the parts must be read one per line, and deep equality must compare lengths.
    # The list made a tuple too (same elements, another type). Bulk counts over seeds 1, 3, 7 and 200: 646 to 702,
    # 29 to 45 and 26 to 33 (rewrites come only in unscoped sequences, and a list only in inspection params): the last
    # two minimums are about a third of the lower's lowest.
    "search errors in a second text part": 20,
    "rewritten params with a list made longer": 7,
    "rewritten params with a list made a tuple": 7,
    # A call whose id is no non-empty string (a list, a number, ""), every hook called with it: nothing may bind to
    # it, and the guard must not raise on it; and the trip motif's remedy under such an id, which H5 says is never
    # admitted (its failure could not reach the budget). Bulk over seeds 1, 3, 7 and 200: 3,116 to 3,293 and 58 to 86.
    "receipts under an unusable call id": 20,
    "remedies under an unusable call id after a trip": 20,
    # The host empties, right after each hook returned, the lists and objects inside the params and the record it
    # handed over (call numbers 2 mod 5): the guard must keep copies of its own (issue 24). A third of the lowest
    # bulk count over seeds 1, 3, 7 and 200 (3,709 and 770).
    "params the host emptied after handing them over": 1200,
    "records the host emptied after handing them over": 250,
    # A kept record that passed under a receipt saying isError: the receipt's own word must still count.
    "kept records their receipt contradicts": 20,
    # A remedy written by its absolute path under the guard's configured root: the root must reach the check.
    # A third of its lowest over seeds 400-411 (43; median 64): the one count of these near 20 per trip motif.
    "remedies admitted by their absolute path": 14,
    # Records under another id: a nested child's (never kept) and one no call has (kept by the one parent).
    "records under a nested child's id": 20,
    "records kept under an id no call has": 20,
    # H12 (issue 24): the router's decisions before the first project file, each form reached. Lowest over seeds
    # 400-407 (bulk alone): 1,077 / 150 / 158 / 785 first writes binding, non-remedy bindings, probes, refused
    # writes; the read-then-remedy trip (H5 with the run's own reads) 69.
    "first writes binding a project": 20,
    "first writes the router binds that are no remedy": 20,
    "version probes run before the first project file": 20,
    "writes the router refuses as bare, generic or unusable": 20,
    "remedies written to a file read earlier": 20,
    # Values hooks.md leaves open (``shapes.ODD_KINDS``, 2026-12-06): a third of the lowest bulk count over seeds 1, 3,
    # 7 and 200-203 (659 to 774 each).
    "receipts that are no object": 220,
    "receipts whose details are no object": 220,
    "search arguments that are no object": 220,
    "searches whose content holds no text part": 220,
}


def event_in_h1_scope(event: HookEvent) -> bool:
    """Not a rewritten call, and no capped copy unless the call is bound (or nested) and keeps its own record."""
    if not isinstance(event, Call):
        return True
    if event.binding == "rewritten" or kind_error(event.kind) is not None:
        # Only after_tool_call carries the executed params and the event's error: the persist hook cannot see them.
        return False
    shape = call_shape(event.kind, event.index)
    # A record under another id may be kept for another call, or for none: only the call's own id is in scope.
    kept = event.record and event.record_id == "own" and shape.record is not None and event.binding in ("bound", "nested")
    return not (event.capped and shape.persisted is not shape.live and not kept)


def unwrapped(shape: Shape) -> Any:
    """The real tool's result: the live receipt, or for Tool Search the envelope's ``details.result``."""
    if shape.tool != "tool_call" or not isinstance(shape.live, dict):
        return shape.live
    details = shape.live.get("details")
    return details.get("result", shape.live) if isinstance(details, dict) else shape.live


def inspection_shaped(shape: Shape) -> bool:
    """The result (unwrapped from Tool Search) is shaped like an inspection's: it names the inspection kind."""
    live = unwrapped(shape)
    details = live.get("details") if isinstance(live, dict) else None
    return isinstance(details, dict) and details.get("kind") is not None and "schemaVersion" in details


def in_h1_scope(sequence: HookSequence) -> bool:
    """Every event of the sequence is in H1's scope."""
    return all(event_in_h1_scope(event) for event in sequence.events)
