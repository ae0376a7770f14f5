"""Hypothesis state machines: every copy through the same events, every invariant at every step.

One machine, ``BudgetMachine``. Its rules build events (model rounds, results
with every lane value and flag, duplicate and unusable call ids, bursts of
empty lookups, failure streaks on one counter, idle stretches, the first call
after a trip, ``stop()``) and hand each to ``Monitor.step``; a violation fails
the example with the invariant's message and Hypothesis shrinks it.

Rules are chosen roughly uniformly, which starves deep states, so:

* each example draws *swarm weights* at ``@initialize`` (how often results
  fail, carry a lane, are correctable, corrected, refusals, empty lookups,
  duplicates); some examples are all lookups, some all failures at the fuse;
* several rules emit a burst (a streak of failures on one counter up to its
  fuse, up to 13 empty lookups, up to 9 idle rounds), so a 50-step example
  reaches the total cap, the 13th lookup and the rounds cap;
* what an example reached is recorded with ``hypothesis.event()`` and counted
  per run (the coverage counts of ``invariants.md``).

The copies use each budget's own defaults and the monitor judges against
``SPEC_LIMITS`` (see ``properties.budget.bulk``). ``run_stateful`` runs the machine
programmatically with a seed (``@seed``) and a profile from
``properties.profiles``; the same seed replays the same examples.

The machine keeps no module-level state: what one run accumulates (its
tally, the examples that reached each coverage count, the last failure) and
how it is configured (which invariants, which copies) live in a
``MachineRun`` bound to a subclass made for that run (``machine_for``), so two
runs in one process never share counts and a test plants a bug by passing
``copies=``. ``standalone()`` is the same machine for pytest and
HypoFuzz: every invariant, the real copies.
"""

from __future__ import annotations

from typing import Any, Callable

import attrs
from hypothesis import event, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from properties.machines import StatefulResult, driver_settings, run_machine, stateful_result
from properties import profiles  # noqa: F401  (registers the profiles run_stateful looks up)
from properties.budget.copies import SPEC_LIMITS, default_copies
from properties.budget.generate import BAD_IDS, PARAMS, REMEDY, NO_REMEDY, ROUND, STOP
from properties.budget.events import Event, Result
from properties.budget.monitor import Monitor, new_monitor
from properties.catalogue import Tally, Violation
from properties.names import LANE_NAMES, LANE_VALUES, REFUSAL_KINDS as KINDS


@attrs.define
class MachineRun:
    """What one run of the machine accumulates, and how it is configured."""

    tally: Tally = attrs.field(factory=Tally)
    #: Invariants to check (None: the whole catalogue).
    only: "tuple[Any, ...] | None" = None
    #: Makes the copies of each trace; a test passes a planted one to see the machine find its bug.
    copies: Callable[[], dict[str, Any]] = default_copies
    #: Per-example flags reached, counted once per example: name -> number of examples.
    reached: dict[str, int] = attrs.field(factory=dict)
    #: (events, violation) of the last failing example (after shrinking: the minimal one), or None.
    failure: "tuple[list[Event], Violation] | None" = None


P = st.integers(0, 99)


@attrs.frozen
class Draw:
    """The percentiles one ``result`` rule draws, by what each decides (compared with the example's weights)."""

    fail: int
    lane: int
    sticky_lane: int
    correctable: int
    corrected: int
    refusal: int
    empty_lookup: int
    palette: int
    #: A success's shape: below 8 pending, 92 and above discovery.
    shape: int


DRAWS = st.builds(
    Draw, fail=P, lane=P, sticky_lane=P, correctable=P, corrected=P, refusal=P, empty_lookup=P, palette=P, shape=P,
)


#: P's counters whose every new height in an example is an event (``BudgetMachine._heights``).
COUNTERS = ("failures", "consecutive", "rounds", "deferrals_used", "free_lookups_used")


