"""The budget's rows of ``nox -s bench`` (``properties.bench``): how fast each of its drivers checks, as medians.

Rows, each the median of ``--repeats`` runs in this process:

* bulk: checked steps per second of ``properties.budget.bulk.run_bulk`` (B13 on P's
  own failures), and the *unchecked floor*: the same events through the
  same copies via ``properties.budget.copies.applier``, with no snapshots and no
  checks. The ratio of time per step, checked over unchecked, is reported
  for the whole driver (event generation included on both sides) and for
  stepping alone (events built beforehand, the same early cut-off); the cost
  of drawing the events is printed too, with the ratio of drawing plus
  checking over stepping alone.
* stateful: steps per second of the Hypothesis state machine (every probe of B13).
* explorer: states and edges per second of the quick configurations.
* explorer against commit ``e84bbbf`` (``--compare``, on by default): that
  commit's explorer, checked out into a temporary git worktree, and this one
  run the same scopes side by side, each run a fresh subprocess, old and new
  alternating, one process each (``--explorer-workers``); medians and ratios
  of states per second and of the time to finish the scope. Seconds are CPU
  seconds of the exploring processes (its forked workers included), so that
  other work on a shared machine does not tilt a ratio; the wall time of the
  same runs is printed beside them. This explorer
  merges more states (the refusal-kind symmetry), so it also runs each scope
  with that symmetry off: the same states as the old one, the fairest
  states-per-second ratio.
* explorer against ``e84bbbf`` in wall seconds (``--no-wall`` leaves it out):
  the same scopes and states (kind symmetry off), each explorer using both
  cores the way its own runs do: one scope split over two processes
  (``workers=2`` on both sides), and the whole compared set, which
  ``e84bbbf`` explores one scope after the other, each split over two
  processes, and this explorer's runs explore side by side, one scope per
  core, largest first (``properties.budget.drivers``). These rows divide
  by wall seconds, so they read the load of the machine: run them quiet.
* the engine against commit ``6f1debb`` (``ENGINE_BASELINE``, the explorer
  before it became a model on the engine): the same scopes, one process
  each, alternating, CPU seconds; states, edges, depth and reach must be
  equal, and the ratio is what the split costs.
* the symmetry checks' own cost: each compared scope with its checks and
  without (the same states), CPU seconds, the ratio.
* explorer growth: states, edges and seconds of this explorer's proofs at
  consecutive 4 as the total cap grows (3, 4, 5, 6, 8), with the growth
  factor per step; a scope still running after ``--growth-seconds`` is cut
  off and reported so.
* the default ``python -m properties`` run's wall time on a terminal with
  its live progress and with ``--quiet``, alternating, medians of
  ``--default-repeats`` (each a subprocess on a pseudo-terminal, what it
  draws read and dropped): what the progress itself costs.

Figures (``--figures``, default ``reports/bench/``): ``growth.svg``,
``explorer-vs-baseline.svg`` and ``bulk-checked.svg`` (``properties.figures``),
and ``bench.md``, the table with links to them.

The seed is fixed (printed) so that every repeat times the same work.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable, Sequence

from properties import progress
from properties.budget import bulk
from properties.budget import generate
from properties.catalogue import Tally
from properties.budget.monitor import new_monitor
from properties.paths import ROOT

#: The bench's fixed seed (``properties.bench.SEED``: every repeat times the same work).
SEED = 20_240_601


def _median(samples: Sequence[float]) -> float:
    return statistics.median(samples) if samples else 0.0


def bench_bulk(traces: int, repeats: int) -> dict[str, float]:
    checked_rates, unchecked_rates, ratios = [], [], []
    for _ in range(repeats):
        result = bulk.run_bulk(SEED, traces, Tally())
        steps, seconds = bulk.run_unchecked(SEED, traces)
        if result.steps != steps:
            raise RuntimeError(f"bench: the unchecked loop stepped {steps} events, the checked one {result.steps}")
        checked_rates.append(result.steps / result.seconds)
        unchecked_rates.append(steps / seconds)
        ratios.append((result.seconds / result.steps) / (seconds / steps))
    return {
        "steps": float(steps),
        "checked_steps_per_second": _median(checked_rates),
        "unchecked_steps_per_second": _median(unchecked_rates),
        "ratio": _median(ratios),
    }


def _step_checked(traces: list[list[Any]]) -> tuple[int, float]:
    steps = 0
    start = time.perf_counter()
    for events in traces:
        budgets = bulk.default_copies()
        monitor = new_monitor(Tally(), limits=bulk.SPEC_LIMITS, budgets=budgets, **bulk.MONITOR_OPTIONS)
        tail = 0
        for event in events:
            monitor.step(event)
            steps += 1
            if bulk.all_stopped(budgets):
                tail += 1
                if tail > bulk.TAIL_AFTER_STOP:
                    break
    return steps, time.perf_counter() - start


def bench_stepping(traces: int, repeats: int) -> dict[str, float]:
    """Checked versus unchecked on events built beforehand: what the monitor itself costs.

    Also times drawing the events, per checked step, and the ratio of the
    whole checked driver (drawing included) to stepping alone (drawing not
    included), so that every reading of "the unchecked floor" has its figure.
    """
    ratios, checked, unchecked, drawing, mixed = [], [], [], [], []
    for _ in range(repeats):
        start = time.perf_counter()
        events = generate.materialize(SEED, traces)
        t0 = time.perf_counter() - start
        n1, t1 = _step_checked(events)
        n2, t2 = bulk.step_unchecked(events)
        checked.append(n1 / t1)
        unchecked.append(n2 / t2)
        ratios.append((t1 / n1) / (t2 / n2))
        drawing.append(t0 / n1 * 1e6)
        mixed.append(((t0 + t1) / n1) / (t2 / n2))
    return {
        "checked_steps_per_second": _median(checked),
        "unchecked_steps_per_second": _median(unchecked),
        "ratio": _median(ratios),
        "drawing_us_per_step": _median(drawing),
        "drawing_and_checking_over_stepping": _median(mixed),
    }


def bench_stateful(examples: int, repeats: int) -> dict[str, float]:
    from properties.budget import stateful

    rates = []
    for _ in range(repeats):
        tally = Tally()
        result = stateful.run_stateful(SEED, "dev", tally, examples=examples)
        rates.append(result.steps / result.seconds)
    return {"steps_per_second": _median(rates)}


def _explorer_once(_: int) -> tuple[int, int, float]:
    from properties.budget import explorer

    result = explorer.run_explorer(True, Tally())
    return result.states, result.edges, result.seconds


def bench_explorer(repeats: int, timeout: float) -> dict[str, Any]:
    """States and edges per second of the quick configurations, in a child process so a slow search can be cut off."""
    try:
        import properties.budget.explorer  # noqa: F401
    except ModuleNotFoundError as error:
        if error.name == "properties.budget.explorer":
            return {"status": "absent"}
        raise
    rates, edge_rates = [], []
    with multiprocessing.get_context("fork").Pool(1) as pool:
        for number in range(repeats):
            try:
                states, edges, seconds = pool.apply_async(_explorer_once, (number,)).get(timeout)
            except multiprocessing.TimeoutError:
                return {"status": f"cut off after {timeout:.0f} s"}
            rates.append(states / seconds)
            edge_rates.append(edges / seconds)
    return {"status": "ran", "states_per_second": _median(rates), "edges_per_second": _median(edge_rates), "states": states, "edges": edges}


#: The commit whose explorer the comparison runs, and where that explorer lived then.
BASELINE = "e84bbbf"
BASELINE_MODULE = "properties.explorer"
CURRENT_MODULE = "properties.budget.explorer"

#: The scopes compared: the default run's proofs and its two real-limits searches.
#: (name, scope arguments for ``small_limits`` or None for the real limits, fingerprints, depth, alphabet)
COMPARED = (
    ("small c1 t3", (1, 3, 1, 1, 1, 1, 1), True, None, "full"),
    ("small c3 t5", (3, 5, 1, 1, 1, 1, 1), False, None, "full"),
    ("small c4 t6", (4, 6, 1, 1, 1, 1, 1), False, None, "full"),
    ("real limits", None, True, 6, "full"),
    ("real limits, counters", None, True, 13, "counters"),
)
GROWTH_TOTALS = (3, 4, 5, 6, 8)

#: Run in a fresh interpreter with either checkout first on the path: one exploration, its figures as JSON.
_RUNNER = """
import json, sys, importlib
import attrs
job = json.loads(sys.argv[1])
mod = importlib.import_module(job["module"])
from guard.limits import Limits
# The public names today; an older commit's explorer (the baseline) had them private, so they are looked up by either.
def named(public, private):
    return getattr(mod, public, None) or getattr(mod, private)
