"""The explorer's configurations: the scopes of each mode, their limits, the budgets they compare, their scheduling hints."""

from __future__ import annotations

from typing import Any

import attrs

from guard.limits import Limits
from properties.budget.copies import ALL_COPIES, SPEC_LIMITS, new_copies, reference_limits
from reference.budget import ReferenceBudget
from properties.budget.explorer.keys import Canon


#: A broken budget may have an infinite state space; past this many states a run stops, incomplete.
#: The default set's largest configuration has under 50,000 states, the quick set's under 3,000.
MAX_STATES = 100_000


QUICK_MAX_STATES = 20_000


#: The thorough set's real-limits search to depth 10 reaches about half a million states.
THOROUGH_MAX_STATES = 3_000_000


@attrs.frozen
class Config:
    """One exploration: the limits the production copies run with, and how deep to go (None: to the fixpoint)."""

    name: str
    limits: Limits
    max_depth: int | None
    #: The numbers the reference and the invariants hold production to; None means ``limits``.
    spec: Limits | None = None
    #: Offer successes with other fingerprints (B, and A with reordered keys). Without them the
    #: identical-success rule still runs (A repeated), at a fraction of the states; see ``configurations``.
    fingerprints: bool = True
    #: ``"full"``: the whole alphabet; ``"counters"``: only what moves the run-wide counters (see ``COUNTERS``).
    alphabet: str = "full"

    @property
    def oracle(self) -> Limits:
        return self.spec if self.spec is not None else self.limits

    @property
    def summary(self) -> str:
        lim = self.limits
        return (
            f"consec {lim.consecutive_failures} total {lim.total_failures} rounds {lim.rounds_without_progress} "
            f"ident {lim.identical_successes} defer {lim.corrected_attempts} free {lim.free_empty_lookups} "
            f"seen {lim.seen_calls} succ {lim.successes}"
        )


def small_limits(consecutive: int, total: int, rounds: int, free: int, identical: int, seen: int, successes: int) -> Limits:
    return Limits(
        consecutive_failures=consecutive, total_failures=total, rounds_without_progress=rounds,
        identical_successes=identical, corrected_attempts=SPEC_LIMITS.corrected_attempts, free_empty_lookups=free,
        seen_calls=seen, successes=successes,
    )


def small_scope(name: str, spec: Limits, **options: Any) -> Config:
    """A small scope to its fixpoint. Its deferral allowance is the real one, so production keeps its own default.

    That way a changed default for ``corrected_attempts`` in ``guard/limits.py``
    runs against the reference and invariants held to the spec's 2 in every scope.
    """
    production = attrs.evolve(spec, corrected_attempts=Limits().corrected_attempts)
    return Config(name, production, None, spec, **options)


MODES = ("quick", "default", "thorough")


