"""The catalogue of named invariants, written once and checked by every driver.

Each invariant is a documented predicate over one step of a trace: the event,
every copy's state before and after it, and the little history the statement
needs (kept by ``Monitor`` and handed to each step as a ``StepHistory``). A driver never checks anything itself; it hands
each step to ``Monitor.step`` and reads the verdicts from the shared
``Tally``. The ids and statements restate ``shared/spec/invariants.md`` (B1 to
B13); the seed each comes from is named in ``CATALOGUE``.

Every check returns whether its antecedent held (the step *exercised* it) and
a violation message or ``None``. A step that only *checked* an invariant whose
antecedent was false proves nothing about it; an invariant never exercised in
a run is reported vacuous and fails the run.
"""

from __future__ import annotations

from typing import Any, Mapping

import attrs

from guard.budget import GLOBAL, RunProgressBudget
from guard.limits import Limits
from properties.catalogue import Invariant, Outcome, unique_ids
from properties.budget.copies import FEATURE_FLAGS
from properties.budget.events import Event, FirstCall, Result, Round, Stop
from properties.budget.state import NO_NAMES, Snap, same_counters  # noqa: F401

from properties.names import DISCOVERY_TOOLS, LANE_NAMES


# -- snapshots: ``properties.budget.state`` (the one view of a budget, for the monitors, replay and tests) --


def lane_of(lane: Any) -> str | None:
    return lane if isinstance(lane, str) and lane in LANE_NAMES else None


def lane_count(state: Snap, lane: str) -> int:
    return state.workspace if lane == "workspace" else state.extension


# -- one step, as the checks see it --------------------------------------


@attrs.frozen(slots=True)
class StepHistory:
    """What a step's checks read beyond the step itself: the limits and the trace's history up to this step.

    Built by ``Monitor.step_record`` (the one place a step is made, for every
    driver and the explorer's edges) and never written afterwards: the
    monitor replaces a map when a value in it changes (copy on write), so a
    step kept after its trace went on still reads its own history.
    """

    #: P's limits (every production copy's): the caps the checks compare with.
    limits: Limits
    #: The reference's own consecutive-failure fuse (B9 counts against it, not P's limit).
    reference_fuse: int
    #: Per feature copy (Pd, Pr, Pl): whether the trace so far used that copy's flag (B1).
    feature_used: Mapping[str, bool]
    #: Per admitting copy (P, Pr): admissions in the whole trace (B8) and in the current streak (B9).
    admissions: Mapping[str, int]
    streak_admissions: Mapping[str, int]
    #: B9, per copy: its place against the reference's fuse (``Monitor.streak_fuse``).
    streak_fuse: Mapping[str, int]
    #: The trace so far is empty lookups and rounds only (B11).
    lookups_only: bool
    #: How B13 observes a failure ("all", "observed", "off"; ``FAILURE_ENDS_PROBES``).
    failure_ends_probes: str
    #: P's budget as this step left it, for B13 (None when the monitor drives no P).
    production_budget: "RunProgressBudget | None"
    #: Every copy's budget as this step left it, when the monitor steps real copies (B1 compares their memories);
    #: None for the explorer, whose copies are keys that abstract the memories.
    live_budgets: "Mapping[str, Any] | None" = None


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
    #: The judge's context, as values fixed at this step (issue 18: a step is self-contained, as
    #: navigation's is; the monitor replaces its history maps rather than writing into them, so the
    #: maps a step holds are never changed by a later step). See ``Monitor.step_record``.
    history: "StepHistory"
    #: Per copy: the copy counted this receipt, a result with a usable id new to it while it was open
    #: (computed once per step by the monitor, which reads each copy's memory before delivering).
    fresh: dict[str, bool]
    #: The event is a result reporting a failure (``failed`` truthy, as both budgets read it).
    failed: bool
    #: (copy, before, after) for every copy, the reference first.
    rows: tuple
    #: (copy, before, after) for every production copy, in ``PRODUCTION_COPIES`` order: what the
    #: per-copy invariants iterate (a tuple walk costs a third of two dictionary lookups per copy).
    production: tuple
    #: What ``P.failure_ends`` said about this event just before P observed it: a failure new to an
    #: open P, when B13 is checked on P's own observations (``failure_ends_probes == "observed"``); else None.
    predicted: "bool | None" = None

    def flag(self, copy: str, name: str) -> Any:
        """The value of one of the seeds' flags as the copy ``copy`` received it."""
        event = self.event
        if copy == "R" or name not in FEATURE_FLAGS[copy]:
            return None if name == "correctable_refusal" else False
        return getattr(event, name)

    def observed(self, copy: str) -> bool:
        """The copy counted this receipt: a result with a usable, fresh id while open."""
        return self.fresh[copy]

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
            self.failed
            and self.event.empty_lookup is True  # type: ignore[union-attr]  # failed: a result; cheap: a copy receives the event's value or False
            and self.fresh[copy]
            and self.flag(copy, "empty_lookup") is True
            and self.before[copy].free_used < self.history.limits.free_empty_lookups
        )




