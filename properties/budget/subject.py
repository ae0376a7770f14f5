"""The budget subject (seeds 000-002): invariants B1-B13 over the reference and six production copies.

Its rules live in ``guard/budget.py`` and ``guard/limits.py``; its invariants in
``properties/budget/invariants.py``; its drivers in ``properties/budget/drivers.py``
(exhaustive explorer, Hypothesis state machine, seeded bulk traces); its
mutations in ``mutations/entries/budget.py`` (level ``budget``).
"""

from __future__ import annotations

from typing import Any, Sequence

import attrs

from guard.limits import Limits
from properties.budget import drivers
from properties.budget.copies import SPEC_LIMITS, new_copies
from properties.budget.events import EVENT_NAMES
from properties.budget.invariants import CATALOGUE, COVERAGE_MINIMUMS, new_monitor
from properties.catalogue import Invariant, Tally, Violation
from properties.subject import Driver, Subject

#: A counterexample longer than this is saved as it is: shrinking it would cost more than the run.
SHRINK_AT_MOST = 200


def monitor(tally: Tally, only: "Sequence[Invariant] | None" = None) -> Any:
    """A budget monitor over fresh copies with the spec's limits (one trace counted in ``tally``)."""
    options: dict[str, Any] = {}
    if only is not None:
        options["invariants"] = tuple(only)
    return new_monitor(SPEC_LIMITS, tally, new_copies(SPEC_LIMITS), **options)


def counterexample(driver: str, events: list[Any], violation: Violation) -> tuple[str, str]:
    """Shrink, save (``counterexamples/``) and print a failing budget trace; a long one is saved unshrunk.

    ``driver`` may carry the worker's letter ("bulk A"): it goes into the file name
    (``properties.counterexample``), so that two workers never write the same file.
    """
    from properties.counterexample import record, save_counterexample

    driver, _, worker = driver.partition(" ")
    events = list(events[: violation.step + 1]) if violation.step < len(events) else list(events)
    if len(events) > SHRINK_AT_MOST:
        path = save_counterexample(driver, events, SPEC_LIMITS, violation, worker=worker, note="not shrunk")
        return f"COUNTEREXAMPLE from {driver}: {violation}\n  {len(events)} events, not shrunk; saved: {path}", str(path)
    found = record(driver, events, SPEC_LIMITS, violation, worker=worker)
    return found.render(), str(found.path)


def limits_note() -> str:
    """A line naming every default of ``guard/limits.py`` that differs from ``shared/spec/budget.md``, or ""."""
    production, spec = Limits(), SPEC_LIMITS
    if production == spec:
        return ""
    changed = [
        f"{field.name} {getattr(production, field.name)} (spec {getattr(spec, field.name)})"
        for field in attrs.fields(Limits)
        if getattr(production, field.name) != getattr(spec, field.name)
    ]
    return "note: guard/limits.py defaults differ from shared/spec/budget.md: " + ", ".join(changed)


def state_machine() -> type:
    from properties.budget.stateful import standalone_machine

    return standalone_machine()


SUBJECT = Subject(
    name="budget",
    title="the run-progress budget",
    seeds="000, 001, 002",
    catalogue=CATALOGUE,
    coverage_minimums=COVERAGE_MINIMUMS,
    drivers=(
        Driver("bulk", drivers.run_bulk_driver, cost=1, parts=2),
        Driver("stateful", drivers.run_stateful_driver, cost=2),
        Driver("explorer", drivers.run_explorer_driver, cost=3, main_process=True),
    ),
    events={name: kind for kind, name in EVENT_NAMES.items()},
    monitor=monitor,
    state_machine=state_machine,
    counterexample=counterexample,
    preamble=limits_note,
)

