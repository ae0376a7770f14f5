"""The explorer checks the symmetries it merges by: a guard or a catalogue that breaks one is never "proved".

The bugs planted here fire only on the side the canonical form drops (the
workspace lane while the extension lane is clean; the first-write kind once
project-path was granted alone), so a search that trusts its symmetries never
steps them. Expected invariants come from ``shared/spec/invariants.md`` (B1:
a copy without flags equals the reference; B8: no grant at the total cap),
never from the explorer's output.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import attrs
import pytest

import properties.budget.copies
from guard.budget import RunProgressBudget
from guard.limits import Limits
from properties.budget import explorer
from properties.budget.explorer import Config, explore, run_explorer
from properties.catalogue import Tally
from properties.budget.counterexample import first_violation
from properties.budget.trace_file import load_trace

ROOT = Path(__file__).resolve().parents[2]
FIRST_WRITE, PROJECT_PATH = "playground-first-write", "playground-project-path"


def _scope(consecutive: int, total: int) -> Config:
    limits = Limits(
        consecutive_failures=consecutive, total_failures=total, rounds_without_progress=1, identical_successes=1,
        corrected_attempts=2, free_empty_lookups=1, seen_calls=1, successes=1,
    )
    return Config(f"sym c{consecutive} t{total}", limits, None)


def _one_lane_forgets(lane: str) -> type:
    other = "extension" if lane == "workspace" else "workspace"

    class OneLaneForgetsItsSecondCharge(RunProgressBudget):
        """A lane's second failure is not charged while the other lane is clean: the lane never trips (B1)."""

        def _charge(self, counter):
            if counter == lane and self.lane_failures[lane] >= 1 and self.lane_failures[other] == 0:
                return
            super()._charge(counter)

    return OneLaneForgetsItsSecondCharge


class FirstWriteGrantedAtTheCapAfterProjectPath(RunProgressBudget):
    """Seed 002 broken for one kind: first-write is granted at the total cap once project-path alone was granted (B8)."""

    def _observe_failure(self, lane, correctable, kind, empty_lookup):
        before = set(self.corrected_kinds)
        super()._observe_failure(lane, correctable, kind, empty_lookup)
        if lane is None and kind == FIRST_WRITE and before == {PROJECT_PATH} and self.terminal and self.correction is None:
            self.corrected_kinds.add(kind)
            self.correction = kind


def _unchecked(scope: Config) -> explorer.Canon:
    return attrs.evolve(explorer.canon_for(scope), verify=False)


@pytest.mark.parametrize(
    ("budget", "scope", "symmetry", "invariant"),
    [
        (_one_lane_forgets("workspace"), _scope(2, 2), "lanes", "B1"),
        (FirstWriteGrantedAtTheCapAfterProjectPath, _scope(1, 2), "kinds", "B8"),
    ],
    ids=["workspace lane", "first-write kind"],
)
def test_a_rule_on_the_dropped_side_was_proved_and_now_breaks_its_symmetry(monkeypatch, tmp_path, budget, scope, symmetry, invariant):
    monkeypatch.setattr(properties.budget.copies, "RunProgressBudget", budget)
    # Trusting the symmetry (the explorer before the checks), the search never steps the rule: "proved".
    trusted = explore(scope, Tally(), canon=_unchecked(scope))
    assert trusted.complete and trusted.violation is None and not trusted.broken
    row = explore(scope, Tally(), out_dir=tmp_path)
    assert [broken.symmetry for broken in row.broken] == [symmetry], row.row()
    assert f"symmetry broken ({symmetry})" in row.row()
    # Searched again without that symmetry, the rule is stepped and breaks its invariant.
    assert symmetry not in row.symmetries
    assert row.violation is not None and row.violation.invariant == invariant, row.row()
    assert not row.complete