if job["scope"] is not None:
    config = named("small_scope", "_scope")(job["name"], named("small_limits", "_small")(*job["scope"]), fingerprints=job["fingerprints"])
else:
    # The explorer module re-exported the spec's limits until it became a package; they live in copies since.
    spec = getattr(mod, "SPEC_LIMITS", None) or importlib.import_module("properties.budget.copies").SPEC_LIMITS
    config = mod.Config(job["name"], Limits(), job["depth"], spec, alphabet=job["alphabet"])
canon = named("canon_for", "_canon_for")(config)
if job["plain_kinds"]:
    canon = attrs.evolve(canon, kinds=False)
if job.get("unchecked") and "verify" in attrs.fields_dict(type(canon)):
    canon = attrs.evolve(canon, verify=False)
import resource, time
def cpu():
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime
started = cpu()
tally = getattr(mod, "Tally", None) or importlib.import_module("properties.catalogue").Tally
row = mod.explore(config, tally(), canon=canon, workers=job["workers"], max_states=job["max_states"])
print(json.dumps({"states": row.states, "edges": row.edges, "wall": row.seconds, "seconds": cpu() - started,
                  "complete": row.complete, "depth": row.depth, "violation": row.violation is not None}))
"""


def _explore_in(root: Path, job: dict[str, Any], timeout: float) -> dict[str, Any] | None:
    """One exploration in a fresh interpreter over ``root``; None when cut off after ``timeout`` seconds."""
    import json

    env = {**os.environ, "PYTHONPATH": str(root), "PYTHONHASHSEED": "0"}
    try:
        proc = subprocess.run(
            [sys.executable, "-c", _RUNNER, json.dumps(job)], cwd=root, env=env, capture_output=True, text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return None
    if proc.returncode != 0:
        raise RuntimeError(f"bench: exploring {job['name']} in {root} failed: {proc.stderr.strip().splitlines()[-1:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _job(module: str, name: str, scope: Any, fingerprints: bool, depth: Any, alphabet: str, workers: int,
         plain_kinds: bool = False) -> dict[str, Any]:
    return {
        "module": module, "name": name, "scope": scope, "fingerprints": fingerprints, "depth": depth,
        "alphabet": alphabet, "workers": workers, "plain_kinds": plain_kinds, "max_states": 3_000_000,
    }


class _Baseline:
    """A temporary git worktree of ``commit`` (``BASELINE`` unless told; removed on exit)."""

    def __init__(self, commit: str = BASELINE) -> None:
        self.commit = commit

    def __enter__(self) -> Path | None:
        import tempfile

        self.parent = Path(tempfile.mkdtemp(prefix="bench-baseline-"))
        self.path = self.parent / self.commit
        proc = subprocess.run(
            ["git", "worktree", "add", "--detach", str(self.path), self.commit], cwd=ROOT, capture_output=True, text=True,
        )
        if proc.returncode != 0:
            self.error = proc.stderr.strip().splitlines()[-1:] or ["git worktree add failed"]
            return None
        return self.path

    def __exit__(self, *_exc: Any) -> None:
        import shutil

        subprocess.run(["git", "worktree", "remove", "--force", str(self.path)], cwd=ROOT, capture_output=True)
        shutil.rmtree(self.parent, ignore_errors=True)


def bench_symmetry_cost(repeats: int, timeout: float, add: Any) -> None:
    """What checking the symmetries costs the explorer: each compared scope with its checks and without, same states.

    One process per exploration, alternating which goes first; CPU seconds
    (medians of ``repeats``), which a shared machine's load moves far less
    than wall seconds. The ratio is the checks' own cost (issue 19).
    """
    totals = {"checked": 0.0, "unchecked": 0.0}
    for name, scope, fingerprints, depth, alphabet in COMPARED:
        runs: dict[str, list[dict[str, Any]]] = {"checked": [], "unchecked": []}
        for number in range(repeats):
            for side in (("checked", "unchecked") if number % 2 == 0 else ("unchecked", "checked")):
                job = _job(CURRENT_MODULE, name, scope, fingerprints, depth, alphabet, 1)
                job["unchecked"] = side == "unchecked"
                found = _explore_in(ROOT, job, timeout)
                if found is None:
                    add(f"explorer {name}: symmetry checks", "-", f"cut off after {timeout:.0f} s")
                    return
                runs[side].append(found)
        states = {side: {run["states"] for run in found} for side, found in runs.items()}
        if states["checked"] != states["unchecked"]:
            raise RuntimeError(f"bench: {name}: the symmetry checks changed the states reached: {states}")
        cpu = {side: _median([run["seconds"] for run in found]) for side, found in runs.items()}
        for side in totals:
            totals[side] += cpu[side]
        add(f"explorer {name}: with symmetry checks / without", f"{cpu['checked'] / cpu['unchecked']:.2f}x",
            f"{cpu['checked']:.1f} vs {cpu['unchecked']:.1f} CPU s, {min(states['checked']):,} states either way")
    add("explorer compared scopes: symmetry checks' cost", f"{totals['checked'] / totals['unchecked']:.2f}x",
        "CPU seconds with the checks over without, summed over the scopes")


#: The last commit whose explorer ran its own search loop, before the budget became a model on the engine (issue 19).
ENGINE_BASELINE = "6f1debb"


def bench_engine_against(repeats: int, timeout: float, add: Any) -> None:
    """The budget on the engine against ``ENGINE_BASELINE``'s explorer on the compared scopes: same search, CPU ratio.

    One fresh process per exploration, one process each, alternating which
    goes first; medians of ``repeats``. States, edges, depth and reach must be
    equal (the split changes no search), and the ratio of CPU seconds is the
    split's own cost.
    """
    with _Baseline(ENGINE_BASELINE) as old_root:
        if old_root is None:
            add(f"engine vs {ENGINE_BASELINE}", "-", "no baseline worktree (git worktree add failed)")
            return
        totals = {"old": 0.0, "new": 0.0}
        for name, scope, fingerprints, depth, alphabet in COMPARED:
            runs: dict[str, list[dict[str, Any]]] = {"old": [], "new": []}
            for number in range(repeats):
                for side in (("old", "new") if number % 2 == 0 else ("new", "old")):
                    progress.update(f"engine vs {ENGINE_BASELINE}", done=len(runs["old"]) + len(runs["new"]), total=2 * repeats,
                                    unit=f"runs of {name}", force=True)
                    root = old_root if side == "old" else ROOT
                    found = _explore_in(root, _job(CURRENT_MODULE, name, scope, fingerprints, depth, alphabet, 1), timeout)
                    if found is None:
                        add(f"engine {name} ({side})", "-", f"cut off after {timeout:.0f} s")
                        return
                    runs[side].append(found)
            shapes = {side: {(run["states"], run["edges"], run["depth"], run["complete"]) for run in found} for side, found in runs.items()}
            if shapes["old"] != shapes["new"]:
                raise RuntimeError(f"bench: {name}: the engine's search differs from {ENGINE_BASELINE}'s: {shapes}")
            cpu = {side: _median([run["seconds"] for run in found]) for side, found in runs.items()}
            for side in totals:
                totals[side] += cpu[side]
            states, edges, levels, _complete = min(shapes["new"])
            add(f"engine {name}: now / {ENGINE_BASELINE} (CPU)", f"{cpu['new'] / cpu['old']:.2f}x",
                f"{cpu['new']:.2f} vs {cpu['old']:.2f} CPU s; {states:,} states, {edges:,} edges, depth {levels} either way")
        add(f"engine compared scopes: now / {ENGINE_BASELINE} (CPU)", f"{totals['new'] / totals['old']:.2f}x",
            f"{totals['new']:.1f} vs {totals['old']:.1f} CPU s, medians of {repeats}, summed over the scopes")


#: The commit whose default run the issue 19 budget compares with (the default run within 1.2x of its wall time).
DEFAULT_RUN_BASELINE = "ed3c667"


def compile_tree(root: Path) -> None:
    """Byte-compile a checkout's packages in place (``__pycache__``, ignored by git); quiet, and harmless when fresh."""
    packages = [name for name in ("guard", "reference", "properties", "mutations") if (root / name).is_dir()]
    subprocess.run([sys.executable, "-m", "compileall", "-q", *packages], cwd=root, capture_output=True, check=False)


