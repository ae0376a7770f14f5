"""Driver 2: the exhaustive explorer, a breadth-first search over every reachable state.

A *state* is every compared copy together (``R``, ``P0``, ``P``, ``Pu``,
``Pd``, ``Pr``, ``Pl`` as ``properties.budget.copies.new_copies`` makes them) plus
the monitor's history (``Monitor.history()``). From each state the explorer
delivers every event of a finite alphabet (below) to copies of that state,
through ``Monitor.step``, so every invariant of the catalogue is checked on
every edge; the explorer itself checks nothing.

Two modes (``configurations``):

* small scope: scaled-down limits, explored until no new state appears. With
  the canonical form below the state space is finite, so reaching the fixpoint
  is a complete proof of B1-B13 for those limits and this alphabet.
* the real limits (``Limits()``, held to ``SPEC_LIMITS``), to a fixed depth:
  every trace of at most that many events; once with the whole alphabet and
  once deeper with the few events that move the run-wide counters.

Cost: ``Monitor.step`` (seven copies, twelve checks) is most of each edge, so
the search saves states, not steps: the canonical form (``encode``) merges
mirror images and forgets what can no longer matter (the memories of copies
stopped for good, the counters of every stopped copy once the reference has
stopped, see ``_reference_settled``); B13, a property of a state rather than
of a step, is checked once per distinct state of ``P`` (``Expander.probe``);
and the default set splits each level between two forked processes.

Why each search terminates (correct budgets; a broken one may not, hence the
``MAX_STATES`` safety net, which reports the configuration incomplete):

* ``failures`` only grows while a copy is open and a copy is terminal once it
  reaches the total cap; a remedy re-opens only below the cap (B8). So
  failures <= total cap, and ``consecutive`` and each lane counter, which
  count failures since their last reset, are bounded by it too.
* ``rounds`` is bounded by the rounds cap + 1 in the canonical form: past the
  cap the copy is terminal with no correction, so it can never re-open, and no
  rule compares rounds other than against the cap.
* deferrals <= corrected attempts, granted kinds <= the two kinds of the
  alphabet, free lookups <= their allowance, success counts are capped at the
  identical-success limit + 1 (only ``count <= limit`` is ever read), the
  success memory holds at most its cap of the alphabet's two fingerprints.
* call ids are renamed canonically, so only the shape of each copy's memory
  matters; with a small seen-calls cap that memory is a bounded sequence.
* the monitor's history: three booleans, admissions <= granted kinds, double
  charges <= deferrals.

Hence the canonical state space is finite and breadth-first search reaches a
fixpoint. Breadth first also gives the shortest violating trace: every state
at a smaller depth was expanded before.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
from collections import deque
from pathlib import Path
from typing import Any, Iterable, Sequence

import attrs

from guard.limits import Limits
from properties.budget.copies import ALL_COPIES, SPEC_LIMITS, new_copies, reference_limits
from properties.counterexample import DEFAULT_DIR, Counterexample, record
from properties.budget.events import Event, FirstCall, Result, Round, Stop
from properties.budget.invariants import BY_ID, CATALOGUE, Monitor, Tally, Violation
from reference.budget import ReferenceBudget


#: A broken budget may have an infinite state space; past this many states a run stops, incomplete.
#: The default set's largest scope has under 30,000 states, the quick set's under 3,000.
MAX_STATES = 100_000
QUICK_MAX_STATES = 20_000
_TRACE_LEVELS = False

LANES = ("workspace", "extension")

# -- configurations ------------------------------------------------------------


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


def _small(consecutive: int, total: int, rounds: int, free: int, identical: int, seen: int, successes: int) -> Limits:
    return Limits(
        consecutive_failures=consecutive, total_failures=total, rounds_without_progress=rounds,
        identical_successes=identical, corrected_attempts=SPEC_LIMITS.corrected_attempts, free_empty_lookups=free,
        seen_calls=seen, successes=successes,
    )


def _scope(name: str, spec: Limits, **options: Any) -> Config:
    """A small scope to its fixpoint. Its deferral allowance is the real one, so production keeps its own default.

    That way a changed default for ``corrected_attempts`` in ``guard/limits.py``
    runs against the reference and invariants held to the spec's 2 in every scope.
    """
    production = attrs.evolve(spec, corrected_attempts=Limits().corrected_attempts)
    return Config(name, production, None, spec, **options)


def configurations(quick: bool) -> list[Config]:
    """The explorations of one run. ``quick`` is the set the unit tests and mutation runs use (a few seconds).

    Small scopes keep corrected attempts at 2 (the two-per-run rule needs two)
    and a seen-calls cap of 1, so that eviction and the re-observation of an
    evicted id are part of every proof. The consecutive-3/total-5 scope leaves
    out the other fingerprints (B, and A with reordered keys): identical-success
    accounting is a rule the seeds do not touch, proved with them in the
    smaller scopes and checked at the real limits, while that scope is about the
    fuses and the total cap, where they would triple the states.
    """
    tiny = [
        _scope("small c1 t2", _small(1, 2, 1, 1, 1, 1, 1)),
        _scope("small c2 t2", _small(2, 2, 1, 1, 1, 1, 1)),
        # Total 3 leaves room for a third deferral, a second grant of a kind and a grant after a lane failure.
        _scope("small c1 t3", _small(1, 3, 1, 1, 1, 1, 1)),
    ]
    if quick:
        return tiny + [Config("real limits", Limits(), 4, SPEC_LIMITS)]
    # A consecutive-2/total-3 scope (5,798 states, about 14 s) sits between c1 t3 and c3 t5 and adds
    # nothing either misses; it is left out so the default run keeps its 60 s budget on two cores.
    return tiny + [
        _scope("small c3 t5", _small(3, 5, 1, 1, 1, 1, 1), fingerprints=False),
        Config("real limits", Limits(), 6, SPEC_LIMITS),
        # Deep enough for the 9th round, the 13th empty lookup and the 12th failure at the real limits.
        Config("real limits, counters", Limits(), 13, SPEC_LIMITS, alphabet="counters"),
    ]


# -- the alphabet ----------------------------------------------------------------

#: Three success params: A, A with its keys (and a nested object's keys) in another order, and B.
#: A and A' must count as one identical success (the fingerprint sorts keys at every depth); B must not.
PARAMS_A = {"path": "a.txt", "opts": {"lines": 1, "mode": "r"}}
PARAMS_A_REORDERED = {"opts": {"mode": "r", "lines": 1}, "path": "a.txt"}
PARAMS_B = {"path": "b.txt", "opts": {"lines": 1, "mode": "r"}}
KINDS = ("playground-first-write", "playground-project-path")
LANE_CHOICES = (None,) + LANES

#: Receipt that no budget counts (no usable call id); used to re-read a state for B13.
PROBE_EVENT = Result(call_id="", tool="read", label="explorer: B13 probe")


def _failures() -> list[Result]:
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


def _successes() -> list[Result]:
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


def _corrected() -> list[Result]:
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


FRESH_FAILURES = tuple(_failures())
FRESH_SUCCESSES = tuple(_successes())
CORRECTED = tuple(_corrected())
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

ID_NAMES = [f"c{index}" for index in range(4096)]


def _with_id(template: Result, call_id: str, label: str) -> Result:
    return attrs.evolve(template, call_id=call_id, label=label)


_ALPHABETS: dict[tuple, tuple[Event, ...]] = {}


def alphabet(
    any_open: bool, any_terminal: bool, waiting: bool, remembered: int, fingerprints: bool = True, kind: str = "full",
) -> tuple[Event, ...]:
    """Every event offered from a state with this shape; ``remembered`` ids are named c0 .. c(n-1)."""
    shape = (any_open, any_terminal, waiting, remembered, fingerprints, kind)
    if kind == "counters":
        cached = _ALPHABETS.get(shape)
        if cached is None:
            fresh = ID_NAMES[remembered]
            cached = (Round(),) + tuple(_with_id(template, fresh, template.label) for template in COUNTERS)
            _ALPHABETS[shape] = cached
        return cached
    cached = _ALPHABETS.get(shape)
    if cached is not None:
        return cached
    fresh = ID_NAMES[remembered]
    events: list[Event] = [Round()]
    if any_open:
        events.append(Stop())
        successes = FRESH_SUCCESSES if fingerprints else ONE_FINGERPRINT
        templates = FRESH_FAILURES + successes + (CORRECTED if waiting else ())
    else:
        templates = TERMINAL_RESULTS
    events.extend(_with_id(template, fresh, template.label) for template in templates)
    for index in range(remembered):
        for template in DUPLICATES:
            events.append(_with_id(template, ID_NAMES[index], f"repeat {template.label}"))
    if any_terminal:
        # Only correct_fuse with a pending correction may re-open; offering it at every stop checks that (B12).
        events.append(FirstCall(remedy=True))
        events.append(FirstCall(remedy=False))
    result = tuple(events)
    _ALPHABETS[shape] = result
    return result


# -- copying and canonical states ---------------------------------------------------

_CLONERS: dict[type, Any] = {}


def _make_cloner(budget: Any) -> Any:
    """Compile a copier for the budget's attrs class: containers copied once, everything else shared.

    Every field is an int, bool, str, None, a frozen limits value, or a dict,
    set or deque of those, so copying each container once is a deep copy. The
    plan is read from the fields' values (``attrs.fields``), so a subclass with
    the same fields (a planted bug in a test) is copied correctly too.
    """
    cls = type(budget)
    lines = ["def clone(budget):", "    twin = new(cls)"]
    for field in attrs.fields(cls):
        value = getattr(budget, field.name)
        suffix = ".copy()" if isinstance(value, (dict, set, deque)) else ""
        lines.append(f"    twin.{field.name} = budget.{field.name}{suffix}")
    lines.append("    return twin")
    namespace: dict[str, Any] = {"new": object.__new__, "cls": cls}
    exec("\n".join(lines), namespace)  # generated from attrs.fields only; no outside input
    return namespace["clone"]


def clone(budget: Any) -> Any:
    """A copy of a budget equal to ``copy.deepcopy(budget)`` except that the frozen limits are shared."""
    cloner = _CLONERS.get(type(budget))
    if cloner is None:
        cloner = _CLONERS[type(budget)] = _make_cloner(budget)
    return cloner(budget)


_DEFERRED_CODES = {None: 0, "global": 1, "workspace": 2, "extension": 3}
_DEFERRED_NAMES = {code: name for name, code in _DEFERRED_CODES.items()}
_SWAP_CODE = (0, 1, 3, 2)
_SWAP_BITS = (0, 2, 1, 3)


def _core(budget: Any, production: bool) -> tuple[tuple, tuple]:
    """The copy's counters, as read and with the two lanes swapped (the lane symmetry)."""
    limits = budget.limits
    lanes = budget.lane_failures
    workspace, extension = lanes["workspace"], lanes["extension"]
    exhausted = budget.exhausted_lanes
    bits = ("workspace" in exhausted) | (("extension" in exhausted) << 1)
    rounds = min(budget.rounds, limits.rounds_without_progress + 1)
    head = (budget.terminal, rounds, budget.failures, budget.consecutive)
    if production:
        code = _DEFERRED_CODES.get(budget.deferred, 9)
        tail = (
            code, budget.deferrals_used, budget.correction or "",
            tuple(sorted(budget.corrected_kinds)), budget.free_lookups_used,
        )
        swapped_tail = (_SWAP_CODE[code] if code < 4 else code,) + tail[1:]
    else:
        tail = swapped_tail = ()
    return head + (workspace, extension, bits) + tail, head + (extension, workspace, _SWAP_BITS[bits]) + swapped_tail


