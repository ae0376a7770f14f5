"""The hook path's monitor: G and M (and H3's oracle) driven through one sequence, each step judged by the one judge."""

from __future__ import annotations

from typing import Any, Sequence, cast

import attrs

from guard.hooks import ToolLoopGuard
from properties import work_bound
from properties.catalogue import Invariant, Tally, Violation
from properties.hooks.deliver import GuardState, HookRecord, deliver, guard_state, make_guard, memories
from properties.budget.state import memories as budget_memories
from properties.hooks.earlier_stop import EarlierStop, reference_budget
from properties.hooks.earlier_view import EarlierView, follow_earlier
from properties.hooks.events import AFTER, PERSIST, Call, Cancel, HookEvent, HookSequence, ModelCall
from guard.inspection import INSPECTION_TOOL
from properties.hooks.invariants import BY_ID, CATALOGUE, HookStep, event_in_h1_scope, inspection_shaped
from properties.hooks.spec_playground import names_a_read, write_binds_new_project, written_path
from properties.hooks.spec_router import GATED_TOOLS, PROJECT_PATH, READ_TOOLS, RouterExpectation, called_tool, expect_router
from properties.hooks.shapes import STOP_HEAD, Shape, call_shape, host_edits, kind_error, kind_parts, nested_containers, rewrite_form
from properties.judge import Judge
from properties.subject import Partings
from guard.finalization import PENDING

#: Issue 24 part 4: the ways production may part from the reference on a sequence, and the stop it shares with
#: it, as a vacuous invariant's report names them (``properties.report.vacuity_explained``).
SAME_STOP = "the reference's stop, nothing pending"
PARTINGS = Partings(ways=("an admission", "a deferral", "a free empty lookup"), same=SAME_STOP,
                    same_phrase="a receipt stopped stopped as the reference did, nothing pending")


# -- the monitor ----------------------------------------------------------------


def records_kept(guard: ToolLoopGuard) -> int:
    """Entries in every container the guard and its budget hold (pending calls, refusal kinds, paths read, ...).

    Read generically, field by field, so that a container a change adds is bounded too."""
    total = 0
    # No cache of the field names: a branch taken only on the first sequence would make a fuzzer's replay of it
    # run other code than the first run did (HypoFuzz then calls the example unstable).
    for owner in (guard, guard.budget):
        for field in attrs.fields(type(owner)):
            value = getattr(owner, field.name)
            if isinstance(value, (dict, list, set, tuple, frozenset)):
                total += len(value)
    return total


def records_bound(hook_calls: int) -> int:
    """The records a guard may keep after ``hook_calls`` hook calls: hooks.md's path keeps at most one pending
    call, one refusal kind and one path read per tool call (four hook calls), and the budget's memories are
    capped by its limits (64 ids, 32 fingerprints); 2 per hook call plus 200 is a margin of over 2x."""
    return 2 * hook_calls + 200


def runaway_message(what: str) -> str:
    """H3's message for a hook step past its bound.

    Choice (hooks.md names no invariant for it): a hook that never returns,
    or that records without bound, never delivers the reference's stop (one
    refusal, its text, one abort), which is what H3 promises; the other
    hook invariants need the step's records to judge at all."""
    return f"{what}: the hook path never delivers the reference's stop"


