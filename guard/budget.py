"""The production run-progress budget: the reference rules plus seeds 000, 001 and 002.

The rules are those of ``shared/spec/budget.md`` ("Production budget"). With
every argument that the seeds added left out, this budget behaves exactly as
the frozen reference at every step (invariant B1); the property drivers in
``properties/`` check that and every other promise the seeds make.

Choices where the seeds and the spec are silent, made as a reviewer of a
safety guard would expect them:

* ``pending`` and ``discovery`` count when truthy, like ``failed``: they are
  the earlier budget's own arguments and must keep the earlier meaning. The
  new flags count only when exactly ``True`` (``correctable_refusal``: a
  non-empty string), so a stray truthy value never buys an allowance.
* An exhausted lane stays exhausted; a later success in it resets its counter
  but does not re-open it, as in the reference.
* "Would trip its fuse" means the charge takes the counter *to* the fuse,
  for the global counter as for a lane (which must not be exhausted yet).
  After an admitted remedy (seed 002) the run is open with the consecutive
  count already at the fuse; a correctable failure there is charged at once,
  because seed 002 promises that the next failure stops the run again at
  once, and seed 001 defers only "when that counter is at 3".
* ``failure_ends`` reports the state that observing the failure would leave:
  for a free empty lookup that changes nothing, it is true only when the
  failure's own lane is exhausted already.
"""

from __future__ import annotations

import json
from collections import deque
from typing import Any

import attrs

from guard.limits import Limits

#: Results from these tools only find things out; they neither charge nor reset.
DISCOVERY_TOOLS = frozenset({"tool_search", "tool_describe", "pixel_ods_skill"})

#: The two progress lanes; any other value means "no lane".
LANES = ("workspace", "extension")

#: The counter of a failure with no lane.
GLOBAL = "global"


def fingerprint(tool: Any, params: Any) -> str:
    """Canonical JSON of ``[tool, params]``: keys sorted at every depth, arrays in order."""
    return json.dumps([tool, params], sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=repr)


def lane_of(lane: Any) -> str | None:
    """The progress lane a result belongs to, or None for anything that is not a lane name."""
    if isinstance(lane, str) and lane in LANES:
        return lane
    return None


def refusal_kind(value: Any) -> str | None:
    """A correctable refusal kind counts only as a non-empty string."""
    if isinstance(value, str) and value:
        return value
    return None


