"""The catalogue of named invariants, written once and checked by every driver.

Each invariant is a documented predicate over one step of a trace: the event,
every copy's state before and after it, and the little history the statement
needs (kept in ``Monitor``). A driver never checks anything itself; it hands
each step to ``Monitor.step`` and reads the verdicts from the shared
``Tally``. The ids and statements restate ``shared/spec/invariants.md`` (B1 to
B13); the seed each comes from is named in ``CATALOGUE``.

Every check returns whether its antecedent held (the step *exercised* it) and
a violation message or ``None``. A step that only *checked* an invariant whose
antecedent was false proves nothing about it; an invariant never exercised in
a run is reported vacuous and fails the run.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

import attrs

from guard.budget import GLOBAL, RunProgressBudget
from guard.limits import Limits
from properties.copies import FEATURE_FLAGS, PRODUCTION_COPIES, applier
from properties.events import Event, FirstCall, Result, Round, Stop
from reference.budget import DISCOVERY_TOOLS

LANE_NAMES = ("workspace", "extension")


# -- snapshots -----------------------------------------------------------


# Not frozen only because a frozen attrs __init__ costs four times as much and a
# driver takes fourteen snapshots per step; nothing mutates a Snap after snap() builds it.
@attrs.define(slots=True, eq=True, unsafe_hash=True)
class Snap:
    """One copy's observable state; the reference leaves the production-only fields at their defaults."""

    terminal: bool
    rounds: int
    failures: int
    consecutive: int
    workspace: int
    extension: int
    exhausted: frozenset
    deferred: str | None = None
    deferrals_used: int = 0
    correction: str | None = None
    kinds: frozenset = frozenset()
    free_used: int = 0

    @property
    def counters(self) -> tuple:
        """What B1 compares: the stop, the exhausted lanes and every shared counter."""
        return (self.terminal, self.rounds, self.failures, self.consecutive, self.workspace, self.extension, self.exhausted)

    @property
    def pending_correction(self) -> str | None:
        return self.correction if self.terminal else None


_NONE: frozenset = frozenset()


def snap(budget: Any) -> Snap:
    lanes = budget.lane_failures
    exhausted = frozenset(budget.exhausted_lanes) if budget.exhausted_lanes else _NONE
    if type(budget) is RunProgressBudget or isinstance(budget, RunProgressBudget):
        kinds = budget.corrected_kinds
        return Snap(
            budget.terminal, budget.rounds, budget.failures, budget.consecutive,
            lanes["workspace"], lanes["extension"], exhausted,
            budget.deferred, budget.deferrals_used, budget.correction,
            frozenset(kinds) if kinds else _NONE, budget.free_lookups_used,
        )
    return Snap(
        budget.terminal, budget.rounds, budget.failures, budget.consecutive,
        lanes["workspace"], lanes["extension"], exhausted,
    )


def lane_of(lane: Any) -> str | None:
    return lane if isinstance(lane, str) and lane in LANE_NAMES else None


def lane_count(state: Snap, lane: str) -> int:
    return state.workspace if lane == "workspace" else state.extension


# -- one step, as the checks see it --------------------------------------


@attrs.define(slots=True)
class Step:
    """Everything an invariant may read about one step of one trace."""

    index: int
    event: Event
    before: dict[str, Snap]
    after: dict[str, Snap]
    #: Per copy: whether the event's call id was already in that copy's memory (results only).
    duplicate: dict[str, bool]
    admitted: dict[str, bool]
    monitor: "Monitor"
    #: Per copy: ``observed(copy)``, computed once per step by the monitor (None: compute on demand).
    fresh: "dict[str, bool] | None" = None

    def flag(self, copy: str, name: str) -> Any:
        """The value of one of the seeds' flags as the copy ``copy`` received it."""
        event = self.event
        if copy == "R" or name not in FEATURE_FLAGS[copy]:
            return None if name == "correctable_refusal" else False
        return getattr(event, name)

    def observed(self, copy: str) -> bool:
        """The copy counted this receipt: a result with a usable, fresh id while open."""
        if self.fresh is not None:
            return self.fresh[copy]
        event = self.event
        return (
            isinstance(event, Result)
            and not self.before[copy].terminal
            and isinstance(event.call_id, str)
            and bool(event.call_id)
            and not self.duplicate[copy]
        )

    def neutral(self, copy: str) -> bool:
        """For this copy: a model round, a first call, an ignored receipt, a discovery success or a free lookup."""
        event = self.event
        if isinstance(event, (Round, FirstCall)):
            return True
        if isinstance(event, Stop):
            return False
        if not self.observed(copy) or self.free_lookup(copy):
            return True
        return not event.failed and (bool(event.discovery) or event.tool in DISCOVERY_TOOLS)

    def free_lookup(self, copy: str) -> bool:
        """The copy observed an empty lookup while it still had allowance (seed 000)."""
        return (
            self.observed(copy)
            and bool(self.event.failed)
            and self.flag(copy, "empty_lookup") is True
            and self.before[copy].free_used < self.monitor.limits.free_empty_lookups
        )


