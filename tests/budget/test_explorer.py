"""The exhaustive explorer (driver 2): its proofs, its canonical states and its counterexamples.

Expected values come from ``shared/spec/budget.md`` (the limits table, the
deferral rule) and ``shared/spec/invariants.md`` (which invariant a broken
rule breaks), never from the explorer's own output.
"""

from __future__ import annotations

import copy
from pathlib import Path
import random
from collections import deque

import attrs
import pytest

import properties.budget.copies
from guard.budget import RunProgressBudget
from guard.limits import Limits
from properties.budget import explorer
from properties.budget.copies import new_copies
from properties.budget.events import FirstCall, Result, Round, Stop
from properties.budget.explorer import Canon, Config, configurations, decode, encode, explore, run_explorer
from properties.budget.invariants import CATALOGUE
from properties.budget.monitor import Monitor
from properties.catalogue import Tally
from properties.budget.counterexample import first_violation
from properties.budget.trace_file import load_trace
from properties.engine import levels
from properties.engine.collector import SEARCH_GC_THRESHOLD

#: ``shared/spec/budget.md``, "Limits": the real numbers, in the order of that table, then the two memory caps.
SPEC_NUMBERS = {
    "consecutive_failures": 4,
    "total_failures": 12,
    "rounds_without_progress": 8,
    "identical_successes": 2,
    "corrected_attempts": 2,
    "free_empty_lookups": 12,
    "seen_calls": 256,
    "successes": 128,
}

TINY = Config("tiny c2 t2", Limits(
    consecutive_failures=2, total_failures=2, rounds_without_progress=1, identical_successes=1,
    corrected_attempts=2, free_empty_lookups=1, seen_calls=1, successes=1,
), None)


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[explorer.ExplorerResult, Tally]:
    tally = Tally()
    result = run_explorer(True, tally, tmp_path_factory.mktemp("counterexamples"))
    print(result.render())
    return result, tally


def test_quick_configurations_hold_and_exercise_every_invariant(quick_run):
    result, tally = quick_run
    assert result.ok, result.render()
    assert result.counterexample is None
    for row in result.rows:
        assert row.violations == ()
        assert row.finished
        assert row.states > 1 and row.edges >= row.states - 1
        if row.max_depth is None:
            assert row.complete, f"{row.name} stopped before its fixpoint"
        else:
            assert row.depth == row.max_depth
    for invariant in CATALOGUE:
        assert tally.checked[invariant.id] > 0, invariant.id
        assert tally.status(invariant.id) == "held", f"{invariant.id} is {tally.status(invariant.id)}"


def test_quick_set_proves_at_least_one_scope_to_its_fixpoint(quick_run):
    result, _ = quick_run
    assert any(row.max_depth is None and row.complete for row in result.rows)


def test_default_set_has_the_scopes_the_brief_asks_for():
    configs = configurations(False)
    assert any(
        c.max_depth is None and c.limits.consecutive_failures == 3 and c.limits.total_failures == 5 for c in configs
    ), "a complete proof with consecutive 3 and total 5"
    real = [c for c in configs if c.max_depth is not None]
    assert real, "the real limits to a fixed depth"
    for config in real:
        assert config.limits == Limits()
        assert attrs.asdict(config.oracle) == SPEC_NUMBERS
    # Every small scope is explored to its fixpoint.
    assert all(c.max_depth is None for c in configs if c.limits != Limits())
    # Issue 12: a complete proof at the real fuse (4) with a total cap of at least 6.
    assert any(
        c.max_depth is None and c.limits.consecutive_failures == SPEC_NUMBERS["consecutive_failures"] and c.limits.total_failures >= 6
        for c in configs
    ), "a complete proof at consecutive 4 with total >= 6"


def test_thorough_set_has_the_scopes_the_brief_asks_for():
    configs = configurations("thorough")
    assert any(
        c.max_depth is None and c.limits.consecutive_failures >= 4 and c.limits.total_failures >= 8
        and c.limits.rounds_without_progress >= 2 and c.limits.free_empty_lookups >= 2
        for c in configs
    ), "a complete proof of at least consecutive 4, total 8, rounds 2, free lookups 2"
    assert any(
        c.max_depth is not None and c.max_depth >= 10 and c.alphabet == "full" and c.limits == Limits() for c in configs
    ), "the real limits searched to depth 10 with every event"
    # The thorough set proves everything the default set does.
    assert {c.name for c in configurations("default")} <= {c.name for c in configs}
    with pytest.raises(ValueError):
        configurations("exhaustive")


