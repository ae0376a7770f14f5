"""The earlier delegated navigation (before seed 003), frozen as the oracle.

An expansion tool hands a retrieval question to a child agent session and
waits for it. Times are integer milliseconds on an injected clock; the child,
its teardown and the clock are passed in (duck-typed: this module imports
nothing from ``guard/``).

* Deadlines: the caller's timeout clamped to 1 ms..600 s; ``total = now +
  timeout``; ``work = min(now + delegation_timeout, max(now, total - 30 s))``.
  No work time left: a timeout at once, no child spawned.
* The child is spawned and waited for until ``work``, never observed in
  between: nothing counts its tool calls or results.
* Its last assistant text, parsed as JSON with a non-empty ``answer``, is the
  answer, ``truncated`` as the child said. A child that never answers ends in
  a timeout with ``truncated: true`` and no answer.
* Teardown afterwards, best effort: delete the child, revoke its grant;
  a failure there is ignored.
"""

from __future__ import annotations

import json
from typing import Any

import attrs

TIMEOUT_MIN_MS = 1
TIMEOUT_MAX_MS = 600_000
HEADROOM_MS = 30_000


@attrs.frozen
class Deadlines:
    start: int
    total: int
    work: int


@attrs.frozen
class Outcome:
    """What the tool returns to its caller."""

    answer: "str | None"
    truncated: bool
    error: "str | None"
    citations: tuple[str, ...] = ()
    finished_at: int = 0


def deadlines(now: int, timeout_ms: int, delegation_timeout_ms: int) -> Deadlines:
    timeout = min(max(timeout_ms, TIMEOUT_MIN_MS), TIMEOUT_MAX_MS)
    total = now + timeout
    work = min(now + delegation_timeout_ms, max(now, total - HEADROOM_MS))
    return Deadlines(start=now, total=total, work=work)


def parse_answer(text: Any) -> "tuple[str, bool, tuple[str, ...]] | None":
    """(answer, truncated, citations) of a JSON reply with a non-empty ``answer``, else None."""
    if not isinstance(text, str):
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    answer = data.get("answer")
    if not isinstance(answer, str) or not answer.strip():
        return None
    citations = data.get("citations") or []
    if not isinstance(citations, list):
        citations = []
    return answer, data.get("truncated") is True, tuple(str(item) for item in citations)


def last_assistant_text(messages: Any) -> "str | None":
    for message in reversed(list(messages)):
        if message.role == "assistant":
            return message.text
    return None


def navigate(request: Any, clock: Any, spawner: Any, teardown: Any) -> Outcome:
    """Run one delegated question the earlier way."""
    limits = deadlines(clock.now(), request.timeout_ms, request.delegation_timeout_ms)
    if limits.work <= limits.start:
        return Outcome(None, True, "timeout", (), clock.now())
    child = spawner.spawn(request.question, request.grant)
    try:
        messages = child.poll(limits.work)
        # Deduplicate by message id (snapshots may repeat a message); the last assistant text decides.
        unique = list({message.id: message for message in messages}.values())
        parsed = parse_answer(last_assistant_text(unique)) if child.finished() else None
    finally:
        for action in (lambda: teardown.delete(child), lambda: teardown.revoke(request.grant)):
            try:
                action()
            except Exception:  # best effort: the earlier behaviour ignored teardown failures
                pass
    if parsed is None:
        # A final reply that is not a JSON answer is no answer either; it is not a timeout.
        return Outcome(None, True, "no answer" if child.finished() else "timeout", (), clock.now())
    answer, truncated, citations = parsed
    return Outcome(answer, truncated, None, citations, clock.now())
