"""What a subject hands the exhaustive engine: a model of its guard as a finite transition system.

The engine (``properties.engine.search``) knows no subject. A subject that
wants a proof supplies, per configuration (scaled-down limits, a finite
alphabet), an object with the ``Model`` shape below:

* ``initial()``: the initial states;
* ``alphabet(state)``: the finite events offered in a state (the same tuple in
  every state is the usual case);
* ``step(state, event)``: runs the real ``guard/`` code (and ``reference/``
  where the subject compares with it) on a *copy* of ``state`` and returns an
  ``Edge``: the successor and what the subject's catalogue said about the
  step, judged through ``properties.judge.Judge``, the one judge;
* ``key(state)``: a hashable, totally ordered value that says everything about
  the state the future can depend on. Two states with one key are merged; a
  key that forgets something (a memory that can no longer matter) is a
  *reduction*, and the engine checks it (below);
* ``symmetries``: the declared permutations of the subject's own names
  (lanes, kinds, ...), as ``properties.engine.symmetry.Permutation`` acting on
  states (``key`` field: state to state) and on events;
* ``save(start, events, path)``: writes the events from initial state number ``start`` as the
  subject's own replayable trace file, for a counterexample or a broken
  reduction.

Why states, not keys, are stepped: a model's state is its real objects (or a
faithful value from which they are rebuilt); the engine keeps one
representative state per key and never decodes a key, so a model cannot
silently lose information between its key and the code it runs.

Every reduction is checked by the run that relies on it, never assumed:

* symmetry: on every edge ``s --e--> t`` searched, for every non-identity
  element ``p`` of the declared group, ``step(p(s), p(e))`` must give a
  successor with the key of ``p(t)`` and the same judgement (violated and
  exercised invariant ids); the initial states must be closed under ``p``;
* merging and forgetting: when a reached state has the key of a different
  stored state, the pair is checked as a bisimulation: both are stepped with
  every event, their successors must share a key and their judgements agree,
  and every successor pair that differs is checked the same way in turn, so
  every pair the merge relies on (not only the first) is checked.

A failed check withdraws the proof claim of the configuration; the search is
not allowed to say "proved" on an assumption it found false.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Hashable, Protocol, Sequence, runtime_checkable

import attrs

from properties.catalogue import Violation
from properties.engine.symmetry import Permutation, SymmetryBreak, SymmetryBroken

if TYPE_CHECKING:
    from properties.catalogue import Tally
    from properties.engine.levels import LevelRun
    from properties.engine.result import SearchResult
    from properties.engine.store import Store


@attrs.frozen
class Edge:
    """One step of a model: the successor and the catalogue's judgement of the step.

    ``violations`` are those the one judge returned for this step (their step
    numbers are the model's, the engine renumbers nothing); ``held`` the ids
    of the invariants the step exercised. Two edges are judged alike when
    their violated ids and ``held`` are equal (messages may name lanes).
    """

    target: Any
    violations: tuple[Violation, ...] = ()
    held: tuple[str, ...] = ()

    def judgement(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """What the symmetry and merge checks compare: violated ids and exercised ids, each sorted."""
        return tuple(sorted({v.invariant for v in self.violations})), tuple(sorted(self.held))


class Model(Protocol):
    """A subject's configuration as a finite transition system (see the module docstring)."""

    # Read-only to the engine: a model may hold them as plain attributes or as properties.
    @property
    def subject(self) -> str:
        """The subject's registry name ("hooks", "navigation", ...)."""

    @property
    def name(self) -> str:
        """The configuration's name as the report's table shows it ("hooks c2 d6")."""

    @property
    def symmetries(self) -> Sequence[Permutation]:
        """The declared symmetries (generators; the engine checks every element of the group they generate)."""

    def initial(self) -> Sequence[Any]: ...

    def alphabet(self, state: Any) -> Sequence[Any]: ...

    def step(self, state: Any, event: Any) -> Edge: ...

    def key(self, state: Any) -> Hashable: ...

    def save(self, start: int, events: Sequence[Any], path: Path) -> Path: ...

    def describe(self, event: Any) -> str: ...


@runtime_checkable
class Batched(Protocol):
    """A model that expands whole levels itself: the optional hook through which a subject keeps its speed-ups.

    The engine still owns the search (the store and its parent links, the
    level loop and its limits, both cores, the collector, dropping a broken
    symmetry and searching again); the model supplies what only it can make
    fast while staying exact (the budget: each copy's move computed once per
    copy key and event and reused, each distinct step judged once), and turns
    the engine's outcome into its row and its traces into real ones.

    ``expander(kept)`` returns a factory (called here and in every forked
    process) of objects with the level interface of
    ``properties.engine.pool``: ``start() -> (first keys, violations at the
    start)``, ``initial_break() -> SymmetryBroken | None``, ``expand(keys,
    depth)``, ``seen``, ``known`` and ``counts() -> Tally``. ``kept`` are the
    declared symmetries still trusted: the expander merges by exactly those
    and checks every one of them on every edge, reporting a failed check as
    its level's ``broken`` find.
    """

    subject: str
    name: str
    symmetries: Sequence[Permutation]

    def expander(self, kept: tuple[Permutation, ...]) -> Callable[[], Any]: ...

    def result(
        self, store: "Store", run: "LevelRun", counts: "Tally", violations: tuple[Violation, ...],
        kept: tuple[Permutation, ...], seconds: float, out_dir: Path | None,
    ) -> "SearchResult": ...

    def symmetry_break(
        self, store: "Store", at: tuple[Hashable, Any], failure: SymmetryBroken, depth: int, kept: tuple[Permutation, ...],
        out_dir: Path | None,
    ) -> SymmetryBreak: ...
