"""The navigation state machine: Hypothesis builds child message streams and the request's fortunes.

Rules append to the scenario being built: assistant turns with one to three
model-issued tool calls and a result of each kind (progress, empty, zero-token
counter, zero-token manifest, error, repeated), bursts of one kind (to drive
a count to and past its bound within one slice), duplicated snapshots, idle
clock advances (slow children reach the deadline), the child's final reply,
cleanup failures, a policy rejection and a cancellation. ``finish`` judges
the scenario against both versions with the navigation monitor and starts a
new one; teardown judges the last. A violation fails the example with an
AssertionError naming the invariant, and Hypothesis shrinks it.
"""

from __future__ import annotations

import json

from hypothesis import event, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, precondition, rule

from properties.machines import StatefulResult, driver_settings, run_machine, stateful_result
from properties import profiles  # noqa: F401  (registers the profiles)
from properties.catalogue import Tally
from properties.navigation.generate import BUCKET, DELEGATIONS, RESULT_KINDS, SOURCES, TEARDOWNS, TIMEOUTS, Builder
from properties.navigation.monitor import Monitor, new_monitor

GAPS = (100, 400, 1_000, 2_500, 6_000, 12_000)
SIZES = (40, 400, 3_000, 9_000)


def machine_class(tally: Tally, only: "tuple[str, ...] | None" = None, failures: "list | None" = None) -> type:
    """A standalone ``RuleBasedStateMachine`` that fills ``tally`` and records its first failure in ``failures``."""

    class NavigationMachine(RuleBasedStateMachine):
        @initialize(timeout=st.sampled_from(TIMEOUTS), delegation=st.sampled_from(DELEGATIONS),
                    size=st.sampled_from(SIZES), teardown=st.sampled_from(TEARDOWNS),
                    completion=st.sampled_from((300, 2_000, 40_000)), thinking=st.booleans(),
                    mishaps=st.sampled_from((False, False, True)),
                    cited=st.lists(st.sampled_from(SOURCES + ("elsewhere",)), max_size=3))
        def start(self, timeout: int, delegation: int, size: int, teardown: int, completion: int,
                  thinking: bool, mishaps: bool, cited: list) -> None:
            # Swarm: only some examples have cleanup failures, policy rejections and cancellations, so the
            # others reach synthesis and its citations.
            self.mishaps = mishaps
            self.base = dict(timeout_ms=timeout, delegation_timeout_ms=delegation, teardown_ms=teardown,
                             completion_ms=completion, summary_thinking=thinking,
                             completion_reply=json.dumps({"answer": "synthesized", "citations": cited}))
            self.size = size
            self.monitor: Monitor = new_monitor(tally, only)
            self._new()

        def _new(self) -> None:
            self.judged = getattr(self, "judged", 0)
            self.builder = Builder(f"stateful-{self.judged}", settings=dict(self.base))
            self.pending = False

        @rule(kinds=st.lists(st.sampled_from(RESULT_KINDS), min_size=1, max_size=3),
              gap=st.sampled_from(GAPS), source=st.sampled_from(SOURCES))
        def turn(self, kinds: list, gap: int, source: str) -> None:
            self.builder.turn(kinds, self.size, source, gap)
            self.pending = True

        @rule(count=st.integers(1, 26), kind=st.sampled_from(("progress", "progress") + RESULT_KINDS), gap=st.sampled_from(GAPS[:4]),
              calls=st.sampled_from((1, 1, 2)))
        def burst(self, count: int, kind: str, gap: int, calls: int) -> None:
            """Many turns of one result kind: runs a count up to (and, within a slice, past) its bound."""
            for _ in range(count):
                self.builder.turn([kind] * calls, self.size, "s1", gap)
            self.pending = True

        @rule(back=st.integers(1, 8), delay=st.sampled_from((0, 0, 1_500)))
        def duplicate(self, back: int, delay: int) -> None:
            self.builder.duplicate(back, delay)

        @rule(ms=st.sampled_from((1_000, 5_000, 20_000, 60_000)))
        def idle(self, ms: int) -> None:
            """The clock runs while the child says nothing."""
            self.builder.advance(ms)

        @rule(valid=st.sampled_from((True, True, False)), gap=st.sampled_from(GAPS),
              citations=st.lists(st.sampled_from(SOURCES), max_size=2))
        def final_reply(self, valid: bool, gap: int, citations: list) -> None:
            self.builder.final_reply(valid, gap, tuple(citations))
            self.pending = True

        @precondition(lambda self: self.mishaps)
        @rule(which=st.sampled_from(("delete_fails", "revoke_fails")))
        def cleanup_failure(self, which: str) -> None:
            self.builder.settings[which] = True

        @precondition(lambda self: self.mishaps)
        @rule()
        def policy_rejection(self) -> None:
            self.builder.settings["policy_rejects"] = True

        @precondition(lambda self: self.pending and self.mishaps)
        @rule(at=st.integers(0, 100_000))
        def cancel(self, at: int) -> None:
            self.builder.settings["cancel_at"] = at

        @rule(citations=st.lists(st.sampled_from(SOURCES + ("elsewhere",)), max_size=3), empty=st.booleans())
        def completion_reply(self, citations: list, empty: bool) -> None:
            answer = "" if empty else "synthesized from kept evidence"
            self.builder.settings["completion_reply"] = json.dumps({"answer": answer, "citations": citations})

        @precondition(lambda self: self.pending)
        @rule()
        def finish(self) -> None:
            self._judge()
            self._new()

        def _judge(self) -> None:
            scenario = self.builder.scenario(bucket=BUCKET)
            self.judged += 1
            found = self.monitor.step(scenario)
            if self.monitor.last is not None and self.monitor.last.expected:
                event(f"ended: {self.monitor.last.expected}")
            if found:
                if failures is not None and not failures:
                    failures.append(([scenario], found[0]))
                raise AssertionError("\n".join(f"VIOLATED {v.invariant} {v}" for v in found))

        def teardown(self) -> None:
            if getattr(self, "pending", False):
                self._judge()

    return NavigationMachine


def standalone() -> type:
    """The machine over the whole catalogue with a tally of its own (pytest, HypoFuzz)."""
    return machine_class(Tally())


def run_stateful(seed: int, profile: str, tally: Tally, *, examples: "int | None" = None, steps: int = 25,
                 only: "tuple[str, ...] | None" = None, shrink: bool = True) -> StatefulResult:
    """Run the machine with ``seed`` under ``profile``; what it checked is merged into ``tally``."""
    own = Tally()
    failures: list = []
    chosen = driver_settings(profile, examples, steps, shrink)
    outcome = run_machine(machine_class(own, only, failures), chosen, seed, lambda: failures[0] if failures else None)
    return stateful_result(seed, profile, chosen, outcome, own, tally)
