"""The budget's bulk driver loop: seeded traces (``properties.budget.generate``) checked step by step.

Each trace goes through a fresh monitor over fresh copies (``Monitor.step``:
B13 on P's own failures, see ``b13_failure_ends_exact``; snapshots reused
between steps). The copies use each budget's *own* default limits while the
monitor judges against ``SPEC_LIMITS`` (see ``generate``'s docstring).
"""

from __future__ import annotations

import time
from typing import Any, Callable, Iterable, Sequence

import attrs

from properties.budget.copies import SPEC_LIMITS, applier, default_copies
from properties.budget.events import Event
from properties.budget.generate import slice_traces, traces_for
from properties.budget.monitor import new_monitor
from properties.catalogue import Tally, Violation


# -- running -------------------------------------------------------------------


@attrs.define
class BulkResult:
    seed: int
    traces: int = 0
    steps: int = 0
    seconds: float = 0.0
    per_family: dict[str, int] = attrs.field(factory=dict)
    #: Statistics the seeds reported for their own property tests.
    stats: dict[str, int] = attrs.field(factory=lambda: {"deferrals": 0, "rescues": 0, "admissions": 0, "runs kept alive past the reference's stop": 0})
    failure: "tuple[str, list[Event], Violation] | None" = None


#: How the bulk driver's monitors run: B13 on P's own failures, snapshots carried from step to step.
MONITOR_OPTIONS: dict[str, Any] = {"failure_ends_probes": "observed", "reuse_snapshots": True}

#: After every copy has stopped with nothing left to admit, a few more events exercise B12; then the trace ends.
TAIL_AFTER_STOP = 4


def all_stopped(budgets: dict[str, Any]) -> bool:
    for budget in budgets.values():
        if not budget.terminal or getattr(budget, "correction", None) is not None:
            return False
    return True


def run_bulk(
    seed: int,
    traces: int,
    tally: Tally,
    *,
    families: Sequence[str] | None = None,
    stop_at_first: bool = True,
    invariants: Sequence[Any] | None = None,
    copies: Callable[[], dict[str, Any]] | None = None,
    slices: Sequence[tuple[int, int]] | None = None,
) -> BulkResult:
    """Check ``traces`` seeded traces; B13 on P's own failures. Stops at the first violation when asked."""
    result = BulkResult(seed=seed)
    copies = copies or default_copies
    options: dict[str, Any] = dict(MONITOR_OPTIONS)
    if invariants is not None:
        options["invariants"] = tuple(invariants)
    start = time.perf_counter()
    if slices is None:
        source = traces_for(seed, traces, families)
    else:
        source = (item for number, size in slices for item in slice_traces(seed, number, size, families))
    for family, events in source:
        budgets = copies()
        monitor = new_monitor(tally, limits=SPEC_LIMITS, budgets=budgets, **options)
        before_deferrals = tally.coverage["deferrals"]
        before_rescues = tally.coverage["rescues"]
        before_admissions = tally.coverage["admissions"]
        outlived = False
        tail = 0
        for index, event in enumerate(events):
            found = monitor.step(event)
            if found:
                result.failure = (family, events[: index + 1], found[0])
                break
            if not outlived and budgets["R"].terminal and not budgets["P"].terminal:
                outlived = True
            if all_stopped(budgets):
                tail += 1
                if tail > TAIL_AFTER_STOP:
                    break
        result.traces += 1
        result.steps += monitor.index
        result.per_family[family] = result.per_family.get(family, 0) + 1
        result.stats["deferrals"] += tally.coverage["deferrals"] - before_deferrals
        result.stats["rescues"] += tally.coverage["rescues"] - before_rescues
        result.stats["admissions"] += tally.coverage["admissions"] - before_admissions
        result.stats["runs kept alive past the reference's stop"] += int(outlived)
        if result.failure is not None and stop_at_first:
            break
    result.seconds = time.perf_counter() - start
    return result


def run_unchecked(seed: int, traces: int, families: Sequence[str] | None = None) -> tuple[int, float]:
    """The floor: the same events through the same copies via ``applier``, no snapshots and no checks."""
    return step_unchecked(events for _family, events in traces_for(seed, traces, families))


def step_unchecked(batch: Iterable[Sequence[Event]]) -> tuple[int, float]:
    """Step fresh copies through each trace of ``batch`` with no checks; (steps, seconds), timing included."""
    steps = 0
    start = time.perf_counter()
    for events in batch:
        budgets = default_copies()
        appliers = [(applier(name), budget) for name, budget in budgets.items()]
        tail = 0
        for event in events:
            for apply, budget in appliers:
                apply(budget, event)
            steps += 1
            if all_stopped(budgets):
                tail += 1
                if tail > TAIL_AFTER_STOP:
                    break
    return steps, time.perf_counter() - start
