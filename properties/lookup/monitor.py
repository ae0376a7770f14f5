"""The lookup monitor: runs the real programs for a batch of receipts, then judges each against L1-L4.

``step(receipt)`` judges one receipt (replay, regressions, the state
machine); ``step_all(receipts)`` judges a batch with one run of the real
programs for all of its valid chains (the bulk driver), which is where the
subject's time goes. Both build the same ``Step`` (``invariants.judge``) and
check it the same way, so a receipt is judged alike one by one or in a batch.

The scratch workspace is made on the first valid chain and kept for every
later one (``close()`` removes it; so does the monitor's end).
"""

from __future__ import annotations

from typing import Any, Sequence

import attrs

from properties.catalogue import Tally, Violation
from properties.lookup.events import Receipt
from properties.lookup.invariants import CATALOGUE, Step, coverage, judge
from properties.lookup.programs import Observation, Workspace


@attrs.define
class Monitor:
    """Checks each receipt against the selected invariants and fills a tally."""

    tally: Tally
    invariants: tuple = CATALOGUE
    steps: int = 0
    last: "Step | None" = None
    workspace: "Workspace | None" = None
    #: The steps of the last batch, in order (a driver reads a failure's observation from here).
    batch: list = attrs.field(factory=list)

    def step(self, receipt: Receipt) -> list[Violation]:
        return self.step_all([receipt])[0]

    def step_all(self, receipts: Sequence[Receipt]) -> list[list[Violation]]:
        """Judge a batch in order; one list of violations per receipt."""
        observations = self.observe(receipts)
        self.batch = []
        found = []
        for receipt, observation in zip(receipts, observations):
            judged = judge(self.steps, receipt, observation)
            self.batch.append(judged)
            found.append(self.check(judged))
        return found

    def observe(self, receipts: Sequence[Receipt]) -> "list[Observation | None]":
        """The real programs' runs of the valid chains (None for every other receipt)."""
        commands = [receipt.arguments()[0] for receipt in receipts]
        runnable = [index for index, receipt in enumerate(receipts) if receipt.valid and isinstance(commands[index], str)]
        found: "list[Observation | None]" = [None] * len(receipts)
        if runnable:
            if self.workspace is None:
                self.workspace = Workspace()
            for index, observation in zip(runnable, self.workspace.observe([commands[index] for index in runnable])):
                found[index] = observation
        return found

    def check(self, judged: Step) -> list[Violation]:
        self.last = judged
        self.steps += 1
        self.tally.steps += 1
        self.tally.traces += 1
        self.tally.checked_steps[tuple(invariant.id for invariant in self.invariants)] += 1
        found = []
        for invariant in self.invariants:
            exercised, message = invariant.check(judged)
            if exercised:
                self.tally.exercised[invariant.id] += 1
            if message is not None:
                found.append(Violation(invariant.id, judged.index, message, invariant.title))
        self.tally.coverage.update(coverage(judged))
        self.tally.violations.extend(found)
        return found

    def close(self) -> None:
        if self.workspace is not None:
            self.workspace.close()
            self.workspace = None


def new_monitor(tally: Tally, only: "Sequence[Any] | None" = None) -> Monitor:
    """A monitor over the catalogue, or the invariants (or ids) of ``only``."""
    if only is None:
        return Monitor(tally)
    ids = {item if isinstance(item, str) else item.id for item in only}
    return Monitor(tally, tuple(invariant for invariant in CATALOGUE if invariant.id in ids))
