"""The canonical form of a state: settled copies merged, call ids renamed, the least of its symmetric images."""

from __future__ import annotations

from typing import Any, Iterable, Sequence


from properties.budget.explorer.history import ADMISSION_KEYS
from properties.budget.explorer.keys import COPY_INDEX, Canon, CopyKey, DEAD, History, PL_AT, PR_AT, P_AT, R_AT, State, raw_key, with_seen
from properties.budget.explorer.moves import Move
from properties.budget.explorer.symmetry import kinds_swapped, least_mirror


def settled(copies: Sequence[CopyKey], history: History) -> bool:
    """The reference is stopped and no open or pending copy is still compared with its counters.

    Once ``R`` is stopped, the invariants read the counters of a copy stopped
    for good only to compare them with ``R``'s (B1 for ``P0`` and for a
    per-feature copy whose feature is unused, B8 for ``Pr`` without an
    admission), and those comparisons were made on the step that stopped them,
    with the real counters: equal then, equal forever, since no stopped copy
    changes again except its rounds, in step with ``R``'s. ``B6`` and ``B2``
    read only the terminal flag of a stopped ``R``, ``B3`` skips it, ``B10``
    holds for any copy stopped for good. So every such copy, ``R`` included,
    can be given one and the same key (``DEAD``): states that differ only in
    what the stopped copies counted merge. The one exception is a ``Pr``
    holding a correction with no admission yet: it is not stopped for good and
    B8 still compares it with ``R``, so nothing is merged then.
    """
    if not copies[R_AT].terminal:
        return False
    return not (copies[PR_AT].correction and history.admissions[ADMISSION_KEYS.index("Pr")] == 0)


def settled_history(history: History, copies: Sequence[CopyKey]) -> History:
    """The history once the reference is settled: feature flags no longer matter, nor a stopped copy's streak.

    B1 skips a per-feature copy once its feature is used; every copy it would
    still compare is stopped for good and carries the same key as ``R``, so the
    flags are set to "used". The streak counts are read (B9) only while their
    copy is open, so a copy stopped for good gets zero, and the lookup-only flag
    only matters while ``Pl`` can still move.
    """
    alive = [not copies[COPY_INDEX[name]].dead for name in ADMISSION_KEYS]
    return History(
        features=tuple(True for _ in history.features),
        admissions=history.admissions,
        streak=tuple(value if keep else 0 for value, keep in zip(history.streak, alive)),
        fuse=tuple(value if keep else 0 for value, keep in zip(history.fuse, alive)),
        # B11's lookup-only clause reads Pl's rounds, which a copy stopped for good no longer keeps.
        lookups_only=history.lookups_only and not copies[PL_AT].dead,
    )


def rename_ids(copies: list[CopyKey], ordered: bool) -> list[CopyKey]:
    """Call ids renamed canonically; only which copies remember which ids (and in what order) is kept.

    Ordered: scanning the copies in a fixed order, newest first, the first id
    met becomes 0, the next new one 1, ... An id no copy remembers is the same
    as a fresh one. Unordered (no eviction within the search's depth, so order
    cannot matter): each id is reduced to the set of copies remembering it,
    ids with the same set are one, and the sets are numbered in sorted order.
    The renaming depends on the memories alone, so it is computed once per
    combination of memories (``_RENAMINGS``).
    """
    memories = tuple([copy.seen for copy in copies])
    renamed = _RENAMINGS.get((memories, ordered))
    if renamed is None:
        renamed = _RENAMINGS[(memories, ordered)] = _renamed(memories, ordered)
    if renamed is memories:
        return copies
    return [copy if new is old else with_seen(copy, new) for copy, old, new in zip(copies, memories, renamed)]


_RENAMINGS: dict[tuple, tuple] = {}


def _renamed(memories: tuple, ordered: bool) -> tuple:
    """The memories with canonical labels (``rename_ids``); ``memories`` itself when nothing changes."""
    if ordered:
        labels: dict[Any, int] = {}
        for seen in memories:
            for call_id in seen:
                if call_id not in labels:
                    labels[call_id] = len(labels)
        if all(call_id == label for call_id, label in labels.items()):
            return memories
        return tuple(tuple(labels[call_id] for call_id in seen) for seen in memories)
    signatures: dict[Any, int] = {}
    for index, seen in enumerate(memories):
        bit = 1 << index
        for call_id in seen:
            signatures[call_id] = signatures.get(call_id, 0) | bit
    numbers = {signature: number for number, signature in enumerate(sorted(set(signatures.values())))}
    out = tuple(tuple(sorted({numbers[signatures[call_id]] for call_id in seen})) for seen in memories)
    if out == memories:
        return memories
    return tuple(old if new == old else new for old, new in zip(memories, out))


