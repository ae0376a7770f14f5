"""Driver 2: the exhaustive explorer, a breadth-first search over every reachable state.

A *state* is every compared copy together (``R``, ``P0``, ``P``, ``Pu``,
``Pd``, ``Pr``, ``Pl`` as ``properties.budget.copies.new_copies`` makes them) plus
the monitor's history (``Monitor.history()``). From each state the explorer
delivers every event of a finite alphabet (below) to copies of that state,
through ``Monitor.step``, so every invariant of the catalogue is checked on
every edge; the explorer itself checks nothing.

The search is the engine's (``properties.engine.search``: the store of
states and their parent links, the level loop and its limits, both cores, the
collector, dropping a broken symmetry and searching again, the row type); this module is the
budget's model on it (``BudgetModel``): the configurations, the alphabet, the
canonical form, the batched ``Expander`` the engine drives (the ``Batched``
hook of ``properties.engine.model``), and the real traces rebuilt from the
canonical paths.

Three sets (``configurations``: quick, default, thorough), of two kinds:

* small scope: scaled-down limits, explored until no new state appears. With
  the canonical form below the state space is finite, so reaching the fixpoint
  is a complete proof of B1-B13 for those limits and this alphabet, *up to
  the two symmetries the canonical form merges by*: the guard treats the two
  lanes alike and the two refusal kinds alike. That is a property of the code
  under test, and the search checks it on every edge (``Expander._check_step``
  and its siblings): a rule that breaks it is reported ``symmetry broken``
  with a replayable trace, and the scope is searched again without it.
* the real limits (``Limits()``, held to ``SPEC_LIMITS``), to a fixed depth:
  every trace of at most that many events; once with the whole alphabet and
  once deeper with the few events that move the run-wide counters.

Cost. ``python -m properties.budget.explorer --profile default`` under
cProfile (small c1 t3, before this design) spent its time in
``Monitor.step`` (7 copies cloned, stepped and snapshotted per edge, then
12 checks), ``encode`` and ``clone``. So the search now saves work at every
level:

* states: the canonical form (``canonical``) merges mirror images (the two
  lanes, the two refusal kinds) and forgets what can no longer matter (the
  memories of copies stopped for good, the counters of every stopped copy
  once the reference has stopped, see ``_settled``);
* copies: a state is a tuple of named per-copy keys (``CopyKey``); a copy's
  next state depends only on its own state and the event, so each copy key
  is stepped with each event once, by the real ``guard`` or ``reference``
  code, and the move reused wherever that copy key meets that event again
  (``Expander.copy_moves``), by every copy of the same budget type and limits
  that receives the same flags (``Expander._entry``);
* ids: without eviction (the real limits, searched to a depth below the
  seen-calls cap) the memory of call ids is one bit of a move
  (``Expander._moves_unordered``) and lives in the state, not in the copy
  keys (``State.ids``: per id the set of copies remembering it), so a copy
  key's moves serve every state that holds it, whatever the ids; with
  eviction (the small scopes, seen-calls cap 1) each key keeps its memory;
* steps: every edge is judged by the catalogue's predicates through the
  monitor's own history update and coverage counts (``Expander.judge``, held
  equal to ``Monitor.step`` by a unit test), and a step equal to one judged
  before (same event, history and snapshots) is counted, not evaluated again
  (``_Verdict``), as B13, a property of a state rather than of a step, is
  checked once per distinct state of ``P`` (``Expander.probe``);
* the collector: a search keeps every state it reached and makes almost no
  reference cycles, so during a search CPython's cyclic collector runs
  rarely and never rescans a finished level (``properties.engine.collector``);
  with the default thresholds it took 40% of the counters search;
* cores: ``python -m properties`` runs the configurations of the default and
  thorough sets side by side, one process each, largest first
  (``properties.budget.drivers``); ``run_explorer`` alone (this module's
  command line) splits each level between this process and a forked one.

What stays exact: every edge is still judged (or counted as a step judged
before, with the same predicates' inputs), every copy key still stepped by
the real code; the caches only decide what is computed once.

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
* the monitor's history: three booleans, admissions <= granted kinds, each
  copy's place against the reference's fuse in 0 .. fuse + 1 (B9).

Hence the canonical state space is finite and breadth-first search reaches a
fixpoint. Breadth first also gives the shortest violating trace: every state
at a smaller depth was expanded before.

Counterexamples. The parent links join canonical states, so the events read
off them are no trace: a child is the canonical image of the real successor,
and the lanes, kinds or ids can switch midway. Once per violation the path is
rebuilt by delivering real events to real budgets from the start along the
canonical states (``_trace``), so the saved file replays as it is.
"""

from __future__ import annotations

import functools
import hashlib
import os
import sys
from collections import Counter, deque
from pathlib import Path
from typing import Any, Iterable, NamedTuple, Sequence

import attrs

from guard.budget import RunProgressBudget
from guard.limits import Limits
from properties import progress
from properties.budget.copies import ALL_COPIES, FEATURE_FLAGS, SPEC_LIMITS, applier, new_copies, reference_limits
from properties import work_bound
from properties.budget.counterexample import Counterexample, record
from properties.counterexample import DEFAULT_DIR
from properties.engine import cli
from properties.engine.levels import LevelRun
from properties.engine.model import Edge
from properties.engine.result import Results, SearchResult
from properties.engine.search import search
from properties.engine.store import Store
from properties.engine.symmetry import Permutation, SymmetryBreak, SymmetryBroken, group
from properties.budget.trace_file import Trace, dumps, save_trace
from properties.budget.events import Event, FirstCall, Result, Round, Stop
from properties.budget.invariants import BY_ID, CATALOGUE, Snap
from properties.budget.monitor import Monitor, runaway_message
from properties.catalogue import Tally, Violation
from properties.judge import Judge
from properties.budget.state import snap_production, snap_reference
from reference.budget import ReferenceBudget


#: A broken budget may have an infinite state space; past this many states a run stops, incomplete.
#: The default set's largest configuration has under 50,000 states, the quick set's under 3,000.
MAX_STATES = 100_000
QUICK_MAX_STATES = 20_000
#: The thorough set's real-limits search to depth 10 reaches about half a million states.
THOROUGH_MAX_STATES = 3_000_000
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
    ``thorough`` the one ``--profile thorough`` runs (about 500 CPU seconds,
    most of it ``small c4 t8 r2 f2``, which splits its levels over both
    cores; the whole thorough run took 261 s wall on two quiet cores, 2026-12-01).

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
_LABEL_OF = {name: index for index, name in enumerate(ID_NAMES)}


def _with_id(template: Result, call_id: str, label: str) -> Result:
    event = attrs.evolve(template, call_id=call_id, label=label)
    _ORIGIN[id(event)] = (template, _LABEL_OF[call_id])
    _KEEP.append(event)
    return event


#: Every alphabet event made from a template: (template, the label of its call id). The events are
#: kept alive (``_KEEP``) so that their ids stay theirs.
_ORIGIN: dict[int, tuple[Result, int]] = {}
_KEEP: list[Event] = []


_ALPHABETS: dict[tuple, tuple[Event, ...]] = {}
#: The events without a call id: one object each, so that a copy's moves can be cached on them.
_ROUND = Round()
_STOP = Stop()
_FIRST_CALLS = (FirstCall(remedy=True), FirstCall(remedy=False))


def alphabet(
    any_open: bool, any_terminal: bool, waiting: bool, remembered: int, fingerprints: bool = True, kind: str = "full",
) -> tuple[Event, ...]:
    """Every event offered from a state with this shape; ``remembered`` ids are named c0 .. c(n-1)."""
    shape = (any_open, any_terminal, waiting, remembered, fingerprints, kind)
    if kind == "counters":
        cached = _ALPHABETS.get(shape)
        if cached is None:
            fresh = ID_NAMES[remembered]
            cached = (_ROUND,) + tuple(_with_id(template, fresh, template.label) for template in COUNTERS)
            _ALPHABETS[shape] = cached
        return cached
    cached = _ALPHABETS.get(shape)
    if cached is not None:
        return cached
    fresh = ID_NAMES[remembered]
    events: list[Event] = [_ROUND]
    if any_open:
        events.append(_STOP)
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
        events.extend(_FIRST_CALLS)
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
#: The deferred code and the exhausted-lane bits with the two lanes swapped.
_SWAP_CODE = (0, 1, 3, 2)
_SWAP_BITS = (0, 2, 1, 3)


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
    #: ``_DEFERRED_CODES`` of the counter whose charge waits.
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
        return self[:_CORE_LENGTH]

    @property
    def dead(self) -> bool:
        """Stopped for good: terminal with no correction to admit (the reference never has one)."""
        return self.terminal and not self.correction


_CORE_LENGTH = CopyKey._fields.index("seen")


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
    ``n``-th mask. That is exactly what ``_rename_ids`` keeps of the per-copy
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


#: The one key every copy stopped for good is given once the reference is stopped (see ``_settled``).
DEAD = CopyKey(True, 0, 0, 0, 0, 0, 0)

_INDEX = {name: index for index, name in enumerate(ALL_COPIES)}
_R, _P, _PR, _PL = _INDEX["R"], _INDEX["P"], _INDEX["Pr"], _INDEX["Pl"]


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
    #: Check every symmetry the form merges by on every edge searched (``Expander._check_step`` and its
    #: siblings); off only to measure what the checks cost (``properties.bench``).
    verify: bool = True


