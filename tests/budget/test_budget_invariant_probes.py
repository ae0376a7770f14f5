"""Each of B1-B13 can fail: the smallest bug it exists to catch, planted in production, is reported by it alone.

Every probe plants one bug in a subclass of ``RunProgressBudget`` (never an edit of ``guard/``), hands that
class to every production copy (a bug in ``guard/budget.py`` reaches every copy), drives a short hand-written
trace through the real ``Monitor`` with only the probed invariant selected, and asserts that invariant is
violated. The same trace over the unplanted budgets must pass and exercise the invariant, or the probe would
prove nothing. What each trace must do comes from ``shared/spec/budget.md`` and ``invariants.md`` (a fuse of 4,
a total cap of 12, 8 rounds, 2 deferrals, 12 free lookups), typed into the traces, never read from the guard.
"""

from __future__ import annotations

from typing import Any, Callable

import attrs

from guard.budget import RunProgressBudget
from guard.limits import Limits
from properties.budget.copies import PRODUCTION_COPIES, SPEC_LIMITS
from properties.budget.events import Event, FirstCall, Result, Round
from properties.budget.invariants import BY_ID
from properties.budget.monitor import Monitor
from properties.catalogue import Tally, Violation
from properties.probes import Probes
from reference.budget import ReferenceBudget, ReferenceLimits

PROBED = Probes()

KIND = "playground-first-write"


# -- trace pieces ------------------------------------------------------------------


def fail(call_id: str, **flags: Any) -> Result:
    return Result(call_id, tool="exec", params={"command": call_id}, failed=True, **flags)


def success(call_id: str, **flags: Any) -> Result:
    return Result(call_id, tool="read", params={"path": call_id}, failed=False, **flags)


def failures(prefix: str, count: int, **flags: Any) -> list[Event]:
    return [fail(f"{prefix}{number}", **flags) for number in range(count)]


# -- judging -------------------------------------------------------------------


def judge(invariant: str, trace: list[Event], production: Callable[[], RunProgressBudget]) -> tuple[list[Violation], Tally]:
    """Every step of ``trace`` through a monitor checking only ``invariant``; production copies from ``production``."""
    copies: dict[str, Any] = {"R": ReferenceBudget(ReferenceLimits())}
    for name in PRODUCTION_COPIES:
        copies[name] = production()
    tally = Tally()
    # Judged against the spec's numbers, not the budgets' own defaults.
    monitor = Monitor(limits=SPEC_LIMITS, tally=tally, budgets=copies, invariants=(BY_ID[invariant],))
    found = [violation for event in trace for violation in monitor.step(event)]
    return found, tally


def assert_caught(invariant: str, trace: list[Event], planted: Callable[[], RunProgressBudget], at: int) -> None:
    """``invariant`` breaks first at step ``at`` with the bug planted, and holds (exercised) without it."""
    found, _tally = judge(invariant, trace, planted)
    assert found, f"{invariant} missed its planted bug"
    assert {violation.invariant for violation in found} == {invariant}
    assert found[0].step == at, found[0]
    honest, tally = judge(invariant, trace, RunProgressBudget)
    assert honest == [], honest
    assert tally.exercised[invariant] > 0, f"the trace never exercises {invariant} on the real budget"


# -- the probes ------------------------------------------------------------------


class DefersWithoutTheFlag(RunProgressBudget):
    """Every failure is taken as correctable, so a failure without the seed's flag may wait at the fuse."""

    def observe_result(self, call_id: Any, tool: Any, params: Any, failed: Any, *args: Any, **flags: Any) -> None:
        super().observe_result(call_id, tool, params, failed, *args, **{**flags, "correctable": True})


@PROBED("B1")
def test_b1_catches_a_deferral_without_the_correctable_flag() -> None:
    """Plants: the deferral no longer asks for ``correctable``. Breaks: "with every new argument omitted,
    production behaves exactly like the reference" (seed 001's change must be invisible without its flag):
    P0's fourth failure waits where R stops."""
    assert_caught("B1", failures("f", 4), DefersWithoutTheFlag, at=3)


