"""Part 2 of the review (its bulk half): the budget at BASE and at HEAD driven by the same seeded traces.

The traces are the bulk driver's (``properties.budget.bulk.traces_for``), so a
review with seed S drives the very traces ``python -m properties --seed S``
checks. Each side runs in its own interpreter whose ``guard`` package is that
side's (``side_environment``: a folder holding only a ``guard`` link comes
first on ``PYTHONPATH``, HEAD's checkout second, so both sides share HEAD's
trace generator and differ only in ``guard/``). A side steps one production
budget (``RunProgressBudget(Limits())``, every flag passed on, as the bulk
driver's copy ``P``) with each side's own default limits, because a change
to a default is a change of behaviour, and prints one JSON line per trace:
per step, every observable:

* ``terminal`` - the run is stopped;
* ``exhausted`` - the exhausted lanes;
* ``pending_correction`` - the refusal kind whose remedy may still run;
* ``admitted`` - what a ``first_call`` returned (the remedy was let through);
* ``failure_ends`` - ``failure_ends`` for the next event's failure (its lane and
  flags; with no lane and no flag when the next event is not a failure);
* ``counters`` - rounds, failures, consecutive, the two lanes' counts, the
  waiting charge, deferrals used, free lookups used, the kinds corrected;
* ``error`` - an exception raised by the step (the trace ends there).

Like the bulk driver, a side ends a trace ``TAIL_AFTER_STOP`` steps after its
budget stopped with nothing left to admit: what a stopped budget does later
is not compared.

The main process compares the two streams trace by trace. A trace
*distinguishes* the sides at its first step where an observable differs; for
each observable the review keeps the trace whose first difference comes
soonest (shortest prefix, ties to the earlier trace) and saves that prefix as
a ``guard-trace/1`` file (``origin`` names BASE, HEAD, the seed and the
trace), which ``python -m properties.review --show FILE`` replays BASE beside
HEAD and ``nox -s replay -- FILE`` judges against the reference.

Not compared (not built yet): the hook path (what the host receives) and
navigation (the outcome); and the exhaustive half (the explorer's states at
BASE and HEAD side by side).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator, Sequence

import attrs

#: Steps a side keeps stepping after its budget stopped with nothing left to admit (the bulk driver's number).
TAIL_AFTER_STOP = 4

OBSERVABLES = ("terminal", "exhausted", "pending_correction", "admitted", "failure_ends", "counters", "error")


# -- one side (runs in its own interpreter) ---------------------------------------------------------------


def observe(budget: Any, following: Any) -> dict[str, Any]:
    """Every observable of ``budget`` after a step; ``following`` is the next event (or None)."""
    from properties.budget.events import Result

    lanes = getattr(budget, "lane_failures", {}) or {}
    if isinstance(following, Result) and following.failed:
        probe = {"lane": following.lane, "correctable": following.correctable, "empty_lookup": following.empty_lookup}
    else:
        probe = {}
    try:
        ends: Any = bool(budget.failure_ends(**probe))
    except Exception as error:  # an older BASE may lack it or raise: that is an observation, not a crash
        ends = f"raises {type(error).__name__}"
    return {
        "terminal": bool(budget.terminal),
        "exhausted": sorted(str(lane) for lane in getattr(budget, "exhausted_lanes", ())),
        "pending_correction": getattr(budget, "pending_correction", None),
        "failure_ends": ends,
        "counters": [getattr(budget, "rounds", None), getattr(budget, "failures", None), getattr(budget, "consecutive", None),
                     lanes.get("workspace"), lanes.get("extension"), getattr(budget, "deferred", None),
                     getattr(budget, "deferrals_used", None), getattr(budget, "free_lookups_used", None),
                     sorted(getattr(budget, "corrected_kinds", ()) or ())],
    }


def run_side(traces: Iterator[list[Any]], out: Any) -> None:
    """Step a fresh production budget through each trace and write one JSON line per trace."""
    from guard.budget import RunProgressBudget
    from guard.limits import Limits
    from properties.budget.copies import FEATURE_FLAGS, apply_production

    flags = FEATURE_FLAGS["P"]
    out.write(json.dumps({"limits": attrs.asdict(Limits())}) + "\n")
    for events in traces:
        budget = RunProgressBudget(Limits())
        rows = []
        stopped = 0
        for index, event in enumerate(events):
            try:
                admitted = apply_production(budget, event, flags)
            except Exception as error:
                rows.append({"error": f"{type(error).__name__}: {error}"})
                break
            row = observe(budget, events[index + 1] if index + 1 < len(events) else None)
            row["admitted"] = bool(admitted)
            rows.append(row)
            # As the bulk driver does (``TAIL_AFTER_STOP``): a few steps past a stop with nothing left to admit,
            # then the trace ends. Both sides cut by the same rule, so they cut at the same step unless they
            # already differed at an earlier one.
            stopped = stopped + 1 if budget.terminal and getattr(budget, "correction", None) is None else 0
            if stopped > TAIL_AFTER_STOP:
                break
        out.write(json.dumps(rows, default=str, separators=(",", ":")) + "\n")


def _side_main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m properties.review.behaviour")
    parser.add_argument("--seed", type=int)
    parser.add_argument("--traces", type=int)
    parser.add_argument("--trace", type=Path, help="one trace file instead of the seeded bulk traces")
    args = parser.parse_args(argv)
    if args.trace is not None:
        from properties.trace import load_trace

        source: Iterator[list[Any]] = iter([list(load_trace(args.trace).events)])
    else:
        from properties.budget.bulk import traces_for

        source = (events for _family, events in traces_for(args.seed, args.traces))
    run_side(source, sys.stdout)
    return 0


# -- both sides --------------------------------------------------------------------------------------------


def side_environment(head: Path, guard: Path, overlay: Path) -> dict[str, str]:
    """An environment whose ``guard`` is ``guard`` and whose everything else is HEAD's checkout."""
    overlay.mkdir(parents=True, exist_ok=True)
    link = overlay / "guard"
    if link.is_symlink() or link.exists():
        link.unlink()
    link.symlink_to(guard.resolve(), target_is_directory=True)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join((str(overlay), str(head)))
    env["PYTHONHASHSEED"] = "0"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def start_side(env: dict[str, str], cwd: Path, arguments: Sequence[str], output: Path) -> subprocess.Popen[bytes]:
    handle = output.open("wb")
    return subprocess.Popen([sys.executable, "-m", "properties.review.behaviour", *arguments], cwd=cwd, env=env,
                            stdout=handle, stderr=subprocess.PIPE)


