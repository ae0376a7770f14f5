"""Replay counter traces: one row per step, every invariant judged; exit 1 when one breaks, 2 for a bad file."""

from __future__ import annotations

import sys
from pathlib import Path

from properties.catalogue import Tally
from properties.counter.events import EVENT_NAMES
from properties.counter.fixtures import recorded
from properties.counter.monitor import new_monitor
from properties.counter.trace_file import load
from properties.safe_json import JsonFileError


def main(argv: list[str]) -> int:
    try:
        traces = [(name, *load(Path(name))) for name in argv if not name.startswith("-")] or [("recorded", recorded(), "")]
    except JsonFileError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    broke = False
    for name, events, saved in traces:
        monitor = new_monitor(Tally())
        print(f"counter trace {name}" + (f" (saved for {saved})" if saved else ""))
        for index, event in enumerate(events):
            found = monitor.step(event)
            print(f"{index:>4}  {EVENT_NAMES[type(event)]:<5} value {monitor.counter.value}")
            for violation in found:
                broke = True
                print(f"BROKEN {violation.invariant} ({violation.title}) at step {violation.step}: {violation.message}")
    return 1 if broke else 0
