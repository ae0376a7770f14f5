"""The counter's drivers: seeded bulk traces, and the state machine."""

from __future__ import annotations

import random
import time

from properties.catalogue import Tally
from properties.counter.generate import trace
from properties.counter.invariants import BY_ID
from properties.counter.monitor import new_monitor
from properties.subject import DriverRequest, DriverResult

TRACES = {"default": 200, "quick": 50, "mutants": 50}


def _only(request: DriverRequest):
    return None if request.only is None else tuple(BY_ID[i] for i in request.only if i in BY_ID)


def run_bulk_driver(request: DriverRequest) -> DriverResult:
    tally, failure, start = Tally(), None, time.perf_counter()
    rng = random.Random(request.seed)
    for _ in range(request.size or TRACES[request.mode]):
        events = trace(rng)
        monitor = new_monitor(tally, _only(request))
        for index, event in enumerate(events):
            found = monitor.step(event)
            if found and failure is None:
                failure = (events[: index + 1], found[0])
        if failure is not None and request.stop_at_first:
            break
    return DriverResult("bulk (seeded)", tally, time.perf_counter() - start, failure=failure)


def run_stateful_driver(request: DriverRequest) -> DriverResult:
    from hypothesis import HealthCheck, settings
    from hypothesis.stateful import run_state_machine_as_test

    from properties.counter.stateful import standalone

    tally, start = Tally(), time.perf_counter()
    machine = standalone(tally)
    try:
        run_state_machine_as_test(machine, settings=settings(max_examples=20, derandomize=True, database=None,
                                                             deadline=None, suppress_health_check=list(HealthCheck)))
    except AssertionError:
        pass  # the violation is in the tally already
    return DriverResult("stateful", tally, time.perf_counter() - start)
