"""The navigation subject (seed 003): invariants N1-N10 over the reference and production delegated navigation.

Rules: ``guard/navigation.py`` (with ``navigation_evidence``, ``navigation_limits``,
``navigation_ports``); oracle: ``reference/navigation.py``; invariants and
monitor: ``properties/navigation/invariants.py``; drivers: seeded bulk
scenarios and the Hypothesis state machine (``properties/navigation/bulk.py``,
``stateful.py``); fixtures: ``properties/navigation/fixtures/``; mutations:
``mutations/entries/navigation.py`` (level ``navigation``).

A navigation trace is a list of scenarios (one delegated request each); its
one event kind is ``scenario``.
"""

from __future__ import annotations

from typing import Any, Sequence

import attrs

from guard.navigation_limits import NavigationLimits
from properties.catalogue import Invariant, Tally, Violation
from properties.navigation import bulk
from properties.navigation.invariants import CATALOGUE, COVERAGE_MINIMUMS, SPEC, new_monitor
from properties.navigation.scenario import Scenario, save
from properties.subject import Driver, DriverRequest, DriverResult, Subject


def monitor(tally: Tally, only: "Sequence[Invariant] | None" = None) -> Any:
    return new_monitor(tally, only)


def state_machine() -> type:
    from properties.navigation.stateful import standalone

    return standalone()


def counterexample(driver: str, events: list[Any], violation: Violation) -> tuple[str, str]:
    """Save the failing scenario as a ``navigation-scenario/1`` file (``counterexamples/``) and say how to replay it."""
    from properties.counterexample import DEFAULT_DIR

    scenario = events[-1]
    DEFAULT_DIR.mkdir(parents=True, exist_ok=True)
    path = DEFAULT_DIR / f"navigation-{driver}-{violation.invariant}-{scenario.name}.json"
    save(scenario, path)
    text = (f"COUNTEREXAMPLE from navigation {driver}: {violation}\n  scenario {scenario.name}: "
            f"{len(scenario.messages)} messages; saved: {path}\n  replay: python -m properties.replay {path}")
    return text, str(path)


def limits_note() -> str:
    """A line naming every default of ``guard/navigation_limits.py`` that differs from navigation.md, or ""."""
    production = NavigationLimits()
    changed = [f"{field.name} {getattr(production, field.name)} (spec {getattr(SPEC, field.name)})"
               for field in attrs.fields(NavigationLimits)
               if hasattr(SPEC, field.name) and getattr(production, field.name) != getattr(SPEC, field.name)]
    return ("note: guard/navigation_limits.py defaults differ from navigation.md: " + ", ".join(changed)) if changed else ""


def run_navigation(request: DriverRequest) -> list[DriverResult]:
    """Every navigation driver on one request, cheapest first (for a verdict that does not loop over subjects)."""
    results = []
    for driver in sorted(SUBJECT.drivers, key=lambda item: item.cost):
        result = driver.run(request)
        results.append(result)
        if request.stop_at_first and result.failure is not None:
            break
    return results


SUBJECT = Subject(
    name="navigation",
    title="delegated navigation that converges",
    seeds="003",
    catalogue=CATALOGUE,
    coverage_minimums=COVERAGE_MINIMUMS,
    drivers=(
        Driver("bulk", bulk.run_bulk_driver, cost=1),
        Driver("stateful", bulk.run_stateful_driver, cost=2),
    ),
    events={"scenario": Scenario},
    monitor=monitor,
    state_machine=state_machine,
    counterexample=counterexample,
    preamble=limits_note,
    unit="scenarios",
)
