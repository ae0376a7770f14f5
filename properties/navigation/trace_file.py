"""Navigation scenario files, schema ``navigation-scenario/1``: one scenario per file, every field typed.

Read by ``properties.safe_json``'s rules (regular file, depth and size,
strict numbers); a bad file is a ``ScenarioError`` whose one line names the
file and the field.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import attrs

from guard.navigation_limits import NavigationLimits
from guard.navigation_ports import Message
from properties.navigation.events import Scenario, Timed
from properties.safe_json import (
    BOOLEAN, COUNT, COUNT_OR_NULL, LIST, REQUIRED, STRING, STRING_LIST, TOP, FieldType, JsonFileError, check_object,
    fail, one_of, read_json, show,
)

FORMAT = "navigation-scenario/1"
#: The schema name every subject's file format declares (``properties.subject.Replay``).
SCHEMA = FORMAT
MESSAGE_FIELDS = ("id", "role", "text", "tool_calls", "is_error", "source_tokens", "manifest", "source", "tool")


class ScenarioError(JsonFileError):
    """A scenario file or record that cannot be read; the one-line message names the file and field."""


# -- files -----------------------------------------------------------------


def to_json(scenario: Scenario, invariant: str = "") -> dict[str, Any]:
    """The file of ``scenario``; ``invariant`` names the one it was saved for (a counterexample, a pinned
    regression), and a file that was saved for none leaves the field out."""
    data = attrs.asdict(scenario, recurse=False)
    data["bucket"] = list(scenario.bucket)
    data["messages"] = [{"at": timed.at, **attrs.asdict(timed.message)} for timed in scenario.messages]
    # Only a scaled scope's file names its limits, so every other file reads as it did before they existed.
    limits = data.pop("limits")
    if limits:
        data["limits"] = dict(limits)
    return {"format": FORMAT, **({"invariant": invariant} if invariant else {}), **data}


def _limits(value: Any) -> bool:
    return isinstance(value, dict) and all(
        name in LIMIT_NAMES and type(number) is int and 1 <= number <= MAX_LIMIT for name, number in value.items())


#: The navigation limits a file may scale down (``guard.navigation_limits.NavigationLimits``'s fields).
LIMIT_NAMES = tuple(attrs.fields_dict(NavigationLimits))
MAX_LIMIT = 10_000_000
LIMITS = FieldType(f"an object of positive integers (at most {MAX_LIMIT:,}) named {', '.join(LIMIT_NAMES)}", _limits)


#: Each top-level field of a scenario file, typed, with its default (``REQUIRED``: none). The defaults are
#: ``Scenario``'s own, so a file that leaves one out means what the class means.
_DEFAULTS = {field.name: field.default for field in attrs.fields(Scenario)}
_TOP_FIELDS: dict[str, tuple[FieldType, Any]] = {
    "format": (one_of(FORMAT), REQUIRED),
    "invariant": (STRING, ""),
    "name": (STRING, REQUIRED),
    "timeout_ms": (COUNT, REQUIRED),
    "delegation_timeout_ms": (COUNT, REQUIRED),
    "messages": (LIST, REQUIRED),
    "bucket": (STRING_LIST, ()),
    "grant_tokens": (COUNT, _DEFAULTS["grant_tokens"]),
    "model": (STRING, _DEFAULTS["model"]),
    "summary_thinking": (BOOLEAN, _DEFAULTS["summary_thinking"]),
    "output_tokens": (COUNT, _DEFAULTS["output_tokens"]),
    "delete_fails": (BOOLEAN, _DEFAULTS["delete_fails"]),
    "revoke_fails": (BOOLEAN, _DEFAULTS["revoke_fails"]),
    "teardown_ms": (COUNT, _DEFAULTS["teardown_ms"]),
    "policy_rejects": (BOOLEAN, _DEFAULTS["policy_rejects"]),
    "completion_ms": (COUNT, _DEFAULTS["completion_ms"]),
    "completion_reply": (STRING, _DEFAULTS["completion_reply"]),
    "cancel_at": (COUNT_OR_NULL, None),
    "note": (STRING, _DEFAULTS["note"]),
    "start_ms": (COUNT, _DEFAULTS["start_ms"]),
    "limits": (LIMITS, {}),
}
#: Each message's fields: when it becomes visible, then ``Message``'s own (defaults as there).
_MESSAGE_FIELDS: dict[str, tuple[FieldType, Any]] = {
    "at": (COUNT, REQUIRED),
    "id": (STRING, REQUIRED),
    "role": (one_of("assistant", "tool"), REQUIRED),
    "text": (STRING, ""),
    "tool_calls": (COUNT, 0),
    "is_error": (BOOLEAN, False),
    "source_tokens": (COUNT_OR_NULL, None),
    "manifest": (BOOLEAN, False),
    "source": (STRING, ""),
    "tool": (STRING, ""),
}


def from_json(data: Any, where: str = "scenario") -> Scenario:
    """The scenario of ``data`` (``saved_from_json`` also gives the invariant the file was saved for)."""
    return saved_from_json(data, where)[0]


def saved_from_json(data: Any, where: str = "scenario") -> tuple[Scenario, str]:
    """The scenario of ``data``; a ``ScenarioError`` naming ``where`` (the file) and the field path when malformed.

    Every field is typed and an unknown one refused, at the top level and in each message: a misspelt
    ``cancel_at`` silently taking its default would judge a run nobody meant. Times, token counts and
    tool-call counts are non-negative integers (``true`` is not a number here); ``cancel_at`` and a
    message's ``source_tokens`` may be null (never cancelled; the tool reports no counter).
    """
    if isinstance(data, dict) and "format" in data and data["format"] != FORMAT:
        raise fail(where, "format", f"expected {FORMAT!r}, got {show(data['format'])}", ScenarioError)
    values = check_object(data, _TOP_FIELDS, TOP, where, "a navigation scenario", ScenarioError)
    values.pop("format")
    invariant = values.pop("invariant", "")
    if invariant and not re.fullmatch(r"[A-Z]{1,3}\d{1,3}", invariant):
        raise fail(where, "invariant", f"expected an invariant id such as \"N4\", got {show(invariant)}", ScenarioError)
    timed = []
    for index, item in enumerate(values.pop("messages")):
        fields = check_object(item, _MESSAGE_FIELDS, f"messages[{index}]", where, "a message", ScenarioError)
        at = fields.pop("at")
        timed.append(Timed(at, Message(**fields)))
    values["bucket"] = tuple(values.get("bucket", ()))
    values["limits"] = tuple(sorted(values.get("limits", {}).items()))
    return Scenario(messages=tuple(timed), **values), invariant


def dumps(scenario: Scenario, invariant: str = "") -> str:
    """The text of a scenario file (what ``save`` writes and a pinned copy holds)."""
    return json.dumps(to_json(scenario, invariant), indent=1) + "\n"


def save(scenario: Scenario, path: Path, invariant: str = "") -> None:
    path.write_text(dumps(scenario, invariant), encoding="utf-8")


def load(path: Path) -> Scenario:
    """Read a scenario file by ``properties.safe_json``'s rules (regular file, depth and size, strict numbers)."""
    return load_saved(path)[0]


def load_saved(path: Path) -> tuple[Scenario, str]:
    """A scenario file's scenario and the invariant it was saved for ("" when none)."""
    return saved_from_json(read_json(path, ScenarioError), str(path))
