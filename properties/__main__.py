"""``python -m properties``: every invariant, every driver, one verdict (``nox -s properties``).

    python -m properties [--seed N] [--profile dev|ci|thorough|mutants] [--traces N]
                         [--quick] [--mutants] [--only B1,B5] [--out reports/]

Runs the exhaustive explorer, the Hypothesis state machine and the seeded bulk
traces, merges what they checked, prints one report and writes
``<out>/properties.md`` and ``<out>/properties.json``. Exit status: 0 when
every selected invariant held and was exercised and (default mode) every
coverage minimum of ``shared/spec/invariants.md`` was met; 1 otherwise; 2 for
a bad command line. A violation is printed on one line as ``VIOLATED B5 ...``
followed by its shrunk counterexample.

Modes:

* default: the full run (explorer to its fixpoints and depths, the state
  machine under the profile, ``--traces`` bulk traces). The drivers run in two
  worker processes; each is deterministic for a seed, so the same seed prints
  the same counts and verdicts.
* ``--quick``: small sizes; coverage minimums are not required.
* ``--mutants``: what the rule catalogue runs against each mutant: seed 0
  unless given, the ``mutants`` profile, one process, cheapest driver first,
  stopping at the first violation.

Without ``--seed`` the seed is drawn at random and printed first, so any run
can be replayed.

The explorer runs each configuration in a child process with a time budget
(``--explorer-seconds``); a configuration still running then is cut off and
reported ``INCOMPLETE``, which fails a default run (no proof is not a pass)
but never counts as a kill under ``--mutants``. ``--only`` restricts what
the state machine and the bulk traces check and what the verdict reads; the
explorer always checks its whole catalogue.
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, Callable, Sequence

import attrs

from guard.limits import Limits
from properties import profiles, report
from properties.budget import bulk
from properties.counterexample import DEFAULT_DIR, record
from properties.cli import whole_number
from properties.budget.events import Event
from properties.budget.invariants import BY_ID, CATALOGUE, Tally, Violation
from properties.trace import Trace, save_trace

#: Default bulk traces. Alone (no explorer) 14,000 traces check about 475,000 steps, with the state
#: machine over the 480,000 a default run must check; with the explorer (about 830,000 edges of its own,
#: and the longest driver) 8,000 traces (about 270,000 steps, over five times the seeds' 48,000) leave
#: it more of the two cores.
DEFAULT_TRACES = 14_000
DEFAULT_TRACES_WITH_EXPLORER = 8_000
QUICK_TRACES = 2_000
MUTANT_TRACES = 3_000
QUICK_EXAMPLES = 30
#: The explorer's time budget per mode; a configuration still running then is cut off and reported.
EXPLORER_SECONDS = {"default": 240.0, "quick": 60.0, "mutants": 30.0}
#: A counterexample longer than this is saved as it is: shrinking it would cost more than the run.
SHRINK_AT_MOST = 200


class UsageError(Exception):
    """A bad command line; printed on one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, no usage dump
        raise UsageError(message)


_seed = whole_number(0)
_count = whole_number(1)


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return value


def _only(text: str) -> tuple[str, ...]:
    ids = tuple(part.strip().upper() for part in text.split(",") if part.strip())
    unknown = [i for i in ids if i not in BY_ID]
    if not ids or unknown:
        raise argparse.ArgumentTypeError(f"unknown invariant {', '.join(unknown) or text!r}; choose from {', '.join(BY_ID)}")
    return ids


DRIVERS = ("explorer", "stateful", "bulk")


