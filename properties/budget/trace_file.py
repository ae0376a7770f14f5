"""Trace files: one JSON schema for replays, saved counterexamples, pinned regressions and reviewers' own traces.

Schema ``guard-trace/1``::

    {
      "schema": "guard-trace/1",
      "subject": "budget",                         # optional, "budget" only (every other subject's
                                                   # files have a schema of their own, read by the
                                                   # same safe_json rules; properties.replay dispatches)
      "name": "strixy-r107",                       # optional, shown in tables
      "invariant": "B5",                           # optional: the invariant the file was saved for
      "step": 3,                                   # optional: the step (from 0) where it broke
      "origin": "bulk worker A, seed 5",           # optional: free text, where the file came from
      "limits": {"consecutive_failures": 4, ...},  # optional, any Limits field
      "events": [                                  # last field, at least one event
        {"event": "round"},
        {"event": "result", "call_id": "c1", "tool": "exec", "params": {...},
         "failed": true, "pending": false, "discovery": false, "lane": null,
         "correctable": false, "corrected": false,
         "correctable_refusal": null, "empty_lookup": false},
        {"event": "first_call", "remedy": true},
        {"event": "stop"}
      ]
    }

Field types, checked on every event of every kind (``BUDGET_EVENTS`` holds them
as data; a field not listed for its kind is refused):

==================== =============================== ==========
field                type                            default
==================== =============================== ==========
label (every kind)   string                          ""
call_id (result)     JSON scalar: string, number,    (required)
                     true/false or null
tool                 string                          "read"
params               any JSON value                  null
failed, pending,     true or false                   false
discovery,
correctable,
corrected,
empty_lookup
lane                 JSON scalar                     null
correctable_refusal  string or null                  null
remedy (first_call)  true or false                   false
==================== =============================== ==========

``call_id`` and ``lane`` take any scalar because a host may send one and the
drivers generate them (``BAD_IDS`` 5 and null, ``LANE_VALUES`` 7): both
budgets must ignore an unusable id and treat an unknown lane as no lane, so a
trace must be able to say so. Numbers must be finite (no NaN or Infinity,
which strict JSON does not have) and integers fit in 64 bits (a 5,000-digit
integer is refused before Python converts it).

Hostile files. Everything a file can get wrong raises ``TraceError``, whose
message names the file and the field (``events[3].tool: expected a string``);
the command-line tools print it on one line and exit 2. The rules for reading
the JSON itself (regular files only, depth and size checked before parsing,
duplicate keys, non-finite and huge numbers, printable messages) are
``properties.safe_json``'s, shared with the hook sequence and navigation
scenario files; the field types above are its ``FieldType`` values.

Streaming. ``read_trace`` reads the file in ``CHUNK_BYTES`` pieces and yields
one event at a time, so the reader's memory is bounded by the read buffer plus
one value: at most ``CHUNK_BYTES + 2 * MAX_VALUE_BYTES`` characters of text
(about 3 MiB, up to four bytes each as Python strings) whatever the file's
length. Replay adds only what the budgets remember, which the trace's limits
cap (``seen_calls`` ids and ``successes`` fingerprints, each limit at most
``MAX_LIMIT``), and the first ``TABLE_ROWS`` rows of its table. For that
the top-level ``events`` field must come last (every file this harness writes
does); a field after it is refused by name. ``load_trace`` materializes a
whole trace for small files and tests. Measured (README, "Trace files"): replaying
a 200 MB trace of 207,164 events peaks at 28.7 MB resident, the same as a 5 MB one.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Iterator, Mapping

import attrs

from guard.limits import Limits
from properties.budget.events import Event, FirstCall, Result, Round, Stop
from properties.safe_json import (  # noqa: F401  (re-exported: the names trace users import from here)
    ANY_JSON, BOOLEAN, CHUNK_BYTES, MAX_DEPTH, MAX_INT, MAX_VALUE_BYTES, REQUIRED, SCALAR, STRING, STRING_OR_NULL,
    FieldType, JsonFileError, Reader, check_object, fail, open_regular, printable, show,
)

SCHEMA = "guard-trace/1"
DEFAULT_SUBJECT = "budget"

#: A limit is at most this: the budgets keep up to ``seen_calls`` ids and ``successes`` fingerprints,
#: so a limit also bounds replay's memory.
MAX_LIMIT = 1_000_000

_FLAGS = ("failed", "pending", "discovery", "correctable", "corrected", "empty_lookup")
_TOP_FIELDS = ("schema", "subject", "name", "invariant", "step", "origin", "limits", "events")


#: A trace file that cannot be read; the message names the file and the field. The same class as
#: ``JsonFileError``, so that a problem the shared reader finds is caught as a ``TraceError``.
TraceError = JsonFileError


@attrs.frozen
class Trace:
    name: str
    events: tuple[Event, ...]
    limits: Limits = attrs.field(factory=Limits)
    subject: str = DEFAULT_SUBJECT
    #: The invariant this trace was saved for and the step (from 0) where it broke, when known.
    invariant: str | None = None
    step: int | None = None
    origin: str = ""


def _fail(source: str, where: str, problem: str) -> TraceError:
    return fail(source, where, problem)


_show = show


@attrs.frozen
class EventKind:
    """One event kind of a subject's traces: its class, and each field's type and default (``REQUIRED``: none)."""

    cls: type
    fields: Mapping[str, tuple[FieldType, Any]]


_LABEL = {"label": (STRING, "")}

#: The budget subject's events, as trace files write them.
BUDGET_EVENTS: dict[str, EventKind] = {
    "round": EventKind(Round, dict(_LABEL)),
    "stop": EventKind(Stop, dict(_LABEL)),
    "first_call": EventKind(FirstCall, {**_LABEL, "remedy": (BOOLEAN, False)}),
    "result": EventKind(Result, {
        **_LABEL,
        "call_id": (SCALAR, REQUIRED),
        "tool": (STRING, "read"),
        "params": (ANY_JSON, None),
        **{flag: (BOOLEAN, False) for flag in _FLAGS},
        "lane": (SCALAR, None),
        "correctable_refusal": (STRING_OR_NULL, None),
    }),
}

#: The event kinds by subject name: the budget's only (another subject's files have their own schema).
EVENT_KINDS: dict[str, dict[str, EventKind]] = {"budget": BUDGET_EVENTS}


def kinds_for(subject: str) -> dict[str, EventKind]:
    """A subject's event kinds (``KeyError`` for any subject but the budget).

    Choice: the schema states each field's type (``call_id`` any scalar, ``tool`` a string), so the kinds
    are written here by hand rather than derived from the event classes."""
    return EVENT_KINDS[subject]


def event_name(event: Any, subject: str = DEFAULT_SUBJECT) -> str:
    for name, kind in kinds_for(subject).items():
        if type(event) is kind.cls:
            return name
    raise TypeError(f"{type(event).__name__} is not an event of subject {subject!r}")


# -- the document -------------------------------------------------------------------------------------


def _limits(raw: Any, source: str) -> Limits:
    if not isinstance(raw, dict):
        raise _fail(source, "limits", "expected an object")
    known = {field.name for field in attrs.fields(Limits)}
    for key, value in raw.items():
        if key not in known:
            raise _fail(source, f"limits.{key}", f"unknown limit (known: {', '.join(sorted(known))})")
        if type(value) is not int or not 1 <= value <= MAX_LIMIT:
            raise _fail(source, f"limits.{key}", f"expected an integer from 1 to {MAX_LIMIT:,}, got {_show(value)}")
    return Limits(**raw)


def parse_event(raw: Any, where: str, source: str, subject: str = DEFAULT_SUBJECT) -> Any:
    """One event of ``subject``, every field's type checked; unknown fields refused on every kind."""
    if not isinstance(raw, dict):
        raise _fail(source, where, f"expected an object, got {_show(raw)}")
    kinds = kinds_for(subject)
    name = raw.get("event")
    if "event" not in raw:
        raise _fail(source, f"{where}.event", "missing")
    if not isinstance(name, str) or name not in kinds:
        raise _fail(source, f"{where}.event", f"expected one of {', '.join(kinds)}, got {_show(name)}")
    kind = kinds[name]
    body = {key: value for key, value in raw.items() if key != "event"}
    values = check_object(body, kind.fields, where, source, f"a {name} event")
    return kind.cls(**values)


