"""Hook sequence files: how a hook counterexample is saved and read back (``nox -s replay -- --hooks FILE``).

Schema ``guard-hook-sequence/1``::

    {
      "schema": "guard-hook-sequence/1",
      "name": "bulk-H5-7steps",
      "invariant": "H5",                      # optional: the invariant it was saved for
      "playground": true, "strict_stop": false,
      "events": [
        {"event": "model_call"},
        {"event": "call", "index": 0, "kind": "gate", "binding": "bound",
         "record": true, "order": "after", "capped": true},
        {"event": "cancel"},
        {"event": "router_off"}
      ]
    }

A call's ``kind`` and ``binding`` are the names of ``properties.hooks.shapes``;
every call field but ``index`` and ``kind`` has the default shown. A file that
breaks the schema raises ``TraceError`` naming the file and the field.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from properties.hooks.events import ORDERS, Call, Cancel, HookSequence, ModelCall, RouterOff
from properties.hooks.shapes import BINDINGS, CALL_KINDS
from properties.trace import TraceError

SCHEMA = "guard-hook-sequence/1"
_SIMPLE = {"model_call": ModelCall, "cancel": Cancel, "router_off": RouterOff}


def to_json(sequence: HookSequence, name: str, invariant: str = "") -> dict[str, Any]:
    events: list[dict[str, Any]] = []
    for event in sequence.events:
        if isinstance(event, Call):
            events.append({"event": "call", "index": event.index, "kind": event.kind, "binding": event.binding,
                           "record": event.record, "order": event.order, "capped": event.capped})
        else:
            events.append({"event": next(key for key, kind in _SIMPLE.items() if isinstance(event, kind))})
    data: dict[str, Any] = {"schema": SCHEMA, "name": name}
    if invariant:
        data["invariant"] = invariant
    data.update(playground=sequence.playground, strict_stop=sequence.strict_stop, events=events)
    return data


def save(sequence: HookSequence, path: Path, name: str, invariant: str = "") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(to_json(sequence, name, invariant), indent=1) + "\n", encoding="utf-8")
    return path


def _field(raw: dict, key: str, kind: type, where: str, source: str, default: Any = None) -> Any:
    if key not in raw:
        if default is None:
            raise TraceError(f"{source}: {where}.{key}: missing")
        return default
    value = raw[key]
    if type(value) is not kind:
        raise TraceError(f"{source}: {where}.{key}: expected {kind.__name__}, got {type(value).__name__}")
    return value


def from_json(data: Any, source: str) -> tuple[HookSequence, str, str]:
    """(sequence, name, invariant) of a parsed file; ``TraceError`` naming the field when it breaks the schema."""
    if not isinstance(data, dict):
        raise TraceError(f"{source}: the file must hold a JSON object")
    if data.get("schema") != SCHEMA:
        raise TraceError(f"{source}: schema: expected {SCHEMA!r}, got {data.get('schema')!r}")
    playground = _field(data, "playground", bool, "playground", source, False)
    strict = _field(data, "strict_stop", bool, "strict_stop", source, False)
    raw_events = data.get("events")
    if not isinstance(raw_events, list):
        raise TraceError(f"{source}: events: expected a list")
    events = []
    for number, raw in enumerate(raw_events):
        where = f"events[{number}]"
        if not isinstance(raw, dict):
            raise TraceError(f"{source}: {where}: expected an object")
        name = raw.get("event")
        if name in _SIMPLE:
            events.append(_SIMPLE[name]())
            continue
        if name != "call":
            raise TraceError(f"{source}: {where}.event: expected one of call, {', '.join(_SIMPLE)}; got {name!r}")
        index = _field(raw, "index", int, where, source)
        kind = _field(raw, "kind", str, where, source)
        if kind not in CALL_KINDS:
            raise TraceError(f"{source}: {where}.kind: unknown call kind {kind!r}")
        binding = _field(raw, "binding", str, where, source, "bound")
        if binding not in BINDINGS:
            raise TraceError(f"{source}: {where}.binding: unknown binding {binding!r}")
        order = _field(raw, "order", str, where, source, "after")
        if order not in ORDERS:
            raise TraceError(f"{source}: {where}.order: expected after or persist, got {order!r}")
        events.append(Call(index, kind, binding, record=_field(raw, "record", bool, where, source, True), order=order,
                           capped=_field(raw, "capped", bool, where, source, True)))
    name = data.get("name") if isinstance(data.get("name"), str) else Path(source).stem
    invariant = data.get("invariant") if isinstance(data.get("invariant"), str) else ""
    return HookSequence(playground, tuple(events), strict_stop=strict), name, invariant


def load(path: Path) -> tuple[HookSequence, str, str]:
    source = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise TraceError(f"{source}: file not found") from None
    except OSError as error:
        raise TraceError(f"{source}: cannot read: {error.strerror}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise TraceError(f"{source}: not JSON (line {error.lineno}, column {error.colno})") from None
    return from_json(data, source)
