"""The finite alphabet of events the explorer offers from a state, by the state's shape.

Every event the search delivers is made here, once, and kept alive: the
caches of the search key moves on the events' identities (``ORIGIN`` maps
each back to its template and its call id's label)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from properties.budget.events import Event, FirstCall, Result, Round, Stop
from properties.budget.explorer.keys import ID_NAMES, LABEL_OF

if TYPE_CHECKING:
    from properties.budget.explorer.keys import State
    from properties.budget.explorer.scopes import Config


LANES = ("workspace", "extension")


#: Three success params: A, A with its keys (and a nested object's keys) in another order, and B.
#: A and A' must count as one identical success (the fingerprint sorts keys at every depth); B must not.
PARAMS_A = {"path": "a.txt", "opts": {"lines": 1, "mode": "r"}}


PARAMS_A_REORDERED = {"opts": {"mode": "r", "lines": 1}, "path": "a.txt"}


PARAMS_B = {"path": "b.txt", "opts": {"lines": 1, "mode": "r"}}


KINDS = ("playground-first-write", "playground-project-path")


LANE_CHOICES = (None,) + LANES


#: Receipt that no budget counts (no usable call id); used to re-read a state for B13.
PROBE_EVENT = Result(call_id="", tool="read", label="explorer: B13 probe")


def fresh_failures() -> list[Result]:
    """Fresh failures: plain and correctable in each lane and without one, refusals, one empty lookup.

    The seeds' flags come from different tools (an empty lookup is a search, a
    correctable failure an inspection, a refusal the Playground router), so one
    receipt never carries two of them; combining them would only add states no
    host can produce. ``corrected``, ``pending``, ``discovery`` and the params
    are not read on a failure (both budgets branch on ``failed`` first), so
    failures carry none of them. Both refusal kinds appear without a lane (the
    second kind's own grant); one kind in each lane suffices to check that lane
    failures are never granted (B8; the kinds are interchangeable there). An
    empty lookup needs no lane: while free it changes nothing whatever its lane,
    and past the allowance it is exactly the plain failure of its lane
    (``failure_ends`` is probed with every lane and flag combination by B13).
    """
    events = []
    for lane in LANE_CHOICES:
        where = lane or "no lane"
        events.append(Result("", "exec", None, True, lane=lane, label=f"fail {where}"))
        events.append(Result("", "inspect", None, True, lane=lane, correctable=True, label=f"correctable {where}"))
        kinds = KINDS if lane is None else KINDS[:1]
        for kind in kinds:
            events.append(Result("", "exec", None, True, lane=lane, correctable_refusal=kind, label=f"refusal {kind} {where}"))
    events.append(Result("", "grep", None, True, empty_lookup=True, label="empty lookup"))
    return events


def fresh_successes() -> list[Result]:
    """Fresh successes: params A in each lane (lane resets), B and A' without a lane, pending, two discoveries.

    The lane and the fingerprint are read by separate rules (lane reset,
    identical count): A in each lane exercises the resets, B (another
    fingerprint) and A' (A with its keys reordered at every depth: the same
    fingerprint) the identical-success count. A pending receipt resets rounds
    before its fingerprint or lane matters beyond the plain success, so one
    without a lane suffices. Discovery has no effect at all; both of its
    triggers appear (the flag, and a discovery tool).
    """
    events = [Result("", "read", PARAMS_A, False, lane=lane, label=f"ok A {lane or 'no lane'}") for lane in LANE_CHOICES]
    events.append(Result("", "read", PARAMS_B, False, label="ok B no lane"))
    events.append(Result("", "read", PARAMS_A_REORDERED, False, label="ok A' no lane"))
    events.append(Result("", "exec", PARAMS_A, False, pending=True, label="pending no lane"))
    events.append(Result("", "read", PARAMS_A, False, discovery=True, label="discovery flag"))
    events.append(Result("", "tool_search", PARAMS_A, False, label="discovery tool"))
    return events


def corrected_receipts() -> list[Result]:
    """Corrected receipts, offered only while a charge waits: nothing else reads ``corrected`` (rule 5).

    A passing inspection in each lane and without one (same lane, other lane,
    global), and a corrected discovery (which must neither forgive nor charge).
    The pass carries A's fingerprint: a third fingerprint would only multiply
    the success memories, and the identical-success count does not look at
    ``corrected``.
    """
    events = [
        Result("", "read", PARAMS_A, False, lane=lane, corrected=True, label=f"corrected pass {lane or 'no lane'}")
        for lane in LANE_CHOICES
    ]
    events.append(Result("", "pixel_ods_skill", PARAMS_A, False, corrected=True, label="corrected discovery"))
    return events


FRESH_FAILURES = tuple(fresh_failures())


FRESH_SUCCESSES = tuple(fresh_successes())


CORRECTED = tuple(corrected_receipts())


ONE_FINGERPRINT = tuple(event for event in FRESH_SUCCESSES if event.params is PARAMS_A)


#: The narrow alphabet of the deep run at the real limits: rounds, empty lookups, a success and plain
#: failures in each lane. It reaches run-wide numbers (the 9th round, the 12th and 13th empty lookup, the 11th
#: and 12th failure) that the full alphabet cannot reach at a depth a breadth-first search can afford.
COUNTERS = (FRESH_SUCCESSES[0],) + tuple(
    event for event in FRESH_FAILURES if not (event.correctable or event.correctable_refusal)
)


#: While every copy is terminal every receipt is ignored (rule 1), whatever its flags; one of each outcome suffices.
TERMINAL_RESULTS = (FRESH_FAILURES[0], FRESH_SUCCESSES[0])


#: A repeated call id: a failure and a success. Copies that remember the id must ignore it (B12);
#: a copy that does not (evicted, or stopped when it came) counts it as fresh.
DUPLICATES = (FRESH_FAILURES[0], FRESH_SUCCESSES[0])




def with_id(template: Result, call_id: str, label: str) -> Result:
    event = attrs.evolve(template, call_id=call_id, label=label)
    ORIGIN[id(event)] = (template, LABEL_OF[call_id])
    _KEEP.append(event)
    return event


#: Every alphabet event made from a template: (template, the label of its call id). The events are
#: kept alive (``_KEEP``) so that their ids stay theirs.
ORIGIN: dict[int, tuple[Result, int]] = {}


_KEEP: list[Event] = []


_ALPHABETS: dict[tuple, tuple[Event, ...]] = {}


#: The events without a call id: one object each, so that a copy's moves can be cached on them.
ROUND = Round()


STOP = Stop()


FIRST_CALLS = (FirstCall(remedy=True), FirstCall(remedy=False))


def alphabet(
    any_open: bool, any_terminal: bool, waiting: bool, remembered: int, fingerprints: bool = True, kind: str = "full",
) -> tuple[Event, ...]:
    """Every event offered from a state with this shape; ``remembered`` ids are named c0 .. c(n-1)."""
    shape = (any_open, any_terminal, waiting, remembered, fingerprints, kind)
    if kind == "counters":
        cached = _ALPHABETS.get(shape)
        if cached is None:
            fresh = ID_NAMES[remembered]
            cached = (ROUND,) + tuple(with_id(template, fresh, template.label) for template in COUNTERS)
            _ALPHABETS[shape] = cached
        return cached
    cached = _ALPHABETS.get(shape)
    if cached is not None:
        return cached
    fresh = ID_NAMES[remembered]
    events: list[Event] = [ROUND]
    if any_open:
        events.append(STOP)
        successes = FRESH_SUCCESSES if fingerprints else ONE_FINGERPRINT
        templates = FRESH_FAILURES + successes + (CORRECTED if waiting else ())
    else:
        templates = TERMINAL_RESULTS
    events.extend(with_id(template, fresh, template.label) for template in templates)
    for index in range(remembered):
        for template in DUPLICATES:
            events.append(with_id(template, ID_NAMES[index], f"repeat {template.label}"))
    if any_terminal:
        # Only correct_fuse with a pending correction may re-open; offering it at every stop checks that (B12).
        events.extend(FIRST_CALLS)
    result = tuple(events)
    _ALPHABETS[shape] = result
    return result


def events_of(key: State, config: Config) -> tuple[Event, ...]:
    """The alphabet offered from ``key``: it depends on the state's shape only (see ``alphabet``)."""
    copies = key.copies
    any_open = not all(copy.terminal for copy in copies)
    any_terminal = any(copy.terminal for copy in copies)
    # Only an open copy reads ``corrected``; a stopped one ignores the receipt whatever waits in it.
    waiting = any(copy.deferred != 0 and not copy.terminal for copy in copies[1:])
    return alphabet(any_open, any_terminal, waiting, key.remembered, config.fingerprints, config.alphabet)


def event_at(key: State, number: int, config: Config) -> Event:
    return events_of(key, config)[number]