def _other_subject_schema(value: Any) -> "str | None":
    """The schema of the registered subject ``value`` names, when it is another subject's; else None.

    Read from the registry on this error path only (``properties.subject`` loads every subject folder, this one
    among them, so it is not imported with this module)."""
    if not isinstance(value, str) or value in EVENT_KINDS:
        return None
    from properties.subject import load

    try:
        replay = load(value).replay
    except KeyError:
        return None
    return replay.schema if replay is not None else None


def _header_value(key: str, value: Any, source: str) -> Any:
    if key == "schema":
        if value != SCHEMA:
            raise _fail(source, "schema", f"expected {SCHEMA!r}, got {_show(value)}")
    elif key == "subject":
        other = _other_subject_schema(value)
        if other is not None:
            # Replay picks a file's subject by its schema alone: a file that names another subject but lacks that
            # subject's schema reached this reader, so the one thing to fix is the schema line.
            raise _fail(source, "subject", f"names {value}, whose files carry \"schema\": \"{other}\"; this file does "
                                           f"not, so it was read as a budget trace")
        if not isinstance(value, str) or value not in EVENT_KINDS:
            raise _fail(source, "subject", f"expected one of {', '.join(EVENT_KINDS)}, got {_show(value)}")
    elif key in ("name", "origin"):
        if not isinstance(value, str):
            raise _fail(source, key, f"expected a string, got {_show(value)}")
    elif key == "invariant":
        if not (isinstance(value, str) and re.fullmatch(r"[A-Z]{1,3}\d{1,3}", value)):
            raise _fail(source, key, f"expected an invariant id such as \"B5\", got {_show(value)}")
    elif key == "step":
        if type(value) is not int or value < 0:
            raise _fail(source, key, f"expected a step number from 0, got {_show(value)}")
    elif key == "limits":
        return _limits(value, source)
    return value