@attrs.define
class HookMonitor:
    """Drives G and M (and H3's oracle) through one sequence and checks every invariant at every step."""

    tally: Tally
    invariants: tuple[Invariant, ...] = CATALOGUE
    guards: dict[str, ToolLoopGuard] = attrs.field(factory=dict)
    in_h1_scope: bool = True
    strict_stop: bool = False
    #: The sequence's workspace root, as the generator configured the guards (H5 reads it, never ``guard.root``).
    root: "str | None" = None
    #: The run's consecutive-failure fuse (``start`` reads it off the sequence's limits).
    fuse: int = 4
    #: The run's rounds-without-progress limit (``start`` reads it off the sequence's limits; H5 reads it).
    round_cap: int = 8
    #: An earlier inspection call of this run may still be pending uncounted, so a record under an id no call
    #: has could fit it: which call keeps such a record is then not judged (``HookStep.record_kept``).
    uncounted_inspections: dict[str, bool] = attrs.field(factory=dict)
    #: An admission happened in G so far (H3 compares stops only while none did).
    admitted: bool = False
    #: The call id whose receipt stopped G's run (None: none, or a model call stopped it).
    tripped: Any = None
    index: int = 0
    #: Each guard's state after the last step (the next step's "before"; only ``step`` touches the guards).
    last: dict[str, GuardState] = attrs.field(factory=dict)
    #: Since G's run last stopped by a trip: model calls, and whether a refused boundary has shown it anything.
    model_calls_since_trip: int = 0
    shown_since_trip: bool = False
    #: The owner cancelled this run (nothing re-opens it, nothing more is shown but the stop).
    cancelled: bool = False
    #: Hook calls delivered to G in this sequence (what bounds the records it may keep).
    hook_calls: int = 0
    #: A step ran past its bound: the guards stopped half-way, so this sequence is judged no further.
    ran_away: bool = False
    #: H3's oracle for this sequence; None once an allowance applied in G (H3 then judges no further).
    earlier: "EarlierStop | None" = None
    #: The finalization instruction's text, as first shown (kept across sequences: one text at every trip).
    instruction_seen: "str | None" = None
    #: Model calls since the last tool call (coverage only: a trip that model calls just preceded).
    model_calls_in_a_row: int = 0
    #: Paths of the reads G let through while Playground routing was active, in order: what H5's restatement of
    #: "names a file read earlier in the run" reads (the harness's own list, never the guard's ``read_paths``).
    read_paths: list[str] = attrs.field(factory=list)
    #: The one judge of ``invariants`` (``properties.judge``), made at the first step.
    _judge: "Judge | None" = None

    def start(self, sequence: HookSequence) -> None:
        """Fresh guards for a new sequence (its setting; its events come one by one through ``step``)."""
        self.guards = {"G": make_guard(sequence), "M": make_guard(sequence)}
        self.earlier = EarlierStop(sequence.strict_stop, budget=reference_budget(sequence.limits))
        self.in_h1_scope = True
        self.admitted = False
        self.tripped = None
        self.index = 0
        self.last = {}
        self.model_calls_since_trip = 0
        self.shown_since_trip = False
        self.cancelled = False
        self.hook_calls = 0
        self.ran_away = False
        self.model_calls_in_a_row = 0
        self.read_paths = []
        self.strict_stop = sequence.strict_stop
        self.root = sequence.root
        # budget.md's fuse of 4, unless the sequence scales it down (H2 reads it).
        self.fuse = dict(sequence.limits).get("consecutive_failures", 4)
        # budget.md's 8 rounds without progress, unless the sequence scales it down (H5 reads it).
        self.round_cap = dict(sequence.limits).get("rounds_without_progress", 8)
        self.uncounted_inspections = {"G": False, "M": False}
        self.tally.traces += 1

    def finish(self, sequence: HookSequence) -> None:
        """The sequence is over: count the order it was delivered in."""
        policy = sequence.order_policy
        if policy == AFTER:
            self.tally.coverage["sequences delivered after-first"] += 1
        elif policy == PERSIST:
            self.tally.coverage["sequences delivered persist-first"] += 1
        elif policy == "mixed":
            self.tally.coverage["sequences delivered in mixed order"] += 1

    def check(self, sequence: HookSequence) -> list[Violation]:
        """Run a whole sequence; the violations of its first failing step (empty when every step held)."""
        self.start(sequence)
        for event in sequence.events:
            found = self.step(event)
            if found:
                return found
        self.finish(sequence)
        return []

    def _expect_admit(self, event: HookEvent) -> "bool | None":
        """H5's expectation for ``event`` on G, read before it is delivered (None: no correction pends)."""
        guard = self.guards["G"]
        budget = guard.budget
        if not isinstance(event, Call) or event.binding == "no_before" or not budget.terminal or budget.correction is None:
            return None
        shape = call_shape(event.kind, event.index)
        routing = guard.routing
        return (
            guard.finalization.phase == PENDING
            # Seed 002: a forfeited answer turn (two model calls since the trip) admits nothing.
            and self.model_calls_since_trip < 2
            and event.binding in ("bound", "rewritten", "other_tool")
            and routing is not None
            and routing.initialized is True
            # classifiers.md, restated in the harness (never production's binds_new_project).
            and write_binds_new_project(shape.tool, shape.params, routing, self.root, self.read_paths)
        )

    def _expect_router(self, event: HookEvent) -> "RouterExpectation | None":
        """H12's expectation of the router for ``event`` on G, read before it is delivered (None: no call reaches
        ``before_tool_call``, or Playground routing is not active)."""
        if not isinstance(event, Call) or event.binding == "no_before":
            return None
        routing = self.guards["G"].routing
        if routing is None or routing.initialized is not True:
            return None
        shape = call_shape(event.kind, event.index)
        return expect_router(shape.tool, shape.params, routing, self.root)

    def _note_read(self, event: HookEvent, router: "RouterExpectation | None", records: list[HookRecord]) -> None:
        """After a call G let through while routing was active: a read's path joins the run's reads (H5)."""
        if router is None or not isinstance(event, Call):
            return
        decision = next((record.decision for record in records if record.hook == "before_tool_call"), None)
        if decision is None or decision.block:
            return
        shape = call_shape(event.kind, event.index)
        real, args = called_tool(shape.tool, shape.params)
        path = args.get("path") if real in READ_TOOLS and isinstance(args, dict) else None
        if isinstance(path, str):
            self.read_paths.append(path)

    def step(self, event: HookEvent) -> list[Violation]:
        """Deliver ``event`` to G and M (and H3's oracle) and check every invariant; the violations of this step.

        Bounded by counting (issue 25): a hook that loops past ``work_bound.STEP_LOOPS`` iterations, or a
        guard that keeps more records than ``records_bound`` allows for the hook calls delivered so far, is H3
        violated at this step (``runaway_message``); the sequence is judged no further after a runaway."""
        if self.ran_away:
            return []
        saved = work_bound.push(work_bound.STEP_LOOPS, f"step {self.index} of the hook path")
        try:
            found = self.deliver_and_check(event)
        except work_bound.WorkBoundExceeded as error:
            return self.runaway(error.describe())
        except MemoryError as error:
            raise work_bound.exhausted(error) from None
        finally:
            work_bound.pop(saved)
        kept, bound = records_kept(self.guards["G"]), records_bound(self.hook_calls)
        if kept > bound and not found:
            return self.runaway(f"the guard keeps {kept:,} records after {self.hook_calls:,} hook calls, more than "
                                f"the {bound:,} they can leave (it records without bound)")
        return found

    def runaway(self, what: str) -> list[Violation]:
        self.ran_away = True
        found = [Violation("H3", self.index, runaway_message(what), BY_ID["H3"].title)]
        self.tally.violations.extend(found)
        self.tally.steps += 1
        self.index += 1
        return found

    def deliver_and_check(self, event: HookEvent) -> list[Violation]:
        guards = self.guards
        expect = self._expect_admit(event)
        router = self._expect_router(event)
        # H1's scope ends at the first receipt it does not cover (the states legitimately part from there on).
        self.in_h1_scope = self.in_h1_scope and event_in_h1_scope(event)
        start = {}
        records = {}
        for name, guard in guards.items():
            previous = self.last.get(name)
            start[name] = state = previous if previous is not None else guard_state(guard)
            delivered = event.flipped() if name == "M" and isinstance(event, Call) else event
            records[name] = hook_records = deliver(guard, delivered, state)
            self.last[name] = hook_records[-1].state if hook_records else state
        self.hook_calls += len(records["G"])
        tripped_by = []
        shown = []
        tripped = self.tripped
        calls_since_trip, shown_since_trip, cancelled = self.model_calls_since_trip, self.shown_since_trip, self.cancelled
        for record in records["G"]:
            if record.hook == "owner_cancel":
                cancelled = True
            if record.before is not None and not record.before.budget.terminal and record.state.budget.terminal:
                tripped = record.counted[-1][0] if record.counted else None
                calls_since_trip, shown_since_trip = 0, False
            elif record.hook == "model_call":
                calls_since_trip += 1
            tripped_by.append(tripped)
            # H10: what a refused boundary of a stopped run must show (None: this hook is no such boundary).
            to_show = None
            if (
                record.hook == "before_tool_call" and record.before is not None and record.before.budget.terminal
                and record.decision is not None
                and record.decision.block and not record.admitted
            ):
                to_show = "instruction" if not (shown_since_trip or cancelled or self.strict_stop) else "stop"
                shown_since_trip = True
            shown.append(to_show)
        shape = call_shape(event.kind, event.index) if isinstance(event, Call) else None
        earlier = follow_earlier(self.earlier, records["G"], event) if self.earlier is not None else None
        step = HookStep(
            self.index, event, records, start, {name: memories(guard) for name, guard in guards.items()}, shape,
            expect, tripped_by, self.in_h1_scope, self.admitted, self.instruction_seen, shown, earlier,
            {name: self.record_expected(event, hooks, self.uncounted_inspections[name]) for name, hooks in records.items()},
            router, guards["G"].routing, self.model_calls_since_trip, self.fuse,
            budget_memories(self.earlier.budget) if earlier is not None and self.earlier is not None else None,
            self.round_cap,
        )
        tally = self.tally
        if self._judge is None or self._judge.invariants != self.invariants:
            self._judge = Judge(self.invariants)
        found = self._judge(step, self.index, tally, self.count_coverage)
        # History for the next step, after the checks (they read the history as it was before this step).
        self.tripped = tripped
        self.model_calls_since_trip, self.shown_since_trip, self.cancelled = calls_since_trip, shown_since_trip, cancelled
        self.admitted = self.admitted or any(record.admitted for record in records["G"])
        self.note_uncounted(event, records)
        self._note_read(event, router, records["G"])
        self.retire_earlier(records["G"], earlier)
        tally.steps += 1
        self.index += 1
        return found

    @staticmethod
    def record_expected(event: HookEvent, records: list[HookRecord], uncounted: bool) -> "bool | None":
        """Whether the record a guard's ``record_tool_result`` got at this call is kept for this call (False when none
        was sent; None when it cannot be told, see ``HookStep.record_kept``). hooks.md: a record is for "the
        exact pending call" (this run and session, the inspection tool, deep-equal args; the record's args are
        the call's own), never a nested child's; guard/hooks.py's documented rule: under an id that is no
        pending call, the one uncounted Tool Search parent that fits, and nothing when several do."""
        if not isinstance(event, Call) or not any(record.hook == "record_tool_result" for record in records):
            return False
        shape = call_shape(event.kind, event.index)
        fits = leaves_fitting_entry(event, shape)
        if event.record_id == "nested":
            return False
        if event.record_id == "own" and event.binding not in ("no_before", "unusable_id"):
            return fits
        if uncounted:
            return None
        return fits and shape.tool == "tool_call"

    def note_uncounted(self, event: HookEvent, records: dict[str, list[HookRecord]]) -> None:
        """After a call that left a pending inspection entry a later record could fit: did a receipt under its
        id reach the budget in both guards (the guard marks the entry counted then)? If not, records under ids
        no call has are judged no further in this sequence."""
        if not isinstance(event, Call) or not leaves_fitting_entry(event, call_shape(event.kind, event.index)):
            return
        for name, hooks in records.items():
            if not any(entry[0] == event.call_id for record in hooks for entry in record.counted):
                self.uncounted_inspections[name] = True

    def retire_earlier(self, records: list[HookRecord], earlier: "list[EarlierView] | None") -> None:
        """After a step: keep the instruction's first text, and drop H3's oracle once an allowance applied in G."""
        if earlier is None:
            return
        for record, view in zip(records, earlier):
            if view.refusal is not None and view.refusal.shows == "instruction" and self.instruction_seen is None:
                reason = record.decision.block_reason if record.decision is not None else None
                if isinstance(reason, str) and reason and not reason.startswith(STOP_HEAD):
                    self.instruction_seen = reason
        end = records[-1].state.budget if records else None
        if self.admitted or (end is not None and (end.deferrals_used or end.free_used)):
            # Issue 24 part 4: the first step of this sequence where an allowance made production part from the
            # reference; a vacuous invariant's report names the shortest one (or says there was none).
            what = "an admission" if self.admitted else "a deferral" if end is not None and end.deferrals_used \
                else "a free empty lookup"
            self.tally.note_parting(what, self.index + 1, f"at step {self.index} ({_event_text(records)})")
            self.earlier = None
            return
        stopped = [(record, view) for record, view in zip(records, earlier)
                   if record.before is not None and not record.before.budget.terminal and record.state.budget.terminal
                   and record.counted]  # a receipt's trip: a cancel or a model round is not the allowances' business
        if stopped and stopped[0][1].stopped and stopped[0][0].state.budget.correction is None:
            self.tally.note_parting(SAME_STOP, self.index + 1,
                                    f"at step {self.index} ({stopped[0][0].hook})")

    def count_coverage(self, step: HookStep) -> None:
        """This step's coverage counts (G only): separate from the checks, so ``--only`` never changes them."""
        coverage = self.tally.coverage
        records = step.records["G"]
        begin = step.start["G"].budget
        end = records[-1].state.budget if records else begin
        if end.deferrals_used > begin.deferrals_used:
            coverage["deferrals through the hooks"] += 1
        if any(record.admitted for record in records):
            coverage["admissions"] += 1
        event = step.event
        if isinstance(event, ModelCall) and begin.terminal and begin.correction is not None and end.correction is None:
            coverage["forfeited turns"] += 1
        elif isinstance(event, Cancel):
            coverage["owner cancels"] += 1
        elif isinstance(event, Call):
            if event.binding == "nested":
                coverage["nested-child receipts"] += 1
            elif event.binding == "unusable_id" and any(r.counted for r in records):
                coverage["receipts under an unusable call id"] += 1
                if event.kind == "remedy" and begin.terminal and begin.correction is not None:
                    coverage["remedies under an unusable call id after a trip"] += 1
            shape = cast(Shape, step.shape)  # a call's step always has its shape
            refused = any(r.decision is not None and r.decision.block for r in records)
            kept = any(r.hook == "record_tool_result" and r.returned is True for r in records)
            if event.capped and shape.persisted is not shape.live and not refused:
                coverage["capped copies with a record" if kept else "capped copies without a record"] += 1
            base, _tool, wrapped, own = kind_parts(event.kind)
            counted = any(r.counted for r in records)
            if counted and shape.real_tool != INSPECTION_TOOL and inspection_shaped(shape):
                coverage["inspection-shaped results from other tools"] += 1
            if counted and shape.real_tool == INSPECTION_TOOL and not inspection_shaped(shape):
                coverage["inspection tool with other results"] += 1
            if counted and wrapped:
                coverage["direct kinds through Tool Search"] += 1
            if base == "remedy_rooted" and self.root is not None and any(record.admitted for record in records):
                coverage["remedies admitted by their absolute path"] += 1
            if event.record_id == "nested" and any(r.hook == "record_tool_result" for r in records):
                coverage["records under a nested child's id"] += 1
            if event.record_id in ("foreign", "unhashable") and kept:
                coverage["records kept under an id no call has"] += 1
            if counted and base == "lookup_error":
                coverage["searches exiting 1 with an error line"] += 1
                live = shape.live.get("content") if isinstance(shape.live, dict) else None
                if isinstance(live, list) and len(live) > 1:
                    coverage["search errors in a second text part"] += 1
            if host_edits(event.index) and counted and event.binding != "no_before" and nested_containers(shape.params):
                coverage["params the host emptied after handing them over"] += 1
            if host_edits(event.index) and kept and nested_containers(shape.record):
                coverage["records the host emptied after handing them over"] += 1
            if event.binding == "rewritten" and any(r.hook == "after_tool_call" and r.counted for r in records):
                form = rewrite_form(shape.params, event.index)
                if form != "key":
                    coverage[f"rewritten params with a list made {form if form == 'longer' else 'a tuple'}"] += 1
            if counted and base in ODD_COVERAGE:
                coverage[ODD_COVERAGE[base]] += 1
            if counted and base == "passed_error_receipt" and shape.record is not shape.live and kept:
                coverage["kept records their receipt contradicts"] += 1
            if kind_error(event.kind) is not None and any(r.hook == "after_tool_call" and r.counted for r in records):
                coverage["events carrying an error"] += 1
            if (base == "remedy" and begin.terminal and begin.correction is not None
                    and write_path_read(shape, self.root, self.read_paths)):
                coverage["remedies written to a file read earlier"] += 1
            router = step.router
            if router is not None and not begin.terminal and router.routing.binding is None:
                # H12's forms (issue 24): what the router decides before the first project file, each reached.
                if router.kind == PROJECT_PATH:
                    coverage["writes the router refuses as bare, generic or unusable"] += 1
                elif router.binding is not None:
                    remedy = write_binds_new_project(shape.tool, shape.params, router.routing, self.root, ())
                    coverage["first writes binding a project" if remedy else "first writes the router binds that are no remedy"] += 1
                elif router.kind is None and called_tool(shape.tool, shape.params)[0] in GATED_TOOLS:
                    coverage["version probes run before the first project file"] += 1
            if refused and own and counted:
                coverage["refused calls with their own receipt"] += 1
                if base == "lookup":
                    coverage["refused searches reading nothing found"] += 1
        if isinstance(event, ModelCall):
            self.model_calls_in_a_row += 1
        elif isinstance(event, Call):
            if not begin.terminal and end.terminal and self.model_calls_in_a_row:
                coverage["trips after model calls"] += 1
            self.model_calls_in_a_row = 0


