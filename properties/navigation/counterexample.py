"""A navigation counterexample: the failing scenario saved as a ``navigation-scenario/1`` file, and how to replay it."""

from __future__ import annotations

from typing import Any

from properties.catalogue import Violation
from properties.counterexample import DEFAULT_DIR
from properties.navigation.trace_file import save


def counterexample(driver: str, events: list[Any], violation: Violation) -> tuple[str, str]:
    """Save the failing scenario as a ``navigation-scenario/1`` file (``counterexamples/``) and say how to replay it."""
    scenario = events[-1]
    DEFAULT_DIR.mkdir(parents=True, exist_ok=True)
    path = DEFAULT_DIR / f"navigation-{driver}-{violation.invariant}-{scenario.name}.json"
    save(scenario, path, violation.invariant)
    text = (f"COUNTEREXAMPLE from navigation {driver}: {violation}\n  scenario {scenario.name}: "
            f"{len(scenario.messages)} messages; saved: {path}\n  replay: python -m properties.replay {path}")
    return text, str(path)
