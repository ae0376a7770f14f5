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
from properties.budget.events import Event, FirstCall, Result, Round, Stop
from properties.budget.invariants import BY_ID, Tally, Violation, new_monitor, snap
from properties.trace import Trace, dumps, save_trace

DEFAULT_DIR = Path("counterexamples")


def first_violation(events: Sequence[Event], limits: Limits, invariant: str | None = None) -> Violation | None:
    """Replay ``events`` through a fresh monitor; the first violation (of ``invariant``, if given)."""
    monitor = new_monitor(limits, Tally(), new_copies(limits))
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
    monitor = new_monitor(limits, Tally(), new_copies(limits))
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


_MIRROR = {"workspace": "extension", "extension": "workspace"}
#: At most this many lane events are tried both ways (2**12 short replays).
MIRROR_AT_MOST = 12


def reproduce(events: Sequence[Event], limits: Limits, invariant: str) -> tuple[list[Event], str]:
    """Events that break ``invariant`` on a fresh monitor: ``events`` themselves, or a lane-mirrored variant.

    The explorer merges a state with its mirror image (the two lanes swapped), so the path it rebuilds
    from its parent links can switch lanes midway; replayed as it is, such a path reaches the mirror of
    the failing state and breaks nothing. Choice: rather than save a file that does not replay, try the
    variants with some lane events swapped (fewest swaps first) and keep the first that breaks the same
    invariant; the note says so. Returns ``(events, note)``; the note is "" when nothing was changed and
    "does not reproduce" when no variant breaks it.
    """
    events = list(events)
    if first_violation(events, limits, invariant) is not None:
        return events, ""
    positions = [index for index, event in enumerate(events)
                 if isinstance(event, Result) and isinstance(event.lane, str) and event.lane in _MIRROR]
    positions = positions[:MIRROR_AT_MOST]
    masks = sorted(range(1, 1 << len(positions)), key=lambda mask: (bin(mask).count("1"), mask))
    for mask in masks:
        variant = list(events)
        for bit, index in enumerate(positions):
            if mask >> bit & 1:
                event = variant[index]
                variant[index] = attrs.evolve(event, lane=_MIRROR[event.lane])
        if first_violation(variant, limits, invariant) is not None:
            return variant, f"lanes of {bin(mask).count('1')} events mirrored from the driver's path"
    return events, "does not reproduce on a fresh monitor"


def record(driver: str, events: Sequence[Event], limits: Limits, violation: Violation, out_dir: Path = DEFAULT_DIR,
           worker: str = "") -> Counterexample:
    """Shrink, save and describe a failing trace."""
    events, note = reproduce(events, limits, violation.invariant)
    small = shrink(events, limits, violation.invariant)
    final = first_violation(small, limits, violation.invariant) or violation
    path = save_counterexample(driver, small, limits, final, out_dir, worker, note)
    return Counterexample(driver, final, tuple(small), limits, path)
