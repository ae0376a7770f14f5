"""A counterexample is a short trace, a step table, a saved trace file and the invariant it breaks.

Every driver ends here when an invariant fails: Hypothesis shrinks its own
examples, the explorer keeps the shortest path (breadth first), and the bulk
driver shrinks by deleting events while the same invariant still fails. The
saved file is a ``guard-trace/1`` document that ``nox -s replay -- FILE``
shows side by side and judges again.

File names. Each counterexample gets its own file, named from the driver, the
worker (``A``/``B`` for the two bulk processes), the invariant, the number of
steps and a short hash of the content (``bulk-A-B11-2steps-3f9c21ab.json``):
two workers, or two runs, never overwrite each other's file, and the same
counterexample found twice lands in the same file rather than in two. The file
names the invariant and the step (from 0, as ``step_table`` and replay number
steps) where it broke, so replay can say whether it still breaks.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Sequence

import attrs

from guard.limits import Limits
from properties.budget.copies import new_copies
from properties.budget.events import Event, FirstCall, Round, Stop
from properties.budget.invariants import BY_ID
from properties.catalogue import Tally, Violation
from properties.budget.monitor import new_monitor
from properties.budget.state import snap
from properties.trace import Trace, dumps, save_trace

DEFAULT_DIR = Path("counterexamples")


def first_violation(events: Sequence[Event], limits: Limits, invariant: str | None = None) -> Violation | None:
    """Replay ``events`` through a fresh monitor; the first violation (of ``invariant``, if given)."""
    monitor = new_monitor(Tally(), limits=limits, budgets=new_copies(limits))
    for event in events:
        for violation in monitor.step(event):
            if invariant is None or violation.invariant == invariant:
                return violation
    return None


def shrink(events: Sequence[Event], limits: Limits, invariant: str) -> list[Event]:
    """Delete events (halves first, then single ones) while the same invariant still fails; deterministic."""
    current = list(events)
    violation = first_violation(current, limits, invariant)
    if violation is None:
        return current
    current = current[: violation.step + 1]
    chunk = max(1, len(current) // 2)
    while chunk >= 1:
        index = 0
        while index < len(current):
            candidate = current[:index] + current[index + chunk:]
            if candidate and first_violation(candidate, limits, invariant) is not None:
                current = candidate
            else:
                index += chunk
        chunk //= 2
    return current


def describe(event: Event) -> str:
    if isinstance(event, Round):
        return "round"
    if isinstance(event, Stop):
        return "stop()"
    if isinstance(event, FirstCall):
        return f"first call, remedy={'yes' if event.remedy else 'no'}"
    flags = [name for name in ("pending", "discovery", "correctable", "corrected", "empty_lookup") if getattr(event, name)]
    if event.lane is not None:
        flags.append(f"lane={event.lane}")
    if event.correctable_refusal is not None:
        flags.append(f"refusal={event.correctable_refusal}")
    outcome = "FAIL" if event.failed else "ok"
    return f"{event.call_id} {event.tool} {outcome} {' '.join(flags)}".rstrip()


def step_table(events: Sequence[Event], limits: Limits, copies: Sequence[str] = ("R", "P")) -> str:
    """One row per event: the event and, per copy, consecutive/total/waiting/correction/stopped."""
    monitor = new_monitor(Tally(), limits=limits, budgets=new_copies(limits))
    header = f"{'step':>4}  {'event':<44}" + "".join(f"  {name + ' c/t/wait/corr/stop':<28}" for name in copies)
    rows = [header, "-" * len(header)]
    for index, event in enumerate(events):
        found = monitor.step(event)
        cells = []
        for name in copies:
            state = snap(monitor.budgets[name])
            cells.append(
                f"{state.consecutive}/{state.failures}/{state.deferred or '-'}/"
                f"{state.correction or '-'}/{'STOP' if state.terminal else 'open'}"
            )
        mark = "  <- " + ", ".join(v.invariant for v in found) if found else ""
        rows.append(f"{index:>4}  {describe(event)[:44]:<44}" + "".join(f"  {cell:<28}" for cell in cells) + mark)
    return "\n".join(rows)


@attrs.frozen
class Counterexample:
    driver: str
    violation: Violation
    events: tuple[Event, ...]
    limits: Limits
    path: Path

    def render(self) -> str:
        invariant = BY_ID[self.violation.invariant]
        return (
            f"COUNTEREXAMPLE from {self.driver}: {self.violation}\n"
            f"  {invariant.id} [{invariant.seeds}] {invariant.statement}\n"
            f"{step_table(self.events, self.limits)}\n"
            f"  saved: {self.path} (replay: nox -s replay -- {self.path})"
        )


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-")


def counterexample_trace(driver: str, events: Sequence[Event], limits: Limits, violation: Violation,
                         worker: str = "", note: str = "") -> Trace:
    """The trace file of a counterexample, named ``driver[-worker]-invariant-Nsteps-hash``."""
    body = Trace(name="", events=tuple(events), limits=limits, invariant=violation.invariant, step=violation.step)
    digest = hashlib.sha256(dumps(body).encode("utf-8")).hexdigest()[:8]
    parts = [_slug(driver), _slug(worker), violation.invariant, f"{len(body.events)}steps", digest]
    name = "-".join(part for part in parts if part)
    origin = f"{driver}" + (f" worker {worker}" if worker else "") + (f", {note}" if note else "")
    return attrs.evolve(body, name=name, origin=origin)


def save_counterexample(driver: str, events: Sequence[Event], limits: Limits, violation: Violation,
                        out_dir: Path = DEFAULT_DIR, worker: str = "", note: str = "") -> Path:
    """Save a counterexample as it is (not shrunk) under its own name; returns the path."""
    trace = counterexample_trace(driver, events, limits, violation, worker, note)
    return save_trace(trace, Path(out_dir) / f"{trace.name}.json")


def record(driver: str, events: Sequence[Event], limits: Limits, violation: Violation, out_dir: Path = DEFAULT_DIR,
           worker: str = "", note: str = "") -> Counterexample:
    """Shrink, save and describe a failing trace (every driver hands over an actual trace from fresh budgets)."""
    small = shrink(events, limits, violation.invariant)
    found = first_violation(small, limits, violation.invariant)
    if found is None:
        # Said in the file rather than hidden: a driver handed over a trace that does not break the invariant.
        note = ", ".join(part for part in (note, "does not reproduce on a fresh monitor") if part)
    final = found or violation
    path = save_counterexample(driver, small, limits, final, out_dir, worker, note)
    return Counterexample(driver, final, tuple(small), limits, path)