@attrs.frozen
class Canon:
    """How a configuration canonicalizes states; switches exist so the tests can compare with and without."""

    #: Keep each copy's memory of call ids in order (needed once eviction can happen).
    ordered_ids: bool
    symmetry: bool = True
    cap_counts: bool = True
    #: Forget the memories of copies stopped for good (see ``_dead``).
    drop_dead: bool = True


def encode(budgets: Sequence[Any], history: tuple, canon: Canon) -> tuple:
    """The canonical, hashable form of a state (copies in ``ALL_COPIES`` order plus the monitor's history).

    * Call ids are renamed by recency: scanning the copies in a fixed order,
      newest first, the first id met becomes c0, the next new one c1, ... Only
      which copies remember which ids, and in what order, is kept; an id no
      copy remembers is the same as a fresh one. Without eviction (real limits
      to a depth below the seen-calls cap) order cannot matter either, so each
      id is reduced to the set of copies remembering it.
    * Success counts are capped at the identical-success limit + 1, rounds at
      the rounds cap + 1 (see the module docstring).
    * The lanes are symmetric: a state and its mirror image (workspace and
      extension swapped in every copy) are one state; the alphabet offers every
      lane event in both lanes, so the mirror's successors are the mirrors of
      the successors.
    """
    settled = canon.drop_dead and _reference_settled(budgets, history)
    plain = []
    mirrored = []
    memories = []
    for index, budget in enumerate(budgets):
        dead = canon.drop_dead and _dead(budget, index)
        if settled and dead:
            core = mirror = _DEAD_CORES[index > 0]
        else:
            core, mirror = _core(budget, index > 0)
        plain.append(core)
        mirrored.append(mirror)
        successes = budget.successes
        if dead:
            memories.append(())
        elif canon.cap_counts:
            cap = budget.limits.identical_successes + 1
            memories.append(tuple((key, count if count < cap else cap) for key, count in successes.items()))
        else:
            memories.append(tuple(successes.items()))
    cores = tuple(plain)
    if canon.symmetry:
        other = tuple(mirrored)
        if other < cores:
            cores = other
    if not canon.cap_counts:
        cores = tuple(
            core if core in _DEAD_CORES else core[:1] + (budget.rounds,) + core[2:] for core, budget in zip(cores, budgets)
        )
    if settled:
        history = _settled_history(history, budgets)
    return (cores, _encode_ids(budgets, canon), tuple(memories), history)


