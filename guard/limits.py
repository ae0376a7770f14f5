"""The production budget's limits, one frozen value.

Seeds 000, 001 and 002 change none of the four run-progress limits; they add
two allowances of their own. The defaults are the seeds' numbers. The limits
are a parameter rather than module constants read inside the methods so that
the exhaustive explorer can prove the invariants over every reachable state
with scaled-down limits (see ``properties/budget/explorer/``).
"""

from __future__ import annotations

import attrs


def _positive(_instance: object, attribute: "attrs.Attribute[int]", value: int) -> None:
    if type(value) is not int or value < 1:
        raise ValueError(f"{attribute.name} must be a positive integer, got {value!r}")


@attrs.frozen
class Limits:
    """Run-progress limits of the production budget."""

    #: The global fuse and each lane's fuse.
    consecutive_failures: int = attrs.field(default=4, validator=_positive)
    #: Every charged failure counts at once; this cap is never deferred.
    total_failures: int = attrs.field(default=12, validator=_positive)
    #: Model rounds since the last progress; one more than this stops the run.
    rounds_without_progress: int = attrs.field(default=8, validator=_positive)
    #: The same successful (tool, params) resets the rounds count at most this often.
    identical_successes: int = attrs.field(default=2, validator=_positive)
    #: Seed 001: charges that may wait one result, per run.
    corrected_attempts: int = attrs.field(default=2, validator=_positive)
    #: Seed 000: empty searches per run that are not charged.
    free_empty_lookups: int = attrs.field(default=12, validator=_positive)
    #: Call ids remembered to ignore duplicate receipts (first in, first out).
    seen_calls: int = attrs.field(default=256, validator=_positive)
    #: Success fingerprints remembered for identical-success accounting.
    successes: int = attrs.field(default=128, validator=_positive)