def test_a_search_cut_short_is_not_a_proof():
    row = explore(TINY, Tally(), max_states=10)
    assert not row.complete and not row.finished
    assert not explorer.ExplorerResult((row,)).ok


def test_runs_are_deterministic_and_workers_change_nothing():
    first = explore(TINY, Tally(), keep_states=True)
    second = explore(TINY, Tally(), keep_states=True)
    forked = explore(TINY, Tally(), keep_states=True, workers=2)
    for other in (second, forked):
        assert (other.states, other.edges, other.depth, other.complete) == (first.states, first.edges, first.depth, first.complete)
        assert other.reached == first.reached


# -- canonical states -----------------------------------------------------------


def test_canonical_search_reaches_exactly_the_canonical_images_of_the_plain_search():
    """Symmetry and forgetting stopped copies merge states; they must neither lose nor invent any."""
    # One fingerprint keeps the plain search (about 10,000 states) affordable in a unit test.
    scope = attrs.evolve(TINY, fingerprints=False)
    plain_canon = Canon(ordered_ids=True, symmetry=False, drop_dead=False, kinds=False)
    plain = explore(scope, Tally(), canon=plain_canon, keep_states=True)
    reduced = explore(scope, Tally(), keep_states=True)
    print(f"plain {plain.states} states, reduced {reduced.states}")
    assert plain.complete and reduced.complete
    assert plain.violations == () and reduced.violations == ()
    assert plain.states > reduced.states, "the reductions should merge something"
    prototypes = explorer.new_prototypes(scope)
    canon = explorer.canon_for(scope)
    images = {encode(decode(key, prototypes), key.history, canon) for key in plain.reached}
    assert images == set(reduced.reached)


def test_decoding_a_canonical_state_gives_it_back():
    result = explore(TINY, Tally(), keep_states=True)
    prototypes = explorer.new_prototypes(TINY)
    canon = explorer.canon_for(TINY)
    for key in result.reached:
        assert encode(decode(key, prototypes), key.history, canon) == key


def test_lane_mirror_images_are_one_state():
    budgets = [copy.deepcopy(b) for b in new_copies(TINY.limits).values()]
    mirror = [copy.deepcopy(b) for b in budgets]
    for budget in budgets:
        budget.observe_result("x", "exec", None, True, lane="workspace")
    for budget in mirror:
        budget.observe_result("x", "exec", None, True, lane="extension")
    history = Monitor(limits=TINY.limits, tally=Tally(), budgets=new_copies(TINY.limits)).history()
    canon = Canon(ordered_ids=True)
    assert encode(budgets, history, canon) == encode(mirror, history, canon)
    assert encode(budgets, history, attrs.evolve(canon, symmetry=False)) != encode(mirror, history, attrs.evolve(canon, symmetry=False))


@pytest.mark.parametrize("workers", [1, 2])
def test_judging_each_distinct_step_once_counts_what_judging_every_edge_counts(workers):
    """The verdict memo (``_Verdict``) changes no state, edge, check, exercise or coverage count."""
    scope = attrs.evolve(TINY, name="tiny c1 t3", limits=attrs.evolve(TINY.limits, consecutive_failures=1, total_failures=3), fingerprints=False)
    every, memo = Tally(), Tally()
    plain = explore(scope, every, keep_states=True, memo=False, workers=workers)
    fast = explore(scope, memo, keep_states=True, workers=workers)
    assert (fast.states, fast.edges, fast.depth, fast.complete) == (plain.states, plain.edges, plain.depth, plain.complete)
    assert fast.reached == plain.reached
    assert (memo.checked, memo.exercised, memo.steps) == (every.checked, every.exercised, every.steps)
    assert memo.steps == plain.edges


