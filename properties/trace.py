"""Trace files: one JSON schema for replays, saved counterexamples and reviewers' own traces.

Schema ``guard-trace/1``::

    {
      "schema": "guard-trace/1",
      "name": "strixy-r107",                      # optional, shown in tables
      "limits": {"consecutive_failures": 4, ...},  # optional, any Limits field
      "events": [
        {"event": "round"},
        {"event": "result", "call_id": "c1", "tool": "exec", "params": {...},
         "failed": true, "pending": false, "discovery": false, "lane": null,
         "correctable": false, "corrected": false,
         "correctable_refusal": null, "empty_lookup": false},
        {"event": "first_call", "remedy": true},
        {"event": "stop"}
      ]
    }

Every event may carry a ``label`` (shown in the step table). A result needs
``call_id``; every other field has the default shown. Flags are JSON booleans,
``lane`` is a string or null, ``correctable_refusal`` a string or null. A file
that breaks the schema raises ``TraceError`` whose message names the file and
the field; the command-line tools print it on one line and exit 2.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import attrs

from guard.limits import Limits
from properties.budget.events import Event, FirstCall, Result, Round, Stop

SCHEMA = "guard-trace/1"

_FLAGS = ("failed", "pending", "discovery", "correctable", "corrected", "empty_lookup")
_RESULT_FIELDS = {"event", "label", "call_id", "tool", "params", "lane", "correctable_refusal", *_FLAGS}


class TraceError(ValueError):
    """A trace file that cannot be read; the message names the file and the field."""


@attrs.frozen
class Trace:
    name: str
    events: tuple[Event, ...]
    limits: Limits = attrs.field(factory=Limits)


def _fail(source: str, where: str, problem: str) -> TraceError:
    return TraceError(f"{source}: {where}: {problem}")


def _event(raw: Any, where: str, source: str) -> Event:
    if not isinstance(raw, dict):
        raise _fail(source, where, "expected an object")
    kind = raw.get("event")
    label = raw.get("label", "")
    if not isinstance(label, str):
        raise _fail(source, f"{where}.label", "expected a string")
    if kind == "round":
        return Round(label=label)
    if kind == "stop":
        return Stop(label=label)
    if kind == "first_call":
        remedy = raw.get("remedy", False)
        if not isinstance(remedy, bool):
            raise _fail(source, f"{where}.remedy", "expected true or false")
        return FirstCall(remedy=remedy, label=label)
    if kind != "result":
        raise _fail(source, f"{where}.event", f"expected round, result, first_call or stop, got {kind!r}")
    unknown = sorted(set(raw) - _RESULT_FIELDS)
    if unknown:
        raise _fail(source, f"{where}.{unknown[0]}", "unknown field")
    if "call_id" not in raw:
        raise _fail(source, f"{where}.call_id", "missing")
    flags = {}
    for flag in _FLAGS:
        value = raw.get(flag, False)
        if not isinstance(value, bool):
            raise _fail(source, f"{where}.{flag}", f"expected true or false, got {value!r}")
        flags[flag] = value
    lane = raw.get("lane")
    if lane is not None and not isinstance(lane, str):
        raise _fail(source, f"{where}.lane", "expected a string or null")
    kind_value = raw.get("correctable_refusal")
    if kind_value is not None and not isinstance(kind_value, str):
        raise _fail(source, f"{where}.correctable_refusal", "expected a string or null")
    return Result(
        call_id=raw["call_id"], tool=raw.get("tool", "read"), params=raw.get("params"),
        lane=lane, correctable_refusal=kind_value, label=label, **flags,
    )


def parse_trace(data: Any, source: str = "<trace>") -> Trace:
    """Validate a decoded trace document."""
    if not isinstance(data, dict):
        raise _fail(source, "(top level)", "expected an object")
    if data.get("schema") != SCHEMA:
        raise _fail(source, "schema", f"expected {SCHEMA!r}, got {data.get('schema')!r}")
    name = data.get("name", Path(source).stem)
    if not isinstance(name, str):
        raise _fail(source, "name", "expected a string")
    raw_limits = data.get("limits", {})
    if not isinstance(raw_limits, dict):
        raise _fail(source, "limits", "expected an object")
    known = {field.name for field in attrs.fields(Limits)}
    for key, value in raw_limits.items():
        if key not in known:
            raise _fail(source, f"limits.{key}", "unknown limit")
        if type(value) is not int or value < 1:
            raise _fail(source, f"limits.{key}", f"expected a positive integer, got {value!r}")
    events = data.get("events")
    if not isinstance(events, list):
        raise _fail(source, "events", "expected a list")
    parsed = tuple(_event(raw, f"events[{index}]", source) for index, raw in enumerate(events))
    return Trace(name=name, events=parsed, limits=Limits(**raw_limits))


def load_trace(path: str | Path) -> Trace:
    """Read and validate a trace file."""
    source = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise TraceError(f"{source}: file not found") from None
    except (OSError, UnicodeDecodeError) as error:
        raise TraceError(f"{source}: cannot read: {error}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise TraceError(f"{source}: line {error.lineno}: not JSON: {error.msg}") from None
    return parse_trace(data, source)


def event_to_json(event: Event) -> dict[str, Any]:
    if isinstance(event, Result):
        out: dict[str, Any] = {"event": "result", "call_id": event.call_id, "tool": event.tool, "params": event.params}
        for flag in _FLAGS:
            if getattr(event, flag):
                out[flag] = True
        if event.lane is not None:
            out["lane"] = event.lane
        if event.correctable_refusal is not None:
            out["correctable_refusal"] = event.correctable_refusal
    elif isinstance(event, FirstCall):
        out = {"event": "first_call", "remedy": event.remedy}
    elif isinstance(event, Round):
        out = {"event": "round"}
    else:
        out = {"event": "stop"}
    if event.label:
        out["label"] = event.label
    return out


def trace_to_json(trace: Trace) -> dict[str, Any]:
    limits = {field.name: getattr(trace.limits, field.name) for field in attrs.fields(Limits)
              if getattr(trace.limits, field.name) != field.default}
    doc: dict[str, Any] = {"schema": SCHEMA, "name": trace.name}
    if limits:
        doc["limits"] = limits
    doc["events"] = [event_to_json(event) for event in trace.events]
    return doc


def save_trace(trace: Trace, path: str | Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(trace_to_json(trace), indent=1) + "\n", encoding="utf-8")
    return path
