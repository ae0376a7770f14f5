"""Hook sequence files: how a hook counterexample is saved and read back (``nox -s replay -- --hooks FILE``).

Schema ``guard-hook-sequence/1``::

    {
      "schema": "guard-hook-sequence/1",
      "name": "bulk-H5-7steps",
      "invariant": "H5",                      # optional: the invariant it was saved for
      "playground": true, "strict_stop": false,
      "limits": {"consecutive_failures": 2},   # optional: scaled-down limits (the exhaustive model's files)
      "root": "/home/agent/workspace",         # optional: the guard's configured workspace root
      "events": [
        {"event": "model_call"},
        {"event": "call", "index": 0, "kind": "gate", "binding": "bound",
         "record": true, "order": "after", "capped": true,
         "record_id": "own"},                  # optional: own, nested, foreign or unhashable
        {"event": "cancel"},
        {"event": "router_off"}
      ]
    }

A call's ``kind`` and ``binding`` are the names of ``properties.hooks.shapes``;
every call field but ``index`` and ``kind`` has the default shown, as have
``name`` (the file's stem), ``invariant`` (none), ``playground`` and
``strict_stop`` (false), ``limits`` (the seeds' own) and ``root`` (none). The file is read by ``properties.safe_json``'s rules
(regular file, depth and size before parsing, strict numbers, no duplicate
keys); every field is typed, an unknown one refused, and a file that breaks the
schema raises ``TraceError`` naming the file and the field path
(``events[3].order: expected one of after, persist, got 'before'``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import attrs

from guard.limits import Limits
from properties.hooks.events import ORDERS, RECORD_IDS, Call, Cancel, HookSequence, ModelCall, RouterOff
from properties.hooks.shapes import BINDINGS, CALL_KINDS
from properties.safe_json import (
    BOOLEAN, COUNT, LIST, REQUIRED, STRING, STRING_OR_NULL, TOP, FieldType, check_object, fail, one_of, read_json,
    show,
)
from properties.safe_json import JsonFileError as TraceError

SCHEMA = "guard-hook-sequence/1"
_SIMPLE = {"model_call": ModelCall, "cancel": Cancel, "router_off": RouterOff}


def to_json(sequence: HookSequence, name: str, invariant: str = "") -> dict[str, Any]:
    events: list[dict[str, Any]] = []
    for event in sequence.events:
        if isinstance(event, Call):
            events.append({"event": "call", "index": event.index, "kind": event.kind, "binding": event.binding,
                           "record": event.record, "order": event.order, "capped": event.capped,
                           **({} if event.record_id == "own" else {"record_id": event.record_id})})
        else:
            events.append({"event": next(key for key, kind in _SIMPLE.items() if isinstance(event, kind))})
    data: dict[str, Any] = {"schema": SCHEMA, "name": name}
    if invariant:
        data["invariant"] = invariant
    data.update(playground=sequence.playground, strict_stop=sequence.strict_stop)
    if sequence.limits:
        data["limits"] = dict(sequence.limits)
    if sequence.root is not None:
        data["root"] = sequence.root
    data["events"] = events
    return data


def dumps(sequence: HookSequence, name: str, invariant: str = "") -> str:
    """The text of a sequence file (what ``save`` writes and a pinned copy holds)."""
    return json.dumps(to_json(sequence, name, invariant), indent=1) + "\n"


def save(sequence: HookSequence, path: Path, name: str, invariant: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dumps(sequence, name, invariant), encoding="utf-8")
    return path


def _limits(value: Any) -> bool:
    return isinstance(value, dict) and all(
        name in LIMIT_NAMES and type(number) is int and 1 <= number <= MAX_LIMIT for name, number in value.items())


#: The run-progress limits a file may scale down (``guard.limits.Limits``'s fields), each a positive integer.
LIMIT_NAMES = tuple(attrs.fields_dict(Limits))
MAX_LIMIT = 1_000_000
LIMITS = FieldType(f"an object of positive integers (at most {MAX_LIMIT:,}) named {', '.join(LIMIT_NAMES)}", _limits)

#: Each event's fields (besides ``event``), typed, with the default a missing one takes.
_CALL_FIELDS = {
    "index": (COUNT, REQUIRED),
    "kind": (one_of(*CALL_KINDS), REQUIRED),
    "binding": (one_of(*dict.fromkeys(BINDINGS)), "bound"),
    "record": (BOOLEAN, True),
    "order": (one_of(*ORDERS), "after"),
    "capped": (BOOLEAN, True),
    "record_id": (one_of(*RECORD_IDS), "own"),
}
_EVENT_FIELDS: dict[str, dict[str, Any]] = {"call": _CALL_FIELDS, **{name: {} for name in _SIMPLE}}
#: The top-level fields; ``events`` may be empty (a sequence of no events is a valid, if dull, run).
_TOP_FIELDS = {
    "schema": (one_of(SCHEMA), REQUIRED),
    "name": (STRING, ""),
    "invariant": (STRING, ""),
    "playground": (BOOLEAN, False),
    "strict_stop": (BOOLEAN, False),
    "limits": (LIMITS, {}),
    "root": (STRING_OR_NULL, None),
    "events": (LIST, REQUIRED),
}


def _event(raw: Any, where: str, source: str) -> Any:
    if not isinstance(raw, dict):
        raise fail(source, where, f"expected an object, got {show(raw)}")
    if "event" not in raw:
        raise fail(source, f"{where}.event", "missing")
    name = raw["event"]
    if not isinstance(name, str) or name not in _EVENT_FIELDS:
        raise fail(source, f"{where}.event", f"expected one of {', '.join(_EVENT_FIELDS)}, got {show(name)}")
    body = {key: value for key, value in raw.items() if key != "event"}
    values = check_object(body, _EVENT_FIELDS[name], where, source, f"a {name} event")
    if name in _SIMPLE:
        return _SIMPLE[name]()
    return Call(values.pop("index"), values.pop("kind"), **values)


def from_json(data: Any, source: str) -> tuple[HookSequence, str, str]:
    """(sequence, name, invariant) of a parsed file; ``TraceError`` naming the file and field when it breaks the schema.

    Every field is typed and an unknown one refused, at the top level and in each event: a misspelt
    ``strict_stop`` silently taking its default would replay a different run than the author meant.
    """
    if not isinstance(data, dict):
        raise fail(source, TOP, f"expected an object, got {show(data)}")
    if "schema" in data and data["schema"] != SCHEMA:
        # Checked first: a budget trace handed here is told what it is rather than which field is unknown.
        raise fail(source, "schema", f"expected {SCHEMA!r}, got {show(data['schema'])}")
    values = check_object(data, _TOP_FIELDS, TOP, source, "a hook sequence")
    if values.get("invariant"):
        if not re.fullmatch(r"[A-Z]{1,3}\d{1,3}", values["invariant"]):
            raise fail(source, "invariant", f"expected an invariant id such as \"H5\", got {show(values['invariant'])}")
    events = tuple(_event(raw, f"events[{number}]", source) for number, raw in enumerate(values["events"]))
    limits = tuple(sorted(values.get("limits", {}).items()))
    sequence = HookSequence(values.get("playground", False), events, strict_stop=values.get("strict_stop", False),
                            limits=limits, root=values.get("root"))
    return sequence, values.get("name") or Path(source).stem, values.get("invariant", "")


def load(path: Path) -> tuple[HookSequence, str, str]:
    """Read a sequence file by ``properties.safe_json``'s rules (regular file, depth and size, strict numbers)."""
    return from_json(read_json(path, TraceError), str(path))
