"""Edges of guard/ that the seeds' tables do not reach but a mutation run showed untested.

Each expectation is written from the spec: ``budget.md`` (canonical JSON
fingerprint, limits as positive integers) and ``classifiers.md`` (path forms
for ``binds_new_project``).
"""

from __future__ import annotations

import pytest

from guard.budget import RunProgressBudget, fingerprint
from guard.limits import Limits
from guard.playground import RoutingState, binds_new_project


def test_fingerprint_is_canonical_json_with_sorted_keys_and_unescaped_text() -> None:
    # budget.md: the canonical JSON of [tool, params], object keys sorted at every depth.
    assert fingerprint("read", {"b": 1, "a": {"z": "é", "y": [2, 1]}}) == '["read",{"a":{"y":[2,1],"z":"é"},"b":1}]'
    assert fingerprint("read", None) == '["read",null]'


def test_identical_non_ascii_successes_count_as_one() -> None:
    budget = RunProgressBudget()
    for call in ("a", "b", "c"):
        budget.observe_result(call, "read", {"path": "café.txt"}, False)
    assert list(budget.successes) == ['["read",{"path":"café.txt"}]']
    assert budget.successes['["read",{"path":"café.txt"}]'] == 3


def test_params_that_are_not_json_still_get_a_fingerprint() -> None:
    # A host may hand over params JSON cannot encode; the budget must account the receipt, not raise.
    budget = RunProgressBudget()
    budget.observe_result("a", "read", {"tags": frozenset({"x"})}, False)
    budget.observe_result("b", "read", {"tags": frozenset({"x"})}, False)
    assert len(budget.successes) == 1 and next(iter(budget.successes.values())) == 2
    assert budget.rounds == 0 and budget.consecutive == 0


@pytest.mark.parametrize("value", [0, -1, 1.5, "4", True, None])
def test_limits_must_be_positive_integers(value: object) -> None:
    with pytest.raises(ValueError, match=r"^consecutive_failures must be a positive integer, got "):
        Limits(consecutive_failures=value)


def test_limits_accept_one() -> None:
    assert Limits(total_failures=1).total_failures == 1


def _binds(path: str, root: str | None = None) -> bool:
    return binds_new_project("write", {"path": path, "content": "x"}, RoutingState(), root=root)


@pytest.mark.parametrize("root", ["/home/u/ws", "/home/u/ws/", "/home/u/ws//"])
def test_a_configured_root_is_stripped_with_or_without_trailing_slashes(root: str) -> None:
    assert _binds("/home/u/ws/Playground/photo-renamer/rename_photos.py", root=root)


def test_a_root_ending_in_a_letter_keeps_it() -> None:
    assert _binds("/srv/appX/Playground/photo-renamer/rename_photos.py", root="/srv/appX")
    assert not _binds("/srv/app/Playground/photo-renamer/rename_photos.py", root="/srv/appX")


@pytest.mark.parametrize("name", ["con", "CON.txt", "con.txt.bak", "lpt1.log", "nul.tar.gz"])
def test_windows_device_names_are_refused_whatever_follows_the_first_dot(name: str) -> None:
    assert not _binds(f"Playground/photo-renamer/{name}")


def test_a_device_name_inside_a_longer_name_is_fine() -> None:
    assert _binds("Playground/photo-renamer/console.txt.bak")