#: The one core every copy stopped for good is given once the reference is stopped (see ``_reference_settled``).
_DEAD_CORES = (
    (True, 0, 0, 0, 0, 0, 0),
    (True, 0, 0, 0, 0, 0, 0, 0, 0, "", (), 0),
)


def _reference_settled(budgets: Sequence[Any], history: tuple) -> bool:
    """The reference is stopped and no open or pending copy is still compared with its counters.

    Once ``R`` is stopped, the invariants read the counters of a copy stopped
    for good only to compare them with ``R``'s (B1 for ``P0`` and for a
    per-feature copy whose feature is unused, B8 for ``Pr`` without an
    admission), and those comparisons were made on the step that stopped them,
    with the real counters: equal then, equal forever, since no stopped copy
    changes again except its rounds, in step with ``R``'s. ``B6`` and ``B2``
    read only the terminal flag of a stopped ``R``, ``B3`` skips it, ``B10``
    holds for any copy stopped for good. So every such copy, ``R`` included,
    can be given one and the same core: states that differ only in what the
    stopped copies counted merge. The one exception is a ``Pr`` holding a
    correction with no admission yet: it is not stopped for good and B8 still
    compares it with ``R``, so nothing is merged then.
    """
    if not budgets[0].terminal:
        return False
    pr = budgets[ALL_COPIES.index("Pr")]
    admissions = dict(zip(_ADMISSION_KEYS, history[1]))
    return not (pr.correction is not None and admissions["Pr"] == 0)


