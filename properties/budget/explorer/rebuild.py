"""Real traces rebuilt from the search's canonical paths: for a counterexample, and for both sides of a symmetry break.

The parent links join canonical states, so the events read off them are
no trace (lanes, kinds and ids may switch midway); these walks deliver real
events to real budgets from the start instead."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import NamedTuple, Sequence, cast

import attrs

from properties.budget.copies import ALL_COPIES
from properties.engine.store import Store
from properties.engine.symmetry import Permutation, SymmetryBreak
from properties.budget.trace_file import Trace, dumps, save_trace
from properties.budget.events import Event, Result
from properties.budget.monitor import Monitor
from properties.catalogue import Tally, Violation
from properties.budget.explorer.alphabets import ORIGIN, PROBE_EVENT, event_at, events_of
from properties.budget.explorer.canonical_form import encode
from properties.budget.explorer.copier import clone
from properties.budget.explorer.history import restore_history
from properties.budget.explorer.keys import Canon, State
from properties.budget.explorer.scopes import Config, new_prototypes


def parent_link_events(store: Store, key: State, config: Config) -> list[Event]:
    """The events of the parent links, each read from its canonical parent: not a trace (see ``real_trace``)."""
    # The engine's store holds any hashable key; the budget's are its ``State``s.
    chain = cast("list[State]", store.chain(key))
    _start, numbers = store.route(key)
    return [event_at(parent, number, config) for parent, number in zip(chain, numbers)]


class Walker(NamedTuple):
    """One actual state of the forward walk (``real_trace``): live budgets, the monitor's history, the events so far."""

    budgets: tuple
    history: tuple
    events: tuple
    #: How many fresh call ids the events used (the next fresh one is ``r<fresh>``).
    fresh: int


def actual_events(template: Event, key: State, walker: Walker) -> list[tuple[Event, int]]:
    """The real events that stand for one alphabet event of the canonical ``key``, from ``walker``'s actual state.

    An alphabet event with a call id names it by its canonical label: label
    ``key.remembered`` is a fresh id, a smaller one an id some copy remembers.
    In the actual state the copies remember other names (renamed, or in
    another order), so a fresh label becomes an id never used on this trace
    and a remembered label every id some actual copy remembers; the walk keeps
    whichever lands on the path's next canonical state. Returns (event, fresh
    ids used after it).
    """
    origin = ORIGIN.get(id(template))
    if origin is None:
        return [(template, walker.fresh)]
    _template, label = origin
    if label >= key.remembered:
        # Only a result has a call id (ORIGIN holds results only).
        return [(attrs.evolve(cast(Result, template), call_id=f"r{walker.fresh}"), walker.fresh + 1)]
    remembered: list[str] = []
    for budget in walker.budgets:
        for call_id in reversed(budget.seen_calls):
            if call_id not in remembered:
                remembered.append(call_id)
    return [(attrs.evolve(cast(Result, template), call_id=call_id), walker.fresh) for call_id in remembered]


def advance(walker: Walker, event: Event, monitor: Monitor) -> tuple[Walker, list[Violation]]:
    """Deliver ``event`` to copies of the walker's budgets through ``monitor``; the walker after it and the violations."""
    budgets = [clone(budget) for budget in walker.budgets]
    monitor.budgets = dict(zip(ALL_COPIES, budgets))
    restore_history(monitor, walker.history)
    found = monitor.step(event)
    return Walker(tuple(budgets), monitor.history(), walker.events + (event,), walker.fresh), found


def real_trace(
    config: Config, canon: Canon, chain: Sequence[State], number: int, invariant: str, probed: bool,
) -> tuple[Event, ...] | None:
    """A real trace along the canonical path ``chain`` whose last event breaks ``invariant``; None if none exists.

    The search keeps canonical states only: a child is the canonical image
    (lanes mirrored, refusal kinds swapped, call ids renamed) of the real
    successor, and the next event is read from that image. So the events of
    the parent links can switch lanes, kinds or ids midway, and replayed on
    fresh budgets reach the mirror of the failing state, which may break
    nothing. This walk delivers real events to real budgets instead, from the
    start: from each actual state it tries every event the alphabet offers
    (with the actual call ids, ``actual_events``) and keeps every distinct
    actual successor (by its key without the symmetries: at most the four
    lane and kind images) whose canonical form is the path's next state; from
    the last it keeps the first event, in alphabet order, that breaks the same
    invariant (followed by the B13 probe when the search found it there).
    Keeping every image, not just one, matters when the budget itself is not
    symmetric (a planted or mutated bug in one lane or for one kind): the
    start is its own mirror, so every image of a path is reachable while the
    budget behaves symmetrically, and the last step then starts from the
    image the search judged. Cost: path length x images x alphabet real steps,
    once per violation; the search itself is unchanged.
    """
    prototypes = new_prototypes(config)
    walkers = walk(config, canon, chain)
    if walkers is None:
        return None
    key = chain[-1]
    judged = events_of(key, config)[number]
    # The event the search judged first, then the rest of the alphabet: the same violation may need another.
    order = [judged] + [event for event in events_of(key, config) if event is not judged]
    for template in order:
        for walker in walkers:
            for event, _fresh in actual_events(template, key, walker):
                monitor = Monitor(limits=config.oracle, tally=Tally(), budgets=dict(zip(ALL_COPIES, prototypes)))
                after, found = advance(walker, event, monitor)
                if probed and not any(violation.invariant == invariant for violation in found):
                    after, found = advance(after, PROBE_EVENT, monitor)
                if any(violation.invariant == invariant for violation in found):
                    return after.events
    return None