def test_emptied_caches_change_nothing(monkeypatch):
    """Caches bounded to almost nothing (``CACHE_BOUNDS``) give the same search and the same counts."""
    scope = attrs.evolve(TINY, name="tiny c1 t3", limits=attrs.evolve(TINY.limits, consecutive_failures=1, total_failures=3), fingerprints=False)
    roomy = Tally()
    first = explore(scope, roomy, keep_states=True)
    monkeypatch.setattr(explorer.expander, "CACHE_BOUNDS", {"verdicts": 5, "raw children": 5, "moves": 5})
    monkeypatch.setattr(explorer.Expander, "trim_every", 1)
    tight = Tally()
    second = explore(scope, tight, keep_states=True)
    assert (second.states, second.edges, second.reached) == (first.states, first.edges, first.reached)
    assert (tight.checked, tight.exercised, tight.steps) == (roomy.checked, roomy.exercised, roomy.steps)


def test_refusal_kind_images_are_one_state():
    """Seed 002 grants each kind once and never names one: a grant of either kind is the same state."""
    limits = Limits(consecutive_failures=1)
    granted = []
    for kind in explorer.KINDS:
        budgets = list(new_copies(limits).values())
        for budget in budgets[1:]:
            budget.observe_result("x", "exec", None, True, correctable_refusal=kind)
        assert budgets[2].pending_correction == kind  # budget.md rule 2: a refusal at the fuse is granted
        granted.append(budgets)
    history = Monitor(limits=limits, tally=Tally(), budgets=new_copies(limits)).history()
    canon = Canon(ordered_ids=True)
    assert encode(granted[0], history, canon) == encode(granted[1], history, canon)
    plain = attrs.evolve(canon, kinds=False)
    assert encode(granted[0], history, plain) != encode(granted[1], history, plain)


@pytest.mark.parametrize("scope", [
    TINY,
    # One fingerprint keeps Monitor.step on every edge of this scope affordable.
    attrs.evolve(TINY, name="tiny c1 t3", limits=attrs.evolve(TINY.limits, consecutive_failures=1, total_failures=3), fingerprints=False),
    # Real limits to a depth below the seen-calls cap: ids unordered, moves made on representatives.
    Config("real limits to 3", Limits(), 3, properties.budget.copies.SPEC_LIMITS),
])
def test_cached_moves_and_judged_edges_equal_monitor_step(scope):
    """Every edge the search judges from cached moves gets what ``Monitor.step`` on real budgets gives.

    For every reachable state and every event: the same violations, the same
    history, the same check and coverage counts, and the same canonical child.
    """
    result = explore(scope, Tally(), keep_states=True)
    assert result.finished and result.violations == ()
    canon = explorer.canon_for(scope)
    expander = explorer.Expander(scope, canon)
    prototypes = explorer.new_prototypes(scope)
    edges = 0
    for state in sorted(result.reached):
        events = explorer.events_of(state, scope)
        rows = [expander.copy_moves(index, copy, events, explorer.membership_of(state.ids, index)) for index, copy in enumerate(state.copies)]
        before = {name: moves[0].before_snap for name, moves in zip(properties.budget.copies.ALL_COPIES, rows)}
        fresh = {name: not snap.terminal for name, snap in before.items()}
        history = state.history
        dicts = (
            dict(zip(explorer.FEATURE_KEYS, history.features)), dict(zip(explorer.ADMISSION_KEYS, history.admissions)),
            dict(zip(explorer.ADMISSION_KEYS, history.streak)), dict(zip(explorer.ADMISSION_KEYS, history.fuse)),
            history.lookups_only,
        )
        for number, (event, moves) in enumerate(zip(events, zip(*rows))):
            expander.tally = expander.edge_monitor.tally = Tally()
            found, after_history, _verdict = expander.judge(event, moves, dicts, 3, before, fresh)
            budgets = decode(state, prototypes)
            tally = Tally()
            monitor = Monitor(
                limits=scope.oracle, tally=tally, budgets=dict(zip(properties.budget.copies.ALL_COPIES, budgets)),
                invariants=explorer.EDGE_INVARIANTS, failure_ends_probes="off", index=3,
            )
            explorer.restore_history(monitor, history)
            assert found == monitor.step(event), event
            assert after_history == monitor.history(), event
            assert (expander.tally.exercised, expander.tally.coverage, expander.tally.checked_steps, expander.tally.steps) == (
                tally.exercised, tally.coverage, tally.checked_steps, tally.steps
            ), event
            ids = None
            if not canon.ordered_ids:
                # Without eviction the copy keys carry no memory: the child's ids come from the moves' bits.
                ids = explorer.child_ids(state.ids, expander.alphabet_labels(events)[0][number], *explorer.masks(moves))
            child = explorer.canonical([move.after for move in moves], after_history, canon, ids)
            assert child == encode(budgets, monitor.history(), canon), event
            edges += 1
    # A bounded search does not expand its last level; this test does.
    assert edges == result.edges if result.complete else edges > result.edges