def bench_default_against(repeats: int, timeout: float, add: Any) -> None:
    """The default run (``python -m properties``, seed 1) here and at ``DEFAULT_RUN_BASELINE``, alternating; medians."""
    import resource
    import tempfile

    with _Baseline(DEFAULT_RUN_BASELINE) as old_root:
        if old_root is None:
            add(f"default run vs {DEFAULT_RUN_BASELINE}", "-", "no baseline worktree (git worktree add failed)")
            return
        walls: dict[str, list[float]] = {"old": [], "new": []}
        cpus: dict[str, list[float]] = {"old": [], "new": []}
        # Both checkouts as a developer's is after its first run: compiled. Under PYTHONDONTWRITEBYTECODE (set on the
        # machines here) every run would otherwise compile its whole tree afresh, and the tree with more modules would pay more.
        for root in (old_root, ROOT):
            compile_tree(root)
        for number in range(repeats):
            for side in (("old", "new") if number % 2 == 0 else ("new", "old")):
                root = old_root if side == "old" else ROOT
                env = {**os.environ, "PYTHONPATH": str(root), "PYTHONHASHSEED": "0"}
                progress.update(f"default run vs {DEFAULT_RUN_BASELINE}", done=len(walls["old"]) + len(walls["new"]),
                                total=2 * repeats, unit="runs", side=side, force=True)
                with tempfile.TemporaryDirectory(prefix="properties-bench-") as scratch:
                    before = resource.getrusage(resource.RUSAGE_CHILDREN)
                    started = time.perf_counter()
                    try:
                        subprocess.run([sys.executable, "-m", "properties", "--seed", str(SEED), "--out", str(Path(scratch) / "reports")],
                                       cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=timeout)
                    except subprocess.TimeoutExpired:
                        add(f"default run vs {DEFAULT_RUN_BASELINE}", "-", f"cut off after {timeout:.0f} s")
                        return
                    walls[side].append(time.perf_counter() - started)
                    after = resource.getrusage(resource.RUSAGE_CHILDREN)
                    cpus[side].append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
        old, new = _median(walls["old"]), _median(walls["new"])
        samples = "; ".join(f"{side} " + ", ".join(f"{wall:.1f}" for wall in found) for side, found in walls.items())
        add(f"default run: now / {DEFAULT_RUN_BASELINE} (wall)", f"{new / old:.2f}x", f"{new:.1f} vs {old:.1f} s; {samples}")
        add(f"default run: now / {DEFAULT_RUN_BASELINE} (CPU)", f"{_median(cpus['new']) / _median(cpus['old']):.2f}x",
            f"{_median(cpus['new']):.1f} vs {_median(cpus['old']):.1f} CPU s, the run's whole process tree")