class BudgetMachine(RuleBasedStateMachine):
    """All copies, one trace, one monitor; rules weighted per example (swarm testing).

    Run it through a subclass from ``machine_for`` (or ``standalone``), which binds the run's
    ``MachineRun``; the base class has none.
    """

    #: Set on the subclass ``machine_for`` makes: every machine that runs has one.
    run: "MachineRun" = None  # type: ignore[assignment]

    @initialize(
        fail=st.sampled_from((20, 50, 70, 90)),
        lane=st.sampled_from((0, 30, 60, 90)),
        correctable=st.sampled_from((0, 40, 80)),
        corrected=st.sampled_from((0, 40, 80)),
        refusal=st.sampled_from((0, 40, 90)),
        lookup=st.sampled_from((0, 20, 60)),
        duplicate=st.sampled_from((0, 10, 30)),
        palette=st.sampled_from((10, 60, 95)),
        stops=st.sampled_from((0, 0, 5)),
    )
    def start(self, **weights: int) -> None:
        self.weights = weights
        #: The highest each of P's counters got in this example (``_heights``).
        self.heights: dict[str, int] = {}
        self.ids: list[str] = []
        self.lane: Any = None
        self._new_trace()

    def _new_trace(self) -> None:
        """A fresh run for every copy. An example starts one whenever the last has stopped for good."""
        run = self.run
        self.budgets = run.copies()
        options: dict[str, Any] = {}
        if run.only is not None:
            options["invariants"] = run.only
        self.monitor: Monitor = new_monitor(run.tally, limits=SPEC_LIMITS, budgets=self.budgets, **options)
        self.events: list[Event] = []
        self.reached: set[str] = set()
        self.tail = 0

    # -- helpers -------------------------------------------------------------

    def _step(self, item: Event) -> None:
        self.events.append(item)
        run = self.run
        coverage = run.tally.coverage
        before = dict(coverage)
        found = self.monitor.step(item)
        self._heights(self.budgets.get("P"))
        for name, count in coverage.items():
            if count != before.get(name, 0) and name not in self.reached:
                self.reached.add(name)
                run.reached[name] = run.reached.get(name, 0) + 1
                event(f"reached: {name}")
        if found:
            run.failure = (list(self.events), found[0])
            raise AssertionError("\n".join(f"VIOLATED {v.invariant} {v}" for v in found))
        if all(b.terminal and getattr(b, "correction", None) is None for b in self.budgets.values()):
            # Stopped for good: a few more receipts exercise stickiness (B12), then a new run keeps steps useful.
            self.tail += 1
            if self.tail > 3:
                event("a run ended and a new one started")
                self._new_trace()

    def _heights(self, budget: Any) -> None:
        """Each new height one of P's counters reaches in this example is an ``event()`` (issue 21, guidance).

        A fuzzer keeps an input that shows a behaviour no other input showed, and
        HypoFuzz counts each distinct event as one; branch coverage cannot tell
        the 11th free lookup from the 1st (the same line takes both), so without
        these the corpus stops growing long before the counters near their caps.
        Plain Hypothesis only tallies events: they change no draw and no verdict.
        """
        if budget is None:
            return
        heights = self.heights
        readings = [(name, getattr(budget, name, 0)) for name in COUNTERS]
        readings.extend((f"lane_failures[{lane}]", count) for lane, count in getattr(budget, "lane_failures", {}).items())
        readings.append(("corrected_kinds", len(getattr(budget, "corrected_kinds", ()))))
        for name, value in readings:
            if isinstance(value, int) and value > heights.get(name, 0):
                heights[name] = value
                event(f"P's {name} reached", value)

    def _fresh(self) -> str:
        call_id = f"s{len(self.ids)}"
        self.ids.append(call_id)
        return call_id

    def _lane(self, pick: int, sticky: int) -> Any:
        if sticky < 60 and self.events:
            return self.lane
        self.lane = LANE_VALUES[pick % len(LANE_VALUES)] if pick < self.weights["lane"] else None
        return self.lane

    # -- rules -----------------------------------------------------------------

    @rule(r=DRAWS, kind=st.sampled_from(KINDS), params=st.integers(0, len(PARAMS) - 1))
    def result(self, r: Draw, kind: str, params: int) -> None:
        """One receipt; failure, lane and flags follow this example's weights."""
        w = self.weights
        failed = r.fail < w["fail"]
        lane = self._lane(r.lane, r.sticky_lane)
        if failed:
            item = Result(
                self._fresh(), "exec", PARAMS[params], True, lane=lane,
                correctable=r.correctable < w["correctable"], corrected=r.corrected < 5,
                correctable_refusal=kind if r.refusal < w["refusal"] else None,
                empty_lookup=r.empty_lookup < w["lookup"],
            )
        else:
            same = r.palette < w["palette"]
            item = Result(
                self._fresh(), "read", PARAMS[params] if same else {"n": len(self.ids)}, False, lane=lane,
                corrected=r.corrected < w["corrected"], pending=r.shape < 8, discovery=r.shape >= 92,
            )
        self._step(item)

    @rule(lane=st.sampled_from(LANE_VALUES), count=st.integers(1, 4), correctable=st.booleans(), kind=st.sampled_from((None,) + KINDS))
    def failure_streak(self, lane: Any, count: int, correctable: bool, kind: str | None) -> None:
        """Failures on one counter up to its fuse; the last one may be correctable (a deferral) or a refusal."""
        for index in range(count):
            last = index == count - 1
            self._step(Result(
                self._fresh(), "exec", None, True, lane=lane,
                correctable=correctable and last, correctable_refusal=kind if last and lane is None else None,
            ))

    @rule(lane=st.sampled_from(LANE_VALUES), corrected=st.booleans(), tool=st.sampled_from(("inspect", "tool_search", "read")))
    def success(self, lane: Any, corrected: bool, tool: str) -> None:
        """A success that may rescue (corrected, in a lane or none) or be discovery."""
        self._step(Result(self._fresh(), tool, {"n": len(self.ids)}, False, lane=lane, corrected=corrected))

    @precondition(lambda self: self.weights["lookup"] > 0)
    @rule(count=st.integers(1, 13), lane=st.sampled_from(LANE_VALUES), with_rounds=st.sampled_from((False, False, True)))
    def lookups(self, count: int, lane: Any, with_rounds: bool) -> None:
        """A burst of empty lookups (the 13th of a run is an ordinary failure), maybe between model rounds."""
        for _ in range(count):
            if with_rounds:
                self._step(ROUND)
            self._step(Result(self._fresh(), "exec", {"q": "grep"}, True, lane=lane, empty_lookup=True))

    @rule(count=st.sampled_from((1, 1, 1, 2, 3, 5, 9)))
    def idle(self, count: int) -> None:
        """Model rounds without progress."""
        for _ in range(count):
            self._step(ROUND)

    @rule(remedy=st.booleans())
    def first_call(self, remedy: bool) -> None:
        """The first tool call after a trip: the remedy of a pending refusal, or not."""
        self._step(REMEDY if remedy else NO_REMEDY)

    @precondition(lambda self: self.weights["duplicate"] > 0 and bool(self.ids))
    @rule(back=st.integers(1, 30), failed=st.booleans())
    def duplicate(self, back: int, failed: bool) -> None:
        """A receipt reusing an earlier call id: ignored."""
        call_id = self.ids[max(0, len(self.ids) - back)]
        self._step(Result(call_id, "exec", None, failed))

    @rule(bad=st.sampled_from(BAD_IDS), failed=st.booleans())
    def unusable_id(self, bad: Any, failed: bool) -> None:
        self._step(Result(bad, "exec", None, failed))

    @precondition(lambda self: self.weights["stops"] > 0)
    @rule(r=P)
    def stop(self, r: int) -> None:
        """Another guard stops the run (rarely, and only in examples that allow it)."""
        if r < 20:
            self._step(STOP)

    @rule(lane=st.sampled_from(LANE_VALUES), correctable=st.sampled_from((True, True, False)), kind=st.sampled_from((None,) + KINDS))
    def to_the_fuse(self, lane: Any, correctable: bool, kind: str | None) -> None:
        """Plain failures on one counter until it stands one below its fuse, then one that would trip it."""
        budget = self.budgets["P"]
        fuse = SPEC_LIMITS.consecutive_failures
        counter = lane if lane in LANE_NAMES else None
        count = budget.lane_failures[counter] if counter else budget.consecutive
        for _ in range(max(0, fuse - 1 - count)):
            self._step(Result(self._fresh(), "exec", None, True, lane=lane))
        self._step(Result(self._fresh(), "exec", None, True, lane=lane, correctable=correctable, correctable_refusal=kind if counter is None else None))

    @precondition(lambda self: self.weights["refusal"] > 0)
    @rule(kind=st.sampled_from(KINDS), remedy=st.sampled_from((True, True, False)), after=st.sampled_from(("fail", "ok", "round", "none")))
    def refusal_trip(self, kind: str, remedy: bool, after: str) -> None:
        """Global failures up to the fuse, the last a refusal naming its remedy, then the first call after the trip."""
        budget = self.budgets["P"]
        for _ in range(max(0, SPEC_LIMITS.consecutive_failures - 1 - budget.consecutive)):
            self._step(Result(self._fresh(), "exec", None, True))
        self._step(Result(self._fresh(), "write", None, True, correctable_refusal=kind))
        self._step(REMEDY if remedy else NO_REMEDY)
        if after == "fail":
            self._step(Result(self._fresh(), "write", None, True, correctable_refusal=KINDS[1 - KINDS.index(kind)]))
        elif after == "ok":
            self._step(Result(self._fresh(), "write", {"n": len(self.ids)}, False))
        elif after == "round":
            self._step(ROUND)

    @rule(pick=P, other=st.sampled_from(LANE_VALUES))
    def resolve_wait(self, pick: int, other: Any) -> None:
        """The result after a charge started waiting: mostly a passing correction in its lane."""
        waiting = self.budgets["P"].deferred
        lane = waiting if waiting in LANE_NAMES else other
        if pick < 70:
            self._step(Result(self._fresh(), "inspect", {"n": len(self.ids)}, False, lane=lane, corrected=True))
        elif pick < 80:
            self._step(Result(self._fresh(), "inspect", {"n": len(self.ids)}, False, lane=other, corrected=True))
        elif pick < 90:
            self._step(Result(self._fresh(), "tool_search", None, False, lane=lane))
        else:
            self._step(Result(self._fresh(), "exec", None, True, lane=lane))

    @invariant()
    def reached_states(self) -> None:
        """Label where the example is, for ``--hypothesis-show-statistics``-style summaries."""
        budget = self.budgets["P"]
        if budget.deferred is not None:
            event("P: a charge waits")
        if budget.terminal and budget.correction is not None:
            event("P: a remedy is pending")


def machine_for(run: MachineRun) -> type:
    """A subclass of ``BudgetMachine`` bound to ``run`` (what it checks, which copies, where it counts)."""
    return type("BudgetMachine", (BudgetMachine,), {"run": run})


def standalone() -> type:
    """The machine as a standalone test class (pytest, HypoFuzz): every invariant, the real copies.

    A violation fails the example with an ``AssertionError`` whose lines read ``VIOLATED <id> ...``.
    """
    return machine_for(MachineRun())


def run_stateful(
    seed: int, profile: str, tally: Tally, *, examples: int | None = None, steps_per_example: int = 50,
    only: tuple[Any, ...] | None = None, shrink: bool = True, copies: Callable[[], dict[str, Any]] | None = None,
) -> StatefulResult:
    """Run the machine with ``seed`` under ``profile``; merge what it checked into ``tally``."""
    run = MachineRun(only=only, copies=copies or default_copies)
    chosen = driver_settings(profile, examples, steps_per_example, shrink)
    outcome = run_machine(machine_for(run), chosen, seed, lambda: run.failure)
    result = stateful_result(seed, profile, chosen, outcome, run.tally, tally)
    result.reached = dict(run.reached)
    return result