def _random_trace(seed: int, length: int) -> list:
    rng = random.Random(seed)
    events = []
    for index in range(length):
        roll = rng.random()
        if roll < 0.15:
            events.append(Round())
        elif roll < 0.18:
            events.append(Stop())
        elif roll < 0.25:
            events.append(FirstCall(remedy=rng.random() < 0.7))
        else:
            events.append(Result(
                f"id{rng.randrange(index + 1)}" if rng.random() < 0.2 else f"new{index}",
                rng.choice(["read", "exec", "tool_search"]), {"k": rng.randrange(3)}, rng.random() < 0.5,
                pending=rng.random() < 0.1, lane=rng.choice([None, "workspace", "extension", "fake-lane"]),
                correctable=rng.random() < 0.3, corrected=rng.random() < 0.3,
                correctable_refusal=rng.choice([None, None, "k1", "k2"]), empty_lookup=rng.random() < 0.2,
            ))
    return events


def _fields(budget) -> tuple:
    out = []
    for field in attrs.fields(type(budget)):
        value = getattr(budget, field.name)
        if isinstance(value, dict):
            value = ("dict", list(value.items()))
        elif isinstance(value, deque):
            value = ("deque", list(value))
        elif isinstance(value, set):
            value = ("set", sorted(value))
        out.append((field.name, value))
    return tuple(out)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_clone_equals_a_deepcopy_and_shares_no_container(seed):
    print(f"seed {seed}")
    limits = Limits(seen_calls=3, successes=2)
    monitor = Monitor(limits=limits, tally=Tally(), budgets=new_copies(limits))
    for event in _random_trace(seed, 80):
        monitor.step(event)
        for budget in monitor.budgets.values():
            twin = explorer.clone(budget)
            assert type(twin) is type(budget)
            assert _fields(twin) == _fields(copy.deepcopy(budget))
            for field in attrs.fields(type(budget)):
                value = getattr(budget, field.name)
                if isinstance(value, (dict, set, deque)):
                    assert getattr(twin, field.name) is not value, field.name


@pytest.mark.parametrize("seed", [4, 5])
def test_restoring_a_history_gives_the_same_history(seed):
    print(f"seed {seed}")
    limits = Limits()
    monitor = Monitor(limits=limits, tally=Tally(), budgets=new_copies(limits))
    fresh = Monitor(limits=limits, tally=Tally(), budgets=new_copies(limits))
    for event in _random_trace(seed, 60):
        monitor.step(event)
        explorer.restore_history(fresh, monitor.history())
        assert fresh.history() == monitor.history()


# -- planted bugs ----------------------------------------------------------------


class ForgivesAnySuccess(RunProgressBudget):
    """Seed 001 broken: every success counts as a passing correction, so any read rescues a waiting charge."""

    def observe_result(self, call_id, tool, params, failed, *args, **kwargs):
        if not failed:
            kwargs["corrected"] = True
        return super().observe_result(call_id, tool, params, failed, *args, **kwargs)


