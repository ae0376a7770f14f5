"""The budget's monitor: every copy driven through one trace, each step judged by the one judge.

It keeps only the history the statements need (which features a trace has
used, admissions and double charges in the current streak, whether the trace
so far is lookups and rounds only, per-trace coverage flags). That history is
saved and restored through public methods (``save_history``,
``restore_history``, ``restore_history_maps``), so that the exhaustive
explorer can make it part of the state it deduplicates on and judge an edge
from any state without reaching into the monitor.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import attrs

from guard.budget import GLOBAL, RunProgressBudget
from guard.limits import Limits
from properties import work_bound
from properties.catalogue import Invariant, Tally, Violation
from properties.budget.copies import ALL_COPIES, FEATURE_FLAGS, SPEC_LIMITS, applier, new_copies
from properties.budget.events import Event, FirstCall, Result, Round
from properties.budget.invariants import BY_ID, CATALOGUE, FAILURE_ENDS_PROBES, Step, StepHistory, asked_flags, lane_of
from properties.budget.state import Snap, snap_production, snap_reference
from properties.judge import Judge


# -- the per-trace monitor ----------------------------------------------------

def runaway_message(error: work_bound.WorkBoundExceeded) -> str:
    """B6's message for a step that did not return within its bound.

    Choice (the spec names no invariant for it): a step that never returns
    stops the run never, and B6 is the seeds' promise that production stops
    a run at most one result later than the reference does; every other
    invariant needs the step's outcome to judge at all.
    """
    return f"{error.describe()}: the run can never stop, so it stops later than the reference by more than one result"


@attrs.define(slots=True)
class Monitor:
    """Drives every copy through one trace and checks every invariant at every step.

    It keeps only the history the statements need: which features a trace has
    used, admissions and double charges in the current streak, whether the
    trace so far is lookups and rounds only, and per-trace coverage flags.
    ``history()`` returns that history as a hashable value, so the exhaustive
    explorer can make it part of the state it deduplicates on.
    """

    limits: Limits
    tally: Tally
    budgets: dict[str, Any]
    invariants: tuple[Invariant, ...] = CATALOGUE
    #: How B13 observes a failure (see ``b13_failure_ends_exact``): "all" twelve probe copies per
    #: step, P's own next failure ("observed"), or "off".
    failure_ends_probes: str = "all"
    index: int = 0
    feature_used: dict[str, bool] = attrs.field(factory=lambda: {copy: False for copy in ("Pd", "Pr", "Pl")})
    admissions: dict[str, int] = attrs.field(factory=lambda: {"P": 0, "Pr": 0})
    streak_admissions: dict[str, int] = attrs.field(factory=lambda: {"P": 0, "Pr": 0})
    #: B9, per copy: where its streak stands against the reference's fuse: the no-lane failures it charged
    #: since its last reset (0 .. fuse), or fuse + 1 when the one that reached the fuse could have waited.
    streak_fuse: dict[str, int] = attrs.field(factory=lambda: {"P": 0, "Pr": 0})
    lookups_only: bool = True
    flags: set[str] = attrs.field(factory=set)
    appliers: dict[str, Callable[[Any, Event], bool]] = attrs.field(factory=dict)
    #: Take this step's "before" snapshots from the previous step's "after" ones. Only for a driver
    #: that touches the budgets through ``step`` alone (the bulk driver); anyone who restores or edits
    #: a budget between steps must leave it off.
    reuse_snapshots: bool = False
    #: The budgets are the real copies this monitor steps (a driver's, not the explorer's prototypes): B1 then
    #: also compares their memories (``StepHistory.live_budgets``). ``new_monitor`` turns it on.
    memories: bool = False
    _last_after: "dict[str, Snap] | None" = None
    #: The one judge of ``invariants`` (``properties.judge``), rebuilt whenever ``invariants`` is replaced.
    _judge: Any = None
    _judge_of: Any = None
    #: (name, budget, applier, snapshot function, predicts) for each copy of ``budgets``, rebuilt
    #: whenever ``budgets`` is replaced; ``predicts`` marks P when B13 observes P's own failures.
    _members: tuple = ()
    _first_production: int = 1
    _members_of: Any = None
    _none: dict = attrs.field(factory=dict)
    #: A step ran past its bound: the copies stopped half-way, so this trace is judged no further.
    ran_away: bool = False

    def __attrs_post_init__(self) -> None:
        # Checked here, not by an attrs validator: a validator would route every attribute write through
        # a Python-level __setattr__, and the monitor writes a few per step.
        if self.failure_ends_probes not in FAILURE_ENDS_PROBES:
            raise ValueError(f"failure_ends_probes must be one of {FAILURE_ENDS_PROBES}, not {self.failure_ends_probes!r}")
        if not self.appliers:
            self.appliers = {name: applier(name) for name in self.budgets}

    # history ------------------------------------------------------------

    def history(self) -> tuple:
        """The history as a hashable value (``save_history``; the explorer's states carry it)."""
        return (
            tuple(self.feature_used.values()),
            tuple(self.admissions.values()),
            tuple(self.streak_admissions.values()),
            tuple(self.streak_fuse.values()),
            self.lookups_only,
        )

    def save_history(self) -> tuple:
        """What ``restore_history`` takes back: the history as a hashable value."""
        return self.history()

    def restore_history(self, saved: tuple) -> None:
        """Set the history to ``saved`` (as ``save_history`` returned it); per-trace coverage flags start empty."""
        features, admissions, streak, fuse, lookups_only = saved
        self.feature_used = dict(zip(self.feature_used, features))
        self.admissions = dict(zip(self.admissions, admissions))
        self.streak_admissions = dict(zip(self.streak_admissions, streak))
        self.streak_fuse = dict(zip(self.streak_fuse, fuse))
        self.lookups_only = lookups_only
        self.flags = set()

    def restore_history_maps(self, maps: tuple) -> None:
        """``restore_history`` from the history's dictionaries, for a caller that keeps them per history to skip
        the zips (the explorer restores a history at every edge). Not copied: the monitor never writes into a
        history map, it replaces one whose value changes (``update_history``), so the caller's stay as they are."""
        self.feature_used, self.admissions, self.streak_admissions, self.streak_fuse, self.lookups_only = maps
        self.flags = set()

    # stepping -----------------------------------------------------------

    def _bind(self, budgets: dict[str, Any]) -> None:
        """Order the copies once per set of budgets (the explorer hands over a new set at every edge)."""
        needs_all = any(invariant.id != "B13" for invariant in self.invariants)
        if needs_all and set(budgets) != set(ALL_COPIES):
            raise ValueError(f"a monitor checking {[i.id for i in self.invariants]} needs the copies {ALL_COPIES}, got {tuple(budgets)}")
        order = [name for name in ALL_COPIES if name in budgets] + [name for name in budgets if name not in ALL_COPIES]
        observed = self.failure_ends_probes == "observed"
        self._members = tuple(
            (
                name, budgets[name], self.appliers[name],
                snap_production if isinstance(budgets[name], RunProgressBudget) else snap_reference,
                observed and name == "P",
            )
            for name in order
        )
        # The production rows are every row after the reference's (``order`` puts R first).
        self._first_production = 1 if order and order[0] == "R" else 0
        self._none = dict.fromkeys(order, False)
        self._members_of = budgets

    def step(self, event: Event) -> list[Violation]:
        """Deliver ``event`` to every copy and check every invariant; return the violations of this step.

        The step's work is bounded by counting (issue 25, ``properties.work_bound``): a copy whose step runs
        past ``work_bound.STEP_LOOPS`` loop iterations is reported as B6 violated at this step, and the trace ends
        there (every later step of this monitor is skipped: its copies stopped half-way through a step)."""
        if self.ran_away:
            return []
        saved = work_bound.push(work_bound.STEP_LOOPS, f"step {self.index} of the budget")
        try:
            return self.deliver_and_check(event)
        except work_bound.WorkBoundExceeded as error:
            self.ran_away = True
            found = [Violation("B6", self.index, runaway_message(error), BY_ID["B6"].title)]
            self.tally.violations.extend(found)
            self.tally.steps += 1
            self.index += 1
            return found
        except MemoryError as error:
            raise work_bound.exhausted(error) from None
        finally:
            work_bound.pop(saved)

    def deliver_and_check(self, event: Event) -> list[Violation]:
        budgets = self.budgets
        if self._members_of is not budgets:
            self._bind(budgets)
        before = self._last_after if self.reuse_snapshots else None
        if before is None:
            before = {name: take(budget) for name, budget, _apply, take, _predicts in self._members}
        is_result = isinstance(event, Result)
        # The event as a result, read only where ``is_result`` holds (no second isinstance on the hot path).
        result: Result = event  # type: ignore[assignment]
        call_id = result.call_id if is_result else None
        after = {}
        listed: list[tuple[Any, Snap, Any]] = []
        # Only a first call can be admitted (``properties.budget.copies.applier`` returns False for anything else),
        # so other events share one all-False map; no check writes to a step's maps.
        admitted = self._none
        failed = is_result and bool(result.failed)
        predicted = None
        if isinstance(call_id, str):
            # Each copy's memory is read before that copy receives the event (copies are independent).
            duplicate = {}
            fresh = {}
            usable = call_id != ""
            for name, budget, apply, take, predicts in self._members:
                seen = call_id in budget.seen_call_set
                duplicate[name] = seen
                old = before[name]
                observes = fresh[name] = usable and not seen and not old.terminal
                if predicts and failed and observes:
                    # B13: what P says about this failure before it observes it.
                    predicted = budget.failure_ends(result.lane, **asked_flags(result.correctable, result.empty_lookup))
                apply(budget, event)
                new = after[name] = take(budget)
                listed.append((name, old, new))
        else:
            duplicate = fresh = self._none
            if isinstance(event, FirstCall):
                admitted = {}
            for name, budget, apply, take, _predicts in self._members:
                if admitted is self._none:
                    apply(budget, event)
                else:
                    admitted[name] = apply(budget, event)
                new = after[name] = take(budget)
                listed.append((name, before[name], new))
        if self.reuse_snapshots:
            self._last_after = after
        self.update_history(event, before, after, admitted)
        index = self.index
        rows = tuple(listed)
        step = self.step_record(index, event, before, after, duplicate, admitted, fresh, failed, rows,
                                rows[self._first_production:], predicted)
        if self._judge_of is not self.invariants:
            self._judge = Judge(self.invariants)
            self._judge_of = self.invariants
        tally = self.tally
        found = self._judge(step, index, tally, self.count_coverage)
        tally.steps += 1
        self.index = index + 1
        return found

    def step_record(
        self, index: int, event: Event, before: dict[str, Snap], after: dict[str, Snap], duplicate: dict[str, bool],
        admitted: dict[str, bool], fresh: dict[str, bool], failed: bool, rows: tuple, production: tuple,
        predicted: "bool | None",
    ) -> Step:
        """The step the checks judge, with the history as it stands after ``update_history`` (the one place a
        budget step is made: ``deliver_and_check`` and the explorer's edges both build it here)."""
        history = StepHistory(
            self.limits, self.reference_fuse(), self.feature_used, self.admissions, self.streak_admissions, self.streak_fuse, self.lookups_only,
            self.failure_ends_probes, self.budgets.get("P"), self.budgets if self.memories else None,
        )
        return Step(index, event, before, after, duplicate, admitted, history, fresh, failed, rows, production, predicted)

    def update_history(self, event: Event, before: dict[str, Snap], after: dict[str, Snap], admitted: dict[str, bool]) -> None:
        """Bring the history past ``event``. A map whose value changes is replaced, never written into (copy on
        write): a step made earlier holds the maps of its own moment (``StepHistory``), and the explorer hands
        in maps it keeps per history (``restore_history_maps``)."""
        if isinstance(event, Result):
            used = self.feature_used
            changed = None
            if (event.correctable is True or event.corrected is True) and not used["Pd"]:
                changed = {**used, "Pd": True}
            # budget.md: a refusal kind counts only as a non-empty string; anything else is the flag omitted.
            refusal = event.correctable_refusal
            if isinstance(refusal, str) and refusal and not used["Pr"]:
                changed = {**(changed or used), "Pr": True}
            # Anything but an empty lookup (a failure with the flag) ends a lookups-only trace.
            if event.empty_lookup is True:
                if not used["Pl"]:
                    changed = {**(changed or used), "Pl": True}
                if not event.failed:
                    self.lookups_only = False
            else:
                self.lookups_only = False
            if changed is not None:
                self.feature_used = changed
        elif not isinstance(event, Round):
            self.lookups_only = False
        # B9: a failure with no lane counts toward the reference's fuse (a lane failure has its own fuse).
        toward_fuse = isinstance(event, Result) and bool(event.failed) and lane_of(event.lane) is None
        for copy in ("P", "Pr"):
            state = after.get(copy)
            if state is None:
                continue
            if admitted.get(copy):
                self.admissions = {**self.admissions, copy: self.admissions[copy] + 1}
                self.streak_admissions = {**self.streak_admissions, copy: self.streak_admissions[copy] + 1}
            if toward_fuse and state.failures == before[copy].failures + 1:
                self.count_toward_fuse(copy, event, before[copy])  # type: ignore[arg-type]  # a Result: toward_fuse
            # A streak ends when consecutive is back at 0 with no global charge waiting (at a fuse of 1 the
            # charge that waits leaves consecutive at 0 while the streak goes on).
            elif state.consecutive == 0 and state.deferred != GLOBAL:
                if self.streak_admissions[copy] or self.streak_fuse[copy]:
                    self.streak_admissions = {**self.streak_admissions, copy: 0}
                    self.streak_fuse = {**self.streak_fuse, copy: 0}

    def reference_fuse(self) -> int:
        """The reference's own consecutive-failure fuse (B9 counts against it, not P's limit); P's own limit for
        a monitor that drives no reference (B13's probe monitor checks nothing that reads it)."""
        reference = self.budgets.get("R")
        return (reference.limits if reference is not None else self.limits).consecutive_failures

    def count_toward_fuse(self, copy: str, event: Result, before: Snap) -> None:
        """B9: ``copy`` charged one more no-lane failure in its streak (see ``b9_one_failure_past_the_fuse``)."""
        fuse = self.reference_fuse()
        place = self.streak_fuse[copy]
        if place >= fuse:
            return
        place += 1
        # budget.md step 3: a charge may wait only at a correctable failure, nothing waiting, a deferral left.
        if (
            place == fuse
            and "correctable" in FEATURE_FLAGS[copy]
            and event.correctable is True
            and before.deferred is None
            and before.deferrals_used < self.limits.corrected_attempts
        ):
            place = fuse + 1
        self.streak_fuse = {**self.streak_fuse, copy: place}

    def count_coverage(self, step: Step) -> None:
        """This step's coverage counts (P and R only), after its checks and never by one (``properties.judge``)."""
        event, before, after, admitted = step.event, step.before, step.after, step.admitted
        coverage = self.tally.coverage
        p_before, p_after = before["P"], after["P"]
        if p_after.deferrals_used > p_before.deferrals_used:
            coverage["deferrals"] += 1
        if _rescued(event, p_before, p_after, self.limits):
            coverage["rescues"] += 1
        if admitted.get("P"):
            coverage["admissions"] += 1
        limits = self.limits
        if (
            isinstance(event, Result)
            and event.failed
            and event.empty_lookup is True
            and "13th" not in self.flags
            and not p_before.terminal
            and p_before.free_used >= limits.free_empty_lookups
            and p_after.failures == p_before.failures + 1
        ):
            self.flags.add("13th")
            coverage["runs reaching the 13th empty lookup"] += 1
        r_before, r_after = before["R"], after["R"]
        if r_after.terminal and not r_before.terminal:
            if isinstance(event, Round) and "rounds" not in self.flags:
                self.flags.add("rounds")
                coverage["runs stopped by the rounds cap"] += 1
        if (
            p_after.terminal
            and not p_before.terminal
            and p_after.failures >= limits.total_failures
            and p_before.consecutive == limits.consecutive_failures - 1
            and "total3" not in self.flags
        ):
            self.flags.add("total3")
            coverage["runs stopped by the total cap at consecutive 3"] += 1


def _rescued(event: Event, before: Snap, after: Snap, limits: Limits) -> bool:
    """P's waiting charge was forgiven at this step: a success took it away without charging it (B7's rescue).

    Counted here, beside the checks and never by one (B7 only judges), so that
    checking fewer invariants never changes a coverage count.
    """
    waiting = before.deferred
    if waiting is None or before.terminal or after.deferred is not None:
        return False
    if not isinstance(event, Result) or event.failed:
        return False
    if waiting == GLOBAL:
        return not (after.terminal and after.consecutive >= limits.consecutive_failures)
    return waiting not in after.exhausted


def new_monitor(
    tally: Tally, only: "Sequence[Invariant] | None" = None, *, limits: "Limits | None" = None,
    budgets: "dict[str, Any] | None" = None, **options: Any,
) -> Monitor:
    """A monitor checking ``only`` (None: the whole catalogue) that counts one trace in ``tally``.

    The signature every subject's ``new_monitor`` shares (``tally, only``); the budget's own keywords:
    ``limits`` (default the spec's), ``budgets`` (default fresh copies with those limits,
    ``properties.budget.copies.new_copies``) and any other ``Monitor`` field."""
    limits = SPEC_LIMITS if limits is None else limits
    if budgets is None:
        budgets = new_copies(limits)
    # A monitor made here steps real copies (every driver's, the replays' and the counterexamples'), so B1 compares
    # their memories too; the explorer builds its own monitors around prototypes and leaves this off.
    options.setdefault("memories", True)
    if only is not None:
        options["invariants"] = tuple(only)
    tally.traces += 1
    return Monitor(limits=limits, tally=tally, budgets=budgets, **options)