_new_key = tuple.__new__


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
        return _new_key(CopyKey, (
            terminal, rounds, budget.failures, budget.consecutive, lanes["workspace"], lanes["extension"], bits,
            0, 0, "", (), 0, seen, memory,
        ))
    kinds = budget.corrected_kinds
    return _new_key(CopyKey, (
        terminal, rounds, budget.failures, budget.consecutive, lanes["workspace"], lanes["extension"], bits,
        _DEFERRED_CODES.get(budget.deferred, 9), budget.deferrals_used, budget.correction or "",
        tuple(sorted(kinds)) if kinds else (), budget.free_lookups_used, seen, memory,
    ))


def mirror(key: CopyKey) -> CopyKey:
    """The lane mirror image of one copy: workspace and extension swapped in every field that names a lane."""
    deferred = key.deferred
    return key._replace(
        workspace=key.extension, extension=key.workspace, exhausted=_SWAP_BITS[key.exhausted],
        deferred=_SWAP_CODE[deferred] if deferred < 4 else deferred,
    )


_KIND_SWAP = {KINDS[0]: KINDS[1], KINDS[1]: KINDS[0]}


def swap_kinds(key: CopyKey) -> CopyKey:
    """One copy with the alphabet's two refusal kinds exchanged (any other kind is left as it is)."""
    if not key.kinds and not key.correction:
        return key
    return key._replace(
        correction=_KIND_SWAP.get(key.correction, key.correction),
        kinds=tuple(sorted(_KIND_SWAP.get(kind, kind) for kind in key.kinds)),
    )


_LANE_SWAP = {LANES[0]: LANES[1], LANES[1]: LANES[0]}
#: (source event, its image) by the source's id and the permutation's name; the source is kept so its id stays its own.
_EVENT_IMAGES: dict[tuple[str, int], tuple[Event, Event]] = {}


def _relabel(label: str, swap: dict[str, str]) -> str:
    return " ".join(swap.get(word, word) for word in label.split(" "))


def mirror_event(event: Event) -> Event:
    """An event with its lane swapped; an event without a lane is its own mirror."""
    if type(event) is not Result or event.lane not in _LANE_SWAP:
        return event
    return attrs.evolve(event, lane=_LANE_SWAP[event.lane], label=_relabel(event.label, _LANE_SWAP))


def swap_event_kinds(event: Event) -> Event:
    """A refusal without a lane with the other kind; any other event is fixed.

    A refusal in a lane is fixed too: the alphabet offers it with one kind
    (``_failures``), standing for both. Fixing it makes the check verify just
    that: a copy whose kinds are swapped, given the same lane refusal, must
    end in the swapped successor, which fails if the code keeps a lane
    refusal's kind anywhere.
    """
    if type(event) is not Result or event.lane is not None or event.correctable_refusal not in _KIND_SWAP:
        return event
    return attrs.evolve(
        event, correctable_refusal=_KIND_SWAP[event.correctable_refusal], label=_relabel(event.label, _KIND_SWAP),
    )


#: The budget's declared symmetries, as permutations of its own names: the two lanes, the two refusal kinds.
SYMMETRIES = (
    Permutation("lanes", ("lanes",), lambda key: _mirror(key), mirror_event),
    Permutation("kinds", ("kinds",), lambda key: _swap_kinds(key), swap_event_kinds),
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


def _differs(expected: CopyKey, got: CopyKey) -> str:
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


def _settled(copies: Sequence[CopyKey], history: History) -> bool:
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
    if not copies[_R].terminal:
        return False
    return not (copies[_PR].correction and history.admissions[ADMISSION_KEYS.index("Pr")] == 0)


def _settled_history(history: History, copies: Sequence[CopyKey]) -> History:
    """The history once the reference is settled: feature flags no longer matter, nor a stopped copy's streak.

    B1 skips a per-feature copy once its feature is used; every copy it would
    still compare is stopped for good and carries the same key as ``R``, so the
    flags are set to "used". The streak counts are read (B9) only while their
    copy is open, so a copy stopped for good gets zero, and the lookup-only flag
    only matters while ``Pl`` can still move.
    """
    alive = [not copies[_INDEX[name]].dead for name in ADMISSION_KEYS]
    return History(
        features=tuple(True for _ in history.features),
        admissions=history.admissions,
        streak=tuple(value if keep else 0 for value, keep in zip(history.streak, alive)),
        fuse=tuple(value if keep else 0 for value, keep in zip(history.fuse, alive)),
        # B11's lookup-only clause reads Pl's rounds, which a copy stopped for good no longer keeps.
        lookups_only=history.lookups_only and not copies[_PL].dead,
    )


def _rename_ids(copies: list[CopyKey], ordered: bool) -> list[CopyKey]:
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
    return [copy if new is old else _with_seen(copy, new) for copy, old, new in zip(copies, memories, renamed)]


_RENAMINGS: dict[tuple, tuple] = {}


def _with_seen(copy: CopyKey, seen: tuple) -> CopyKey:
    return _new_key(CopyKey, copy[:_CORE_LENGTH] + (seen, copy.successes))


def _renamed(memories: tuple, ordered: bool) -> tuple:
    """The memories with canonical labels (``_rename_ids``); ``memories`` itself when nothing changes."""
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
      (``_settled``).
    * Call ids are renamed (``_rename_ids``).
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
      kind per lane stands for both, see ``_failures``).

    The canonical representative is the least of the images: a fixed choice
    per class, so the classes, and hence the states counted, do not depend on
    which member the search reached first.
    """
    history = History._make(history)
    copies = list(raw)
    if not canon.ordered_ids:
        if ids is None:
            ids = id_masks([copy.seen for copy in copies])
            copies = [_with_seen(copy, ()) if copy.seen else copy for copy in copies]
    if canon.drop_dead and _settled(copies, history):
        copies = [DEAD if index == _R or copy.dead else copy for index, copy in enumerate(copies)]
        alive = tuple(not copy.dead for copy in raw)
        found = _SETTLED.get((history, alive))
        if found is None:
            found = _SETTLED[(history, alive)] = _settled_history(history, raw)
        history = found
    if canon.ordered_ids:
        copies = _rename_ids(copies, True)
    best = tuple(copies)
    if canon.symmetry:
        best = _least_mirror(best)
    if canon.kinds and (best[_P].kinds or best[_PR].kinds):
        other = tuple([_swap_kinds(copy) for copy in best])
        if canon.symmetry:
            other = _least_mirror(other)
        if other < best:
            best = other
    return State(best, history, ids or ())


_MIRRORS: dict[CopyKey, CopyKey] = {}
_SWAPPED: dict[CopyKey, CopyKey] = {}


def _swap_kinds(key: CopyKey) -> CopyKey:
    found = _SWAPPED.get(key)
    if found is None:
        found = _SWAPPED[key] = swap_kinds(key)
    return found


def _mirror(key: CopyKey) -> CopyKey:
    found = _MIRRORS.get(key)
    if found is None:
        found = _MIRRORS[key] = mirror(key)
    return found


def _least_mirror(copies: tuple) -> tuple:
    """The lesser of ``copies`` and their mirror image, found at the first copy the mirror changes."""
    for copy in copies:
        other = _mirror(copy)
        if other != copy:
            return tuple(_mirror(copy) for copy in copies) if other < copy else copies
    return copies


def encode(budgets: Sequence[Any], history: tuple, canon: Canon) -> State:
    """The canonical state of live budgets (copies in ``ALL_COPIES`` order) and a monitor's history."""
    return canonical([raw_key(budget, index > 0, canon) for index, budget in enumerate(budgets)], history, canon)


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
        budget.deferred = _DEFERRED_NAMES[key.deferred]
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
        return [decode_copy(prototype, _with_seen(key, state.seen_of(index))) for index, (prototype, key) in enumerate(zip(prototypes, state.copies))]
    return [decode_copy(prototype, key) for prototype, key in zip(prototypes, state.copies)]


# -- the monitor's history -----------------------------------------------------------


def _history_keys() -> tuple[tuple[str, ...], tuple[str, ...]]:
    fresh = Monitor(limits=Limits(), tally=Tally(), budgets=new_copies(Limits()))
    assert tuple(fresh.admissions) == tuple(fresh.streak_admissions) == tuple(fresh.streak_fuse)
    return tuple(fresh.feature_used), tuple(fresh.admissions)


FEATURE_KEYS, ADMISSION_KEYS = _history_keys()


def restore_history(monitor: Monitor, history: tuple) -> None:
    """Set a monitor's history to ``history`` (as ``Monitor.history()`` returned it)."""
    monitor.restore_history(history)


# -- results ------------------------------------------------------------------------


@attrs.frozen
class ConfigResult(SearchResult):
    """The engine's row for one budget configuration, extended with what the budget's report shows beside it."""

    subject: str = "budget"
    #: The configuration's limits in one line (``Config.summary``).
    limits: str = ""
    #: ``path`` replays as it is: False only when no real trace follows the canonical path (see ``_path``).
    exact: bool = True
    #: The events of the search's parent links, each read from a canonical state: not a trace (lanes, kinds
    #: and ids may switch midway); kept for comparison.
    canonical_path: tuple[Event, ...] | None = None
    #: This configuration's own check counts (also merged into the caller's tally).
    tally: Tally = attrs.field(factory=Tally, eq=False, repr=False)
    #: The canonical states reached, when asked for (``keep_states``; the tests compare canonical forms).
    reached: frozenset = attrs.field(default=frozenset(), eq=False, repr=False)
    #: Whether the symmetries were checked; False only when a caller turned the checks off (``Canon.verify``).
    verified: bool = True

    @property
    def summary(self) -> str:
        return self.limits

    @property
    def finished(self) -> bool:
        """Reached its fixpoint (a small scope) or its depth (the real limits); not cut short by ``MAX_STATES``."""
        if self.complete:
            return True
        return self.max_depth is not None and self.depth >= self.max_depth

    @property
    def symmetry_text(self) -> str:
        """What the search merged by: the symmetries checked, or none."""
        if not self.symmetries:
            return "no symmetry merged"
        return f"symmetries {' and '.join(self.symmetries)} {'checked on every edge' if self.verified else 'NOT checked'}"

    def row(self) -> str:
        reach = "fixpoint" if self.complete else f"depth {self.depth}"
        verdict = self.verdict()
        lines = [
            f"{self.name:<20} {self.states:>9,} states {self.edges:>10,} edges  depth {self.depth:>3}  "
            f"{'complete' if self.complete else 'bounded ':<8}  {self.seconds:6.2f} s  "
            f"{self.states_per_second:>9,.0f} states/s  {self.edges_per_second:>9,.0f} edges/s  {verdict}",
            f"{'':<20} {self.limits}  ({reach}; {self.symmetry_text})",
        ]
        lines.extend(f"{'':<20} {broken.line()}" for broken in self.broken)
        return "\n".join(lines)


