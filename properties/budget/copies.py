"""The budget copies every driver compares (``shared/spec/invariants.md``).

``R`` is the reference. ``P0`` is production with every new argument
stripped, ``P`` production with every flag as generated, ``Pu`` production
with ``corrected`` always false, and ``Pd``, ``Pr``, ``Pl`` production with
only the deferral, the refusal-remedy or the empty-lookup flags.

Choice where the spec is loose: ``Pu`` passes on only ``correctable``. B6
("a difference opens only at a correctable failure and closes one result
later") is seed 001's promise about deferral alone; a free empty lookup or an
admitted remedy opens a difference that legitimately never closes, so a ``Pu``
that also saw those flags would make B6 false by design, not by a bug.
"""

from __future__ import annotations

from typing import Any, Callable


from guard.budget import RunProgressBudget
from guard.limits import Limits
from properties.budget.events import Event, Result, Round, Stop
from properties.budget.state import shared_view as _shared_view
from reference.budget import ReferenceBudget, ReferenceLimits

#: Which of the seeds' flags each production copy passes on.
FEATURE_FLAGS: dict[str, frozenset[str]] = {
    "P0": frozenset(),
    "P": frozenset({"correctable", "corrected", "correctable_refusal", "empty_lookup"}),
    "Pu": frozenset({"correctable"}),
    "Pd": frozenset({"correctable", "corrected"}),
    "Pr": frozenset({"correctable_refusal"}),
    "Pl": frozenset({"empty_lookup"}),
}

PRODUCTION_COPIES = tuple(FEATURE_FLAGS)
ALL_COPIES = ("R",) + PRODUCTION_COPIES


#: The limits table of ``shared/spec/budget.md``, typed in here rather than read from either budget.
#: Drivers that run the real limits build production from ``Limits()`` and the reference from
#: ``ReferenceLimits()`` (each budget's own defaults) and judge both against these numbers, so a
#: changed default in ``guard/limits.py`` shows up as a violation instead of moving the oracle with it.
SPEC_LIMITS = Limits(
    consecutive_failures=4,
    total_failures=12,
    rounds_without_progress=8,
    identical_successes=2,
    corrected_attempts=2,
    free_empty_lookups=12,
    seen_calls=256,
    successes=128,
)


def default_copies() -> dict[str, Any]:
    """Every copy with its own budget's default limits (see ``SPEC_LIMITS``)."""
    copies: dict[str, Any] = {"R": ReferenceBudget(ReferenceLimits())}
    for name in PRODUCTION_COPIES:
        copies[name] = RunProgressBudget(Limits())
    return copies


def reference_limits(limits: Limits) -> ReferenceLimits:
    """The reference's own limits with the same shared numbers (the reference never sees ``guard``'s type)."""
    return ReferenceLimits(
        consecutive_failures=limits.consecutive_failures,
        total_failures=limits.total_failures,
        rounds_without_progress=limits.rounds_without_progress,
        identical_successes=limits.identical_successes,
        seen_calls=limits.seen_calls,
        successes=limits.successes,
    )


#: What the reference and production share, for step-by-step comparison (B1): ``properties.budget.state``.
shared_view = _shared_view


def new_copies(limits: Limits | None = None) -> dict[str, Any]:
    """Fresh budgets for every copy, all with the same limits."""
    limits = limits if limits is not None else Limits()
    copies: dict[str, Any] = {"R": ReferenceBudget(reference_limits(limits))}
    for name in PRODUCTION_COPIES:
        copies[name] = RunProgressBudget(limits)
    return copies


def apply_reference(budget: ReferenceBudget, event: Event) -> bool:
    """Deliver one event to the reference. Returns False (the reference admits nothing)."""
    if isinstance(event, Result):
        budget.observe_result(
            event.call_id, event.tool, event.params, event.failed,
            pending=event.pending, discovery=event.discovery, lane=event.lane,
        )
    elif isinstance(event, Round):
        budget.begin_model_round()
    elif isinstance(event, Stop):
        budget.stop()
    return False


def apply_production(budget: RunProgressBudget, event: Event, flags: frozenset[str]) -> bool:
    """Deliver one event to a production copy that sees only ``flags``. Returns whether a remedy was admitted."""
    if isinstance(event, Result):
        budget.observe_result(
            event.call_id, event.tool, event.params, event.failed,
            pending=event.pending, discovery=event.discovery, lane=event.lane,
            correctable=event.correctable if "correctable" in flags else False,
            corrected=event.corrected if "corrected" in flags else False,
            correctable_refusal=event.correctable_refusal if "correctable_refusal" in flags else None,
            empty_lookup=event.empty_lookup if "empty_lookup" in flags else False,
        )
        return False
    if isinstance(event, Round):
        budget.begin_model_round()
        return False
    if isinstance(event, Stop):
        budget.stop()
        return False
    return budget.correct_fuse(event.remedy)


def applier(name: str) -> Callable[[Any, Event], bool]:
    """The function that delivers an event to the copy called ``name``."""
    if name == "R":
        return apply_reference
    flags = FEATURE_FLAGS[name]
    return lambda budget, event: apply_production(budget, event, flags)