#: What a check returns: (exercised, violation message or None).
Outcome = tuple[bool, "str | None"]


# -- the invariants ------------------------------------------------------


def b1_stripped_equals_reference(step: Step) -> Outcome:
    """P0 equals R at every step; so does each per-feature copy while its feature's flags are absent."""
    reference = step.after["R"].counters
    exercised = False
    for copy in ("P0", "Pd", "Pr", "Pl"):
        if copy != "P0" and step.monitor.feature_used[copy]:
            continue
        exercised = True
        if step.after[copy].counters != reference:
            return True, f"{copy} differs from R: {step.after[copy].counters} vs {reference}"
    return exercised, None


def b2_never_stops_earlier(step: Step) -> Outcome:
    """A production copy is terminal only when the reference is (every copy receives every stop())."""
    exercised = False
    reference_stopped = step.after["R"].terminal
    for copy in PRODUCTION_COPIES:
        if step.after[copy].terminal:
            exercised = True
            if not reference_stopped:
                return True, f"{copy} stopped while R is open"
    return exercised, None


def b3_no_lane_earlier(step: Step) -> Outcome:
    """While R is open, production's exhausted lanes are a subset of R's."""
    reference = step.after["R"]
    if reference.terminal:
        return False, None
    exercised = False
    for copy in PRODUCTION_COPIES:
        lanes = step.after[copy].exhausted
        if lanes:
            exercised = True
            if not lanes <= reference.exhausted:
                return True, f"{copy} exhausted {sorted(lanes)} while R has {sorted(reference.exhausted)}"
    return exercised, None


def b4_total_never_deferred(step: Step) -> Outcome:
    """Every charged failure adds one to the total in its own step; reaching the cap stops at once."""
    total = step.monitor.limits.total_failures
    exercised = False
    for copy in PRODUCTION_COPIES:
        before, after = step.before[copy], step.after[copy]
        charged = step.observed(copy) and bool(step.event.failed) and not step.free_lookup(copy)
        if after.failures != before.failures + int(charged):
            return True, f"{copy} total went {before.failures} -> {after.failures}, expected +{int(charged)}"
        if charged:
            exercised = True
            if after.failures >= total and not after.terminal:
                return True, f"{copy} reached {after.failures} failures and is still open"
    return exercised, None


def _would_trip(state: Snap, counter: str, limit: int) -> bool:
    """The charge would take its counter to the fuse (see ``guard/budget.py``'s note on re-opened runs)."""
    if counter == GLOBAL:
        return state.consecutive == limit - 1
    return counter not in state.exhausted and lane_count(state, counter) + 1 >= limit