def test_a_planted_forgiveness_bug_is_found_with_the_shortest_trace(monkeypatch, tmp_path):
    monkeypatch.setattr(properties.budget.copies, "RunProgressBudget", ForgivesAnySuccess)
    tally = Tally()
    # Total 3: room for a failure, a waiting one, and the success after it (at total 2 the wait hits the cap).
    scope = attrs.evolve(TINY, name="c2 t3", limits=attrs.evolve(TINY.limits, total_failures=3))
    result = run_explorer(True, tally, tmp_path, configs=[scope])
    row = result.rows[0]
    assert not result.ok
    # invariants.md B7: a waiting charge is forgiven only by a corrected success.
    assert "B7" in {violation.invariant for violation in row.violations}
    assert tally.status("B7") == "violated"
    # budget.md rule 3: with the fuse at 2, one failure brings the count to 1, a correctable one waits
    # (its charge would trip), and the next success is the first chance to forgive: 3 events.
    assert len(row.path) == scope.limits.consecutive_failures + 1
    counterexample = result.counterexample
    assert counterexample is not None and counterexample.driver == "explorer"
    assert counterexample.path.is_file() and counterexample.path.parent == tmp_path
    assert len(counterexample.events) <= len(row.path)
    assert "COUNTEREXAMPLE from explorer" in counterexample.render()


def test_a_changed_default_limit_is_caught_at_the_real_limits():
    """The real-limits run holds ``Limits()`` to budget.md's numbers: a fuse of 5 stops one failure late."""
    config = Config("fuse 5", Limits(consecutive_failures=5), 5, properties.budget.copies.SPEC_LIMITS)
    row = explore(config, Tally())
    assert row.violation is not None and row.violation.invariant == "B1"
    # budget.md: the reference stops at the 4th consecutive failure; production with a fuse of 5 does not.
    assert len(row.path) == SPEC_NUMBERS["consecutive_failures"]


def test_spec_limits_are_the_numbers_of_budget_md():
    assert attrs.asdict(properties.budget.copies.SPEC_LIMITS) == SPEC_NUMBERS
    assert attrs.asdict(Limits()) == SPEC_NUMBERS


# -- counterexamples are real traces ---------------------------------------------------
#
# The search keeps canonical states (lanes mirrored, refusal kinds swapped, call ids renamed), so the
# events of its parent links may switch lane, kind or id midway. The bugs below fire on one side only,
# the side the canonical form does not keep, so the path is a real trace only if the explorer rebuilt it.
# The explorer now checks its symmetries and searches again without a broken one
# (``test_explorer_symmetry.py``); these tests turn the checks off to keep testing the rebuild itself,
# which a search trusting its symmetries (``Canon.verify`` off) still relies on.


def _trusting(monkeypatch):
    """Searches made without checking their symmetries, as the explorer made them before issue 19."""
    checked = explorer.canon_for
    monkeypatch.setattr(explorer.run, "canon_for", lambda config: attrs.evolve(checked(config), verify=False))


class ExtensionSuccessKeepsItsCount(RunProgressBudget):
    """Seed 001 broken in one lane: a success in the extension lane, the workspace lane clean, keeps the lane's count."""

    def observe_result(self, call_id, tool, params, failed, *args, **kwargs):
        before = dict(self.lane_failures)
        super().observe_result(call_id, tool, params, failed, *args, **kwargs)
        if not failed and kwargs.get("lane") == "extension" and before["extension"] and not before["workspace"]:
            self.lane_failures["extension"] = before["extension"]


FIRST_WRITE = "playground-first-write"


class FirstWriteRemedyKeptAfterBothGrants(RunProgressBudget):
    """Seed 002 broken for one kind: once both kinds were granted, the first-write correction survives its first call."""

    def correct_fuse(self, remedy):
        held = self.correction
        admitted = super().correct_fuse(remedy)
        if held == FIRST_WRITE and len(self.corrected_kinds) == 2:
            self.correction = held
        return admitted


def _replay_states(events, limits, canon):
    """The canonical state after every prefix of ``events`` on fresh copies, and the first violation."""
    monitor = Monitor(limits=limits, tally=Tally(), budgets=new_copies(limits))
    order = list(monitor.budgets)
    states = [encode([monitor.budgets[name] for name in order], monitor.history(), canon)]
    for event in events:
        found = monitor.step(event)
        states.append(encode([monitor.budgets[name] for name in order], monitor.history(), canon))
        if found:
            return states, found
    return states, []


