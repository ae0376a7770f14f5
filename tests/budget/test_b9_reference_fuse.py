"""B9 counts its allowance against the reference's fuse, not against P's own jumps past it (issue 22)."""

from __future__ import annotations

import guard.budget
from guard.budget import GLOBAL
from guard.limits import Limits
from properties.budget.copies import new_copies
from properties.budget.events import FirstCall, Result
from properties.budget.monitor import Monitor
from properties.catalogue import Tally

FIRST, SECOND = "playground-first-write", "playground-project-path"


def violated(events: list) -> list[str]:
    monitor = Monitor(limits=Limits(), tally=Tally(), budgets=new_copies(Limits()))
    found = []
    for event in events:
        found.extend(violation.invariant for violation in monitor.step(event))
    return found


def two_admissions() -> list:
    """Seed 002 twice in one streak: three failures, a refusal trips the fuse, the remedy is admitted, again."""
    events: list = [Result(f"f{index}", tool="exec", failed=True) for index in range(3)]
    events += [Result("r1", tool="exec", failed=True, correctable_refusal=FIRST), FirstCall(remedy=True)]
    events += [Result("r2", tool="write", failed=True, correctable_refusal=SECOND), FirstCall(remedy=True)]
    return events


def waited_then_admitted() -> list:
    """Seed 001 then 002: a charge waits at the fuse, lands with the tripping refusal; the remedy is admitted."""
    events: list = [Result(f"f{index}", tool="exec", failed=True) for index in range(3)]
    events += [Result("c", tool="inspect", failed=True, correctable=True)]
    events += [Result("r1", tool="exec", failed=True, correctable_refusal=FIRST), FirstCall(remedy=True)]
    return events


def test_the_landed_wait_is_allowed_once() -> None:
    """P re-opens at consecutive 5 = 3 + one admission + the charge that waited: B9 holds."""
    assert "B9" not in violated(waited_then_admitted())
    assert violated(two_admissions()) == []


def test_a_p_that_charges_twice_past_the_fuse_breaks_b9(monkeypatch) -> None:
    """Planted: past the fuse every global charge counts two. P re-opens at 6 with two admissions: B9 says 5."""
    original = guard.budget.RunProgressBudget._charge

    def double_past_the_fuse(self, counter):
        original(self, counter)
        if counter == GLOBAL and self.consecutive > self.limits.consecutive_failures:
            self.consecutive += 1

    monkeypatch.setattr(guard.budget.RunProgressBudget, "_charge", double_past_the_fuse)
    assert "B9" in violated(two_admissions())
