"""Building navigation scenarios: one builder shared by the seeded bulk traces and the state machine.

A ``Builder`` appends the child's turns (an assistant message with its
model-issued tool calls, then one result per call, each of a chosen kind) on
a running clock, and can duplicate a message, add the child's final reply and
set the request's failures. ``random_scenario`` draws a whole scenario from a
seeded ``random.Random`` with per-scenario (swarm) weights, so that some
scenarios are all progress with large results (the tool-call bound, the
evidence cap), some mostly zero-token (no progress), some slow (the deadline).

Issue 24: what navigation.md does not tie together is drawn independently.
The spec orders the controller's own steps (slices, then the bounds, then
teardown, the policy and one synthesis) but not the world's: when the child
replies, whether teardown or the policy fails, and when the owner cancels are
each drawn on their own, so a reply can land before, in or after the slice
that reaches a bound, a cancel before the first slice, inside navigation,
during teardown, during the answer or after the end, and a cleanup failure
or a policy rejection beside any of them. The replies, of the child and of
the synthesis, take every shape the spec's parsing rule tells apart (JSON or
not, a blank answer, citations that are not a list or not strings, a
``truncated`` that is not exactly true), and tool results every class's
edge (blank text, no native counter, a manifest that did retrieve tokens).
"""

from __future__ import annotations

import json
import random
from typing import Any

import attrs

from guard.navigation_ports import Message
from properties.navigation.events import Scenario, Timed

RESULT_KINDS = ("progress", "empty", "counter", "manifest", "error", "repeated", "blank", "uncounted", "rich manifest")
BUCKET = ("s1", "s2", "s3", "s4", "s5")
SOURCES = BUCKET + ("s6", "s7")
#: 45,001 and 33,333 leave a work time that four does not divide: the reserve is a whole number of milliseconds.
TIMEOUTS = (150_000, 60_000, 20_000, 45_000, 600_000, 900_000, 30_000, 31_000, 45_001, 33_333)
#: When the request is made on the shared clock (its deadlines count from then).
STARTS = (0, 0, 0, 1_000, 123_457)
#: Teardown steps' length; two of 15 s use up a 30 s reserve exactly, so synthesis would start at the work deadline.
TEARDOWNS = (0, 200, 1_000, 15_000, 20_000)
#: 700 s and more: only a delegation longer than the clamped timeout lets the 600 s clamp decide the work deadline.
DELEGATIONS = (120_000, 150_000, 40_000, 300_000, 700_000)
#: The shapes a reply (the child's final one, or the synthesis) may take, each a JSON text or not.
REPLY_SHAPES = ("answer", "answer", "answer", "not json", "blank answer", "list", "citations not a list",
                "citations not strings", "claims complete", "truncated not exactly true")
#: Where the owner's cancel falls against the request's own timeline (navigation.md: anywhere).
CANCEL_TIMES = ("at once", "during navigation", "near the retrieval deadline", "during teardown",
                "during the answer", "after the work deadline")
#: Where the child's final reply falls against the bounds.
REPLY_TIMES = ("early", "late", "after a silence", "just after a bound")
#: Issue 24: the limits drawn for a share of the scenarios (``LIMITS_SHARE``), each field on its own (kept at its
#: default half the time): every bound down to 1, the reserve down to 1 ms and a divisor of 1, evidence down to
#: one character, and polling slices shorter and longer than the default. navigation.md's rules hold for any
#: positive limits (``spec_rules.spec_of`` judges with the drawn numbers); the exhaustive model's one scope is
#: the only other place limits move. Slices stay at 700 ms or more: a scenario is played slice by slice up to
#: its retrieval deadline (minutes), so shorter slices would cost a thousand polls for nothing new.
LIMIT_CHOICES = {
    "tool_calls": (1, 2, 3, 6),
    "no_progress": (1, 2),
    "evidence_chars": (1, 25, 700, 5_000),
    "reserve_ms": (1, 1_000, 7_500),
    "reserve_divisor": (1, 2, 3, 7),
    "slice_ms": (700, 2_500, 12_000),
}
LIMITS_SHARE = 0.2


