"""Seeded bulk navigation scenarios, and the navigation subject's two drivers.

``run_bulk`` draws scenarios from ``random.Random(seed)`` (the seed is in the
driver's details and the CLI prints it), so the same seed gives the same
scenarios, counts and verdict. Every driver returns a ``DriverResult``; a
request may carry ``part``/``parts`` (when the verdict splits a driver
between workers): scenario ``i`` then belongs to part ``i % parts``.
"""

from __future__ import annotations

import random
import time
from typing import Any

from properties import progress
from properties.catalogue import Tally
from properties.navigation.generate import random_scenario
from properties.navigation.invariants import BY_ID
from properties.navigation.monitor import new_monitor
from properties.subject import DriverRequest, DriverResult

#: Scenarios per mode: about 0.4 ms each on one core (both versions, recount, ten checks); the default run's
#: 4,000 reach every coverage minimum several times over (see the driver's coverage counts).
TRACES = {"default": 4_000, "quick": 600, "mutants": 1_500}
#: State machine examples per mode (None: the profile's own count).
EXAMPLES = {"default": None, "quick": 30, "mutants": 60}


def only_ids(request: DriverRequest) -> "tuple[str, ...] | None":
    """The navigation invariants the request checks (None: all); other subjects' ids are ignored."""
    if request.only is None:
        return None
    return tuple(item for item in request.only if item in BY_ID)


def run_bulk(seed: int, traces: int, tally: Tally, *, only: "tuple[str, ...] | None" = None, part: int = 0,
             parts: int = 1, stop_at_first: bool = False) -> "tuple[list[Any], Any] | None":
    """Check ``traces`` seeded scenarios (this part's share); the first failure as ([scenario], violation)."""
    rng = random.Random(seed)
    monitor = new_monitor(tally, only)
    failure = None
    for index in range(traces):
        scenario = random_scenario(rng, name=f"bulk-{seed}-{index}")
        if index % parts != part:
            continue
        progress.update(done=index, total=traces, unit="scenarios", eta=True)
        monitor.steps = index
        found = monitor.step(scenario)
        if found and failure is None:
            failure = ([scenario], found[0])
            if stop_at_first:
                break
    return failure


def run_bulk_driver(request: DriverRequest) -> DriverResult:
    tally = Tally()
    traces = request.size if request.size is not None else TRACES.get(request.mode, TRACES["default"])
    part, parts = getattr(request, "part", 0), getattr(request, "parts", 1)
    started = time.perf_counter()
    failure = run_bulk(request.seed, traces, tally, only=only_ids(request), part=part, parts=parts,
                       stop_at_first=request.stop_at_first)
    seconds = time.perf_counter() - started
    return DriverResult("bulk (random-seeded)", tally, seconds,
                        details={"seed": request.seed, "scenarios": traces,
                                 **({"part": f"{part + 1}/{parts}"} if parts > 1 else {})},
                        failure=failure)


def run_stateful_driver(request: DriverRequest) -> DriverResult:
    from properties.navigation.stateful import run_stateful

    tally = Tally()
    examples = request.size if request.size is not None and request.mode != "default" else EXAMPLES.get(request.mode)
    result = run_stateful(request.seed, request.profile, tally, examples=examples, only=only_ids(request),
                          shrink=not request.stop_at_first)
    return DriverResult("stateful (hypothesis)", tally, result.seconds,
                        details={"seed": request.seed, "examples": result.examples}, failure=result.failure,
                        error=result.error)
