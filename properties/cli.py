"""Argument checks shared by the project's command lines (``python -m properties``, ``python -m mutations``)."""

from __future__ import annotations

import argparse
from typing import Callable


def whole_number(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse ``type`` accepting a decimal integer in ``[low, high]``; anything else is a one-line error."""
    span = f"an integer from {low} to {high}" if high is not None else (
        "a non-negative integer" if low == 0 else "a positive integer" if low == 1 else f"an integer >= {low}"
    )

    def parse(text: str) -> int:
        try:
            value = int(text, 10)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {span}, got {text!r}") from None
        if value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"expected {span}, got {text!r}")
        return value

    return parse


def positive_seconds(text: str) -> float:
    """An argparse ``type`` accepting a positive, finite number of seconds; anything else is a one-line error."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return value
