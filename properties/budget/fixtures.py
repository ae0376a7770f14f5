"""The recorded sessions of ``shared/fixtures/pixel/`` as budget-level traces.

The conversion follows the fixture README word for word:

* website runs (seed 001): one ``Round`` whenever a call's ``round`` differs
  from the previous call's; the calls up to, not including, the first
  ``stopped`` one; params ``{"id": selected, "args": A}`` for a ``tool_call``
  and ``A`` otherwise, where ``A`` is ``args`` or ``{"argsSha256": ...}``;
  ``failed`` is the failed-outcome rule on the persisted copy; the inspection
  classifiers apply only when the real tool is the inspection tool; no lane.
* photo-renamer (seed 002): one ``Round`` per call; the Playground router's
  refusals of ``exec``/``apply_patch`` before the first project file carry
  the correctable kind ``playground-first-write``; call 7 is the first call
  after the trip, so it is modelled as a ``FirstCall`` whose ``remedy`` is
  ``binds_new_project`` on the recorded write with a fresh routing state,
  followed by the write's own result.

Choices where the README is silent (written down here so a reviewer sees them):

* The photo-renamer writes' content is synthesized as ``"x" * contentChars``
  (only its length is recorded).
* The writes of calls 7 and 8 are modelled as successes: the seed reports that
  on production call 7 binds the project and call 8 revises the file. On the
  reference both receipts arrive after the stop and are ignored, so their
  outcome cannot change the reference's row.
* Result labels are ``call N`` (N from the recording) so that replay tables and
  summaries can name calls the way the seeds do.

A fixture that is missing or does not have the recorded shape raises
``TraceError`` naming the file and the field, like a bad trace file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from guard.inspection import INSPECTION_TOOL, correctable_inspection_failure, passed_inspection
from guard.outcome import failed_outcome
from guard.playground import RoutingState, binds_new_project
from properties.budget.events import Event, FirstCall, Result, Round
from properties.names import FIRST_WRITE_KIND
from properties.paths import fixtures_dir
from properties.budget.trace_file import Trace, TraceError

WEBSITE_FILE = "inspection-budget-replay-round106-107.json"
PHOTO_RENAMER_FILE = "photo-renamer-bfb62a2b.json"
PHOTO_RENAMER_NAME = "photo-renamer-bfb62a2b"

#: Tools the first-write gate refuses (hooks.md).
FIRST_WRITE_GATED = frozenset({"exec", "apply_patch"})

_MISSING = object()


def _need(obj: dict, key: str, where: str, source: str, kinds: type | tuple[type, ...]) -> Any:
    value = obj.get(key, _MISSING)
    if value is _MISSING:
        raise TraceError(f"{source}: {where}.{key}: missing")
    # bool is an int; a recorded number must not be a flag in disguise.
    if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in _as_tuple(kinds)):
        raise TraceError(f"{source}: {where}.{key}: unexpected {type(value).__name__}")
    return value


def _as_tuple(kinds: type | tuple[type, ...]) -> tuple[type, ...]:
    return kinds if isinstance(kinds, tuple) else (kinds,)


def _read_json(path: Path) -> Any:
    source = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise TraceError(f"{source}: file not found (the recorded sessions live in ../shared/fixtures/pixel)") from None
    except (OSError, UnicodeDecodeError) as error:
        raise TraceError(f"{source}: cannot read: {error}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise TraceError(f"{source}: line {error.lineno}: not JSON: {error.msg}") from None


# -- website sessions (seed 001) -----------------------------------------------------------


def real_tool(call: dict) -> Any:
    """The tool that actually ran: ``selected`` for a Tool Search ``tool_call``, else ``tool``."""
    selected = call.get("selected")
    return selected if selected is not None else call.get("tool")


def persisted_copy(call: dict) -> dict:
    """The persisted result the failed-outcome rule reads (README: envelope or direct shape)."""
    result = call.get("result")
    if call.get("envelope") is True:
        return {"isError": call.get("persistedIsError"), "details": {"result": result}}
    details = result.get("details") if isinstance(result, dict) else None
    return {"isError": call.get("persistedIsError"), "details": details}


def website_result(call: dict, where: str = "call", source: str = "<call>") -> Result:
    """One recorded website call as a budget receipt."""
    number = _need(call, "n", where, source, int)
    call_id = _need(call, "id", where, source, str)
    tool = _need(call, "tool", where, source, str)
    _need(call, "persistedIsError", where, source, bool)
    if "args" in call:
        args = call["args"]
    else:
        args = {"argsSha256": _need(call, "argsSha256", where, source, str)}
    params = {"id": _need(call, "selected", where, source, str), "args": args} if tool == "tool_call" else args
    result = call.get("result")
    inspection = real_tool(call) == INSPECTION_TOOL
    return Result(
        call_id=call_id,
        tool=tool,
        params=params,
        failed=failed_outcome(persisted_copy(call)),
        correctable=inspection and correctable_inspection_failure(result),
        corrected=inspection and passed_inspection(result),
        label=f"call {number}",
    )


def website_events(session: dict, where: str = "session", source: str = "<session>") -> tuple[Event, ...]:
    """The recorded calls up to the first ``stopped`` one, with a round whenever ``round`` changes."""
    calls = _need(session, "calls", where, source, list)
    events: list[Event] = []
    previous: Any = _MISSING
    for index, call in enumerate(calls):
        at = f"{where}.calls[{index}]"
        if not isinstance(call, dict):
            raise TraceError(f"{source}: {at}: expected an object")
        if call.get("stopped") is True:
            break
        round_ = _need(call, "round", at, source, int)
        if round_ != previous:
            events.append(Round())
            previous = round_
        events.append(website_result(call, at, source))
    return tuple(events)


def website_sessions(path: str | Path | None = None) -> dict[str, dict]:
    """The raw recorded sessions by label (for counterfactuals that reuse recorded calls)."""
    path = Path(path) if path is not None else fixtures_dir() / WEBSITE_FILE
    source = str(path)
    data = _read_json(path)
    if not isinstance(data, dict):
        raise TraceError(f"{source}: (top level): expected an object")
    sessions = _need(data, "sessions", "(top level)", source, list)
    out: dict[str, dict] = {}
    for index, session in enumerate(sessions):
        where = f"sessions[{index}]"
        if not isinstance(session, dict):
            raise TraceError(f"{source}: {where}: expected an object")
        out[_need(session, "label", where, source, str)] = session
    return out


def website_traces(path: str | Path | None = None) -> list[Trace]:
    """The three website runs of seed 001 as traces named by their labels."""
    path = Path(path) if path is not None else fixtures_dir() / WEBSITE_FILE
    traces = []
    for index, (label, session) in enumerate(website_sessions(path).items()):
        traces.append(Trace(name=label, events=website_events(session, f"sessions[{index}]", str(path))))
    return traces


# -- photo-renamer (seed 002) --------------------------------------------------------------


def photo_renamer_params(args: dict, where: str, source: str) -> dict:
    """Recorded arguments with a write's content synthesized at its recorded length."""
    if "contentChars" not in args:
        return dict(args)
    chars = _need(args, "contentChars", where, source, int)
    params = {key: value for key, value in args.items() if key != "contentChars"}
    params["content"] = "x" * chars
    return params


