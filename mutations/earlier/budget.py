"""``earlier-budget``: the reference's budget rules behind the production ``RunProgressBudget``.

The seeds' arguments are accepted and ignored, ``correct_fuse`` admits
nothing, ``pending_correction`` is always None, and ``failure_ends`` answers by
observing one failure on a copy.
"""

from __future__ import annotations

import copy
import itertools
from types import ModuleType
from typing import Any, Mapping


def earlier(namespace: Mapping[str, Any], rules: ModuleType | None) -> type:
    """The class that replaces ``RunProgressBudget`` in the module whose globals are ``namespace`` (it reads that
    module's ``Limits``), subclassing ``rules.ReferenceBudget``.

    The class takes the replaced one's module and name, so that pickling and
    ``repr`` find it where production's was.
    """
    if rules is None:
        raise ValueError("earlier-budget needs the reference's budget rules")
    limits_type = namespace["Limits"]
    lane_of = rules.lane_of
    probes = itertools.count()

    class RunProgressBudget(rules.ReferenceBudget):  # type: ignore[name-defined]
        """The reference rules with the production signature: new arguments ignored, nothing deferred or granted."""

        def __init__(self, limits: Any = None, **_ignored: Any) -> None:
            # Production Limits carries every field the reference reads, under the same names.
            super().__init__(limits if limits is not None else limits_type())
            self.deferred = None
            self.deferrals_used = 0
            self.correction = None
            self.corrected_kinds: set[str] = set()
            self.free_lookups_used = 0

        def observe_result(self, call_id: Any, tool: Any, params: Any, failed: Any, pending: bool = False,
                           discovery: bool = False, lane: Any = None, **_ignored: Any) -> None:
            super().observe_result(call_id, tool, params, failed, pending=pending, discovery=discovery, lane=lane)

        @property
        def pending_correction(self) -> None:
            return None

        def correct_fuse(self, remedy: Any) -> bool:
            return False

        def failure_ends(self, lane: Any = None, correctable: bool = False, empty_lookup: bool = False) -> bool:
            if self.terminal or self.rounds >= self.limits.rounds_without_progress:
                return True
            probe = copy.deepcopy(self)
            probe.observe_result(f"red-check-probe-{next(probes)}", "red-check-probe", None, True, lane=lane)
            named = lane_of(lane)
            return probe.terminal or (named is not None and named in probe.exhausted_lanes)

    RunProgressBudget.__module__ = namespace["__name__"]
    RunProgressBudget.__qualname__ = "RunProgressBudget"
    return RunProgressBudget
