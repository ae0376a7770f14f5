"""Issue 20's review scenarios (``properties.review.scenarios``) still fit the tree they are made on."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mutations import catalogue
from properties.review import scenarios

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("scenario", scenarios.ALL, ids=lambda scenario: scenario.name)
def test_each_scenario_applies_to_this_tree_exactly_once(scenario: scenarios.Scenario, tmp_path: Path) -> None:
    files = {file for step in (scenario.before, scenario) if step is not None for file, _find, _replace in step.edits}
    for file in files:
        (tmp_path / file).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ROOT / file, tmp_path / file)
    before = {file: (tmp_path / file).read_text(encoding="utf-8") for file in files}
    for step in (scenario.before, scenario):
        if step is not None:
            scenarios.apply(tmp_path, step.edits)
    assert any((tmp_path / file).read_text(encoding="utf-8") != before[file] for file in files)


def test_a_scenario_that_no_longer_fits_is_refused_naming_its_file(tmp_path: Path) -> None:
    (tmp_path / "guard").mkdir()
    (tmp_path / "guard" / "budget.py").write_text("nothing of the scenario here\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"guard/budget.py: the scenario's old text occurs 0 times"):
        scenarios.apply(tmp_path, scenarios.RULE_BUG.edits)


def test_the_rule_bug_is_the_catalogues_own_plant() -> None:
    entry = {entry.id: entry for entry in catalogue.entries()}["same-kind-twice"]
    assert scenarios.RULE_BUG.edits == tuple((entry.file, edit.find, edit.replace) for edit in entry.edits)



def test_the_bench_reviews_the_refactor_scenarios_guard_edit() -> None:
    # The bench (core) cannot import the review; the one-function change it times must stay the refactor's.
    from properties import bench

    assert bench.REVIEWED_CHANGE == next(edit for edit in scenarios.REFACTOR.edits if edit[0].startswith("guard/"))
