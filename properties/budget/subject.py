"""The budget subject (seeds 000-002): invariants B1-B13 over the reference and six production copies.

Its rules live in ``guard/budget.py`` and ``guard/limits.py``; its invariants in
``properties/budget/invariants.py``; its drivers in ``properties/budget/drivers.py``
(exhaustive explorer, Hypothesis state machine, seeded bulk traces); its
mutations in ``mutations/entries/budget.py`` (level ``budget``).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Callable

import attrs

from guard.limits import Limits
from properties.budget.copies import SPEC_LIMITS
from properties.budget.counterexample import counterexample
from properties.budget.events import EVENT_NAMES
from properties.budget.invariants import CATALOGUE, COVERAGE_MINIMUMS
from properties.budget.monitor import new_monitor
from properties.budget.trace_file import SCHEMA
from properties.cli import positive_seconds
from properties.safe_json import carries_schema
from properties.subject import Lazy, Bench, Driver, Option, Pin, Replay, Subject


def limits_note() -> str:
    """A line naming every default of ``guard/limits.py`` that differs from ``shared/spec/budget.md``, or ""."""
    production, spec = Limits(), SPEC_LIMITS
    if production == spec:
        return ""
    changed = [
        f"{field.name} {getattr(production, field.name)} (spec {getattr(spec, field.name)})"
        for field in attrs.fields(Limits)
        if getattr(production, field.name) != getattr(spec, field.name)
    ]
    return "note: guard/limits.py defaults differ from shared/spec/budget.md: " + ", ".join(changed)


def state_machine() -> type:
    from properties.budget.stateful import standalone

    return standalone()


def replay(argv: list[str]) -> int:
    from properties.budget.replay import replay_main

    return replay_main(argv)


def pin(source: Path, folder: Path, invariant: "str | None") -> tuple[Path, tuple[str, ...]]:
    from properties.budget.replay import pin_trace

    return pin_trace(source, folder, invariant)


def check_pinned(path: Path) -> tuple[str, bool]:
    from properties.budget.replay import check_pinned as check

    return check(path)


def bench(args: argparse.Namespace, add: Callable[[str, str, str], None]) -> tuple[list[tuple[str, str]], bool]:
    from properties.budget.bench import run

    return run(args, add)


def bench_options(parser: argparse.ArgumentParser) -> None:
    from properties.budget.bench import add_options

    add_options(parser)


def check_bench_options(args: argparse.Namespace) -> str:
    from properties.budget.bench import check_options

    return check_options(args)


SUBJECT = Subject(
    name="budget",
    title="the run-progress budget",
    seeds="000, 001, 002",
    catalogue=CATALOGUE,
    coverage_minimums=COVERAGE_MINIMUMS,
    drivers=(
        Driver("bulk", Lazy("properties.budget.drivers", "run_bulk_driver"), cost=1, parts=2, sized=True),
        Driver("stateful", Lazy("properties.budget.drivers", "run_stateful_driver"), cost=2),
        Driver("explorer", Lazy("properties.budget.drivers", "run_explorer_driver"), cost=3, main_process=True),
    ),
    events={name: kind for kind, name in EVENT_NAMES.items()},
    monitor=new_monitor,
    state_machine=state_machine,
    counterexample=counterexample,
    preamble=limits_note,
    order=10,
    # The review compares its guard at BASE and at HEAD through this side (nox -s review).
    review="properties.budget.review_side",
    replay=Replay(SCHEMA, lambda path: carries_schema(path, SCHEMA), replay, sessions=True),
    pin=Pin(pin, check_pinned),
    bench=Bench(bench, bench_options, check_bench_options),
    options=(Option("--explorer-seconds", "explorer_seconds", "time budget of the budget's explorer "
                    "(default 240 s; --quick 60; --mutants 30)", positive_seconds),),
)

