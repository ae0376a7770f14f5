"""The engine's search: breadth first over a ``Model``, with every reduction it makes checked on the way.

``search(model, ...)`` explores from the model's initial states, level by
level (``properties.engine.levels``), until no new key appears (the fixpoint:
a proof for that configuration), a depth limit (every trace of at most that
many events), a state limit or a deadline (incomplete: proves nothing).
Every edge is judged by the model's step (through the one judge); the first
violating step found is on a shortest trace, since the search is breadth
first.

Two ways to expand a level, one loop:

* a plain ``Model``: the engine's own expander (``properties.engine.expand``)
  steps every event of every state through the model and checks every
  reduction itself; one process;
* a ``Batched`` model (``properties.engine.model``) supplies its own
  expander, built for speed but bound to the same checks, which the engine
  may fork over both cores (``properties.engine.pool``).

Reductions and their checks (see ``properties.engine.model``):

* symmetry: states are stored under the least key of their images by the
  group the declared symmetries generate; on every edge each image step is
  run and compared. A failed check ends that search; the engine records a
  ``SymmetryBreak`` (with the kept trace and its image, saved when
  ``out_dir`` is given) and searches again without the symmetries the broken
  element composes. A search withdrawn so counts nothing;
* merging by key (plain models): a reached state whose key equals a stored,
  different state is checked against it as a bisimulation; a failure is a
  ``MergeBreak`` and the configuration is searched again with states keyed by
  themselves (nothing forgotten).

Decisions where the issue is silent:

* A broken reduction withdraws the search that relied on it, never the
  verdict's own claim outright: the scope is searched again without it, and
  that search needs no assumption, so ``SearchResult.proved`` is its result
  (finished, nothing violated) while the row names what broke. This is the
  budget's rule too: a guard that treats its lanes differently is not unsafe
  for it, and a one-lane bug is then found by the search without the
  symmetry (its catalogue's symmetry entries are killed there). A reviewer
  still sees every break (``reduced_as_declared``), with its saved traces.
* Keys are compared with ``<`` to choose the least image; a model's key is a
  tuple of built-in values (documented on ``Model.key``).
* ``depth`` of a plain model's row is the distance of the farthest state
  found (at a violation: the violating step's); a batched model reports the
  levels it expanded, as the budget's explorer always has (one more at a
  fixpoint: the level that found nothing new).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Hashable

import attrs

from properties.catalogue import Tally
from properties.engine.collector import collector_for_search
from properties.engine.expand import MERGE_PAIR_LIMIT, MergeFailed, ModelExpander
from properties.engine.levels import Bounds, LevelRun, run_levels, store_starts
from properties.engine.model import Batched, Model
from properties.engine.pool import ForkPool
from properties.engine.result import MergeBreak, SearchResult
from properties.engine.store import Store
from properties.engine.symmetry import Permutation, SymmetryBreak, SymmetryBroken, group

__all__ = ["MERGE_PAIR_LIMIT", "MergeBreak", "SearchResult", "search", "kept_symmetries"]


def kept_symmetries(declared: tuple[Permutation, ...], broken: list[SymmetryBreak]) -> tuple[Permutation, ...]:
    """The declared symmetries no break has named (a composite's break names each part it composes)."""
    dropped = {part for b in broken for part in b.parts}
    return tuple(p for p in declared if p.name not in dropped)


def search(
    model: Model, max_depth: int | None = None, max_states: int = 2_000_000, seconds: float | None = 600.0,
    out_dir: Path | None = None, workers: int = 1, verbose: bool = False, batched: bool = True,
) -> SearchResult:
    """Search ``model``; on a broken reduction, search again without it (see the module docstring).

    ``seconds``: one deadline for every attempt (None: none). ``workers``:
    processes per level, for a batched model (a plain one runs in one).
    ``verbose``: every level's size on stderr. ``batched=False`` drives even
    a batched model edge by edge through its plain ``Model`` side, which is
    how the tests hold its expander to the plain steps.
    """
    started = time.perf_counter()
    bounds = Bounds(max_depth, max_states, None if seconds is None else time.monotonic() + seconds)
    if batched and isinstance(model, Batched):
        return _search_batched(model, bounds, workers, out_dir, verbose, started)
    return _search_plain(model, bounds, out_dir, verbose, started)


# -- plain models: the engine's own expander ----------------------------------------------------


def _search_plain(model: Model, bounds: Bounds, out_dir: Path | None, verbose: bool, started: float) -> SearchResult:
    declared = tuple(model.symmetries)
    broken: list[SymmetryBreak] = []
    merge_broken: MergeBreak | None = None
    by_state = False
    while True:
        kept = kept_symmetries(declared, broken)
        store = Store(keep_states=True)
        expander = ModelExpander(model, group(kept), by_state, store, bounds)
        try:
            level, _nothing = expander.start()
        except SymmetryBroken as failure:
            broken.append(_plain_break(model, failure, 0, (), out_dir))
            continue
        with collector_for_search():
            run = run_levels(store, level, expander.expand, bounds, local=expander, name=model.name, verbose=verbose)
        found = run.found
        if found is not None and isinstance(found.broken, SymmetryBroken):
            start, events = _trace(store, run)
            broken.append(_plain_break(model, found.broken, start, events, out_dir))
            continue
        if found is not None and isinstance(found.broken, MergeFailed):
            start, events = _trace(store, run)
            files = (_save(model, start, events, out_dir, "merge"),) if out_dir is not None else ()
            merge_broken = MergeBreak(detail=found.broken.detail, depth=len(events), kept=events, files=files)
            by_state = True
            continue
        break
    violations = found.violations if found is not None else ()
    start, path = _trace(store, run) if violations else (0, ())
    saved = _save(model, start, path, out_dir, "counterexample") if violations and out_dir is not None else None
    return SearchResult(
        subject=model.subject, name=model.name, states=len(store), edges=run.edges,
        depth=run.levels if violations else run.deepest, complete=run.complete, seconds=time.perf_counter() - started,
        max_depth=bounds.max_depth, cut=run.cut, violations=tuple(violations), start=start, path=path, saved=saved,
        symmetries=tuple(p.name for p in kept), merge_pairs=expander.merge_pairs, broken=tuple(broken),
        merge_broken=merge_broken,
    )


def _trace(store: Store, run: LevelRun) -> tuple[int, tuple]:
    """The real trace to the edge ``run.found`` names: the representatives' parent links are real steps."""
    found = run.found
    assert found is not None
    start, events = store.route(run.frontier[found.position])
    return start, events + (found.number,)


def _plain_break(model: Model, failure: SymmetryBroken, start: int, events: tuple, out_dir: Path | None) -> SymmetryBreak:
    element = failure.permutation
    image = tuple(element.event(e) for e in events)
    starts = tuple(model.initial())
    image_start = next((i for i, s in enumerate(starts) if model.key(s) == model.key(element.key(starts[start]))), start)
    files: tuple[Path, ...] = ()
    if out_dir is not None:
        files = (_save(model, start, events, out_dir, "kept"), _save(model, image_start, image, out_dir, "image"))
    return SymmetryBreak(symmetry=element.name, parts=element.parts, where=failure.where, detail=failure.detail,
                         depth=len(events), kept=events, image=image, files=files)


def _save(model: Model, start: int, events: tuple, out_dir: Path, label: str) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    safe = "".join(c if c.isalnum() else "-" for c in model.name).strip("-")
    # The subject leads the name once: a model named after its subject ("hooks playground n4") is not prefixed again.
    stem = safe if safe.startswith(f"{model.subject}-") else f"{model.subject}-{safe}"
    return model.save(start, events, out_dir / f"{stem}-{label}.json")


# -- batched models: the model's expander, the engine's loop -------------------------------------


def _search_batched(model: Batched, bounds: Bounds, workers: int, out_dir: Path | None, verbose: bool,
                    started: float) -> SearchResult:
    declared = tuple(model.symmetries)
    broken: list[SymmetryBreak] = []
    while True:
        kept = kept_symmetries(declared, broken)
        with collector_for_search():
            outcome = _batched_once(model, kept, bounds, workers, out_dir, verbose)
        if isinstance(outcome, SymmetryBreak):
            broken.append(outcome)
            continue
        break
    if not broken:
        return outcome
    return attrs.evolve(outcome, broken=tuple(broken), seconds=time.perf_counter() - started)


def _batched_once(model: Batched, kept: tuple[Permutation, ...], bounds: Bounds, workers: int, out_dir: Path | None,
                  verbose: bool) -> SearchResult | SymmetryBreak:
    """One search with ``kept``: its row, or the break that withdrew it."""
    started = time.perf_counter()
    make = model.expander(kept)
    local = make()
    starts, violations = local.start()
    store = Store()
    level = store_starts(store, starts)
    pool = ForkPool(make, workers, local, Tally) if workers > 1 else None
    failure: SymmetryBroken | None = local.initial_break()
    run = LevelRun(0, 0, 0, "", level, [], None)
    try:
        if failure is None and not violations:
            expand = pool.expand if pool is not None else local.expand
            run = run_levels(store, level, expand, bounds, local=local, name=model.name, verbose=verbose)
    finally:
        counts = local.counts()
        if pool is not None:
            total = pool.close()
            total.merge(counts)
            counts = total
    at: tuple[Hashable, Any] | None = None
    if failure is not None:
        at = (level[0], None)
    elif run.found is not None and run.found.broken is not None:
        failure = run.found.broken
        found = run.found
        # A break found at a child (a state property) is shown by the trace to that child.
        at = (run.child_at(found.position, found.number), None) if found.probed else (run.frontier[found.position], found.number)
    if failure is not None and at is not None:
        return model.symmetry_break(store, at, failure, run.levels, kept, out_dir)
    return model.result(store, run, counts, tuple(violations), kept, time.perf_counter() - started, out_dir)
