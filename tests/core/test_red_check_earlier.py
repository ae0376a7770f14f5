"""The red check's earlier behaviours are real modules (``mutations/earlier/``): built against the real tree here,
and put back in a small scratch copy the way the red check does it.

Each expected value comes from the spec of the earlier behaviour (``mutations.red_check``'s docstring and
``shared/spec/budget.md``'s earlier rules), not from the modules under test.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import guard.budget
import guard.navigation
import reference.budget
import reference.navigation
from mutations import red_check
from mutations.earlier import budget as earlier_budget
from mutations.earlier import lookup as earlier_lookup
from mutations.earlier import navigation as earlier_navigation
from properties.paths import ROOT


def test_the_earlier_budget_ignores_every_seed_and_keeps_the_earlier_fuse() -> None:
    built = earlier_budget.earlier(vars(guard.budget), reference.budget)
    # It takes the replaced class's place, so pickling and repr find it where production's was.
    assert (built.__module__, built.__qualname__) == ("guard.budget", "RunProgressBudget")
    budget = built()
    assert budget.pending_correction is None and budget.correct_fuse(True) is False
    # The earlier fuse: four failures in a row stop the run, and failure_ends says so one failure ahead.
    for number in range(3):
        assert not budget.failure_ends()
        budget.observe_result(f"c{number}", "shell", {"n": number}, True, correctable=True, empty_lookup=True)
    assert budget.failure_ends() and not budget.terminal
    budget.observe_result("c3", "shell", {"n": 3}, True)
    assert budget.terminal


def test_the_earlier_lookup_counts_every_non_zero_exit_as_a_failure() -> None:
    found_nothing = earlier_lookup.earlier({}, None)
    assert found_nothing("grep -rn needle src", 1, "") is False


def test_the_earlier_navigation_keeps_the_production_signature() -> None:
    built = earlier_navigation.earlier(vars(guard.navigation), reference.navigation)
    assert (built.__module__, built.__qualname__) == ("guard.navigation", "navigate")
    with pytest.raises(ValueError):
        earlier_navigation.earlier(vars(guard.navigation), None)


CHECK = {
    # What each variant's copy must show, and what the unchanged copy shows instead (production's behaviour).
    "earlier-budget": ("import guard.budget as b; print(b.RunProgressBudget.__mro__[1].__name__, "
                       "b.RunProgressBudget.__module__)"),
    "earlier-lookup": "import guard.lookup as l; print(l.lookup_found_nothing('grep -rn needle src', 1, ''))",
    "earlier-navigation": "import guard.navigation as n; print(n.navigate.__qualname__, n.navigate.__code__.co_filename.endswith('red_check_earlier.py'))",
}
EXPECTED = {"earlier-budget": "ReferenceBudget guard.budget", "earlier-lookup": "False", "earlier-navigation": "navigate True"}


@pytest.mark.parametrize("variant", red_check.VARIANTS, ids=lambda variant: variant.name)
def test_put_back_rebinds_the_definition_in_a_copy(variant: red_check.EarlierBehaviour, tmp_path: Path) -> None:
    copy = tmp_path / "main"
    for name in ("guard", "reference", "mutations/earlier"):
        shutil.copytree(ROOT / name, copy / name, ignore=shutil.ignore_patterns("__pycache__"))
    env = {"PYTHONPATH": str(copy), "PYTHONDONTWRITEBYTECODE": "1"}
    before = subprocess.run([sys.executable, "-c", CHECK[variant.name]], cwd=copy, env=env, capture_output=True, text=True)
    red_check.put_back(copy, variant)
    after = subprocess.run([sys.executable, "-c", CHECK[variant.name]], cwd=copy, env=env, capture_output=True, text=True)
    assert after.returncode == 0, after.stderr
    assert after.stdout.strip() == EXPECTED[variant.name]
    assert before.stdout.strip() != EXPECTED[variant.name], before.stderr


def test_a_missing_target_is_a_red_check_error(tmp_path: Path) -> None:
    (tmp_path / "guard").mkdir()
    (tmp_path / "guard" / "lookup.py").write_text("def other():\n    return 1\n", encoding="utf-8")
    lookup = next(variant for variant in red_check.VARIANTS if variant.name == "earlier-lookup")
    with pytest.raises(red_check.RedCheckError, match="lookup_found_nothing not found"):
        red_check.put_back(tmp_path, lookup)