#: Issue 24: the coverage count of each kind drawn with values hooks.md leaves open (``shapes.ODD_KINDS``), counted
#: when its receipt reached the budget.
ODD_COVERAGE = {
    "odd_receipt": "receipts that are no object",
    "odd_details": "receipts whose details are no object",
    "odd_args": "search arguments that are no object",
    "odd_content": "searches whose content holds no text part",
}


#: Bindings whose before_tool_call leaves no pending entry a record can fit: none made, a nested child's, or
#: another run's or session's.
NO_FITTING_ENTRY = frozenset({"no_before", "nested", "other_run", "other_session", "unusable_id"})


def leaves_fitting_entry(call: Call, shape: Shape) -> bool:
    """The call's before_tool_call leaves a pending entry a record can fit: this run and session, not a nested
    child, the inspection tool (``record_expected`` and ``note_uncounted`` must agree on it)."""
    return call.binding not in NO_FITTING_ENTRY and shape.real_tool == INSPECTION_TOOL


def write_path_read(shape: Shape, root: "str | None", read_paths: list[str]) -> bool:
    """The call writes a path the run read earlier (``spec_playground.names_a_read``)."""
    path = written_path(shape.tool, shape.params)
    return path is not None and names_a_read(path, root, read_paths)


def _event_text(records: list[HookRecord]) -> str:
    """The hooks a step ran, for a parting's description."""
    return ", ".join(record.hook for record in records) or "no hook"


def new_monitor(tally: Tally, only: "Sequence[Invariant] | None" = None) -> HookMonitor:
    return HookMonitor(tally, tuple(only) if only is not None else CATALOGUE)