def bench_compare(repeats: int, workers: int, timeout: float, add: Any, found_rows: "list[dict[str, Any]] | None" = None) -> None:
    """This explorer against ``BASELINE``'s on the same scopes, side by side; medians and ratios (each scope's CPU
    seconds also go to ``found_rows``, for the figure)."""
    with _Baseline() as old_root:
        if old_root is None:
            add("explorer vs " + BASELINE, "-", "no baseline worktree (git worktree add failed)")
            return
        totals = {"old": [0, 0.0], "new": [0, 0.0], "same": [0, 0.0]}
        for name, scope, fingerprints, depth, alphabet in COMPARED:
            runs: dict[str, list[dict[str, Any]]] = {"old": [], "new": [], "same": []}
            jobs = {
                "old": (old_root, _job(BASELINE_MODULE, name, scope, fingerprints, depth, alphabet, workers)),
                "new": (ROOT, _job(CURRENT_MODULE, name, scope, fingerprints, depth, alphabet, workers)),
                "same": (ROOT, _job(CURRENT_MODULE, name, scope, fingerprints, depth, alphabet, workers, plain_kinds=True)),
            }
            for number in range(repeats):
                # Alternate who goes first, so a load that changes during the run hits both alike.
                order = ("old", "new", "same") if number % 2 == 0 else ("same", "new", "old")
                for side in order:
                    progress.update(f"explorer vs {BASELINE}", done=sum(len(r) for r in runs.values()), total=3 * repeats,
                                    unit=f"runs of {name}", force=True)
                    root, job = jobs[side]
                    found = _explore_in(root, job, timeout)
                    if found is None:
                        add(f"explorer {name} ({side})", "-", f"cut off after {timeout:.0f} s")
                        return
                    runs[side].append(found)
            seconds = {side: _median([run["seconds"] for run in found]) for side, found in runs.items()}
            wall = {side: _median([run["wall"] for run in found]) for side, found in runs.items()}
            states = {side: found[0]["states"] for side, found in runs.items()}
            edges = {side: found[0]["edges"] for side, found in runs.items()}
            rate = {side: states[side] / seconds[side] for side in runs}
            if states["same"] != states["old"]:
                raise RuntimeError(f"bench: {name}: with the kind symmetry off this explorer reached {states['same']} states, {BASELINE} {states['old']}")
            for side in runs:
                totals[side][0] += states[side]
                totals[side][1] += seconds[side]
            if found_rows is not None:
                found_rows.append({"scope": name, **seconds})
            add(
                f"explorer {name}: {BASELINE} (states/s)", f"{rate['old']:,.0f}",
                f"{states['old']:,} states, {edges['old']:,} edges, {seconds['old']:.2f} CPU s ({wall['old']:.2f} s wall)",
            )
            add(
                f"explorer {name}: now (states/s)", f"{rate['new']:,.0f}",
                f"{states['new']:,} states, {edges['new']:,} edges, {seconds['new']:.2f} CPU s ({wall['new']:.2f} s wall); "
                f"{rate['new'] / rate['old']:.2f}x states/s, {seconds['old'] / seconds['new']:.2f}x faster to the same verdict",
            )
            add(
                f"explorer {name}: now, same states (states/s)", f"{rate['same']:,.0f}",
                f"kind symmetry off: {states['same']:,} states as {BASELINE}, {seconds['same']:.2f} CPU s ({wall['same']:.2f} s wall); {rate['same'] / rate['old']:.2f}x states/s",
            )
        old, new, same = (totals[side] for side in ("old", "new", "same"))
        add(
            f"explorer all compared scopes vs {BASELINE}", f"{(same[0] / same[1]) / (old[0] / old[1]):.2f}x",
            f"states per CPU second on the same states ({same[0]:,} in {same[1]:.1f} s vs {old[1]:.1f} s); "
            f"{old[1] / new[1]:.2f}x less CPU to the same verdicts ({new[0]:,} states in {new[1]:.1f} s); medians of {repeats}",
        )