def b5_bounded_deferrals(step: Step) -> Outcome:
    """One charge waits at most, two per run at most, and a charge waits exactly when a correctable failure meets the fuse.

    "Exactly": a correctable failure whose charge would trip its fuse, while
    nothing waits and allowance is left, must wait (seed 001's "the run stays
    alive for the one attempt"); any other failure must not.
    """
    limits = step.monitor.limits
    exercised = False
    for copy in PRODUCTION_COPIES:
        before, after = step.before[copy], step.after[copy]
        if after.deferrals_used > limits.corrected_attempts:
            return True, f"{copy} used {after.deferrals_used} deferrals"
        started = after.deferrals_used != before.deferrals_used
        if not started and _owed_a_wait(step, copy, before, limits):
            return True, f"{copy} charged a correctable failure at the fuse with allowance left"
        if not started:
            if after.deferred is not None and after.deferred != before.deferred:
                return True, f"{copy} began waiting on {after.deferred} without spending an allowance"
            continue
        exercised = True
        event = step.event
        counter = lane_of(event.lane) or GLOBAL if isinstance(event, Result) else None
        if (
            after.deferrals_used != before.deferrals_used + 1
            or before.deferred is not None
            or after.deferred != counter
            or not step.observed(copy)
            or not event.failed
            or step.flag(copy, "correctable") is not True
            or not _would_trip(before, counter, limits.consecutive_failures)
        ):
            return True, f"{copy} deferred {after.deferred!r} at {event!r} from {before!r}"
    return exercised, None


def _owed_a_wait(step: Step, copy: str, before: Snap, limits: Limits) -> bool:
    """The step is a correctable, charged failure at its fuse, with nothing waiting and allowance left."""
    event = step.event
    if not (step.observed(copy) and event.failed and step.flag(copy, "correctable") is True):
        return False
    if step.free_lookup(copy) or before.deferred is not None or before.deferrals_used >= limits.corrected_attempts:
        return False
    return _would_trip(before, lane_of(event.lane) or GLOBAL, limits.consecutive_failures)


def _differs(reference: Snap, other: Snap) -> bool:
    """Two runs differ while either is open and their stops, lanes or counters disagree; two stopped runs agree."""
    if reference.terminal and other.terminal:
        return False
    return reference.terminal != other.terminal or reference.counters != other.counters


def b6_one_result_later(step: Step) -> Outcome:
    """For Pu, a difference from R opens only at a correctable failure and closes at the next non-neutral result."""
    was = _differs(step.before["R"], step.before["Pu"])
    now = _differs(step.after["R"], step.after["Pu"])
    if not was and not now:
        return False, None
    if not was:
        ok = step.observed("Pu") and bool(step.event.failed) and step.event.correctable is True
        return True, None if ok else "Pu differs from R after a step that was not a correctable failure"
    if now and not step.neutral("Pu"):
        return True, "Pu still differs from R after the next non-neutral result"
    return True, None


def b7_only_a_pass_rescues(step: Step) -> Outcome:
    """A waiting charge is forgiven only by a corrected success in its lane (any lane for a global charge).

    Every other non-neutral result charges it, and a neutral event (a round,
    a discovery success, a free lookup, an ignored receipt) neither charges
    nor forgives it.
    """
    limits = step.monitor.limits
    exercised = False
    for copy in PRODUCTION_COPIES:
        before, after = step.before[copy], step.after[copy]
        waiting = before.deferred
        if waiting is None or before.terminal or isinstance(step.event, Stop):
            continue
        if step.neutral(copy):
            exercised = True
            if (after.deferred, after.consecutive, after.workspace, after.extension) != (
                waiting, before.consecutive, before.workspace, before.extension
            ):
                return True, f"{copy} moved a waiting {waiting} charge on a neutral event {step.event!r}"
            continue
        exercised = True
        if after.deferred is not None:
            return True, f"{copy} still waits on {after.deferred} after a non-neutral result"
        event = step.event
        forgive = (
            not event.failed
            and step.flag(copy, "corrected") is True
            and (waiting == GLOBAL or waiting == lane_of(event.lane))
        )
        if waiting == GLOBAL:
            charged = after.terminal and after.consecutive >= limits.consecutive_failures
        else:
            charged = waiting in after.exhausted
        if forgive == charged:
            return True, f"{copy} {'charged' if charged else 'forgave'} a waiting {waiting} charge at {event!r}"
        if forgive:
            step.monitor.rescued(copy)
    return exercised, None