@pytest.mark.parametrize(
    ("budget", "total", "invariant", "last"),
    [
        # invariants.md B1: a production copy that receives no flags equals the reference; budget.md
        # rule 2: a success in a lane resets that lane. Shortest: an extension failure, an extension success.
        (ExtensionSuccessKeepsItsCount, 2, "B1", "extension"),
        # invariants.md B8: a correction is spent by the first call after its trip. Both kinds granted, then
        # the first-write remedy's first call: fuse 2, so fail, refusal (grant), remedy, refusal (grant), call.
        (FirstWriteRemedyKeptAfterBothGrants, 4, "B8", None),
    ],
    ids=["lane", "refusal kind"],
)
def test_the_counterexample_is_a_real_trace_on_the_non_canonical_side(monkeypatch, tmp_path, budget, total, invariant, last):
    monkeypatch.setattr(properties.budget.copies, "RunProgressBudget", budget)
    _trusting(monkeypatch)
    scope = attrs.evolve(TINY, name=f"c2 t{total}", limits=attrs.evolve(TINY.limits, total_failures=total))
    row = explore(scope, Tally(), keep_states=True)
    assert row.violation is not None and row.violation.invariant == invariant, row.violations
    assert row.exact
    # The planted bug is one the canonical events miss: replayed as they are, they break nothing.
    assert first_violation(row.canonical_path, scope.limits, invariant) is None, row.canonical_path
    # The path, delivered as it is to fresh copies, breaks the same invariant on its last event ...
    states, found = _replay_states(row.path, scope.limits, explorer.canon_for(scope))
    assert invariant in {violation.invariant for violation in found}
    assert found[0].step == len(row.path) - 1
    # ... through states the search reached (canonically), as long as the canonical path.
    assert len(row.path) == len(row.canonical_path)
    assert set(states[:-1]) <= row.reached
    if last is not None:
        assert row.path[-1].lane == last
    else:
        assert isinstance(row.path[-1], FirstCall) and row.path[-1].remedy


def test_the_saved_explorer_counterexample_replays_as_it_is(monkeypatch, tmp_path):
    monkeypatch.setattr(properties.budget.copies, "RunProgressBudget", ExtensionSuccessKeepsItsCount)
    result = run_explorer(True, Tally(), tmp_path, configs=[TINY])
    saved = result.counterexample
    assert saved is not None and saved.violation.invariant == "B1"
    trace = load_trace(saved.path)
    # No note: nothing was changed or searched for after the explorer handed the trace over.
    assert trace.origin == "explorer"
    assert first_violation(trace.events, trace.limits, "B1") is not None


def test_without_a_real_trace_the_saved_file_says_it_may_not_replay(monkeypatch, tmp_path):
    """The fallback of ``counterexample_path`` (no real trace along the canonical path): the violation is kept, the file says so."""
    monkeypatch.setattr(properties.budget.copies, "RunProgressBudget", ExtensionSuccessKeepsItsCount)
    _trusting(monkeypatch)
    monkeypatch.setattr(explorer.rebuild, "real_trace", lambda *args, **kwargs: None)
    result = run_explorer(True, Tally(), tmp_path, configs=[TINY])
    row = result.rows[0]
    assert row.violation is not None and not row.exact and row.path == row.canonical_path
    origin = load_trace(result.counterexample.path).origin
    assert "may not replay" in origin and "does not reproduce on a fresh monitor" in origin


# -- configurations side by side (``properties.budget.drivers``) -------------------------


@pytest.mark.parametrize("dominant", [None, "small c1 t3"])
def test_configurations_side_by_side_give_what_one_after_the_other_gives(monkeypatch, tmp_path, dominant):
    """Run two at a time, largest first, one split over two processes or none: the same rows, in the set's order."""
    from properties.budget import drivers

    configs = configurations(True)
    if dominant is not None:
        # Expected to outlast the rest together: it splits its levels over the two processes (the children fork
        # from this process, so they see the patched hint too).
        monkeypatch.setattr(explorer, "expected_seconds", lambda config: 1000.0 if config.name == dominant else 1.0)
    outcomes = drivers.explore_side_by_side(True, configs, 300.0, 2, tmp_path)
    assert [status for status, _part, _result in outcomes] == ["ok"] * len(configs)
    for config, (_status, part, result) in zip(configs, outcomes):
        (row,) = result.rows
        alone = explore(config, Tally(), max_states=explorer.QUICK_MAX_STATES)
        assert row.name == config.name
        assert (row.states, row.edges, row.depth, row.complete) == (alone.states, alone.edges, alone.depth, alone.complete)
        assert part.steps == alone.edges