def _side_by_side(root: Path, jobs: list[dict[str, Any]], timeout: float, slots: int) -> tuple[list[dict[str, Any] | None], float]:
    """The jobs in ``slots`` fresh interpreters at a time, longest first; their figures and the wall time of all."""
    from concurrent.futures import ThreadPoolExecutor

    from guard.limits import Limits
    from properties.budget import explorer
    from properties.budget.copies import SPEC_LIMITS

    def hint(job: dict[str, Any]) -> float:
        config = explorer.Config(job["name"], Limits(), job["depth"], SPEC_LIMITS, alphabet=job["alphabet"])
        return explorer.expected_seconds(config) if job["scope"] is None else explorer.EXPECTED_SECONDS.get(job["name"], 0.0)

    order = sorted(range(len(jobs)), key=lambda number: -hint(jobs[number]))
    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=slots) as pool:
        futures = {number: pool.submit(_explore_in, root, jobs[number], timeout) for number in order}
        found = [futures[number].result() for number in range(len(jobs))]
    return found, time.perf_counter() - start


def bench_compare_wall(repeats: int, timeout: float, add: Any) -> None:
    """States per wall second on the same states, each explorer using both cores its own way; medians of ``repeats``."""
    with _Baseline() as old_root:
        if old_root is None:
            add(f"explorer vs {BASELINE} (wall)", "-", "no baseline worktree (git worktree add failed)")
            return
        total_old = total_new = 0.0
        states_sum = 0
        for name, scope, fingerprints, depth, alphabet in COMPARED:
            walls: dict[str, list[float]] = {"old": [], "same": []}
            states = {}
            for number in range(repeats):
                order = ("old", "same") if number % 2 == 0 else ("same", "old")
                for side in order:
                    root, module = (old_root, BASELINE_MODULE) if side == "old" else (ROOT, CURRENT_MODULE)
                    found = _explore_in(root, _job(module, name, scope, fingerprints, depth, alphabet, 2, plain_kinds=side == "same"), timeout)
                    if found is None:
                        add(f"explorer {name} wall ({side})", "-", f"cut off after {timeout:.0f} s")
                        return
                    walls[side].append(found["wall"])
                    states[side] = found["states"]
            if states["same"] != states["old"]:
                raise RuntimeError(f"bench: {name}: {states['same']} states against {BASELINE}'s {states['old']}")
            old, new = _median(walls["old"]), _median(walls["same"])
            total_old += old
            states_sum += states["old"]
            add(
                f"explorer {name}: wall, 2 processes each", f"{(states['old'] / new) / (states['old'] / old):.2f}x",
                f"{states['old']:,} states: {BASELINE} {states['old'] / old:,.0f} states per wall s ({old:.2f} s), "
                f"now {states['old'] / new:,.0f} ({new:.2f} s)",
            )
        side_walls = []
        for _ in range(repeats):
            jobs = [
                _job(CURRENT_MODULE, name, scope, fingerprints, depth, alphabet, 1, plain_kinds=True)
                for name, scope, fingerprints, depth, alphabet in COMPARED
            ]
            every_job, wall = _side_by_side(ROOT, jobs, timeout, 2)
            if any(item is None for item in every_job):
                add("explorer compared set side by side (wall)", "-", f"cut off after {timeout:.0f} s")
                return
            side_walls.append(wall)
        total_new = _median(side_walls)
        add(
            f"explorer all compared scopes vs {BASELINE} (wall)", f"{total_old / total_new:.2f}x",
            f"states per wall second, same {states_sum:,} states: {BASELINE} one scope after the other, each over 2 processes, "
            f"{total_old:.1f} s; now side by side, one process per scope, 2 at a time, {total_new:.1f} s",
        )


