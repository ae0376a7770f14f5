"""The hook subject (``shared/spec/hooks.md``; seeds 000-002): invariants H1-H8 over the guard's accounting path.

Its rules live in ``guard/hooks.py`` (and ``guard/finalization.py``); its
invariants in ``properties/hooks/invariants.py``; its generators in
``properties/hooks/generate.py`` and ``shapes.py``; its drivers in
``properties/hooks/drivers.py`` (seeded bulk sequences, a Hypothesis state
machine); its replay of the recorded sessions in ``properties/hooks/replay.py``;
its mutations in ``mutations/entries/hooks.py`` (level ``hooks``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import attrs

from properties.catalogue import Invariant, Tally, Violation
from properties.hooks import drivers
from properties.hooks.events import EVENT_NAMES, Call, HookSequence
from properties.hooks.invariants import BY_ID, CATALOGUE, COVERAGE_MINIMUMS, HookMonitor
from properties.subject import Driver, Subject

COUNTEREXAMPLES = Path("counterexamples")


def monitor(tally: Tally, only: "Sequence[Invariant] | None" = None) -> HookMonitor:
    """A hook monitor; call ``start(sequence)`` (or ``check(sequence)``) before stepping."""
    return HookMonitor(tally, tuple(only) if only is not None else CATALOGUE)


def first_violation(sequence: HookSequence, invariant: str | None = None) -> Violation | None:
    found = HookMonitor(Tally()).check(sequence)
    for violation in found:
        if invariant is None or violation.invariant == invariant:
            return violation
    return None


def shrink(sequence: HookSequence, invariant: str) -> HookSequence:
    """Delete events (halves first, then single ones) while the same invariant still fails; deterministic."""
    current = list(sequence.events)
    chunk = max(1, len(current) // 2)
    while chunk >= 1:
        index = 0
        while index < len(current):
            candidate = current[:index] + current[index + chunk:]
            if candidate and first_violation(attrs.evolve(sequence, events=tuple(candidate)), invariant) is not None:
                current = candidate
            else:
                index += chunk
        chunk //= 2
    return attrs.evolve(sequence, events=tuple(current))


def describe(event: Any) -> str:
    if isinstance(event, Call):
        return f"{event.call_id} {event.kind} {event.binding} {event.order}-first" + ("" if event.record else " no-record") + (" capped" if event.capped else "")
    return EVENT_NAMES[type(event)]


def step_table(sequence: HookSequence) -> str:
    """One row per event: per guard (G as generated, M mirrored) consecutive/total/phase/stop, and H3's oracle
    (E: the reference budget and the earlier path's phase; ``-`` once an allowance applied)."""
    watch = HookMonitor(Tally())
    watch.start(sequence)
    header = f"{'step':>4}  {'event':<48}" + "".join(f"  {name + ' c/t/phase/stop':<26}" for name in ("G", "M", "E"))
    rows = [header, "-" * len(header)]
    for index, event in enumerate(sequence.events):
        found = watch.step(event)
        cells = []
        for name in ("G", "M"):
            guard = watch.guards[name]
            budget = guard.budget
            cells.append(f"{budget.consecutive}/{budget.failures}/{guard.finalization.phase}/{'STOP' if budget.terminal else 'open'}")
        earlier = watch.earlier
        if earlier is None:
            cells.append("-")
        else:
            budget = earlier.budget
            cells.append(f"{budget.consecutive}/{budget.failures}/{earlier.phase}/{'STOP' if budget.terminal else 'open'}")
        mark = "  <- " + ", ".join(v.invariant for v in found) if found else ""
        rows.append(f"{index:>4}  {describe(event)[:48]:<48}" + "".join(f"  {cell:<26}" for cell in cells) + mark)
    return "\n".join(rows)


def counterexample(driver: str, events: list[Any], violation: Violation) -> tuple[str, str]:
    """Shrink, save (``counterexamples/hooks-*.json``) and print a failing hook sequence."""
    from properties.hooks.sequence_file import save

    sequence = events[0]
    small = shrink(sequence, violation.invariant)
    final = first_violation(small, violation.invariant) or violation
    name = f"hooks-{driver}-{violation.invariant}-{len(small.events)}steps"
    path = save(small, COUNTEREXAMPLES / f"{name}.json", name, violation.invariant)
    invariant = BY_ID[violation.invariant]
    text = (
        f"COUNTEREXAMPLE from hooks {driver}: {final}\n"
        f"  {invariant.id} [{invariant.seeds}] {invariant.statement.splitlines()[0]}\n"
        f"  setting: {'Playground' if small.playground else 'website'}{', strict stop' if small.strict_stop else ''}\n"
        f"{step_table(small)}\n"
        f"  saved: {path} (replay: nox -s replay -- --hooks {path})"
    )
    return text, str(path)


def state_machine() -> type:
    from properties.hooks.stateful import standalone_machine

    return standalone_machine()


SUBJECT = Subject(
    name="hooks",
    title="the hook path that feeds the budget",
    seeds="000, 001, 002",
    catalogue=CATALOGUE,
    coverage_minimums=COVERAGE_MINIMUMS,
    drivers=(
        Driver("bulk", drivers.run_bulk_driver, cost=1, parts=2),
        Driver("stateful", drivers.run_stateful_driver, cost=2),
    ),
    events={name: kind for kind, name in EVENT_NAMES.items()},
    monitor=monitor,
    state_machine=state_machine,
    counterexample=counterexample,
    unit="sequences",
)
