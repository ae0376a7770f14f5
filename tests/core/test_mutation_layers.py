"""Small pieces of `nox -s mutants`' incremental runs: what mutmut is handed, phase times, the red check's cache."""

from __future__ import annotations

import json
from pathlib import Path

from mutations import mutmut_layer, red_check


def test_phase_seconds_run_from_one_title_to_the_next() -> None:
    marks = [("generate", 0.0), ("stats", 2.0), ("clean run", 5.0), ("mutants", 6.5)]
    assert mutmut_layer._phase_seconds(marks, 10.0) == {"generate": 2.0, "stats": 3.0, "clean run": 1.5, "mutants": 3.5}
    assert mutmut_layer._phase_seconds([], 3.0) == {}


def test_only_mutants_without_a_verdict_are_handed_to_mutmut(tmp_path: Path) -> None:
    (tmp_path / "guard").mkdir()
    (tmp_path / "guard" / "a.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    meta = tmp_path / "mutants" / "guard" / "a.py.meta"
    meta.parent.mkdir(parents=True)
    meta.write_text(json.dumps({"exit_code_by_key": {"guard.a.x_f__mutmut_1": 1, "guard.a.x_f__mutmut_2": None,
                                                     "guard.a.x_f__mutmut_3": 0}}), encoding="utf-8")
    assert mutmut_layer._pending(tmp_path) == ["guard.a.x_f__mutmut_2"]


def _project(root: Path, guard_text: str) -> None:
    (root / "guard").mkdir(parents=True, exist_ok=True)
    (root / "guard" / "budget.py").write_text(guard_text, encoding="utf-8")
    (root / "tests").mkdir(exist_ok=True)
    (root / "tests" / "test_x.py").write_text("def test_x():\n    pass\n", encoding="utf-8")


def test_a_red_outcome_is_reused_only_while_no_byte_changed(tmp_path: Path) -> None:
    _project(tmp_path, "A = 1\n")
    cache = tmp_path / "red.json"
    red = red_check.Variant("earlier-lookup", "d", ["tests/test_x.py::test_x"], "1 failed", None, 3.0)
    quiet = red_check.Variant("earlier-budget", "d", [], "0 failed", "no test fails against the earlier behaviour", 3.0)
    key = red_check._digest(tmp_path)
    red_check._store_cache(cache, key, [red, quiet])
    reused = red_check._load_cache(cache, red_check._digest(tmp_path))
    # Only red outcomes are kept: a variant that caught nothing is always run again.
    assert list(reused) == ["earlier-lookup"] and reused["earlier-lookup"].failing == red.failing
    _project(tmp_path, "A = 2\n")  # one byte of guard/ changed
    assert red_check._load_cache(cache, red_check._digest(tmp_path)) == {}
