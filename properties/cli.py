"""What the project's command lines share (``python -m properties``, ``python -m mutations`` and the others):
the one-line parser and its error, and the argument checks."""

from __future__ import annotations

import argparse
from typing import Callable, NoReturn


class UsageError(Exception):
    """An error the user caused (a bad command line, a bad BASE, a file that cannot be read): its command
    prints it on one line, naming what is wrong, and exits with status 2 (never a traceback or a usage dump)."""


class OneLineParser(argparse.ArgumentParser):
    """``argparse`` that raises ``UsageError`` with its one-line message instead of printing its usage and exiting.

    Every command of the project parses with it, so that a bad option reads the same everywhere: the
    command's name, the message, exit status 2 (the caller catches ``UsageError`` and prints it)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


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
