"""The monitor's machinery: B13's two ways of observing a failure, the scratch probe, and the counts.

The budgets here are planted variants of production, and the expected
behaviour comes from ``shared/spec/budget.md`` (the fuse of 4, the total cap
of 12) and ``invariants.md`` (B13), never from the monitor itself.
"""

from __future__ import annotations

import copy
from typing import Any

import attrs
import pytest

from guard.budget import RunProgressBudget
from guard.limits import Limits
from properties.budget import bulk
from properties.budget.copies import ALL_COPIES, new_copies
from properties.budget.events import FirstCall, Result, Round
from properties.budget.invariants import BY_ID, CATALOGUE, PROBE_COPIED, PROBE_EMPTIED, PROBES, failure_outcome, load_probe
from properties.budget.monitor import Monitor, new_monitor
from properties.catalogue import Tally
from properties.probes import Probes

HONEST_COPIES = bulk.default_copies
PROBED = Probes()


class EndsOneLate(RunProgressBudget):
    """A planted bug: ``failure_ends`` believes the fuse is one failure further away than it is."""

    def failure_ends(self, lane: Any = None, correctable: Any = False, empty_lookup: Any = False) -> bool:
        consecutive = self.consecutive
        self.consecutive = consecutive - 1
        try:
            return super().failure_ends(lane, correctable=correctable, empty_lookup=empty_lookup)
        finally:
            self.consecutive = consecutive


@pytest.mark.structural
def test_probe_lists_cover_every_budget_field_once() -> None:
    # A field the loader neither copies nor empties would leak one probe's state into the next.
    names = [field.name for field in attrs.fields(RunProgressBudget)]
    assert sorted(PROBE_COPIED + PROBE_EMPTIED) == sorted(names)
    assert not set(PROBE_COPIED) & set(PROBE_EMPTIED)


def test_loaded_probe_matches_a_fresh_copy_whatever_it_held_before() -> None:
    budget = RunProgressBudget()
    for number, lane in enumerate(("workspace", "workspace", None, None, "extension")):
        budget.observe_result(f"c{number}", "read", None, True, lane=lane)
    budget.observe_result("s", "read", {"path": "a"}, False)
    scratch = RunProgressBudget()
    for number in range(14):
        scratch.observe_result(f"junk{number}", "read", None, True, correctable=True, correctable_refusal="k")
    untouched = {name: copy.deepcopy(getattr(budget, name)) for name in PROBE_COPIED + PROBE_EMPTIED}
    load_probe(scratch, budget)
    for name in PROBE_COPIED:
        assert getattr(scratch, name) == getattr(budget, name), name
    for name in ("lane_failures", "exhausted_lanes", "corrected_kinds"):
        assert getattr(scratch, name) is not getattr(budget, name), f"{name} is shared, not copied"
    assert not scratch.seen_calls and not scratch.seen_call_set and not scratch.successes
    for lane, correctable, empty in PROBES:
        fresh = failure_outcome(budget, lane, correctable, empty)
        reused = failure_outcome(budget, lane, correctable, empty, scratch)
        assert fresh == reused, (lane, correctable, empty)
    # Probing never touches the budget probed.
    assert {name: getattr(budget, name) for name in untouched} == untouched


@PROBED("B13")
@pytest.mark.parametrize("mode", ["observed", "all"])
def test_b13_catches_a_failure_ends_one_late_in_every_mode(mode: str) -> None:
    copies = new_copies()
    copies["P"] = EndsOneLate(Limits())
    monitor = Monitor(limits=Limits(), tally=Tally(), budgets=copies, invariants=(BY_ID["B13"],), failure_ends_probes=mode)
    found = []
    # Global failures up to the fuse: at consecutive 3 the planted budget says the fourth failure does not end the run.
    for number in range(4):
        found += monitor.step(Result(f"c{number}", failed=True))
    assert found and found[0].invariant == "B13", found



class DefaultsCorrectable(RunProgressBudget):
    """A planted bug: ``failure_ends`` reads an omitted ``correctable`` as True (mutmut's ``failure_ends`` mutant 1)."""

    def failure_ends(self, lane: Any = None, correctable: Any = True, empty_lookup: Any = False) -> bool:
        return super().failure_ends(lane, correctable=correctable, empty_lookup=empty_lookup)


@PROBED("B13")
@pytest.mark.parametrize("mode", ["observed", "all"])
def test_b13_asks_about_an_ordinary_failure_with_budget_md_defaults(mode: str) -> None:
    # budget.md's signature is failure_ends(lane, correctable=False, empty_lookup=False): B13 asks about an ordinary
    # failure with the lane alone, so the planted default answers at consecutive 3 as if the failure could wait.
    copies = new_copies()
    copies["P"] = DefaultsCorrectable(Limits())
    monitor = Monitor(limits=Limits(), tally=Tally(), budgets=copies, invariants=(BY_ID["B13"],), failure_ends_probes=mode)
    found = []
    for number in range(4):
        found += monitor.step(Result(f"c{number}", failed=True))
    assert found and found[0].invariant == "B13", found

def test_observed_mode_checks_only_failures_new_to_an_open_p() -> None:
    tally = Tally()
    monitor = new_monitor(tally, limits=Limits(), budgets=new_copies(), failure_ends_probes="observed")
    monitor.step(Round())
    monitor.step(Result("a", failed=False))
    assert tally.exercised["B13"] == 0
    monitor.step(Result("b", failed=True, lane="workspace"))
    assert tally.exercised["B13"] == 1
    monitor.step(Result("b", failed=True))  # a duplicate id changes nothing, so nothing is predicted
    monitor.step(Result("", failed=True))  # neither does an unusable id
    assert tally.exercised["B13"] == 1


