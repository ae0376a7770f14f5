"""The one judge: a step against a tuple of invariants, counted into a tally.

Every monitor (budget, hooks, navigation, any later subject) and the budget's
exhaustive explorer judge a step here, so that "checked", "exercised", a
violation's record and the subject's coverage count mean the same thing in
every driver. A monitor builds its step record (whatever its checks read) and
hands it over; the judge never looks inside it.

Decisions the spec leaves open:

* A ``Judge`` is built once per tuple of invariants and kept by the monitor:
  the (id, check, title) triples and the id tuple the tally counts steps under
  are made once, not at every step (the budget's bulk driver judges about a
  million steps a run, so the per-step cost is one call and the checks).
* Coverage is counted after the checks, by the subject's own function of the
  step, never by a check: checking fewer invariants (``--only``) never changes
  a coverage count.
* Violations are appended to the tally in one ``extend`` after every check ran,
  in catalogue order, so that a step's violations are reported together.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from properties.catalogue import Invariant, Tally, Violation, unique_ids


class Judge:
    """Judges steps against one tuple of invariants (built once per tuple, called once per step)."""

    __slots__ = ("invariants", "ids", "checks")

    def __init__(self, invariants: Sequence[Invariant]) -> None:
        self.invariants = tuple(invariants)
        unique_ids(self.invariants)
        #: The key a step is counted under in ``Tally.checked_steps``.
        self.ids = tuple(invariant.id for invariant in self.invariants)
        self.checks = tuple((invariant.id, invariant.check, invariant.title) for invariant in self.invariants)

    def __call__(
        self, step: Any, index: int, tally: Tally, coverage: "Callable[[Any], None] | None" = None,
        held: "list[str] | None" = None,
    ) -> list[Violation]:
        """Check ``step`` (numbered ``index``) against every invariant; count it, its coverage, its violations.

        ``coverage(step)`` adds the step's coverage counts to the tally (the subject's own function).
        ``held``, when given, receives the ids the step exercised (the explorer keeps them per edge).
        Returns this step's violations (also added to ``tally.violations``)."""
        checked = tally.checked_steps
        ids = self.ids
        checked[ids] = checked.get(ids, 0) + 1
        exercised_counts = tally.exercised
        found: list[Violation] = []
        # Two copies of the loop, so that the hot path (no ``held``) tests nothing more per invariant.
        if held is None:
            for invariant_id, check, title in self.checks:
                exercised, problem = check(step)
                if exercised:
                    exercised_counts[invariant_id] += 1
                if problem is not None:
                    found.append(Violation(invariant_id, index, problem, title))
        else:
            for invariant_id, check, title in self.checks:
                exercised, problem = check(step)
                if exercised:
                    exercised_counts[invariant_id] += 1
                    held.append(invariant_id)
                if problem is not None:
                    found.append(Violation(invariant_id, index, problem, title))
        if coverage is not None:
            coverage(step)
        if found:
            tally.violations.extend(found)
        return found
