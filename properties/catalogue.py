"""The shared core of the verdict: the invariant record, a violation, and the tally every driver fills.

An invariant belongs to one subject (``budget``, ``hooks``, ``navigation``)
and names the seeds that ask for it. Its check is a documented predicate over
one step of that subject's trace, returning ``(exercised, violation or None)``:
whether the step met the invariant's antecedent, and what broke if anything.
A check is pure: it reads the step and returns; counting coverage is the
subject's own separate step hook, never a side effect of a check, so checking
fewer invariants (``--only``) never changes a coverage count.

The tally is subject-independent: counters are ``collections.Counter``s keyed
by invariant id and coverage name, so tallies of any subjects merge by adding.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Callable, Iterable

import attrs

#: What a check returns: (exercised, violation message or None).
Outcome = tuple[bool, "str | None"]

#: The seed texts in ``shared/seeds/``, by number.
SEED_FILES = {
    "000": "000_33720f75875ca81b.txt",
    "001": "001_7efc7af1677abc80.txt",
    "002": "002_4ecf186a1f873e3b.txt",
    "003": "003_a2a020441d7563af.txt",
}


@attrs.frozen
class Invariant:
    """One named, documented predicate of the catalogue."""

    id: str
    seeds: str
    title: str
    check: Callable[[Any], Outcome]
    #: The subject it belongs to (its folder's name under ``properties/``); no default: the core knows none.
    subject: str

    @property
    def statement(self) -> str:
        return (self.check.__doc__ or "").strip()


@attrs.frozen
class Violation:
    """An invariant that failed at one step (numbered from 0, as every table and replay prints it)."""

    invariant: str
    step: int
    message: str
    title: str = ""

    def __str__(self) -> str:
        name = f"{self.invariant} ({self.title})" if self.title else self.invariant
        return f"{name} violated at step {self.step}: {self.message}"


class DuplicateInvariant(ValueError):
    """Two invariants share one id: a catalogue that would silently keep only one of them."""


def unique_ids(invariants: Iterable[Invariant]) -> tuple[Invariant, ...]:
    """``invariants`` as a tuple; ``DuplicateInvariant`` naming the id when two share one.

    Every catalogue is built through here (each subject's ``CATALOGUE`` at import, and the registry across
    subjects), so two invariants with one id fail at import instead of one shadowing the other."""
    found = tuple(invariants)
    seen: dict[str, Invariant] = {}
    for invariant in found:
        other = seen.get(invariant.id)
        if other is not None:
            raise DuplicateInvariant(
                f"invariant id {invariant.id} is declared twice: {other.title!r} ({other.subject}) and "
                f"{invariant.title!r} ({invariant.subject})")
        seen[invariant.id] = invariant
    return found


NOT_JUDGED = "not judged (a driver crashed)"


@attrs.define
class Tally:
    """Checked and exercised counts per invariant, violations and coverage counts, for one driver or a run.

    Counters start empty and read 0 for any id, so one tally type serves every
    subject, and ``merge`` adds tallies of different subjects or drivers.
    """

    #: Steps checked, per set of invariant ids: a monitor checks its whole set at every step, so it
    #: counts one per step here instead of one per invariant (``checked`` adds them up).
    checked_steps: Counter = attrs.field(factory=Counter)
    exercised: Counter = attrs.field(factory=Counter)
    violations: list[Violation] = attrs.field(factory=list)
    coverage: Counter = attrs.field(factory=Counter)
    steps: int = 0
    traces: int = 0
    #: Drivers of this tally that crashed (one line each: the driver, the exception, what it was running).
    crashes: list[str] = attrs.field(factory=list)
    #: Issue 24: how production compared with the subject's reference, by what happened (an allowance that
    #: parted them, a stop they shared): [traces, steps to the shortest, its description]. Empty for a monitor
    #: that follows no reference.
    partings: dict = attrs.field(factory=dict)

    def note_parting(self, what: str, steps: int, description: str) -> None:
        """One trace met ``what`` after ``steps`` steps; the shortest such trace's description is kept."""
        # Branch-free on purpose: a state machine shares one tally across examples, and a branch taken only when
        # this trace is shorter than earlier ones would make a fuzzer's replay of it cover other code (HypoFuzz
        # counts such an input unstable and keeps it out of its corpus). On a tie the earlier trace stays.
        count, shortest, text = self.partings.get(what, (0, steps, description))
        best = min((shortest, text), (steps, description), key=lambda pair: pair[0])
        self.partings[what] = [count + 1, best[0], best[1]]

    @property
    def checked(self) -> Counter:
        """Steps that checked each invariant (a new counter)."""
        out: Counter = Counter()
        for ids, steps in self.checked_steps.items():
            for invariant_id in ids:
                out[invariant_id] += steps
        return out

    def add_checks(self, other: "Tally") -> None:
        """Add ``other``'s checked counts to this tally's."""
        self.checked_steps.update(other.checked_steps)

    def merge(self, other: "Tally") -> None:
        self.add_checks(other)
        self.exercised.update(other.exercised)
        self.coverage.update(other.coverage)
        self.violations.extend(other.violations)
        self.steps += other.steps
        self.traces += other.traces
        self.crashes.extend(other.crashes)
        for what, (traces, steps, description) in other.partings.items():
            seen = self.partings.setdefault(what, [0, steps, description])
            seen[0] += traces
            if steps < seen[1]:
                seen[1], seen[2] = steps, description

    def status(self, invariant_id: str) -> str:
        """held, violated, vacuous, or "not judged": never exercised while a driver crashed (issue 22).

        A crash is its own outcome (Stryker's ``RuntimeError``): the invariants the crashed driver would have
        exercised are not vacuous, nothing judged them, and the crash itself fails the run."""
        if any(violation.invariant == invariant_id for violation in self.violations):
            return "violated"
        if self.exercised[invariant_id] == 0:
            return NOT_JUDGED if self.crashes else "vacuous"
        return "held"

    def ok_for(self, ids: Iterable[str]) -> bool:
        """Every invariant of ``ids`` held and was exercised."""
        return all(self.status(invariant_id) == "held" for invariant_id in ids)