def walk(config: Config, canon: Canon, chain: Sequence[State]) -> list[Walker] | None:
    """Every distinct actual state (up to the four lane and kind images) a real trace reaches along ``chain``.

    The forward walk of ``real_trace``: None when no real trace follows the chain.
    """
    plain = attrs.evolve(canon, symmetry=False, kinds=False)
    prototypes = new_prototypes(config)
    quiet = Monitor(limits=config.oracle, tally=Tally(), budgets=dict(zip(ALL_COPIES, prototypes)), invariants=(), failure_ends_probes="off")
    walkers = [Walker(tuple(clone(prototype) for prototype in prototypes), quiet.history(), (), 0)]
    for key, following in zip(chain, chain[1:]):
        kept: dict[State, Walker] = {}
        for template in events_of(key, config):
            for walker in walkers:
                for event, fresh in actual_events(template, key, walker):
                    after, _found = advance(walker, event, quiet)
                    after = after._replace(fresh=fresh)
                    if encode(after.budgets, after.history, canon) != following:
                        continue
                    kept.setdefault(encode(after.budgets, after.history, plain), after)
        if not kept:
            return None
        walkers = list(kept.values())
    return walkers


def symmetry_traces(
    config: Config, canon: Canon, chain: Sequence[State], number: int, permutation: Permutation,
) -> tuple[tuple[Event, ...], tuple[Event, ...]]:
    """(a real trace to the searched state and its event ``number``, its image under ``permutation``).

    The walk prefers the actual state that is the searched representative
    itself (its key without the symmetries equals the canonical one), since
    that is the state whose step the check permuted; every edge before it
    passed the checks, so the image of the trace is a real trace as well.
    When the break is found at the initial state or in an alphabet, the
    trace is just the path there. Empty traces when no real trace follows
    the chain (then the budget is asymmetric before the break, which the
    checks exclude; said rather than raised).
    """
    walkers = walk(config, canon, chain)
    if not walkers:
        return (), ()
    key = chain[-1]
    plain = attrs.evolve(canon, symmetry=False, kinds=False)
    walker = next((w for w in walkers if encode(w.budgets, w.history, plain) == key), walkers[0])
    events = events_of(key, config)
    trace = walker.events
    if number is not None and number < len(events):
        event, _fresh = actual_events(events[number], key, walker)[0]
        trace = trace + (event,)
    return trace, tuple(permutation.event(event) for event in trace)


def save_symmetry_traces(config: Config, broken: SymmetryBreak, out_dir: Path) -> SymmetryBreak:
    """Save both sides of a break as trace files (``guard-trace/1``); the break with their paths."""
    files = []
    for side, events in (("kept", broken.kept), ("image", broken.image)):
        origin = (
            f"explorer {config.name}: symmetry broken ({broken.symmetry}, {broken.where}): {broken.detail}; "
            + ("the trace the search ran" if side == "kept" else "its image, the side the canonical form dropped")
        )
        body = Trace(name="", events=tuple(events), limits=config.oracle, origin=origin)
        digest = hashlib.sha256(dumps(body).encode("utf-8")).hexdigest()[:8]
        name = f"explorer-symmetry-{broken.symmetry.replace(' ', '-')}-{side}-{len(events)}steps-{digest}"
        files.append(save_trace(attrs.evolve(body, name=name), Path(out_dir) / f"{name}.json"))
    return attrs.evolve(broken, files=tuple(files))


def counterexample_path(
    config: Config, canon: Canon, store: Store, key: State, number: int, invariant: str, probed: bool,
) -> tuple[tuple[Event, ...], tuple[Event, ...], bool]:
    """The counterexample of a violation found on event ``number`` from ``key``: (path, canonical events, exact).

    The trace is ``real_trace``'s real one when it exists; the canonical events of
    the parent links (``parent_link_events``) are returned beside it, for the
    report and the tests. Choice, when no real trace follows the canonical
    path (only possible when the budget under test is itself not lane or kind
    symmetric, before the violating step: the search's merging is then
    unsound as well): the canonical events are returned as the path, and the
    second item is None so the counterexample says it may not replay, rather
    than raising and losing the violation the search did find.
    """
    canonical_events = tuple(parent_link_events(store, key, config)) + (event_at(key, number, config),)
    if probed:
        canonical_events += (PROBE_EVENT,)
    trace = real_trace(config, canon, cast("list[State]", store.chain(key)), number, invariant, probed)
    if trace is None:
        return canonical_events, canonical_events, False
    return trace, canonical_events, True
