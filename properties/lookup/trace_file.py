"""Lookup traces on disk: ``guard-trace/1`` files whose ``subject`` is ``lookup`` and whose events are receipts.

A lookup counterexample is one receipt and what the real programs did with
it::

    {"schema": "guard-trace/1", "subject": "lookup", "name": "lookup-bulk-L2-1c9e20ab",
     "invariant": "L2", "step": 0, "origin": "lookup bulk, seed 7", "limits": {...},
     "events": [{"event": "receipt", "command": "grep -n foo ui.js", "kind": "valid",
                 "observed": {"argv": [["grep", "-n", "foo", "ui.js"]], "status": 1, ...}}]}

It is the budget's trace format, so ``nox -s replay -- FILE``, ``nox -s
pin-regression -- FILE`` and ``python -m properties.regressions check`` read
it as they read any trace, and judge it with this subject's monitor (which
runs the real programs again). ``limits`` is the budget's and means nothing
here; the format writes it for every subject.

Receipt fields (``events.Receipt``):

============ =================================================== ===========
field        type                                                default
============ =================================================== ===========
label        string                                              ""
command      any JSON value; ``{"bytes": hex}`` is a bytes value (required)
exit_code    any JSON value (the hostile corpus sends 1.0, "1")  1
output       any JSON value                                      ""
kind         "valid" or one of ``generate.HOSTILE_KINDS``         "valid"
observed     any JSON value: what the real programs did (shown)  null
============ =================================================== ===========
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from properties.catalogue import Violation
from properties.lookup.events import VALID, Receipt
from properties.lookup.generate import HOSTILE_KINDS
from properties.trace import ANY_JSON, REQUIRED, STRING, EventKind, FieldType, Trace, dumps, register_events

SUBJECT = "lookup"
KINDS = (VALID, *HOSTILE_KINDS)
KIND = FieldType(f"one of {', '.join(KINDS)}", lambda value: value in KINDS)

EVENTS = {
    "receipt": EventKind(Receipt, {
        "label": (STRING, ""),
        "command": (ANY_JSON, REQUIRED),
        "exit_code": (ANY_JSON, 1),
        "output": (ANY_JSON, ""),
        "kind": (KIND, VALID),
        "observed": (ANY_JSON, None),
    }),
}
register_events(SUBJECT, EVENTS)


def save(receipt: Receipt, violation: Violation, origin: str, folder: Path) -> Path:
    """Write one failing receipt (with what the programs did) as a trace named by driver, invariant and content."""
    trace = Trace(name="", events=(receipt,), subject=SUBJECT, invariant=violation.invariant, step=0, origin=origin)
    digest = hashlib.sha256(dumps(trace).encode()).hexdigest()[:8]
    label = origin.split(",")[0].replace(" ", "-")
    name = f"{label}-{violation.invariant}-{digest}"
    trace = Trace(name=name, events=(receipt,), subject=SUBJECT, invariant=violation.invariant, step=0, origin=origin)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.json"
    path.write_text(dumps(trace), encoding="utf-8")
    return path