# -- the invariants ------------------------------------------------------


def b1_stripped_equals_reference(step: Step) -> Outcome:
    """P0 equals R at every step; so does each per-feature copy while its feature's flags are absent. Where the
    driver steps real copies, their memories too (budget.md: "with every new argument omitted, production must
    behave exactly like the reference at every step", and its state holds the seen call ids and the success
    fingerprints, canonical JSON of ``[tool, params]``)."""
    after = step.after
    reference = after["R"]
    if not same_counters(after["P0"], reference):
        return True, f"P0 differs from R: {after['P0'].counters} vs {reference.counters}"
    feature_used = step.history.feature_used
    for copy in ("Pd", "Pr", "Pl"):
        if not feature_used[copy] and not same_counters(after[copy], reference):
            return True, f"{copy} differs from R: {after[copy].counters} vs {reference.counters}"
    budgets = step.history.live_budgets
    if budgets is not None:
        for copy in ("P0", "Pd", "Pr", "Pl"):
            if copy != "P0" and feature_used[copy]:
                continue
            problem = memories_differ(budgets[copy], budgets["R"])
            if problem:
                return True, f"{copy}'s {problem} differ from R's"
    return True, None


def memories_differ(budget: Any, reference: Any) -> "str | None":
    """Which memory of ``budget`` differs from the reference's, or None. Compared in C: the deques of seen call
    ids element by element, the success counts as mappings (their order shows once an eviction differs)."""
    if budget.seen_calls != reference.seen_calls:
        return "seen call ids"
    if budget.successes != reference.successes:
        return "success fingerprints"
    return None


def b2_never_stops_earlier(step: Step) -> Outcome:
    """A production copy is terminal only when the reference is (every copy receives every stop())."""
    reference_stopped = step.after["R"].terminal
    for copy, _before, after in step.production:
        if after.terminal:
            return True, None if reference_stopped else f"{copy} stopped while R is open"
    return False, None


def b3_no_lane_earlier(step: Step) -> Outcome:
    """While R is open, production's exhausted lanes are a subset of R's. Where the driver steps real copies, P's
    read-only view ``lane_exhausted(lane)`` (budget.md) says of each lane what its exhausted lanes hold: it is how a
    host asks whether a lane is stopped, so a view that lies stops a lane the budget keeps open."""
    budgets = step.history.live_budgets
    if budgets is not None:
        production = budgets["P"]
        for lane in LANE_NAMES:
            if production.lane_exhausted(lane) != (lane in step.after["P"].exhausted):
                return True, f"P's lane_exhausted({lane!r}) says {production.lane_exhausted(lane)}, its exhausted lanes are {sorted(step.after['P'].exhausted)}"
    reference = step.after["R"]
    if reference.terminal:
        return False, None
    exercised = False
    for copy, _before, after in step.production:
        lanes = after.exhausted
        if lanes:
            exercised = True
            if not lanes <= reference.exhausted:
                return True, f"{copy} exhausted {sorted(lanes)} while R has {sorted(reference.exhausted)}"
    return exercised, None


