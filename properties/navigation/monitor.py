"""Navigation's monitor: each scenario run on the reference and production, judged by the one judge."""

from __future__ import annotations

from typing import Any, Sequence

import attrs

from properties import work_bound
from properties.catalogue import Tally, Violation
from properties.judge import Judge
from properties.navigation.invariants import BY_ID, CATALOGUE, Step, coverage, judge
from properties.navigation.spec_rules import BOUNDS
from properties.navigation.events import Scenario
from properties.subject import Partings

#: Issue 24 part 4: how production may part from the reference on a scenario (navigation.md: a bound or a
#: cancellation ends navigation early, then an answer, insufficient evidence or a final error), and the
#: reply path on which it must not part; a vacuous invariant's report names the shortest scenario of each.
SYNTHESIZED = "a synthesized answer"
INSUFFICIENT = "an explicit insufficient-evidence result"
ENDED_WITH_ERROR = "a bound ended with an error"
CANCELLED = "a cancellation"
SAME_REPLY = "the child's reply, returned as the reference returned it"
PARTINGS = Partings(ways=(SYNTHESIZED, INSUFFICIENT, ENDED_WITH_ERROR, CANCELLED), same=SAME_REPLY,
                    same_phrase="the child answered before any bound returned what the reference returned",
                    size="messages")


@attrs.define
class Monitor:
    """Checks each scenario against the selected invariants and fills a tally."""

    tally: Tally
    invariants: tuple = CATALOGUE
    steps: int = 0
    last: "Step | None" = None
    #: The one judge of ``invariants`` (``properties.judge``), made at the first scenario.
    _judge: "Judge | None" = None

    def step(self, scenario: Scenario) -> list[Violation]:
        work_bound.note_running(f"navigation scenario {scenario.name}")
        judged = judge(self.steps, scenario)
        self.last = judged
        self.steps += 1
        self.tally.steps += 1
        self.tally.traces += 1
        if judged.production.ran_away or judged.reference.ran_away:
            return self.runaway(judged)
        if self._judge is None or self._judge.invariants != self.invariants:
            self._judge = Judge(self.invariants)
        found = self._judge(judged, judged.index, self.tally, self.count_coverage)
        self.note_parting(judged)
        return found

    def count_coverage(self, judged: Step) -> None:
        self.tally.coverage.update(coverage(judged))

    def note_parting(self, judged: Step) -> None:
        """How production's outcome compared with the reference's on this scenario (for a vacuous invariant's
        report); the scenario's length in messages is its size, so the shortest one is named."""
        prod, ref = judged.prod, judged.ref
        what = None
        if prod.stop in BOUNDS:
            what = SYNTHESIZED if prod.answer is not None else INSUFFICIENT if prod.insufficient else ENDED_WITH_ERROR
        elif prod.stop == "cancelled":
            what = CANCELLED
        elif judged.expected == "reply" and prod.outward() == (ref.answer, ref.truncated, ref.error, ref.citations,
                                                                 ref.finished_at):
            what = SAME_REPLY
        if what is not None:
            self.tally.note_parting(what, len(judged.scenario.messages),
                                    f"scenario {judged.scenario.name}: the reference {_said(ref)}; production "
                                    f"ended on {prod.stop or 'the reply'} and {_said(prod)}")


    def runaway(self, judged: Step) -> list[Violation]:
        """A version that did not end within its allowance: N1 ("bounded") violated, whatever else is selected.

        None of the other checks can judge a request that never ended, so the
        step counts as checked for none of them. The reference is the frozen
        oracle: if it runs away the harness itself is broken, and that is a
        crash of the driver, not a verdict on production."""
        if judged.reference.ran_away:
            raise RuntimeError(f"the reference ran away on scenario {judged.scenario.name}: {judged.reference.outcome.detail}")
        outcome = judged.production.outcome
        found = [Violation("N1", judged.index, f"{outcome.detail} (stopped at {outcome.finished_at:,} ms of the fake "
                                               f"clock, after {outcome.polls:,} polls)", BY_ID["N1"].title)]
        self.tally.violations.extend(found)
        return found


def new_monitor(tally: Tally, only: "Sequence[Any] | None" = None) -> Monitor:
    """A monitor over the catalogue, or the invariants (or ids) of ``only``."""
    if only is None:
        return Monitor(tally)
    ids = {item if isinstance(item, str) else item.id for item in only}
    return Monitor(tally, tuple(invariant for invariant in CATALOGUE if invariant.id in ids))


def _said(outcome: Any) -> str:
    """One version's outward outcome in a few words."""
    said = f"answered {outcome.answer!r}" if outcome.answer is not None else f"returned error {outcome.error!r}"
    return f"{said} at {outcome.finished_at:,} ms"