def configurations(mode: bool | str) -> list[Config]:
    """The explorations of one run: ``"quick"`` (or True), ``"default"`` (or False) or ``"thorough"``.

    ``quick`` is the set the unit tests and mutation runs use (a few seconds);
    ``default`` the one a reviewer's ``python -m properties`` runs (about 20
    CPU seconds, side by side with the other drivers within the 60 s run);
    ``thorough`` the one ``--profile thorough`` runs (most of it ``small c4
    t8 r2 f2``, which splits its levels over both cores; the whole thorough
    run took 261 s wall on two quiet cores on 2026-12-01, and 685 s on
    2026-12-07, seed 7, once every edge's symmetries were checked: that
    scope alone 683 s, 823,792 states, 18,084,668 edges).

    Small scopes keep corrected attempts at 2 (the two-per-run rule needs two)
    and a seen-calls cap of 1, so that eviction and the re-observation of an
    evicted id are part of every proof. The scopes from consecutive 3/total 5
    up leave out the other fingerprints (B, and A with reordered keys):
    identical-success accounting is a rule the seeds do not touch, proved with
    them in the smaller scopes and checked at the real limits, while those
    scopes are about the fuses and the total cap, where they would triple the
    states. Consecutive 4 is the real fuse: with total 6 it leaves room for a
    trip at the fuse, an admitted remedy and its failure, and a wait that lands
    with it, all below the total cap.
    """
    mode = "quick" if mode is True else "default" if mode is False else mode
    if mode not in MODES:
        raise ValueError(f"explorer mode must be one of {MODES}, not {mode!r}")
    tiny = [
        small_scope("small c1 t2", small_limits(1, 2, 1, 1, 1, 1, 1)),
        small_scope("small c2 t2", small_limits(2, 2, 1, 1, 1, 1, 1)),
        # Total 3 leaves room for a third deferral, a second grant of a kind and a grant after a lane failure.
        small_scope("small c1 t3", small_limits(1, 3, 1, 1, 1, 1, 1)),
    ]
    if mode == "quick":
        return tiny + [Config("real limits", Limits(), 4, SPEC_LIMITS)]
    fuses = [
        small_scope("small c3 t5", small_limits(3, 5, 1, 1, 1, 1, 1), fingerprints=False),
        small_scope("small c4 t6", small_limits(4, 6, 1, 1, 1, 1, 1), fingerprints=False),
    ]
    if mode == "default":
        return tiny + fuses + [
            Config("real limits", Limits(), 6, SPEC_LIMITS),
            # Deep enough for the 9th round, the 13th empty lookup and the 12th failure at the real limits.
            Config("real limits, counters", Limits(), 13, SPEC_LIMITS, alphabet="counters"),
        ]
    return tiny + fuses + [
        # Two rounds and two free lookups: a round after a reset, the second free lookup and the first charged one.
        small_scope("small c4 t8 r2 f2", small_limits(4, 8, 2, 2, 1, 1, 1), fingerprints=False),
        Config("real limits", Limits(), THOROUGH_DEPTH, SPEC_LIMITS),
        Config("real limits, counters", Limits(), 16, SPEC_LIMITS, alphabet="counters"),
    ]


#: How deep ``--profile thorough`` searches the real limits with every event.
THOROUGH_DEPTH = 10


#: Roughly how long each configuration takes in one process (CPU seconds, measured on the development
#: machine): only the order in which configurations run side by side reads it (largest first), never a
#: result. An unknown configuration counts as small.
EXPECTED_SECONDS = {
    "small c1 t3": 1.0,
    "small c3 t5": 4.5,
    "small c4 t6": 4.0,
    "small c4 t8 r2 f2": 330.0,
    "real limits": 2.1,
    "real limits, counters": 7.7,
}


def expected_seconds(config: Config) -> float:
    """The scheduling hint of ``EXPECTED_SECONDS``; the real limits' searches scale with their depth."""
    hint = EXPECTED_SECONDS.get(config.name, 0.0)
    if config.max_depth is not None and config.limits == Limits():
        # Measured per level past the default depths: about 2.75x with every event, 1.75x with the counters'.
        growth, base = (1.75, 13) if config.alphabet == "counters" else (2.75, 6)
        hint *= growth ** (config.max_depth - base)
    return hint


def new_prototypes(config: Config) -> list[Any]:
    copies = new_copies(config.limits)
    if config.spec is not None:
        # The reference is the oracle: it runs with the spec's numbers, not with whatever Limits() says.
        copies["R"] = ReferenceBudget(reference_limits(config.spec))
    return [copies[name] for name in ALL_COPIES]


def canon_for(config: Config) -> Canon:
    # Without eviction the order of remembered ids cannot matter: every id stays remembered.
    bounded = config.max_depth is not None and config.max_depth <= min(config.limits.seen_calls, config.oracle.seen_calls)
    return Canon(ordered_ids=not bounded)


def mode_name(quick: bool | str) -> str:
    return "quick" if quick is True else "default" if quick is False else quick


#: The safety net per mode (see ``MAX_STATES``).
MODE_MAX_STATES = {"quick": QUICK_MAX_STATES, "default": MAX_STATES, "thorough": THOROUGH_MAX_STATES}