def b4_total_never_deferred(step: Step) -> Outcome:
    """Every charged failure adds one to the total in its own step; reaching the cap stops at once."""
    total = step.history.limits.total_failures
    exercised = False
    failed, fresh = step.failed, step.fresh
    # Only an empty lookup can be free: ask ``free_lookup`` only then.
    maybe_free = failed and step.event.empty_lookup is True  # type: ignore[union-attr]  # a failure or receipt: a Result
    for copy, before, after in step.production:
        charged = failed and fresh[copy] and not (maybe_free and step.free_lookup(copy))
        # A bool is 0 or 1: the total must move by exactly ``charged``.
        if after.failures - before.failures != charged:
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
    limits = step.history.limits
    attempts = limits.corrected_attempts
    exercised = False
    # Only a correctable failure can be owed a wait: ask ``_owed_a_wait`` only then.
    maybe_owed = step.failed and step.event.correctable is True  # type: ignore[union-attr]  # a failure or receipt: a Result
    for copy, before, after in step.production:
        used = after.deferrals_used
        if used > attempts:
            return True, f"{copy} used {used} deferrals"
        if used == before.deferrals_used:
            # No wait started: none was owed, and no counter began waiting for free.
            if maybe_owed and _owed_a_wait(step, copy, before, limits):
                return True, f"{copy} charged a correctable failure at the fuse with allowance left"
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
            or not event.failed  # type: ignore[union-attr]  # a failure or receipt: a Result
            or step.flag(copy, "correctable") is not True
            or not _would_trip(before, counter, limits.consecutive_failures)  # type: ignore[arg-type]  # a failure: a Result, so a counter
        ):
            return True, f"{copy} deferred {after.deferred!r} at {event!r} from {before!r}"
    return exercised, None


def _owed_a_wait(step: Step, copy: str, before: Snap, limits: Limits) -> bool:
    """The step is a correctable, charged failure at its fuse, with nothing waiting and allowance left."""
    event = step.event
    if not (step.failed and event.correctable is True and step.fresh[copy] and step.flag(copy, "correctable") is True):  # type: ignore[union-attr]  # a failure or receipt: a Result
        return False
    if step.free_lookup(copy) or before.deferred is not None or before.deferrals_used >= limits.corrected_attempts:
        return False
    return _would_trip(before, lane_of(event.lane) or GLOBAL, limits.consecutive_failures)  # type: ignore[union-attr]  # a failure or receipt: a Result


def _differs(reference: Snap, other: Snap) -> bool:
    """Two runs differ while either is open and their stops, lanes or counters disagree; two stopped runs agree."""
    if reference.terminal and other.terminal:
        return False
    return not same_counters(reference, other)


def b6_one_result_later(step: Step) -> Outcome:
    """For Pu, a difference from R opens only at a correctable failure and closes at the next non-neutral result."""
    was = _differs(step.before["R"], step.before["Pu"])
    now = _differs(step.after["R"], step.after["Pu"])
    if not was and not now:
        return False, None
    if not was:
        ok = step.observed("Pu") and bool(step.event.failed) and step.event.correctable is True  # type: ignore[union-attr]  # a failure or receipt: a Result
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
    limits = step.history.limits
    exercised = False
    if isinstance(step.event, Stop):
        return False, None
    for copy, before, after in step.production:
        waiting = before.deferred
        if waiting is None or before.terminal:
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
            not event.failed  # type: ignore[union-attr]  # a failure or receipt: a Result
            and step.flag(copy, "corrected") is True
            and (waiting == GLOBAL or waiting == lane_of(event.lane))  # type: ignore[union-attr]  # a failure or receipt: a Result
        )
        if waiting == GLOBAL:
            charged = after.terminal and after.consecutive >= limits.consecutive_failures
        else:
            charged = waiting in after.exhausted
        if forgive == charged:
            return True, f"{copy} {'charged' if charged else 'forgave'} a waiting {waiting} charge at {event!r}"
    return exercised, None


