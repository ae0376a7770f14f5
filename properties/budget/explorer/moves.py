"""One copy's answer to one event (``Transition``, ``Move``) and the cached verdict of one judged step (``Verdict``)."""

from __future__ import annotations

from typing import NamedTuple

import attrs

from properties.budget.copies import ALL_COPIES
from properties.budget.events import Result
from properties.budget.invariants import Snap
from properties.budget.explorer.keys import CopyKey


#: How many entries each cache of an expander may hold before it is emptied (``Expander._trim``): the
#: thorough set's largest scopes would otherwise hold gigabytes of moves and verdicts.
CACHE_BOUNDS = {"verdicts": 600_000, "raw children": 600_000, "moves": 60_000}


class Transition(NamedTuple):
    """One budget's answer to one event from one key, as any copy with that key and those flags gets it."""

    after: CopyKey
    before_snap: Snap
    after_snap: Snap
    seen: bool
    admitted: bool


#: The seeds' flags a production copy may or may not receive (``properties.budget.copies.FEATURE_FLAGS``).
#: (name, the value a copy that does not receive it is given).
SEED_FLAGS = (("correctable", False), ("corrected", False), ("correctable_refusal", None), ("empty_lookup", False))


class Move(NamedTuple):
    """What one copy does on one event from one state: computed once by the real budget, then reused.

    A copy's next state depends only on its own state and the event (the
    copies share nothing, and ``Monitor.step`` delivers the event to each on
    its own), so the result of stepping a copy key with an event is a pure
    function of the two: it is cached per (copy, key, alphabet), made from a
    ``Transition`` shared by every copy that receives the same flags.
    """

    #: The copy's raw key after the event (``raw_key``: ids not yet renamed).
    after: CopyKey
    #: The monitor's snapshots of the copy before and after the event.
    before_snap: Snap
    after_snap: Snap
    #: The event's call id was in the copy's memory before it (results only).
    seen: bool
    #: ``correct_fuse`` admitted the remedy (first calls only).
    admitted: bool
    #: The same number for every move with the same snapshots, memory bit and admission (``Expander.pairs``).
    #: It names no copy: a step's pairs are read by position, so copies that move alike share their moves.
    pair: int
    #: Without ordered ids (``State.ids``): 1 when the copy took the event's id into its memory ...
    added: int = 0
    #: ... and 1 when it keeps a memory after the event (not stopped for good).
    kept: int = 0


NO_FLAGS: dict[str, bool] = dict.fromkeys(ALL_COPIES, False)


#: The one call id a representative copy may remember (``Expander._moves_unordered``).
REPRESENTATIVE = "r"


_REPRESENTATIVES: dict[int, Result] = {}


def representative_of(template: Result) -> Result:
    found = _REPRESENTATIVES.get(id(template))
    if found is None:
        found = _REPRESENTATIVES[id(template)] = attrs.evolve(template, call_id=REPRESENTATIVE)
    return found


@attrs.define(slots=True)
class Verdict:
    """What judging one step gave: the history after it, the invariants it exercised, the coverage it counted.

    Every invariant of the catalogue is a predicate over the step (the event,
    every copy's snapshot before and after it, which copies remembered the
    call id, which admitted a remedy, and the monitor's history), and so are
    the coverage counts and the history update; none reads a call id's name
    or a copy's memories. So a step equal to one judged before has the same
    verdict, and the search counts it (checked, exercised, covered) instead of
    evaluating the same predicates on the same values again, as it checks B13
    once per distinct state of P. A step that violates an invariant ends the
    search when it is first met, so every stored verdict is a pass.
    """

    history: tuple
    exercised: tuple[str, ...]
    coverage: tuple[tuple[str, int], ...]
    repeats: int = 0
