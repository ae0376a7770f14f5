"""The one view of a budget's state: what the monitors compare, the replays print and the tests assert on.

``Snap`` is everything a budget holds but its two memories, for either
budget (the reference leaves the production-only fields at their defaults);
``memories`` adds the seen call ids and the success fingerprints; a
``shared_view`` is what the reference and production share (B1's comparison
plus the memories); ``BudgetState`` is the row a replay prints of one budget,
built from ``snap``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import attrs

from guard.budget import RunProgressBudget


class Snap(NamedTuple):
    """One copy's observable state; the reference leaves the production-only fields at their defaults.

    A named tuple rather than an attrs class, the project's usual record: a
    driver takes seven snapshots per step and compares many, and building,
    comparing and slicing a tuple happen in C (a few per cent of the bulk
    driver's checked time in ``nox -s bench``, against an attrs record with
    slots). It is immutable, compared and hashed field by field, as a frozen
    attrs record would be.
    """

    terminal: bool
    rounds: int
    failures: int
    consecutive: int
    workspace: int
    extension: int
    exhausted: frozenset
    deferred: str | None = None
    deferrals_used: int = 0
    correction: str | None = None
    kinds: frozenset = frozenset()
    free_used: int = 0

    @property
    def counters(self) -> tuple:
        """What B1 compares: the stop, the exhausted lanes and every shared counter (the first seven fields)."""
        return self[:7]

    @property
    def pending_correction(self) -> str | None:
        return self.correction if self.terminal else None


NO_NAMES: frozenset = frozenset()
_new_snap = tuple.__new__


def snap(budget: Any) -> Snap:
    """The snapshot of either budget."""
    return snap_production(budget) if isinstance(budget, RunProgressBudget) else snap_reference(budget)


def snap_production(budget: RunProgressBudget) -> Snap:
    lanes = budget.lane_failures
    exhausted = budget.exhausted_lanes
    kinds = budget.corrected_kinds
    return _new_snap(Snap, (
        budget.terminal, budget.rounds, budget.failures, budget.consecutive,
        lanes["workspace"], lanes["extension"], frozenset(exhausted) if exhausted else NO_NAMES,
        budget.deferred, budget.deferrals_used, budget.correction,
        frozenset(kinds) if kinds else NO_NAMES, budget.free_lookups_used,
    ))


def snap_reference(budget: Any) -> Snap:
    """The reference has none of the production-only fields: they keep their defaults."""
    lanes = budget.lane_failures
    exhausted = budget.exhausted_lanes
    return _new_snap(Snap, (
        budget.terminal, budget.rounds, budget.failures, budget.consecutive,
        lanes["workspace"], lanes["extension"], frozenset(exhausted) if exhausted else NO_NAMES,
        None, 0, None, NO_NAMES, 0,
    ))


def same_counters(a: Snap, b: Snap) -> bool:
    """``a.counters == b.counters``: the first seven fields, compared in C."""
    return a[:7] == b[:7]


def memories(budget: Any) -> tuple:
    """The budget's two memories, oldest first: seen call ids and (fingerprint, count) of successes."""
    return tuple(budget.seen_calls), tuple(budget.successes.items())


class SharedView(NamedTuple):
    """What the reference and production share: the stop, lanes and shared counters (``Snap.counters``) and both
    memories."""

    counters: tuple
    seen_calls: tuple
    successes: tuple


def shared_view(budget: Any) -> SharedView:
    return SharedView(snap(budget).counters, *memories(budget))


@attrs.frozen
class BudgetState:
    """What a replay row shows of one budget after an event: ``Snap``'s view, named for the table and ``--json``.

    Built from ``snap`` (the one reading of a budget), so the replay prints exactly what the monitors compare.
    """

    consecutive: int
    total: int
    waiting: str | None
    pending: str | None
    stopped: bool
    rounds: int
    lane_failures: dict[str, int]
    exhausted_lanes: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return attrs.asdict(self)


def budget_state(budget: Any) -> BudgetState:
    """The row view of either budget (the reference has no deferral or pending correction: None)."""
    state = snap(budget)
    return BudgetState(
        consecutive=state.consecutive,
        total=state.failures,
        waiting=state.deferred,
        pending=state.pending_correction,
        stopped=bool(state.terminal),
        rounds=state.rounds,
        lane_failures={"workspace": state.workspace, "extension": state.extension},
        exhausted_lanes=tuple(sorted(state.exhausted)),
    )
