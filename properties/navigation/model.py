"""Delegated navigation as a finite model for the exhaustive engine (``properties.engine``): every child, judged.

A scope fixes the scaled-down limits (2 model-issued tool calls, 2 results
without progress, 12 characters of evidence, slices of 1 s, a reserve of at
most 1 s) and a request whose work deadline is 5 s, so the retrieval
deadline falls at the end of the fourth slice: the clock is discrete, one
slice per event. An event says what the child shows in the next slice: nothing,
an assistant turn with one or two tool calls, a tool result with new text,
with text seen before, a zero-token manifest or an error, its final reply, or
the caller cancelling during that slice. The initial states are the endings
that do not depend on the child: teardown works, the child's deletion fails
(a cleanup failure), or the synthesis policy rejects the answer.

Each edge plays the whole request so far (the prefix of slices, then a child
that says nothing more until the deadline) against the reference and
production on the subject's own fakes, through the navigation monitor: N1-N11
judged by the one judge, with the spec's rules over the scaled numbers
(``properties.navigation.spec_rules.spec_of``). A violation is the same
``Violation`` the bulk and state-machine drivers report, and ``save`` writes
the scenario as a ``navigation-scenario/1`` file carrying its limits, so
``python -m properties.replay FILE`` judges the same request.

State and key (decisions where the issue is silent):

* A state is the ending and the slices so far; the key is both, so it is
  exact (no merge is a reduction). A run is over, and offers no event, once
  its request has ended before the deadline (a bound fired, the child replied,
  the caller cancelled: production reads no later slice, so a later one can
  change nothing it does) or its slices reach the retrieval deadline.
* No symmetry is declared: the three bounds, the result classes and the
  endings are different rules, not renamings of one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Hashable, Sequence

import attrs

from guard.navigation_ports import Message
from properties.catalogue import Tally
from properties.engine.model import Edge
from properties.engine.symmetry import Permutation
from properties.navigation.events import Scenario, Timed
from properties.navigation.invariants import CATALOGUE
from properties.navigation.spec_rules import BOUNDS
from properties.navigation.monitor import new_monitor
from properties.navigation.trace_file import save as save_scenario

SLICE_MS = 1_000
#: The scaled-down limits (``NavigationLimits`` fields) of every scope.
SMALL_LIMITS = (
    ("evidence_chars", 12), ("no_progress", 2), ("reserve_divisor", 4), ("reserve_ms", 1_000),
    ("slice_ms", SLICE_MS), ("tool_calls", 2),
)
#: A 5 s work deadline (the caller's timeout leaves more than the 30 s headroom): reserve 1 s, retrieval at 4 s.
TIMEOUT_MS = 60_000
WORK_MS = 5_000
RETRIEVAL_MS = 4_000
BUCKET = ("s1", "s2")
#: The synthesis cites one source in the bucket and one outside it (N10 must drop and report it).
REPLY = '{"answer": "partial answer", "citations": ["s1", "s9"]}'
CHILD_ANSWER = '{"answer": "the child\'s answer", "citations": ["s2"]}'

#: What the child shows in one slice (``cancel``: the caller cancels during it instead).
SLICE_EVENTS = ("idle", "call", "calls2", "progress", "same", "empty", "error", "reply", "cancel")
#: The endings that do not depend on the child: (name, the scenario fields that make it).
ENDINGS: tuple[tuple[str, tuple[tuple[str, bool], ...]], ...] = (
    ("teardown ok", ()),
    ("delete fails", (("delete_fails", True),)),
    ("policy rejects", (("policy_rejects", True),)),
)


@attrs.frozen
class Request:
    """An ending and the child's slices so far; ``over``: the request ended (no later slice matters)."""

    ending: int
    slices: tuple[str, ...]
    over: bool = attrs.field(default=False, eq=False, hash=False)


