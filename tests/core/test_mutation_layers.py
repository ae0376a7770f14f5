"""Small pieces of `nox -s mutants`' incremental runs: what mutmut is handed, phase times, the red check's cache."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mutations import content_cache, mutmut_layer, red_check


def test_phase_seconds_run_from_one_title_to_the_next() -> None:
    marks = [("generate", 0.0), ("stats", 2.0), ("clean run", 5.0), ("mutants", 6.5)]
    assert mutmut_layer.phase_seconds(marks, 10.0) == {"generate": 2.0, "stats": 3.0, "clean run": 1.5, "mutants": 3.5}
    assert mutmut_layer.phase_seconds([], 3.0) == {}


def test_only_mutants_without_a_verdict_are_handed_to_mutmut(tmp_path: Path) -> None:
    (tmp_path / "guard").mkdir()
    (tmp_path / "guard" / "a.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    meta = tmp_path / "mutants" / "guard" / "a.py.meta"
    meta.parent.mkdir(parents=True)
    meta.write_text(json.dumps({"exit_code_by_key": {"guard.a.x_f__mutmut_1": 1, "guard.a.x_f__mutmut_2": None,
                                                     "guard.a.x_f__mutmut_3": 0}}), encoding="utf-8")
    assert mutmut_layer.pending_mutants(tmp_path) == ["guard.a.x_f__mutmut_2"]


def _project(root: Path, guard_text: str) -> None:
    (root / "guard").mkdir(parents=True, exist_ok=True)
    (root / "guard" / "budget.py").write_text(guard_text, encoding="utf-8")
    (root / "tests").mkdir(exist_ok=True)
    (root / "tests" / "test_x.py").write_text("def test_x():\n    pass\n", encoding="utf-8")


def _key(root: Path, variant: str) -> str:
    return red_check.variant_key(root, variant, content_cache.judging_sources(root, with_guard=False))


def test_a_red_outcome_is_reused_only_while_no_byte_changed(tmp_path: Path) -> None:
    _project(tmp_path, "A = 1\n")
    cache = tmp_path / "red.json"
    red = red_check.Variant("earlier-lookup", "d", ["tests/test_x.py::test_x"], "1 failed", None, 3.0)
    quiet = red_check.Variant("earlier-budget", "d", [], "0 failed", "no test fails against the earlier behaviour", 3.0)

    def keys() -> dict[str, str]:
        return {name: _key(tmp_path, name) for name in red_check.REBINDS}

    stored = content_cache.Cache.load(cache)
    red_check.keep_red(stored, keys(), [red, quiet])
    stored.save()
    reused = red_check.reused_outcomes(content_cache.Cache.load(cache), keys())
    # Only red outcomes are kept: a variant that caught nothing is always run again.
    assert list(reused) == ["earlier-lookup"] and reused["earlier-lookup"].failing == red.failing
    _project(tmp_path, "A = 2\n")  # one byte of guard/ changed
    assert red_check.reused_outcomes(content_cache.Cache.load(cache), keys()) == {}


BUDGET = """import attrs


@attrs.define
class RunProgressBudget:
    limit: int = 4

    def failure_ends(self, lane=None):
        return self.limit > 3

    def short(self): return 1


def helper():
    return RunProgressBudget()
