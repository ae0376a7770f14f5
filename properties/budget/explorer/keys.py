"""What the search keeps of a state: one key per copy (``CopyKey``), the monitor's history, the ids; and the way back.

``raw_key`` reads a live budget into a key (reduced by what is local to
the copy), ``decode_copy`` and ``decode`` make budgets in a key's state.
``Canon`` holds the switches of the canonical form (``canonical``)."""

from __future__ import annotations

from collections import deque
from typing import Any, NamedTuple, Sequence

import attrs

from guard.budget import RunProgressBudget
from properties.budget.copies import ALL_COPIES
from properties.budget.explorer.copier import clone

#: The call ids the explorer's events carry ("c0", "c1", ...), by label: keys store a remembered id as its label.
ID_NAMES = [f"c{index}" for index in range(4096)]
LABEL_OF = {name: index for index, name in enumerate(ID_NAMES)}


DEFERRED_CODES = {None: 0, "global": 1, "workspace": 2, "extension": 3}


DEFERRED_NAMES = {code: name for name, code in DEFERRED_CODES.items()}


#: The deferred code and the exhausted-lane bits with the two lanes swapped.
SWAP_CODE = (0, 1, 3, 2)


SWAP_BITS = (0, 2, 1, 3)


class CopyKey(NamedTuple):
    """One copy's state as the search keeps it: every field a budget has, by name, in hashable form.

    The reference has none of the production-only fields; they keep their
    defaults. ``seen`` lists the remembered call ids newest first (canonical
    labels 0, 1, ... in a state key; the budget's own names in a raw key
    just after a step), ``successes`` the success memory in insertion order.
    """

    terminal: bool
    rounds: int
    failures: int
    consecutive: int
    workspace: int
    extension: int
    #: Bit 1: the workspace lane is exhausted; bit 2: the extension lane.
    exhausted: int
    #: ``DEFERRED_CODES`` of the counter whose charge waits.
    deferred: int = 0
    deferrals_used: int = 0
    #: The refusal kind whose remedy may run, "" for none.
    correction: str = ""
    #: The refusal kinds granted so far, sorted.
    kinds: tuple = ()
    free_used: int = 0
    seen: tuple = ()
    successes: tuple = ()

    @property
    def core(self) -> tuple:
        """Every counter and flag, without the two memories: what B13's answer depends on."""
        return self[:CORE_LENGTH]

    @property
    def dead(self) -> bool:
        """Stopped for good: terminal with no correction to admit (the reference never has one)."""
        return self.terminal and not self.correction


CORE_LENGTH = CopyKey._fields.index("seen")


class History(NamedTuple):
    """The monitor's history (``Monitor.history()``), by name."""

    features: tuple
    admissions: tuple
    streak: tuple
    #: B9: each copy's place against the reference's fuse (``Monitor.streak_fuse``).
    fuse: tuple
    lookups_only: bool


class State(NamedTuple):
    """A canonical state: every copy in ``ALL_COPIES`` order, the monitor's history, and (unordered) the ids.

    With ordered ids (eviction possible) each copy key carries its own memory
    of call ids. Without eviction (``Canon.ordered_ids`` off) the copy keys
    carry none and ``ids`` holds the memory of every copy at once: per call id
    the set of copies remembering it as a bit mask (bit ``i``: copy ``i`` of
    ``ALL_COPIES``), ids with the same mask merged, sorted; label ``n`` is the
    ``n``-th mask. That is exactly what ``rename_ids`` keeps of the per-copy
    memories, in a form that leaves the copy keys free of them, so that one
    copy key (and its cached moves) serves every state whatever its ids.
    """

    copies: tuple
    history: History
    ids: tuple = ()

    @property
    def remembered(self) -> int:
        """How many distinct call ids the copies remember; they are labelled 0 .. remembered - 1."""
        if self.ids:
            return len(self.ids)
        return 1 + max((label for copy in self.copies for label in copy.seen), default=-1)

    def seen_of(self, index: int) -> tuple:
        """The labels copy ``index`` remembers (its own key's, or read off ``ids``)."""
        if not self.ids:
            return self.copies[index].seen
        return tuple(number for number, mask in enumerate(self.ids) if mask >> index & 1)


#: The one key every copy stopped for good is given once the reference is stopped (see ``settled``).
DEAD = CopyKey(True, 0, 0, 0, 0, 0, 0)


COPY_INDEX = {name: index for index, name in enumerate(ALL_COPIES)}


R_AT, P_AT, PR_AT, PL_AT = COPY_INDEX["R"], COPY_INDEX["P"], COPY_INDEX["Pr"], COPY_INDEX["Pl"]


