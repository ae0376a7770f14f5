"""Observation of the child's messages: deduplication, tool-call counting, result classes, kept evidence.

Seed 003 bounds a delegated retrieval child by what it observably achieves.
This module holds the bookkeeping; ``guard.navigation`` decides when to stop.
"""

from __future__ import annotations

from typing import Any, Iterable

import attrs

from guard.navigation_limits import NavigationLimits
from guard.navigation_ports import Message

PROGRESS = "progress"
EMPTY = "empty"
REPEATED = "repeated"
ERROR = "error"
NO_PROGRESS = (EMPTY, REPEATED, ERROR)

TOOL_CALLS = "tool_calls"
NO_PROGRESS_BOUND = "no_progress"
DEADLINE = "deadline"


def classify(message: Message, earlier: "set[str]") -> tuple[str, str]:
    """(class, detail) of one tool result; ``earlier`` holds the texts of earlier non-empty results.

    Zero-token results are told apart by the tool's own counters, not by their
    text: a subtree manifest or a native retrieval counter reading zero source
    tokens retrieved nothing, however long its listing is.
    """
    # Seed 003: a failed call is no progress (else an erroring tool loop never trips the streak).
    if message.is_error:
        return ERROR, "error"
    # Seed 003: empty tool content is no progress (else blank results look like work).
    if not message.text.strip():
        return EMPTY, "empty content"
    # Seed 003: a zero-token manifest is not evidence (else 10/19 and 41/45 zero-token expansions count as progress).
    if message.source_tokens == 0:
        return EMPTY, "zero-token manifest" if message.manifest else "zero-token counter"
    # Seed 003: the same content again is no progress (else re-reading one node forever looks like retrieval).
    if message.text in earlier:
        return REPEATED, "repeated"
    return PROGRESS, "progress"


@attrs.define
class Observer:
    """What the controller has read of the child: each message once, in order."""

    limits: NavigationLimits
    seen: set[Any] = attrs.field(factory=set)
    tool_calls: int = 0
    #: Consecutive no-progress results (progress resets it).
    streak: int = 0
    results: list[Any] = attrs.field(factory=list)  # (message id, class, detail)
    texts: set[Any] = attrs.field(factory=set)
    #: Kept evidence: (source, text) pieces, at most ``limits.evidence_chars`` characters in all.
    evidence: list[Any] = attrs.field(factory=list)
    evidence_chars: int = 0
    evidence_capped: bool = False
    unique: list[Any] = attrs.field(factory=list)

    def read(self, snapshot: Iterable[Message]) -> "str | None":
        """Take in the new messages of one slice; the first bound they reached, in message order, or None."""
        reached = None
        for message in snapshot:
            # Seed 003: snapshots repeat messages; each counts once (else one call is counted per poll).
            if message.id in self.seen:
                continue
            self.seen.add(message.id)
            self.unique.append(message)
            if message.role == "assistant":
                self.tool_calls += message.tool_calls
                if reached is None and self.tool_calls >= self.limits.tool_calls:
                    reached = TOOL_CALLS
            elif message.role == "tool":
                kind, detail = classify(message, self.texts)
                self.results.append((message.id, kind, detail))
                if kind == PROGRESS:
                    self.streak = 0
                    self.keep(message.source, message.text)
                else:
                    self.streak += 1
                    if reached is None and self.streak >= self.limits.no_progress:
                        reached = NO_PROGRESS_BOUND
                if kind in (PROGRESS, REPEATED):
                    self.texts.add(message.text)
        return reached

    def keep(self, source: str, text: str) -> None:
        # Seed 003: at most 32,000 characters of evidence (else the one answer call gets an unbounded prompt).
        room = self.limits.evidence_chars - self.evidence_chars
        if room <= 0:
            self.evidence_capped = True
            return
        piece = text[:room]
        if len(piece) < len(text):
            self.evidence_capped = True
        self.evidence.append((source, piece))
        self.evidence_chars += len(piece)

    def prompt(self, question: str) -> str:
        parts = [f"Question: {question}", "Answer from this evidence only; cite sources by id."]
        parts += [f"[{source or 'tool'}] {text}" for source, text in self.evidence]
        return "\n\n".join(parts)