def message(event: str, number: int) -> "Message | None":
    """What the child shows in slice ``number`` for ``event`` (None: nothing)."""
    name = f"m{number}"
    if event == "call":
        return Message(name, "assistant", "looking", tool_calls=1)
    if event == "calls2":
        return Message(name, "assistant", "looking twice", tool_calls=2)
    if event == "progress":
        # Eight characters, new in every slice: two of them pass the 12-character evidence cap.
        return Message(name, "tool", f"fact #{number:02d}", source_tokens=5, source="s1", tool="expand")
    if event == "same":
        # The same text in every slice: progress the first time, repeated after.
        return Message(name, "tool", "same doc", source_tokens=5, source="s2", tool="expand")
    if event == "empty":
        return Message(name, "tool", "manifest: 3 nodes", source_tokens=0, manifest=True, tool="expand")
    if event == "error":
        return Message(name, "tool", "tool failed", is_error=True, tool="expand")
    if event == "reply":
        return Message(name, "assistant", CHILD_ANSWER)
    return None


@attrs.define
class NavigationModel:
    """One scope of delegated navigation (see the module docstring); the engine's ``Model``."""

    name: str
    endings: tuple[tuple[str, tuple[tuple[str, bool], ...]], ...] = ENDINGS
    events: tuple[str, ...] = SLICE_EVENTS
    limits: tuple[tuple[str, int], ...] = SMALL_LIMITS
    invariants: tuple = CATALOGUE
    subject: str = "navigation"
    symmetries: Sequence[Permutation] = ()

    @property
    def scope(self) -> str:
        """The scope in a few words, for the report's table."""
        limits = dict(self.limits)
        return (f"calls {limits['tool_calls']}, no-progress {limits['no_progress']}, evidence {limits['evidence_chars']} "
                f"chars, reserve {limits['reserve_ms']} ms; {self.slices} slices of {limits['slice_ms']} ms, "
                f"{len(self.events)} events, {len(self.endings)} endings")

    @property
    def slices(self) -> int:
        return RETRIEVAL_MS // SLICE_MS

    def scenario(self, ending: int, slices: Sequence[str]) -> Scenario:
        timed = []
        cancel_at = None
        for number, event in enumerate(slices):
            at = number * SLICE_MS + SLICE_MS // 2
            if event == "cancel":
                cancel_at = at
                continue
            shown = message(event, number)
            if shown is not None:
                timed.append(Timed(at, shown))
        name, fields = self.endings[ending]
        return Scenario(
            name=f"model-{name.replace(' ', '-')}-{'-'.join(slices) or 'silent'}", timeout_ms=TIMEOUT_MS,
            delegation_timeout_ms=WORK_MS, messages=tuple(timed), bucket=BUCKET, teardown_ms=100, completion_ms=200,
            completion_reply=REPLY, cancel_at=cancel_at, limits=self.limits, note=f"exhaustive model: {name}",
            **dict[str, Any](fields),
        )

    def initial(self) -> Sequence[Request]:
        return tuple(Request(number, ()) for number in range(len(self.endings)))

    def alphabet(self, state: Request) -> Sequence[str]:
        if state.over or len(state.slices) >= self.slices:
            return ()
        # One cancellation per request: after it the request has ended anyway.
        return self.events

    def step(self, state: Request, event: str) -> Edge:
        slices = state.slices + (event,)
        tally = Tally()
        monitor = new_monitor(tally, self.invariants)
        found = monitor.step(self.scenario(state.ending, slices))
        held = tuple(sorted(name for name, count in tally.exercised.items() if count))
        judged = monitor.last
        # Ended before the deadline: a bound, the child's reply or a cancellation in a slice of this prefix.
        over = judged is None or judged.expected in BOUNDS[:2] or judged.expected in ("reply", "cancelled")
        return Edge(Request(state.ending, slices, over), tuple(found), held)

    def key(self, state: Request) -> Hashable:
        return (state.ending, state.slices)

    def save(self, start: int, events: Sequence[Any], path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        save_scenario(self.scenario(start, tuple(events)), path)
        return path

    def describe(self, event: Any) -> str:
        return f"slice: {event}"


def scopes(mode: str) -> tuple[NavigationModel, ...]:
    """The scopes a run of ``mode`` proves (quick: fewer events; thorough: every ending, revocation failing too)."""
    if mode == "quick":
        return (NavigationModel("navigation n4 small", events=("idle", "call", "progress", "empty", "reply", "cancel")),)
    if mode == "thorough":
        endings = ENDINGS + (("revoke fails", (("revoke_fails", True),)),)
        return (NavigationModel("navigation n4 all endings", endings=endings),)
    return (NavigationModel("navigation n4"),)
