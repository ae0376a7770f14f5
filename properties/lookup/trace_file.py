"""Lookup trace files, schema ``guard-lookup-trace/1``: receipts the classifier judged, and what the programs did.

A lookup counterexample is one receipt and what the real programs did with
it::

    {"schema": "guard-lookup-trace/1", "name": "lookup-bulk-L2-1c9e20ab",
     "invariant": "L2", "step": 0, "origin": "lookup bulk, seed 7",
     "events": [{"event": "receipt", "command": "grep -n foo ui.js", "kind": "valid",
                 "observed": {"argv": [["grep", "-n", "foo", "ui.js"]], "status": 1, ...}}]}

Read by ``properties.safe_json``'s rules (regular file, depth and size,
strict numbers); a bad file is a ``LookupTraceError`` whose one line names
the file and the field. ``nox -s replay -- FILE`` judges it with this
subject's monitor (the real programs run the receipt again); ``nox -s
pin-regression -- FILE`` pins it (``properties/lookup/replay.py``).

Receipt fields (``events.Receipt``): ``label`` (string, ""), ``command``
(any JSON value, required; ``{"bytes": hex}`` is a bytes value), ``exit_code``
(any JSON value, 1: the hostile corpus sends 1.0 and "1"), ``output`` (any
JSON value, ""), ``kind`` ("valid" or one of ``generate.HOSTILE_KINDS``,
"valid"), ``observed`` (any JSON value, null: what the programs did, shown).
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import attrs

from properties.catalogue import Violation
from properties.lookup.events import VALID, Receipt
from properties.lookup.generate import HOSTILE_KINDS
from properties.safe_json import (
    ANY_JSON, COUNT_OR_NULL, LIST, REQUIRED, STRING, STRING_OR_NULL, TOP, JsonFileError, check_object, fail, one_of,
    read_json, show,
)

SCHEMA = "guard-lookup-trace/1"
KINDS = (VALID, *HOSTILE_KINDS)


class LookupTraceError(JsonFileError):
    """A lookup trace file that cannot be read; the one-line message names the file and the field."""


@attrs.frozen
class LookupTrace:
    name: str
    events: tuple[Receipt, ...]
    invariant: "str | None" = None
    step: "int | None" = None
    origin: str = ""


_RECEIPT_FIELDS = {
    "label": (STRING, ""),
    "command": (ANY_JSON, REQUIRED),
    "exit_code": (ANY_JSON, 1),
    "output": (ANY_JSON, ""),
    "kind": (one_of(*KINDS), VALID),
    "observed": (ANY_JSON, None),
}
_TOP_FIELDS = {
    "schema": (one_of(SCHEMA), REQUIRED),
    "name": (STRING, ""),
    "invariant": (STRING_OR_NULL, None),
    "step": (COUNT_OR_NULL, None),
    "origin": (STRING, ""),
    "events": (LIST, REQUIRED),
}


def to_json(trace: LookupTrace) -> dict[str, Any]:
    return {"schema": SCHEMA, "name": trace.name, "invariant": trace.invariant, "step": trace.step,
            "origin": trace.origin,
            "events": [{"event": "receipt", **attrs.asdict(receipt, recurse=False)} for receipt in trace.events]}


def dumps(trace: LookupTrace) -> str:
    return json.dumps(to_json(trace), indent=1, ensure_ascii=True) + "\n"


def from_json(data: Any, source: str) -> LookupTrace:
    if not isinstance(data, dict):
        raise fail(source, TOP, f"expected an object, got {show(data)}", LookupTraceError)
    values = check_object(data, _TOP_FIELDS, TOP, source, "a lookup trace", LookupTraceError)
    invariant = values.get("invariant")
    if invariant is not None and not re.fullmatch(r"L\d{1,3}", invariant):
        raise fail(source, "invariant", f"expected a lookup invariant id such as \"L2\", got {show(invariant)}",
                   LookupTraceError)
    receipts = []
    for number, raw in enumerate(values["events"]):
        where = f"events[{number}]"
        if not isinstance(raw, dict):
            raise fail(source, where, f"expected an object, got {show(raw)}", LookupTraceError)
        if raw.get("event") != "receipt":
            raise fail(source, f"{where}.event", f"expected \"receipt\", got {show(raw.get('event'))}", LookupTraceError)
        fields = check_object({k: v for k, v in raw.items() if k != "event"}, _RECEIPT_FIELDS, where, source,
                              "a receipt", LookupTraceError)
        receipts.append(Receipt(**fields))
    return LookupTrace(values.get("name", ""), tuple(receipts), invariant, values.get("step"), values.get("origin", ""))


def load(path: "str | Path") -> LookupTrace:
    return from_json(read_json(path, LookupTraceError), str(path))


def save(receipt: Receipt, violation: Violation, origin: str, folder: Path) -> Path:
    """Write one failing receipt (with what the programs did) as a trace named by driver, invariant and content."""
    unnamed = LookupTrace(name="", events=(receipt,), invariant=violation.invariant, step=0, origin=origin)
    digest = hashlib.sha256(dumps(unnamed).encode()).hexdigest()[:8]
    label = origin.split(",")[0].replace(" ", "-")
    name = f"{label}-{violation.invariant}-{digest}"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.json"
    path.write_text(dumps(attrs.evolve(unnamed, name=name)), encoding="utf-8")
    return path
