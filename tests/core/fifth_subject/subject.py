"""The counter subject: C1-C2 over a capped counter (a throwaway fifth subject for tests/core/test_fifth_subject.py)."""

from __future__ import annotations

from properties.counter import drivers
from properties.counter.counterexample import counterexample
from properties.counter.events import EVENT_NAMES
from properties.counter.invariants import CATALOGUE, COVERAGE_MINIMUMS
from properties.counter.monitor import new_monitor
from properties.counter.trace_file import SCHEMA
from properties.safe_json import carries_schema
from properties.subject import Bench, Driver, Replay, Subject


def state_machine() -> type:
    from properties.counter.stateful import standalone

    return standalone()


def replay(argv: list[str]) -> int:
    from properties.counter.replay import main

    return main(argv)


def bench(args, add):
    from properties.counter.bench import run

    return run(args, add)


SUBJECT = Subject(
    name="counter",
    title="a capped counter",
    seeds="-",
    catalogue=CATALOGUE,
    coverage_minimums=COVERAGE_MINIMUMS,
    drivers=(
        Driver("bulk", drivers.run_bulk_driver, cost=1, sized=True),
        Driver("stateful", drivers.run_stateful_driver, cost=2),
    ),
    events={name: kind for kind, name in EVENT_NAMES.items()},
    monitor=new_monitor,
    state_machine=state_machine,
    counterexample=counterexample,
    replay=Replay(SCHEMA, lambda path: carries_schema(path, SCHEMA), replay, sessions=True),
    bench=Bench(bench),
)