def _settled_history(history: tuple, budgets: Sequence[Any]) -> tuple:
    """The history once the reference is settled: feature flags no longer matter, nor a stopped copy's streak.

    B1 skips a per-feature copy once its feature is used; every copy it would
    still compare is stopped for good and carries the same core as ``R``, so the
    flags are set to "used". The streak counts are read (B9) only while their
    copy is open, so a copy stopped for good gets zero, and the lookup-only flag
    only matters while ``Pl`` can still move.
    """
    features, admissions, streak, doubles, lookups_only = history
    alive = [not _dead(budgets[ALL_COPIES.index(name)], ALL_COPIES.index(name)) for name in _ADMISSION_KEYS]
    streak = tuple(value if keep else 0 for value, keep in zip(streak, alive))
    doubles = tuple(value if keep else 0 for value, keep in zip(doubles, alive))
    # B11's lookup-only clause reads Pl's rounds, which a copy stopped for good no longer keeps.
    lookups_only = lookups_only and not _dead(budgets[ALL_COPIES.index("Pl")], ALL_COPIES.index("Pl"))
    return (tuple(True for _ in features), admissions, streak, doubles, lookups_only)


def _dead(budget: Any, index: int) -> bool:
    """Stopped for good: terminal with no correction to admit (the reference never has one).

    Such a copy ignores every receipt and ``correct_fuse`` cannot re-open it, so
    nothing will ever read its memory of call ids or successes again; dropping
    that memory merges states that differ only in what a stopped copy saw.
    """
    return budget.terminal and (index == 0 or budget.correction is None)


def _encode_ids(budgets: Sequence[Any], canon: Canon) -> tuple:
    live = [not (canon.drop_dead and _dead(budget, index)) for index, budget in enumerate(budgets)]
    if canon.ordered_ids:
        labels: dict[str, int] = {}
        out = []
        for budget, keep in zip(budgets, live):
            if not keep:
                out.append(())
                continue
            out.append(tuple(labels.setdefault(call_id, len(labels)) for call_id in reversed(budget.seen_calls)))
        return ("ordered", tuple(out))
    signatures: dict[str, int] = {}
    for index, budget in enumerate(budgets):
        if not live[index]:
            continue
        bit = 1 << index
        for call_id in budget.seen_calls:
            signatures[call_id] = signatures.get(call_id, 0) | bit
    return ("sets", tuple(sorted(set(signatures.values()))))


