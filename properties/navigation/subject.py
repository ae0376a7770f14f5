"""The navigation subject (seed 003): invariants N1-N10 over the reference and production delegated navigation.

Rules: ``guard/navigation.py`` (with ``navigation_evidence``, ``navigation_limits``,
``navigation_ports``); oracle: ``reference/navigation.py``; invariants and
monitor: ``properties/navigation/invariants.py``; drivers: seeded bulk
scenarios and the Hypothesis state machine (``properties/navigation/bulk.py``,
``stateful.py``); fixtures: ``properties/navigation/fixtures/``; mutations:
``mutations/navigation_entries.py`` (level ``navigation``).

A navigation trace is a list of scenarios (one delegated request each); its
one event kind is ``scenario``.
"""

from __future__ import annotations

from typing import Any, Sequence

from properties.catalogue import Invariant, Tally
from properties.navigation import bulk
from properties.navigation.invariants import CATALOGUE, COVERAGE_MINIMUMS, new_monitor
from properties.navigation.scenario import Scenario
from properties.subject import Driver, DriverRequest, DriverResult, Subject


def monitor(tally: Tally, only: "Sequence[Invariant] | None" = None) -> Any:
    return new_monitor(tally, only)


def state_machine() -> type:
    from properties.navigation.stateful import standalone

    return standalone()


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
        Driver("navigation-bulk", bulk.run_bulk_driver, cost=1),
        Driver("navigation-stateful", bulk.run_stateful_driver, cost=2),
    ),
    events={"scenario": Scenario},
    monitor=monitor,
    state_machine=state_machine,
)
