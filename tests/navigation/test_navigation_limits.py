"""The navigation limits record: the seed's numbers by default, and only positive whole numbers accepted.

A limit of 0 or less would end navigation before it starts (or never reserve time); a float or a bool would
slip through arithmetic the controller does in whole milliseconds. Each refusal names the field.
"""

from __future__ import annotations

import attrs
import pytest

from guard.navigation_limits import NavigationLimits

FIELDS = [field.name for field in attrs.fields(NavigationLimits)]


def test_the_defaults_are_the_seeds_numbers() -> None:
    limits = NavigationLimits()
    # Seed 003: 24 tool calls, 3 results without progress, a reserve of at most 30 s and a quarter, 32,000 characters.
    assert (limits.tool_calls, limits.no_progress, limits.reserve_ms, limits.reserve_divisor, limits.evidence_chars) == (
        24, 3, 30_000, 4, 32_000)


@pytest.mark.parametrize("name", FIELDS)
def test_one_is_the_smallest_accepted_value(name: str) -> None:
    assert getattr(NavigationLimits(**{name: 1}), name) == 1


@pytest.mark.parametrize("name", FIELDS)
@pytest.mark.parametrize("value", [0, -1])
def test_zero_and_negative_whole_numbers_are_refused_naming_the_field(name: str, value: int) -> None:
    with pytest.raises(ValueError, match=rf"^{name} must be a positive integer, got {value}$"):
        NavigationLimits(**{name: value})


@pytest.mark.parametrize("name", FIELDS)
@pytest.mark.parametrize("value", [2.0, True, "3"])
def test_values_that_are_not_whole_numbers_are_refused(name: str, value: object) -> None:
    with pytest.raises(ValueError, match=rf"^{name} must be a positive integer"):
        NavigationLimits(**{name: value})
