"""The review's mutation in stages (``mutations.review.mutate_changed``, issue 20): which test files the first
stages see and in which order, how the copy's configuration is rewritten for mutmut, how stage 0 kills without
mutmut's statistics, and how the stages' verdicts make one.

Stage 0 runs here on a real copy of this project (``mutations.scratch.make``) with mutmut's real mutants of
``lane_of``; the mutmut stages over a real copy run in ``test_review.py``'s survivor scenarios, and the records
given to ``combine`` are built by hand, as ``mutmut_layer`` fills them.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

import pytest

from mutations import scratch
from mutations.equivalents import Equivalent
from mutations.mutmut_layer import (
    EQUIVALENT, KILLED, NOT_CHECKED, SURVIVED, Mutant, MutmutResult, combine, ignored_tests, kill_near,
    mutmut_pytest_args, restrict_tests,
)
from mutations.review import nearby_tests, ordered_nearby
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
        "listed equivalent is now killed by tests/budget/test_a.py::test_b: guard.budget.x_lane_of__mutmut_3 "
        "(`x` -> `y`); remove it from "
        "mutations/equivalents.toml"]
    assert done.phases == {"stats (nearby tests)": 10.0, "mutants (nearby tests)": 1.0, "stats": 30.0, "mutants": 2.0}
    assert done.run_ok and done.wall_seconds == 43.0 and done.tested_this_run == 6


def test_one_stage_that_killed_everything_is_its_own_result() -> None:
    first = _result([_mutant(1, KILLED, killer="t::a"), _mutant(2, KILLED, killer="t::b")], {"stats": 5.0})
    done = combine(first, {m.name for m in first.mutants}, None, [], lambda _name: True)
    assert [m.status for m in done.mutants] == [KILLED, KILLED]
    assert done.failures == [] and done.phases == {"stats (nearby tests)": 5.0}


def test_stage_zero_runs_the_files_naming_a_changed_function_first_smallest_first(tmp_path: Path) -> None:
    root = _tree(tmp_path, {
        "tests/budget/test_big_naming.py": "from guard.budget import lane_of\n" + "# padding\n" * 50,
        "tests/budget/test_small_naming.py": "from guard.budget import lane_of\n",
        "tests/budget/test_other.py": "import guard.budget\n",
        "tests/budget/test_prefix.py": "from guard.budget import lane_of_x\n",  # a longer name is not the name
    })
    tests = ["tests/budget/test_big_naming.py", "tests/budget/test_other.py", "tests/budget/test_prefix.py",
             "tests/budget/test_small_naming.py"]
    assert ordered_nearby(root, tests, {"lane_of"}) == [
        "tests/budget/test_small_naming.py", "tests/budget/test_big_naming.py", "tests/budget/test_other.py",
        "tests/budget/test_prefix.py"]
    # A method is named by its last part; a class or module body names no function, so size alone orders.
    assert ordered_nearby(root, tests, {"Budget.lane_of"})[0] == "tests/budget/test_small_naming.py"
    assert ordered_nearby(root, tests, {"<module>"}) == sorted(tests, key=lambda t: ((root / t).stat().st_size, t))
    assert ordered_nearby(root, tests, {"Limits.<body>"}) == ordered_nearby(root, tests, {"<module>"})
    assert mutmut_pytest_args(root) == ["-q", "--ignore=tests/core/test_skipped.py", "--ignore=tests/slow/"]


def _lane_of(name: str) -> bool:
    return name.startswith("guard.budget.x_lane_of__mutmut_")


@pytest.mark.slow
@pytest.mark.skipif("MUTANT_UNDER_TEST" in os.environ,
                    reason="runs stage 0 on a copy of its own, never the mutant (its guard/ would be mutmut's rewrite)")
def test_stage_zero_kills_only_by_a_test_that_passes_without_the_mutant(tmp_path: Path) -> None:
    """mutmut's real mutants of ``lane_of`` on a copy of this project: killed by the budget's own tests, each
    killer named and passing with no mutant; a test that fails anyway kills nothing; a mutant no given test
    fails ends the stage, leaving it and the rest to mutmut."""
    copy = scratch.make(ROOT, tmp_path)
    near = ["tests/budget/test_budget_lookups.py", "tests/budget/test_budget_basics.py"]
    done = kill_near(copy, 1, _lane_of, near, tmp_path / "reports")
    assert done.run_ok and len(done.mutants) >= 2, done.run_message
    assert [m.status for m in done.mutants] == [KILLED] * len(done.mutants)
    assert all(m.killer and m.killer.split("::")[0] in near for m in done.mutants), [m.killer for m in done.mutants]
    assert all(m.diff and m.one_line for m in done.mutants)
    assert set(done.phases) == {"generate", "one collection, forked per run", "mutants", "killers again without a mutant"}
    # The runs were forked from one collection of the given files (the warm server), not started cold.
    assert all((tmp_path / "reports" / "warm" / m.name / "pytest-outcome.json").is_file() for m in done.mutants)
    assert all(m.judged_by.startswith("review stage 0") for m in done.mutants)
    # Each mutant's pytest output is kept beside the stage's records, naming its killer's failure.
    assert all(m.killer and m.killer.split("::")[-1].split("[")[0] in
               (tmp_path / "reports" / "logs" / f"{m.name}.log").read_text(encoding="utf-8") for m in done.mutants)

    # A test that fails with or without a mutant is first in line: it fails for every mutant, so it is every
    # mutant's first failure, and run again without one it fails too, so it kills none of them.
    red = "tests/budget/test_always_red.py"
    (copy / red).write_text("from guard.budget import lane_of\n\n\ndef test_red() -> None:\n"
                            "    assert lane_of('no lane') == 'a lane'\n", encoding="utf-8")
    done = kill_near(copy, 1, _lane_of, [red, *near], tmp_path / "reports")
    assert done.run_ok and [m.status for m in done.mutants] == [NOT_CHECKED] * len(done.mutants)
    assert all(m.killer is None and m.exit_code is None for m in done.mutants)

    # Tests that never reach lane_of: the first mutant passes them all, a survivor of these tests (the whole
    # suite is its judge, in stage 2); the second passes them too and ends the stage, left to mutmut with the rest.
    idle = "tests/budget/test_idle.py"
    (copy / idle).write_text("import guard.budget\n\n\ndef test_idle() -> None:\n    assert guard.budget\n",
                             encoding="utf-8")
    done = kill_near(copy, 1, _lane_of, [idle], tmp_path / "reports")
    assert done.run_ok and [m.status for m in done.mutants] == [SURVIVED] + [NOT_CHECKED] * (len(done.mutants) - 1)
    assert done.mutants[0].exit_code == 0 and done.mutants[0].killer is None and done.tested_this_run == 1


@pytest.mark.slow
@pytest.mark.skipif("MUTANT_UNDER_TEST" in os.environ,
                    reason="runs mutants on a copy of its own, never the mutant (its guard/ would be mutmut's rewrite)")
def test_a_listed_equivalents_kill_counts_only_when_its_test_fails_again_alone(tmp_path: Path) -> None:
    """``recheck_equivalent_kills`` on mutmut's real mutants of ``lane_of`` in a copy: a kill by a test that fails
    again with the mutant active stands (and the session's problem names that test); a kill recorded by a test
    that passes when re-run alone (a flaky kill) leaves the mutant a survivor, so its listing holds, and the
    unrepeated kill is named in the mutant's problem."""
    from mutations.mutmut_layer import UNREPEATED_KILL, judge_equivalents, recheck_equivalent_kills

    copy = scratch.make(ROOT, tmp_path)
    near = ["tests/budget/test_budget_lookups.py", "tests/budget/test_budget_basics.py"]
    done = kill_near(copy, 1, _lane_of, near, tmp_path / "reports")
    assert done.run_ok and len(done.mutants) >= 2 and all(m.status == KILLED and m.killer for m in done.mutants)
    real, flaky = done.mutants[0], done.mutants[1]
    idle = "tests/budget/test_idle.py"
    (copy / idle).write_text("import guard.budget\n\n\ndef test_idle() -> None:\n    assert guard.budget\n",
                             encoding="utf-8")
    (copy / "mutants" / idle).write_text((copy / idle).read_text(encoding="utf-8"), encoding="utf-8")
    flaky.killer = f"{idle}::test_idle"
    listed = [Equivalent(m.name, m.one_line, "claimed equivalent") for m in (real, flaky)]
    recheck_equivalent_kills(copy, [real, flaky], listed)
    assert real.status == KILLED and real.killer and real.killer.split("::")[0] in near
    assert flaky.status == SURVIVED and flaky.killer is None
    assert flaky.problem and UNREPEATED_KILL in flaky.problem and f"{idle}::test_idle" in flaky.problem
    problems = judge_equivalents([real, flaky], listed)
    assert flaky.status == EQUIVALENT
    assert problems == [f"listed equivalent is now killed by {real.killer}, again when re-run alone: {real.name} "
                        f"({real.one_line}); remove it from mutations/equivalents.toml"]
