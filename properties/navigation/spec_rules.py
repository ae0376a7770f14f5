"""navigation.md restated for the navigation subject (seed 003): its numbers, its deadlines, its result classes.

Everything the invariants (``properties.navigation.invariants``) and the
scenario runner (``properties.navigation.scenario``) compare against is
written here from ``shared/spec/navigation.md``, never read from ``guard/``,
so a mutated limit or rule in production is judged by the spec's numbers. A
module of its own because both read it and the invariants play scenarios:
kept inside either, the two would import each other.
"""

from __future__ import annotations

from typing import Any

import attrs

from properties.navigation.events import Scenario


@attrs.frozen
class Spec:
    """The numbers of navigation.md (milliseconds, characters)."""

    tool_calls: int = 24
    no_progress: int = 3
    reserve_ms: int = 30_000
    reserve_divisor: int = 4
    evidence_chars: int = 32_000
    headroom_ms: int = 30_000
    timeout_min_ms: int = 1
    timeout_max_ms: int = 600_000


SPEC = Spec()
BOUNDS = ("tool_calls", "no_progress", "deadline")
#: The error word of an insufficient-evidence result: production's (guard/navigation.py's docstring), restated as
#: the caller's contract, since navigation.md asks for it "explicitly" and names no word.
INSUFFICIENT_ERROR = "insufficient_evidence"


def spec_of(scenario: Scenario) -> Spec:
    """navigation.md's numbers, with those the scenario scales down (its ``limits``) scaled the same way.

    A scaled scope judges production under limits L against the spec's rules with the numbers L: the rules stay
    the spec's, only the constants move together (the exhaustive model's small scopes)."""
    if not scenario.limits:
        return SPEC
    names = attrs.fields_dict(Spec)
    return attrs.evolve(SPEC, **{name: value for name, value in scenario.limits if name in names})


def spec_deadlines(scenario: Scenario, start: int = 0) -> tuple[int, int, int]:
    """(work, reserve, retrieval) as navigation.md defines them, for a request made at ``start``."""
    spec = spec_of(scenario)
    timeout = min(max(scenario.timeout_ms, spec.timeout_min_ms), spec.timeout_max_ms)
    work = min(start + scenario.delegation_timeout_ms, max(start, start + timeout - spec.headroom_ms))
    reserve = min(spec.reserve_ms, (work - start) // spec.reserve_divisor) if work > start else 0
    return work, reserve, work - reserve


def spec_class(message: Any, earlier: set) -> str:
    """progress / empty / repeated / error, as navigation.md states it (zero-token results are not evidence)."""
    if message.is_error:
        return "error"
    if not message.text.strip() or message.source_tokens == 0:
        return "empty"
    if message.text in earlier:
        return "repeated"
    return "progress"


def spec_detail(message: Any, kind: str) -> str:
    """What told a result of class ``kind`` apart: navigation.md has empty tool content, native retrieval counters
    and zero-token subtree manifests "told apart" (only then is a zero-token manifest known to be no evidence).

    The spec names the three and no word for them. Choice: the outcome's detail restates the spec's phrase
    ("empty content", "zero-token counter", "zero-token manifest"), and the other classes' detail is the class's own
    name, so that a result's record says which rule classified it; production's docstring (``Outcome.results``)
    publishes the same words, and a reviewer reading a result list must not have to guess which is which."""
    if kind != "empty":
        return kind
    if not message.text.strip():
        return "empty content"
    return "zero-token manifest" if message.manifest else "zero-token counter"