class RoundsCapOneEarly(RunProgressBudget):
    """The rounds cap stops the run at the 8th round without progress, where the spec stops it at the 9th."""

    def begin_model_round(self) -> bool:
        stopped = super().begin_model_round()
        if self.rounds >= self.limits.rounds_without_progress and not stopped:
            self.terminal = True
        return self.terminal


@PROBED("B2")
def test_b2_catches_a_rounds_cap_one_round_early() -> None:
    """Plants: ``rounds >= 8`` stops the run instead of ``rounds > 8``. Breaks: no production copy stops the run
    earlier than the reference (seeds 000-002 only ever relax the budget)."""
    assert_caught("B2", [Round()] * 9, RoundsCapOneEarly, at=7)


class CorrectedSuccessKeepsItsLane(RunProgressBudget):
    """A success flagged ``corrected`` skips the reset of its lane's counter (the rescue path returns early)."""

    def observe_result(self, call_id: Any, tool: Any, params: Any, failed: Any, *args: Any, **flags: Any) -> None:
        lane = flags.get("lane")
        kept = self.lane_failures.get(lane) if isinstance(lane, str) else None
        quiet = not failed and flags.get("corrected") is True and self.deferred is None
        super().observe_result(call_id, tool, params, failed, *args, **flags)
        if quiet and kept is not None:
            self.lane_failures[lane] = kept


@PROBED("B3")
def test_b3_catches_a_corrected_success_that_does_not_reset_its_lane() -> None:
    """Plants: a ``corrected`` success leaves its lane's failures standing. Breaks: no production copy exhausts a
    lane earlier than the reference (seed 001): after two failures, a success and two more, only the planted
    budget has four in the workspace lane while R has two. The last two failures exhaust the lane in both."""
    lane = {"lane": "workspace"}
    trace = failures("a", 2, **lane) + [success("s", corrected=True, **lane)] + failures("b", 4, **lane)
    assert_caught("B3", trace, CorrectedSuccessKeepsItsLane, at=4)


class TotalWaitsWithTheCharge(RunProgressBudget):
    """A failure whose charge waits is left out of the total, as if the total could wait with it."""

    def observe_result(self, call_id: Any, tool: Any, params: Any, failed: Any, *args: Any, **flags: Any) -> None:
        used = self.deferrals_used
        super().observe_result(call_id, tool, params, failed, *args, **flags)
        if self.deferrals_used > used:
            self.failures -= 1


@PROBED("B4")
def test_b4_catches_a_total_that_waits_with_the_charge() -> None:
    """Plants: the waiting failure is not added to the total. Breaks: the total cap is never deferred, every
    charged failure counts in its own step (seed 001)."""
    trace = failures("f", 3) + [fail("inspect", correctable=True)]
    assert_caught("B4", trace, TotalWaitsWithTheCharge, at=3)


def three_deferrals_a_run() -> RunProgressBudget:
    """The allowance of corrected attempts is 3 where the spec grants 2 per run."""
    return RunProgressBudget(attrs.evolve(Limits(), corrected_attempts=3))


@PROBED("B5")
def test_b5_catches_a_third_deferral_in_a_run() -> None:
    """Plants: 3 deferrals per run. Breaks: "at most one waits, two per run" (seed 001). Each round of the trace
    takes the global count to 3, waits on a correctable failure and is rescued by a passing correction; the
    third wait is the planted one."""
    rescued = []
    for attempt in "ab":
        rescued += failures(attempt, 3) + [fail(f"{attempt}-inspect", correctable=True), success(f"{attempt}-pass", corrected=True)]
    trace = rescued + failures("c", 3) + [fail("c-inspect", correctable=True)]
    assert_caught("B5", trace, three_deferrals_a_run, at=13)


