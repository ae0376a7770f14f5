"""The navigation subject (seed 003): invariants N1-N11 over the reference and production delegated navigation.

Rules: ``guard/navigation.py`` (with ``navigation_evidence``, ``navigation_limits``,
``navigation_ports``); oracle: ``reference/navigation.py``; invariants and
monitor: ``properties/navigation/invariants.py``, ``monitor.py``; drivers: seeded bulk
scenarios and the Hypothesis state machine (``properties/navigation/drivers.py``,
``stateful.py``); fixtures: ``properties/navigation/fixtures/``; mutations:
``mutations/entries/navigation.py`` (level ``navigation``).

A navigation trace is a list of scenarios (one delegated request each); its
one event kind is ``scenario``.
"""

from __future__ import annotations

from pathlib import Path

import attrs

from guard.navigation_limits import NavigationLimits
from properties.navigation.counterexample import counterexample
from properties.navigation.events import Scenario
from properties.navigation.invariants import CATALOGUE, COVERAGE_MINIMUMS
from properties.navigation.spec_rules import SPEC
from properties.navigation.monitor import PARTINGS, new_monitor
from properties.navigation.trace_file import SCHEMA
from properties.safe_json import carries_schema
from properties.subject import Bench, Lazy, Driver, DriverRequest, DriverResult, Pin, Replay, Subject


def state_machine() -> type:
    from properties.navigation.stateful import standalone

    return standalone()


def replay(argv: list[str]) -> int:
    """The scenarios named in ``argv`` (its files; a scenario replay takes no option), or the stored fixtures."""
    from properties.navigation.replay import main

    return main([arg for arg in argv if not arg.startswith("-")])


def pin(source: Path, folder: Path, invariant: "str | None") -> tuple[Path, tuple[str, ...]]:
    from properties.navigation.replay import pin as run

    return run(source, folder, invariant)


def check_pinned(path: Path) -> tuple[str, bool]:
    from properties.navigation.replay import check_pinned as run

    return run(path)


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
        Driver("bulk", Lazy("properties.navigation.drivers", "run_bulk_driver"), cost=1, sized=True),
        Driver("stateful", Lazy("properties.navigation.drivers", "run_stateful_driver"), cost=2),
    ),
    events={"scenario": Scenario},
    monitor=new_monitor,
    state_machine=state_machine,
    counterexample=counterexample,
    preamble=limits_note,
    unit="scenarios",
    order=30,
    # The review compares its guard at BASE and at HEAD through this side (nox -s review).
    review="properties.navigation.review_side",
    replay=Replay(SCHEMA, lambda path: carries_schema(path, SCHEMA), replay, sessions=True),
    pin=Pin(pin, check_pinned),
    partings=PARTINGS,
    bench=Bench(Lazy("properties.navigation.bench", "run")),
    # The exhaustive engine's scopes of navigation (properties/navigation/model.py), proved by the core's model driver.
    models=Lazy("properties.navigation.model", "scopes"),
)
