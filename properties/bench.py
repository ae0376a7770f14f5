"""``python -m properties.bench`` (``nox -s bench``): how fast each driver checks, as medians of several runs.

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
* lookup classifier: commands per second (``properties.lookup.bench``).
* the wall time of one default ``python -m properties`` run (a subprocess).

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
from typing import Any, Sequence

from properties import profiles
from properties.budget import bulk
from properties.budget.invariants import Tally, new_monitor

SEED = 20_240_601
ROOT = Path(__file__).resolve().parent.parent


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
        monitor = new_monitor(bulk.SPEC_LIMITS, Tally(), budgets, **bulk.MONITOR_OPTIONS)
        tail = 0
        for event in events:
            monitor.step(event)
            steps += 1
            if bulk._all_stopped(budgets):
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
        events = bulk.materialize(SEED, traces)
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


def bench_classifier(seconds: float) -> dict[str, Any]:
    try:
        from properties.lookup.bench import bench_lookup
    except ModuleNotFoundError as error:
        if error.name in ("properties.lookup.bench", "guard.lookup", "properties.lookup.corpus"):
            return {"status": f"absent ({error.name})"}
        raise
    result = bench_lookup(seconds)
    return {"status": "ran", "commands_per_second": result["commands_per_second"]}


def bench_default_run(timeout: float) -> dict[str, Any]:
    import tempfile

    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "0"}
    # Its report and any counterexample go to a scratch folder: the benchmark leaves the checkout as it was.
    with tempfile.TemporaryDirectory(prefix="properties-bench-") as scratch:
        start = time.perf_counter()
        try:
            proc = subprocess.run(
                [sys.executable, "-m", "properties", "--seed", str(SEED), "--out", str(Path(scratch) / "reports")],
                cwd=scratch, env=env, capture_output=True, text=True, timeout=timeout,
            )
        except subprocess.TimeoutExpired:
            return {"status": f"cut off after {timeout:.0f} s"}
        wall = time.perf_counter() - start
    steps = next((line for line in proc.stdout.splitlines() if line.startswith("properties: PASS") or line.startswith("properties: FAIL")), "")
    return {"status": f"exit {proc.returncode}", "wall_seconds": wall, "summary": steps}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m properties.bench", description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs per measurement (median reported)")
    parser.add_argument("--traces", type=int, default=1500, help="bulk traces per run")
    parser.add_argument("--examples", type=int, default=40, help="state machine examples per run")
    parser.add_argument("--skip-default-run", action="store_true", help="do not time a default python -m properties run")
    args = parser.parse_args(argv)
    if args.repeats < 1 or args.traces < 1 or args.examples < 1:
        print("python -m properties.bench: --repeats, --traces and --examples must be positive", file=sys.stderr)
        return 2
    profiles.load()
    print(f"bench: seed {SEED}, {args.repeats} repeats per row (median), {os.cpu_count()} CPUs", flush=True)
    rows: list[tuple[str, str, str]] = []

    def add(name: str, value: str, note: str = "") -> None:
        rows.append((name, value, note))
        print(f"  {name:<44} {value:>16}  {note}", flush=True)

    b = bench_bulk(args.traces, args.repeats)
    add("bulk checked (steps/s)", f"{b['checked_steps_per_second']:,.0f}", f"{args.traces} traces, {b['steps']:,.0f} steps")
    add("bulk unchecked floor (steps/s)", f"{b['unchecked_steps_per_second']:,.0f}", "same events and copies, no snapshots, no checks")
    add("bulk checked/unchecked time per step", f"{b['ratio']:.2f}x", "whole driver, event generation on both sides")
    s = bench_stepping(args.traces, args.repeats)
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
    c = bench_classifier(2.0)
    if c["status"] == "ran":
        add("lookup classifier (commands/s)", f"{c['commands_per_second']:,.0f}", "properties.lookup.bench")
    else:
        add("lookup classifier (commands/s)", "-", c["status"])
    if not args.skip_default_run:
        d = bench_default_run(timeout=600.0)
        add("default python -m properties (wall s)", f"{d.get('wall_seconds', 0):.1f}", f"{d['status']}; {d.get('summary', '')[:80]}")
    print()
    width = max(len(r[0]) for r in rows)
    print(f"{'measure':<{width}}  {'value':>16}  note")
    print("-" * (width + 40))
    for name, value, note in rows:
        print(f"{name:<{width}}  {value:>16}  {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