def _drivers(text: str) -> tuple[str, ...]:
    names = tuple(part.strip() for part in text.split(",") if part.strip())
    if not names or any(name not in DRIVERS for name in names):
        raise argparse.ArgumentTypeError(f"expected some of {','.join(DRIVERS)}, got {text!r}")
    return names


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = _Parser(prog="python -m properties", description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=_seed, help="replay a run (non-negative integer)")
    parser.add_argument("--profile", choices=profiles.PROFILES, help="Hypothesis profile (default: as pytest chooses it)")
    parser.add_argument("--traces", type=_count, help=f"bulk traces (default {DEFAULT_TRACES_WITH_EXPLORER:,} with the explorer, {DEFAULT_TRACES:,} without; --quick {QUICK_TRACES:,})")
    parser.add_argument("--quick", action="store_true", help="small sizes; coverage minimums not required")
    parser.add_argument("--mutants", action="store_true", help="deterministic, fast, stops at the first violation")
    parser.add_argument("--only", type=_only, help="check only these invariants, e.g. B1,B5")
    parser.add_argument("--out", type=Path, default=Path("reports"), help="where properties.md and properties.json go")
    parser.add_argument(
        "--explorer-seconds", type=_seconds, default=None,
        help=f"time budget of the explorer (default {EXPLORER_SECONDS['default']:.0f} s; --quick {EXPLORER_SECONDS['quick']:.0f}; --mutants {EXPLORER_SECONDS['mutants']:.0f})",
    )
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1), help=argparse.SUPPRESS)
    # For timing one driver alone (the benchmark) and for debugging a driver; a normal run uses all three.
    parser.add_argument("--drivers", type=_drivers, default=DRIVERS, help=argparse.SUPPRESS)
    return parser.parse_args(argv)


# -- driver tasks (each runs in any process and returns plain, picklable data) ---------------------


@attrs.define
class TaskResult:
    name: str
    tally: Tally
    row: report.DriverRow
    failure: "tuple[list[Event], Violation] | None" = None
    counterexample_text: str = ""
    counterexample_path: str = ""
    error: str = ""
    #: A driver that ran out of its time budget: fails the default run only (no proof is no pass),
    #: and never counts as a kill under ``--mutants``.
    incomplete: str = ""
    statistics: dict[str, int] = attrs.field(factory=dict)


def task_bulk(seed: int, traces: int, slices: Sequence[int], only: tuple[str, ...] | None, stop_at_first: bool, label: str) -> TaskResult:
    tally = Tally()
    sizes = bulk.slice_counts(traces)
    result = bulk.BulkResult(seed=seed)
    invariants = tuple(BY_ID[i] for i in only) if only else None
    start = time.perf_counter()
    for number in slices:
        part = bulk.run_bulk(
            seed, sizes[number], tally, stop_at_first=True, invariants=invariants, slices=[(number, sizes[number])],
        )
        result.traces += part.traces
        result.steps += part.steps
        for key, value in part.per_family.items():
            result.per_family[key] = result.per_family.get(key, 0) + value
        for key, value in part.stats.items():
            result.stats[key] += value
        if part.failure is not None and result.failure is None:
            result.failure = part.failure
            if stop_at_first:
                break
    seconds = time.perf_counter() - start
    row = report.DriverRow(label, seconds, tally.steps, tally.traces, details={"families": len(result.per_family), "slices": len(slices)})
    failure = (result.failure[1], result.failure[2]) if result.failure else None
    return TaskResult(label, tally, row, failure=failure, statistics=result.stats)


def task_stateful(seed: int, profile: str, examples: int | None, only: tuple[str, ...] | None, shrink: bool = True) -> TaskResult:
    from properties.budget import stateful

    tally = Tally()
    invariants = tuple(BY_ID[i] for i in only) if only else None
    result = stateful.run_stateful(seed, profile, tally, examples=examples, only=invariants, shrink=shrink)
    details = {"examples": result.examples, **{f"examples reaching {k}": v for k, v in sorted(result.reached.items())}}
    row = report.DriverRow("stateful (hypothesis)", result.seconds, tally.steps, tally.traces, details=details)
    return TaskResult("stateful", tally, row, failure=result.failure, error=result.error)


def explorer_module() -> Any:
    """The explorer, or None when ``properties/explorer.py`` is not there (reported, not fatal)."""
    try:
        from properties.budget import explorer
    except ModuleNotFoundError as error:
        if error.name == "properties.budget.explorer":
            return None
        raise
    return explorer


def _explore_one(quick: bool, config: Any) -> tuple[Tally, Any]:
    explorer = explorer_module()
    tally = Tally()
    return tally, explorer.run_explorer(quick, tally, DEFAULT_DIR, configs=[config])


