"""The review's mutation in two stages (``mutations.review.mutate_changed``, issue 20): which test files the first
stage gives mutmut, how the copy's configuration is rewritten for it, and how the two stages' verdicts make one.

The stages themselves (mutmut over a real copy) run in ``test_review.py``'s survivor scenarios; these records are
built by hand, as ``mutmut_layer`` fills them.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from mutations.equivalents import Equivalent
from mutations.mutmut_layer import (
    EQUIVALENT, KILLED, SURVIVED, Mutant, MutmutResult, combine, ignored_tests, restrict_tests,
)
from mutations.review import nearby_tests
from properties.paths import ROOT

PYPROJECT = """[project]
name = "x"

[tool.mutmut]
source_paths = ["guard/"]
pytest_add_cli_args = ["-q", "--ignore=tests/core/test_skipped.py", "--ignore=tests/slow/"]
pytest_add_cli_args_test_selection = ["tests/"]
timeout_multiplier = 10.0
"""


def _tree(root: Path, files: dict[str, str]) -> Path:
    (root / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def test_nearby_tests_are_the_files_importing_a_changed_module_in_any_spelling(tmp_path: Path) -> None:
    root = _tree(tmp_path, {
        "tests/budget/test_from.py": "from guard.budget import lane_of\n",
        "tests/budget/test_import.py": "import os\nimport guard.budget\n",
        "tests/hooks/test_package.py": "from guard import hooks, budget\n",
        "tests/hooks/test_other_module.py": "from guard.hooks import HookGuard\nfrom guard.budgets import x\n",
        "tests/core/test_in_text.py": 'TEXT = "from guard.budget import lane_of"  # a string, not an import line\n',
        "tests/core/test_skipped.py": "from guard.budget import lane_of\n",
        "tests/slow/test_deep.py": "from guard.budget import lane_of\n",
        "tests/budget/helpers.py": "from guard.budget import lane_of\n",
    })
    assert ignored_tests(root) == {"tests/core/test_skipped.py", "tests/slow/"}
    assert nearby_tests(root, {"guard.budget"}) == [
        "tests/budget/test_from.py", "tests/budget/test_import.py", "tests/hooks/test_package.py"]
    assert nearby_tests(root, {"guard.hooks"}) == ["tests/hooks/test_other_module.py", "tests/hooks/test_package.py"]
    assert nearby_tests(root, set()) == []


def test_the_real_suite_has_nearby_tests_for_the_budget_and_leaves_out_what_mutmut_ignores() -> None:
    near = nearby_tests(ROOT, {"guard.budget"})
    assert "tests/budget/test_budget_basics.py" in near
    assert "tests/core/test_red_check_earlier.py" not in near  # ignored under mutation (pyproject.toml)
    assert all(name.startswith("tests/") and Path(name).name.startswith("test_") for name in near)


def test_restricting_rewrites_only_the_selection_and_reads_it_back(tmp_path: Path) -> None:
    root = _tree(tmp_path, {})
    assert restrict_tests(root, ["tests/budget/test_from.py", "tests/hooks/test_package.py"]) == ""
    config = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mutmut"]
    assert config["pytest_add_cli_args_test_selection"] == ["tests/budget/test_from.py", "tests/hooks/test_package.py"]
    assert config["timeout_multiplier"] == 10.0 and config["source_paths"] == ["guard/"]


def test_a_configuration_without_one_selection_line_is_left_alone_and_named(tmp_path: Path) -> None:
    root = tmp_path
    text = PYPROJECT.replace('pytest_add_cli_args_test_selection = ["tests/"]\n', "")
    (root / "pyproject.toml").write_text(text, encoding="utf-8")
    problem = restrict_tests(root, ["tests/x/test_y.py"])
    assert "pytest_add_cli_args_test_selection" in problem
    assert (root / "pyproject.toml").read_text(encoding="utf-8") == text


def _mutant(serial: int, status: str, one_line: str = "`a` -> `b`", killer: str | None = None) -> Mutant:
    return Mutant(name=f"guard.budget.x_lane_of__mutmut_{serial}", path="guard/budget.py",
                  exit_code={KILLED: 1, SURVIVED: 0}.get(status), status=status, one_line=one_line, killer=killer)


def _result(mutants: list[Mutant], phases: dict[str, float]) -> MutmutResult:
    return MutmutResult(mutants=mutants, run_ok=True, run_message="ok", wall_seconds=sum(phases.values()),
                        tested_this_run=len(mutants), mutmut_rate="1.00", equivalent_problems=[], sources={},
                        phases=phases)


def test_two_stages_make_one_result_in_the_first_stages_order_with_equivalents_judged_once() -> None:
    first = _result([_mutant(1, KILLED, killer="tests/budget/test_a.py::test_a"), _mutant(2, SURVIVED),
                     _mutant(3, KILLED, "`x` -> `y`", killer="tests/budget/test_a.py::test_b"), _mutant(4, SURVIVED)],
                    {"stats": 10.0, "mutants": 1.0})
    # The second stage, over the whole suite, tested again what the first did not kill: 4 dies there, 2 survives.
    second = _result([_mutant(2, SURVIVED), _mutant(4, KILLED, killer="tests/core/test_far.py::test_c")],
                     {"stats": 30.0, "mutants": 2.0})
    listed = [Equivalent("guard.budget.x_lane_of__mutmut_2", "`a` -> `b`", "the same value either way"),
              Equivalent("guard.budget.x_lane_of__mutmut_3", "`x` -> `y`", "wrongly listed"),
              Equivalent("guard.hooks.x_other__mutmut_1", "`p` -> `q`", "another unit, not the review's")]
    done = combine(first, {"guard.budget.x_lane_of__mutmut_1", "guard.budget.x_lane_of__mutmut_3"}, second, listed,
                   lambda name: name.startswith("guard.budget.x_lane_of__"))
    assert [(m.name.rpartition("_")[2], m.status, m.killer) for m in done.mutants] == [
        ("1", KILLED, "tests/budget/test_a.py::test_a"), ("2", EQUIVALENT, None),
        ("3", KILLED, "tests/budget/test_a.py::test_b"), ("4", KILLED, "tests/core/test_far.py::test_c")]
    # A listed equivalent the nearby tests killed is a problem, as in one run; the other unit's entry is not judged.
    assert done.equivalent_problems == [
        "listed equivalent is now killed: guard.budget.x_lane_of__mutmut_3 (`x` -> `y`); remove it from "
        "mutations/equivalents.toml"]
    assert done.phases == {"stats (nearby tests)": 10.0, "mutants (nearby tests)": 1.0, "stats": 30.0, "mutants": 2.0}
    assert done.run_ok and done.wall_seconds == 43.0 and done.tested_this_run == 6


def test_one_stage_that_killed_everything_is_its_own_result() -> None:
    first = _result([_mutant(1, KILLED, killer="t::a"), _mutant(2, KILLED, killer="t::b")], {"stats": 5.0})
    done = combine(first, {m.name for m in first.mutants}, None, [], lambda _name: True)
    assert [m.status for m in done.mutants] == [KILLED, KILLED]
    assert done.failures == [] and done.phases == {"stats (nearby tests)": 5.0}