def remembered_count(key: tuple) -> int:
    kind, data = key[1]
    if kind == "sets":
        return len(data)
    return 1 + max((label for labels in data for label in labels), default=-1)


def decode(key: tuple, prototypes: Sequence[Any]) -> list[Any]:
    """Budgets in the state ``key`` (canonical names: ids c0, c1, ...), made from fresh ``prototypes``."""
    cores, (id_kind, id_data), memories, _history = key
    budgets = []
    for index, (prototype, core, memory) in enumerate(zip(prototypes, cores, memories)):
        budget = clone(prototype)
        terminal, rounds, failures, consecutive, workspace, extension, bits = core[:7]
        budget.terminal = terminal
        budget.rounds = rounds
        budget.failures = failures
        budget.consecutive = consecutive
        budget.lane_failures = {"workspace": workspace, "extension": extension}
        budget.exhausted_lanes = {lane for bit, lane in ((1, "workspace"), (2, "extension")) if bits & bit}
        if index > 0:
            code, used, correction, kinds, free = core[7:]
            budget.deferred = _DEFERRED_NAMES[code]
            budget.deferrals_used = used
            budget.correction = correction or None
            budget.corrected_kinds = set(kinds)
            budget.free_lookups_used = free
        if id_kind == "ordered":
            ids = [ID_NAMES[label] for label in reversed(id_data[index])]
        else:
            ids = [ID_NAMES[number] for number, signature in enumerate(id_data) if signature >> index & 1]
        budget.seen_calls = deque(ids)
        budget.seen_call_set = set(ids)
        budget.successes = dict(memory)
        budgets.append(budget)
    return budgets


# -- the monitor's history -----------------------------------------------------------


def _history_keys() -> tuple[tuple[str, ...], tuple[str, ...]]:
    fresh = Monitor(limits=Limits(), tally=Tally(), budgets=new_copies(Limits()))
    assert tuple(fresh.admissions) == tuple(fresh.streak_admissions) == tuple(fresh.streak_double_charges)
    return tuple(fresh.feature_used), tuple(fresh.admissions)


_FEATURE_KEYS, _ADMISSION_KEYS = _history_keys()


def restore_history(monitor: Monitor, history: tuple) -> None:
    """Set a monitor's history to ``history`` (as ``Monitor.history()`` returned it)."""
    features, admissions, streak, doubles, lookups_only = history
    monitor.feature_used = dict(zip(monitor.feature_used, features))
    monitor.admissions = dict(zip(monitor.admissions, admissions))
    monitor.streak_admissions = dict(zip(monitor.streak_admissions, streak))
    monitor.streak_double_charges = dict(zip(monitor.streak_double_charges, doubles))
    monitor.lookups_only = lookups_only
    monitor.flags = set()


# -- results ------------------------------------------------------------------------


@attrs.frozen
class ConfigResult:
    name: str
    limits: str
    states: int
    edges: int
    depth: int
    complete: bool
    seconds: float
    #: Every violation of the first violating step (the shortest, breadth first), in catalogue order.
    violations: tuple[Violation, ...] = ()
    path: tuple[Event, ...] = ()
    max_depth: int | None = None
    #: This configuration's own check counts (also merged into the caller's tally).
    tally: Tally = attrs.field(factory=Tally, eq=False, repr=False)
    #: The canonical states reached, when asked for (``keep_states``; the tests compare canonical forms).
    reached: frozenset = attrs.field(default=frozenset(), eq=False, repr=False)

    @property
    def violation(self) -> Violation | None:
        return self.violations[0] if self.violations else None

    @property
    def finished(self) -> bool:
        """Reached its fixpoint (a small scope) or its depth (the real limits); not cut short by ``MAX_STATES``."""
        if self.complete:
            return True
        return self.max_depth is not None and self.depth >= self.max_depth

    @property
    def states_per_second(self) -> float:
        return self.states / self.seconds if self.seconds > 0 else float("inf")

    @property
    def edges_per_second(self) -> float:
        return self.edges / self.seconds if self.seconds > 0 else float("inf")

    def row(self) -> str:
        reach = "fixpoint" if self.complete else f"depth {self.depth}"
        verdict = f"VIOLATED {self.violation.invariant}" if self.violation else "ok" if self.finished else "CUT SHORT"
        return (
            f"{self.name:<20} {self.states:>9,} states {self.edges:>10,} edges  depth {self.depth:>3}  "
            f"{'complete' if self.complete else 'bounded ':<8}  {self.seconds:6.2f} s  "
            f"{self.states_per_second:>9,.0f} states/s  {self.edges_per_second:>9,.0f} edges/s  {verdict}"
            f"\n{'':<20} {self.limits}  ({reach})"
        )