def _explorer_child(connection: Any, quick: bool, config: Any) -> None:
    # Its own process group, so that a cut-off also ends the explorer's own worker processes.
    os.setpgid(0, 0)
    try:
        part, result = _explore_one(quick, config)
        connection.send(("ok", part, result))
    except Exception as error:  # reported by the parent as a driver error
        connection.send(("error", f"{type(error).__name__}: {error}", None))
    finally:
        connection.close()


def _explore_with_deadline(quick: bool, config: Any, seconds: float) -> tuple[str, Any, Any]:
    """("ok", tally, result), ("error", message, None) or ("cut", None, None) after ``seconds``."""
    import multiprocessing
    import signal

    context = multiprocessing.get_context("fork")
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(target=_explorer_child, args=(sender, quick, config))
    process.start()
    sender.close()
    try:
        if receiver.poll(max(0.0, seconds)):
            try:
                return receiver.recv()
            except EOFError:
                return ("error", f"explorer child exited with status {process.exitcode}", None)
        return ("cut", None, None)
    finally:
        if process.is_alive():
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                process.kill()
        process.join()
        receiver.close()


def task_explorer(quick: bool, seconds: float) -> TaskResult:
    """Every configuration of the explorer, each in a child process so that one past the time budget can be cut off."""
    explorer = explorer_module()
    tally = Tally()
    if explorer is None:
        row = report.DriverRow("explorer", 0.0, 0, 0, status="absent (properties/explorer.py not found)")
        return TaskResult("explorer", tally, row)
    start = time.perf_counter()
    deadline = start + seconds
    rows: list[Any] = []
    cut: list[str] = []
    counterexample = None
    for config in explorer.configurations(quick):
        if counterexample is not None:
            # The explorer stops at its first violation, as run_explorer does.
            break
        remaining = deadline - time.perf_counter()
        if remaining <= 0:
            cut.append(config.name)
            continue
        status, part, result = _explore_with_deadline(quick, config, remaining)
        if status == "cut":
            cut.append(config.name)
            continue
        if status == "error":
            raise RuntimeError(f"explorer {config.name}: {part}")
        tally.merge(part)
        rows.extend(result.rows)
        if result.counterexample is not None:
            counterexample = result.counterexample
    elapsed = time.perf_counter() - start
    configs = [
        {"name": r.name, "limits": r.limits, "states": r.states, "edges": r.edges, "depth": r.depth,
         "complete": r.complete, "seconds": round(r.seconds, 3)}
        for r in rows
    ]
    details: dict[str, Any] = {"states": sum(r.states for r in rows), "edges": sum(r.edges for r in rows), "configurations": len(rows)}
    status = "ran"
    error = ""
    if cut:
        status = f"cut off after {seconds:.0f} s"
        details["not finished"] = ", ".join(cut)
        error = f"explorer: {', '.join(cut)} not finished within {seconds:.0f} s (raise --explorer-seconds)"
    row = report.DriverRow("explorer (exhaustive)", elapsed, tally.steps, 0, status=status, details=details, configurations=configs)
    out = TaskResult("explorer", tally, row, incomplete=error)
    if counterexample is not None:
        out.counterexample_text = counterexample.render()
        out.counterexample_path = str(counterexample.path)
    return out


def _run(call: tuple[Callable[..., TaskResult], tuple]) -> TaskResult:
    function, args = call
    try:
        return function(*args)
    except Exception as error:  # a driver that crashes fails the run with its reason, not a traceback
        import traceback

        last = traceback.extract_tb(error.__traceback__)[-1]
        name = getattr(function, "__name__", "driver")
        tally = Tally()
        row = report.DriverRow(name.removeprefix("task_"), 0.0, 0, 0, status="crashed")
        return TaskResult(name, tally, row, error=f"{name}: {type(error).__name__}: {error} ({Path(last.filename).name}:{last.lineno})")


# -- main ------------------------------------------------------------------------------------------


