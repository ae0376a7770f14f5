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
* ``counters`` - the budget's counters (``budget_side.counters``);
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


def plain(value: Any) -> Any:
    """``value`` as JSON-able data that two interpreters print alike (never an object's address)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if attrs.has(type(value)):
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


def rows_of(sequence: Any) -> list[dict[str, Any]]:
    """Play ``sequence`` through a fresh guard: one row of observables per event."""
    from properties.hooks.deliver import deliver, make_guard
    from properties.review.budget_side import counters

    guard = make_guard(sequence)
    rows: list[dict[str, Any]] = []
    for event in sequence.events:
        try:
            records = deliver(guard, event)
        except Exception as error:
            rows.append({"error": f"{type(error).__name__}: {error}"})
            break
        budget = guard.budget
        rows.append({
            # What the hook returned is what the host gets: the decision, the persisted copy, the record kept.
            "received": [[record.hook, plain(record.returned)] for record in records],
            "counted": [plain(record.counted) for record in records if record.counted],
            "stop": [bool(budget.terminal), str(guard.finalization.phase), bool(guard.aborted)],
            "counters": counters(budget),
        })
    return rows


def save(sequence: Any, path: Path, origin: str) -> Path:
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

