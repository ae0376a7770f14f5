"""Building navigation scenarios: one builder shared by the seeded bulk traces and the state machine.

A ``Builder`` appends the child's turns (an assistant message with its
model-issued tool calls, then one result per call, each of a chosen kind) on
a running clock, and can duplicate a message, add the child's final reply and
set the request's failures. ``random_scenario`` draws a whole scenario from a
seeded ``random.Random`` with per-scenario (swarm) weights, so that some
scenarios are all progress with large results (the tool-call bound, the
evidence cap), some mostly zero-token (no progress), some slow (the deadline).
"""

from __future__ import annotations

import json
import random
from typing import Any

import attrs

from guard.navigation_ports import Message
from properties.navigation.events import Scenario, Timed

RESULT_KINDS = ("progress", "empty", "counter", "manifest", "error", "repeated")
BUCKET = ("s1", "s2", "s3", "s4", "s5")
SOURCES = BUCKET + ("s6", "s7")
TIMEOUTS = (150_000, 60_000, 20_000, 45_000, 600_000, 900_000, 30_000, 31_000)
DELEGATIONS = (120_000, 150_000, 40_000, 300_000)


@attrs.define
class Builder:
    name: str = "generated"
    time: int = 0
    messages: list = attrs.field(factory=list)
    texts: list = attrs.field(factory=list)
    count: int = 0
    finished: bool = False
    settings: dict = attrs.field(factory=dict)

    def _id(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def advance(self, ms: int) -> None:
        self.time += ms

    def turn(self, kinds: "list[str]", size: int = 300, source: str = "s1", gap: int = 1_000) -> None:
        gap = max(gap, 100)
        """One assistant turn issuing ``len(kinds)`` tool calls, then one result of each kind."""
        if self.finished or not kinds:
            return
        self.time += gap
        self.messages.append(Timed(self.time, Message(self._id("a"), "assistant", "", tool_calls=len(kinds))))
        # Results follow 10 ms apart; the next turn counts its gap from this turn (gaps are at least 100 ms).
        for number, kind in enumerate(kinds, 1):
            self.messages.append(Timed(self.time + 10 * number, self.result(kind, size, source)))

    def result(self, kind: str, size: int, source: str) -> Message:
        ident = self._id("t")
        if kind == "progress":
            text = f"{ident}:" + "e" * max(1, size)
            self.texts.append(text)
            return Message(ident, "tool", text, source_tokens=max(1, size // 4), source=source)
        if kind == "repeated" and self.texts:
            return Message(ident, "tool", self.texts[-1], source_tokens=max(1, len(self.texts[-1]) // 4), source=source)
        if kind == "counter":
            return Message(ident, "tool", "expansion returned 0 tokens", source_tokens=0)
        if kind == "manifest":
            return Message(ident, "tool", "subtree manifest: n1 n2 n3 (0 tokens)", source_tokens=0, manifest=True)
        if kind == "error":
            return Message(ident, "tool", "tool failed", is_error=True)
        return Message(ident, "tool", "")

    def duplicate(self, back: int, delay: int = 0) -> None:
        """The same message again in a later snapshot (same id, same content)."""
        if self.messages and not self.finished:
            timed = self.messages[max(0, len(self.messages) - back)]
            self.time += delay
            self.messages.append(Timed(max(self.time, timed.at), timed.message))

    def final_reply(self, valid: bool = True, gap: int = 1_000, citations: tuple = ("s1",)) -> None:
        if self.finished:
            return
        self.time = max(self.time + gap, self.messages[-1].at + 1 if self.messages else 0)
        text = json.dumps({"answer": "the child's answer", "truncated": False, "citations": list(citations)}) \
            if valid else "I could not find it."
        self.messages.append(Timed(self.time, Message(self._id("a"), "assistant", text)))
        self.finished = True

    def scenario(self, **overrides: Any) -> Scenario:
        values = {"timeout_ms": 150_000, "delegation_timeout_ms": 120_000, "bucket": BUCKET, **self.settings,
                  **overrides}
        return Scenario(name=self.name, messages=tuple(self.messages), **values)


def random_scenario(rng: random.Random, name: str = "bulk") -> Scenario:
    """One scenario with swarm weights drawn per scenario."""
    progress = rng.choice((0.05, 0.3, 0.6, 0.9, 1.0))
    big = rng.random() < 0.35
    slow = rng.random() < 0.3
    builder = Builder(name)
    turns = rng.randint(3, 45)
    reply_after = rng.randint(1, turns) if rng.random() < 0.3 else None
    others = ("empty", "counter", "manifest", "error", "repeated")
    for index in range(turns):
        if reply_after is not None and index == reply_after:
            builder.final_reply(valid=rng.random() < 0.85, gap=rng.randint(200, 3_000),
                                citations=tuple(rng.sample(SOURCES, rng.randint(0, 2))))
            break
        calls = rng.choice((1, 1, 1, 2, 2, 3))
        kinds = [("progress" if rng.random() < progress else rng.choice(others)) for _ in range(calls)]
        size = rng.randint(2_000, 9_000) if big else rng.randint(20, 600)
        gap = rng.randint(3_000, 12_000) if slow else rng.randint(200, 3_000)
        builder.turn(kinds, size, rng.choice(SOURCES), gap)
        if rng.random() < 0.15:
            builder.duplicate(rng.randint(1, 6), rng.randint(0, 2_000))
    else:
        if reply_after is not None:
            builder.final_reply(gap=rng.randint(200, 3_000))
    offered = rng.sample(SOURCES, rng.randint(0, 3))
    answer = "" if rng.random() < 0.05 else "a partial answer from the kept evidence"
    return builder.scenario(
        timeout_ms=rng.choice(TIMEOUTS), delegation_timeout_ms=rng.choice(DELEGATIONS),
        delete_fails=rng.random() < 0.08, revoke_fails=rng.random() < 0.08,
        teardown_ms=rng.choice((0, 200, 1_000, 20_000)), policy_rejects=rng.random() < 0.12,
        completion_ms=rng.choice((300, 2_000, 15_000, 40_000)),
        completion_reply=json.dumps({"answer": answer, "citations": offered}),
        cancel_at=rng.randint(0, 120_000) if rng.random() < 0.1 else None,
        summary_thinking=rng.random() < 0.5,
    )
