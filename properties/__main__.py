"""``python -m properties``: every subject, every invariant, every driver, one verdict (``nox -s properties``).

    python -m properties [--seed N] [--profile dev|ci|thorough|mutants] [--traces N]
                         [--quick] [--mutants] [--subject budget,hooks] [--only B1,H2] [--out reports/] [--quiet]

Loops over the subjects (``properties.subject.available()``: budget, hooks,
and any other whose ``properties/<name>/subject.py`` exists), runs each
subject's drivers, keeps one tally per subject, prints one report and writes
``<out>/properties.md`` and ``<out>/properties.json`` (and, outside
``--mutants``, ``<out>/coverage.svg``). While the drivers run, their live
progress goes to stderr (``properties.progress``; ``--quiet``: none). Exit status: 0 when
every selected invariant held and was exercised and (default mode) every
coverage minimum of every subject that ran was met; 1 otherwise; 2 for a bad
command line. A violation is printed on one line as ``VIOLATED <id> ...``
(the line ``mutations/catalogue_runner.py`` reads) followed by its
counterexample.

Selecting:

* ``--subject budget,hooks``: only these subjects run.
* ``--only B1,H2``: only these invariants are checked and judged; a subject
  none of whose invariants is named does not run. Under ``--only`` coverage
  minimums are reported but not required: they measure how well a whole
  catalogue was exercised, and a run that checks B1 must pass exactly when
  B1 held (and was exercised), whatever the other invariants' coverage.

Modes:

* default: the full run (the budget's explorer to its fixpoints and depths,
  every state machine under the profile, every subject's bulk traces). The
  drivers run in two worker processes (the budget's explorer from the main
  process, which forks one child per configuration); each is deterministic for
  a seed, so the same seed prints the same counts and verdicts.
* ``--quick``: small sizes; coverage minimums are not required.
* ``--mutants``: what the rule catalogue runs against each mutant: seed 0
  unless given, the ``mutants`` profile, one process, cheapest driver first
  (over every selected subject), stopping at the first violation.

Without ``--seed`` the seed is drawn at random and printed first, so any run
can be replayed.

A subject may add options of its own (``Subject.options``; they reach its
drivers in ``DriverRequest.options``): the budget's ``--explorer-seconds`` is
the time budget of each explorer configuration; one still running then is
cut off and reported ``INCOMPLETE``, which fails a default run (no proof is
not a pass) but never counts as a kill under ``--mutants``. ``--only``
restricts what the state machines and the bulk traces check and what the
verdict reads; the explorer always checks its whole catalogue.
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
import time
from pathlib import Path
from typing import Sequence

import attrs

from properties import profiles, progress, report, work_bound
from properties.catalogue import Tally
from properties.cli import OneLineParser, UsageError, positive_seconds, whole_number
from properties.subject import Driver, DriverRequest, DriverResult, Subject, available, import_drivers, load, names

def driver_names() -> tuple[str, ...]:
    """Every driver name any subject declares; ``--drivers`` (hidden, for the benchmark and debugging) picks among them."""
    return tuple(dict.fromkeys(driver.name for subject in available() for driver in subject.drivers))


_seed = whole_number(0)
_count = whole_number(1)


_seconds = positive_seconds


def _names(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(",") if part.strip())


def _subjects(text: str) -> tuple[str, ...]:
    names = tuple(name.lower() for name in _names(text))
    known = [subject.name for subject in available()]
    unknown = [name for name in names if name not in known]
    if not names or unknown:
        raise argparse.ArgumentTypeError(f"unknown subject {', '.join(unknown) or text!r}; choose from {', '.join(known)}")
    return names


def _only(text: str) -> tuple[str, ...]:
    ids = tuple(name.upper() for name in _names(text))
    known = [invariant.id for subject in available() for invariant in subject.catalogue]
    unknown = [i for i in ids if i not in known]
    if not ids or unknown:
        raise argparse.ArgumentTypeError(f"unknown invariant {', '.join(unknown) or text!r}; choose from {', '.join(known)}")
    return ids


def _drivers(text: str) -> tuple[str, ...]:
    chosen = _names(text)
    known = driver_names()
    if not chosen or any(name not in known for name in chosen):
        raise argparse.ArgumentTypeError(f"expected some of {','.join(known)}, got {text!r}")
    return chosen


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = OneLineParser(prog="python -m properties", description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=_seed, help="replay a run (non-negative integer)")
    parser.add_argument("--profile", choices=profiles.PROFILES, help="Hypothesis profile (default: as pytest chooses it)")
    parser.add_argument("--traces", type=_count, help="bulk traces per subject (default: each subject's own for the mode)")
    parser.add_argument("--quick", action="store_true", help="small sizes; coverage minimums not required")
    parser.add_argument("--mutants", action="store_true", help="deterministic, fast, stops at the first violation")
    parser.add_argument("--first", metavar="SUBJECT", choices=names(), default=None,
                        help="with --mutants: run this subject's drivers before the others' (the rule catalogue names "
                             "the subject a mutant belongs to; a mutant none catches still meets every driver)")
    parser.add_argument("--subject", type=_subjects, help="run only these subjects, e.g. budget,hooks")
    parser.add_argument("--only", type=_only, help="check only these invariants (of any subject), e.g. B1,H2")
    parser.add_argument("--out", type=Path, default=Path("reports"), help="where properties.md and properties.json go")
    for subject in available():
        for option in subject.options:
            option.add_to(parser)
    parser.add_argument("--quiet", action="store_true",
                        help="no live progress on stderr (the report on stdout is the same either way)")
    # How often a driver's plain progress line may be printed off a terminal (tests shorten it).
    parser.add_argument("--progress-every", type=_seconds, default=progress.PLAIN_EVERY, help=argparse.SUPPRESS)
    parser.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1), help=argparse.SUPPRESS)
    # For timing one driver alone (the benchmark) and for debugging a driver; a normal run uses them all.
    parser.add_argument("--drivers", type=_drivers, default=None, help=argparse.SUPPRESS)
    return parser.parse_args(argv)


# -- tasks (each runs in any process: it names its subject and driver, and returns picklable data) --


@attrs.frozen
class Task:
    subject: str
    driver: str
    request: DriverRequest
    cost: int = 1
    main_process: bool = False

    @property
    def label(self) -> str:
        piece = f" {'ABCDEFGH'[self.request.part]}" if self.request.parts > 1 else ""
        return f"{self.subject} {self.driver}{piece}"


def _driver(subject: Subject, name: str) -> Driver:
    return next(driver for driver in subject.drivers if driver.name == name)


def run_task(task: Task) -> DriverResult:
    """Run one task; a driver that crashes fails the run with its reason, not a traceback."""
    work_bound.note_running("")
    try:
        with progress.task(task.label):
            return _driver(load(task.subject), task.driver).run(task.request)
    except (Exception, work_bound.ResourceExhausted) as error:
        running = f" while running {work_bound.running}" if work_bound.running else ""
        return DriverResult(
            task.driver, Tally(), 0.0, status="crashed",
            error=f"{task.subject} {task.driver} (seed {task.request.seed}): {work_bound.raised(error)}{running}",
        )


def plan(
    subjects: Sequence[Subject], args: argparse.Namespace, seed: int, profile: str, mode: str, only: "tuple[str, ...] | None",
) -> list[Task]:
    """Every task of the run: one per driver, or ``Driver.parts`` pieces outside ``--mutants``."""
    tasks = []
    chosen = args.drivers if args.drivers is not None else driver_names()
    for subject in subjects:
        company = tuple(driver.name for driver in subject.drivers if driver.name in chosen)
        options = {option.dest: getattr(args, option.dest, option.default) for option in subject.options}
        for driver in subject.drivers:
            if driver.name not in chosen:
                continue
            parts = 1 if mode == "mutants" else driver.parts
            for part in range(parts):
                request = DriverRequest(
                    seed=seed, mode=mode, profile=profile, only=only, size=args.traces if driver.sized else None,
                    stop_at_first=mode == "mutants", part=part, parts=parts, options=options, company=company,
                )
                tasks.append(Task(subject.name, driver.name, request, cost=driver.cost, main_process=driver.main_process))
    if mode == "mutants":
        # Cheapest first over every subject: a mutant is usually killed by a cheap driver, and soonest by one
        # of its own subject's (``--first``). The order changes when a kill comes, never whether it does.
        first = getattr(args, "first", None)
        tasks.sort(key=lambda task: (task.subject != first, task.cost))
    return tasks


def _report_line(task: Task, outcome: DriverResult) -> str:
    return f"  {task.label}: {outcome.tally.steps:,} steps in {outcome.seconds:.1f} s"


def execute(tasks: Sequence[Task], mode: str, workers: int) -> list[tuple[Task, DriverResult]]:
    """Run the tasks: one by one under ``--mutants`` (stopping at the first failure), else in worker processes.

    Every process runs under a memory limit (``properties.workers``); a worker that dies is reported as that
    task's crash, on one line, and every other task's result is still reported."""
    from properties import workers as forked

    results: list[tuple[Task, DriverResult]] = []
    if mode == "mutants" or workers <= 1:
        # One at a time, each in a forked child of its own: a task that kills its process is still one line.
        limit = forked.memory_limit(1)
        forked.limit_memory(limit)
        for task in tasks:
            outcome = forked.Workers([task], run_task, 1, limit).results()[0]
            if isinstance(outcome, forked.Death):
                outcome = _died(task, outcome.reason)
            results.append((task, outcome))
            print(_report_line(task, outcome), flush=True)
            if mode == "mutants" and (outcome.failure or outcome.tally.violations or outcome.error):
                break
        return results
    limit = forked.memory_limit(workers + 1)
    in_main = [task for task in tasks if task.main_process]
    # Costly tasks first, so that the cheap ones fill the gaps at the end.
    elsewhere = sorted((task for task in tasks if not task.main_process), key=lambda task: -task.cost)
    pool = forked.Workers(elsewhere, run_task, workers, limit)
    forked.limit_memory(limit)
    for task in in_main:
        outcome = run_task(task)
        results.append((task, outcome))
        print(_report_line(task, outcome), flush=True)
    for task, outcome in zip(elsewhere, pool.results()):
        if isinstance(outcome, forked.Death):
            outcome = _died(task, outcome.reason)
        results.append((task, outcome))
        print(_report_line(task, outcome), flush=True)
    return results


def _died(task: Task, reason: str) -> DriverResult:
    """A task whose worker died: a crash of that driver, naming the subject, the driver, the seed and the cause."""
    return DriverResult(task.driver, Tally(), 0.0, status="crashed",
                        error=f"{task.label}: worker died while running seed {task.request.seed}: {reason}")


def _select(args: argparse.Namespace) -> tuple[list[Subject], list[str]]:
    """The subjects that run and the invariant ids the verdict judges."""
    subjects = list(available())
    if args.subject:
        subjects = [subject for subject in subjects if subject.name in args.subject]
    if args.only:
        chosen = [subject for subject in subjects if set(subject.ids) & set(args.only)]
        outside = [i for i in args.only if not any(i in subject.ids for subject in subjects)]
        if outside:
            raise UsageError(f"--only {','.join(outside)}: not an invariant of --subject {','.join(args.subject or ())}")
        subjects = chosen
        selected = [i for subject in subjects for i in subject.ids if i in args.only]
    else:
        selected = [i for subject in subjects for i in subject.ids]
    return subjects, selected


def _unwritable(out: Path) -> str:
    """Why the report cannot be written to ``out`` ("" when it can): checked before the run, not after."""
    import tempfile

    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=out):
            pass
        for name in ("properties.md", "properties.json"):
            target = out / name
            if target.exists() and (not target.is_file() or not os.access(target, os.W_OK)):
                return f"{target}: cannot be overwritten"
    except OSError as error:
        return error.strerror or str(error)
    return ""


def main(argv: Sequence[str] | None = None) -> int:
    # Issue 13: `--database URL` replays the failures a fuzz fleet stored there, without fuzzing.
    arguments = list(sys.argv[1:] if argv is None else argv)
    if any(argument == "--database" or argument.startswith("--database=") for argument in arguments):
        from properties import database

        return database.main(arguments)
    try:
        args = parse(argv)
        if args.quick and args.mutants:
            raise UsageError("--quick and --mutants are separate modes; choose one")
        if args.first and not args.mutants:
            raise UsageError("--first orders the drivers of a --mutants run; add --mutants")
        subjects, selected = _select(args)
    except UsageError as error:
        print(f"python -m properties: {error}", file=sys.stderr)
        return 2
    mode = "mutants" if args.mutants else "quick" if args.quick else "default"
    for subject in subjects:
        # A subject judged against real programs needs them: without one there is no verdict, not a pass.
        needed = subject.requires() if subject.requires else ""
        if needed:
            print(f"python -m properties: {needed}", file=sys.stderr)
            return 2
    problem = _unwritable(args.out)
    if problem:
        print(f"python -m properties: --out {args.out}: cannot write the report: {problem}", file=sys.stderr)
        return 2
    if args.seed is not None:
        seed = args.seed
    elif mode == "mutants":
        seed = 0
    else:
        seed = secrets.randbelow(2**32)
    profile = args.profile or ("mutants" if mode == "mutants" else profiles.chosen_profile())
    profiles.load()
    selection = []
    if args.subject:
        selection += ["--subject", ",".join(subject.name for subject in subjects)]
    if args.only:
        selection += ["--only", ",".join(selected)]
    if args.first:
        selection += ["--first", args.first]
    print(
        f"properties: seed {seed}  profile {profile}  mode {mode}  subjects {','.join(s.name for s in subjects)}"
        + (f"  only {','.join(selected)}" if args.only else ""),
        flush=True,
    )
    for subject in subjects:
        note = subject.preamble() if subject.preamble else ""
        if note:
            print(note, flush=True)

    started = time.perf_counter()
    only = tuple(selected) if args.only else None
    # Before any worker forks, so that no worker imports them again (import_drivers).
    import_drivers()
    tasks = plan(subjects, args, seed, profile, mode, only)
    # On stderr only, and read from a pipe made before any worker is forked (properties/progress.py).
    with progress.shown(args.quiet, tasks=len(tasks), every=args.progress_every):
        results = execute(tasks, mode, args.workers)

    tallies: dict[str, Tally] = {subject.name: Tally() for subject in subjects}
    statistics: dict[str, int] = {}
    rows: dict[tuple[str, str], report.DriverRow] = {}
    errors: list[str] = []
    counterexamples: list[str] = []
    chosen = set(selected)
    by_name = {subject.name: subject for subject in subjects}
    for task, outcome in results:
        if args.only:
            outcome.tally.violations[:] = [v for v in outcome.tally.violations if v.invariant in chosen]
        tallies[task.subject].merge(outcome.tally)
        for key, value in outcome.statistics.items():
            statistics[key] = statistics.get(key, 0) + value
        _add_row(rows, task, outcome)
        if outcome.error:
            # A driver that raised (in the guard, the reference or the harness) or whose worker died: its own
            # outcome (issue 22), named with the driver and the seed, never read as an invariant nor as vacuity.
            crash = outcome.error if outcome.error.startswith(f"{task.subject} ") else (
                f"{task.label} (seed {seed}): {outcome.error}")
            errors.append(crash)
            tallies[task.subject].crashes.append(crash)
            print(f"CRASHED {crash}", flush=True)
        if outcome.incomplete:
            print(f"INCOMPLETE {outcome.incomplete}", flush=True)
            if mode == "default":
                errors.append(outcome.incomplete)
        if outcome.failure is not None:
            events, violation = outcome.failure
            if violation.invariant in chosen:
                print(f"VIOLATED {violation.invariant} ({task.subject} {outcome.driver}) {violation}", flush=True)
                show = by_name[task.subject].counterexample
                if show is not None:
                    # The driver's name with the worker's letter ("bulk A"), so that workers never share a file.
                    try:
                        text, path = show(task.label.removeprefix(f"{task.subject} "), list(events), violation)
                    except Exception as error:
                        # Shrinking or showing a counterexample replays it, and a guard that raises there (a crash
                        # the driver's own run did not meet) must not turn a found violation into a traceback: the
                        # verdict stays FAIL on the violation, and the line says why no file was written.
                        text, path = (f"COUNTEREXAMPLE from {task.label}: {violation}\n  not saved: replaying it "
                                      f"raised {work_bound.raised(error)}"), ""
                    print(text, flush=True)
                    if path and path not in counterexamples:
                        counterexamples.append(path)
        if outcome.counterexample_text:
            violated = [v for v in outcome.tally.violations if v.invariant in chosen]
            if violated:
                print(f"VIOLATED {violated[0].invariant} ({task.subject} {outcome.driver}) {violated[0]}", flush=True)
                print(outcome.counterexample_text, flush=True)
                if outcome.counterexample_path not in counterexamples:
                    counterexamples.append(outcome.counterexample_path)

    wall = time.perf_counter() - started
    check_coverage = mode == "default" and not args.only
    coverage_note = "" if check_coverage else ("not required under --only" if args.only else "not required in this mode")
    verdict = report.judge(subjects, tallies, selected, check_coverage=check_coverage, driver_errors=errors)
    data = report.build(
        seed=seed, profile=profile, mode=mode, subjects=subjects, tallies=tallies, selected=selected,
        drivers=list(rows.values()), verdict=verdict, wall_seconds=wall, check_coverage=check_coverage,
        statistics=statistics, counterexamples=counterexamples, selection=selection, coverage_note=coverage_note,
        cpu_seconds=sum(os.times()[:4]),
    )
    # After a violation the run stopped early; only a run that found none is judged for vacuity on its own line.
    if not any(tally.violations or tally.crashes for tally in tallies.values()):
        for subject in subjects:
            tally = tallies[subject.name]
            for invariant_id in subject.ids:
                if invariant_id in chosen and tally.status(invariant_id) == "vacuous":
                    # Named on its own line before the report, like a violation: never exercised is not a pass.
                    print(f"FAIL {invariant_id} vacuous: never exercised in {tally.checked[invariant_id]:,} checked steps"
                          f"{report.vacuity_explained(subject, tally)}", flush=True)
    for subject in subjects:
        tally = tallies[subject.name]
        print(f"{subject.name}: {tally.traces:,} {subject.unit} checked ({tally.steps:,} steps)", flush=True)
    print(report.render(data), flush=True)
    if mode != "mutants":
        data["figures"] = _figures(data, args.out)
    try:
        markdown, as_json = report.write(data, args.out)
        print(f"written: {markdown} {as_json}")
    except OSError as error:
        print(f"python -m properties: {args.out}: cannot write the report: {error.strerror}", file=sys.stderr)
        return 2
    return 0 if verdict.ok else 1


def _figures(data: dict, out: Path) -> list[tuple[str, str]]:
    """The coverage figure beside the report (``properties.md`` links it); one line on stderr when it cannot be drawn."""
    from properties import figures

    if not data["coverage"]:
        return []
    title = "Every coverage count against its minimum"
    heading = f"{title} (seed {data['seed']}, profile {data['profile']}, mode {data['mode']}, {data['wall_seconds']:.0f} s)"
    try:
        path = figures.coverage(data["coverage"], out / "coverage.svg", heading)
    except OSError as error:
        print(f"python -m properties: coverage figure not written: {error}", file=sys.stderr)
        return []
    print(f"figure: {path}", flush=True)
    return [(path.name, title)]


def _add_row(rows: dict[tuple[str, str], report.DriverRow], task: Task, outcome: DriverResult) -> None:
    """One report row per subject and driver; the pieces of a split driver add up (seconds per process)."""
    key = (task.subject, task.driver)
    row = rows.get(key)
    if row is None:
        row = rows[key] = report.DriverRow(
            outcome.driver, 0.0, 0, 0, status=outcome.status, details={}, configurations=list(outcome.configurations),
            subject=task.subject,
        )
        if task.request.parts > 1:
            row.details["processes"] = 0
    elif outcome.status != "ran":
        row.status = outcome.status
    row.seconds += outcome.seconds
    row.steps += outcome.tally.steps
    row.traces += outcome.tally.traces
    for name, value in outcome.details.items():
        if isinstance(value, int) and isinstance(row.details.get(name, 0), int):
            row.details[name] = row.details.get(name, 0) + value
        else:
            row.details[name] = value
    if task.request.parts > 1:
        row.details["processes"] += 1
        if row.steps != outcome.tally.steps:  # not the first piece: its configurations (if any) are new rows
            row.configurations.extend(outcome.configurations)


if __name__ == "__main__":
    sys.exit(main())