def bench_growth(workers: int, timeout: float, add: Any, found_rows: "list[dict[str, Any]] | None" = None) -> None:
    """This explorer's proofs at consecutive 4 as the total cap grows, with the growth factor per step (each proof's
    figures also go to ``found_rows``, for the figure)."""
    previous = None
    for number, total in enumerate(GROWTH_TOTALS):
        name = f"small c4 t{total}"
        progress.update("explorer growth", done=number, total=len(GROWTH_TOTALS), unit="scopes", scope=name, force=True)
        found = _explore_in(ROOT, _job(CURRENT_MODULE, name, (4, total, 1, 1, 1, 1, 1), False, None, "full", workers), timeout)
        if found is None:
            add(f"growth {name}", "-", f"cut off after {timeout:.0f} s (--growth-seconds): larger scopes not run")
            return
        factor = ""
        if previous is not None:
            factor = (
                f"; x{found['states'] / previous['states']:.2f} states, x{found['edges'] / previous['edges']:.2f} edges, "
                f"x{found['seconds'] / previous['seconds']:.2f} time"
            )
        verdict = "fixpoint" if found["complete"] else "NOT complete"
        add(
            f"growth {name} (CPU s)", f"{found['seconds']:.2f}",
            f"{found['wall']:.2f} s wall, {found['states']:,} states, {found['edges']:,} edges, {verdict}{factor}",
        )
        previous = found
        if found_rows is not None:
            found_rows.append({"total": total, "states": found["states"], "edges": found["edges"], "seconds": found["seconds"]})


