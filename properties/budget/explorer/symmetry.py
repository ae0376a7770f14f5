"""The budget's declared symmetries, the lanes and the refusal kinds, acting on copy keys, whole states and events.

The search merges by them (``canonical``) and checks on every edge that the
guard has them (``checks``); nothing here assumes it."""

from __future__ import annotations

from typing import Any, Sequence

import attrs

from properties.engine.symmetry import Permutation, group
from properties.budget.events import Event, Result
from properties.budget.explorer.alphabets import KINDS, LANES
from properties.budget.explorer.keys import Canon, CopyKey, SWAP_BITS, SWAP_CODE, State


def mirror(key: CopyKey) -> CopyKey:
    """The lane mirror image of one copy: workspace and extension swapped in every field that names a lane."""
    deferred = key.deferred
    return key._replace(
        workspace=key.extension, extension=key.workspace, exhausted=SWAP_BITS[key.exhausted],
        deferred=SWAP_CODE[deferred] if deferred < 4 else deferred,
    )


KIND_SWAP = {KINDS[0]: KINDS[1], KINDS[1]: KINDS[0]}


def swap_kinds(key: CopyKey) -> CopyKey:
    """One copy with the alphabet's two refusal kinds exchanged (any other kind is left as it is)."""
    if not key.kinds and not key.correction:
        return key
    return key._replace(
        correction=KIND_SWAP.get(key.correction, key.correction),
        kinds=tuple(sorted(KIND_SWAP.get(kind, kind) for kind in key.kinds)),
    )


LANE_SWAP = {LANES[0]: LANES[1], LANES[1]: LANES[0]}


#: (source event, its image) by the source's id and the permutation's name; the source is kept so its id stays its own.
_EVENT_IMAGES: dict[tuple[str, int], tuple[Event, Event]] = {}


def _relabel(label: str, swap: dict[str, str]) -> str:
    return " ".join(swap.get(word, word) for word in label.split(" "))


def mirror_event(event: Event) -> Event:
    """An event with its lane swapped; an event without a lane is its own mirror."""
    if type(event) is not Result or event.lane not in LANE_SWAP:
        return event
    return attrs.evolve(event, lane=LANE_SWAP[event.lane], label=_relabel(event.label, LANE_SWAP))


def swap_event_kinds(event: Event) -> Event:
    """A refusal without a lane with the other kind; any other event is fixed.

    A refusal in a lane is fixed too: the alphabet offers it with one kind
    (``fresh_failures``), standing for both. Fixing it makes the check verify just
    that: a copy whose kinds are swapped, given the same lane refusal, must
    end in the swapped successor, which fails if the code keeps a lane
    refusal's kind anywhere.
    """
    if type(event) is not Result or event.lane is not None or event.correctable_refusal not in KIND_SWAP:
        return event
    return attrs.evolve(
        event, correctable_refusal=KIND_SWAP[event.correctable_refusal], label=_relabel(event.label, KIND_SWAP),
    )


#: The budget's declared symmetries, as permutations of its own names: the two lanes, the two refusal kinds.
SYMMETRIES = (
    Permutation("lanes", ("lanes",), lambda key: mirrored(key), mirror_event),
    Permutation("kinds", ("kinds",), lambda key: kinds_swapped(key), swap_event_kinds),
)


def checked_group(canon: "Canon") -> tuple[Permutation, ...]:
    """The permutations a canonical form merges by (each used symmetry and their composition), when it verifies them."""
    if not canon.verify:
        return ()
    used = [permutation for permutation, on in zip(SYMMETRIES, (canon.symmetry, canon.kinds)) if on]
    return group(used)


def symmetry_names(canon: "Canon") -> tuple[str, ...]:
    """The declared symmetries a canonical form uses (and checks, unless ``verify`` is off)."""
    return tuple(permutation.name for permutation, on in zip(SYMMETRIES, (canon.symmetry, canon.kinds)) if on)


def without(canon: "Canon", parts: Sequence[str]) -> "Canon":
    """``canon`` without the named symmetries: the form a scope is searched again with once they broke."""
    return attrs.evolve(
        canon, symmetry=canon.symmetry and "lanes" not in parts, kinds=canon.kinds and "kinds" not in parts,
    )


def differs(expected: CopyKey, got: CopyKey) -> str:
    """The fields where a permuted step's successor differs from the permuted successor, for a one-line report."""
    fields = [f"{name} {theirs!r} (expected {ours!r})" for name, ours, theirs in zip(CopyKey._fields, expected, got) if ours != theirs]
    return ", ".join(fields) or "another memory bit or admission"


def image_event(permutation: Permutation, event: Event) -> Event:
    """``permutation.event(event)``, made once per event object (the alphabets' events live as long as the module)."""
    slot = (permutation.name, id(event))
    found = _EVENT_IMAGES.get(slot)
    if found is None or found[0] is not event:
        found = _EVENT_IMAGES[slot] = (event, permutation.event(event))
    return found[1]


_MIRRORS: dict[CopyKey, CopyKey] = {}


_SWAPPED: dict[CopyKey, CopyKey] = {}


def kinds_swapped(key: CopyKey) -> CopyKey:
    found = _SWAPPED.get(key)
    if found is None:
        found = _SWAPPED[key] = swap_kinds(key)
    return found


def mirrored(key: CopyKey) -> CopyKey:
    found = _MIRRORS.get(key)
    if found is None:
        found = _MIRRORS[key] = mirror(key)
    return found


def least_mirror(copies: tuple) -> tuple:
    """The lesser of ``copies`` and their mirror image, found at the first copy the mirror changes."""
    for copy in copies:
        other = mirrored(copy)
        if other != copy:
            return tuple(mirrored(copy) for copy in copies) if other < copy else copies
    return copies


def permute_state(state: State, permute: Any) -> State:
    """A whole state's image: every copy's key permuted (the history and the ids name no lane and no kind)."""
    return State(tuple([permute(copy) for copy in state.copies]), state.history, state.ids)


#: The budget's declared symmetries acting on whole states, as a ``Model`` declares them (``SYMMETRIES`` act on
#: one copy's key, which is what the batched expander checks).
STATE_SYMMETRIES = (
    Permutation("lanes", ("lanes",), lambda state: permute_state(state, mirrored), mirror_event),
    Permutation("kinds", ("kinds",), lambda state: permute_state(state, kinds_swapped), swap_event_kinds),
)
