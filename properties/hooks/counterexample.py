"""A hook counterexample: the sequence shrunk while the same invariant fails, a step table, a saved file.

The file is ``guard-hook-sequence/1`` (``properties.hooks.trace_file``), named
``hooks-<driver>-<invariant>-<N>steps.json`` under ``counterexamples/``;
``nox -s replay -- --hooks FILE`` replays it with its verdict.
"""

from __future__ import annotations

from typing import Any

import attrs

from properties.catalogue import Tally, Violation
from properties.counterexample import DEFAULT_DIR
from properties.counterexample import shrink as shrink_items
from properties.hooks.events import EVENT_NAMES, Call, HookSequence
from properties.hooks.invariants import BY_ID
from properties.hooks.monitor import HookMonitor
from properties.hooks.trace_file import save

COUNTEREXAMPLES = DEFAULT_DIR


def first_violation(sequence: HookSequence, invariant: str | None = None) -> Violation | None:
    found = HookMonitor(Tally()).check(sequence)
    for violation in found:
        if invariant is None or violation.invariant == invariant:
            return violation
    return None


def shrink(sequence: HookSequence, invariant: str) -> HookSequence:
    """Delete events (halves first, then single ones) while the same invariant still fails; deterministic."""
    def fails(events: list[Any]) -> bool:
        return first_violation(attrs.evolve(sequence, events=tuple(events)), invariant) is not None

    return attrs.evolve(sequence, events=tuple(shrink_items(sequence.events, fails)))


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
            budget: Any = guard.budget  # production's, and below the reference's: read alike
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