@attrs.frozen
class ExplorerResult:
    rows: tuple[ConfigResult, ...]
    counterexample: Counterexample | None = None

    @property
    def ok(self) -> bool:
        """No violation, and every configuration finished: a proof cut short by the state limit proves nothing."""
        return self.counterexample is None and all(row.violation is None and row.finished for row in self.rows)

    @property
    def states(self) -> int:
        return sum(row.states for row in self.rows)

    @property
    def edges(self) -> int:
        return sum(row.edges for row in self.rows)

    @property
    def seconds(self) -> float:
        return sum(row.seconds for row in self.rows)

    def render(self) -> str:
        lines = ["exhaustive explorer (breadth first; every invariant on every edge, B13 once per distinct state of P):"]
        lines.extend(row.row() for row in self.rows)
        lines.append(
            f"{'total':<20} {self.states:>9,} states {self.edges:>10,} edges  {self.seconds:.2f} s  "
            f"{self.states / self.seconds if self.seconds else 0:,.0f} states/s"
        )
        if self.counterexample is not None:
            lines.append(self.counterexample.render())
        return "\n".join(lines)


# -- the search ----------------------------------------------------------------------

EDGE_INVARIANTS = tuple(invariant for invariant in CATALOGUE if invariant.id != "B13")
STATE_INVARIANTS = (BY_ID["B13"],)


def _prototypes(config: Config) -> list[Any]:
    copies = new_copies(config.limits)
    if config.spec is not None:
        # The reference is the oracle: it runs with the spec's numbers, not with whatever Limits() says.
        copies["R"] = ReferenceBudget(reference_limits(config.spec))
    return [copies[name] for name in ALL_COPIES]


def _canon_for(config: Config) -> Canon:
    # Without eviction the order of remembered ids cannot matter: every id stays remembered.
    bounded = config.max_depth is not None and config.max_depth <= min(config.limits.seen_calls, config.oracle.seen_calls)
    return Canon(ordered_ids=not bounded)


def _path(parents: dict[tuple, tuple[tuple | None, Event | None]], key: tuple) -> list[Event]:
    events: list[Event] = []
    while True:
        parent, event = parents[key]
        if parent is None:
            break
        events.append(event)
        key = parent
    events.reverse()
    return events


