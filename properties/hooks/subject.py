"""The hook subject (``shared/spec/hooks.md``; seeds 000-002): invariants H1-H8 over the guard's accounting path.

Its rules live in ``guard/hooks.py`` (and ``guard/finalization.py``); its
invariants in ``properties/hooks/invariants.py``; its generators in
``properties/hooks/generate.py`` and ``shapes.py``; its drivers in
``properties/hooks/drivers.py`` (seeded bulk sequences, a Hypothesis state
machine); its replay of the recorded sessions in ``properties/hooks/replay.py``;
its counterexamples in ``counterexample.py``; its mutations in ``mutations/entries/hooks.py`` (level ``hooks``).
"""

from __future__ import annotations

from pathlib import Path

from properties.hooks.counterexample import counterexample
from properties.hooks.events import EVENT_NAMES
from properties.hooks.invariants import CATALOGUE, COVERAGE_MINIMUMS
from properties.hooks.monitor import PARTINGS, new_monitor
from properties.hooks.trace_file import SCHEMA
from properties.safe_json import carries_schema
from properties.subject import Bench, Lazy, Driver, Pin, Replay, Subject


def state_machine() -> type:
    from properties.hooks.stateful import standalone

    return standalone()


def replay(argv: list[str]) -> int:
    from properties.hooks.replay import main

    return main(argv)


def pin(source: Path, folder: Path, invariant: "str | None") -> tuple[Path, tuple[str, ...]]:
    from properties.hooks.replay import pin as run

    return run(source, folder, invariant)


def check_pinned(path: Path) -> tuple[str, bool]:
    from properties.hooks.replay import check_pinned as run

    return run(path)


SUBJECT = Subject(
    name="hooks",
    title="the hook path that feeds the budget",
    seeds="000, 001, 002",
    catalogue=CATALOGUE,
    coverage_minimums=COVERAGE_MINIMUMS,
    drivers=(
        Driver("bulk", Lazy("properties.hooks.drivers", "run_bulk_driver"), cost=1, parts=2, sized=True),
        Driver("stateful", Lazy("properties.hooks.drivers", "run_stateful_driver"), cost=2),
    ),
    events={name: kind for kind, name in EVENT_NAMES.items()},
    monitor=new_monitor,
    state_machine=state_machine,
    counterexample=counterexample,
    unit="sequences",
    order=20,
    # The review compares its guard at BASE and at HEAD through this side (nox -s review).
    review="properties.hooks.review_side",
    replay=Replay(SCHEMA, lambda path: carries_schema(path, SCHEMA), replay, option="--hooks"),
    pin=Pin(pin, check_pinned),
    # The hook path feeds the budget: its monitor and replay read the budget's snapshots (properties.budget.state).
    drives=("budget",),
    partings=PARTINGS,
    bench=Bench(Lazy("properties.hooks.bench", "run")),
    # The exhaustive engine's scopes of the hook path (properties/hooks/model.py), proved by the core's model driver.
    models=Lazy("properties.hooks.model", "scopes"),
)