#: The first line of the explorer's report.
EXPLORER_TITLE = "exhaustive explorer (breadth first; every invariant on every edge, B13 once per distinct state of P):"


@attrs.frozen
class ExplorerResult(Results):
    """The explorer's configurations of one run, and its counterexample (``properties.budget.counterexample``)."""

    counterexample: Counterexample | None = None
    title: str = EXPLORER_TITLE
    order: tuple[str, ...] = ("lanes", "kinds")


# -- the search ----------------------------------------------------------------------

EDGE_INVARIANTS = tuple(invariant for invariant in CATALOGUE if invariant.id != "B13")
STATE_INVARIANTS = (BY_ID["B13"],)


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


def _canonical_events(store: Store, key: State, config: Config) -> list[Event]:
    """The events of the parent links, each read from its canonical parent: not a trace (see ``_trace``)."""
    chain = store.chain(key)
    _start, numbers = store.route(key)
    return [_event_at(parent, number, config) for parent, number in zip(chain, numbers)]


class _Walker(NamedTuple):
    """One actual state of the forward walk (``_trace``): live budgets, the monitor's history, the events so far."""

    budgets: tuple
    history: tuple
    events: tuple
    #: How many fresh call ids the events used (the next fresh one is ``r<fresh>``).
    fresh: int


def _actual_events(template: Event, key: State, walker: _Walker) -> list[tuple[Event, int]]:
    """The real events that stand for one alphabet event of the canonical ``key``, from ``walker``'s actual state.

    An alphabet event with a call id names it by its canonical label: label
    ``key.remembered`` is a fresh id, a smaller one an id some copy remembers.
    In the actual state the copies remember other names (renamed, or in
    another order), so a fresh label becomes an id never used on this trace
    and a remembered label every id some actual copy remembers; the walk keeps
    whichever lands on the path's next canonical state. Returns (event, fresh
    ids used after it).
    """
    origin = _ORIGIN.get(id(template))
    if origin is None:
        return [(template, walker.fresh)]
    _template, label = origin
    if label >= key.remembered:
        return [(attrs.evolve(template, call_id=f"r{walker.fresh}"), walker.fresh + 1)]
    remembered: list[str] = []
    for budget in walker.budgets:
        for call_id in reversed(budget.seen_calls):
            if call_id not in remembered:
                remembered.append(call_id)
    return [(attrs.evolve(template, call_id=call_id), walker.fresh) for call_id in remembered]


def _advance(walker: _Walker, event: Event, monitor: Monitor) -> tuple[_Walker, list[Violation]]:
    """Deliver ``event`` to copies of the walker's budgets through ``monitor``; the walker after it and the violations."""
    budgets = [clone(budget) for budget in walker.budgets]
    monitor.budgets = dict(zip(ALL_COPIES, budgets))
    restore_history(monitor, walker.history)
    found = monitor.step(event)
    return _Walker(tuple(budgets), monitor.history(), walker.events + (event,), walker.fresh), found


def _trace(
    config: Config, canon: Canon, chain: Sequence[State], number: int, invariant: str, probed: bool,
) -> tuple[Event, ...] | None:
    """A real trace along the canonical path ``chain`` whose last event breaks ``invariant``; None if none exists.

    The search keeps canonical states only: a child is the canonical image
    (lanes mirrored, refusal kinds swapped, call ids renamed) of the real
    successor, and the next event is read from that image. So the events of
    the parent links can switch lanes, kinds or ids midway, and replayed on
    fresh budgets reach the mirror of the failing state, which may break
    nothing. This walk delivers real events to real budgets instead, from the
    start: from each actual state it tries every event the alphabet offers
    (with the actual call ids, ``_actual_events``) and keeps every distinct
    actual successor (by its key without the symmetries: at most the four
    lane and kind images) whose canonical form is the path's next state; from
    the last it keeps the first event, in alphabet order, that breaks the same
    invariant (followed by the B13 probe when the search found it there).
    Keeping every image, not just one, matters when the budget itself is not
    symmetric (a planted or mutated bug in one lane or for one kind): the
    start is its own mirror, so every image of a path is reachable while the
    budget behaves symmetrically, and the last step then starts from the
    image the search judged. Cost: path length x images x alphabet real steps,
    once per violation; the search itself is unchanged.
    """
    prototypes = new_prototypes(config)
    walkers = _walk(config, canon, chain)
    if walkers is None:
        return None
    key = chain[-1]
    judged = events_of(key, config)[number]
    # The event the search judged first, then the rest of the alphabet: the same violation may need another.
    order = [judged] + [event for event in events_of(key, config) if event is not judged]
    for template in order:
        for walker in walkers:
            for event, _fresh in _actual_events(template, key, walker):
                monitor = Monitor(limits=config.oracle, tally=Tally(), budgets=dict(zip(ALL_COPIES, prototypes)))
                after, found = _advance(walker, event, monitor)
                if probed and not any(violation.invariant == invariant for violation in found):
                    after, found = _advance(after, PROBE_EVENT, monitor)
                if any(violation.invariant == invariant for violation in found):
                    return after.events
    return None


def _walk(config: Config, canon: Canon, chain: Sequence[State]) -> list[_Walker] | None:
    """Every distinct actual state (up to the four lane and kind images) a real trace reaches along ``chain``.

    The forward walk of ``_trace``: None when no real trace follows the chain.
    """
    plain = attrs.evolve(canon, symmetry=False, kinds=False)
    prototypes = new_prototypes(config)
    quiet = Monitor(limits=config.oracle, tally=Tally(), budgets=dict(zip(ALL_COPIES, prototypes)), invariants=(), failure_ends_probes="off")
    walkers = [_Walker(tuple(clone(prototype) for prototype in prototypes), quiet.history(), (), 0)]
    for key, following in zip(chain, chain[1:]):
        kept: dict[State, _Walker] = {}
        for template in events_of(key, config):
            for walker in walkers:
                for event, fresh in _actual_events(template, key, walker):
                    after, _found = _advance(walker, event, quiet)
                    after = after._replace(fresh=fresh)
                    if encode(after.budgets, after.history, canon) != following:
                        continue
                    kept.setdefault(encode(after.budgets, after.history, plain), after)
        if not kept:
            return None
        walkers = list(kept.values())
    return walkers


def _symmetry_traces(
    config: Config, canon: Canon, chain: Sequence[State], number: int, permutation: Permutation,
) -> tuple[tuple[Event, ...], tuple[Event, ...]]:
    """(a real trace to the searched state and its event ``number``, its image under ``permutation``).

    The walk prefers the actual state that is the searched representative
    itself (its key without the symmetries equals the canonical one), since
    that is the state whose step the check permuted; every edge before it
    passed the checks, so the image of the trace is a real trace as well.
    When the break is found at the initial state or in an alphabet, the
    trace is just the path there. Empty traces when no real trace follows
    the chain (then the budget is asymmetric before the break, which the
    checks exclude; said rather than raised).
    """
    walkers = _walk(config, canon, chain)
    if not walkers:
        return (), ()
    key = chain[-1]
    plain = attrs.evolve(canon, symmetry=False, kinds=False)
    walker = next((w for w in walkers if encode(w.budgets, w.history, plain) == key), walkers[0])
    events = events_of(key, config)
    trace = walker.events
    if number is not None and number < len(events):
        event, _fresh = _actual_events(events[number], key, walker)[0]
        trace = trace + (event,)
    return trace, tuple(permutation.event(event) for event in trace)


def save_symmetry_traces(config: Config, broken: SymmetryBreak, out_dir: Path) -> SymmetryBreak:
    """Save both sides of a break as trace files (``guard-trace/1``); the break with their paths."""
    files = []
    for side, events in (("kept", broken.kept), ("image", broken.image)):
        origin = (
            f"explorer {config.name}: symmetry broken ({broken.symmetry}, {broken.where}): {broken.detail}; "
            + ("the trace the search ran" if side == "kept" else "its image, the side the canonical form dropped")
        )
        body = Trace(name="", events=tuple(events), limits=config.oracle, origin=origin)
        digest = hashlib.sha256(dumps(body).encode("utf-8")).hexdigest()[:8]
        name = f"explorer-symmetry-{broken.symmetry.replace(' ', '-')}-{side}-{len(events)}steps-{digest}"
        files.append(save_trace(attrs.evolve(body, name=name), Path(out_dir) / f"{name}.json"))
    return attrs.evolve(broken, files=tuple(files))


