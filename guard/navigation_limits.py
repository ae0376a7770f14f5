"""The navigation budget's limits (seed 003), one frozen value.

The defaults are the seed's numbers. They are a parameter rather than
constants read inside the controller so that tests and the property drivers
judge them from the spec, and the mutation catalogue can move each one.
"""

from __future__ import annotations

import attrs


def _positive(_instance: object, attribute: "attrs.Attribute[int]", value: int) -> None:
    if type(value) is not int or value < 1:
        raise ValueError(f"{attribute.name} must be a positive integer, got {value!r}")


@attrs.frozen
class NavigationLimits:
    """Bounds on a delegated retrieval child (times in milliseconds)."""

    #: Seed 003: model-issued tool calls after which navigation ends (else 71 and 87 tool turns, no answer).
    tool_calls: int = attrs.field(default=24, validator=_positive)
    #: Seed 003: consecutive empty/repeated/error results that end navigation (else zero-token loops run on).
    no_progress: int = attrs.field(default=3, validator=_positive)
    #: Seed 003: the answer reserve is at most this much (else a long budget reserves minutes for one answer).
    reserve_ms: int = attrs.field(default=30_000, validator=_positive)
    #: Seed 003: ... and at most remaining work time divided by this (else a short budget leaves no retrieval).
    reserve_divisor: int = attrs.field(default=4, validator=_positive)
    #: Seed 003: model-visible evidence characters kept for the answer (else the synthesis prompt is unbounded).
    evidence_chars: int = attrs.field(default=32_000, validator=_positive)
    #: Length of one polling slice; bounds are checked when a slice has been read.
    slice_ms: int = attrs.field(default=5_000, validator=_positive)