def b8_refusal_grants(step: Step) -> Outcome:
    """Each kind is granted once; a grant needs a global trip below the total cap with a lane open; no admission, no change."""
    limits = step.monitor.limits
    exercised = False
    for copy in ("P", "Pr"):
        before, after = step.before[copy], step.after[copy]
        granted = after.kinds - before.kinds
        if len(after.kinds) > 2:
            return True, f"{copy} granted {len(after.kinds)} kinds"
        if granted:
            exercised = True
            event = step.event
            if (
                len(granted) != 1
                or after.correction not in granted
                or not step.observed(copy)
                or not event.failed
                or lane_of(event.lane) is not None
                or step.flag(copy, "correctable_refusal") not in granted
                or not after.terminal
                or after.consecutive < limits.consecutive_failures
                or after.failures >= limits.total_failures
                or len(after.exhausted) >= 2
            ):
                return True, f"{copy} granted {sorted(granted)} at {event!r} leaving {after!r}"
        elif after.correction is not None and after.correction != before.correction:
            return True, f"{copy} set a correction without a grant"
        # The first call after the trip spends the correction whatever it is; stop() leaves none.
        spent = isinstance(step.event, FirstCall) and before.pending_correction is not None
        exercised = exercised or spent
        if (spent or isinstance(step.event, Stop)) and after.correction is not None:
            return True, f"{copy} kept correction {after.correction!r} after {step.event!r}"
    if step.monitor.admissions["Pr"] == 0:
        exercised = exercised or step.after["Pr"].correction is not None
        if step.after["Pr"].counters != step.after["R"].counters:
            return True, "Pr differs from R without an admission"
    return exercised, None


def b9_one_failure_past_the_fuse(step: Step) -> Outcome:
    """Open implies consecutive <= fuse - 1 + admissions in this streak (+ waits that landed with a trip, in P)."""
    limit = step.monitor.limits.consecutive_failures
    exercised = False
    for copy in ("Pr", "P"):
        after = step.after[copy]
        if after.terminal:
            continue
        allowance = step.monitor.streak_admissions[copy] + step.monitor.streak_double_charges[copy]
        if allowance:
            exercised = True
        if after.consecutive > limit - 1 + allowance:
            return True, f"{copy} open at consecutive {after.consecutive} with {allowance} admissions in the streak"
    return exercised, None


def b10_rounds_cap(step: Step) -> Outcome:
    """More than the rounds limit without progress always stops the run and clears a pending correction."""
    limit = step.monitor.limits.rounds_without_progress
    exercised = False
    for copy, after in step.after.items():
        if after.rounds > limit:
            exercised = True
            if not after.terminal or after.correction is not None:
                return True, f"{copy} at {after.rounds} rounds: terminal={after.terminal}, correction={after.correction!r}"
    return exercised, None


def b11_empty_lookups(step: Step) -> Outcome:
    """At most the allowance is free; a free lookup changes nothing else; a lookup-only run stops on rounds."""
    limits = step.monitor.limits
    exercised = False
    for copy in ("P", "Pl"):
        before, after = step.before[copy], step.after[copy]
        if after.free_used > limits.free_empty_lookups:
            return True, f"{copy} gave {after.free_used} free lookups"
        if step.free_lookup(copy):
            exercised = True
            if attrs.evolve(before, free_used=before.free_used + 1) != after:
                return True, f"{copy} free lookup changed more than its allowance: {before!r} -> {after!r}"
        elif (
            step.observed(copy)
            and step.event.failed
            and step.flag(copy, "empty_lookup") is True
            and after.failures != before.failures + 1
        ):
            return True, f"{copy} did not charge an empty lookup past the allowance"
    if step.monitor.lookups_only and step.after["Pl"].free_used < limits.free_empty_lookups:
        pl = step.after["Pl"]
        if isinstance(step.event, Round):
            exercised = exercised or pl.rounds > limits.rounds_without_progress
        if pl.terminal != (pl.rounds > limits.rounds_without_progress):
            return True, f"lookup-only run: Pl terminal={pl.terminal} at round {pl.rounds}"
    return exercised, None