class WaitOutlivesAFailure(RunProgressBudget):
    """The next failure charges only its own counter and leaves a waiting charge waiting."""

    def observe_result(self, call_id: Any, tool: Any, params: Any, failed: Any, *args: Any, **flags: Any) -> None:
        waiting = self.deferred
        if failed and waiting is not None:
            self.deferred = None
        super().observe_result(call_id, tool, params, failed, *args, **flags)
        if waiting is not None and self.deferred is None and not self.terminal:
            self.deferred = waiting


@PROBED("B6")
def test_b6_catches_a_wait_that_outlives_the_next_failure() -> None:
    """Plants: a failure in a lane does not land the waiting global charge. Breaks: without a passing
    correction the run stops at most one non-neutral result after the reference (seed 001): Pu is still open
    after the workspace failure that follows its wait, R stopped one result earlier."""
    trace = failures("f", 3) + [fail("inspect", correctable=True), fail("w", lane="workspace")]
    assert_caught("B6", trace, WaitOutlivesAFailure, at=4)


class RescueInAnyLane(RunProgressBudget):
    """A corrected success forgives a waiting charge whatever lane either is in (the lane comparison is gone)."""

    def observe_result(self, call_id: Any, tool: Any, params: Any, failed: Any, *args: Any, **flags: Any) -> None:
        if not failed and flags.get("corrected") is True and self.deferred is not None and not self.terminal:
            # Forgiven like a global charge, which any lane's passing correction may forgive.
            self.deferred = "global"
        super().observe_result(call_id, tool, params, failed, *args, **flags)


@PROBED("B7")
def test_b7_catches_a_rescue_from_another_lane() -> None:
    """Plants: a passing correction in the extension lane forgives a charge waiting in the workspace lane.
    Breaks: a waiting charge is forgiven only by a corrected success in its own lane, or any lane for a
    global charge (seed 001)."""
    workspace = {"lane": "workspace"}
    trace = failures("w", 3, **workspace) + [
        fail("inspect", correctable=True, **workspace),
        success("pass", corrected=True, lane="extension"),
    ]
    assert_caught("B7", trace, RescueInAnyLane, at=4)


class GrantsAKindAgain(RunProgressBudget):
    """The once-per-kind check is gone: a kind granted before may be granted again."""

    def observe_result(self, call_id: Any, tool: Any, params: Any, failed: Any, *args: Any, **flags: Any) -> None:
        granted = set(self.corrected_kinds)
        self.corrected_kinds.clear()
        try:
            super().observe_result(call_id, tool, params, failed, *args, **flags)
        finally:
            self.corrected_kinds |= granted


def trip_admit_fail() -> list[Event]:
    """Four failures, the fourth a refusal naming its remedy; the remedy admitted; then the remedy fails with the same kind."""
    return failures("f", 3) + [fail("refused", correctable_refusal=KIND), FirstCall(remedy=True), fail("again", correctable_refusal=KIND)]


@PROBED("B8")
def test_b8_catches_a_kind_granted_twice() -> None:
    """Plants: a refusal kind may be granted again. Breaks: each refusal kind is granted at most once per run
    (seed 002): the remedy's own refusal of the same kind pends a second correction."""
    assert_caught("B8", trip_admit_fail(), GrantsAKindAgain, at=5)


class SecondFailurePastTheFuse(RunProgressBudget):
    """After an admitted remedy the run stops only at the second failure past the fuse, not the first."""

    reopened = False

    def correct_fuse(self, remedy: Any) -> bool:
        admitted = super().correct_fuse(remedy)
        self.reopened = self.reopened or admitted
        return admitted

    def observe_result(self, call_id: Any, tool: Any, params: Any, failed: Any, *args: Any, **flags: Any) -> None:
        was = self.terminal
        super().observe_result(call_id, tool, params, failed, *args, **flags)
        if self.reopened and self.terminal and not was and self.failures < self.limits.total_failures and not self.exhausted_lanes:
            self.reopened = False
            self.terminal = False
            self.correction = None