@attrs.define
class Builder:
    name: str = "generated"
    time: int = 0
    messages: list = attrs.field(factory=list)
    texts: list = attrs.field(factory=list)
    count: int = 0
    finished: bool = False
    #: Characters of the new (progress) results made so far: the evidence a reader of them all would have.
    progress_total: int = 0
    #: The clock's reading when the request is made (``time`` starts there too).
    start: int = 0
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
            self.progress_total += len(text)
            return Message(ident, "tool", text, source_tokens=max(1, size // 4), source=source)
        if kind == "repeated" and self.texts:
            return Message(ident, "tool", self.texts[-1], source_tokens=max(1, len(self.texts[-1]) // 4), source=source)
        if kind == "counter":
            return Message(ident, "tool", "expansion returned 0 tokens", source_tokens=0)
        if kind == "manifest":
            return Message(ident, "tool", "subtree manifest: n1 n2 n3 (0 tokens)", source_tokens=0, manifest=True)
        if kind == "error":
            # A failed call whose text may repeat earlier content: it is an error first (navigation.md's classes).
            text = self.texts[-1] if self.texts and self.count % 2 else "tool failed"
            return Message(ident, "tool", text, is_error=True)
        if kind == "blank":
            return Message(ident, "tool", " \n\t ", source_tokens=max(1, size // 4))
        if kind == "uncounted":
            # A tool without a native retrieval counter: its new content is progress.
            text = f"{ident}:" + "u" * max(1, size)
            self.texts.append(text)
            self.progress_total += len(text)
            return Message(ident, "tool", text, source=source)
        if kind == "rich manifest":
            # A subtree manifest that did retrieve tokens is evidence; only a zero-token one is not.
            text = f"{ident}: subtree manifest " + "m" * max(1, size)
            self.texts.append(text)
            self.progress_total += len(text)
            return Message(ident, "tool", text, source_tokens=max(1, size // 4), manifest=True, source=source)
        return Message(ident, "tool", "")

    def duplicate(self, back: int, delay: int = 0) -> None:
        """The same message again in a later snapshot (same id, same content)."""
        if self.messages and not self.finished:
            timed = self.messages[max(0, len(self.messages) - back)]
            self.time += delay
            self.messages.append(Timed(max(self.time, timed.at), timed.message))

    def final_reply(self, valid: bool = True, gap: int = 1_000, citations: tuple = ("s1",), shape: str = "",
                    truncated: bool = False) -> None:
        """The child's final reply; ``shape`` (one of ``REPLY_SHAPES``) overrides ``valid``."""
        if self.finished:
            return
        self.time = max(self.time + gap, self.messages[-1].at + 1 if self.messages else 0)
        text = reply_text(shape or ("answer" if valid else "not json"), "the child's answer", citations, truncated)
        self.messages.append(Timed(self.time, Message(self._id("a"), "assistant", text)))
        self.finished = True

    def fill(self, short_by: int, source: str = "s1", gap: int = 500) -> None:
        """One turn whose one progress result brings the evidence read so far to 32,000 - ``short_by`` characters
        (the cap's edge, where keeping exactly the room left matters); nothing when there is no such room."""
        ident = f"t{self.count + 2}"  # the turn's assistant message takes the next id, its result the one after
        need = 32_000 - short_by - self.progress_total - len(ident) - 1
        if self.finished or need < 1:
            return
        self.time += max(gap, 100)
        self.messages.append(Timed(self.time, Message(self._id("a"), "assistant", "", tool_calls=1)))
        self.messages.append(Timed(self.time + 10, self.result("progress", need, source)))

    def scenario(self, **overrides: Any) -> Scenario:
        values = {"timeout_ms": 150_000, "delegation_timeout_ms": 120_000, "bucket": BUCKET, "start_ms": self.start,
                  **self.settings, **overrides}
        return Scenario(name=self.name, messages=tuple(self.messages), **values)


def reply_text(shape: str, answer: str, citations: "tuple | list", truncated: bool) -> str:
    """A reply of one of ``REPLY_SHAPES``: what the spec's parsing rule must read as an answer or as none."""
    cited = list(citations)
    if shape == "not json":
        return "I could not find it."
    if shape == "list":
        return json.dumps([answer, cited])
    data: dict = {"answer": answer, "truncated": truncated, "citations": cited}
    if shape == "blank answer":
        data["answer"] = " \n "
    elif shape == "citations not a list":
        data["citations"] = ",".join(cited) or "s1"
    elif shape == "citations not strings":
        data["citations"] = [*cited, 7, None]
    elif shape == "claims complete":
        data["truncated"] = False
    elif shape == "truncated not exactly true":
        data["truncated"] = "true"
    return json.dumps(data)


def cancel_time(rng: random.Random, when: str, builder: Builder, work: int, retrieval: int, teardown: int,
                completion: int) -> int:
    """A cancel time in the part of the request ``when`` names (one of ``CANCEL_TIMES``), from the scenario's
    own timeline; the phases are approximate (the slice that ends navigation is only known by playing it),
    and the coverage counts say where the cancels really fell."""
    start = builder.start
    last = builder.messages[-1].at if builder.messages else start
    if when == "at once":
        return start + rng.randint(0, 50)
    if when == "during navigation":
        return rng.randint(start, max(start + 1, min(last, retrieval)))
    if when == "near the retrieval deadline":
        return max(0, retrieval + rng.randint(-3_000, 3_000))
    # When the deadline ends navigation, its slice ends exactly at the retrieval deadline, then come teardown (two
    # steps) and the synthesis call; a count bound ends it at a slice end after some message, the same way.
    anchor = max(start, retrieval) if rng.random() < 0.5 else rng.choice([timed.at for timed in builder.messages] or [start])
    if when == "during teardown":
        return anchor + rng.randint(1, max(1, 2 * teardown))
    if when == "during the answer":
        return anchor + 2 * teardown + rng.randint(1, max(1, completion - 1))
    return work + rng.randint(1, 30_000)


def random_scenario(rng: random.Random, name: str = "bulk") -> Scenario:
    """One scenario with swarm weights drawn per scenario; the world's events each drawn on their own."""
    progress = rng.choice((0.05, 0.3, 0.6, 0.9, 1.0))
    big = rng.random() < 0.35
    slow = rng.random() < 0.3
    # The result classes' edges, in some scenarios only (swarm), so the others keep the seed's shapes.
    others = ("empty", "counter", "manifest", "error", "repeated") + (
        ("blank", "uncounted", "rich manifest") if rng.random() < 0.3 else ())
    start = rng.choice(STARTS)
    builder = Builder(name, time=start, start=start)
    turns = rng.randint(3, 45)
    fill_at = rng.randint(0, turns - 1) if rng.random() < 0.12 else None
    short_by = rng.choice((0, 1, 2, 7))
    reply = rng.choice(REPLY_TIMES) if rng.random() < 0.35 else None
    reply_after = {None: None, "early": rng.randint(1, max(1, min(turns, 8))), "late": rng.randint(1, turns),
                   "after a silence": turns, "just after a bound": rng.randint(0, max(0, min(turns - 1, 6)))}[reply]
    reply_shape = rng.choice(REPLY_SHAPES)
    reply_truncated = rng.random() < 0.3
    for index in range(turns):
        if index == fill_at:
            builder.fill(short_by, rng.choice(SOURCES), rng.randint(200, 3_000))
        if reply_after is not None and index == reply_after:
            gap = rng.randint(200, 3_000) if reply != "after a silence" else rng.randint(20_000, 200_000)
            if reply == "just after a bound":
                # Three results without progress and then the reply, often inside one slice with the bound.
                builder.turn([rng.choice(others[:5]) for _ in range(3)], 50, "s1", rng.randint(100, 1_500))
                gap = rng.randint(100, 1_500)
            builder.final_reply(gap=gap, citations=tuple(rng.sample(SOURCES, rng.randint(0, 2))), shape=reply_shape,
                                truncated=reply_truncated)
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
            gap = rng.randint(200, 3_000) if reply != "after a silence" else rng.randint(20_000, 200_000)
            builder.final_reply(gap=gap, shape=reply_shape, truncated=reply_truncated)
    timeout, delegation = rng.choice(TIMEOUTS), rng.choice(DELEGATIONS)
    teardown = rng.choice(TEARDOWNS)
    # The spec's deadlines (navigation.md), restated here only to place a cancel in the request's phases.
    clamped = min(max(timeout, 1), 600_000)
    work = start + min(delegation, max(0, clamped - 30_000))
    retrieval = work - min(30_000, (work - start) // 4)
    offered = rng.sample(SOURCES, rng.randint(0, 3))
    answer = "" if rng.random() < 0.05 else "a partial answer from the kept evidence"
    synthesis_shape = rng.choice(REPLY_SHAPES) if rng.random() < 0.3 else "answer"
    completion = rng.choice((300, 2_000, 15_000, 40_000))
    # The phases after navigation are short and only some scenarios reach them: drawn more often.
    cancel = rng.choice(CANCEL_TIMES + CANCEL_TIMES[3:5] * 2) if rng.random() < 0.2 else None
    # Drawn last, so that every earlier draw of a scenario is what it was before limits were drawn.
    limits = drawn_limits(rng) if rng.random() < LIMITS_SHARE else ()
    return builder.scenario(
        timeout_ms=timeout, delegation_timeout_ms=delegation,
        delete_fails=rng.random() < 0.08, revoke_fails=rng.random() < 0.08,
        teardown_ms=teardown, policy_rejects=rng.random() < 0.12,
        completion_ms=completion,
        completion_reply=reply_text(synthesis_shape, answer, offered, rng.random() < 0.5),
        cancel_at=None if cancel is None else cancel_time(rng, cancel, builder, work, retrieval, teardown, completion),
        summary_thinking=rng.random() < 0.5, start_ms=start, limits=limits,
    )


def drawn_limits(rng: random.Random) -> tuple[tuple[str, int], ...]:
    """Some of ``LIMIT_CHOICES``' fields with a drawn value, as ``Scenario.limits`` holds them (sorted by name)."""
    return tuple(sorted((name, rng.choice(values)) for name, values in LIMIT_CHOICES.items() if rng.random() < 0.5))
