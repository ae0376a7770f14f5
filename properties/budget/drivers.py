"""The budget's three drivers as the verdict runs them: each takes a ``DriverRequest`` and returns a ``DriverResult``.

* ``bulk``: seeded numpy traces (``properties.budget.bulk``), cut into
  slices; a default run splits the slices between two workers
  (``DriverRequest.part`` of ``parts``), each deterministic for the seed.
* ``stateful``: the Hypothesis state machine (``properties.budget.stateful``).
* ``explorer``: every configuration of the exhaustive explorer
  (``properties.budget.explorer``), each in a child process with a time budget
  so that one still running is cut off and reported ``INCOMPLETE`` (no proof is
  no pass) instead of stalling the run. Outside the quick set the
  configurations run side by side, one child per core, largest first: each
  search runs in one process, which costs less than splitting its levels
  over the cores (no frontier sent between processes, one set of caches).

Every driver runs in any process and returns plain, picklable data.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import attrs

from properties import progress
from properties.budget import bulk
from properties.budget import generate
from properties.budget.invariants import BY_ID
from properties.catalogue import Tally
from properties.counterexample import DEFAULT_DIR
from properties.subject import DriverRequest, DriverResult

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
EXPLORER_SECONDS = {"default": 240.0, "quick": 60.0, "mutants": 30.0, "thorough": 1800.0}


def _invariants(request: DriverRequest) -> "tuple[Any, ...] | None":
    """The budget invariants this request checks (None: all); ids of other subjects are not the budget's concern."""
    if request.only is None:
        return None
    return tuple(BY_ID[i] for i in request.only if i in BY_ID)


def bulk_traces(request: DriverRequest) -> int:
    """How many bulk traces a run makes: the command line's ``--traces``, else the mode's default."""
    if request.size is not None:
        return request.size
    if request.mode == "mutants":
        return MUTANT_TRACES
    if request.mode == "quick":
        return QUICK_TRACES
    return DEFAULT_TRACES_WITH_EXPLORER if "explorer" in request.company and explorer_module() is not None else DEFAULT_TRACES


def run_bulk_driver(request: DriverRequest) -> DriverResult:
    """This request's share of the seeded bulk traces (slices ``part``, ``part + parts``, ...)."""
    tally = Tally()
    traces = bulk_traces(request)
    sizes = generate.slice_counts(traces)
    slices = list(range(len(sizes)))[request.part::request.parts]
    result = bulk.BulkResult(seed=request.seed)
    invariants = _invariants(request)
    start = time.perf_counter()
    mine = sum(sizes[number] for number in slices)
    done = 0
    for number in slices:
        progress.update(done=done, total=mine, unit="traces", eta=True, steps=tally.steps)
        part = bulk.run_bulk(
            request.seed, sizes[number], tally, stop_at_first=True, invariants=invariants, slices=[(number, sizes[number])],
        )
        done += part.traces
        for key, value in part.per_family.items():
            result.per_family[key] = result.per_family.get(key, 0) + value
        for key, value in part.stats.items():
            result.stats[key] += value
        if part.failure is not None and result.failure is None:
            result.failure = part.failure
            # Every run stops the bulk driver at its first violation: the first is the one reported.
            break
    seconds = time.perf_counter() - start
    failure = (result.failure[1], result.failure[2]) if result.failure else None
    return DriverResult(
        "bulk (numpy-seeded)", tally, seconds, details={"slices": len(slices)},
        failure=failure, statistics=dict(result.stats),
    )


def run_stateful_driver(request: DriverRequest) -> DriverResult:
    """The Hypothesis state machine under the request's profile; a quick run draws fewer examples."""
    from properties.budget import stateful

    tally = Tally()
    examples = request.size if request.size is not None and request.mode != "default" else None
    if request.mode == "quick" and examples is None:
        examples = QUICK_EXAMPLES
    result = stateful.run_stateful(
        request.seed, request.profile, tally, examples=examples, only=_invariants(request),
        shrink=not request.stop_at_first,
    )
    details = {"examples": result.examples, **{f"examples reaching {k}": v for k, v in sorted(result.reached.items())}}
    return DriverResult("stateful (hypothesis)", tally, result.seconds, details=details, failure=result.failure, error=result.error)


def explorer_module() -> Any:
    """The explorer, or None when ``properties/budget/explorer/`` is not there (reported, not fatal)."""
    try:
        from properties.budget import explorer
    except ModuleNotFoundError as error:
        if error.name == "properties.budget.explorer":
            return None
        raise
    return explorer


