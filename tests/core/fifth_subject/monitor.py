"""The counter's monitor: one counter per trace, each step judged by the one judge."""

from __future__ import annotations

from typing import Any, Sequence

from properties.catalogue import Invariant, Tally, Violation
from properties.counter.counter import CAP, Counter
from properties.counter.events import Up
from properties.counter.invariants import CATALOGUE, Step
from properties.judge import Judge


class Monitor:
    def __init__(self, tally: Tally, invariants: Sequence[Invariant]) -> None:
        self.tally, self.counter, self.index = tally, Counter(), 0
        self.judge = Judge(invariants)

    def count_coverage(self, step: Step) -> None:
        if step.after == CAP:
            self.tally.coverage["steps at the cap"] += 1

    def step(self, event: Any) -> list[Violation]:
        before = self.counter.value
        self.counter.up() if isinstance(event, Up) else self.counter.down()
        step = Step(self.index, event, before, self.counter.value)
        found = self.judge(step, self.index, self.tally, self.count_coverage)
        self.tally.steps += 1
        self.index += 1
        return found


def new_monitor(tally: Tally, only: "Sequence[Invariant] | None" = None) -> Monitor:
    tally.traces += 1
    return Monitor(tally, tuple(only) if only is not None else CATALOGUE)