def test_bulk_with_observed_failures_catches_the_planted_failure_ends() -> None:
    def planted() -> dict[str, Any]:
        copies = HONEST_COPIES()
        copies["P"] = EndsOneLate(copies["P"].limits)
        return copies

    result = bulk.run_bulk(11, 200, Tally(), copies=planted)
    assert result.failure is not None
    assert result.failure[2].invariant == "B13", str(result.failure[2])


def test_unknown_probe_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="failure_ends_probes"):
        Monitor(limits=Limits(), tally=Tally(), budgets=new_copies(), failure_ends_probes="sometimes")


def test_a_monitor_missing_a_copy_is_refused_at_its_first_step() -> None:
    copies = new_copies()
    del copies["Pu"]
    monitor = Monitor(limits=Limits(), tally=Tally(), budgets=copies)
    with pytest.raises(ValueError, match="needs the copies"):
        monitor.step(Round())
    # B13 alone needs only P (the explorer's probe monitor).
    alone = Monitor(limits=Limits(), tally=Tally(), budgets={"R": copies["R"], "P": copies["P"]}, invariants=(BY_ID["B13"],))
    assert alone.step(Round()) == []


def test_checked_counts_every_invariant_of_the_monitor_at_every_step() -> None:
    tally = Tally()
    full = new_monitor(tally, limits=Limits(), budgets=new_copies())
    for number in range(5):
        full.step(Result(f"c{number}", failed=number % 2 == 0))
    only = Monitor(limits=Limits(), tally=tally, budgets=new_copies(), invariants=(BY_ID["B2"], BY_ID["B10"]))
    for _ in range(3):
        only.step(Round())
    checked = tally.checked
    assert checked == {inv.id: 5 + (3 if inv.id in ("B2", "B10") else 0) for inv in CATALOGUE}
    merged = Tally()
    merged.merge(tally)
    merged.merge(tally)
    assert merged.checked == {key: 2 * value for key, value in checked.items()}
    assert set(ALL_COPIES) == set(new_copies())


@PROBED("B1")
def test_b1_compares_the_memories_of_the_copies_a_driver_steps(monkeypatch: pytest.MonkeyPatch) -> None:
    # budget.md: a success's fingerprint is the canonical JSON of [tool, params]; production writing it with other
    # separators keeps every counter equal to the reference's and differs only in its memory (mutmut's
    # ``fingerprint`` mutants 3, 8, 12 and 13; ``ensure_ascii`` needs the palette's path that is not ASCII).
    import json

    import guard.budget

    monkeypatch.setattr(guard.budget, "fingerprint", lambda tool, params: json.dumps([tool, params], sort_keys=True))
    tally = Tally()
    monitor = new_monitor(tally, (BY_ID["B1"],), limits=Limits())
    found = monitor.step(Result("a", tool="read", params={"path": "bé/ü"}, failed=False))
    assert [violation.invariant for violation in found] == ["B1"]
    assert "success fingerprints differ" in found[0].message
    # The explorer's monitors hold prototypes, not the copies they judge: they leave the memories alone.
    assert Monitor(limits=Limits(), tally=Tally(), budgets=new_copies()).memories is False


@PROBED("B3")
def test_b3_reads_the_lane_exhausted_view_of_the_budget_a_driver_steps(monkeypatch: pytest.MonkeyPatch) -> None:
    # mutmut's ``lane_exhausted`` mutant 1 (``not in``): the view a host asks says a lane is stopped while the
    # budget's own exhausted lanes are empty (budget.md's read-only views).
    monkeypatch.setattr(RunProgressBudget, "lane_exhausted", lambda self, lane: lane not in self.exhausted_lanes)
    monitor = new_monitor(Tally(), (BY_ID["B3"],), limits=Limits())
    found = monitor.step(Result("a", failed=False))
    assert [violation.invariant for violation in found] == ["B3"]
    assert "lane_exhausted('workspace') says True" in found[0].message


class AdmitsAnything(RunProgressBudget):
    """A planted bug: ``correct_fuse`` says it re-opened a run that had nothing pending (mutmut's mutant 4)."""

    def correct_fuse(self, remedy: Any) -> bool:
        if not self.terminal or self.correction is None:
            return True
        return super().correct_fuse(remedy)


@PROBED("B8")
def test_b8_judges_what_correct_fuse_returns_with_nothing_pending() -> None:
    copies = new_copies()
    copies["P"] = AdmitsAnything(Limits())
    monitor = new_monitor(Tally(), (BY_ID["B8"],), limits=Limits(), budgets=copies)
    found = monitor.step(FirstCall(remedy=True))
    assert [violation.invariant for violation in found] == ["B8"]
    assert "admitted=True with None pending" in found[0].message


@PROBED("B8")
def test_b8_refuses_an_empty_text_granted_as_a_refusal_kind(monkeypatch: pytest.MonkeyPatch) -> None:
    # budget.md: a refusal kind counts only as a non-empty string (mutmut's ``refusal_kind`` mutant 1 takes any
    # string); the bulk generator draws the empty text now and then where no kind would be.
    import guard.budget

    monkeypatch.setattr(guard.budget, "refusal_kind", lambda value: value if isinstance(value, str) or value else None)
    monitor = new_monitor(Tally(), (BY_ID["B8"],), limits=Limits())
    found = []
    for number in range(4):
        found += monitor.step(Result(f"c{number}", failed=True, correctable_refusal=""))
    assert [violation.invariant for violation in found] == ["B8"]
    assert "granted ['']" in found[0].message