def test_the_saved_traces_show_the_break_and_replay(monkeypatch, tmp_path):
    monkeypatch.setattr(properties.budget.copies, "RunProgressBudget", _one_lane_forgets("workspace"))
    scope = _scope(2, 2)
    broken = explore(scope, Tally(), out_dir=tmp_path).broken[0]
    kept, image = (load_trace(path) for path in broken.files)
    assert len(kept.events) == len(image.events) == broken.depth >= 1
    # The image is the kept trace with the lanes swapped: the one the search never ran.
    assert [getattr(event, "lane", None) for event in image.events] == [
        {"workspace": "extension", "extension": "workspace"}.get(getattr(event, "lane", None)) for event in kept.events
    ]
    # With the planted rule, the image side departs from the reference and the kept side does not.
    assert first_violation(kept.events, scope.limits, "B1") is None
    assert first_violation(image.events, scope.limits, "B1") is not None
    # Each file replays with the project's replay tool (here on the real guard, where both hold).
    for path in broken.files:
        done = subprocess.run([sys.executable, "-m", "properties.replay", str(path)], cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "symmetry broken (lanes" in done.stdout or "symmetry broken (lanes" in load_trace(path).origin


def test_the_same_rule_in_the_kept_lane_is_reported_the_same_way(monkeypatch, tmp_path):
    monkeypatch.setattr(properties.budget.copies, "RunProgressBudget", _one_lane_forgets("extension"))
    row = explore(_scope(2, 2), Tally(), out_dir=tmp_path)
    assert [broken.symmetry for broken in row.broken] == ["lanes"]
    assert row.violation is not None and row.violation.invariant == "B1"


def _lane_sighted(invariant):
    """An invariant that sees only the extension lane: exercised on no workspace step (the catalogue, not the guard)."""

    def check(step):
        exercised, problem = invariant.check(step)
        return exercised and getattr(step.event, "lane", None) != "workspace", problem

    return attrs.evolve(invariant, check=check)


def test_an_asymmetric_catalogue_breaks_the_symmetry_and_a_scope_cut_short_is_not_proved(monkeypatch, tmp_path):
    edge = tuple(_lane_sighted(invariant) if invariant.id == "B1" else invariant for invariant in explorer.EDGE_INVARIANTS)
    # Read by the batched expander and by the plain model's step.
    monkeypatch.setattr(explorer.expander, "EDGE_INVARIANTS", edge)
    monkeypatch.setattr(explorer.model, "EDGE_INVARIANTS", edge)
    scope = _scope(2, 2)
    row = explore(scope, Tally(), out_dir=tmp_path)
    assert [(b.symmetry, b.where) for b in row.broken] == [("lanes", "the catalogue's judgement")]
    # Nothing is violated: without the lane symmetry the scope is proved, and says what it merged by.
    assert row.complete and row.violation is None
    assert row.symmetries == ("kinds",)
    result = explorer.ExplorerResult((row,))
    assert any("without lanes" in line for line in result.proved()), result.proved()
    # The same scope searched again within too few states is cut short, never proved.
    small = explore(scope, Tally(), max_states=20, out_dir=tmp_path)
    assert small.broken and not small.complete and not small.finished
    assert explorer.ExplorerResult((small,)).proved() == []
    assert not explorer.ExplorerResult((small,)).ok


def test_the_real_guard_keeps_both_symmetries_on_the_quick_set(tmp_path):
    tally = Tally()
    result = run_explorer(True, tally, tmp_path, configs=explorer.configurations("quick")[:2])
    for row in result.rows:
        assert row.broken == () and row.symmetries == ("lanes", "kinds") and row.verified, row.row()
        assert "symmetries lanes and kinds checked on every edge" in row.row()
    assert result.ok


def test_the_checks_count_nothing_the_search_does_not(tmp_path):
    """Checked steps and states are the search's own: the permuted steps are judged aside."""
    scope = explorer.configurations("quick")[2]
    counts = {}
    for verify in (True, False):
        tally = Tally()
        row = explore(scope, tally, canon=attrs.evolve(explorer.canon_for(scope), verify=verify))
        counts[verify] = (row.states, row.edges, tally.steps, dict(tally.checked), dict(tally.exercised))
    assert counts[True] == counts[False]


def test_the_verdict_keeps_each_break_and_its_traces_when_configurations_run_side_by_side(monkeypatch, tmp_path):
    """Side by side each configuration saves into a staging folder the driver removes: the breaks' traces are kept."""
    from properties.budget import drivers
    from properties.subject import DriverRequest

    monkeypatch.chdir(tmp_path)
    # The children fork from here, so they see the planted rule.
    monkeypatch.setattr(properties.budget.copies, "RunProgressBudget", _one_lane_forgets("workspace"))
    result = drivers.run_explorer_driver(DriverRequest(seed=1, mode="default", profile="dev", options={"explorer_seconds": 300.0}))
    assert result.configurations, result.status
    for config in result.configurations:
        assert len(config["symmetry_broken"]) == 1 and "symmetry broken: lanes" in config["symmetry_broken"][0], config
        assert config["symmetries"] == ["kinds"]
    saved = {path.name for path in (tmp_path / "counterexamples").iterdir()}
    images = {name for name in saved if name.startswith("explorer-symmetry-lanes-image-")}
    assert images, saved
    for config in result.configurations:
        # Each row names a file that is there to replay.
        named = config["symmetry_broken"][0].rsplit("replay: python -m properties.replay ", 1)[1]
        assert Path(named).is_file(), named