def b8_refusal_grants(step: Step) -> Outcome:
    """Each kind is granted once; a grant needs a global trip below the total cap with a lane open; no admission, no change."""
    history = step.history
    limits = history.limits
    exercised = False
    event = step.event
    first_call = isinstance(event, FirstCall)
    for copy in ("P", "Pr"):
        before, after = step.before[copy], step.after[copy]
        if first_call:
            # budget.md, correct_fuse: True exactly when the run was stopped with a correction pending and the call is
            # a remedy (then the run is open again); False, spending the correction or not, otherwise.
            admitted = bool(step.admitted.get(copy))
            due = before.pending_correction is not None and event.remedy is True  # type: ignore[union-attr]  # a FirstCall
            if admitted != due or (admitted and after.terminal):
                return True, (f"{copy}: the first call (remedy={event.remedy!r}) was admitted={admitted} with "  # type: ignore[union-attr]
                              f"{before.pending_correction!r} pending, leaving it {'stopped' if after.terminal else 'open'}")
        kinds, correction = after.kinds, after.correction
        if not kinds and correction is None and before.correction is None:
            continue  # no kind, no correction before or after: every clause below is vacuous
        # Snapshots share one empty set, so the same object means "both empty": nothing granted.
        granted = NO_NAMES if kinds is before.kinds else kinds - before.kinds
        if len(kinds) > 2:
            return True, f"{copy} granted {len(kinds)} kinds"
        if granted:
            exercised = True
            if (
                len(granted) != 1
                or not (isinstance(correction, str) and correction)  # budget.md: a kind is a non-empty string
                or correction not in granted
                or not step.observed(copy)
                or not event.failed  # type: ignore[union-attr]  # a failure or receipt: a Result
                or lane_of(event.lane) is not None  # type: ignore[union-attr]  # a failure or receipt: a Result
                or step.flag(copy, "correctable_refusal") not in granted
                or not after.terminal
                or after.consecutive < limits.consecutive_failures
                or after.failures >= limits.total_failures
                or len(after.exhausted) >= 2
            ):
                return True, f"{copy} granted {sorted(granted)} at {event!r} leaving {after!r}"
        elif correction is not None and correction != before.correction:
            return True, f"{copy} set a correction without a grant"
        # The first call after the trip spends the correction whatever it is; stop() leaves none.
        spent = first_call and before.pending_correction is not None
        if spent:
            exercised = True
        if correction is not None and (spent or isinstance(event, Stop)):
            return True, f"{copy} kept correction {correction!r} after {event!r}"
    if history.admissions["Pr"] == 0:
        pr = step.after["Pr"]
        if pr.correction is not None:
            exercised = True
        if not same_counters(pr, step.after["R"]):
            return True, "Pr differs from R without an admission"
    return exercised, None


def b9_one_failure_past_the_fuse(step: Step) -> Outcome:
    """Open implies consecutive <= fuse - 1 + admissions in this streak (+ 1 in P when a charge may have waited).

    invariants.md B9: for ``Pr`` an open response has ``consecutive <= 3 +
    admissions since the last reset``. In ``P`` a charge that waited (seed
    001) lands together with the next failure, so the tripping refusal can
    leave ``consecutive`` one higher than the failures it took to trip. The
    bound that then holds: one more, once per streak, and only when the
    streak's failure that reached the *reference's* fuse was one that could
    wait (correctable as P received it, nothing waiting, a deferral left:
    budget.md step 3).

    The fuse and the failures are counted by the monitor (``Monitor.streak_fuse``),
    never read from P's own ``consecutive``: a failure counts when it has no
    lane and P's total went up by one (B4 pins the total), and the fuse is
    the reference's limit (``R``'s). An earlier version let the allowance grow
    with every jump of P's ``consecutive`` past the fuse, so a P that charged
    twice per failure there granted itself the room it took (issue 22).
    """
    history = step.history
    fuse = history.reference_fuse
    exercised = False
    for copy in ("Pr", "P"):
        after = step.after[copy]
        if after.terminal:
            continue
        allowance = history.streak_admissions[copy] + (history.streak_fuse[copy] > fuse)
        if allowance:
            exercised = True
        if after.consecutive > fuse - 1 + allowance:
            return True, f"{copy} open at consecutive {after.consecutive} with {allowance} allowed past the reference's fuse in the streak"
    return exercised, None


def b10_rounds_cap(step: Step) -> Outcome:
    """More than the rounds limit without progress always stops the run and clears a pending correction."""
    limit = step.history.limits.rounds_without_progress
    exercised = False
    for copy, _before, after in step.rows:
        if after.rounds > limit:
            exercised = True
            if not after.terminal or after.correction is not None:
                return True, f"{copy} at {after.rounds} rounds: terminal={after.terminal}, correction={after.correction!r}"
    return exercised, None


