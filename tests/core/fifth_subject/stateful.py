"""The counter as a Hypothesis state machine (pytest, HypoFuzz): fails with ``VIOLATED <id>``."""

from __future__ import annotations

from hypothesis.stateful import RuleBasedStateMachine, initialize, rule

from properties.catalogue import Tally
from properties.counter.events import Down, Up
from properties.counter.monitor import new_monitor


def standalone(tally: "Tally | None" = None) -> type:
    class CounterMachine(RuleBasedStateMachine):
        @initialize()
        def start(self) -> None:
            self.monitor = new_monitor(tally if tally is not None else Tally())

        def _step(self, event) -> None:
            found = self.monitor.step(event)
            assert not found, f"VIOLATED {found[0].invariant}: {found[0]}"

        @rule()
        def up(self) -> None:
            self._step(Up())

        @rule()
        def down(self) -> None:
            self._step(Down())

    return CounterMachine