@attrs.frozen
class TraceStream:
    """A trace file's header (a ``Trace`` without events) and a way to read its events once."""

    header: Trace
    events: Iterator[Any]


def read_trace(path: str | Path) -> TraceStream:
    """Open a trace file, read and check its header, and stream its events (each checked as it is read).

    The returned iterator raises ``TraceError`` at the first bad event and closes the file when exhausted.
    """
    source = str(path)
    reader = Reader(open_regular(path), source)
    try:
        header: dict[str, Any] = {}
        first = reader.skip()
        if first and first != "{":
            # Valid JSON of the wrong shape is not "not JSON": read the value (which refuses what is not JSON),
            # then say what the file holds instead of an object.
            other = reader.value("(top level)")
            raise _fail(source, "(top level)", f"expected an object, got {_show(other)}")
        reader.expect("{", "(top level)")
        if reader.skip() == "}":
            raise _fail(source, "schema", "missing")
        while True:
            key = reader.value("(top level)")
            if not isinstance(key, str):
                raise reader.bad_json("(top level)", "expected a field name")
            if key in header:
                raise _fail(source, key, "duplicate key")
            if key not in _TOP_FIELDS:
                raise _fail(source, key, f"unknown field (known: {', '.join(_TOP_FIELDS)})")
            reader.expect(":", key)
            if key == "events":
                break
            header[key] = _header_value(key, reader.value(key), source)
            if reader.expect(",}", key) == "}":
                raise _fail(source, "events", "missing")
        if "schema" not in header:
            raise _fail(source, "schema", "missing, or after events (events must be the last field)")
        trace = Trace(
            name=header.get("name", Path(source).stem), events=(), limits=header.get("limits", Limits()),
            subject=header.get("subject", DEFAULT_SUBJECT), invariant=header.get("invariant"),
            step=header.get("step"), origin=header.get("origin", ""),
        )
        if reader.skip() != "[":
            # Not a list: read the value anyway so that the message names its type.
            raise _fail(source, "events", f"expected a list, got {_show(reader.value('events'))}")
        reader.pos += 1
    except BaseException:
        reader.close()
        raise
    return TraceStream(trace, _events(reader, trace.subject))


def _events(reader: Reader, subject: str) -> Iterator[Any]:
    source = reader.source
    try:
        index = 0
        if reader.skip() == "]":
            raise _fail(source, "events", "empty: a trace needs at least one event")
        while True:
            where = f"events[{index}]"
            yield parse_event(reader.value(where), where, source, subject)
            index += 1
            if reader.expect(",]", where) == "]":
                break
        after = reader.expect(",}", "events")
        if after == ",":
            following = reader.value("(top level)")
            raise _fail(source, printable(following) if isinstance(following, str) else "(top level)",
                        "after events (events must be the last field)")
        if reader.skip():
            raise reader.bad_json("(end)", "text after the document")
    finally:
        reader.close()