@attrs.frozen
class Canon:
    """How a configuration canonicalizes states; switches exist so the tests can compare with and without."""

    #: Keep each copy's memory of call ids in order (needed once eviction can happen).
    ordered_ids: bool
    #: The lane symmetry: a state and its mirror image (workspace and extension swapped) are one state.
    symmetry: bool = True
    cap_counts: bool = True
    #: Forget the memories of copies stopped for good (see ``_dead``).
    drop_dead: bool = True
    #: The refusal-kind symmetry: a state and its image with the two kinds swapped are one state.
    kinds: bool = True
    #: Check every symmetry the form merges by on every edge searched (``Expander.check_step`` and its
    #: siblings); off only to measure what the checks cost (``properties.bench``).
    verify: bool = True


new_key = tuple.__new__


def raw_key(budget: Any, production: bool, canon: Canon, labels: dict | None = None) -> CopyKey:
    """The key of one budget, reduced by what is local to the copy (capped counts, a dead copy's memory).

    Success counts are capped at the identical-success limit + 1, rounds at
    the rounds cap + 1 (see the module docstring); a copy stopped for good
    forgets what it saw (``_dead``). Call ids keep the budget's own names, or
    are read through ``labels`` (the search's names back to its labels):
    ``canonical`` renames them across the copies. Built with
    ``tuple.__new__`` rather than the named tuple's keyword constructor: the
    search makes one per real step (a tenth of the small scopes' time before).
    """
    limits = budget.limits
    lanes = budget.lane_failures
    exhausted = budget.exhausted_lanes
    bits = (("workspace" in exhausted) | (("extension" in exhausted) << 1)) if exhausted else 0
    rounds = budget.rounds
    terminal = budget.terminal
    cap_counts = canon.cap_counts
    if cap_counts:
        cap = limits.rounds_without_progress + 1
        if rounds > cap:
            rounds = cap
    if canon.drop_dead and terminal and (not production or budget.correction is None):
        seen: tuple = ()
        memory: tuple = ()
    else:
        calls = budget.seen_calls
        if not calls:
            seen = ()
        elif labels is not None:
            seen = tuple([labels.get(call_id, call_id) for call_id in reversed(calls)])
        else:
            seen = tuple(reversed(calls))
        successes = budget.successes
        if not successes:
            memory = ()
        elif cap_counts:
            cap = limits.identical_successes + 1
            memory = tuple([(key, count if count < cap else cap) for key, count in successes.items()])
        else:
            memory = tuple(successes.items())
    if not production:
        return new_key(CopyKey, (
            terminal, rounds, budget.failures, budget.consecutive, lanes["workspace"], lanes["extension"], bits,
            0, 0, "", (), 0, seen, memory,
        ))
    kinds = budget.corrected_kinds
    return new_key(CopyKey, (
        terminal, rounds, budget.failures, budget.consecutive, lanes["workspace"], lanes["extension"], bits,
        DEFERRED_CODES.get(budget.deferred, 9), budget.deferrals_used, budget.correction or "",
        tuple(sorted(kinds)) if kinds else (), budget.free_lookups_used, seen, memory,
    ))


def with_seen(copy: CopyKey, seen: tuple) -> CopyKey:
    return new_key(CopyKey, copy[:CORE_LENGTH] + (seen, copy.successes))


def decode_copy(prototype: Any, key: CopyKey) -> Any:
    """A budget in the state ``key`` (canonical labels become the ids c0, c1, ...), made from a fresh ``prototype``."""
    budget = clone(prototype)
    budget.terminal = key.terminal
    budget.rounds = key.rounds
    budget.failures = key.failures
    budget.consecutive = key.consecutive
    budget.lane_failures = {"workspace": key.workspace, "extension": key.extension}
    budget.exhausted_lanes = {lane for bit, lane in ((1, "workspace"), (2, "extension")) if key.exhausted & bit}
    if isinstance(budget, RunProgressBudget):
        budget.deferred = DEFERRED_NAMES[key.deferred]
        budget.deferrals_used = key.deferrals_used
        budget.correction = key.correction or None
        budget.corrected_kinds = set(key.kinds)
        budget.free_lookups_used = key.free_used
    ids = [ID_NAMES[label] if isinstance(label, int) else label for label in reversed(key.seen)]
    budget.seen_calls = deque(ids)
    budget.seen_call_set = set(ids)
    budget.successes = dict(key.successes)
    return budget


def decode(state: State, prototypes: Sequence[Any]) -> list[Any]:
    """Budgets in ``state`` (canonical names: ids c0, c1, ...), made from fresh ``prototypes``."""
    if state.ids:
        return [decode_copy(prototype, with_seen(key, state.seen_of(index))) for index, (prototype, key) in enumerate(zip(prototypes, state.copies))]
    return [decode_copy(prototype, key) for prototype, key in zip(prototypes, state.copies)]
