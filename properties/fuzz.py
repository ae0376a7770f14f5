"""``nox -s fuzz``: HypoFuzz over every subject's state machine, for a bounded time, on a shared database.

``python -m properties`` is the one-minute verdict; this is the deeper run a
team leaves going at night or on a fleet. HypoFuzz (``hypothesis fuzz``) runs
the Hypothesis tests that pytest collects from ``tests/fuzz/`` (one per
subject, built from ``Subject.state_machine``, see ``machines()``) as a
coverage-guided fuzzer in ``--workers`` processes. All of its state, including
each failure it finds, lives in the example database, so workers on several
machines given the same ``--redis URL`` fuzz together.

HypoFuzz itself runs until stopped; this runner stops it after ``--seconds``
(there is no "forever" setting: a fleet job states its own bound), or as soon
as every target has a stored failure. While it runs it prints, every
``--progress`` seconds, each target's examples and behaviours from HypoFuzz's
progress reports in the database; at the end it prints them once more and
replays every stored failure (``properties.database``), naming the invariant.

HypoFuzz 25.11.1 needs ``properties.hypofuzz_fixes`` under the pinned
Hypothesis (installed in every worker by ``tests/fuzz/conftest.py``): without
it every replay of an input misreads its choices and the fuzzer reports 0
behaviours.

Exit status: 0 no failure stored, 1 a failure replays, 2 usage error.
"""

from __future__ import annotations

import argparse
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Sequence

from properties import database as db
from properties import workers as workers_module
from properties import hypofuzz_fixes
from properties.cli import OneLineParser, UsageError
from properties.paths import ROOT
from properties.process_group import stop_group

#: The pytest file HypoFuzz collects its targets from.
TARGETS = "tests/fuzz/test_fuzz_targets.py"
DEFAULT_SECONDS = 180.0
#: Seconds between two looks at the database while fuzzing.
POLL = 1.0
#: Seconds between two progress lines while fuzzing (``--progress``).
PROGRESS = 30.0
#: How long HypoFuzz gets to stop after SIGINT before its process group is killed.
GRACE = 10.0


def machines() -> dict[str, type]:
    """Subject name -> a standalone state machine class, for every subject that declares one (the registry's)."""
    from properties.subject import fuzz_targets

    return fuzz_targets()


def stored_failures(database: Any) -> list[bytes]:
    """Database keys of fuzz targets holding a failing example (HypoFuzz keeps shrunk failures under the test's own key)."""
    return [key for key in database.fetch(db.TEST_KEYS) if any(True for _ in database.fetch(key))]


def _parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="nox -s fuzz --", description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=DEFAULT_SECONDS, help=f"time bound (default {DEFAULT_SECONDS:g})")
    parser.add_argument("--workers", type=int, default=1, help="fuzz worker processes on this machine (default 1)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--redis", metavar="URL", help="a shared Redis database, redis://host:port/db")
    where.add_argument("--database", metavar="DIR", help=f"a local directory database (default {DEFAULT_DIRECTORY_TEXT})")
    parser.add_argument("--dashboard", action="store_true", help="serve HypoFuzz's dashboard while fuzzing")
    parser.add_argument("--port", type=int, default=9999, help="dashboard port on 127.0.0.1 (default 9999)")
    parser.add_argument("--subject", action="append", metavar="NAME", help="fuzz only this subject (repeatable)")
    parser.add_argument("--progress", type=float, default=PROGRESS, metavar="SECONDS",
                        help=f"print each target's examples and behaviours this often (default {PROGRESS:g}; 0: never)")
    parser.add_argument("--keep-going", action="store_true", help="fuzz until --seconds even after every target failed")
    parser.add_argument("--coverage", choices=sorted(hypofuzz_fixes.COVERAGE_SCOPES), default=hypofuzz_fixes.DEFAULT_COVERAGE,
                        help="whose branches count as behaviours: the code under test and its oracle (code, the default) "
                             "or the whole project, harness included")
    return parser


DEFAULT_DIRECTORY_TEXT = str(db.DEFAULT_DIRECTORY.relative_to(ROOT))




def parse(argv: "Sequence[str] | None") -> argparse.Namespace:
    args = _parser().parse_args(argv)
    if not (math.isfinite(args.seconds) and args.seconds > 0):
        raise UsageError(f"--seconds {args.seconds:g}: must be a positive, finite number of seconds")
    if args.workers < 1:
        raise UsageError(f"--workers {args.workers}: must be at least 1")
    if not (math.isfinite(args.progress) and args.progress >= 0):
        raise UsageError(f"--progress {args.progress:g}: must be 0 (never) or a positive, finite number of seconds")
    if not 0 < args.port < 65536:
        raise UsageError(f"--port {args.port}: not a port number")
    return args


def command(workers: int, dashboard: bool, port: int, selection: Sequence[str]) -> list[str]:
    """``hypothesis fuzz`` for the fuzz targets, run by this interpreter."""
    launcher = "import sys; from hypothesis.extra.cli import main; sys.exit(main(prog_name='hypothesis'))"
    return [sys.executable, "-c", launcher, "fuzz", "-n", str(workers),
            *(("--dashboard", "--host", "127.0.0.1", "--port", str(port)) if dashboard else ("--no-dashboard",)),
            "--", TARGETS, "-p", "no:cacheprovider", "-q", *selection]


def _stop(process: subprocess.Popen) -> None:
    """SIGTERM to HypoFuzz's whole process group (hub, workers, dashboard), then SIGKILL after the grace period.

    Everything HypoFuzz found is already in the database when it is saved, so
    nothing is lost by ending it; SIGTERM rather than SIGINT spares the log a
    KeyboardInterrupt traceback from every process. Workers may outlive the hub:
    ``stop_group`` ends the group either way.
    """
    stop_group(process, GRACE)


