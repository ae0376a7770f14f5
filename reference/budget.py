"""The run-progress budget as it was before seeds 000, 001 and 002.

This module is the oracle. It restates ``shared/spec/budget.md`` ("Reference
budget") and nothing more: no deferral, no refusal remedy, no free lookups.
It imports nothing from ``guard`` so that a bug copied into the production
budget cannot hide here too. Its SHA-256 is pinned in ``tests/reference_pin.json``
(re-pinned only through ``nox -s adopt-reference``).
"""

from __future__ import annotations

import json
from collections import deque
from typing import Any

import attrs

#: Results from these tools only find things out; they neither charge nor reset.
DISCOVERY_TOOLS = frozenset({"tool_search", "tool_describe", "pixel_ods_skill"})

#: The two progress lanes; any other value means "no lane".
LANES = ("workspace", "extension")


def _positive(_instance: object, attribute: attrs.Attribute, value: int) -> None:
    if type(value) is not int or value < 1:
        raise ValueError(f"{attribute.name} must be a positive integer, got {value!r}")


@attrs.frozen
class ReferenceLimits:
    """The four run-progress limits and the two memory caps of the earlier budget."""

    consecutive_failures: int = attrs.field(default=4, validator=_positive)
    total_failures: int = attrs.field(default=12, validator=_positive)
    rounds_without_progress: int = attrs.field(default=8, validator=_positive)
    identical_successes: int = attrs.field(default=2, validator=_positive)
    seen_calls: int = attrs.field(default=256, validator=_positive)
    successes: int = attrs.field(default=128, validator=_positive)


def fingerprint(tool: Any, params: Any) -> str:
    """Canonical JSON of ``[tool, params]``: keys sorted at every depth, arrays in order."""
    return json.dumps([tool, params], sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=repr)


def lane_of(lane: Any) -> str | None:
    """The progress lane a result belongs to, or None for anything that is not a lane name."""
    return lane if isinstance(lane, str) and lane in LANES else None


@attrs.define(slots=True, eq=False)
class ReferenceBudget:
    """Counts failures and rounds without progress; once terminal, it stays terminal."""

    limits: ReferenceLimits = attrs.field(factory=ReferenceLimits)
    rounds: int = 0
    failures: int = 0
    consecutive: int = 0
    terminal: bool = False
    lane_failures: dict[str, int] = attrs.field(factory=lambda: {lane: 0 for lane in LANES})
    exhausted_lanes: set[str] = attrs.field(factory=set)
    seen_calls: deque[str] = attrs.field(factory=deque)
    seen_call_set: set[str] = attrs.field(factory=set)
    successes: dict[str, int] = attrs.field(factory=dict)

    @property
    def exhausted(self) -> bool:
        return self.terminal

    def lane_exhausted(self, lane: Any) -> bool:
        return lane in self.exhausted_lanes

    def _first_sighting(self, call_id: Any) -> bool:
        """Record a call id; False when it is not a usable id or was seen already."""
        if not isinstance(call_id, str) or not call_id or call_id in self.seen_call_set:
            return False
        self.seen_calls.append(call_id)
        self.seen_call_set.add(call_id)
        if len(self.seen_calls) > self.limits.seen_calls:
            self.seen_call_set.discard(self.seen_calls.popleft())
        return True

    def _settle(self) -> None:
        limits = self.limits
        if (
            len(self.exhausted_lanes) >= len(LANES)
            or self.consecutive >= limits.consecutive_failures
            or self.failures >= limits.total_failures
        ):
            self.terminal = True

    def observe_result(
        self,
        call_id: Any,
        tool: Any,
        params: Any,
        failed: Any,
        pending: Any = False,
        discovery: Any = False,
        lane: Any = None,
    ) -> None:
        """Account one tool receipt (steps 1-4 of the reference rules)."""
        if self.terminal or not self._first_sighting(call_id):
            return
        lane = lane_of(lane)
        if failed:
            self.failures += 1
            if lane is None:
                self.consecutive += 1
            else:
                self.lane_failures[lane] += 1
                if self.lane_failures[lane] >= self.limits.consecutive_failures:
                    self.exhausted_lanes.add(lane)
            self._settle()
            return
        if discovery or tool in DISCOVERY_TOOLS:
            return
        self.consecutive = 0
        if lane is not None:
            self.lane_failures[lane] = 0
        if pending:
            self.rounds = 0
            return
        key = fingerprint(tool, params)
        count = self.successes.get(key, 0) + 1
        self.successes[key] = count
        if len(self.successes) > self.limits.successes:
            del self.successes[next(iter(self.successes))]
        if count <= self.limits.identical_successes:
            self.rounds = 0

    def begin_model_round(self) -> bool:
        """Count one model call; more than the rounds limit without progress stops the run."""
        self.rounds += 1
        if self.rounds > self.limits.rounds_without_progress:
            self.terminal = True
        return self.terminal

    def stop(self) -> None:
        """Another guard stopped the run: sticky, and no counter changes."""
        self.terminal = True
