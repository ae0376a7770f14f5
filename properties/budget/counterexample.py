"""A budget counterexample: a short trace, a step table, a saved ``guard-trace/1`` file and the invariant it breaks.

Every budget driver ends here when an invariant fails: Hypothesis shrinks its
own examples, the explorer keeps the shortest path (breadth first), and the
bulk driver shrinks by deleting events while the same invariant still fails
(``properties.counterexample.shrink``). The saved file is what
``nox -s replay -- FILE`` shows side by side and judges again; it names the
invariant and the step (from 0, as ``step_table`` and replay number steps)
where it broke, so replay can say whether it still breaks. File names follow
``properties.counterexample.file_stem``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import attrs

from guard.limits import Limits
from properties.budget.copies import new_copies
from properties.budget.events import Event, FirstCall, Round, Stop
from properties.budget.invariants import BY_ID
from properties.catalogue import Tally, Violation
from properties.budget.monitor import new_monitor
from properties.budget.state import snap
from properties.budget.trace_file import Trace, dumps, save_trace
from properties.budget.copies import SPEC_LIMITS
from properties import work_bound
from properties.counterexample import DEFAULT_DIR, file_stem
from properties.counterexample import shrink as shrink_items


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
    return shrink_items(current, lambda candidate: first_violation(candidate, limits, invariant) is not None)


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


def counterexample_trace(driver: str, events: Sequence[Event], limits: Limits, violation: Violation,
                         worker: str = "", note: str = "") -> Trace:
    """The trace file of a counterexample, named ``driver[-worker]-invariant-Nsteps-hash``."""
    body = Trace(name="", events=tuple(events), limits=limits, invariant=violation.invariant, step=violation.step)
    name = file_stem([driver, worker, violation.invariant, f"{len(body.events)}steps"], dumps(body))
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


#: A counterexample longer than this is saved as it is: shrinking it would cost more than the run.
SHRINK_AT_MOST = 200


def counterexample(driver: str, events: list[Any], violation: Violation) -> tuple[str, str]:
    """Shrink, save (``counterexamples/``) and print a failing budget trace; a long one is saved unshrunk.

    ``driver`` may carry the worker's letter ("bulk A"): it goes into the file name
    (``properties.counterexample``), so that two workers never write the same file.
    """
    driver, _, worker = driver.partition(" ")
    events = list(events[: violation.step + 1]) if violation.step < len(events) else list(events)
    if len(events) > SHRINK_AT_MOST:
        path = save_counterexample(driver, events, SPEC_LIMITS, violation, worker=worker, note="not shrunk")
        return f"COUNTEREXAMPLE from {driver}: {violation}\n  {len(events)} events, not shrunk; saved: {path}", str(path)
    try:
        found = record(driver, events, SPEC_LIMITS, violation, worker=worker)
        return found.render(), str(found.path)
    except Exception as error:
        # The trace is replayed to shrink and show it, with every failure_ends probe on (the driver may have had
        # fewer): a guard that raises there is saved as the driver handed it over, and the line says what raised.
        where = work_bound.raised(error)
        path = save_counterexample(driver, events, SPEC_LIMITS, violation, worker=worker,
                                   note=f"not shrunk: replaying it raised {where}")
        return (f"COUNTEREXAMPLE from {driver}: {violation}\n  {len(events)} events, not shrunk (replaying them raised "
                f"{where}); saved: {path}"), str(path)
