"""The hook subject's drivers: seeded bulk sequences and the Hypothesis state machine.

* ``bulk``: sequences from ``properties.hooks.generate.sequences``, in slices
  of ``SLICE``; slice ``k`` of a run with seed ``s`` draws from its own
  ``random.Random``, so a default run splits the slices between two workers
  with the same result.
* ``stateful``: ``properties.hooks.stateful.HookMachine``.

A failure is returned as ``([sequence], violation)``: the hook subject's
counterexample is one whole sequence (its setting and its events up to the
failing step).
"""

from __future__ import annotations

import time
from typing import Any

import attrs

from properties import progress
from properties.catalogue import Tally
from properties.hooks.generate import sequences
from properties.hooks.invariants import BY_ID, CATALOGUE
from properties.hooks.monitor import HookMonitor
from properties.subject import DriverRequest, DriverResult

#: Sequences per mode. The default run checks at least 10,000 (issue 9), in about 9 CPU-seconds.
DEFAULT_SEQUENCES = 10_000
QUICK_SEQUENCES = 1_000
MUTANT_SEQUENCES = 2_000
#: State-machine examples per mode (None: the profile's own).
STATEFUL_EXAMPLES = {"default": 200, "quick": 30, "mutants": 100}
SLICE = 250


def _invariants(request: DriverRequest) -> "tuple[Any, ...]":
    if request.only is None:
        return CATALOGUE
    return tuple(BY_ID[i] for i in request.only if i in BY_ID)


def bulk_sequences(request: DriverRequest) -> int:
    if request.size is not None:
        return request.size
    return {"mutants": MUTANT_SEQUENCES, "quick": QUICK_SEQUENCES}.get(request.mode, DEFAULT_SEQUENCES)


def run_bulk_driver(request: DriverRequest) -> DriverResult:
    """This request's share of the seeded sequences (slices ``part``, ``part + parts``, ...)."""
    tally = Tally()
    total = bulk_sequences(request)
    sizes = [min(SLICE, total - start) for start in range(0, total, SLICE)]
    monitor = HookMonitor(tally, _invariants(request))
    failure = None
    start = time.perf_counter()
    slices = list(range(len(sizes)))[request.part::request.parts]
    mine = sum(sizes[number] for number in slices)
    for number in slices:
        for sequence in sequences(request.seed, number, sizes[number]):
            progress.update(done=tally.traces, total=mine, unit="sequences", eta=True, steps=tally.steps)
            found = monitor.check(sequence)
            if found:
                failure = ([attrs.evolve(sequence, events=sequence.events[: found[0].step + 1])], found[0])
                break
        if failure is not None:
            break
    return DriverResult("bulk (seeded sequences)", tally, time.perf_counter() - start, details={"slices": len(slices)}, failure=failure)


def run_stateful_driver(request: DriverRequest) -> DriverResult:
    from properties.hooks import stateful

    tally = Tally()
    examples = request.size if request.size is not None and request.mode != "default" else STATEFUL_EXAMPLES[request.mode]
    only = _invariants(request) if request.only is not None else None
    result = stateful.run_stateful(request.seed, request.profile, tally, examples=examples, only=only, shrink=not request.stop_at_first)
    failure = ([result.failure[0]], result.failure[1]) if result.failure is not None else None
    return DriverResult("stateful (hypothesis)", tally, result.seconds, details={"examples": result.examples}, failure=failure, error=result.error)