"""


def test_a_variant_ignores_edits_to_code_its_rebinding_makes_unreachable(tmp_path: Path) -> None:
    _project(tmp_path, BUDGET)
    (tmp_path / "guard" / "lookup.py").write_text("def lookup_found_nothing(c, e, o):\n    return False\n", encoding="utf-8")
    before = {name: _key(tmp_path, name) for name in red_check.REBINDS}

    def after(edited: str) -> dict[str, bool]:
        _project(tmp_path, edited)
        return {name: _key(tmp_path, name) == before[name] for name in red_check.REBINDS}

    # A method's body: earlier-budget never runs it (its RunProgressBudget is the adapter); the others do.
    assert after(BUDGET.replace("self.limit > 3", "self.limit >= 3")) == {
        "earlier-budget": True, "earlier-lookup": False, "earlier-navigation": False}
    # What runs at import stays in every key: a field default, a decorator, a one-line method, a later function.
    for old, new in (("limit: int = 4", "limit: int = 5"), ("@attrs.define", "@attrs.define(slots=False)"),
                     ("return 1", "return 2"), ("return RunProgressBudget()", "return None")):
        assert not any(after(BUDGET.replace(old, new)).values()), old
    # A later statement naming the class could hold the original: then nothing is left out.
    holding = BUDGET + "\nORIGINAL = RunProgressBudget\n"
    _project(tmp_path, holding)
    held = _key(tmp_path, "earlier-budget")
    _project(tmp_path, holding.replace("self.limit > 3", "self.limit >= 3"))
    assert _key(tmp_path, "earlier-budget") != held


def test_dead_bodies_left_out_keeps_signatures_and_class_statements() -> None:
    kept = red_check.dead_bodies_left_out(BUDGET, "RunProgressBudget")
    assert "self.limit > 3" not in kept
    for text in ("@attrs.define", "class RunProgressBudget:", "limit: int = 4", "def failure_ends(self, lane=None):",
                 "def short(self): return 1", "return RunProgressBudget()"):
        assert text in kept, text
    assert red_check.dead_bodies_left_out("def f(:\n", "f") == "def f(:\n"
    assert red_check.dead_bodies_left_out(BUDGET, "missing") == BUDGET
    assert red_check.dead_bodies_left_out(BUDGET + "import os\n", "RunProgressBudget") == BUDGET + "import os\n"
    default = BUDGET + "\ndef later(kind=RunProgressBudget):\n    return kind\n"
    assert red_check.dead_bodies_left_out(default, "RunProgressBudget") == default


def _mutated_project(root: Path, mutant_body: str) -> list[mutmut_layer.Mutant]:
    """One function and one mutant of it, laid out as mutmut writes them (the mutated file and its line index)."""
    (root / "guard").mkdir(parents=True, exist_ok=True)
    (root / "guard" / "x.py").write_text("def f(a):\n    return a + 1\n", encoding="utf-8")
    mutated = root / "mutants" / "guard" / "x.py"
    mutated.parent.mkdir(parents=True, exist_ok=True)
    mutated.write_text(f"def x_f__mutmut_orig(a):\n    return a + 1\n\ndef x_f__mutmut_1(a):\n    {mutant_body}\n",
                       encoding="utf-8")
    (root / "mutants" / "guard" / "x.py.spans").write_text(
        json.dumps({"version": 1, "spans": {"x_f__mutmut_orig": [1, 2], "x_f__mutmut_1": [4, 5]}}), encoding="utf-8")
    return [mutmut_layer.Mutant(name="guard.x.x_f__mutmut_1", path="guard/x.py", exit_code=1, status=mutmut_layer.KILLED)]


def _described(root: Path, mutants: list[mutmut_layer.Mutant]) -> mutmut_layer.Mutant:
    mutmut_layer.write_diffs(root, mutants, {"guard/x.py": (root / "guard" / "x.py").read_text(encoding="utf-8")})
    return mutants[0]


def test_a_mutants_diff_is_read_from_mutmut_once_and_kept_under_its_functions_text(tmp_path: Path) -> None:
    pytest.importorskip("mutmut", reason="installed by nox -s tests and nox -s mutants")
    first = _described(tmp_path, _mutated_project(tmp_path, "return a - 1"))
    assert first.one_line == "`return a + 1` -> `return a - 1`"
    assert (first.line, first.start_column, first.end_column, first.replacement) == (2, 14, 15, "-")
    cache = tmp_path / "mutants" / mutmut_layer.DIFF_CACHE
    stored = json.loads(cache.read_text(encoding="utf-8"))
    assert stored["records"]["guard.x.x_f__mutmut_1"]["diff"] == first.diff
    # Same functions, same text: the stored diff is used (a marked copy shows it was read, not recomputed).
    stored["records"]["guard.x.x_f__mutmut_1"]["diff"] = first.diff.replace("a - 1", "a * 7")
    cache.write_text(json.dumps(stored), encoding="utf-8")
    assert _described(tmp_path, _mutated_project(tmp_path, "return a - 1")).one_line == "`return a + 1` -> `return a * 7`"
    # A changed mutant is read from mutmut again, whatever the cache holds.
    again = _described(tmp_path, _mutated_project(tmp_path, "return a + 2"))
    assert again.one_line == "`return a + 1` -> `return a + 2`"
    assert "a * 7" not in cache.read_text(encoding="utf-8")
