"""guard.navigation_limits: every limit is a positive int, and a bad one is named in the error.

Expected values by hand: 1 is the smallest positive integer, 0 and -1 are not,
and neither a float, a bool nor a numeric string is an int limit.
"""

from __future__ import annotations

import pytest

from guard.navigation_limits import NavigationLimits

FIELDS = ("tool_calls", "no_progress", "reserve_ms", "reserve_divisor", "evidence_chars", "slice_ms")


def test_the_defaults_are_the_seed_numbers() -> None:
    limits = NavigationLimits()
    assert (limits.tool_calls, limits.no_progress, limits.reserve_ms, limits.evidence_chars) == (24, 3, 30_000, 32_000)
    assert limits.reserve_divisor == 4


@pytest.mark.parametrize("field", FIELDS)
def test_one_is_accepted_for_every_limit(field: str) -> None:
    assert getattr(NavigationLimits(**{field: 1}), field) == 1
    assert getattr(NavigationLimits(**{field: 2}), field) == 2


@pytest.mark.parametrize("field", FIELDS)
@pytest.mark.parametrize("value", [0, -1])
def test_zero_and_negative_limits_are_refused_naming_the_field(field: str, value: int) -> None:
    with pytest.raises(ValueError) as caught:
        NavigationLimits(**{field: value})
    # One line a user can act on: the field first, then the value given.
    message = str(caught.value)
    assert message.startswith(f"{field} ") and message.endswith(repr(value)) and "\n" not in message


@pytest.mark.parametrize("field", FIELDS)
@pytest.mark.parametrize("value", [2.5, 3.0, True, "3"])
def test_a_limit_that_is_not_an_int_is_refused_even_when_positive(field: str, value: object) -> None:
    with pytest.raises(ValueError) as caught:
        NavigationLimits(**{field: value})
    # One line a user can act on: the field first, then the value given.
    message = str(caught.value)
    assert message.startswith(f"{field} ") and message.endswith(repr(value)) and "\n" not in message
