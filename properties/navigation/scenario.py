"""The fakes that play a navigation scenario (``properties.navigation.events``), and one run of either version.

A scenario is plain JSON-able data: the request, the child's messages with
the time each becomes visible (the same id may be listed twice: a duplicated
snapshot), how teardown, the policy and the completion behave, and when the
caller cancels. The fakes play it on a fake clock and record every call, so
the monitor judges what each version *did*, not what it says it did.
"""

from __future__ import annotations

import math
from typing import Any

import attrs

from guard import navigation as production
from guard.navigation_limits import NavigationLimits
from guard.navigation_ports import Grant, Message, SynthesisCall
from properties import work_bound
from properties.navigation.events import Scenario
from properties.navigation.spec_rules import spec_deadlines
from reference import navigation as reference

# -- fakes -----------------------------------------------------------------


@attrs.define
class Record:
    """Every call the fakes saw, in order; times on the fake clock."""

    spawns: list = attrs.field(factory=list)  # (question, grant, at)
    polls: list = attrs.field(factory=list)  # (called_at, until, returned_at)
    teardown: list = attrs.field(factory=list)  # (what, at, ok)
    #: What each teardown step was handed: ("delete", the child's id) or ("revoke", the grant's id).
    torn_down: list = attrs.field(factory=list)
    policy: list = attrs.field(factory=list)  # (model, purpose, at)
    completions: list = attrs.field(factory=list)  # (SynthesisCall, at, cancelled then, same signal)
    order: list = attrs.field(factory=list)  # call names in order


@attrs.frozen
class Allowance:
    """The most work one version may ask of the fakes in one scenario, derived from its deadlines (issue 25).

    A controller that ends reads at most one slice per ``slice_ms`` of work
    time, plus the slice that ends on the deadline: ``ceil(work / slice) + 1``
    polls. The bound is twice that plus 8, so a controller that re-reads a
    slice now and then is not a runaway, while one whose deadline can no longer
    fire (the clock stops at the retrieval deadline it waits for) is one within
    a few hundred polls, not 15 GB later. Every other question to the fakes
    (the time, whether the child finished, whether the caller cancelled) is
    asked a few times per poll: at most 8 per poll allowed, plus 64. Loop
    iterations in ``guard/`` and ``reference/`` are bounded alongside: one per
    poll and one per message a poll can return, with the same margin.

    The slice is the controller's own (``NavigationLimits.slice_ms``, the
    limits the run uses): navigation.md asks for bounded slices without naming
    a length, so a controller that reads more slices than its own slice length
    allows is judged a runaway, as N1 says, and a longer configured slice is
    never one.
    """

    polls: int
    questions: int
    loop_iterations: int
    work_ms: int
    slice_ms: int

    @classmethod
    def of(cls, scenario: Scenario, limits: "NavigationLimits | None" = None) -> "Allowance":
        # The spec's work deadline, as the monitor computes it.
        work = max(0, spec_deadlines(scenario, scenario.start_ms)[0] - scenario.start_ms)
        slice_ms = (limits or NavigationLimits()).slice_ms
        polls = 2 * (math.ceil(work / slice_ms) + 1) + 8
        return cls(polls, 8 * polls + 64, polls * (len(scenario.messages) + 2) * 2 + 1_000, work, slice_ms)


@attrs.define
class Meter:
    """Counts what one version asks of the fakes; past its allowance every question raises ``WorkBoundExceeded``."""

    allowance: "Allowance | None" = None
    version: str = "production"
    polls: int = 0
    questions: int = 0

    def poll(self) -> None:
        self.polls += 1
        if self.allowance is not None and self.polls > self.allowance.polls:
            raise self.exceeded("polls", self.polls, self.allowance.polls)

    def question(self, what: str) -> None:
        self.questions += 1
        if self.allowance is not None and self.questions > self.allowance.questions:
            raise self.exceeded(f"questions to the fakes ({what})", self.questions, self.allowance.questions)

    def exceeded(self, what: str, count: int, bound: int) -> work_bound.WorkBoundExceeded:
        allowance = self.allowance
        assert allowance is not None
        return work_bound.WorkBoundExceeded(
            f"{self.version} navigation", bound,
            f"{count:,} {what}, more than its work time ({allowance.work_ms:,} ms in slices of "
            f"{allowance.slice_ms:,} ms) allows")


@attrs.define
class FakeClock:
    time: int = 0
    meter: Meter = attrs.field(factory=Meter)

    def now(self) -> int:
        self.meter.question("now")
        return self.time

    def advance_to(self, when: int) -> None:
        self.time = max(self.time, when)


@attrs.define
class FakeCancel:
    clock: FakeClock
    at: "int | None"

    def cancelled(self) -> bool:
        self.clock.meter.question("cancelled")
        return self.at is not None and self.clock.time >= self.at