def fuzz(url: str, seconds: float, workers: int, *, dashboard: bool = False, port: int = 9999,
         subjects: "Sequence[str] | None" = None, keep_going: bool = False, root: Path = ROOT,
         log: Any = None, progress_every: float = 0.0, coverage: str = hypofuzz_fixes.DEFAULT_COVERAGE) -> dict[str, Any]:
    """Run HypoFuzz on ``root``'s fuzz targets against database ``url``; returns what happened (see ``main``)."""
    database = db.open_database(url)
    targets = [name for name in machines() if subjects is None or name in subjects]
    selection = ("-k", " or ".join(f"TestFuzz_{name}" for name in targets)) if subjects else ()
    env = {**os.environ, db.VARIABLE: url, "PYTHONPATH": str(root), "PYTHONHASHSEED": "0",
           hypofuzz_fixes.COVERAGE_VARIABLE: coverage}
    for variable in ("HYPOTHESIS_PROFILE", "CI", "MUTANT_UNDER_TEST"):
        # These choose derandomized, database-less profiles, which HypoFuzz refuses to fuzz.
        env.pop(variable, None)
    before = set(stored_failures(database))
    started = time.monotonic()
    # Issue 25: HypoFuzz's hub and every worker it starts inherit a data limit (an equal share of 80% of memory
    # among the workers and the hub), so a target that allocates without bound fails there, not the machine.
    limit = workers_module.memory_limit(workers + 1)
    process = subprocess.Popen(command(workers, dashboard, port, selection), cwd=root, env=env, start_new_session=True,
                               stdout=log or subprocess.DEVNULL, stderr=subprocess.STDOUT if log else subprocess.DEVNULL,
                               preexec_fn=lambda: workers_module.limit_memory(limit))
    first_failure: "float | None" = None
    ended = "time bound"
    next_progress = progress_every
    try:
        while True:
            elapsed = time.monotonic() - started
            if elapsed >= seconds:
                break
            if process.poll() is not None:
                ended = f"hypothesis fuzz exited with status {process.returncode}"
                break
            failed = set(stored_failures(database))
            if failed - before and first_failure is None:
                first_failure = time.monotonic() - started
            if not keep_going and len(failed) >= len(targets) and failed:
                ended = "every target has a stored failure"
                break
            if log is not None and progress_every and elapsed >= next_progress:
                for line in progress_lines(db.progress(database), f"after {elapsed:.0f} s"):
                    print(line, file=log, flush=True)
                next_progress += progress_every
            time.sleep(min(POLL, max(0.0, seconds - elapsed)))
    finally:
        _stop(process)
    wall = time.monotonic() - started
    return {"url": url, "targets": targets, "workers": workers, "seconds": wall, "ended": ended,
            "first_failure": first_failure, "progress": db.progress(database)}


def progress_lines(progress: dict[str, Any], when: str) -> list[str]:
    # HypoFuzz saves a report when a phase changes or behaviour is new, and on a timer (each second at first,
    # each minute after five), so these are lower bounds.
    if not progress:
        return [f"  {when}: no progress report in the database yet"]
    return [f"  {when}: {nodeid}: at least {data['examples']:,} examples, {data['behaviors']:,} behaviours "
            f"({data['workers']} worker(s) reported)" for nodeid, data in sorted(progress.items())]


class Interrupted(Exception):
    """SIGTERM: stop HypoFuzz (its own session, so the signal does not reach it) and leave."""


def _terminate(signum: int, frame: Any) -> None:
    raise Interrupted()


def main(argv: "Sequence[str] | None" = None) -> int:
    # Ctrl-C (KeyboardInterrupt) or SIGTERM ends the run; `fuzz()` stops HypoFuzz's process group on the way out.
    signal.signal(signal.SIGTERM, _terminate)
    try:
        args = parse(argv)
        url = args.redis or args.database or str(db.DEFAULT_DIRECTORY)
        known = machines()
        for name in args.subject or ():
            if name not in known:
                raise UsageError(f"--subject {name}: no state machine; choose from {', '.join(known)}")
        db.open_database(url)
        hypofuzz_fixes.check_versions()
        if args.dashboard:
            print(f"dashboard: http://127.0.0.1:{args.port}/ (while fuzzing)", flush=True)
        collector = "sys.monitoring" if sys.version_info >= (3, 12) else "coverage.py's C tracer"
        print(f"fuzz: {', '.join(args.subject or known)} for at most {args.seconds:g} s, {args.workers} worker(s), "
              f"database {url}, Python {sys.version.split()[0]}, {args.coverage} coverage by {collector}", flush=True)
        outcome = fuzz(url, args.seconds, args.workers, dashboard=args.dashboard, port=args.port, subjects=args.subject,
                       keep_going=args.keep_going, log=sys.stdout, progress_every=args.progress, coverage=args.coverage)
        results = db.replay_all(url, args.subject)
    except (UsageError, db.DatabaseError, hypofuzz_fixes.VersionError) as error:
        print(f"nox -s fuzz: {error}", file=sys.stderr)
        return 2
    except (Interrupted, KeyboardInterrupt):
        print("nox -s fuzz: interrupted; HypoFuzz stopped (what it found is in the database)", file=sys.stderr)
        return 130
    print(f"fuzzed {outcome['seconds']:.0f} s ({outcome['ended']})", flush=True)
    for line in progress_lines(outcome["progress"], "at the end"):
        print(line)
    if outcome["first_failure"] is not None:
        print(f"first failure stored after {outcome['first_failure']:.1f} s")
    print(db.render(results, url), flush=True)
    return 1 if any(result.invariants or result.error for result in results) else 0


if __name__ == "__main__":
    sys.exit(main())