@PROBED("B9")
def test_b9_catches_a_remedy_that_buys_two_failures() -> None:
    """Plants: the first failure after an admission does not stop the run again. Breaks: "the next failure
    stops the run again at once" (seed 002): Pr is open at consecutive 5 with one admission in the streak,
    where at most 3 + 1 is allowed. The unplanted run stops at that failure."""
    trace = failures("f", 3) + [fail("refused", correctable_refusal=KIND), FirstCall(remedy=True), fail("remedy-fails")]
    assert_caught("B9", trace, SecondFailurePastTheFuse, at=5)


class RoundsCapKeepsTheCorrection(RunProgressBudget):
    """Passing the rounds cap leaves a pending correction in place."""

    def begin_model_round(self) -> bool:
        correction = self.correction
        stopped = super().begin_model_round()
        self.correction = correction
        return stopped


@PROBED("B10")
def test_b10_catches_a_correction_that_survives_the_rounds_cap() -> None:
    """Plants: a round past the cap no longer clears the pending correction. Breaks: more than 8 rounds without
    progress always stop the run and clear a pending correction (seed 002: never past the rounds cap), so a
    late remedy could re-open a run that ran out of rounds."""
    trace = failures("f", 3) + [fail("refused", correctable_refusal=KIND)] + [Round()] * 9
    assert_caught("B10", trace, RoundsCapKeepsTheCorrection, at=12)


class FreeLookupResetsRounds(RunProgressBudget):
    """A free empty lookup counts as progress: it resets the rounds without progress."""

    def observe_result(self, call_id: Any, tool: Any, params: Any, failed: Any, *args: Any, **flags: Any) -> None:
        free = self.free_lookups_used
        super().observe_result(call_id, tool, params, failed, *args, **flags)
        if self.free_lookups_used > free:
            self.rounds = 0


@PROBED("B11")
def test_b11_catches_a_free_lookup_that_resets_rounds() -> None:
    """Plants: a free lookup resets the rounds. Breaks: "a free lookup resets nothing; a search-only run still
    stops on rounds" (seed 000)."""
    trace = [Round(), Round(), fail("grep", empty_lookup=True)]
    assert_caught("B11", trace, FreeLookupResetsRounds, at=2)


class ReopensWithoutACorrection(RunProgressBudget):
    """``correct_fuse(True)`` re-opens any stopped run, pending correction or not."""

    def correct_fuse(self, remedy: Any) -> bool:
        if self.terminal and self.correction is None and remedy is True:
            self.terminal = False
            return True
        return super().correct_fuse(remedy)


@PROBED("B12")
def test_b12_catches_a_stop_reopened_without_a_pending_correction() -> None:
    """Plants: the remedy re-opens a run whose stop left no correction. Breaks: stops are sticky, only
    ``correct_fuse(True)`` with a pending correction re-opens (seeds 001, 002). A late failure follows so
    that the unplanted run exercises the stickiness."""
    trace = failures("f", 4) + [FirstCall(remedy=True), fail("late")]
    assert_caught("B12", trace, ReopensWithoutACorrection, at=4)


class EndsIgnoringTheWait(RunProgressBudget):
    """``failure_ends`` forgets that a correctable failure at the fuse would wait instead of stopping the run."""

    def failure_ends(self, lane: Any = None, correctable: Any = False, empty_lookup: Any = False) -> bool:
        return super().failure_ends(lane, correctable=False, empty_lookup=empty_lookup)


@PROBED("B13")
def test_b13_catches_failure_ends_that_ignores_a_wait() -> None:
    """Plants: ``failure_ends`` ignores ``correctable``. Breaks: ``failure_ends`` is exact (seed 001, "false
    when the failure's charge would wait"): at consecutive 3 it says a correctable global failure ends the run,
    where observing one makes it wait."""
    assert_caught("B13", failures("f", 3), EndsIgnoringTheWait, at=2)