def photo_renamer_trace(path: str | Path | None = None) -> Trace:
    """Seed 002's eight calls: refusals trip the fuse at call 6, call 7 is the first call after the trip."""
    path = Path(path) if path is not None else fixtures_dir() / PHOTO_RENAMER_FILE
    source = str(path)
    data = _read_json(path)
    if not isinstance(data, dict):
        raise TraceError(f"{source}: (top level): expected an object")
    calls = _need(data, "calls", "(top level)", source, list)
    events: list[Event] = []
    project_written = False
    for index, call in enumerate(calls):
        where = f"calls[{index}]"
        if not isinstance(call, dict):
            raise TraceError(f"{source}: {where}: expected an object")
        call_id = _need(call, "id", where, source, str)
        tool = _need(call, "tool", where, source, str)
        args = _need(call, "args", where, source, dict)
        recorded = _need(call, "recorded", where, source, dict)
        is_error = _need(recorded, "isError", f"{where}.recorded", source, bool)
        params = photo_renamer_params(args, f"{where}.args", source)
        label = f"call {index + 1}"
        events.append(Round())
        if tool == "write":
            # The seed's point: the write the refusal asked for. The reference refuses it after the
            # stop (its receipt is ignored); production asks whether it binds the new project.
            if not project_written:
                remedy = binds_new_project(tool, params, RoutingState())
                events.append(FirstCall(remedy=remedy, label=label))
            project_written = True
            events.append(Result(call_id=call_id, tool=tool, params=params, failed=False, label=label))
            continue
        refusal = FIRST_WRITE_KIND if is_error and not project_written and tool in FIRST_WRITE_GATED else None
        events.append(
            Result(call_id=call_id, tool=tool, params=params, failed=is_error,
                   correctable_refusal=refusal, label=label)
        )
    return Trace(name=PHOTO_RENAMER_NAME, events=tuple(events))


def recorded_traces() -> list[Trace]:
    """Every built-in recorded session: the three website runs, then photo-renamer."""
    return [*website_traces(), photo_renamer_trace()]
