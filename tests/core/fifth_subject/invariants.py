"""C1 and C2: the counter stays within [0, cap]."""

from __future__ import annotations

from typing import Any

import attrs

from properties.catalogue import Invariant, Outcome, unique_ids
from properties.counter.counter import CAP
from properties.counter.events import Up


@attrs.frozen
class Step:
    index: int
    event: Any
    before: int
    after: int


def c1_never_above_the_cap(step: Step) -> Outcome:
    """The counter is never above its cap."""
    exercised = isinstance(step.event, Up) and step.before == CAP
    return exercised, (f"value {step.after} is above the cap {CAP}" if step.after > CAP else None)


def c2_never_below_zero(step: Step) -> Outcome:
    """The counter is never below zero."""
    exercised = not isinstance(step.event, Up) and step.before == 0
    return exercised, (f"value {step.after} is below zero" if step.after < 0 else None)


CATALOGUE = unique_ids((
    Invariant("C1", "-", "never above the cap", c1_never_above_the_cap, "counter"),
    Invariant("C2", "-", "never below zero", c2_never_below_zero, "counter"),
))
BY_ID = {invariant.id: invariant for invariant in CATALOGUE}
COVERAGE_MINIMUMS = {"steps at the cap": 5}
