"""A counter counterexample: the failing trace saved as a ``counter-trace/1`` file."""

from __future__ import annotations

import json
from typing import Any

from properties.catalogue import Violation
from properties.counter.events import EVENT_NAMES
from properties.counter.trace_file import save
from properties.counterexample import DEFAULT_DIR, file_stem


def counterexample(driver: str, events: list[Any], violation: Violation) -> tuple[str, str]:
    names = json.dumps([EVENT_NAMES[type(event)] for event in events])
    stem = file_stem(["counter", driver, violation.invariant, f"{len(events)}steps"], names)
    path = save(list(events), DEFAULT_DIR / f"{stem}.json", violation.invariant)
    return f"COUNTEREXAMPLE from counter {driver}: {violation}\n  saved: {path}", str(path)