def add_options(parser: argparse.ArgumentParser) -> None:
    """The budget's options of ``python -m properties.bench``."""
    group = parser.add_argument_group("budget")
    group.add_argument("--traces", type=int, default=1500, help="bulk traces per run")
    group.add_argument("--examples", type=int, default=40, help="state machine examples per run")
    group.add_argument("--only-explorer", action="store_true", help="only the explorer comparison and growth rows")
    group.add_argument("--no-compare", action="store_true", help=f"do not run the explorer of {BASELINE} side by side")
    group.add_argument("--explorer-repeats", type=int, default=3, help="runs per side and scope in the comparison (median)")
    group.add_argument("--explorer-workers", type=int, default=1, help="processes per exploration in the comparison and growth rows")
    group.add_argument("--growth-seconds", type=float, default=300.0, help="cut off a growth scope after this long")
    group.add_argument("--no-wall", action="store_true", help=f"leave out the wall-second comparison with {BASELINE} (two processes per side)")


def check_options(args: argparse.Namespace) -> str:
    """A one-line problem with the budget's options, or ""."""
    if args.traces < 1 or args.examples < 1 or args.explorer_repeats < 1 or args.explorer_workers < 1 or not args.growth_seconds > 0:
        return "--traces, --examples, --explorer-repeats, --explorer-workers and --growth-seconds must be positive"
    return ""