def _path(
    config: Config, canon: Canon, store: Store, key: State, number: int, invariant: str, probed: bool,
) -> tuple[tuple[Event, ...], tuple[Event, ...], bool]:
    """The counterexample of a violation found on event ``number`` from ``key``: (path, canonical events, exact).

    The trace is ``_trace``'s real one when it exists; the canonical events of
    the parent links (``_canonical_events``) are returned beside it, for the
    report and the tests. Choice, when no real trace follows the canonical
    path (only possible when the budget under test is itself not lane or kind
    symmetric, before the violating step: the search's merging is then
    unsound as well): the canonical events are returned as the path, and the
    second item is None so the counterexample says it may not replay, rather
    than raising and losing the violation the search did find.
    """
    canonical_events = tuple(_canonical_events(store, key, config)) + (_event_at(key, number, config),)
    if probed:
        canonical_events += (PROBE_EVENT,)
    trace = _trace(config, canon, store.chain(key), number, invariant, probed)
    if trace is None:
        return canonical_events, canonical_events, False
    return trace, canonical_events, True


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
_SEED_FLAGS = (("correctable", False), ("corrected", False), ("correctable_refusal", None), ("empty_lookup", False))


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


_NO_FLAGS: dict[str, bool] = dict.fromkeys(ALL_COPIES, False)
#: The one call id a representative copy may remember (``Expander._moves_unordered``).
_REPRESENTATIVE = "r"
_REPRESENTATIVES: dict[int, Result] = {}


def _representative(template: Result) -> Result:
    found = _REPRESENTATIVES.get(id(template))
    if found is None:
        found = _REPRESENTATIVES[id(template)] = attrs.evolve(template, call_id=_REPRESENTATIVE)
    return found


@attrs.define(slots=True)
class _Verdict:
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