@attrs.define
class FakeChild:
    id: str
    scenario: Scenario
    clock: FakeClock
    record: Record

    def poll(self, until: int) -> list[Message]:
        self.clock.meter.poll()
        called = self.clock.time
        end = self.scenario.final_at()
        target = until if end is None or end < called else min(until, end)
        self.clock.advance_to(target)
        self.record.polls.append((called, until, self.clock.time))
        self.record.order.append("poll")
        return [timed.message for timed in self.scenario.messages if timed.at <= self.clock.time]

    def finished(self) -> bool:
        self.clock.meter.question("finished")
        end = self.scenario.final_at()
        return end is not None and end <= self.clock.time


@attrs.define
class FakeSpawner:
    scenario: Scenario
    clock: FakeClock
    record: Record

    def spawn(self, question: str, grant: Grant) -> FakeChild:
        self.record.spawns.append((question, grant, self.clock.time))
        self.record.order.append("spawn")
        return FakeChild(f"child-{len(self.record.spawns)}", self.scenario, self.clock, self.record)


class CleanupFailed(Exception):
    pass


@attrs.define
class FakeTeardown:
    scenario: Scenario
    clock: FakeClock
    record: Record

    def _act(self, what: str, fails: bool) -> None:
        self.clock.advance_to(self.clock.time + self.scenario.teardown_ms)
        self.record.teardown.append((what, self.clock.time, not fails))
        self.record.order.append(what)
        if fails:
            raise CleanupFailed(what)

    def delete(self, child: Any) -> None:
        self.record.torn_down.append(("delete", getattr(child, "id", child)))
        self._act("delete", self.scenario.delete_fails)

    def revoke(self, grant: Any) -> None:
        self.record.torn_down.append(("revoke", getattr(grant, "id", grant)))
        self._act("revoke", self.scenario.revoke_fails)


@attrs.define
class FakePolicy:
    scenario: Scenario
    clock: FakeClock
    record: Record

    def allows(self, model: str, purpose: str) -> bool:
        self.record.policy.append((model, purpose, self.clock.time))
        self.record.order.append("policy")
        return not self.scenario.policy_rejects


class CompletionFailed(Exception):
    pass


@attrs.define
class FakeCompletion:
    scenario: Scenario
    clock: FakeClock
    record: Record
    cancel: FakeCancel

    def complete(self, call: SynthesisCall, cancel: Any) -> str:
        self.record.completions.append((call, self.clock.time, cancel.cancelled(), cancel is self.cancel))
        self.record.order.append("complete")
        if cancel.cancelled():
            raise CompletionFailed("cancelled")
        done = self.clock.time + self.scenario.completion_ms
        cancel_at = self.scenario.cancel_at
        if cancel_at is not None and cancel_at < min(done, call.deadline):
            # The completion holds the caller's signal: a cancel during the call ends it then, without a reply.
            self.clock.advance_to(cancel_at)
            raise CompletionFailed("cancelled")
        if done > call.deadline:
            self.clock.advance_to(call.deadline)
            raise CompletionFailed("deadline")
        self.clock.advance_to(done)
        return self.scenario.completion_reply


@attrs.frozen
class Runaway:
    """The outcome of a version that did not end within its ``Allowance``: what it was asked, and how far it got."""

    detail: str
    polls: int
    finished_at: int


@attrs.frozen
class Run:
    version: str
    outcome: Any  # guard's or reference's Outcome, or Runaway
    record: Record

    @property
    def ran_away(self) -> bool:
        return isinstance(self.outcome, Runaway)


def run(scenario: Scenario, version: str, limits: Any = None) -> Run:
    """Play ``scenario`` against ``reference`` or ``production`` (with its default limits unless given) on fresh fakes.

    Each version runs within its ``Allowance``; one that exceeds it ends with a ``Runaway`` outcome (never a hang)."""
    if version not in ("reference", "production"):
        raise ValueError(f"unknown version {version!r}")
    if limits is None and scenario.limits and version == "production":
        limits = NavigationLimits(**dict(scenario.limits))
    allowance = Allowance.of(scenario, limits)
    clock = FakeClock(scenario.start_ms, Meter(allowance, version))
    record = Record()
    cancel = FakeCancel(clock, scenario.cancel_at)
    spawner = FakeSpawner(scenario, clock, record)
    teardown = FakeTeardown(scenario, clock, record)
    request = scenario.request()
    outcome: "reference.Outcome | production.Outcome | Runaway"
    try:
        with work_bound.armed(allowance.loop_iterations, f"{version} navigation"):
            if version == "reference":
                outcome = reference.navigate(request, clock, spawner, teardown)
            else:
                ports = production.Ports(clock=clock, spawner=spawner, teardown=teardown,
                                         policy=FakePolicy(scenario, clock, record),
                                         completion=FakeCompletion(scenario, clock, record, cancel), cancel=cancel)
                outcome = (production.navigate(request, ports) if limits is None
                           else production.navigate(request, ports, limits))
    except work_bound.WorkBoundExceeded as error:
        outcome = Runaway(error.describe(), clock.meter.polls, clock.time)
    except MemoryError as error:
        raise work_bound.exhausted(error) from None
    return Run(version, outcome, record)
