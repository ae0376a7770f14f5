"""The generic engine on toy models: a proof, a counterexample, and each reduction's check catching a false one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

import attrs

from properties.catalogue import Violation
from properties.engine.model import Edge
from properties.engine.search import search
from properties.engine.symmetry import Permutation


@attrs.frozen
class Lanes:
    """Two lanes' failure counts and a stopped flag; a lane stops the run at ``cap``."""

    counts: tuple[int, int] = (0, 0)
    stopped: bool = False
    #: A memory the key may forget: how many events were seen (capped so the space stays finite).
    seen: int = 0


def swap(state: Lanes) -> Lanes:
    return attrs.evolve(state, counts=(state.counts[1], state.counts[0]))


@attrs.define
class Toy:
    cap: int = 3
    #: A planted asymmetry: lane 1 stops one failure late.
    lopsided: bool = False
    #: A planted, safe asymmetry: lane 1 stops one failure early.
    early_lane: bool = False
    #: A planted bug: the run is never stopped, so the invariant "no count past the cap" breaks.
    never_stop: bool = False
    #: The key forgets ``seen``; with ``seen_matters`` it should not (the step reads it).
    seen_matters: bool = False
    subject: str = "toy"
    name: str = "toy c3"
    symmetries: Sequence[Permutation] = (Permutation(name="lanes", parts=("lanes",), key=swap, event=lambda e: 1 - e if e in (0, 1) else e),)

    def initial(self) -> Sequence[Lanes]:
        return (Lanes(),)

    def alphabet(self, state: Lanes) -> Sequence[Any]:
        return () if state.stopped else (0, 1, "ok")

    def step(self, state: Lanes, event: Any) -> Edge:
        seen = min(state.seen + 1, 3)
        if event == "ok":
            counts = (0, 0) if not (self.seen_matters and state.seen == 2) else state.counts
            return Edge(target=Lanes(counts, False, seen), held=("T1",))
        counts = list(state.counts)
        counts[event] += 1
        cap = self.cap + (1 if self.lopsided and event == 1 else 0) - (1 if self.early_lane and event == 1 else 0)
        stopped = counts[event] >= cap and not self.never_stop
        target = Lanes(tuple(counts), stopped, seen)  # type: ignore[arg-type]
        violations = ()
        if max(counts) > self.cap:
            violations = (Violation("T1", 0, f"lane {event} at {counts[event]}"),)
        return Edge(target=target, violations=violations, held=("T1",))

    def key(self, state: Lanes) -> tuple:
        return (state.counts, state.stopped)

    def save(self, start: int, events: Sequence[Any], path: Path) -> Path:
        path.write_text(json.dumps({"start": start, "events": list(events)}))
        return path

    def describe(self, event: Any) -> str:
        return str(event)


def test_a_symmetric_guard_is_proved_with_its_symmetry_checked() -> None:
    result = search(Toy())
    assert result.proved, result.row()
    assert result.symmetries == ("lanes",)
    # Without the symmetry the same space has more states: the merge did something, and was checked.
    unmerged = search(attrs.evolve(Toy(), symmetries=()))
    assert unmerged.proved and unmerged.states > result.states
    assert result.merge_pairs > 0  # the key forgets ``seen``: merges happened and were each checked


def test_a_bug_gives_a_shortest_replayable_counterexample(tmp_path: Path) -> None:
    result = search(Toy(never_stop=True), out_dir=tmp_path)
    assert not result.proved and result.violation is not None and result.violation.invariant == "T1"
    assert len(result.path) == 4  # three failures reach the cap, the fourth passes it
    assert result.saved is not None and json.loads(result.saved.read_text())["events"] == list(result.path)


def test_a_one_lane_rule_breaks_the_symmetry_and_withdraws_the_proof(tmp_path: Path) -> None:
    result = search(Toy(lopsided=True), out_dir=tmp_path)
    # Searched again without the symmetry, the late-stopping lane passes the cap: the bug is found there.
    assert not result.proved and result.violation is not None and result.violation.invariant == "T1"
    assert not result.reduced_as_declared
    assert [b.symmetry for b in result.broken] == ["lanes"]
    assert result.symmetries == ()
    assert "symmetry broken (lanes)" in result.row()
    kept, image = result.broken[0].files
    assert json.loads(image.read_text())["events"] == [1 - e if e in (0, 1) else e for e in json.loads(kept.read_text())["events"]]


def test_a_safe_asymmetry_is_reported_and_the_search_without_the_symmetry_stands() -> None:
    result = search(Toy(cap=3, early_lane=True))
    assert [b.symmetry for b in result.broken] == ["lanes"] and not result.reduced_as_declared
    # Without the symmetry nothing is assumed: its fixpoint with nothing violated is a proof, with more states.
    assert result.proved and result.states > search(Toy()).states


def test_a_key_that_forgets_what_matters_is_caught() -> None:
    result = search(Toy(seen_matters=True))
    assert result.merge_broken is not None and not result.reduced_as_declared
    assert "merge broken" in result.row()
    # Searched again keyed by whole states (nothing forgotten), the toy still keeps its cap.
    assert result.proved