class Expander:
    """Expands states: every event of the alphabet through every copy, every edge judged by the catalogue.

    Each copy is stepped by its real budget (``guard`` or ``reference``) once
    per (copy key, alphabet) and the moves reused (``Move``); the monitor then
    judges every edge from the copies' snapshots exactly as ``Monitor.step``
    does after delivering an event (``judge``; a unit test holds the two
    equal). It keeps its own set of states already seen (so that it returns
    only children new to it) and of P-states already probed for B13. The
    search runs one in process, or one per forked worker process, each
    expanding a contiguous slice of every breadth-first level.
    """

    def __init__(self, config: Config, canon: Canon, memo: bool = True) -> None:
        self.config = config
        self.canon = canon
        #: The number of the event whose move is being made (named when that step runs past its bound).
        self.stepping = 0
        #: Judge each distinct step once (see ``expand``); off, every edge is judged afresh.
        self.memo = memo
        #: States known before the level being expanded, for the live progress (``_explore`` sets it); None: this
        #: expander does not report (a forked one: the search's own process reports for the level).
        self.known: "int | None" = 0
        #: (event, history, every copy's move pair) -> _Verdict, for the edges judged so far.
        self.verdicts: dict[tuple, _Verdict] = {}
        self.pairs: dict[tuple, int] = {}
        self.prototypes = new_prototypes(config)
        self.appliers = [applier(name) for name in ALL_COPIES]
        self.snappers = [snap_reference] + [snap_production] * (len(ALL_COPIES) - 1)
        self.tally = Tally()
        #: Probe steps check B13 only; their coverage and step counts are not trace steps.
        self.probe_tally = Tally()
        oracle = config.oracle
        self.edge_monitor = Monitor(
            limits=oracle, tally=self.tally, budgets=dict(zip(ALL_COPIES, self.prototypes)),
            invariants=EDGE_INVARIANTS, failure_ends_probes="off",
        )
        #: The one judge (``properties.judge``) of every edge.
        self.edge_judge = Judge(EDGE_INVARIANTS)
        self.check_ids = self.edge_judge.ids
        self.probe_monitor = Monitor(
            limits=oracle, tally=self.probe_tally, budgets={"R": self.prototypes[_R], "P": self.prototypes[_P]},
            invariants=STATE_INVARIANTS, failure_ends_probes="all",
        )
        self.seen: set[State] = set()
        #: One object per distinct copy key and history in the states kept.
        self.interned: dict[Any, Any] = {}
        #: (raw copy keys, history) of every child canonicalized so far (most edges meet one again).
        self.raw_seen: set[tuple] = set()
        self.probed: set[tuple] = set()
        #: Per copy: (copy key, alphabet) -> the moves of that copy for every event of the alphabet.
        self.moves: list[dict[tuple, tuple[Move, ...]]] = [{} for _ in ALL_COPIES]
        #: Copies of one budget type and limits share their transitions: the group of each copy.
        kinds = [(type(prototype), prototype.limits) for prototype in self.prototypes]
        self.groups = [kinds.index(kind) for kind in kinds]
        #: Per group, without eviction: copy key less its memory -> (template, id remembered, flags) -> transition.
        self.bare_steps: list[dict[CopyKey, dict[tuple, Transition]]] = [{} for _ in ALL_COPIES]
        #: Per group: copy key -> (event by identity, flags) -> transition (the alphabets live as long as the module).
        self.steps: list[dict[CopyKey, dict[tuple, Transition]]] = [{} for _ in ALL_COPIES]
        #: Per copy: event (by identity) -> its flags as that copy receives them.
        self.masks: list[dict[int, tuple]] = [{} for _ in ALL_COPIES]
        #: Per copy: alphabet (by identity) -> ``_plan``.
        self.plans: list[dict[int, tuple]] = [{} for _ in ALL_COPIES]
        #: Per copy: transition (by identity) -> (the step's row for it, its pair number, the transition, its key).
        self.rows: dict[int, tuple] = {}
        #: (group, flags, copy key, alphabet or family, membership) -> the moves every copy of that group
        #: receiving those flags makes from that key: copies that move alike share them.
        self.shared: dict[tuple, tuple] = {}
        #: Per copy: alphabet (by identity) -> the flags it receives, as a number (``_flags``).
        self.flag_numbers: list[dict[int, int]] = [{} for _ in ALL_COPIES]
        self.flag_kinds: dict[tuple, int] = {}
        #: Per alphabet (by identity): ``alphabet_labels``; and the families of alphabets met so far.
        self.labels: dict[int, tuple] = {}
        self.history_dicts: dict[History, tuple] = {}
        #: A number per distinct after key and per distinct history: a raw child and a step are looked up by
        #: small integers rather than by hashing nested tuples again at every edge.
        self.key_numbers: dict[CopyKey, int] = {}
        self.history_numbers: dict[tuple, int] = {}
        self.families: dict[tuple, int] = {}
        #: The permutations checked on every edge (``checked_group``): empty when the form merges by none.
        self.group = checked_group(canon)
        #: Element ``a`` (0: the identity, ``n``: ``group[n - 1]``) composed with each permutation, as such a number.
        elements = [frozenset()] + [frozenset(permutation.parts) for permutation in self.group]
        self.products = [[elements.index(element ^ other) for other in elements[1:]] for element in elements]
        #: Pair number -> (its pair, per permutation the pair of the permuted step), made with the transition.
        self.pair_images: dict[int, tuple] = {}
        #: Alphabet (by identity) -> per permutation, where each event's image stands in it (``_check_alphabet``).
        self.images: dict[int, tuple] = {}
        #: Pair number -> its (snapshot before, after, memory bit, admission): a judged step's moves, rebuilt.
        self.pair_values: list[tuple] = []
        #: Where the checks' own judgements and probes are counted: they are not steps of the search.
        self.scratch = Tally()
        #: Where ``judge`` counts one step's coverage before the verdict keeps it.
        self.step_coverage: Counter = Counter()
        #: Per group element: copy key -> its image (``_check_step``).
        self.key_images: list[dict[CopyKey, CopyKey]] = [{} for _ in self.group]
        #: (group, permuted key, memory bit) -> (decoded budget, its snapshot): where image steps start (``_check_step``).
        self.image_bases: dict[tuple, tuple] = {}

    def initial_break(self) -> SymmetryBroken | None:
        """The initial state must be its own image under every permutation checked, or merging starts unsound."""
        raw = [raw_key(clone(prototype), index > 0, self.canon) for index, prototype in enumerate(self.prototypes)]
        for permutation in self.group:
            for name, key in zip(ALL_COPIES, raw):
                if permutation.key(key) != key:
                    return SymmetryBroken(permutation, "the initial state", f"copy {name} is not its own image")
        return None

    def _check_alphabet(self, events: tuple[Event, ...]) -> None:
        """Every permutation maps the alphabet offered from a state onto itself (events compared without labels).

        Keeps, per permutation, where each event's image stands in the
        alphabet (``images``): a permuted step is then made of the alphabet's
        own events, so its transitions and its verdict are the ones the search
        keeps in its caches, and a check whose permuted step the search meets
        anyway costs a look-up.
        """
        def signature(event: Event) -> str:
            return repr(attrs.evolve(event, label=""))

        where = {signature(event): number for number, event in enumerate(events)}
        images = []
        for permutation in self.group:
            row = []
            for number, event in enumerate(events):
                found = where.get(signature(image_event(permutation, event)))
                if found is None:
                    self.stepping = number
                    raise SymmetryBroken(permutation, "the alphabet", f"the image of {event.label or event!r} is not offered")
                row.append(found)
            images.append(tuple(row))
        self.images[id(events)] = tuple(images)

    def _check_step(
        self, index: int, key: CopyKey, events: tuple[Event, ...], number: int, transition: Transition, remembered: int = 0,
        bases: dict | None = None,
    ) -> None:
        """The permuted copy stepped with the permuted event ends in the permuted successor, by the real code.

        Checked once per transition made (a transition is a pure function of
        the copy's key, the event and its flags, and every edge is made of
        transitions), so every edge searched is covered. The permuted step is
        looked up in (or added to) the same caches the search steps through:
        it is a step of the state the canonical form merged, which the search
        would otherwise make when it meets that key. Every permutation is an
        involution, so a transition found there was checked when it was made.
        ``key`` is the copy's key as the search holds it (without its memory
        when ids are unordered; ``remembered`` then says whether the
        representative remembers the event's id).

        ``bases`` (``image_bases``) keeps, per group, permuted key and memory
        bit, the decoded budget and its snapshot that every image step from
        that key starts from; ``key_images`` keeps each permuted key. Both
        are pure functions of their keys (a group's copies differ in nothing
        ``decode_copy`` leaves unset), and ``_step`` steps a clone, so reusing
        them is exactly decoding afresh (measured on the counters search:
        decoding and permuting were a fifth of the checks' cost).
        """
        if bases is None:
            bases = self.image_bases
        unordered = not self.canon.ordered_ids
        group = self.groups[index]
        images = []
        rows = self.rows
        if id(events) not in self.images:
            # Moves asked for outside ``expand`` (the tests') have not had their alphabet checked yet.
            self._check_alphabet(events)
        for element, (permutation, where) in enumerate(zip(self.group, self.images[id(events)])):
            images_of = self.key_images[element]
            moved = images_of.get(key)
            if moved is None:
                moved = images_of[key] = permutation.key(key)
            moved_number = where[number]
            if moved == key and moved_number == number:
                images.append(transition)
                continue
            if unordered:
                _event, template, _label, representative, mask = self._plan(index, events)[moved_number]
                known = self.bare_steps[group].setdefault(moved, {})
                slot = (template, remembered, mask)
                image = known.get(slot)
                if image is None:
                    base = bases.get((group, moved, remembered))
                    if base is None:
                        budget = decode_copy(self.prototypes[index], _with_seen(moved, (_REPRESENTATIVE,) if remembered else ()))
                        base = bases[(group, moved, remembered)] = (budget, self.snappers[index](budget))
                    image = known[slot] = self._step(index, base[0], representative, base[1])
                expected = permutation.key(_with_seen(transition.after, ()))
                got = _with_seen(image.after, ())
                same_memory = (_REPRESENTATIVE in image.after.seen) == (_REPRESENTATIVE in transition.after.seen)
            else:
                moved_event = events[moved_number]
                known = self.steps[group].setdefault(moved, {})
                slot = (id(moved_event), self._mask(index, moved_event))
                image = known.get(slot)
                if image is None:
                    base = bases.get((group, moved, 0))
                    if base is None:
                        budget = decode_copy(self.prototypes[index], moved)
                        base = bases[(group, moved, 0)] = (budget, self.snappers[index](budget))
                    image = known[slot] = self._step(index, base[0], moved_event, base[1])
                expected, got, same_memory = permutation.key(transition.after), image.after, True
            if got != expected or not same_memory or image.seen != transition.seen or image.admitted != transition.admitted:
                event = events[number]
                raise SymmetryBroken(
                    permutation, f"copy {ALL_COPIES[index]}'s step",
                    f"{event.label or type(event).__name__} gives {_differs(expected, got)} once permuted "
                    f"({events[moved_number].label or type(event).__name__} from the permuted state)",
                )
            images.append(image)
        # Every pair of the orbit gets its images: the image transitions are the search's own from now on, and
        # the image of ``a(t)`` under ``b`` is ``t``'s image under the composition ``a b`` (commuting involutions).
        orbit = [(rows.get(id(transition)) or self._row(transition))[0]]
        orbit.extend([(rows.get(id(image)) or self._row(image))[0] for image in images])
        pair_images = self.pair_images
        for element, pair in enumerate(orbit):
            known = pair_images.get(pair)
            if known is None:
                pair_images[pair] = [orbit[other] for other in self.products[element]]

    def _check_judge(
        self, events: tuple[Event, ...], number: int, pairs: tuple, step_events: tuple, state_number: int,
        history: tuple, index: int, verdict: "_Verdict",
    ) -> None:
        """The catalogue judges the permuted step as it judged the step: nothing violated, the same exercised, the same history.

        Once per verdict: a step judged before is a step checked before. The
        permuted step's verdict is read from the search's memo when it is
        there; otherwise it is judged on a scratch tally (it is not a step of
        the search, and counts nothing) and kept in the memo, where the search
        counts it when it meets that step itself, as it counts any repeat.
        Measured on the counters search: keeping them saves a third of the
        judgements the checks would make otherwise.
        """
        for number_of, permutation in enumerate(self.group):
            moved_number = self.images[id(events)][number_of][number]
            moved_pairs = tuple([self.pair_images[pair][number_of] for pair in pairs])
            if moved_number == number and moved_pairs == pairs:
                continue
            step_key = (step_events[moved_number], state_number, moved_pairs)
            image = self.verdicts.get(step_key) if self.memo else None
            found: list[Violation] = []
            if image is None:
                moves = [_new_key(Move, (None, *self.pair_values[pair], pair, 0, 0)) for pair in moved_pairs]
                before = {name: move.before_snap for name, move in zip(ALL_COPIES, moves)}
                fresh_ids = {name: not snap.terminal for name, snap in before.items()}
                tally, monitor = self.tally, self.edge_monitor
                self.tally = monitor.tally = self.scratch
                try:
                    found, _history, image = self.judge(events[moved_number], moves, history, index, before, fresh_ids)
                finally:
                    self.tally = monitor.tally = tally
                # The scratch tally is never read: its counts may pile up, and a violation there raises below.
                if self.memo and not found:
                    self.verdicts[step_key] = image
            if found or image.exercised != verdict.exercised or image.history != verdict.history:
                what = (
                    "breaks " + ", ".join(violation.invariant for violation in found) if found
                    else f"exercises {', '.join(image.exercised) or 'nothing'} (the step: {', '.join(verdict.exercised) or 'nothing'})"
                    if image.exercised != verdict.exercised else "leaves another history"
                )
                event = events[number]
                raise SymmetryBroken(permutation, "the catalogue's judgement", f"the permuted {event.label or type(event).__name__} {what}")

    def _check_probe(self, reference: CopyKey, production: CopyKey, found: list[Violation]) -> None:
        """B13, a property of P's state, gives the permuted state the same answer."""
        names = {violation.invariant for violation in found}
        for permutation in self.group:
            moved_p, moved_r = permutation.key(production), permutation.key(reference)
            if moved_p.core == production.core and moved_r == reference:
                continue
            monitor = self.probe_monitor
            tally = monitor.tally
            monitor.tally = self.scratch
            try:
                monitor.budgets = {"R": decode_copy(self.prototypes[_R], moved_r), "P": decode_copy(self.prototypes[_P], moved_p)}
                image = monitor.step(PROBE_EVENT)
            finally:
                monitor.tally = tally
            self.scratch.violations.clear()
            if {violation.invariant for violation in image} != names:
                raise SymmetryBroken(
                    permutation, "B13's probe of P",
                    f"the permuted state {'breaks ' + ', '.join(v.invariant for v in image) if image else 'holds'}, the state "
                    f"{'breaks ' + ', '.join(sorted(names)) if names else 'holds'}",
                )

    def start(self) -> tuple[list[State], list[Violation]]:
        """The first level (the one initial state) and B13's answer there."""
        raw = [raw_key(clone(prototype), index > 0, self.canon) for index, prototype in enumerate(self.prototypes)]
        key = canonical(raw, self.edge_monitor.history(), self.canon)
        self.seen.add(key)
        return [key], self.probe(raw[_R], raw[_P], 0)

    def probe(self, reference: CopyKey, production: CopyKey, index: int) -> list[Violation]:
        """B13 is a property of P's state, not of a step: check it once per distinct (mirror-reduced) core of P.

        ``failure_ends`` and observing a failure read P's counters and flags
        only, never its memories, so the answer is a function of P's core and
        is cached on it (the lane mirror of a core has the mirrored answers,
        and B13 probes every lane).
        """
        core = production.core
        if self.canon.symmetry:
            other = _mirror(production).core
            if other < core:
                core = other
        if core in self.probed:
            return []
        self.probed.add(core)
        self.probe_monitor.budgets = {"R": decode_copy(self.prototypes[_R], reference), "P": decode_copy(self.prototypes[_P], production)}
        self.probe_monitor.index = index
        found = self.probe_monitor.step(PROBE_EVENT)
        if self.group:
            self._check_probe(reference, production, found)
        return found

    def _mask(self, index: int, event: Event) -> tuple:
        """The seeds' flags of ``event`` as the copy ``index`` receives them (``properties.budget.copies.applier``)."""
        masks = self.masks[index]
        found = masks.get(id(event))
        if found is None:
            flags = FEATURE_FLAGS.get(ALL_COPIES[index], frozenset())
            found = masks[id(event)] = tuple(
                getattr(event, name, default) if name in flags else default for name, default in _SEED_FLAGS
            )
        return found

    def copy_moves(self, index: int, key: CopyKey, events: tuple[Event, ...], membership: int = 0) -> tuple[Move, ...]:
        """The moves of a copy in state ``key`` for every event, each made once on the real budget and kept.

        Copies of one budget type with the same limits (every production
        copy) differ only in which of the seeds' flags they receive; the
        same key receiving the same event with the same flags makes the same
        move, so the transitions are shared between them (``_mask``).
        """
        if not self.canon.ordered_ids:
            return self._moves_unordered(index, key, events, membership)
        group = self.groups[index]
        known = self.steps[group].get(key)
        if known is None:
            known = self.steps[group][key] = {}
        out = []
        template = None
        bases = self.image_bases
        for number, event in enumerate(events):
            slot = (id(event), self._mask(index, event))
            transition = known.get(slot)
            if transition is None:
                if template is None:
                    template = decode_copy(self.prototypes[index], key)
                    before = self.snappers[index](template)
                self.stepping = number
                transition = known[slot] = self._step(index, template, event, before)
                if self.group:
                    self._check_step(index, key, events, number, transition, 0, bases)
            out.append(self._move(index, transition, transition.after))
        return tuple(out)

    def _moves_unordered(self, index: int, key: CopyKey, events: tuple[Event, ...], membership: int) -> tuple[Move, ...]:
        """The moves of a copy that never evicts an id (depth <= seen-calls cap): its memory read as one bit.

        Without eviction a budget reads its memory of call ids only to ask
        whether the receipt's id is in it, and it changes it only by adding
        that id. So the copy's move is made on a representative with the same
        counters and success memory, remembering one id ``r`` when the
        event's id is remembered (bit ``label`` of ``membership``: the labels
        this copy remembers, read off ``State.ids``) and none when it is
        fresh, through the real code; the move says whether the copy took the
        id (``Move.added``) and whether it keeps a memory at all
        (``Move.kept``), from which ``child_ids`` makes the child's ids. The
        key carries no memory, so its moves serve every state it appears in
        with the same membership. Transitions are shared between copies as in
        ``copy_moves``.
        """
        group = self.groups[index]
        known = self.bare_steps[group].get(key)
        if known is None:
            known = self.bare_steps[group][key] = {}
        drop_dead = self.canon.drop_dead
        #: The representative budgets, made when first needed: remembering nothing, remembering r.
        bases: list[Any] = [None, None]
        checked = self.image_bases
        out = []
        rows = self.rows
        for number, (_event, template, label, representative, mask) in enumerate(self._plan(index, events)):
            remembered = label is not None and (membership >> label) & 1
            slot = (template, remembered, mask)
            transition = known.get(slot)
            if transition is None:
                self.stepping = number
                budget = bases[remembered]
                if budget is None:
                    budget = bases[remembered] = decode_copy(
                        self.prototypes[index], _with_seen(key, (_REPRESENTATIVE,) if remembered else ()),
                    )
                transition = known[slot] = self._step(index, budget, representative, self.snappers[index](budget))
                if self.group:
                    self._check_step(index, key, events, number, transition, remembered, checked)
            found = rows.get(id(transition))
            if found is None:
                found = self._row(transition)
            after = transition.after
            # Forgotten (``raw_key``) when stopped for good; otherwise the copy keeps its memory and adds
            # the event's id if the representative added r for it.
            kept = 0 if drop_dead and after.terminal and (index == 0 or not after.correction) else 1
            added = 1 if kept and not remembered and _REPRESENTATIVE in after.seen else 0
            out.append(_new_key(Move, (
                found[1], transition.before_snap, transition.after_snap, transition.seen, transition.admitted,
                found[0], added, kept,
            )))
        return tuple(out)

    def _history_dicts(self, history: History) -> tuple:
        """The monitor's history as its dictionaries, once per distinct history (the monitor never writes into them)."""
        found = self.history_dicts.get(history)
        if found is None:
            found = self.history_dicts[history] = (
                dict(zip(FEATURE_KEYS, history.features)), dict(zip(ADMISSION_KEYS, history.admissions)),
                dict(zip(ADMISSION_KEYS, history.streak)), dict(zip(ADMISSION_KEYS, history.fuse)),
                history.lookups_only,
            )
        return found

    def alphabet_labels(self, events: tuple[Event, ...]) -> tuple[tuple, bool, int, tuple]:
        """Per alphabet: its events' labels (None: no id), whether any id is a repeat, its family, its step keys.

        Without ordered ids a move names no label (``Move.added`` is a bit),
        so alphabets that offer the same templates, each with a fresh or the
        same repeated id, have the same moves from a copy key: they are one
        family. The counters' alphabets differ only in the name of the fresh
        id (``remembered``), so they all are.

        The step keys stand for the events in a verdict's key (``_Verdict``):
        no predicate reads an id's name (whether the id was remembered is in
        the moves), so an event made from a template is its template there,
        and a step judged with a fresh ``c3`` is not judged again with ``c4``.
        """
        found = self.labels.get(id(events))
        if found is None:
            labels = tuple(_ORIGIN[id(event)][1] if id(event) in _ORIGIN else None for event in events)
            fresh = max((label for label in labels if label is not None), default=0)
            shape = tuple(
                (id(event), None) if label is None else (id(_ORIGIN[id(event)][0]), "fresh" if label == fresh else label)
                for event, label in zip(events, labels)
            )
            family = self.families.setdefault(shape, len(self.families))
            keys = tuple(id(_ORIGIN[id(event)][0]) if label is not None else id(event) for event, label in zip(events, labels))
            found = self.labels[id(events)] = (labels, any(label is not None and label < fresh for label in labels), family, keys)
        return found

    def _plan(self, index: int, events: tuple[Event, ...]) -> tuple[tuple, ...]:
        """Per event of an alphabet: (event, its template's id, its id's label, the representative event, flags)."""
        plans = self.plans[index]
        found = plans.get(id(events))
        if found is None:
            rows = []
            for event in events:
                origin = _ORIGIN.get(id(event))
                if origin is None:
                    rows.append((event, id(event), None, event, self._mask(index, event)))
                else:
                    template, label = origin
                    rows.append((event, id(template), label, _representative(template), self._mask(index, event)))
            found = plans[id(events)] = tuple(rows)
        return found

    def _step(self, index: int, template: Any, event: Event, before: Snap) -> Transition:
        """Deliver ``event`` to a copy of ``template`` (a budget of the copy ``index``, snapshot ``before``)."""
        budget = clone(template)
        seen = isinstance(event, Result) and event.call_id in budget.seen_call_set
        # Issue 25: one copy's step is bounded by counting (``properties.work_bound``); ``expand`` reports a copy
        # that runs past it as B6 at this edge, where an unbounded step would hang the search.
        saved = work_bound.push(work_bound.STEP_LOOPS, f"copy {ALL_COPIES[index]}'s step")
        try:
            admitted = self.appliers[index](budget, event)
        finally:
            work_bound.pop(saved)
        after = raw_key(budget, index > 0, self.canon, _LABEL_OF)
        return Transition(after, before, self.snappers[index](budget), seen, admitted)

    def _row(self, transition: Transition) -> tuple:
        """(its pair number, its after key without memory, the transition), kept per transition."""
        value = (transition.before_snap, transition.after_snap, transition.seen, transition.admitted)
        pair = self.pairs.setdefault(value, len(self.pairs))
        if pair == len(self.pair_values):
            self.pair_values.append(value)
        after = transition.after
        # The transition is kept with its pair, so that its id stays its own.
        found = self.rows[id(transition)] = (pair, _with_seen(after, ()) if after.seen else after, transition)
        return found

    def _move(self, index: int, transition: Transition, after: CopyKey) -> Move:
        known = self.rows.get(id(transition))
        if known is None:
            known = self._row(transition)
        # ``Move(...)`` without the named tuple's Python-level constructor: this runs once per copy and event.
        return _new_key(Move, (after, transition.before_snap, transition.after_snap, transition.seen, transition.admitted, known[0], 0, 0))

    def _flags(self, index: int, events: tuple[Event, ...]) -> int:
        """The flags copy ``index`` receives on every event of ``events``, as a number: equal numbers, equal moves."""
        found = self.flag_numbers[index].get(id(events))
        if found is None:
            masks = tuple(row[4] for row in self._plan(index, events))
            found = self.flag_numbers[index][id(events)] = self.flag_kinds.setdefault(masks, len(self.flag_kinds))
        return found

    def _entry(self, index: int, copy: CopyKey, events: tuple[Event, ...], tag: int, membership: int) -> tuple:
        """Copy ``index``'s cached moves from ``copy``: (moves, pairs, after keys, added bits, kept bits).

        Made once per group of copies that move alike (same budget type and
        limits, same flags on every event): the copies of one state often
        hold the same key (with the counters' alphabet the copies without a
        seed's flag always do), and only the memory bits name the copy.
        """
        shared_key = (self.groups[index], self._flags(index, events), copy, tag, membership)
        shared = self.shared.get(shared_key)
        if shared is None:
            moves = self.copy_moves(index, copy, events, membership)
            numbers = self.key_numbers
            shared = self.shared[shared_key] = (
                moves, tuple([move.pair for move in moves]), tuple([move.after for move in moves]),
                tuple([move.added for move in moves]), tuple([move.kept for move in moves]),
                tuple([numbers.setdefault(move.after, len(numbers)) for move in moves]),
            )
        moves, pairs, afters, added, kept, numbers = shared
        if not self.canon.ordered_ids:
            bit = 1 << index
            added = tuple([flag * bit for flag in added])
            kept = tuple([flag * bit for flag in kept])
        return moves, pairs, afters, added, kept, numbers

    def judge(
        self, event: Event, moves: Sequence[Move], history: tuple, index: int, before: dict[str, Snap],
        fresh_ids: dict[str, bool],
    ) -> tuple[list[Violation], tuple]:
        """Check every edge invariant on one step given by the copies' moves; return the history after it.

        The same work ``Monitor.step`` does once it has delivered the event:
        the history update, the step record, every check, the coverage counts.
        ``before`` (every copy's snapshot) and ``fresh_ids`` (which copies
        count a receipt with a fresh id: the open ones) are the state's own,
        shared by its edges: no check writes to a step's maps.
        """
        monitor = self.edge_monitor
        monitor.restore_history_maps(history)
        after = dict(zip(ALL_COPIES, [move.after_snap for move in moves]))
        rows = tuple([(name, move.before_snap, move.after_snap) for name, move in zip(ALL_COPIES, moves)])
        admitted = _NO_FLAGS
        if type(event) is Result:
            call_id = event.call_id
            failed = bool(event.failed)
            if not any(move.seen for move in moves):
                duplicate = _NO_FLAGS
                fresh = fresh_ids if call_id != "" else _NO_FLAGS
            else:
                duplicate = {name: move.seen for name, move in zip(ALL_COPIES, moves)}
                fresh = {name: not move.seen and not move.before_snap.terminal for name, move in zip(ALL_COPIES, moves)}
        else:
            failed = False
            duplicate = fresh = _NO_FLAGS
            if type(event) is FirstCall:
                admitted = {name: move.admitted for name, move in zip(ALL_COPIES, moves)}
        monitor.update_history(event, before, after, admitted)
        step = monitor.step_record(index, event, before, after, duplicate, admitted, fresh, failed, rows, rows[1:], None)
        tally = self.tally
        # The step's coverage is counted on its own (the verdict keeps it), then added to the tally's.
        coverage = tally.coverage
        # One counter, emptied per step, rather than a new one each time (the checks judge as many steps again).
        own = self.step_coverage
        own.clear()
        tally.coverage = own
        held: list[str] = []
        found = self.edge_judge(step, index, tally, monitor.count_coverage, held)
        gained = tuple(own.items())
        tally.coverage = coverage
        if gained:
            coverage.update(dict(gained))
        tally.steps += 1
        history = monitor.history()
        return found, history, _Verdict(history, tuple(held), gained)

    #: How often (in states expanded) the caches are measured against their bounds.
    trim_every = 1024

    def _trim(self) -> None:
        """Empty the caches that outgrew their bound (``CACHE_BOUNDS``): they only save work, so nothing else changes.

        The pair numbers are kept: the stored verdicts' keys are made of them.
        """
        if len(self.verdicts) > CACHE_BOUNDS["verdicts"]:
            self._count_repeats()
            self.verdicts.clear()
        if len(self.raw_seen) > CACHE_BOUNDS["raw children"]:
            self.raw_seen.clear()
        if len(self.image_bases) > CACHE_BOUNDS["moves"]:
            self.image_bases.clear()
        if sum(len(cache) for cache in self.moves) > CACHE_BOUNDS["moves"]:
            for caches in (self.moves, self.steps, self.bare_steps, self.key_images):
                for cache in caches:
                    cache.clear()
            self.rows.clear()
            self.shared.clear()
            self.image_bases.clear()

    def _count_repeats(self) -> None:
        """Add the counts of every repeated step (``_Verdict``) to the tally, once."""
        tally = self.tally
        for verdict in self.verdicts.values():
            repeats = verdict.repeats
            if not repeats:
                continue
            verdict.repeats = 0
            tally.steps += repeats
            tally.checked_steps[self.check_ids] += repeats
            for invariant_id in verdict.exercised:
                tally.exercised[invariant_id] += repeats
            for name, count in verdict.coverage:
                tally.coverage[name] += count * repeats

    def expand(self, keys: Sequence[State], depth: int) -> tuple[list[tuple[int, int, State]], tuple | None, int]:
        """Children new to this expander as (key index, event index, child); the first violation, if any; the edges.

        A violation is (key index, event index, the step's violations, probe):
        ``probe`` when it is B13's, found at the child that edge reached. The
        edges are those taken, up to and including a violating one.
        """
        children: list[tuple[int, int, State]] = []
        seen = self.seen
        raw_seen = self.raw_seen
        canon = self.canon
        caches = self.moves
        judge = self.judge
        verdicts = self.verdicts
        memo = self.memo
        intern = self.interned.setdefault
        unordered = not canon.ordered_ids
        edges = 0
        for position, key in enumerate(keys):
            if not position % self.trim_every:
                self._trim()
                if self.known is not None and progress.active():
                    progress.update(level=f"level {depth + 1}: {position * 100 // len(keys)}% expanded",
                                    states=self.known + len(children))
            events = events_of(key, self.config)
            edges += len(events)
            tag = id(events)
            if self.group and tag not in self.images:
                try:
                    self._check_alphabet(events)
                except SymmetryBroken as broken:
                    return children, (position, self.stepping, [], False, broken), edges - len(events) + self.stepping + 1
            entries = []
            labels, duplicates, family, step_events = self.alphabet_labels(events)
            if unordered:
                ids = key.ids
                tag = family
            for index, copy in enumerate(key.copies):
                # A copy's moves depend on its memory only through which of the alphabet's repeated ids it
                # remembers; an alphabet without repeated ids (the counters') reads no memory at all.
                membership = membership_of(ids, index) if unordered and duplicates else 0
                found = caches[index].get((copy, tag, membership))
                if found is None:
                    try:
                        found = caches[index][(copy, tag, membership)] = self._entry(index, copy, events, tag, membership)
                    except work_bound.WorkBoundExceeded as error:
                        number = self.stepping
                        runaway = [Violation("B6", depth, runaway_message(error), BY_ID["B6"].title)]
                        return children, (position, number, runaway, False), edges - len(events) + number + 1
                    except SymmetryBroken as broken:
                        number = self.stepping
                        return children, (position, number, [], False, broken), edges - len(events) + number + 1
                entries.append(found)
            columns = list(zip(*entries))
            pair_columns = zip(*columns[1])
            after_columns = list(zip(*columns[2]))
            number_columns = list(zip(*columns[5]))
            history_numbers = self.history_numbers
            if unordered:
                added_masks = list(map(sum, zip(*columns[3])))
                kept_masks = list(map(sum, zip(*columns[4])))
            state_history = key.history
            state_number = history_numbers.setdefault(state_history, len(history_numbers))
            # What judging needs (the moves by event, the history as the monitor keeps it, the snapshots
            # before), made on the state's first step not judged before: often none is.
            move_columns = None
            for number, pairs in enumerate(pair_columns):
                # A step is a pure function of the event, the history and each copy's snapshots (with
                # its memory bit and admission): one judged already is judged again by counting it.
                step_key = (step_events[number], state_number, pairs)
                verdict = verdicts.get(step_key) if memo else None
                if verdict is None:
                    if move_columns is None:
                        move_columns = list(zip(*columns[0]))
                        history = self._history_dicts(state_history)
                        # Every move of a copy starts from the same snapshot: the state's own.
                        before = {name: moves[0].before_snap for name, moves in zip(ALL_COPIES, columns[0])}
                        fresh_ids = {name: not snap.terminal for name, snap in before.items()}
                    violations, after_history, verdict = judge(events[number], move_columns[number], history, depth, before, fresh_ids)
                    if violations:
                        return children, (position, number, violations, False), edges - len(events) + number + 1
                    if self.group:
                        try:
                            self._check_judge(events, number, pairs, step_events, state_number, history, depth, verdict)
                        except SymmetryBroken as broken:
                            return children, (position, number, [], False, broken), edges - len(events) + number + 1
                    if memo:
                        verdicts[step_key] = verdict
                else:
                    verdict.repeats += 1
                    after_history = verdict.history
                if unordered:
                    after_ids = child_ids(ids, labels[number], added_masks[number], kept_masks[number])
                    raw = (number_columns[number], history_numbers.setdefault(after_history, len(history_numbers)), after_ids)
                else:
                    after_ids = None
                    raw = (number_columns[number], history_numbers.setdefault(after_history, len(history_numbers)))
                # A raw child met before was canonicalized then: its canonical state is known already.
                if raw in raw_seen:
                    continue
                raw_seen.add(raw)
                afters = after_columns[number]
                child = canonical(afters, after_history, canon, after_ids)
                if child in seen:
                    continue
                # Kept for the rest of the search: its copies are shared with every other state holding them.
                child = State(
                    tuple([intern(copy, copy) for copy in child.copies]), intern(child.history, child.history),
                    intern(child.ids, child.ids),
                )
                seen.add(child)
                children.append((position, number, child))
                # Numbered as Monitor.step numbers it: the step of the event that reached this state (0-based).
                try:
                    bad = self.probe(afters[_R], afters[_P], depth)
                except SymmetryBroken as broken:
                    return children, (position, number, [], True, broken), edges - len(events) + number + 1
                if bad:
                    return children, (position, number, bad, True), edges - len(events) + number + 1
        return children, None, edges

    def counts(self) -> Tally:
        """Check counts of this expander: every edge, plus B13 once per probed state (no coverage counts)."""
        self._count_repeats()
        out = Tally()
        out.add_checks(self.tally)
        out.exercised.update(self.tally.exercised)
        out.violations.extend(self.tally.violations)
        out.steps = self.tally.steps
        out.add_checks(self.probe_tally)
        out.exercised["B13"] += self.probe_tally.exercised["B13"]
        out.violations.extend(self.probe_tally.violations)
        return out


