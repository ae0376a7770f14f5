"""The hook path as a finite model for the exhaustive engine (``properties.engine``): every short run, judged.

A scope fixes a run's setting (Playground routing or a website task),
scaled-down limits (a fuse of 2, a total cap of 3, 2 rounds without
progress, one deferral, one free lookup) and a small alphabet of hook
events chosen to reach what hooks.md promises: calls delivered after-first
and persist-first, a nested Tool Search child, an inspection failure whose
capped persisted copy arrives with the tool's own record and one without it,
the router's gated exec and the remedy write, model calls and an owner
cancel. Each edge delivers one event through ``HookMonitor.step``, the very
monitor every hook driver runs (G as generated, M with the result hooks
flipped, H3's reference oracle), so every edge is judged against the whole
catalogue (H1-H11) by the one judge and a violation is the same
``Violation`` the bulk and state-machine drivers report.

State and key (decisions where the issue is silent):

* A state is the events delivered so far, with the live monitor after them
  kept beside it (not compared: it is a cache of what those events do). The
  key is the events themselves, so it is exact and no merge is ever a
  reduction to check; the price is that the space is the tree of every
  sequence, which is why a scope also bounds the run's length. Call ids are
  fresh for every call (a host never reuses one) and the guard keeps every
  pending record, so no two different histories leave equal guards: a key
  coarser than the history would need a renaming of ids whose faithfulness
  the engine could only check by exploring both subtrees in lockstep, which
  costs what it saves.
* A run ends (no event offered) once the scope's length is reached or the
  guard has aborted the run (the stop text was shown: the host ends the run).
  The fixpoint is then every sequence of at most that many events.
* No symmetry is declared: the two hook orders are not one (a capped copy
  without a record is charged at once when the persist hook comes first and
  classified from the live result otherwise, as hooks.md asks), and the
  alphabet's call kinds play different roles.

``save`` writes the run as a ``guard-hook-sequence/1`` file carrying its
limits, so ``python -m properties.replay FILE`` judges the same run.
"""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any, Hashable, Sequence

import attrs

from properties.catalogue import Tally
from properties.engine.model import Edge
from properties.engine.symmetry import Permutation
from properties.hooks.counterexample import describe as describe_event
from properties.hooks.events import AFTER, PERSIST, Call, Cancel, HookEvent, HookSequence, ModelCall
from properties.hooks.invariants import CATALOGUE
from properties.hooks.monitor import HookMonitor
from properties.hooks.trace_file import save as save_sequence

#: The scaled-down limits every scope runs under (the seeds' rules, small numbers).
SMALL_LIMITS = (
    ("consecutive_failures", 2), ("corrected_attempts", 1), ("free_empty_lookups", 1), ("identical_successes", 1),
    ("rounds_without_progress", 2), ("total_failures", 3),
)


@attrs.frozen
class Move:
    """One letter of a scope's alphabet: a call's kind and delivery (its index is the run's next), or another event."""

    name: str
    kind: str = ""
    binding: str = "bound"
    record: bool = True
    order: str = AFTER
    capped: bool = False

    def event(self, index: int) -> HookEvent:
        if self.name == "model_call":
            return ModelCall()
        if self.name == "cancel":
            return Cancel()
        return Call(index, self.kind, self.binding, record=self.record, order=self.order, capped=self.capped)


MODEL_CALL = Move("model_call")
CANCEL = Move("cancel")
#: Playground: the router's gated exec (refused with the first-write kind), the remedy write persist-first, the
#: same write from a nested child, an inspection failure that measured nothing with its capped copy and its
#: record (after-first) and without a record (persist-first: charged at once), model calls and a cancel.
PLAYGROUND_MOVES = (
    Move("gate", "gate"),
    Move("remedy", "remedy", order=PERSIST),
    Move("nested remedy", "remedy", binding="nested"),
    Move("capped with record", "no_match", capped=True),
    Move("capped without record", "no_match", record=False, order=PERSIST, capped=True),
    MODEL_CALL,
)
#: A website task: failures, the inspection failure that may wait at the fuse (capped, with and without its
#: record, in both orders), a passing inspection, a search that found nothing, a nested child, model calls.
WEBSITE_MOVES = (
    Move("fetch fail", "fetch_fail", order=PERSIST),
    Move("capped with record", "no_match", capped=True, order=PERSIST),
    Move("capped without record", "no_match", record=False, capped=True),
    Move("passed", "passed", capped=True),
    Move("lookup", "lookup"),
    Move("nested fetch", "fetch_fail", binding="nested"),
    MODEL_CALL,
)


