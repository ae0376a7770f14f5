"""Counter trace files, schema ``counter-trace/1``: ``{"schema", "invariant", "events": ["up", "down", ...]}``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from properties.counter.events import EVENT_NAMES
from properties.safe_json import JsonFileError, fail, read_json

SCHEMA = "counter-trace/1"
BY_NAME = {name: kind for kind, name in EVENT_NAMES.items()}


def save(events: list[Any], path: Path, invariant: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    doc = {"schema": SCHEMA, "invariant": invariant, "events": [EVENT_NAMES[type(event)] for event in events]}
    path.write_text(json.dumps(doc) + "\n", encoding="utf-8")
    return path


def load(path: Path) -> tuple[list[Any], str]:
    data = read_json(path, JsonFileError)
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise fail(str(path), "schema", f"expected {SCHEMA!r}")
    events = data.get("events")
    if not isinstance(events, list) or any(name not in BY_NAME for name in events):
        raise fail(str(path), "events", "expected a list of \"up\" and \"down\"")
    return [BY_NAME[name]() for name in events], str(data.get("invariant", ""))