def explore(
    config: Config, tally: Tally, canon: Canon | None = None, max_states: int = MAX_STATES, workers: int = 1,
    keep_states: bool = False, memo: bool = True, out_dir: Path | None = None,
) -> ConfigResult:
    """Breadth-first search of ``config`` by the engine; check counts go into ``tally``; stops at the first violation.

    With ``workers`` > 1 each level is split between forked processes; the
    states, edges, order and any counterexample are the same as with one (B13's
    per-state probes may be repeated across workers, so its check count is not).

    Every symmetry the canonical form merges by is checked on every edge
    (``Expander._check_step``, ``_check_judge``, ``_check_probe``, and the
    initial state and each alphabet). When one is broken the search stops,
    its claim is withdrawn (nothing it counted is kept), the break is
    recorded with the shortest trace that shows it (saved under ``out_dir``
    when given), and the scope is searched again without that symmetry
    (``properties.engine.search``); the row returned is the last search's,
    naming every break. Decision: a broken symmetry does not fail the run by
    itself: the search made without it is sound, so its verdict (a violation,
    a proof, or cut short by ``max_states``, never proved) is the scope's.
    """
    model = BudgetModel(config, canon or canon_for(config), memo, keep_states)
    row = search(model, max_depth=config.max_depth, max_states=max_states, seconds=None, out_dir=out_dir, workers=workers,
                 verbose=_TRACE_LEVELS)
    assert isinstance(row, ConfigResult)
    tally.merge(row.tally)
    return row