#: (history, which copies are alive) -> the settled history: a few dozen entries per configuration.
_SETTLED: dict[tuple, History] = {}


def id_masks(memories: Iterable[tuple]) -> tuple:
    """``State.ids`` of per-copy memories (any names): per id the mask of copies remembering it, merged, sorted."""
    masks: dict[Any, int] = {}
    for index, seen in enumerate(memories):
        bit = 1 << index
        for call_id in seen:
            masks[call_id] = masks.get(call_id, 0) | bit
    return tuple(sorted(set(masks.values())))


def child_ids(ids: tuple, label: int | None, added: int, alive: int) -> tuple:
    """``State.ids`` after one step: ``added`` (a mask) took the event's id ``label``; copies outside ``alive`` forgot.

    ``label`` is the event's canonical label (``len(ids)`` for a fresh id,
    None for an event without one). Masks that become equal merge and an
    empty one disappears, as ``id_masks`` would have it from the budgets.
    """
    if added and label is not None:
        masks = list(ids)
        if label < len(masks):
            masks[label] |= added
        else:
            masks.append(added)
    elif all(mask & alive == mask for mask in ids):
        return ids
    else:
        masks = list(ids)
    return tuple(sorted({mask & alive for mask in masks} - {0}))


def canonical(raw: Sequence[CopyKey], history: tuple, canon: Canon, ids: tuple | None = None) -> State:
    """The canonical state of raw copy keys (``raw_key``) and the monitor's history.

    Without ordered ids the copies' memories go to ``State.ids``: read from the
    raw keys' ``seen``, or given as ``ids`` when the caller knows them
    (``child_ids``; the raw keys then carry no memory).

    * Copies stopped for good, once the reference is settled, share one key
      (``settled``).
    * Call ids are renamed (``rename_ids``).
    * The lanes are symmetric: a state and its mirror image (workspace and
      extension swapped in every copy) are one state. Exact because the
      alphabet offers every lane event in both lanes, so the mirror's
      successors are the mirrors of the successors, and no invariant names a
      lane: each reads both lanes alike (B3's subset, B7's "its lane").
    * The two refusal kinds are symmetric: a state and its image with the
      kinds exchanged are one state. Exact because a kind is read only by the
      grant rule (seed 002: a kind not granted yet, on a refusal without a
      lane) and by B8, which counts kinds and compares them for equality but
      never names one; the alphabet offers both kinds without a lane, and a
      refusal in a lane is never granted, so its kind is read by nothing (one
      kind per lane stands for both, see ``fresh_failures``).

    The canonical representative is the least of the images: a fixed choice
    per class, so the classes, and hence the states counted, do not depend on
    which member the search reached first.
    """
    history = History._make(history)
    copies = list(raw)
    if not canon.ordered_ids:
        if ids is None:
            ids = id_masks([copy.seen for copy in copies])
            copies = [with_seen(copy, ()) if copy.seen else copy for copy in copies]
    if canon.drop_dead and settled(copies, history):
        copies = [DEAD if index == R_AT or copy.dead else copy for index, copy in enumerate(copies)]
        alive = tuple(not copy.dead for copy in raw)
        found = _SETTLED.get((history, alive))
        if found is None:
            found = _SETTLED[(history, alive)] = settled_history(history, raw)
        history = found
    if canon.ordered_ids:
        copies = rename_ids(copies, True)
    best = tuple(copies)
    if canon.symmetry:
        best = least_mirror(best)
    if canon.kinds and (best[P_AT].kinds or best[PR_AT].kinds):
        other = tuple([kinds_swapped(copy) for copy in best])
        if canon.symmetry:
            other = least_mirror(other)
        if other < best:
            best = other
    return State(best, history, ids or ())


def encode(budgets: Sequence[Any], history: tuple, canon: Canon) -> State:
    """The canonical state of live budgets (copies in ``ALL_COPIES`` order) and a monitor's history."""
    return canonical([raw_key(budget, index > 0, canon) for index, budget in enumerate(budgets)], history, canon)


def masks(moves: Sequence[Move]) -> tuple[int, int]:
    """Which copies took the event's id, which keep a memory (``Move.added``, ``Move.kept``): the masks ``child_ids`` reads."""
    return (
        sum(move.added << index for index, move in enumerate(moves)),
        sum(move.kept << index for index, move in enumerate(moves)),
    )


def membership_of(ids: tuple, index: int) -> int:
    """The labels copy ``index`` remembers, as a mask (bit ``n``: label ``n``), read off ``State.ids``."""
    out = 0
    for number, mask in enumerate(ids):
        if mask >> index & 1:
            out |= 1 << number
    return out
