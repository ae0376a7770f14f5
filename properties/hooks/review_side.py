"""The hook path's side of the behaviour comparison: what the host receives from the guard, event by event.

A side plays each seeded hook sequence (the hook bulk driver's:
``properties.hooks.generate.sequences`` in slices of ``drivers.SLICE``, so a
review with seed S plays the sequences ``python -m properties --seed S``
checks first) through one fresh ``ToolLoopGuard`` of its own ``guard/``
(``deliver.make_guard``: allowances on, as production runs) and records per
event:

* ``received`` - what every hook call handed back to the host (what it
  returned): the decision of ``before_tool_call`` (block and its reason), the
  copy ``tool_result_persist`` returned, what ``record_tool_result`` returned;
* ``counted`` - the receipts the hooks counted toward the budget (call id,
  failed, flags, which hook);
* ``stop`` - the run is stopped, and the finalization phase and abort flag;
* ``counters`` - the budget's counters (``properties.budget.review_side.counters``);
* ``error`` - an exception raised by a hook (the sequence ends there).

Sequences are short (two to twelve pieces) and never cut after a stop: what
a stopped guard tells the host is part of the promise (H5-H7).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import attrs

SUBJECT = "hooks"
UNIT = "sequences"
OBSERVABLES = ("received", "counted", "stop", "counters", "error")
#: The verdict's default number of bulk sequences: the review compares as many.
DEFAULT_COUNT = 10_000
OPTION = "--sequences"
MINIMUM_COUNT = 0
OPTION_HELP = "hook bulk sequences compared (0: the hook path is not compared)"


#: Types that are JSON as they are, tested first by exact type (a subclass, say an enum, takes the general path).
_SCALARS = frozenset({type(None), bool, int, float, str})


def plain(value: Any) -> Any:
    """``value`` as JSON-able data that two interpreters print alike (never an object's address)."""
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is dict:
        return {str(key): plain(item) for key, item in value.items()}
    if kind is list or kind is tuple:
        return [plain(item) for item in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if attrs.has(kind):
        return {"type": type(value).__name__, **{key: plain(item) for key, item in attrs.asdict(value, recurse=False).items()}}
    if isinstance(value, dict):
        return {str(key): plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        items = [plain(item) for item in value]
        return sorted(items, key=repr) if isinstance(value, (set, frozenset)) else items
    return type(value).__name__


def bulk(seed: int, count: int) -> Iterator[Any]:
    from properties.hooks.drivers import SLICE
    from properties.hooks.generate import sequences

    number = 0
    while count > 0:
        size = min(SLICE, count)
        yield from sequences(seed, number, size)
        count -= size
        number += 1


def steps_of(sequence: Any) -> list[Any]:
    return list(sequence.events)


def prefix(sequence: Any, steps: int) -> Any:
    return attrs.evolve(sequence, events=tuple(sequence.events[:steps]))


def limits() -> dict[str, Any]:
    return {}


def row_of(guard: Any, event: Any) -> dict[str, Any]:
    """Deliver ``event`` to ``guard``: the observables of that one event (the bulk rows and the scope trees alike)."""
    from properties.hooks.deliver import deliver
    from properties.budget.review_side import counters

    try:
        records = deliver(guard, event)
    except Exception as error:
        return {"error": f"{type(error).__name__}: {error}"}
    budget = guard.budget
    return {
        # What the hook returned is what the host gets: the decision, the persisted copy, the record kept.
        "received": [[record.hook, plain(record.returned)] for record in records],
        "counted": [plain(record.counted) for record in records if record.counted],
        "stop": [bool(budget.terminal), str(guard.finalization.phase), bool(guard.aborted)],
        "counters": counters(budget),
    }


def rows_of(sequence: Any) -> list[dict[str, Any]]:
    """Play ``sequence`` through a fresh guard: one row of observables per event."""
    from properties.hooks.deliver import make_guard

    guard = make_guard(sequence)
    rows: list[dict[str, Any]] = []
    for event in sequence.events:
        rows.append(row_of(guard, event))
        if "error" in rows[-1]:
            break
    return rows


# -- the exhaustive comparison's side: every run of a scope (``properties.review.recorded``) -------------------


#: What a side shows for an event after its run ended (its guard aborted, or a hook raised): the host delivers
#: nothing more, so every observable is absent, and the side that went on differs from it in each.
ENDED: dict[str, Any] = {"ended": True}


def scope_model(name: str) -> Any:
    """The verdict's hook model of the scope ``name`` (``properties.hooks.model.scopes``), of any mode."""
    from properties.hooks.model import scopes
    from properties.review_sides import scope_of

    return scope_of(scopes, name, "hook")


def default_scopes() -> tuple[str, ...]:
    from properties.hooks.model import scopes

    return tuple(model.name for model in scopes("default"))


def events_of(model: Any, tokens: Any) -> list[Any]:
    """The hook events a path of move numbers stands for (a call's id is its number among the run's calls)."""
    from properties.hooks.events import Call

    events: list[Any] = []
    for token in tokens:
        events.append(model.moves[token].event(sum(isinstance(event, Call) for event in events)))
    return events


def tree(name: str) -> Iterator[dict[str, Any]]:
    """Every run of the scope, breadth first: per node its path (move numbers), what this side's guard showed
    for the path's last event, and the moves offered next (none once the run is at the scope's length, the
    guard aborted it, or a hook raised). Each node's guard is its parent's, pickled, with one event more."""
    import pickle
    from collections import deque

    from properties.hooks.deliver import make_guard

    model = scope_model(name)
    every = list(range(len(model.moves)))
    yield {"start": 0, "path": [], "offer": every if model.length else [], "row": None}
    level: deque[tuple[tuple[int, ...], bytes]] = deque([((), pickle.dumps(make_guard(model.sequence(())), pickle.HIGHEST_PROTOCOL))])
    while level:
        path, frozen = level.popleft()
        for token in every:
            guard = pickle.loads(frozen)
            child = path + (token,)
            row = row_of(guard, events_of(model, child)[-1])
            over = "error" in row or bool(guard.aborted) or len(child) >= model.length
            yield {"start": 0, "path": list(child), "offer": [] if over else every, "row": row}
            if not over:
                level.append((child, pickle.dumps(guard, pickle.HIGHEST_PROTOCOL)))


def after_end(_last: dict[str, Any]) -> dict[str, Any]:
    return ENDED


def save_path(name: str, start: int, tokens: Any, path: Path, origin: str) -> Path:
    """A run of the scope as a hook sequence file carrying the scope's limits (``nox -s replay -- FILE``)."""
    model = scope_model(name)
    return save(model.sequence(events_of(model, tokens)), path, origin)


def describe_token(name: str, token: Any) -> str:
    return str(scope_model(name).moves[token].name)


def save(sequence: Any, path: Path, origin: str, _limits: "dict[str, Any] | None" = None) -> Path:
    """A hook sequence file whose name is the review's origin line (``review base=... head=... seed=...``)."""
    from properties.hooks.trace_file import save as save_sequence

    return save_sequence(sequence, path, name=origin)


def load(path: Path) -> tuple[Any, str]:
    from properties.hooks.trace_file import load as load_sequence

    sequence, name, _invariant = load_sequence(path)
    return sequence, name


def describe(event: Any) -> str:
    from properties.hooks.counterexample import describe as describe_event

    return describe_event(event)


def show(name: str, value: Any) -> str:
    """One observable's value as a table cell (``behaviour.cell`` handles a missing row or value)."""
    if name == "stop":
        terminal, phase, aborted = value
        return f"{'STOP' if terminal else 'open'}/{phase}" + ("/aborted" if aborted else "")
    if name == "received":
        return "; ".join(f"{hook}: {_received(hook, returned)}" for hook, returned in value)
    return json.dumps(value, separators=(",", ":"))


def _received(hook: str, returned: Any) -> str:
    if hook == "before_tool_call" and isinstance(returned, dict):
        return f"block ({returned.get('block_reason')})" if returned.get("block") else "allow"
    if hook == "tool_result_persist" and returned is not None:
        return "copy " + json.dumps(returned, separators=(",", ":"))[:80]
    return "-" if returned is None else json.dumps(returned, separators=(",", ":"))[:40]