def _plan(args: argparse.Namespace, seed: int, profile: str, mode: str) -> list[tuple[Callable[..., TaskResult], tuple]]:
    only = args.only
    explorer_seconds = args.explorer_seconds if args.explorer_seconds is not None else EXPLORER_SECONDS[mode]
    if mode == "mutants":
        traces = args.traces or MUTANT_TRACES
        slices = list(range(len(bulk.slice_counts(traces))))
        return [
            (task_bulk, (seed, traces, slices, only, True, "bulk (numpy-seeded)")),
            (task_stateful, (seed, profile, None, only, False)),
            (task_explorer, (True, explorer_seconds)),
        ]
    quick = mode == "quick"
    with_explorer = "explorer" in args.drivers and explorer_module() is not None
    traces = args.traces or (QUICK_TRACES if quick else DEFAULT_TRACES_WITH_EXPLORER if with_explorer else DEFAULT_TRACES)
    slices = list(range(len(bulk.slice_counts(traces))))
    examples = QUICK_EXAMPLES if quick else None
    # The explorer runs from the main process (it forks its own child per configuration, to be able
    # to cut one off); the two workers take the bulk halves and the state machine.
    plan = [
        (task_explorer, (quick, explorer_seconds)),
        (task_bulk, (seed, traces, slices[0::2], only, True, "bulk (numpy-seeded) A")),
        (task_stateful, (seed, profile, examples, only)),
        (task_bulk, (seed, traces, slices[1::2], only, True, "bulk (numpy-seeded) B")),
    ]
    return [call for call in plan if call[0] is not task_bulk or call[1][2]]


def _limits_note() -> str:
    production, spec = Limits(), bulk.SPEC_LIMITS
    if production == spec:
        return ""
    changed = [
        f"{field.name} {getattr(production, field.name)} (spec {getattr(spec, field.name)})"
        for field in attrs.fields(Limits)
        if getattr(production, field.name) != getattr(spec, field.name)
    ]
    return "note: guard/limits.py defaults differ from shared/spec/budget.md: " + ", ".join(changed)


def _counterexample(driver: str, failure: tuple[list[Event], Violation]) -> tuple[str, str]:
    events, violation = failure
    events = list(events[: violation.step + 1]) if violation.step < len(events) else list(events)
    if len(events) > SHRINK_AT_MOST:
        name = f"{driver}-{violation.invariant}-{len(events)}steps"
        path = save_trace(Trace(name=name, events=tuple(events), limits=bulk.SPEC_LIMITS), DEFAULT_DIR / f"{name}.json")
        return f"COUNTEREXAMPLE from {driver}: {violation}\n  {len(events)} events, not shrunk; saved: {path}", str(path)
    found = record(driver, events, bulk.SPEC_LIMITS, violation)
    return found.render(), str(found.path)


