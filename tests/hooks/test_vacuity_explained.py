"""Issue 24 part 4: a vacuous hook invariant's line says which coverage counts fell to zero and how production
compared with the reference, so a change that stopped admissions altogether is explained, not just "vacuous"."""

from __future__ import annotations

from typing import Any

import pytest

from guard.hooks import ToolLoopGuard
from properties.catalogue import Tally
from properties.hooks.generate import sequences
from properties.hooks.monitor import new_monitor
from properties.hooks.subject import SUBJECT
from properties.report import vacuity_explained

SEED = 24  # fixed, so the 300 sequences are the same on every run


def _judge() -> Tally:
    tally = Tally()
    monitor = new_monitor(tally)
    for sequence in sequences(SEED, 0, 300):
        monitor.check(sequence)
    return tally


def test_a_guard_that_never_admits_is_explained_by_its_missing_admissions() -> None:
    original = ToolLoopGuard.before_tool_call

    def forgetful(self: ToolLoopGuard, *args: Any) -> Any:
        decision = original(self, *args)
        self.refusal_kinds.clear()
        return decision

    with pytest.MonkeyPatch.context() as patch:
        # The refusal kind never reaches a result hook: no correction ever pends, so H5 has nothing to judge.
        patch.setattr(ToolLoopGuard, "before_tool_call", forgetful)
        tally = _judge()
    assert tally.status("H5") == "vacuous"
    line = vacuity_explained(SUBJECT, tally)
    zero = line.split("; coverage at zero: ")[1].split(";")[0].split(", ")
    assert "admissions" in zero
    assert "never an admission" in line
    assert "stopped as the reference did, nothing pending" in line


def test_the_real_guard_parts_from_the_reference_by_admissions() -> None:
    tally = _judge()
    assert tally.status("H5") == "held"
    assert tally.partings["an admission"][0] > 0
    line = vacuity_explained(SUBJECT, tally)
    assert "never an admission" not in line
    assert "admissions" not in line.split("; coverage at zero: ")[1].split(";")[0]