@attrs.frozen
class RunState:
    """The events delivered so far; ``frozen`` is the monitor after them, pickled (a cache, never compared).

    Pickled rather than kept live: a step unpickles its own copy (the guards, budgets and H3's oracle with it),
    which costs half of ``copy.deepcopy`` and keeps a stored state to a few kilobytes."""

    events: tuple[HookEvent, ...]
    frozen: bytes = attrs.field(eq=False, hash=False, repr=False)
    #: What ``alphabet`` reads of the monitor: G has aborted the run, or a step ran past its bound.
    over: bool = attrs.field(default=False, eq=False, hash=False)


def freeze(monitor: HookMonitor) -> bytes:
    monitor.tally = Tally()
    return pickle.dumps(monitor, pickle.HIGHEST_PROTOCOL)


def event_key(event: HookEvent) -> tuple:
    """An event as plain, ordered values (a key is a tuple of built-ins)."""
    return (type(event).__name__, *attrs.astuple(event))


@attrs.define
class HookModel:
    """One scope of the hook path (see the module docstring); the engine's ``Model``."""

    name: str
    playground: bool
    moves: tuple[Move, ...]
    #: The most events a run of this scope has.
    length: int
    limits: tuple[tuple[str, int], ...] = SMALL_LIMITS
    #: Invariants judged on every edge (the whole catalogue unless a test narrows it).
    invariants: tuple = CATALOGUE
    subject: str = "hooks"
    symmetries: Sequence[Permutation] = ()

    @property
    def scope(self) -> str:
        """The scope in a few words, for the report's table (the limits as the budget's rows abbreviate them)."""
        short = {"consecutive_failures": "c", "total_failures": "t", "rounds_without_progress": "r",
                 "free_empty_lookups": "f", "corrected_attempts": "d", "identical_successes": "i"}
        limits = " ".join(f"{short.get(name, name)}{value}" for name, value in self.limits)
        setting = "playground" if self.playground else "website"
        return f"{limits}; {setting}, {len(self.moves)} events, runs of at most {self.length}"

    def sequence(self, events: Sequence[HookEvent]) -> HookSequence:
        return HookSequence(self.playground, tuple(events), limits=self.limits)

    def initial(self) -> Sequence[RunState]:
        monitor = HookMonitor(Tally(), self.invariants)
        monitor.start(self.sequence(()))
        return (RunState((), freeze(monitor)),)

    def alphabet(self, state: RunState) -> Sequence[HookEvent]:
        if len(state.events) >= self.length or state.over:
            return ()
        index = sum(isinstance(event, Call) for event in state.events)
        return tuple(move.event(index) for move in self.moves)

    def step(self, state: RunState, event: HookEvent) -> Edge:
        monitor: HookMonitor = pickle.loads(state.frozen)
        # A fresh tally per edge (``freeze`` left one): what it counts is this step alone.
        found = monitor.step(event)
        held = tuple(sorted(name for name, count in monitor.tally.exercised.items() if count))
        over = monitor.guards["G"].aborted or monitor.ran_away
        return Edge(RunState(state.events + (event,), freeze(monitor), over), tuple(found), held)

    def key(self, state: RunState) -> Hashable:
        return tuple(event_key(event) for event in state.events)

    def save(self, start: int, events: Sequence[Any], path: Path) -> Path:
        sequence = self.sequence(events)
        found = HookMonitor(Tally(), self.invariants).check(sequence)
        name = path.stem
        return save_sequence(sequence, path, name, found[0].invariant if found else "")

    def describe(self, event: Any) -> str:
        return describe_event(event)


def scopes(mode: str) -> tuple[HookModel, ...]:
    """The scopes a run of ``mode`` proves: quick, default (the verdict's), thorough (deeper, and a website task)."""
    if mode == "quick":
        return (HookModel("hooks playground n3", True, PLAYGROUND_MOVES, 3),)
    if mode == "thorough":
        return (HookModel("hooks playground n5", True, PLAYGROUND_MOVES + (CANCEL,), 5),
                HookModel("hooks website n4", False, WEBSITE_MOVES, 4))
    return (HookModel("hooks playground n4", True, PLAYGROUND_MOVES, 4),)
