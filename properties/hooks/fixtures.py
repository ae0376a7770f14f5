"""The hook path's recorded sessions: the website runs and seed 002's photo-renamer, as the host delivers them.

Read from ``../shared/fixtures/pixel`` (``properties.paths.fixtures_dir``); a
missing or broken fixture is one line naming the file.
"""

from __future__ import annotations

import json
from typing import Any

import attrs

from guard.inspection import INSPECTION_TOOL
from properties.paths import fixtures_dir
from properties.safe_json import JsonFileError as TraceError

WEBSITE_FILE = "inspection-budget-replay-round106-107.json"
PHOTO_FILE = "photo-renamer-bfb62a2b.json"
#: The photo-renamer recording has no run id; any fixed one binds (hooks.md: run, transport, session).
PHOTO_RUN = "photo-run"


@attrs.frozen
class RecordedCall:
    """One recorded call as the host delivers it: its params, receipt, and the inspection tool's own record."""

    n: int
    call_id: str
    tool: str
    params: Any
    receipt: Any
    #: A new model call starts before this call.
    new_round: bool = True
    #: (args, result) the inspection tool records for itself, or None.
    record: Any = None


@attrs.frozen
class Session:
    name: str
    run: str
    session: str
    playground: bool
    calls: tuple[RecordedCall, ...]


# -- the fixtures, as the README says to drive them ------------------------------------------------


def params_of(call: dict) -> Any:
    args = call["args"] if "args" in call else {"argsSha256": call["argsSha256"]}
    return {"id": call["selected"], "args": args} if call["tool"] == "tool_call" else args


def persisted_copy(call: dict) -> dict:
    """The README's persisted copy: an envelope for a Tool Search call, else the result's details."""
    if call["tool"] == "tool_call" and call.get("envelope", True):
        return {"isError": call["persistedIsError"], "details": {"result": call["result"]}}
    return {"isError": call["persistedIsError"], "details": (call["result"] or {}).get("details")}


def photo_params(call: dict) -> dict:
    args = dict(call["args"])
    if "contentChars" in args:
        # The recording keeps only the length; synthesize content of that length (README).
        args["content"] = "x" * args.pop("contentChars")
    return args


def photo_receipt(call: dict) -> dict:
    """What a call the guard let through returned (the recorded run shows call 2; writes succeed on production)."""
    if call["tool"] == "exec":
        return {"isError": False, "content": [{"type": "text", "text": call["recorded"]["resultHead"]}],
                "details": {"status": "completed", "exitCode": 0}}
    return {"content": [{"type": "text", "text": "Successfully wrote the file."}]}


def _load(name: str) -> Any:
    path = fixtures_dir() / name
    if not path.is_file():
        raise TraceError(f"{path}: missing fixture (the recorded sessions live in ../shared/fixtures/pixel)")
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise TraceError(f"{path}: not JSON (line {error.lineno})") from None


def recorded_sessions() -> list[Session]:
    """Every recorded session: website calls up to the first ``stopped`` one, and the photo-renamer's eight."""
    out = []
    for raw in _load(WEBSITE_FILE)["sessions"]:
        calls = []
        previous = None
        for call in raw["calls"]:
            if call.get("stopped"):
                break
            real = call.get("selected") or call["tool"]
            record = (call["args"], call["result"]) if real == INSPECTION_TOOL else None
            calls.append(RecordedCall(call["n"], call["id"], call["tool"], params_of(call), persisted_copy(call),
                                      new_round=call["round"] != previous, record=record))
            previous = call["round"]
        out.append(Session(raw["label"], raw["runId"], raw["sessionId"], False, tuple(calls)))
    photo = _load(PHOTO_FILE)
    calls = [RecordedCall(n, call["id"], call["tool"], photo_params(call), photo_receipt(call))
             for n, call in enumerate(photo["calls"], 1)]
    out.append(Session("photo-renamer-bfb62a2b", PHOTO_RUN, photo["sessionId"], True, tuple(calls)))
    return out
