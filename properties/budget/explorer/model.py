"""The budget as the engine's model (``BudgetModel``): a plain model for the tests, a batched one for the verdict."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, Sequence, cast

import attrs

from properties.budget.copies import ALL_COPIES
from properties.engine.levels import LevelRun
from properties.engine.model import Edge
from properties.engine.store import Store
from properties.engine.symmetry import Permutation, SymmetryBreak, SymmetryBroken
from properties.budget.trace_file import Trace, save_trace
from properties.budget.events import Event
from properties.budget.monitor import Monitor
from properties.catalogue import Tally, Violation
from properties.budget.explorer.alphabets import PROBE_EVENT, events_of
from properties.budget.explorer.canonical_form import encode
from properties.budget.explorer.copier import clone
from properties.budget.explorer.expander import EDGE_INVARIANTS, Expander, STATE_INVARIANTS
from properties.budget.explorer.history import restore_history
from properties.budget.explorer.keys import Canon, P_AT, R_AT, State, decode
from properties.budget.explorer.rebuild import counterexample_path, save_symmetry_traces, symmetry_traces
from properties.budget.explorer.result import ConfigResult
from properties.budget.explorer.scopes import Config, new_prototypes
from properties.budget.explorer.symmetry import STATE_SYMMETRIES, symmetry_names, without


@attrs.define
class BudgetModel:
    """One configuration of the budget as the engine's model: real budgets stepped by the real code.

    As a plain ``Model`` (``properties.engine.model``) a state is the
    canonical state without the symmetries (``Canon`` with both off: ids
    renamed, settled copies merged, counts capped), decoded into fresh
    budgets and the monitor's history for each step, which runs through
    ``Monitor.step`` and B13's probe: slow, and independent of every cache
    below, so the tests hold the two ways equal on small scopes.

    As a ``Batched`` model it hands the engine the ``Expander``, which makes
    the same steps through its move and verdict caches (each copy key's move
    made once per event by the real code and reused; each distinct step
    judged once), merges by the kept symmetries and checks them on every
    edge. That is the way the verdict runs.
    """

    config: Config
    canon: Canon
    memo: bool = True
    keep_states: bool = False
    subject: str = "budget"

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def symmetries(self) -> tuple[Permutation, ...]:
        return tuple(p for p, on in zip(STATE_SYMMETRIES, (self.canon.symmetry, self.canon.kinds)) if on)

    def canon_keeping(self, kept: Sequence[Permutation]) -> Canon:
        """The canonical form merging by the kept symmetries only."""
        return without(self.canon, [p.name for p in self.symmetries if p not in kept])

    # -- the plain model ---------------------------------------------------------------------------

    def _plain(self) -> Canon:
        return attrs.evolve(self.canon, symmetry=False, kinds=False)

    def initial(self) -> tuple[State, ...]:
        prototypes = new_prototypes(self.config)
        monitor = Monitor(limits=self.config.oracle, tally=Tally(), budgets=dict(zip(ALL_COPIES, prototypes)))
        return (encode([clone(prototype) for prototype in prototypes], monitor.history(), self._plain()),)

    def alphabet(self, state: State) -> tuple[Event, ...]:
        return events_of(state, self.config)

    def step(self, state: State, event: Event) -> Edge:
        """``event`` delivered to budgets decoded from ``state`` through ``Monitor.step``, then B13 at the successor."""
        budgets = decode(state, new_prototypes(self.config))
        tally = Tally()
        oracle = self.config.oracle
        monitor = Monitor(limits=oracle, tally=tally, budgets=dict(zip(ALL_COPIES, budgets)), invariants=EDGE_INVARIANTS,
                          failure_ends_probes="off")
        restore_history(monitor, state.history)
        found = list(monitor.step(event))
        target = encode(budgets, monitor.history(), self._plain())
        probe = Monitor(limits=oracle, tally=tally, budgets={"R": clone(budgets[R_AT]), "P": clone(budgets[P_AT])},
                        invariants=STATE_INVARIANTS, failure_ends_probes="all")
        found.extend(probe.step(PROBE_EVENT))
        held = tuple(sorted(name for name, count in tally.exercised.items() if count))
        return Edge(target=target, violations=tuple(found), held=held)

    def key(self, state: State) -> State:
        return state

    def save(self, start: int, events: Sequence[Event], path: Path) -> Path:
        body = Trace(name=path.stem, events=tuple(events), limits=self.config.oracle, origin=f"explorer {self.config.name}")
        return save_trace(body, path)

    def describe(self, event: Event) -> str:
        return event.label or type(event).__name__

    # -- the batched model -------------------------------------------------------------------------

    def expander(self, kept: tuple[Permutation, ...]) -> Any:
        return functools.partial(Expander, self.config, self.canon_keeping(kept), self.memo)

    def result(
        self, store: Store, run: LevelRun, counts: Tally, violations: tuple[Violation, ...], kept: tuple[Permutation, ...],
        seconds: float, out_dir: Path | None,
    ) -> ConfigResult:
        config = self.config
        canon = self.canon_keeping(kept)
        path: tuple[Event, ...] = (PROBE_EVENT,) if violations else ()
        canonical_path: tuple[Event, ...] | None = path
        exact = True
        found = run.found
        if found is not None and found.violations:
            violations = found.violations
            key = run.frontier[found.position]
            path, canonical_path, exact = counterexample_path(config, canon, store, key, found.number, violations[0].invariant, found.probed)
        for violation in violations:
            if violation not in counts.violations:
                counts.violations.append(violation)
        return ConfigResult(
            name=config.name, limits=config.summary, states=len(store), edges=run.edges, depth=run.levels,
            complete=run.complete and not violations, seconds=seconds, violations=tuple(violations), path=path,
            exact=exact, canonical_path=canonical_path if violations else None, cut=run.cut,
            tally=counts, max_depth=config.max_depth, reached=frozenset(store.parents) if self.keep_states else frozenset(),
            symmetries=symmetry_names(canon), verified=canon.verify,
        )

    def symmetry_break(
        self, store: Store, at: tuple[Any, Any], failure: SymmetryBroken, depth: int, kept: tuple[Permutation, ...],
        out_dir: Path | None,
    ) -> SymmetryBreak:
        state, number = at
        canon = self.canon_keeping(kept)
        trace, image = symmetry_traces(self.config, canon, cast("list[State]", store.chain(state)), number,
                                       failure.permutation)
        found = SymmetryBreak(
            failure.permutation.name, failure.permutation.parts, failure.where, failure.detail, len(trace) if trace else depth,
            trace, image,
        )
        return save_symmetry_traces(self.config, found, out_dir) if out_dir is not None else found
