"""Whether a tool receipt is a failure (both budgets read receipts this way)."""

from __future__ import annotations

from typing import Any

#: ``details.status`` values that mark a failed call.
FAILED_STATUSES = frozenset({"failed", "error", "blocked"})

#: How many levels of ``details.result`` nesting are read (a Tool Search envelope adds one).
MAX_DEPTH = 3


def failed_outcome(result: Any, error: Any = None) -> bool:
    """True when the event carries an error or any of the first three result levels reports one.

    A level reports a failure with ``isError`` exactly true, a ``details.status``
    of failed/error/blocked, or an integer (not bool) ``details.exitCode`` other
    than 0. The walk follows ``details.result`` and stops at the first value
    that is not an object.
    """
    if error:
        return True
    level = result
    for _ in range(MAX_DEPTH):
        if not isinstance(level, dict):
            return False
        if level.get("isError") is True:
            return True
        details = level.get("details")
        if not isinstance(details, dict):
            return False
        if details.get("status") in FAILED_STATUSES:
            return True
        code = details.get("exitCode")
        if type(code) is int and code != 0:
            return True
        level = details.get("result")
    return False