def _permute_state(state: State, permute: Any) -> State:
    """A whole state's image: every copy's key permuted (the history and the ids name no lane and no kind)."""
    return State(tuple([permute(copy) for copy in state.copies]), state.history, state.ids)


#: The budget's declared symmetries acting on whole states, as a ``Model`` declares them (``SYMMETRIES`` act on
#: one copy's key, which is what the batched expander checks).
STATE_SYMMETRIES = (
    Permutation("lanes", ("lanes",), lambda state: _permute_state(state, _mirror), mirror_event),
    Permutation("kinds", ("kinds",), lambda state: _permute_state(state, _swap_kinds), swap_event_kinds),
)


@attrs.define
class BudgetModel:
    """One configuration of the budget as the engine's model: real budgets stepped by the real code.

    As a plain ``Model`` (``properties.engine.model``) a state is the
    canonical state without the symmetries (``Canon`` with both off: ids
    renamed, settled copies merged, counts capped), decoded into fresh
    budgets and the monitor's history for each step, which runs through
    ``Monitor.step`` and B13's probe: slow, and independent of every cache
    below, so the tests hold the two ways equal on small scopes.

    As a ``Batched`` model it hands the engine the ``Expander``, which makes
    the same steps through its move and verdict caches (each copy key's move
    made once per event by the real code and reused; each distinct step
    judged once), merges by the kept symmetries and checks them on every
    edge. That is the way the verdict runs.
    """

    config: Config
    canon: Canon
    memo: bool = True
    keep_states: bool = False
    subject: str = "budget"

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def symmetries(self) -> tuple[Permutation, ...]:
        return tuple(p for p, on in zip(STATE_SYMMETRIES, (self.canon.symmetry, self.canon.kinds)) if on)

    def canon_keeping(self, kept: Sequence[Permutation]) -> Canon:
        """The canonical form merging by the kept symmetries only."""
        return without(self.canon, [p.name for p in self.symmetries if p not in kept])

    # -- the plain model ---------------------------------------------------------------------------

    def _plain(self) -> Canon:
        return attrs.evolve(self.canon, symmetry=False, kinds=False)

    def initial(self) -> tuple[State, ...]:
        prototypes = new_prototypes(self.config)
        monitor = Monitor(limits=self.config.oracle, tally=Tally(), budgets=dict(zip(ALL_COPIES, prototypes)))
        return (encode([clone(prototype) for prototype in prototypes], monitor.history(), self._plain()),)

    def alphabet(self, state: State) -> tuple[Event, ...]:
        return events_of(state, self.config)

    def step(self, state: State, event: Event) -> Edge:
        """``event`` delivered to budgets decoded from ``state`` through ``Monitor.step``, then B13 at the successor."""
        budgets = decode(state, new_prototypes(self.config))
        tally = Tally()
        oracle = self.config.oracle
        monitor = Monitor(limits=oracle, tally=tally, budgets=dict(zip(ALL_COPIES, budgets)), invariants=EDGE_INVARIANTS,
                          failure_ends_probes="off")
        restore_history(monitor, state.history)
        found = list(monitor.step(event))
        target = encode(budgets, monitor.history(), self._plain())
        probe = Monitor(limits=oracle, tally=tally, budgets={"R": clone(budgets[_R]), "P": clone(budgets[_P])},
                        invariants=STATE_INVARIANTS, failure_ends_probes="all")
        found.extend(probe.step(PROBE_EVENT))
        held = tuple(sorted(name for name, count in tally.exercised.items() if count))
        return Edge(target=target, violations=tuple(found), held=held)

    def key(self, state: State) -> State:
        return state

    def save(self, start: int, events: Sequence[Event], path: Path) -> Path:
        body = Trace(name=path.stem, events=tuple(events), limits=self.config.oracle, origin=f"explorer {self.config.name}")
        return save_trace(body, path)

    def describe(self, event: Event) -> str:
        return event.label or type(event).__name__

    # -- the batched model -------------------------------------------------------------------------

    def expander(self, kept: tuple[Permutation, ...]) -> Any:
        return functools.partial(Expander, self.config, self.canon_keeping(kept), self.memo)

    def result(
        self, store: Store, run: LevelRun, counts: Tally, violations: tuple[Violation, ...], kept: tuple[Permutation, ...],
        seconds: float, out_dir: Path | None,
    ) -> ConfigResult:
        config = self.config
        canon = self.canon_keeping(kept)
        path: tuple[Event, ...] = (PROBE_EVENT,) if violations else ()
        canonical_path: tuple[Event, ...] | None = path
        exact = True
        found = run.found
        if found is not None and found.violations:
            violations = found.violations
            key = run.frontier[found.position]
            path, canonical_path, exact = _path(config, canon, store, key, found.number, violations[0].invariant, found.probed)
        for violation in violations:
            if violation not in counts.violations:
                counts.violations.append(violation)
        return ConfigResult(
            name=config.name, limits=config.summary, states=len(store), edges=run.edges, depth=run.levels,
            complete=run.complete and not violations, seconds=seconds, violations=tuple(violations), path=path,
            exact=exact, canonical_path=canonical_path if violations else None, cut=run.cut,
            tally=counts, max_depth=config.max_depth, reached=frozenset(store.parents) if self.keep_states else frozenset(),
            symmetries=symmetry_names(canon), verified=canon.verify,
        )

    def symmetry_break(
        self, store: Store, at: tuple[Any, Any], failure: SymmetryBroken, depth: int, kept: tuple[Permutation, ...],
        out_dir: Path | None,
    ) -> SymmetryBreak:
        state, number = at
        canon = self.canon_keeping(kept)
        trace, image = _symmetry_traces(self.config, canon, store.chain(state), number, failure.permutation)
        found = SymmetryBreak(
            failure.permutation.name, failure.permutation.parts, failure.where, failure.detail, len(trace) if trace else depth,
            trace, image,
        )
        return save_symmetry_traces(self.config, found, out_dir) if out_dir is not None else found


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


