"""The lookup subject (seed 000): invariants L1-L4 over the shell lookup classifier, judged against real programs.

Rule: ``guard/lookup.py`` (``lookup_found_nothing``); spec:
``shared/spec/classifiers.md`` ("lookup found nothing"); invariants:
``properties/lookup/invariants.py``; monitor: ``monitor.py``; the real
programs and their scratch workspace: ``programs.py``; generators:
``generate.py``; the seed's own chains: ``fixtures.py``; drivers: seeded bulk
receipts and a Hypothesis state machine (``drivers.py``, ``stateful.py``);
trace files: ``trace_file.py``; throughput: ``bench.py``; mutations:
``mutations/entries/lookup.py`` (level ``lookup``); replay and pinning:
``replay.py``; counterexamples: ``counterexample.py``.

A lookup trace is a list of receipts; its one event kind is ``receipt``.
The subject needs dash, GNU grep and sed, git and ripgrep 13 (``requires``:
the verdict names the missing one and its Debian package, and exits 2).
"""

from __future__ import annotations

from typing import Any, Sequence

from properties.catalogue import Invariant, Tally, Violation
from properties.lookup import programs
from properties.lookup.events import Receipt
from properties.lookup.invariants import CATALOGUE, COVERAGE_MINIMUMS
from properties.lookup.monitor import new_monitor
from properties.lookup.trace_file import SCHEMA, LookupTraceError
from properties.safe_json import carries_schema
from properties.subject import Bench, Driver, Lazy, Pin, Replay, Subject


def monitor(tally: Tally, only: "Sequence[Invariant] | None" = None) -> Any:
    """The lookup monitor (replay and regressions judge a file with it); one line, exit 2, without the programs."""
    problem = programs.missing()
    if problem:
        raise LookupTraceError(problem)
    return new_monitor(tally, only)


def replay(argv: list[str]) -> int:
    from properties.lookup.replay import replay as run

    return run(argv)


def pin(source: Any, folder: Any, invariant: "str | None") -> Any:
    from properties.lookup.replay import pin as run

    return run(source, folder, invariant)


def check_pinned(path: Any) -> tuple[str, bool]:
    from properties.lookup.replay import check_pinned as run

    return run(path)


def state_machine() -> type:
    from properties.lookup.stateful import standalone

    return standalone()


def counterexample(driver: str, events: list[Any], violation: Violation) -> tuple[str, str]:
    from properties.lookup.counterexample import counterexample as save

    return save(driver, events, violation)


SUBJECT = Subject(
    name="lookup",
    title="the shell lookup classifier against the real programs",
    seeds="000",
    catalogue=CATALOGUE,
    coverage_minimums=COVERAGE_MINIMUMS,
    drivers=(
        Driver("bulk", Lazy("properties.lookup.drivers", "run_bulk_driver"), cost=1, sized=True),
        Driver("stateful", Lazy("properties.lookup.drivers", "run_stateful_driver"), cost=2),
    ),
    events={"receipt": Receipt},
    monitor=monitor,
    state_machine=state_machine,
    counterexample=counterexample,
    requires=programs.missing,
    unit="receipts",
    order=40,
    # The review compares its guard at BASE and at HEAD through this side (nox -s review).
    review="properties.lookup.review_side",
    replay=Replay(SCHEMA, lambda path: carries_schema(path, SCHEMA), replay),
    pin=Pin(pin, check_pinned),
    bench=Bench(Lazy("properties.lookup.bench", "run")),
)