def b11_empty_lookups(step: Step) -> Outcome:
    """At most the allowance is free; a free lookup changes nothing else; a lookup-only run stops on rounds."""
    limits = step.history.limits
    exercised = False
    failed = step.failed
    for copy in ("P", "Pl"):
        before, after = step.before[copy], step.after[copy]
        if after.free_used > limits.free_empty_lookups:
            return True, f"{copy} gave {after.free_used} free lookups"
        if not failed or step.event.empty_lookup is not True:  # type: ignore[union-attr]  # a failure or receipt: a Result
            continue  # neither branch below can hold: a copy receives the event's flag or False
        if step.free_lookup(copy):
            exercised = True
            if before._replace(free_used=before.free_used + 1) != after:
                return True, f"{copy} free lookup changed more than its allowance: {before!r} -> {after!r}"
        elif (
            step.fresh[copy]
            and step.flag(copy, "empty_lookup") is True
            and after.failures != before.failures + 1
        ):
            return True, f"{copy} did not charge an empty lookup past the allowance"
    if step.history.lookups_only and step.after["Pl"].free_used < limits.free_empty_lookups:
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
    receipt = isinstance(event, Result)
    duplicate = step.duplicate
    for copy, before, after in step.rows:
        if not before.terminal:
            # An open copy ignores only a duplicate receipt; it cannot re-open.
            if receipt and duplicate[copy]:
                exercised = True
                if after != before:
                    return True, f"{copy} changed on an ignored receipt: {before!r} -> {after!r}"
            continue
        if receipt:
            exercised = True
            if after != before:
                return True, f"{copy} changed on an ignored receipt: {before!r} -> {after!r}"
        if not after.terminal:
            exercised = True
            if not (isinstance(event, FirstCall) and event.remedy is True and before.pending_correction is not None):
                return True, f"{copy} re-opened at {event!r}"
            # Seed 002: the remedy re-opens the run with every counter where the trip left it.
            if after != before._replace(terminal=False, correction=None):
                return True, f"{copy} changed its counters when re-opening: {before!r} -> {after!r}"
    return exercised, None


#: Probe failures for B13: every lane (and none), correctable or not, empty lookup or not.
PROBES = tuple(
    (lane, correctable, empty)
    for lane in (None, *LANE_NAMES)
    for correctable in (False, True)
    for empty in (False, True)
)


#: What a B13 probe copies from the budget it probes: every field of ``RunProgressBudget`` but its memories.
PROBE_COPIED = (
    "limits", "rounds", "failures", "consecutive", "terminal", "lane_failures", "exhausted_lanes",
    "deferred", "deferrals_used", "correction", "corrected_kinds", "free_lookups_used",
)
#: The memories start empty, as in a fresh budget: the probe's call id is new to the run, and a
#: failure reads no success. ``tests/budget/test_invariants_probe.py`` checks the two lists cover every field.
PROBE_EMPTIED = ("seen_calls", "seen_call_set", "successes")


def load_probe(probe: RunProgressBudget, budget: RunProgressBudget) -> RunProgressBudget:
    """Make ``probe`` a copy of ``budget`` (fresh memories, see ``PROBE_EMPTIED``) and return it.

    B13 keeps one scratch budget and reloads it for every probe:
    assigning twelve fields costs a third of building a budget through its
    constructor, and B13 runs at every step of every driver.
    """
    probe.limits = budget.limits
    probe.rounds = budget.rounds
    probe.failures = budget.failures
    probe.consecutive = budget.consecutive
    probe.terminal = budget.terminal
    probe.lane_failures = budget.lane_failures.copy()
    probe.exhausted_lanes = budget.exhausted_lanes.copy()
    probe.deferred = budget.deferred
    probe.deferrals_used = budget.deferrals_used
    probe.correction = budget.correction
    probe.corrected_kinds = budget.corrected_kinds.copy()
    probe.free_lookups_used = budget.free_lookups_used
    probe.seen_calls.clear()
    probe.seen_call_set.clear()
    probe.successes.clear()
    return probe


def failure_outcome(
    budget: RunProgressBudget, lane: str | None, correctable: bool, empty: bool, probe: RunProgressBudget | None = None
) -> bool:
    """Observe one such failure on a copy of ``budget`` and report whether it stopped the run or its lane.

    ``probe`` is a scratch budget to copy into (a new one when None); its earlier content never matters.
    """
    probe = load_probe(probe if probe is not None else RunProgressBudget(budget.limits), budget)
    probe.observe_result("probe", "probe", None, True, lane=lane, correctable=correctable, empty_lookup=empty)
    return failure_ended(probe, lane)


def failure_ended(budget: RunProgressBudget, lane: Any) -> bool:
    """After a failure in ``lane``: the run stopped, the next round would stop it, or the failure's lane is exhausted."""
    ends = budget.terminal or budget.rounds >= budget.limits.rounds_without_progress
    return ends or (lane is not None and lane in budget.exhausted_lanes)


#: The one scratch budget B13 reloads for every probe (``load_probe`` sets every field, limits included, so
#: its earlier content never matters and monitors may share it). Made here, at import, rather than on first
#: use: a branch taken only by a process's first example would make a fuzzer's replay of that example run
#: other code than its first run did (HypoFuzz then calls the example unstable; tests/fuzz/test_fuzz_feedback.py).
_SCRATCH = RunProgressBudget(Limits())