class Expander:
    """Expands states: every event of the alphabet through ``Monitor.step``, the children encoded.

    It keeps its own set of states already seen (so that it returns only
    children new to it) and of P-states already probed for B13. The search runs
    one in process, or one per forked worker process, each expanding a
    contiguous slice of every breadth-first level.
    """

    def __init__(self, config: Config, canon: Canon) -> None:
        self.config = config
        self.canon = canon
        self.prototypes = _prototypes(config)
        self.tally = Tally()
        #: Probe steps check B13 only; their coverage and step counts are not trace steps.
        self.probe_tally = Tally()
        oracle = config.oracle
        self.edge_monitor = Monitor(
            limits=oracle, tally=self.tally, budgets=dict(zip(ALL_COPIES, self.prototypes)),
            invariants=EDGE_INVARIANTS, failure_ends_probes="off",
        )
        self.probe_monitor = Monitor(
            limits=oracle, tally=self.probe_tally, budgets={"R": self.prototypes[0], "P": self.prototypes[2]},
            invariants=STATE_INVARIANTS, failure_ends_probes="all",
        )
        self.seen: set[tuple] = set()
        self.probed: set[tuple] = set()

    def start(self) -> tuple[tuple, list[Violation]]:
        budgets = [clone(prototype) for prototype in self.prototypes]
        key = encode(budgets, self.edge_monitor.history(), self.canon)
        self.seen.add(key)
        return key, self.probe(budgets, 0)

    def probe(self, after: list[Any], index: int) -> list[Violation]:
        """B13 is a property of P's state, not of a step: check it once per distinct (mirror-reduced) state of P."""
        p_core = min(_core(after[2], True))
        if p_core in self.probed:
            return []
        self.probed.add(p_core)
        self.probe_monitor.budgets = {"R": after[0], "P": after[2]}
        self.probe_monitor.index = index
        return self.probe_monitor.step(PROBE_EVENT)

    def expand(self, keys: Sequence[tuple], depth: int) -> tuple[list[tuple[int, int, tuple]], tuple | None]:
        """Children new to this expander as (key index, event index, child); and the first violation, if any.

        A violation is (key index, event index, the step's violations, probe):
        ``probe`` when it is B13's, found at the child that edge reached.
        """
        children: list[tuple[int, int, tuple]] = []
        monitor = self.edge_monitor
        seen = self.seen
        canon = self.canon
        fingerprints = self.config.fingerprints
        for position, key in enumerate(keys):
            template = decode(key, self.prototypes)
            any_open = not all(budget.terminal for budget in template)
            any_terminal = any(budget.terminal for budget in template)
            # Only an open copy reads ``corrected``; a stopped one ignores the receipt whatever waits in it.
            waiting = any(budget.deferred is not None and not budget.terminal for budget in template[1:])
            history = key[3]
            events = alphabet(any_open, any_terminal, waiting, remembered_count(key), fingerprints, self.config.alphabet)
            for number, event in enumerate(events):
                budgets = [clone(budget) for budget in template]
                monitor.budgets = dict(zip(ALL_COPIES, budgets))
                restore_history(monitor, history)
                monitor.index = depth
                found = monitor.step(event)
                if found:
                    return children, (position, number, found, False)
                child = encode(budgets, monitor.history(), canon)
                if child in seen:
                    continue
                seen.add(child)
                children.append((position, number, child))
                bad = self.probe(budgets, depth + 1)
                if bad:
                    return children, (position, number, bad, True)
        return children, None

    def counts(self) -> Tally:
        """Check counts of this expander: every edge, plus B13 once per probed state (no coverage counts)."""
        out = Tally()
        out.add_checks(self.tally)
        out.exercised.update(self.tally.exercised)
        out.violations.extend(self.tally.violations)
        out.steps = self.tally.steps
        out.add_checks(self.probe_tally)
        out.exercised["B13"] += self.probe_tally.exercised["B13"]
        out.violations.extend(self.probe_tally.violations)
        return out


def _worker(connection: Any, config: Config, canon: Canon) -> None:
    """A forked expander: per level, receive (new states, my slice, depth), send back children and violation."""
    expander = Expander(config, canon)
    expander.start()
    while True:
        message = connection.recv()
        if message is None:
            connection.send(expander.counts())
            connection.close()
            return
        fresh, start, stop, depth = message
        expander.seen.update(fresh)
        children, violation = expander.expand(fresh[start:stop], depth)
        connection.send(([(position + start, number, child) for position, number, child in children], violation and (violation[0] + start,) + violation[1:]))