def b12_sticky_stops(step: Step) -> Outcome:
    """While terminal no receipt changes anything; only an admitted remedy re-opens; duplicates are ignored."""
    exercised = False
    event = step.event
    for copy, before in step.before.items():
        after = step.after[copy]
        if isinstance(event, Result) and (before.terminal or step.duplicate[copy]):
            exercised = True
            if after != before:
                return True, f"{copy} changed on an ignored receipt: {before!r} -> {after!r}"
        if before.terminal and not after.terminal:
            exercised = True
            if not (isinstance(event, FirstCall) and event.remedy is True and before.pending_correction is not None):
                return True, f"{copy} re-opened at {event!r}"
            # Seed 002: the remedy re-opens the run with every counter where the trip left it.
            if after != attrs.evolve(before, terminal=False, correction=None):
                return True, f"{copy} changed its counters when re-opening: {before!r} -> {after!r}"
    return exercised, None


#: Probe failures for B13: every lane (and none), correctable or not, empty lookup or not.
PROBES = tuple(
    (lane, correctable, empty)
    for lane in (None, "workspace", "extension")
    for correctable in (False, True)
    for empty in (False, True)
)


def failure_outcome(budget: RunProgressBudget, lane: str | None, correctable: bool, empty: bool) -> bool:
    """Observe one such failure on a copy of ``budget`` and report whether it stopped the run or its lane."""
    probe = RunProgressBudget(
        limits=budget.limits, rounds=budget.rounds, failures=budget.failures,
        consecutive=budget.consecutive, terminal=budget.terminal,
        lane_failures=dict(budget.lane_failures), exhausted_lanes=set(budget.exhausted_lanes),
        deferred=budget.deferred, deferrals_used=budget.deferrals_used,
        correction=budget.correction, corrected_kinds=set(budget.corrected_kinds),
        free_lookups_used=budget.free_lookups_used,
    )
    probe.observe_result("probe", "probe", None, True, lane=lane, correctable=correctable, empty_lookup=empty)
    ends = probe.terminal or probe.rounds >= probe.limits.rounds_without_progress
    return ends or (lane is not None and lane in probe.exhausted_lanes)


def b13_failure_ends_exact(step: Step) -> Outcome:
    """``failure_ends`` equals the outcome of observing that failure on a copy, in every reachable state."""
    budget = step.monitor.budgets.get("P")
    if budget is None or not step.monitor.probe_failure_ends:
        return False, None
    for lane, correctable, empty in step.monitor.probes(step.index):
        said = budget.failure_ends(lane, correctable=correctable, empty_lookup=empty)
        seen = failure_outcome(budget, lane, correctable, empty)
        if said != seen:
            return True, f"failure_ends(lane={lane!r}, correctable={correctable}, empty_lookup={empty}) said {said}, observing gives {seen}"
    return True, None


@attrs.frozen
class Invariant:
    id: str
    seeds: str
    title: str
    check: Callable[[Step], Outcome]

    @property
    def statement(self) -> str:
        return (self.check.__doc__ or "").strip()


SEED_FILES = {
    "000": "000_33720f75875ca81b.txt",
    "001": "001_7efc7af1677abc80.txt",
    "002": "002_4ecf186a1f873e3b.txt",
}

CATALOGUE: tuple[Invariant, ...] = (
    Invariant("B1", "001, 002", "omitted flags change nothing", b1_stripped_equals_reference),
    Invariant("B2", "000, 001, 002", "never stops the run earlier", b2_never_stops_earlier),
    Invariant("B3", "001", "never stops a lane earlier", b3_no_lane_earlier),
    Invariant("B4", "001, 002", "the total cap is never deferred", b4_total_never_deferred),
    Invariant("B5", "001", "bounded deferrals", b5_bounded_deferrals),
    Invariant("B6", "001", "one result later at most", b6_one_result_later),
    Invariant("B7", "001", "only a passing correction rescues", b7_only_a_pass_rescues),
    Invariant("B8", "002", "each refusal kind granted once", b8_refusal_grants),
    Invariant("B9", "002", "one failure past the fuse per admission", b9_one_failure_past_the_fuse),
    Invariant("B10", "001, 002", "the rounds cap always holds", b10_rounds_cap),
    Invariant("B11", "000", "free empty lookups are bounded and inert", b11_empty_lookups),
    Invariant("B12", "001, 002", "stops are sticky, duplicates ignored", b12_sticky_stops),
    Invariant("B13", "001", "failure_ends is exact", b13_failure_ends_exact),
)