def asked_flags(correctable: Any, empty_lookup: Any) -> dict[str, Any]:
    """The flags B13 asks ``failure_ends`` about, as a host would pass them: one left at False is omitted.

    budget.md gives the signature ``failure_ends(lane, correctable=False, empty_lookup=False)``: its defaults are
    part of what it promises, so an ordinary failure is asked about with the lane alone, and a default that moved
    (mutmut's ``failure_ends`` mutants 1 and 2) answers for the flag the host never set."""
    flags = {}
    if correctable is not False:
        flags["correctable"] = correctable
    if empty_lookup is not False:
        flags["empty_lookup"] = empty_lookup
    return flags


def b13_failure_ends_exact(step: Step) -> Outcome:
    """``failure_ends`` equals the outcome of observing that failure, in every reachable state.

    The observation is made one of two ways (``Monitor.failure_ends_probes``):

    * "all": on a scratch copy of ``P``, for each of the twelve probe failures
      (every lane and none, correctable or not, empty lookup or not), at every
      step. The stateful driver and the explorer's probe of each new state.
    * "observed": on ``P`` itself. The monitor asks ``failure_ends`` about each
      failure new to an open ``P`` just before ``P`` observes it, and the
      answer must match what ``P`` then did. The bulk driver: it costs one
      call per failure, where copying the budget for a probe at every step
      cost a tenth of the driver's time, and it checks the real budget rather
      than a copy of it.
    """
    history = step.history
    mode = history.failure_ends_probes
    budget = history.production_budget
    if mode == "observed":
        said = step.predicted
        if said is None or budget is None:
            return False, None
        lane = step.event.lane  # type: ignore[union-attr]  # a failure or receipt: a Result
        seen = failure_ended(budget, lane)
        if said != seen:
            event = step.event
            return True, (
                f"failure_ends(lane={lane!r}, correctable={event.correctable!r}, empty_lookup={event.empty_lookup!r}) "  # type: ignore[union-attr]  # a failure or receipt: a Result
                f"said {said}, observing gives {seen}"
            )
        return True, None
    if budget is None or mode == "off":
        return False, None
    for lane, correctable, empty in PROBES:
        said = budget.failure_ends(lane, **asked_flags(correctable, empty))
        seen = failure_outcome(budget, lane, correctable, empty, _SCRATCH)
        if said != seen:
            return True, f"failure_ends(lane={lane!r}, correctable={correctable}, empty_lookup={empty}) said {said}, observing gives {seen}"
    return True, None


#: The ways B13 may observe a failure; see ``b13_failure_ends_exact``.
FAILURE_ENDS_PROBES = ("all", "observed", "off")



CATALOGUE: tuple[Invariant, ...] = unique_ids((
    Invariant("B1", "001, 002", "omitted flags change nothing", b1_stripped_equals_reference, "budget"),
    Invariant("B2", "000, 001, 002", "never stops the run earlier", b2_never_stops_earlier, "budget"),
    Invariant("B3", "001", "never stops a lane earlier", b3_no_lane_earlier, "budget"),
    Invariant("B4", "001, 002", "the total cap is never deferred", b4_total_never_deferred, "budget"),
    Invariant("B5", "001", "bounded deferrals", b5_bounded_deferrals, "budget"),
    Invariant("B6", "001", "one result later at most", b6_one_result_later, "budget"),
    Invariant("B7", "001", "only a passing correction rescues", b7_only_a_pass_rescues, "budget"),
    Invariant("B8", "002", "each refusal kind granted once", b8_refusal_grants, "budget"),
    Invariant("B9", "002", "one failure past the fuse per admission", b9_one_failure_past_the_fuse, "budget"),
    Invariant("B10", "001, 002", "the rounds cap always holds", b10_rounds_cap, "budget"),
    Invariant("B11", "000", "free empty lookups are bounded and inert", b11_empty_lookups, "budget"),
    Invariant("B12", "001, 002", "stops are sticky, duplicates ignored", b12_sticky_stops, "budget"),
    Invariant("B13", "001", "failure_ends is exact", b13_failure_ends_exact, "budget"),
))

BY_ID = {invariant.id: invariant for invariant in CATALOGUE}


# -- verdicts --------------------------------------------------------------


#: The coverage counts ``invariants.md`` asks for, with their minimums in a default run.
COVERAGE_MINIMUMS = {
    "deferrals": 100,
    "rescues": 20,
    "admissions": 50,
    "runs reaching the 13th empty lookup": 20,
    "runs stopped by the total cap at consecutive 3": 20,
    "runs stopped by the rounds cap": 20,
}