class _Pool:
    """Forked expanders, one per slice of each level; children are merged back in frontier order (deterministic)."""

    def __init__(self, config: Config, canon: Canon, workers: int) -> None:
        context = multiprocessing.get_context("fork")
        self.connections = []
        self.processes = []
        for _ in range(workers):
            mine, theirs = context.Pipe()
            process = context.Process(target=_worker, args=(theirs, config, canon), daemon=True)
            process.start()
            self.connections.append(mine)
            self.processes.append(process)

    def expand(self, frontier: list[tuple], depth: int) -> tuple[list[tuple[int, int, tuple]], tuple | None]:
        size = len(frontier)
        count = len(self.connections)
        bounds = [size * index // count for index in range(count + 1)]
        for index, connection in enumerate(self.connections):
            connection.send((frontier, bounds[index], bounds[index + 1], depth))
        children: list[tuple[int, int, tuple]] = []
        violation = None
        for connection in self.connections:
            found_children, found = connection.recv()
            if violation is None:
                children.extend(found_children)
                violation = found
        return children, violation

    def close(self) -> Tally:
        total = Tally()
        for connection in self.connections:
            connection.send(None)
            total.merge(connection.recv())
        for process in self.processes:
            process.join()
        return total


def explore(
    config: Config, tally: Tally, canon: Canon | None = None, max_states: int = MAX_STATES, workers: int = 1,
    keep_states: bool = False,
) -> ConfigResult:
    """Breadth-first search of ``config``; check counts go into ``tally``; stops at the first violation.

    With ``workers`` > 1 each level is split between forked processes; the
    states, edges, order and any counterexample are the same as with one (B13's
    per-state probes may be repeated across workers, so its check count is not).
    """
    started = time.perf_counter()
    canon = canon or _canon_for(config)
    local = Expander(config, canon)
    start, start_violations = local.start()
    parents: dict[tuple, tuple[tuple | None, Event | None]] = {start: (None, None)}
    pool = _Pool(config, canon, workers) if workers > 1 else None
    frontier = [start]
    depth = 0
    edges = 0
    violations: list[Violation] = list(start_violations)
    path: tuple[Event, ...] = (PROBE_EVENT,) if violations else ()
    truncated = False
    try:
        while frontier and not violations and (config.max_depth is None or depth < config.max_depth):
            if pool is not None:
                children, found = pool.expand(frontier, depth)
            else:
                children, found = local.expand(frontier, depth)
            following: list[tuple] = []
            for position, number, child in children:
                if child in parents:
                    continue
                key = frontier[position]
                parents[child] = (key, _event_at(key, number, config))
                following.append(child)
            last = found[0] if found is not None else len(frontier) - 1
            edges += sum(len(_events_of(frontier[index], config)) for index in range(last))
            edges += (found[1] + 1) if found is not None else len(_events_of(frontier[last], config))
            depth += 1
            if found is not None:
                position, number, violations, probed = found
                key = frontier[position]
                path = tuple(_path(parents, key)) + (_event_at(key, number, config),)
                if probed:
                    path += (PROBE_EVENT,)
                break
            frontier = following
            if _TRACE_LEVELS:
                print(f"  {config.name}: depth {depth}: {len(frontier)} new, {len(parents)} states, {edges} edges", file=sys.stderr, flush=True)
            if len(parents) > max_states:
                truncated = True
                break
    finally:
        counts = local.counts() if pool is None else _merge(local.counts(), pool.close())
    complete = not violations and not truncated and not frontier
    for violation in violations:
        if violation not in counts.violations:
            counts.violations.append(violation)
    tally.merge(counts)
    return ConfigResult(
        name=config.name, limits=config.summary, states=len(parents), edges=edges, depth=depth,
        complete=complete, seconds=time.perf_counter() - started, violations=tuple(violations), path=path,
        tally=counts, max_depth=config.max_depth, reached=frozenset(parents) if keep_states else frozenset(),
    )


def _merge(first: Tally, second: Tally) -> Tally:
    first.merge(second)
    return first


def _events_of(key: tuple, config: Config) -> tuple[Event, ...]:
    """The alphabet offered from ``key`` (the same the expander used)."""
    cores = key[0]
    any_open = not all(core[0] for core in cores)
    any_terminal = any(core[0] for core in cores)
    waiting = any(core[7] != 0 and not core[0] for core in cores[1:])
    return alphabet(any_open, any_terminal, waiting, remembered_count(key), config.fingerprints, config.alphabet)


def _event_at(key: tuple, number: int, config: Config) -> Event:
    return _events_of(key, config)[number]


def run_explorer(
    quick: bool, tally: Tally, out_dir: Path = DEFAULT_DIR, configs: Iterable[Config] | None = None,
) -> ExplorerResult:
    """Explore every configuration (stopping at the first violation) and merge the check counts into ``tally``."""
    rows = []
    counterexample = None
    # The quick set runs in process (unit tests, mutation runs); the default set splits each level over the cores.
    workers = 1 if quick else max(1, min(2, os.cpu_count() or 1))
    for config in configs if configs is not None else configurations(quick):
        row = explore(config, tally, max_states=QUICK_MAX_STATES if quick else MAX_STATES, workers=workers)
        rows.append(row)
        if row.violation is not None:
            counterexample = record("explorer", row.path, config.oracle, row.violation, out_dir)
            break
    return ExplorerResult(tuple(rows), counterexample)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m properties.budget.explorer", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the small set the unit tests use")
    parser.add_argument("--out", type=Path, default=DEFAULT_DIR, help="where a counterexample trace is saved")
    parser.add_argument("--levels", action="store_true", help="print the size of every breadth-first level")
    args = parser.parse_args(argv)
    global _TRACE_LEVELS
    _TRACE_LEVELS = args.levels
    tally = Tally()
    result = run_explorer(args.quick, tally, args.out)
    print(result.render())
    for invariant in CATALOGUE:
        print(f"  {invariant.id:<4} {tally.status(invariant.id):<8} checked {tally.checked[invariant.id]:>10,}  exercised {tally.exercised[invariant.id]:>10,}")
    return 0 if result.ok and tally.ok_for(BY_ID) else 1


if __name__ == "__main__":
    sys.exit(main())
