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

The package, one module per idea (no import cycle among them at run time):

* ``scopes``: the configurations (quick, default, thorough), their limits and scheduling hints;
* ``alphabets``: the finite alphabet of events offered from a state of each shape;
* ``copier``: a generated copier of a budget's fields;
* ``keys``: a copy's key (``CopyKey``), the monitor's history, the state, the ``Canon`` switches,
  and turning a budget into a key and back;
* ``symmetry``: the declared symmetries (lanes, refusal kinds) on keys and events;
* ``history``: the monitor's history keys and restoring it;
* ``canonical_form``: the canonical form (settled copies merged, ids renamed, least image);
* ``result``: the report's rows;
* ``rebuild``: rebuilding a real trace from a canonical path, for a counterexample or a symmetry break;
* ``moves``: one copy's transition and move, and the cached verdict of a step;
* ``checks``: the symmetry checks made on every edge (``SymmetryChecks``);
* ``expander``: the batched expander the engine drives (moves and verdicts cached, every edge judged);
* ``model``: ``BudgetModel``, the budget as the engine's model;
* ``run``: ``explore``, ``run_explorer`` and the command line (``python -m properties.budget.explorer``).

This module re-exports what the drivers, the bench, the review and the tests use.
"""

from properties.budget.explorer.scopes import Config, EXPECTED_SECONDS, MAX_STATES, MODES, MODE_MAX_STATES, QUICK_MAX_STATES, THOROUGH_DEPTH, THOROUGH_MAX_STATES, canon_for, configurations, expected_seconds, new_prototypes, small_limits, small_scope
from properties.budget.explorer.alphabets import CORRECTED, COUNTERS, DUPLICATES, FRESH_FAILURES, FRESH_SUCCESSES, KINDS, LANES, ONE_FINGERPRINT, PROBE_EVENT, alphabet, events_of
from properties.budget.explorer.copier import clone
from properties.budget.explorer.keys import Canon, CopyKey, DEAD, History, State, decode, decode_copy, raw_key
from properties.budget.explorer.symmetry import STATE_SYMMETRIES, SYMMETRIES, checked_group, mirror, mirror_event, swap_event_kinds, swap_kinds, symmetry_names, without
from properties.budget.explorer.history import ADMISSION_KEYS, FEATURE_KEYS, restore_history
from properties.budget.explorer.canonical_form import canonical, child_ids, encode, id_masks, masks, membership_of
from properties.budget.explorer.result import ConfigResult, EXPLORER_TITLE, ExplorerResult
from properties.budget.explorer.moves import CACHE_BOUNDS, Move, Transition
from properties.budget.explorer.expander import EDGE_INVARIANTS, Expander, STATE_INVARIANTS
from properties.budget.explorer.model import BudgetModel
from properties.budget.explorer.run import explore, main, run_explorer

__all__ = [
    "Config",
    "EXPECTED_SECONDS",
    "MAX_STATES",
    "MODES",
    "MODE_MAX_STATES",
    "QUICK_MAX_STATES",
    "THOROUGH_DEPTH",
    "THOROUGH_MAX_STATES",
    "canon_for",
    "configurations",
    "expected_seconds",
    "new_prototypes",
    "small_limits",
    "small_scope",
    "CORRECTED",
    "COUNTERS",
    "DUPLICATES",
    "FRESH_FAILURES",
    "FRESH_SUCCESSES",
    "KINDS",
    "LANES",
    "ONE_FINGERPRINT",
    "PROBE_EVENT",
    "alphabet",
    "events_of",
    "clone",
    "Canon",
    "CopyKey",
    "DEAD",
    "History",
    "State",
    "decode",
    "decode_copy",
    "raw_key",
    "STATE_SYMMETRIES",
    "SYMMETRIES",
    "checked_group",
    "mirror",
    "mirror_event",
    "swap_event_kinds",
    "swap_kinds",
    "symmetry_names",
    "without",
    "ADMISSION_KEYS",
    "FEATURE_KEYS",
    "restore_history",
    "canonical",
    "child_ids",
    "encode",
    "id_masks",
    "masks",
    "membership_of",
    "ConfigResult",
    "EXPLORER_TITLE",
    "ExplorerResult",
    "CACHE_BOUNDS",
    "Move",
    "Transition",
    "EDGE_INVARIANTS",
    "Expander",
    "STATE_INVARIANTS",
    "BudgetModel",
    "explore",
    "main",
    "run_explorer",
]