def test_side_by_side_keeps_only_the_counterexample_it_reports(monkeypatch, tmp_path):
    """Every configuration breaks under a planted bug and saves a file; the run reports the first in the set's
    order and leaves exactly that file in counterexamples/ (the children fork from here: they see the bug)."""
    from properties.budget import drivers
    from properties.subject import DriverRequest

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(RunProgressBudget, "failure_ends", lambda self, lane=None, correctable=False, empty_lookup=False: False)
    staged: list[str] = []
    real_rmtree = drivers.shutil.rmtree

    def counting_rmtree(path, ignore_errors=False):
        staged.extend(file.name for file in Path(path).rglob("*.json"))
        real_rmtree(path, ignore_errors=ignore_errors)

    monkeypatch.setattr(drivers.shutil, "rmtree", counting_rmtree)
    result = drivers.run_explorer_driver(DriverRequest(seed=1, mode="default", profile="dev", options={"explorer_seconds": 300.0}))
    assert len(staged) >= 1, "the other configurations broke too and saved files of their own"
    saved = sorted((tmp_path / "counterexamples").iterdir())
    assert result.counterexample_path is not None
    assert [path.name for path in saved] == [Path(result.counterexample_path).name]
    assert "B13" in saved[0].name


def test_a_b13_violation_is_numbered_as_its_replay_numbers_it(monkeypatch, tmp_path):
    """The explorer's B13 probe of a new state names the step of the event that reached it (0-based), the step
    the saved counterexample breaks at when replayed: one number from the run's summary to the replay."""
    real = RunProgressBudget.failure_ends

    def lies_after_two_failures(self, lane=None, correctable=False, empty_lookup=False):
        answer = real(self, lane=lane, correctable=correctable, empty_lookup=empty_lookup)
        return False if self.failures == 2 and not self.terminal else answer

    monkeypatch.setattr(RunProgressBudget, "failure_ends", lies_after_two_failures)
    config = next(config for config in configurations(True) if config.name == "small c1 t3")
    result = run_explorer(True, Tally(), tmp_path, configs=[config])
    (row,) = result.rows
    assert row.violation is not None and row.violation.invariant == "B13"
    trace = load_trace(result.counterexample.path)
    replayed = first_violation(trace.events, trace.limits, "B13")
    assert replayed is not None and row.violation.step == replayed.step == len(trace.events) - 1


def test_a_search_hands_the_garbage_collector_back_as_it_found_it():
    """``collector_for_search`` raises the first threshold and freezes levels only for the search's duration."""
    import gc

    before = gc.get_threshold()
    gc.unfreeze()  # whatever froze objects earlier in this process: the search must start from none frozen
    seen_inside = []
    # The engine's level loop freezes each level (``properties.engine.levels``).
    original = levels.freeze_level

    def spy() -> None:
        seen_inside.append((gc.get_threshold()[0], gc.isenabled()))
        original()

    try:
        levels.freeze_level = spy
        result = explore(explorer.small_scope("small c1 t3", explorer.small_limits(1, 3, 1, 1, 1, 1, 1)), Tally())
    finally:
        levels.freeze_level = original
    assert result.complete
    # One freeze per level, with the raised threshold and the collector still on.
    assert len(seen_inside) == result.depth
    assert set(seen_inside) == {(SEARCH_GC_THRESHOLD, True)}
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_a_search_leaves_objects_frozen_before_it_frozen():
    """A caller's frozen objects stay in the permanent generation, which ``gc.get_objects`` never lists."""
    import gc

    mine = [object()]
    gc.collect()
    gc.freeze()
    try:
        assert not any(found is mine for found in gc.get_objects())
        explore(explorer.small_scope("small c1 t3", explorer.small_limits(1, 3, 1, 1, 1, 1, 1)), Tally())
        assert not any(found is mine for found in gc.get_objects())
    finally:
        gc.unfreeze()
    assert any(found is mine for found in gc.get_objects())