def main(argv: Sequence[str] | None = None) -> int:
    # Issue 13: `--database URL` replays the failures a fuzz fleet stored there, without fuzzing.
    arguments = list(sys.argv[1:] if argv is None else argv)
    if any(argument == "--database" or argument.startswith("--database=") for argument in arguments):
        from properties import database

        return database.main(arguments)
    try:
        args = parse(argv)
    except UsageError as error:
        print(f"python -m properties: {error}", file=sys.stderr)
        return 2
    if args.quick and args.mutants:
        print("python -m properties: --quick and --mutants are separate modes; choose one", file=sys.stderr)
        return 2
    mode = "mutants" if args.mutants else "quick" if args.quick else "default"
    if args.seed is not None:
        seed = args.seed
    elif mode == "mutants":
        seed = 0
    else:
        seed = secrets.randbelow(2**32)
    profile = args.profile or ("mutants" if mode == "mutants" else profiles.chosen_profile())
    profiles.load()
    selected = list(args.only) if args.only else [invariant.id for invariant in CATALOGUE]
    print(f"properties: seed {seed}  profile {profile}  mode {mode}" + (f"  only {','.join(selected)}" if args.only else ""), flush=True)
    note = _limits_note()
    if note:
        print(note, flush=True)

    started = time.perf_counter()
    plan = [call for call in _plan(args, seed, profile, mode) if call[0].__name__.removeprefix("task_") in args.drivers]
    results: list[TaskResult] = []
    if mode == "mutants" or args.workers <= 1:
        for call in plan:
            outcome = _run(call)
            results.append(outcome)
            print(f"  {outcome.row.name}: {outcome.row.steps:,} steps in {outcome.row.seconds:.1f} s", flush=True)
            if mode == "mutants" and (outcome.failure or outcome.tally.violations or outcome.error):
                break
    else:
        import multiprocessing

        in_main = [call for call in plan if call[0] is task_explorer]
        elsewhere = [call for call in plan if call[0] is not task_explorer]
        with ProcessPoolExecutor(max_workers=args.workers, mp_context=multiprocessing.get_context("fork")) as pool:
            futures = [pool.submit(_run, call) for call in elsewhere]
            for call in in_main:
                outcome = _run(call)
                results.append(outcome)
                print(f"  {outcome.row.name}: {outcome.row.steps:,} steps in {outcome.row.seconds:.1f} s", flush=True)
            for future in futures:
                outcome = future.result()
                results.append(outcome)
                print(f"  {outcome.row.name}: {outcome.row.steps:,} steps in {outcome.row.seconds:.1f} s", flush=True)

    total = Tally()
    statistics: dict[str, int] = {}
    drivers: list[report.DriverRow] = []
    errors: list[str] = []
    counterexamples: list[str] = []
    merged_bulk: report.DriverRow | None = None
    for outcome in results:
        if args.only:
            outcome.tally.violations[:] = [v for v in outcome.tally.violations if v.invariant in selected]
        total.merge(outcome.tally)
        for key, value in outcome.statistics.items():
            statistics[key] = statistics.get(key, 0) + value
        if outcome.row.name.startswith("bulk"):
            if merged_bulk is None:
                # Seconds are summed over the processes that ran slices, so steps/s is per process.
                merged_bulk = report.DriverRow("bulk (numpy-seeded)", 0.0, 0, 0, details={"slices": 0, "processes": 0})
                drivers.append(merged_bulk)
            merged_bulk.seconds += outcome.row.seconds
            merged_bulk.steps += outcome.row.steps
            merged_bulk.traces += outcome.row.traces
            merged_bulk.details["slices"] += outcome.row.details.get("slices", 0)
            merged_bulk.details["processes"] += 1
        else:
            drivers.append(outcome.row)
        if outcome.error:
            errors.append(outcome.error)
            print(f"ERROR {outcome.error}", flush=True)
        if outcome.incomplete:
            print(f"INCOMPLETE {outcome.incomplete}", flush=True)
            if mode == "default":
                errors.append(outcome.incomplete)
        if outcome.failure is not None:
            events, violation = outcome.failure
            if violation.invariant in selected:
                print(f"VIOLATED {violation.invariant} ({outcome.name}) {violation}", flush=True)
                text, path = _counterexample(outcome.name.split(" ")[0], outcome.failure)
                print(text, flush=True)
                counterexamples.append(path)
        if outcome.counterexample_text:
            violated = [v for v in outcome.tally.violations if v.invariant in selected]
            if violated:
                print(f"VIOLATED {violated[0].invariant} ({outcome.name}) {violated[0]}", flush=True)
                print(outcome.counterexample_text, flush=True)
                counterexamples.append(outcome.counterexample_path)

    wall = time.perf_counter() - started
    verdict = report.judge(total, selected, check_coverage=mode == "default", driver_errors=errors)
    data = report.build(
        seed=seed, profile=profile, mode=mode, tally=total, selected=selected, drivers=drivers, verdict=verdict,
        wall_seconds=wall, check_coverage=mode == "default", statistics=statistics, counterexamples=counterexamples,
    )
    # After a violation the run stopped early; only a run that found none is judged for vacuity on its own line.
    for invariant_id in selected if not total.violations else ():
        if total.status(invariant_id) == "vacuous":
            # Named on its own line before the report, like a violation: never exercised is not a pass.
            print(f"FAIL {invariant_id} vacuous: never exercised in {total.checked[invariant_id]:,} checked steps", flush=True)
    print(report.render(data), flush=True)
    try:
        markdown, as_json = report.write(data, args.out)
        print(f"written: {markdown} {as_json}")
    except OSError as error:
        print(f"python -m properties: {args.out}: cannot write the report: {error.strerror}", file=sys.stderr)
        return 2
    return 0 if verdict.ok else 1


if __name__ == "__main__":
    sys.exit(main())