BY_ID = {invariant.id: invariant for invariant in CATALOGUE}


# -- verdicts --------------------------------------------------------------


@attrs.frozen
class Violation:
    invariant: str
    step: int
    message: str

    def __str__(self) -> str:
        return f"{self.invariant} ({BY_ID[self.invariant].title}) violated at step {self.step}: {self.message}"


#: The coverage counts ``invariants.md`` asks for, with their minimums in a default run.
COVERAGE_MINIMUMS = {
    "deferrals": 100,
    "rescues": 20,
    "admissions": 50,
    "runs reaching the 13th empty lookup": 20,
    "runs stopped by the total cap at consecutive 3": 20,
    "runs stopped by the rounds cap": 20,
}


@attrs.define
class Tally:
    """Checked and exercised counts per invariant, violations, and coverage counts, for one driver or a whole run."""

    checked: dict[str, int] = attrs.field(factory=lambda: {inv.id: 0 for inv in CATALOGUE})
    exercised: dict[str, int] = attrs.field(factory=lambda: {inv.id: 0 for inv in CATALOGUE})
    violations: list[Violation] = attrs.field(factory=list)
    coverage: dict[str, int] = attrs.field(factory=lambda: {name: 0 for name in COVERAGE_MINIMUMS})
    steps: int = 0
    traces: int = 0

    def merge(self, other: "Tally") -> None:
        for key in self.checked:
            self.checked[key] += other.checked[key]
            self.exercised[key] += other.exercised[key]
        for key in self.coverage:
            self.coverage[key] += other.coverage[key]
        self.violations.extend(other.violations)
        self.steps += other.steps
        self.traces += other.traces

    def status(self, invariant_id: str) -> str:
        if any(violation.invariant == invariant_id for violation in self.violations):
            return "violated"
        if self.exercised[invariant_id] == 0:
            return "vacuous"
        return "held"

    @property
    def ok(self) -> bool:
        return all(self.status(inv.id) == "held" for inv in CATALOGUE)