def load_trace(path: str | Path) -> Trace:
    """Read and validate a whole trace file into memory (small files; replay streams instead)."""
    stream = read_trace(path)
    events = tuple(stream.events)
    return attrs.evolve(stream.header, events=events)


def parse_trace(data: Any, source: str = "<trace>") -> Trace:
    """Validate an already decoded trace document (tests, other tools); same rules as a file."""
    if not isinstance(data, dict):
        raise _fail(source, "(top level)", "expected an object")
    header: dict[str, Any] = {}
    for key, value in data.items():
        if key not in _TOP_FIELDS:
            raise _fail(source, key, "unknown field")
        if key != "events":
            header[key] = _header_value(key, value, source)
    if "schema" not in header:
        raise _fail(source, "schema", "missing")
    subject = header.get("subject", DEFAULT_SUBJECT)
    events = data.get("events")
    if not isinstance(events, list):
        raise _fail(source, "events", f"expected a list, got {_show(events)}")
    if not events:
        raise _fail(source, "events", "empty: a trace needs at least one event")
    parsed = tuple(parse_event(raw, f"events[{index}]", source, subject) for index, raw in enumerate(events))
    return Trace(
        name=header.get("name", Path(source).stem), events=parsed, limits=header.get("limits", Limits()),
        subject=subject, invariant=header.get("invariant"), step=header.get("step"), origin=header.get("origin", ""),
    )


# -- writing ------------------------------------------------------------------------------------------


def event_to_json(event: Any, subject: str = DEFAULT_SUBJECT) -> dict[str, Any]:
    """An event as its trace-file object: every field that differs from its default."""
    name = event_name(event, subject)
    out: dict[str, Any] = {"event": name}
    for field, (_type, default) in kinds_for(subject)[name].fields.items():
        value = getattr(event, field)
        if default is REQUIRED or value != default or type(value) is not type(default):
            out[field] = value
    return out


def trace_to_json(trace: Trace) -> dict[str, Any]:
    # Every limit is written, not only those off the default: a file must replay the same under a
    # checkout whose guard/limits.py defaults differ (a limit mutation, a later change).
    limits = {field.name: getattr(trace.limits, field.name) for field in attrs.fields(Limits)}
    doc: dict[str, Any] = {"schema": SCHEMA}
    if trace.subject != DEFAULT_SUBJECT:
        doc["subject"] = trace.subject
    doc["name"] = trace.name
    if trace.invariant is not None:
        doc["invariant"] = trace.invariant
    if trace.step is not None:
        doc["step"] = trace.step
    if trace.origin:
        doc["origin"] = trace.origin
    doc["limits"] = limits
    doc["events"] = [event_to_json(event, trace.subject) for event in trace.events]
    return doc


def dumps(trace: Trace) -> str:
    """The file text of ``trace``; strict JSON (a non-finite number raises ``ValueError``)."""
    return json.dumps(trace_to_json(trace), indent=1, allow_nan=False) + "\n"


def save_trace(trace: Trace, path: str | Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dumps(trace), encoding="utf-8")
    return path


# -- a large trace, for measuring the streaming bound --------------------------------------------------


def write_large_trace(path: str | Path, megabytes: int, blob: int = 1800) -> int:
    """Write a valid trace of about ``megabytes`` MB (results with ``blob``-character params, rounds between).

    Returns the number of events. Written event by event, so writing needs no more memory than reading.
    """
    target = int(megabytes * 1_000_000)
    head = json.dumps({"schema": SCHEMA, "name": f"large-{megabytes}mb"})[:-1] + ', "events": [\n'
    written = 0
    events = 0
    with open(path, "w", encoding="utf-8") as out:
        out.write(head)
        written += len(head)
        while written < target:
            index = events // 2
            if events % 2:
                event = {"event": "result", "call_id": f"c{index}", "tool": "exec", "failed": index < 3,
                         "params": {"n": index, "blob": "x" * blob}}
            else:
                event = {"event": "round"}
            line = ("," if events else "") + json.dumps(event) + "\n"
            out.write(line)
            written += len(line)
            events += 1
        out.write("]}\n")
    return events


if __name__ == "__main__":
    import sys

    if len(sys.argv) != 3 or not sys.argv[2].isdigit():
        print("usage: python -m properties.budget.trace_file FILE MEGABYTES  (writes a large valid trace)", file=sys.stderr)
        sys.exit(2)
    print(f"{write_large_trace(sys.argv[1], int(sys.argv[2]))} events written to {sys.argv[1]}")
