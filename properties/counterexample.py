"""What every subject's counterexample shares: where it is saved, how its file is named, how it is shrunk.

A subject's own counterexample (``properties/<subject>/counterexample.py``)
renders its failure and writes its own file format; the core only fixes the
folder, the naming rule and the shrinking loop, so that counterexamples of
every subject look alike and none overwrites another.

File names. Each counterexample gets its own file, led by what the subject
chooses (the budget none, its names are pinned in ``tests/regressions/``;
another subject its own name), then the driver, the worker (``A``/``B`` for the two bulk
processes), the invariant, the number of steps and a short hash of the
content (``bulk-A-B11-2steps-3f9c21ab.json``): two workers, or two runs,
never overwrite each other's file, and the same counterexample found twice
lands in the same file rather than in two.
"""

from __future__ import annotations

import hashlib
import re
from typing import Callable, Sequence, TypeVar

from pathlib import Path

DEFAULT_DIR = Path("counterexamples")

Item = TypeVar("Item")


def slug(text: str) -> str:
    """``text`` with every run of characters other than letters and digits made one dash."""
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-")


def file_stem(parts: Sequence[str], content: str) -> str:
    """The parts that are not empty, slugged, then the first 8 hex digits of ``content``'s SHA-256, joined by dashes."""
    digest = hashlib.sha256(content.encode("utf-8")).hexdigest()[:8]
    return "-".join([slug(part) for part in parts if slug(part)] + [digest])


def shrink(items: Sequence[Item], still_fails: Callable[[list[Item]], bool]) -> list[Item]:
    """Delete items (halves first, then ever smaller pieces down to single ones) while ``still_fails``; deterministic.

    The caller decides what failing means (the same invariant still broken); the result is never empty."""
    current = list(items)
    chunk = max(1, len(current) // 2)
    while chunk >= 1:
        index = 0
        while index < len(current):
            candidate = current[:index] + current[index + chunk:]
            if candidate and still_fails(candidate):
                current = candidate
            else:
                index += chunk
        chunk //= 2
    return current