# -- the per-trace monitor ----------------------------------------------------


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
    #: B13 costs 12 probe copies per step; drivers may check it every step or on a rotating probe.
    probe_failure_ends: bool = True
    all_probes: bool = True
    index: int = 0
    feature_used: dict[str, bool] = attrs.field(factory=lambda: {copy: False for copy in ("Pd", "Pr", "Pl")})
    admissions: dict[str, int] = attrs.field(factory=lambda: {"P": 0, "Pr": 0})
    streak_admissions: dict[str, int] = attrs.field(factory=lambda: {"P": 0, "Pr": 0})
    streak_double_charges: dict[str, int] = attrs.field(factory=lambda: {"P": 0, "Pr": 0})
    lookups_only: bool = True
    flags: set[str] = attrs.field(factory=set)
    appliers: dict[str, Callable[[Any, Event], bool]] = attrs.field(factory=dict)
    #: Take this step's "before" snapshots from the previous step's "after" ones. Only for a driver
    #: that touches the budgets through ``step`` alone (the bulk driver); anyone who restores or edits
    #: a budget between steps must leave it off.
    reuse_snapshots: bool = False
    _last_after: "dict[str, Snap] | None" = None
    #: (id, check) pairs of ``invariants``, rebuilt whenever ``invariants`` is replaced.
    _checks: tuple = ()
    _checks_of: Any = None

    def __attrs_post_init__(self) -> None:
        if not self.appliers:
            self.appliers = {name: applier(name) for name in self.budgets}

    # history ------------------------------------------------------------

    def history(self) -> tuple:
        return (
            tuple(self.feature_used.values()),
            tuple(self.admissions.values()),
            tuple(self.streak_admissions.values()),
            tuple(self.streak_double_charges.values()),
            self.lookups_only,
        )

    def probes(self, index: int) -> Iterable[tuple[str | None, bool, bool]]:
        if self.all_probes:
            return PROBES
        return (PROBES[index % len(PROBES)],)

    def rescued(self, copy: str) -> None:
        if copy == "P":
            self.tally.coverage["rescues"] += 1

    # stepping -----------------------------------------------------------

    def step(self, event: Event) -> list[Violation]:
        """Deliver ``event`` to every copy and check every invariant; return the violations of this step."""
        budgets = self.budgets
        before = self._last_after if self.reuse_snapshots and self._last_after is not None else None
        if before is None:
            before = {name: snap(budget) for name, budget in budgets.items()}
        call_id = event.call_id if isinstance(event, Result) else None
        appliers = self.appliers
        admitted = {}
        after = {}
        if isinstance(call_id, str):
            # Each copy's memory is read before that copy receives the event (copies are independent).
            duplicate = {}
            fresh = {}
            for name, budget in budgets.items():
                seen = call_id in budget.seen_call_set
                duplicate[name] = seen
                fresh[name] = bool(call_id) and not seen and not before[name].terminal
                admitted[name] = appliers[name](budget, event)
                after[name] = snap(budget)
        else:
            duplicate = dict.fromkeys(budgets, False)
            fresh = dict.fromkeys(budgets, False)
            for name, budget in budgets.items():
                admitted[name] = appliers[name](budget, event)
                after[name] = snap(budget)
        if self.reuse_snapshots:
            self._last_after = after
        self._update_history(event, before, after, admitted)
        step = Step(self.index, event, before, after, duplicate, admitted, self, fresh)
        found: list[Violation] = []
        tally = self.tally
        checked, exercised_counts = tally.checked, tally.exercised
        if self._checks_of is not self.invariants:
            self._checks = tuple((invariant.id, invariant.check) for invariant in self.invariants)
            self._checks_of = self.invariants
        for invariant_id, check in self._checks:
            exercised, problem = check(step)
            checked[invariant_id] += 1
            if exercised:
                exercised_counts[invariant_id] += 1
            if problem is not None:
                found.append(Violation(invariant_id, self.index, problem))
        self._count_coverage(event, before, after, admitted)
        tally.violations.extend(found)
        tally.steps += 1
        self.index += 1
        return found

    def _update_history(self, event: Event, before: dict[str, Snap], after: dict[str, Snap], admitted: dict[str, bool]) -> None:
        if isinstance(event, Result):
            if event.correctable is True or event.corrected is True:
                self.feature_used["Pd"] = True
            if event.correctable_refusal is not None:
                self.feature_used["Pr"] = True
            if event.empty_lookup is True:
                self.feature_used["Pl"] = True
            if not (event.failed and event.empty_lookup is True):
                self.lookups_only = False
        elif not isinstance(event, Round):
            self.lookups_only = False
        limit = self.limits.consecutive_failures
        for copy in ("P", "Pr"):
            if copy not in after:
                continue
            if admitted.get(copy):
                self.admissions[copy] += 1
                self.streak_admissions[copy] += 1
            if after[copy].consecutive == 0:
                self.streak_admissions[copy] = 0
                self.streak_double_charges[copy] = 0
            elif after[copy].consecutive - before[copy].consecutive >= 2 and after[copy].consecutive > limit:
                self.streak_double_charges[copy] += 1

    def _count_coverage(self, event: Event, before: dict[str, Snap], after: dict[str, Snap], admitted: dict[str, bool]) -> None:
        coverage = self.tally.coverage
        p_before, p_after = before["P"], after["P"]
        if p_after.deferrals_used > p_before.deferrals_used:
            coverage["deferrals"] += 1
        if admitted.get("P"):
            coverage["admissions"] += 1
        limits = self.limits
        if (
            "13th" not in self.flags
            and isinstance(event, Result)
            and event.failed
            and event.empty_lookup is True
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


def new_monitor(limits: Limits, tally: Tally, budgets: dict[str, Any], **options: Any) -> Monitor:
    """A monitor over fresh budgets (``properties.copies.new_copies``); counts one trace in ``tally``."""
    tally.traces += 1
    return Monitor(limits=limits, tally=tally, budgets=budgets, **options)