def _explore_one(quick: bool | str, config: Any, workers: int | None = None, out_dir: Path = DEFAULT_DIR) -> tuple[Tally, Any]:
    explorer = explorer_module()
    tally = Tally()
    return tally, explorer.run_explorer(quick, tally, out_dir, configs=[config], workers=workers)


def _explorer_child(connection: Any, quick: bool | str, config: Any, workers: int | None = None,
                    out_dir: Path = DEFAULT_DIR) -> None:
    # Its own process group, so that a cut-off also ends the explorer's own worker processes.
    os.setpgid(0, 0)
    try:
        with progress.task(progress.sublabel(config.name)):
            part, result = _explore_one(quick, config, workers, out_dir)
        connection.send(("ok", part, result))
    except Exception as error:  # reported by the parent as a driver error
        connection.send(("error", f"{type(error).__name__}: {error}", None))
    finally:
        connection.close()


def _explore_with_deadline(quick: bool | str, config: Any, seconds: float) -> tuple[str, Any, Any]:
    """("ok", tally, result), ("error", message, None) or ("cut", None, None) after ``seconds``."""
    import multiprocessing

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
        _end_child(process, receiver)


def _end_child(process: Any, receiver: Any) -> None:
    """Kill an explorer child still running (its whole process group: its own workers too), reap it, close its pipe."""
    import signal

    if process.is_alive():
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            process.kill()
    process.join()
    receiver.close()


def explore_side_by_side(quick: bool | str, configs: list[Any], seconds: float, slots: int,
                          staging: Path) -> list[tuple[str, Any, Any]]:
    """Every configuration in its own child, ``slots`` at a time, one process each; outcomes in ``configs`` order.

    Started largest first (``explorer.expected_seconds``, longest first is
    the classic schedule for two machines), so that the small ones fill the
    gaps at the end. A configuration expected to outlast all the others
    together (the thorough set's largest scope) would end the run alone on
    one core: it splits its levels over ``slots`` processes instead, and the
    others run beside it. Each outcome is ``_explore_with_deadline``'s; every
    child shares one deadline. The outcomes do not depend on the schedule:
    each search is deterministic, with one process or several, and the caller
    reads them in ``configs`` order. Each child saves its counterexample, if
    any, under ``staging``: the caller keeps only the one it reports.
    """
    import multiprocessing
    from multiprocessing.connection import wait

    explorer = explorer_module()
    context = multiprocessing.get_context("fork")
    deadline = time.perf_counter() + seconds
    hints = [explorer.expected_seconds(config) for config in configs]
    waiting = sorted(range(len(configs)), key=lambda number: -hints[number])
    split = {number for number in waiting if hints[number] > sum(hints) - hints[number]}
    outcomes: list[Any] = [None] * len(configs)
    running: dict[Any, tuple[int, Any]] = {}
    progress.update(done=0, total=len(configs), unit="configurations", force=True)
    try:
        while waiting or running:
            while waiting and len(running) < slots:
                number = waiting.pop(0)
                receiver, sender = context.Pipe(duplex=False)
                workers = slots if number in split else 1
                process = context.Process(target=_explorer_child,
                                          args=(sender, quick, configs[number], workers, staging / str(number)))
                process.start()
                sender.close()
                running[receiver] = (number, process)
            remaining = deadline - time.perf_counter()
            # wait() hands back the very receivers it was given.
            ready: list[Any] = wait(list(running), timeout=max(0.0, remaining)) if remaining > 0 else []
            if not ready:
                break
            for receiver in ready:
                number, process = running.pop(receiver)
                progress.update(done=len(configs) - len(waiting) - len(running), total=len(configs), unit="configurations",
                                force=True)
                try:
                    outcomes[number] = receiver.recv()
                except EOFError:
                    outcomes[number] = ("error", f"explorer child exited with status {process.exitcode}", None)
                process.join()
                receiver.close()
    finally:
        for receiver, (_number, process) in running.items():
            _end_child(process, receiver)
    return [outcome if outcome is not None else ("cut", None, None) for outcome in outcomes]


