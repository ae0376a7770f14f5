"""The hook subject's Hypothesis state machine: one hook sequence per example, every invariant at every step.

``@initialize`` draws the run's setting: Playground routing or a website
task, strict stop or not, the order policy (every call after-first, every
call persist-first, or each call's own), and whether the example stays in
H1's scope. Rules append events through the same ``Builder`` the bulk driver
uses (single calls of every kind and binding, model calls, owner cancels,
the router going inactive, the trip and deferral motifs) and hand each new
event to ``HookMonitor.step``; a violation fails the example with lines
``VIOLATED <id> ...`` and Hypothesis shrinks it.

No module-level state: a run's tally, failure and options live in a
``MachineRun`` bound to a subclass made for it (``machine_for``).
"""

from __future__ import annotations


import attrs
from hypothesis import event, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, precondition, rule

from properties.machines import StatefulResult, driver_settings, run_machine, stateful_result
from properties import profiles  # noqa: F401  (registers the profiles run_stateful looks up)
from properties.catalogue import Invariant, Tally, Violation
from properties.hooks.events import HookEvent, HookSequence
from properties.hooks.generate import (
    AFTER_TRIP, PLAYGROUND_WEIGHTED, POLICIES, RECORD_IDS_WEIGHTED, WEBSITE_WEIGHTED, Builder,
)
from properties.hooks.invariants import CATALOGUE
from properties.hooks.monitor import HookMonitor
from properties.hooks.shapes import BINDINGS, WORKSPACE_ROOT, call_shape


@attrs.define
class MachineRun:
    """What one run of the machine accumulates, and which invariants it checks."""

    tally: Tally = attrs.field(factory=Tally)
    only: "tuple[Invariant, ...] | None" = None
    #: (the failing sequence, its violation), the last one found (after shrinking: the minimal one).
    failure: "tuple[HookSequence, Violation] | None" = None


class HookMachine(RuleBasedStateMachine):
    """One run's guards through one generated hook sequence."""

    #: Set on the subclass ``machine_for`` makes: every machine that runs has one.
    run: "MachineRun" = None  # type: ignore[assignment]

    @initialize(
        playground=st.booleans(),
        policy=st.sampled_from(POLICIES),
        strict=st.sampled_from((False, False, False, True)),
        scoped=st.sampled_from((True, True, True, False)),
        rooted=st.booleans(),
    )
    def start(self, playground: bool, policy: str, strict: bool, scoped: bool, rooted: bool) -> None:
        # Every example builds its call shapes afresh: with the cache warm from earlier examples, replaying an
        # example runs less code than its first run did, and a coverage-guided fuzzer (HypoFuzz) keeps only inputs
        # whose replay covers the same code, so it kept none. Shapes are still shared within the example.
        call_shape.cache_clear()
        self.builder = Builder(playground=playground, policy=policy, scoped=scoped, strict_stop=playground and strict,
                               root=WORKSPACE_ROOT if playground and rooted else None)
        self.monitor = HookMonitor(self.run.tally, self.run.only or CATALOGUE)
        self.monitor.start(self.builder.build())
        self.delivered = 0

    def _deliver(self) -> None:
        """Hand every event the last rule added to the monitor."""
        events = self.builder.events
        while self.delivered < len(events):
            item: HookEvent = events[self.delivered]
            self.delivered += 1
            found = self.monitor.step(item)
            if found:
                self.run.failure = (attrs.evolve(self.builder.build(), events=tuple(events[: self.delivered])), found[0])
                raise AssertionError("\n".join(f"VIOLATED {v.invariant} {v}" for v in found))

    @rule(pick=st.integers(0, 10_000), binding=st.sampled_from(BINDINGS), record=st.booleans(), capped=st.booleans(),
          order_pick=st.floats(0, 1), record_id=st.sampled_from(RECORD_IDS_WEIGHTED))
    def call(self, pick: int, binding: str, record: bool, capped: bool, order_pick: float, record_id: str) -> None:
        """One tool call of a kind weighted for the setting, with any binding and any id for its record."""
        kinds = PLAYGROUND_WEIGHTED if self.builder.playground else WEBSITE_WEIGHTED
        self.builder.call(kinds[pick % len(kinds)], binding, record=record, capped=capped, order_pick=order_pick,
                          record_id=record_id)
        self._deliver()

    @rule()
    def model_call(self) -> None:
        self.builder.model()
        self._deliver()

    @rule(then=st.sampled_from(AFTER_TRIP), order_pick=st.floats(0, 1))
    @precondition(lambda self: self.builder.playground)
    def trip(self, then: str, order_pick: float) -> None:
        """Four gated execs trip the fuse; then the first call after the trip (the remedy or not)."""
        event(f"after the trip: {then}")
        self.builder.trip(then, order_pick)
        self._deliver()

    @rule(then=st.sampled_from(("passed", "ts_passed", "fetch_fail", "search", "no_match")), order_pick=st.floats(0, 1))
    @precondition(lambda self: not self.builder.playground)
    def deferral(self, then: str, order_pick: float) -> None:
        """Three failures, a correctable inspection failure at the fuse, then the next result."""
        self.builder.deferral(then, order_pick)
        self._deliver()

    @rule()
    def cancel(self) -> None:
        self.builder.cancel()
        self._deliver()

    @rule()
    @precondition(lambda self: self.builder.playground)
    def router_off(self) -> None:
        self.builder.router_off()
        self._deliver()

    def teardown(self) -> None:
        builder = getattr(self, "builder", None)
        if builder is not None and self.delivered == len(builder.events):
            self.monitor.finish(builder.build())


def machine_for(run: MachineRun) -> type:
    return type("HookMachine", (HookMachine,), {"run": run})


def standalone() -> type:
    """The machine as a standalone test class (pytest, HypoFuzz): every hook invariant."""
    return machine_for(MachineRun())


def run_stateful(
    seed: int, profile: str, tally: Tally, *, examples: "int | None" = None, steps_per_example: int = 12,
    only: "tuple[Invariant, ...] | None" = None, shrink: bool = True,
) -> StatefulResult:
    """Run the machine with ``seed`` under ``profile``; merge what it checked into ``tally``."""
    run = MachineRun(only=only)
    chosen = driver_settings(profile, examples, steps_per_example, shrink)
    outcome = run_machine(machine_for(run), chosen, seed, lambda: run.failure)
    return stateful_result(seed, profile, chosen, outcome, run.tally, tally)