def run(args: argparse.Namespace, add: Callable[[str, str, str], None]) -> tuple[list[tuple[str, str]], bool]:
    """Every budget row; the figures drawn (under ``args.figures``) and whether the other rows run too."""
    found: dict[str, list[dict[str, Any]]] = {"growth": [], "compare": [], "bulk": []}
    if not args.no_compare:
        with progress.line(f"explorer vs {BASELINE}"):
            bench_compare(args.explorer_repeats, args.explorer_workers, 900.0, add, found["compare"])
        if not args.no_wall:
            with progress.line(f"explorer vs {BASELINE}, wall"):
                progress.update(f"explorer vs {BASELINE}, wall", phase="two processes a side, then side by side", force=True)
                bench_compare_wall(args.explorer_repeats, 900.0, add)
    with progress.line("explorer symmetry checks"):
        bench_symmetry_cost(args.explorer_repeats, 900.0, add)
    if not args.no_compare:
        with progress.line(f"engine vs {ENGINE_BASELINE}"):
            bench_engine_against(args.explorer_repeats, 900.0, add)
    if not args.no_compare and not args.skip_default_run:
        with progress.line(f"default run vs {DEFAULT_RUN_BASELINE}"):
            bench_default_against(args.default_repeats, 900.0, add)
    with progress.line("explorer growth"):
        bench_growth(args.explorer_workers, args.growth_seconds, add, found["growth"])
    if args.only_explorer:
        return _figures(args.figures, found), False
    b = bench_bulk(args.traces, args.repeats)
    found["bulk"].append({"name": "whole driver (drawing included)", "checked": b["checked_steps_per_second"],
                          "bare": b["unchecked_steps_per_second"]})
    add("bulk checked (steps/s)", f"{b['checked_steps_per_second']:,.0f}", f"{args.traces} traces, {b['steps']:,.0f} steps")
    add("bulk unchecked floor (steps/s)", f"{b['unchecked_steps_per_second']:,.0f}", "same events and copies, no snapshots, no checks")
    add("bulk checked/unchecked time per step", f"{b['ratio']:.2f}x", "whole driver, event generation on both sides")
    s = bench_stepping(args.traces, args.repeats)
    found["bulk"].append({"name": "stepping only (events prebuilt)", "checked": s["checked_steps_per_second"],
                          "bare": s["unchecked_steps_per_second"]})
    add("stepping only checked/unchecked", f"{s['ratio']:.2f}x", f"{s['checked_steps_per_second']:,.0f} vs {s['unchecked_steps_per_second']:,.0f} steps/s, events prebuilt")
    add("drawing the events (us per checked step)", f"{s['drawing_us_per_step']:.2f}", "numpy draws and Python event objects")
    add("drawing + checking / stepping only", f"{s['drawing_and_checking_over_stepping']:.2f}x", "the driver's whole time over a floor that draws nothing")
    st = bench_stateful(args.examples, args.repeats)
    add("stateful (steps/s)", f"{st['steps_per_second']:,.0f}", f"{args.examples} examples, every B13 probe")
    e = bench_explorer(args.repeats, timeout=300.0)
    if e["status"] == "ran":
        add("explorer quick (states/s)", f"{e['states_per_second']:,.0f}", f"{e['states']:,} states, {e['edges_per_second']:,.0f} edges/s")
    else:
        add("explorer quick (states/s)", "-", e["status"])
    return _figures(args.figures, found), True


def _figures(out: Path, found: dict[str, list[dict[str, Any]]]) -> list[tuple[str, str]]:
    """The budget's figures as SVG under ``out``: (file name, title) of each drawn."""
    from properties import figures

    drawn: list[tuple[str, str]] = []
    try:
        if found["growth"]:
            drawn.append((figures.growth(found["growth"], out / "growth.svg").name, "a proof's cost as the total cap grows"))
        if found["compare"]:
            drawn.append((figures.explorer_against_baseline(found["compare"], BASELINE, out / "explorer-vs-baseline.svg").name,
                          f"the explorer against {BASELINE}"))
        if found["bulk"]:
            drawn.append((figures.bulk_checked(found["bulk"], out / "bulk-checked.svg").name, "bulk: checked against bare steps"))
    except (figures.FiguresUnavailable, OSError) as error:
        print(f"python -m properties.bench: figures not written: {error}", file=sys.stderr)
    return drawn