@attrs.define(slots=True, eq=False)
class RunProgressBudget:
    """Counts failures and rounds without progress, with the seeds' three narrow relaxations."""

    limits: Limits = attrs.field(factory=Limits)
    rounds: int = 0
    failures: int = 0
    consecutive: int = 0
    terminal: bool = False
    lane_failures: dict[str, int] = attrs.field(factory=lambda: {lane: 0 for lane in LANES})
    exhausted_lanes: set[str] = attrs.field(factory=set)
    seen_calls: deque[str] = attrs.field(factory=deque)
    seen_call_set: set[str] = attrs.field(factory=set)
    successes: dict[str, int] = attrs.field(factory=dict)
    #: Seed 001: the counter whose charge waits one result (GLOBAL or a lane), or None.
    deferred: str | None = None
    deferrals_used: int = 0
    #: Seed 002: the refusal kind whose remedy may run once, or None.
    correction: str | None = None
    corrected_kinds: set[str] = attrs.field(factory=set)
    #: Seed 000: empty lookups observed free of charge in this run.
    free_lookups_used: int = 0

    # -- read-only views -------------------------------------------------

    @property
    def exhausted(self) -> bool:
        return self.terminal

    @property
    def pending_correction(self) -> str | None:
        """The refusal kind whose remedy may still be admitted; only while the run is stopped."""
        return self.correction if self.terminal else None

    def lane_exhausted(self, lane: Any) -> bool:
        return lane in self.exhausted_lanes

    # -- helpers ---------------------------------------------------------

    def _first_sighting(self, call_id: Any) -> bool:
        """Record a call id; False when it is not a usable id or was seen already."""
        if not isinstance(call_id, str) or not call_id or call_id in self.seen_call_set:
            return False
        self.seen_calls.append(call_id)
        self.seen_call_set.add(call_id)
        if len(self.seen_calls) > self.limits.seen_calls:
            self.seen_call_set.discard(self.seen_calls.popleft())
        return True

    def _would_trip(self, counter: str) -> bool:
        """Whether charging ``counter`` now would stop the run (global) or exhaust the lane."""
        limit = self.limits.consecutive_failures
        if counter == GLOBAL:
            return self.consecutive < limit and self.consecutive + 1 >= limit
        return counter not in self.exhausted_lanes and self.lane_failures[counter] + 1 >= limit

    def _may_defer(self, counter: str) -> bool:
        """Whether a correctable failure on ``counter`` may wait: nothing waits, allowance left, at the fuse."""
        return (
            self.deferred is None
            and self.deferrals_used < self.limits.corrected_attempts
            and self._would_trip(counter)
        )

    def _charge(self, counter: str) -> None:
        if counter == GLOBAL:
            self.consecutive += 1
            return
        self.lane_failures[counter] += 1
        if self.lane_failures[counter] >= self.limits.consecutive_failures:
            self.exhausted_lanes.add(counter)

    def _settle(self) -> None:
        limits = self.limits
        if (
            len(self.exhausted_lanes) >= len(LANES)
            or self.consecutive >= limits.consecutive_failures
            or self.failures >= limits.total_failures
        ):
            self.terminal = True

    # -- the hooks' entry points -------------------------------------------

    def observe_result(
        self,
        call_id: Any,
        tool: Any,
        params: Any,
        failed: Any,
        pending: Any = False,
        discovery: Any = False,
        lane: Any = None,
        correctable: Any = False,
        corrected: Any = False,
        correctable_refusal: Any = None,
        empty_lookup: Any = False,
    ) -> None:
        """Account one tool receipt."""
        # Stops are sticky and each call id counts once; without this a duplicate receipt double-charges.
        if self.terminal or not self._first_sighting(call_id):
            return
        lane = lane_of(lane)
        if failed:
            self._observe_failure(lane, correctable is True, refusal_kind(correctable_refusal), empty_lookup is True)
            return
        # Discovery neither charges nor forgives a waiting charge (seed 001); else a tool_search could launder a wait.
        if discovery or tool in DISCOVERY_TOOLS:
            return
        if self.deferred is not None:
            waiting = self.deferred
            self.deferred = None
            # Seed 001: only a passing correction in the same lane (or any, for a global charge) forgives; else any read rescues.
            if not (corrected is True and (waiting == GLOBAL or waiting == lane)):
                self._charge(waiting)
            self._settle()
            if self.terminal:
                return
        self.consecutive = 0
        if lane is not None:
            self.lane_failures[lane] = 0
        # A verified running-process receipt is progress; without this a long build would trip the rounds fuse.
        if pending:
            self.rounds = 0
            return
        key = fingerprint(tool, params)
        count = self.successes.get(key, 0) + 1
        self.successes[key] = count
        if len(self.successes) > self.limits.successes:
            del self.successes[next(iter(self.successes))]
        # The same success repeated is not progress; without the cap a loop of identical reads never stops.
        if count <= self.limits.identical_successes:
            self.rounds = 0

    def _observe_failure(self, lane: str | None, correctable: bool, kind: str | None, empty_lookup: bool) -> None:
        limits = self.limits
        # Seed 000: an empty search is an answer, not a failure, but only 12 per run, or a search loop would run forever.
        if empty_lookup and self.free_lookups_used < limits.free_empty_lookups:
            self.free_lookups_used += 1
            return
        # Seed 001: the total counts at once; deferring it would let a run pass 12 failures.
        self.failures += 1
        counter = lane if lane is not None else GLOBAL
        # Seed 001: wait only at the fuse, one at a time, twice a run; below the fuse a wait would spend allowance for nothing.
        if correctable and self._may_defer(counter):
            self.deferred = counter
            self.deferrals_used += 1
        else:
            self._charge(counter)
            # Seed 001: the next failure lands the waiting charge too, else a wait could outlive the one result it buys.
            if self.deferred is not None:
                self._charge(self.deferred)
                self.deferred = None
        self._settle()
        # Seed 002: a refusal naming its remedy may see that remedy once; never past the total cap, a lane trip or a second grant.
        if (
            self.terminal
            and lane is None
            and kind is not None
            and kind not in self.corrected_kinds
            and self.failures < limits.total_failures
            and len(self.exhausted_lanes) < len(LANES)
        ):
            self.corrected_kinds.add(kind)
            self.correction = kind

    def begin_model_round(self) -> bool:
        """Count one model call; more than the rounds limit without progress stops the run."""
        self.rounds += 1
        if self.rounds > self.limits.rounds_without_progress:
            self.terminal = True
            # Seed 002: the rounds cap outranks a pending remedy, or an idle model could reopen a stopped run.
            self.correction = None
        return self.terminal

    def stop(self) -> None:
        """Another guard stopped the run: sticky, and it leaves no correction to admit (seed 002)."""
        self.terminal = True
        self.correction = None

    def correct_fuse(self, remedy: Any) -> bool:
        """Decide the first tool call after a correctable refusal tripped the fuse.

        The correction is spent whatever the answer. Only ``remedy is True``
        re-opens the run, with every counter unchanged: the consecutive count
        stays at the fuse, so the remedy's own failure stops the run again.
        """
        if not self.terminal or self.correction is None:
            return False
        # Seed 002: spent on the first call either way; else a model could try other calls until one fits.
        self.correction = None
        if remedy is not True:
            return False
        self.terminal = False
        return True

    def failure_ends(self, lane: Any = None, correctable: Any = False, empty_lookup: Any = False) -> bool:
        """Whether one more failure with these flags would stop the run or its lane, or the next round would.

        Read-only and exact: it agrees with ``observe_result`` on a copy in
        every reachable state (invariant B13).
        """
        limits = self.limits
        if self.terminal or self.rounds >= limits.rounds_without_progress:
            return True
        lane = lane_of(lane)
        if empty_lookup is True and self.free_lookups_used < limits.free_empty_lookups:
            return lane is not None and lane in self.exhausted_lanes
        if self.failures + 1 >= limits.total_failures:
            return True
        counter = lane if lane is not None else GLOBAL
        # A charge that would wait lands nothing now, but a re-opened run (seed 002) still stands at its fuse.
        charges = () if correctable is True and self._may_defer(counter) else (counter, self.deferred)
        consecutive = self.consecutive
        lane_failures = dict(self.lane_failures)
        exhausted = set(self.exhausted_lanes)
        for charged in charges:
            if charged == GLOBAL:
                consecutive += 1
            elif charged is not None:
                lane_failures[charged] += 1
                if lane_failures[charged] >= limits.consecutive_failures:
                    exhausted.add(charged)
        return (
            consecutive >= limits.consecutive_failures
            or len(exhausted) >= len(LANES)
            or (lane is not None and lane in exhausted)
        )
