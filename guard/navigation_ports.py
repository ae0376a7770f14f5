"""What delegated navigation talks to, as injected interfaces, and the records it passes.

The clock, the child session (and what spawns it), teardown, the model
policy, the completion call and the cancellation signal are ``typing``
Protocols, so tests drive the controller with fakes: nothing sleeps, nothing
touches a network. Times are integer milliseconds on the injected clock.
"""

from __future__ import annotations

from typing import Any, Protocol, Sequence

import attrs


@attrs.frozen
class Message:
    """One message of the child's session as the host stores it.

    ``tool_calls`` counts the model-issued tool calls of an assistant message;
    a tool result carries its text, the tool's native retrieval counter
    (``source_tokens``, None when the tool reports none), whether it is a
    subtree manifest, whether it failed, and the source it came from.
    """

    id: str
    role: str  # "assistant" or "tool"
    text: str = ""
    tool_calls: int = 0
    is_error: bool = False
    source_tokens: "int | None" = None
    manifest: bool = False
    source: str = ""
    #: The tool that produced a result (for reports; the controller does not read it).
    tool: str = ""


@attrs.frozen
class Grant:
    """The child's source-token grant and model endpoint (never changed by navigation)."""

    id: str
    source_tokens: int
    model: str


@attrs.frozen
class Request:
    question: str
    timeout_ms: int
    delegation_timeout_ms: int
    grant: Grant
    #: The selected bucket: the source ids an answer may cite.
    bucket: frozenset[str] = frozenset()
    #: The caller's token budget for the answer (passed through unchanged).
    output_tokens: int = 1_500
    #: ``enableSummaryThinking``; False asks the synthesis for no thinking.
    summary_thinking: bool = True


@attrs.frozen
class SynthesisCall:
    """The one tool-free completion request made from kept evidence."""

    model: str
    prompt: str
    evidence_chars: int
    tools: tuple[Any, ...] = ()
    deadline: int = 0
    thinking: bool = True
    output_tokens: int = 0
    purpose: str = "navigation-answer"


class Clock(Protocol):
    def now(self) -> int: ...


class Cancel(Protocol):
    def cancelled(self) -> bool: ...


class ChildSession(Protocol):
    id: str

    def poll(self, until: int) -> Sequence[Message]:
        """Wait until ``until`` or until the child ends, whichever is first; a snapshot of its messages."""

    def finished(self) -> bool:
        """The child has given its final reply."""


class Spawner(Protocol):
    def spawn(self, question: str, grant: Grant) -> ChildSession: ...


class Teardown(Protocol):
    def delete(self, child: ChildSession) -> None:
        """Delete the child session; raises when it fails."""

    def revoke(self, grant: Grant) -> None:
        """Revoke the child's grant; raises when it fails."""


class Policy(Protocol):
    def allows(self, model: str, purpose: str) -> bool:
        """The model policy for synthesis (separate from the child's subagent policy)."""


class Completion(Protocol):
    def complete(self, call: SynthesisCall, cancel: Cancel) -> str:
        """One completion; returns the model's text, raises on failure or at the deadline."""