def _read_outcomes(quick: bool | str, configs: list[Any], outcomes: "list[tuple[str, Any, Any]] | None", tally: Tally,
                   deadline: float) -> tuple[list[Any], list[str], Any]:
    """Rows, cut configurations and the first counterexample, in ``configs`` order (running each in turn when
    ``outcomes`` is None)."""
    rows: list[Any] = []
    cut: list[str] = []
    counterexample = None
    for number, config in enumerate(configs):
        if counterexample is not None:
            # The explorer stops at its first violation, as run_explorer does.
            break
        if outcomes is not None:
            status, part, result = outcomes[number]
        else:
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                cut.append(config.name)
                continue
            progress.update(done=number, total=len(configs), unit="configurations", force=True)
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
    return rows, cut, counterexample


def _keep_symmetry_files(row: Any) -> Any:
    """``row`` with its broken symmetries' trace files moved from the staging folder to the counterexamples folder."""
    if not row.broken:
        return row
    DEFAULT_DIR.mkdir(parents=True, exist_ok=True)
    kept = []
    for broken in row.broken:
        files = []
        for path in broken.files:
            target = DEFAULT_DIR / Path(path).name
            shutil.move(str(path), target)
            files.append(target)
        kept.append(attrs.evolve(broken, files=tuple(files)))
    return attrs.evolve(row, broken=tuple(kept))


def run_explorer_driver(request: DriverRequest) -> DriverResult:
    """Every configuration of the explorer, each in a child process so that one past the time budget can be cut off.

    The explorer always checks the budget's whole catalogue (``--only`` narrows what the verdict reads).
    """
    explorer = explorer_module()
    tally = Tally()
    if explorer is None:
        return DriverResult("explorer", tally, 0.0, status="absent (properties/budget/explorer/ not found)")
    # The explorer's set: quick (--quick, --mutants), default, or thorough (a default run under --profile thorough).
    quick: bool | str = True if request.mode != "default" else "thorough" if request.profile == "thorough" else False
    seconds = request.options.get("explorer_seconds")
    seconds = seconds if seconds is not None else EXPLORER_SECONDS["thorough" if quick == "thorough" else request.mode]
    start = time.perf_counter()
    deadline = start + seconds
    configs = explorer.configurations(quick)
    slots = 1 if quick is True else max(1, min(2, os.cpu_count() or 1))
    # Side by side every configuration runs to its end; one after the other (the quick set, what mutation
    # runs use) the first violation ends the run sooner. Read in order, both report the first one.
    staging = Path(tempfile.mkdtemp(prefix="explorer-side-by-side-")) if slots > 1 else None
    try:
        outcomes = explore_side_by_side(quick, configs, seconds, slots, staging) if staging is not None else None
        rows, cut, counterexample = _read_outcomes(quick, configs, outcomes, tally, deadline)
        if counterexample is not None and staging is not None:
            # Run side by side, every configuration ran to its end and a later one may have broken too: only the
            # first violation in the set's order is reported, and only its file is kept.
            DEFAULT_DIR.mkdir(parents=True, exist_ok=True)
            kept = DEFAULT_DIR / counterexample.path.name
            shutil.move(str(counterexample.path), kept)
            counterexample = attrs.evolve(counterexample, path=kept)
        if staging is not None:
            # A broken symmetry's traces are kept whatever else broke: they are the reason a proof was withdrawn.
            rows = [_keep_symmetry_files(row) for row in rows]
    finally:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
    elapsed = time.perf_counter() - start
    configs = [
        {"name": r.name, "limits": r.limits, "states": r.states, "edges": r.edges, "depth": r.depth,
         "complete": r.complete, "seconds": round(r.seconds, 3), "max_depth": r.max_depth,
         "symmetries": list(r.symmetries), "symmetries_checked": r.verified,
         "symmetry_broken": [broken.line() for broken in r.broken]}
        for r in rows
    ]
    details: dict[str, Any] = {"states": sum(r.states for r in rows), "edges": sum(r.edges for r in rows), "configurations": len(rows)}
    status = "ran"
    incomplete = ""
    if cut:
        status = f"cut off after {seconds:.0f} s"
        details["not finished"] = ", ".join(cut)
        incomplete = f"explorer: {', '.join(cut)} not finished within {seconds:.0f} s (raise --explorer-seconds)"
    out = DriverResult(
        "explorer (exhaustive)", tally, elapsed, details=details, incomplete=incomplete, status=status, configurations=configs,
    )
    if counterexample is not None:
        out.counterexample_text = counterexample.render()
        out.counterexample_path = str(counterexample.path)
    return out