def _merge(first: Tally, second: Tally) -> Tally:
    first.merge(second)
    return first


def events_of(key: State, config: Config) -> tuple[Event, ...]:
    """The alphabet offered from ``key``: it depends on the state's shape only (see ``alphabet``)."""
    copies = key.copies
    any_open = not all(copy.terminal for copy in copies)
    any_terminal = any(copy.terminal for copy in copies)
    # Only an open copy reads ``corrected``; a stopped one ignores the receipt whatever waits in it.
    waiting = any(copy.deferred != 0 and not copy.terminal for copy in copies[1:])
    return alphabet(any_open, any_terminal, waiting, key.remembered, config.fingerprints, config.alphabet)


def _event_at(key: tuple, number: int, config: Config) -> Event:
    return events_of(key, config)[number]


def _mode(quick: bool | str) -> str:
    return "quick" if quick is True else "default" if quick is False else quick


#: The safety net per mode (see ``MAX_STATES``).
MODE_MAX_STATES = {"quick": QUICK_MAX_STATES, "default": MAX_STATES, "thorough": THOROUGH_MAX_STATES}


def run_explorer(
    quick: bool | str, tally: Tally, out_dir: Path = DEFAULT_DIR, configs: Iterable[Config] | None = None,
    workers: int | None = None,
) -> ExplorerResult:
    """Explore every configuration of a mode (``configurations``), stopping at the first violation.

    The check counts are merged into ``tally``. ``workers``: processes per
    search (None: the mode's choice below).
    """
    mode = _mode(quick)
    rows = []
    counterexample = None
    # The quick set runs in process (unit tests, mutation runs); the others split each level over the cores,
    # unless the caller runs configurations side by side (``properties.budget.drivers``).
    if workers is None:
        workers = 1 if mode == "quick" else max(1, min(2, os.cpu_count() or 1))
    for config in configs if configs is not None else configurations(mode):
        row = explore(config, tally, max_states=MODE_MAX_STATES[mode], workers=workers, out_dir=out_dir)
        rows.append(row)
        if row.violation is not None:
            # The path is a real trace (``_trace``); only when none follows the canonical path does the file say so.
            note = "" if row.exact else "the search's canonical path: the budget is not lane/kind symmetric, it may not replay"
            counterexample = record("explorer", row.path, config.oracle, row.violation, out_dir, note=note)
            break
    return ExplorerResult(tuple(rows), counterexample)


def main(argv: Sequence[str] | None = None) -> int:
    def run(mode: str, tally: Tally, out_dir: Path, levels: bool) -> ExplorerResult:
        global _TRACE_LEVELS
        _TRACE_LEVELS = levels
        return run_explorer(mode, tally, out_dir)

    return cli.main(argv, "python -m properties.budget.explorer", (__doc__ or "").splitlines()[0], run, CATALOGUE, BY_ID)


if __name__ == "__main__":
    sys.exit(main())
