"""Which mutant at BASE is the same mutation as a survivor at HEAD (``mutations.review.pair_twins``, issue 20).

A twin is the same unit mutated the same way; line numbers and mutmut's serial numbers move with any edit
above the mutated text, so neither may decide. These records are built by hand, as ``mutmut_layer`` fills them;
the last two tests hand such records to the review's report (``properties.review.render.build``): which
survivors are new, which carried over, and what a red suite at HEAD reads as.
"""

from __future__ import annotations

import attrs

from mutations.mutmut_layer import Mutant, MutmutResult
from mutations.review import BaseTwins, pair_twins
from mutations.review import TestSides as Sides  # not a test class


def _mutant(function: str, serial: int, one_line: str, line: int, path: str = "guard/budget.py") -> Mutant:
    module = path.removesuffix(".py").replace("/", ".")
    return Mutant(name=f"{module}.x_{function}__mutmut_{serial}", path=path, exit_code=0, status="survived",
                  one_line=one_line, line=line)


def test_a_twin_is_the_same_change_of_the_same_function_wherever_it_moved() -> None:
    base = [_mutant("refusal_kind", 1, "`== \"any-kind\"` -> `!= \"any-kind\"`", 62),
            _mutant("refusal_kind", 2, "`\"anything\"` -> `\"XXanythingXX\"`", 63)]
    # HEAD added two docstring lines: same diffs, two lines lower, and mutmut numbered them in another order.
    head = [_mutant("refusal_kind", 7, "`\"anything\"` -> `\"XXanythingXX\"`", 65),
            _mutant("refusal_kind", 4, "`== \"any-kind\"` -> `!= \"any-kind\"`", 64)]
    assert pair_twins(head, base) == {"guard.budget.x_refusal_kind__mutmut_7": "guard.budget.x_refusal_kind__mutmut_2",
                                      "guard.budget.x_refusal_kind__mutmut_4": "guard.budget.x_refusal_kind__mutmut_1"}


def test_new_text_another_function_or_another_module_has_no_twin() -> None:
    base = [_mutant("refusal_kind", 1, "`and` -> `or`", 62)]
    head = [_mutant("refusal_kind", 1, "`or` -> `and`", 62),                       # the text is new
            _mutant("lane_of", 1, "`and` -> `or`", 62),                            # another function
            _mutant("refusal_kind", 1, "`and` -> `or`", 62, path="guard/hooks.py")]  # another module
    assert pair_twins(head, base) == {}


def test_the_same_change_twice_in_one_function_pairs_in_order_and_a_third_has_none() -> None:
    # `value` mutated to None on two lines at BASE, on three at HEAD: first with first, second with second.
    base = [_mutant("refusal_kind", 3, "`value` -> `None`", 62), _mutant("refusal_kind", 5, "`value` -> `None`", 63)]
    head = [_mutant("refusal_kind", 3, "`value` -> `None`", 62), _mutant("refusal_kind", 5, "`value` -> `None`", 63),
            _mutant("refusal_kind", 6, "`value` -> `None`", 64)]
    assert pair_twins(head, base) == {"guard.budget.x_refusal_kind__mutmut_3": "guard.budget.x_refusal_kind__mutmut_3",
                                      "guard.budget.x_refusal_kind__mutmut_5": "guard.budget.x_refusal_kind__mutmut_5"}


def _build(mutmut: MutmutResult, twins: BaseTwins | None = None) -> dict:
    from properties.review import render

    head = {"ok": True, "reasons": [], "invariants": [], "coverage": [], "drivers": []}
    return render.build(base="b" * 40, head="h" * 40, seed=1, quick=True, changed=[], drifted=[], reference_changed=False,
                        adopted=True, comparisons={}, saved=[], verdicts={"base": head, "head": head}, head_log="",
                        sides=Sides([]), mutmut=mutmut, catalogue=None, mutation_note="", timings={}, wall=1.0,
                        counts={}, twins=twins)


def _result(mutants: list[Mutant], ok: bool = True, message: str = "ok") -> MutmutResult:
    return MutmutResult(mutants=mutants, run_ok=ok, run_message=message, wall_seconds=1.0, tested_this_run=len(mutants),
                        mutmut_rate=None, equivalent_problems=[], sources={})


def test_a_red_suite_at_head_is_named_and_its_untested_mutants_are_not_survivors() -> None:
    # mutmut's statistics run failed (a test of HEAD's fails with no mutant): nothing was tested, so the review
    # says so and fails, instead of listing every mutant of the change as a survivor.
    untested = [attrs.evolve(_mutant("refusal_kind", n, f"`a{n}` -> `b{n}`", 62), status="not checked") for n in (1, 2)]
    message = "exit 1: failed to collect stats. runner returned 1 (failing without any mutant: tests/t.py::test_x)"
    data = _build(_result(untested, ok=False, message=message))
    assert data["new_survivors"] == [] and data["verdict"] == "FAIL"
    assert any("tests/t.py::test_x" in failure for failure in data["failures"])
    assert any(failure.startswith("2 mutants of the change were never tested") for failure in data["failures"])
    assert any(line.startswith("- new survivors: unknown, 2 mutants untested") for line in data["summary"])


def test_a_survivor_whose_twin_survived_at_base_is_carried_and_passes_and_a_new_one_fails() -> None:
    old = _mutant("refusal_kind", 2, "`\"anything\"` -> `None`", 64)
    new = _mutant("refusal_kind", 5, "`or` -> `and`", 62)
    twins = BaseTwins(at_base={old.name: "survived", new.name: "absent"}, twins={old.name: "guard.budget.x_refusal_kind__mutmut_1"})
    data = _build(_result([old]), twins)
    assert data["verdict"] == "PASS" and data["new_survivors"] == []
    assert [row["name"] for row in data["carried_survivors"]] == [old.name]
    data = _build(_result([old, new]), twins)
    assert data["verdict"] == "FAIL" and [row["name"] for row in data["new_survivors"]] == [new.name]
    # A twin that BASE's tests killed excuses nothing: the change let that mutation through.
    killed = BaseTwins(at_base={old.name: "killed"}, twins={old.name: "guard.budget.x_refusal_kind__mutmut_1"})
    assert [row["name"] for row in _build(_result([old]), killed)["new_survivors"]] == [old.name]
    # And where BASE could not be judged, every survivor stays new.
    broken = BaseTwins(at_base={}, twins={}, problem="mutmut at BASE failed")
    assert [row["name"] for row in _build(_result([old]), broken)["new_survivors"]] == [old.name]
