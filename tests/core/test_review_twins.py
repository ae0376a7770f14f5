"""Which mutant at BASE is the same mutation as a survivor at HEAD (``mutations.review.pair_twins``, issue 20).

A twin is the same unit mutated the same way; line numbers and mutmut's serial numbers move with any edit
above the mutated text, so neither may decide. These records are built by hand, as ``mutmut_layer`` fills them.
"""

from __future__ import annotations

from mutations.mutmut_layer import Mutant
from mutations.review import pair_twins


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