@attrs.define
class Difference:
    observable: str
    trace: int
    step: int


@attrs.define
class Comparison:
    traces: int = 0
    steps: int = 0
    traces_differing: int = 0
    steps_differing: int = 0
    #: Per observable: traces and steps where it differs.
    by_observable: dict[str, dict[str, int]] = attrs.field(factory=lambda: {name: {"traces": 0, "steps": 0} for name in OBSERVABLES})
    #: Per observable, the trace whose first difference in it comes soonest.
    shortest: dict[str, Difference] = attrs.field(factory=dict)
    base_limits: dict[str, Any] = attrs.field(factory=dict)
    head_limits: dict[str, Any] = attrs.field(factory=dict)

    @property
    def changed(self) -> bool:
        return self.traces_differing > 0


def compare(base_lines: Iterator[str], head_lines: Iterator[str]) -> Comparison:
    result = Comparison()
    result.base_limits = json.loads(next(base_lines))["limits"]
    result.head_limits = json.loads(next(head_lines))["limits"]
    for number, (left, right) in enumerate(zip(base_lines, head_lines)):
        base_rows, head_rows = json.loads(left), json.loads(right)
        result.traces += 1
        length = max(len(base_rows), len(head_rows))
        common = min(len(base_rows), len(head_rows))
        result.steps += length
        differs = False
        seen: set[str] = set()
        if length > common:
            # One side cut the trace (stopped for good) where the other went on: they differed before.
            result.steps_differing += length - common
        for step in range(common):
            one, two = base_rows[step], head_rows[step]
            if one == two:
                continue
            names = [name for name in OBSERVABLES if one.get(name) != two.get(name)]
            if names:
                differs = True
                result.steps_differing += 1
            for name in names:
                result.by_observable[name]["steps"] += 1
                if name not in seen:
                    seen.add(name)
                    result.by_observable[name]["traces"] += 1
                    best = result.shortest.get(name)
                    if best is None or step < best.step:
                        result.shortest[name] = Difference(name, number, step)
        result.traces_differing += int(differs)
    return result


def read_rows(path: Path) -> list[dict[str, Any]]:
    """The rows of the one trace a side wrote for ``--trace``."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return json.loads(lines[1])


def cell(row: dict[str, Any] | None, name: str) -> str:
    if row is None:
        return "-"
    value = row.get(name)
    if name == "counters" and isinstance(value, list):
        labels = ("r", "f", "c", "ws", "ext", "wait", "def", "free", "kinds")
        return " ".join(f"{label}{'=' + str(v) if v not in (None, []) else '=-'}" for label, v in zip(labels, value))
    if name == "exhausted":
        return ",".join(value or []) or "none"
    return "-" if value is None else str(value)


def step_table(events: Sequence[Any], base_rows: list[dict[str, Any]], head_rows: list[dict[str, Any]],
               observables: Sequence[str], keep: int = 12) -> list[str]:
    """A short table of the last ``keep`` steps: the event, then BASE and HEAD for each observable shown."""
    from properties.replay import event_summary

    header = ["step", "event"] + [f"{side} {name}" for name in observables for side in ("BASE", "HEAD")]
    rows = []
    start = max(0, len(events) - keep)
    for index in range(start, len(events)):
        one = base_rows[index] if index < len(base_rows) else None
        two = head_rows[index] if index < len(head_rows) else None
        mark = "" if all(cell(one, name) == cell(two, name) for name in observables) else " *"
        cells = [f"{index}{mark}", event_summary(events[index])]
        for name in observables:
            cells += [cell(one, name), cell(two, name)]
        rows.append(cells)
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    if start:
        lines.append("| ... | " + f"{start} earlier steps not shown" + " |" * (len(header) - 1))
    lines += ["| " + " | ".join(c.replace("|", "/") for c in row) + " |" for row in rows]
    return lines


if __name__ == "__main__":
    sys.exit(_side_main(sys.argv[1:]))
