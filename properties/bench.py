"""``python -m properties.bench`` (``nox -s bench``): every subject's rows, then the default run's wall time.

The core measures nothing of its own but the default run; every other row is
a subject's (``properties.subject.Bench``: its options, its rows, its
figures), in the registry's order. The default run (``python -m properties
--seed SEED``) is timed on a pseudo-terminal with its live progress and with
``--quiet``, alternating, medians of ``--default-repeats`` (each a subprocess,
what it draws read and dropped): what the progress itself costs.

The table goes to stdout and to ``bench.md`` under ``--figures``, with a link
to every figure a subject drew there. The seed is fixed (printed, and handed
to the subjects as ``args.seed``) so that every repeat times the same work.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Sequence

from properties import profiles, progress
from properties.paths import ROOT, shared_dir
from properties.process_group import exit_on_sigterm, timed
from properties.subject import Subject, available

SEED = 20_240_601


def _median(samples: Sequence[float]) -> float:
    return statistics.median(samples)


def _on_terminal(command: list[str], cwd: str, env: dict[str, str], timeout: float) -> "tuple[int, float, float] | None":
    """Run ``command`` with stdout and stderr on a pseudo-terminal (as a person runs it), everything it draws read and
    dropped; (exit status, wall seconds, CPU seconds of its process tree), or None when cut off after ``timeout``."""
    import fcntl
    import pty
    import struct
    import termios
    import threading

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 150, 0, 0))

    def drain() -> None:
        while True:
            try:
                if not os.read(master, 65536):
                    return
            except OSError:  # the terminal closed: the run ended
                return

    reader = threading.Thread(target=drain, daemon=True)
    start = time.perf_counter()
    cpu = _children_cpu()
    proc = subprocess.Popen(command, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=slave, stderr=slave)
    os.close(slave)
    reader.start()
    try:
        code = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        return None
    finally:
        reader.join(5.0)
        os.close(master)
    return code, time.perf_counter() - start, _children_cpu() - cpu


def _children_cpu() -> float:
    """CPU seconds of every finished child and its own waited-for children (the run's whole process tree)."""
    import resource

    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def bench_progress_cost(repeats: int, timeout: float) -> dict[str, Any]:
    """The default run on a terminal with its live progress and with ``--quiet``, alternating; medians of ``repeats``."""
    import tempfile

    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "0"}
    walls: dict[str, list[float]] = {"progress": [], "quiet": []}
    # CPU seconds too: on a machine shared with other work they move far less with its load than wall seconds do.
    cpus: dict[str, list[float]] = {"progress": [], "quiet": []}
    codes = set()
    #: The progress's own cost, read back from each run with progress (``progress.COST_VARIABLE``).
    own: list[dict[str, Any]] = []
    for number in range(repeats):
        # Alternate who goes first, so that a load changing during the run hits both alike.
        for side in (("progress", "quiet") if number % 2 == 0 else ("quiet", "progress")):
            progress.update("default run with and without progress", done=len(walls["progress"]) + len(walls["quiet"]),
                            total=2 * repeats, unit="runs", side=f"now: {side}", force=True)
            with tempfile.TemporaryDirectory(prefix="properties-bench-") as scratch:
                command = [sys.executable, "-m", "properties", "--seed", str(SEED), "--out", str(Path(scratch) / "reports")]
                cost_file = Path(scratch) / "progress-cost.json"
                found = _on_terminal(command + (["--quiet"] if side == "quiet" else []), scratch,
                                     {**env, progress.COST_VARIABLE: str(cost_file)}, timeout)
                if side == "progress" and cost_file.exists():
                    own.append(json.loads(cost_file.read_text(encoding="utf-8")))
            if found is None:
                return {"status": f"cut off after {timeout:.0f} s"}
            codes.add(found[0])
            walls[side].append(found[1])
            cpus[side].append(found[2])
    progress_wall, quiet_wall = _median(walls["progress"]), _median(walls["quiet"])
    progress_cpu, quiet_cpu = _median(cpus["progress"]), _median(cpus["quiet"])
    send = send_seconds()
    # The progress's own CPU per run: the reading thread's, plus every report's send (paid by the worker that sent it).
    owns = [item["thread_cpu"] + item["reports"] * send for item in own]
    return {"status": "exit " + ",".join(str(code) for code in sorted(codes)), "progress": progress_wall, "quiet": quiet_wall,
            "ratio": progress_wall / quiet_wall, "samples": walls, "cpu_progress": progress_cpu, "cpu_quiet": quiet_cpu,
            "cpu_ratio": progress_cpu / quiet_cpu, "cpu_samples": cpus, "pair_ratios": _pair_ratios(walls),
            "own_cpu": _median(owns) if owns else float("nan"), "own_samples": owns,
            "reports": [item["reports"] for item in own], "send_seconds": send,
            "own_share": (_median(owns) / progress_cpu) if owns and progress_cpu else float("nan")}


#: The one-function change the review row reviews: ``lane_of`` in one expression, a refactor that keeps behaviour
#: (the change ``tests/core/test_review.py`` reviews first). (file, exact old text, new text).
REVIEWED_CHANGE = ("guard/budget.py", "    if isinstance(lane, str) and lane in LANES:\n        return lane\n    return None\n",
                   "    return lane if isinstance(lane, str) and lane in LANES else None\n")


def bench_review_cost(repeats: int, timeout: float, mutants: bool) -> dict[str, Any]:
    """The review of a one-function change (``REVIEWED_CHANGE``, committed on HEAD in a temporary worktree) beside
    one default run in that worktree, alternating; medians of ``repeats`` (issue 20's goal: at most 2.5x).

    Both run as their commands do (``python -m properties.review HEAD~1``, ``python -m properties``), with the
    bench's seed and ``--quiet``; ``mutants`` False passes ``--no-mutants`` to the review."""
    import tempfile

    label = "review of a one-function change" + ("" if mutants else " (--no-mutants)")
    with tempfile.TemporaryDirectory(prefix="properties-bench-review-") as scratch:
        tree = Path(scratch) / "tree"
        added = subprocess.run(["git", "worktree", "add", "--detach", str(tree), "HEAD"], cwd=ROOT,
                               capture_output=True, text=True)
        if added.returncode != 0:
            return {"status": "no worktree of HEAD: " + (added.stderr.strip().splitlines()[-1:] or ["git failed"])[0]}
        try:
            file, find, replace = REVIEWED_CHANGE
            text = (tree / file).read_text(encoding="utf-8")
            if text.count(find) != 1:
                return {"status": f"{file} no longer holds the reviewed function's text (REVIEWED_CHANGE)"}
            (tree / file).write_text(text.replace(find, replace), encoding="utf-8")
            committed = subprocess.run(["git", "-c", "user.name=bench", "-c", "user.email=bench@localhost", "commit",
                                        "-q", "-am", "bench: lane_of in one expression"], cwd=tree,
                                       capture_output=True, text=True)
            if committed.returncode != 0:
                return {"status": "cannot commit the change: " + committed.stderr.strip()[-200:]}
            # The worktree lies outside this checkout's folder, so ../shared is named for it.
            env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONHASHSEED": "0", "GUARD_SHARED": str(shared_dir())}
            commands = {
                "default run": [sys.executable, "-m", "properties", "--seed", str(SEED), "--quiet", "--out",
                                str(Path(scratch) / "reports-run")],
                "review": [sys.executable, "-m", "properties.review", "HEAD~1", "--seed", str(SEED), "--quiet", "--out",
                           str(Path(scratch) / "reports-review")] + ([] if mutants else ["--no-mutants"]),
            }
            walls: dict[str, list[float]] = {name: [] for name in commands}
            cpus: dict[str, list[float]] = {name: [] for name in commands}
            codes: dict[str, set[int]] = {name: set() for name in commands}
            for number in range(repeats):
                for name in (("default run", "review") if number % 2 == 0 else ("review", "default run")):
                    progress.update(label, done=len(walls["review"]) + len(walls["default run"]), total=2 * repeats,
                                    unit="runs", side=f"now: {name}", force=True)
                    try:
                        wall, cpu, code = timed(commands[name], tree, env, timeout)
                    except subprocess.TimeoutExpired:
                        return {"status": f"the {name} was cut off after {timeout:.0f} s"}
                    walls[name].append(wall)
                    cpus[name].append(cpu)
                    codes[name].add(code)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, capture_output=True)
            subprocess.run(["git", "worktree", "prune"], cwd=ROOT, capture_output=True)
    review, run = _median(walls["review"]), _median(walls["default run"])
    return {"status": "; ".join(f"{name} exit {','.join(map(str, sorted(found)))}" for name, found in codes.items()),
            "label": label, "review": review, "run": run, "ratio": review / run, "samples": walls,
            "cpu_ratio": _median(cpus["review"]) / _median(cpus["default run"]), "cpus": cpus}


def _pair_ratios(walls: dict[str, list[float]]) -> list[float]:
    """Each repeat's with/without ratio: the two runs of a pair ran next to each other, under the same load."""
    return [with_ / without for with_, without in zip(walls["progress"], walls["quiet"])]


def send_seconds(count: int = 20_000) -> float:
    """What one report costs its sender: a typical report's ``json.dumps`` and its write to a pipe (median of 5)."""
    reader, writer = os.pipe()
    os.set_blocking(writer, False)
    message = {"label": "budget bulk", "done": 123_456, "total": 500_000, "unit": "traces", "eta": True,
               "fields": {"steps": 9_876_543}, "at": time.time()}
    runs = []
    try:
        for _ in range(5):
            began = time.thread_time()
            for _ in range(count):
                data = (json.dumps(message, separators=(",", ":"), default=str) + "\n").encode()
                try:
                    os.write(writer, data)
                except BlockingIOError:
                    os.read(reader, 1 << 20)  # keep the pipe from filling; its reader's cost is counted on its side
            runs.append((time.thread_time() - began) / count)
    finally:
        os.close(reader)
        os.close(writer)
    return _median(runs)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m properties.bench", description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs per measurement (median reported)")
    parser.add_argument("--skip-default-run", action="store_true", help="do not time a default python -m properties run")
    parser.add_argument("--quiet", action="store_true", help="no live progress on stderr")
    parser.add_argument("--default-repeats", type=int, default=3, help="default runs with and without progress (median of each)")
    parser.add_argument("--figures", type=Path, default=ROOT / "reports" / "bench", help="where the SVG figures and bench.md go")
    parser.add_argument("--subject", action="append", metavar="NAME", help="only this subject's rows (repeatable)")
    parser.add_argument("--review-repeats", type=int, default=1,
                        help="reviews of a one-function change beside a default run (median of each; 0: none)")
    parser.add_argument("--review-scenarios", action="store_true",
                        help="only issue 20's review scenarios, each reviewed alone with the review's defaults beside one "
                             "default run (python -m properties.review.scenarios)")
    parser.add_argument("--only-default-run", action="store_true",
                        help="no subject's rows: only the default run with and without progress")
    benched = [subject for subject in available() if subject.bench is not None]
    for subject in benched:
        assert subject.bench is not None
        if subject.bench.add_options is not None:
            subject.bench.add_options(parser)
    args = parser.parse_args(argv)
    # A cancelled bench removes its review worktree and stops what it was timing (properties.process_group).
    exit_on_sigterm()
    if args.review_scenarios:
        # Its own command (the review sits above the core, which never imports it): run as a reviewer would.
        return subprocess.call([sys.executable, "-m", "properties.review.scenarios", "--seed", str(SEED),
                                "--out", str(args.figures)], cwd=ROOT)
    if args.only_default_run:
        if args.skip_default_run or args.subject:
            print("python -m properties.bench: --only-default-run: not with --skip-default-run or --subject", file=sys.stderr)
            return 2
        benched = []
    elif args.subject:
        unknown = [name for name in args.subject if name not in {subject.name for subject in benched}]
        if unknown:
            print(f"python -m properties.bench: --subject {unknown[0]}: no bench rows; choose from "
                  f"{', '.join(subject.name for subject in benched)}", file=sys.stderr)
            return 2
        benched = [subject for subject in benched if subject.name in args.subject]
    problems = [] if args.default_repeats >= 1 and args.repeats >= 1 and args.review_repeats >= 0 else [
        "--repeats and --default-repeats must be positive, --review-repeats at least 0"]
    for subject in benched:
        assert subject.bench is not None
        if subject.bench.check_options is not None:
            problems.append(subject.bench.check_options(args))
    problems = [problem for problem in problems if problem]
    if problems:
        print(f"python -m properties.bench: {problems[0]}", file=sys.stderr)
        return 2
    args.seed = SEED
    profiles.load()
    with progress.shown(args.quiet, title="bench"):
        return _bench(args, benched)


def _bench(args: argparse.Namespace, benched: Sequence[Subject]) -> int:
    print(f"bench: seed {SEED}, {args.repeats} repeats per row (median), {os.cpu_count()} CPUs", flush=True)
    rows: list[tuple[str, str, str]] = []

    def add(name: str, value: str, note: str = "") -> None:
        rows.append((name, value, note))
        print(f"  {name:<44} {value:>16}  {note}", flush=True)

    drawn: list[tuple[str, str]] = []
    for subject in benched:
        assert subject.bench is not None
        figures, go_on = subject.bench.run(args, add)
        drawn.extend(figures)
        if not go_on:
            _table(rows)
            _write_table(args.figures, rows, drawn)
            return 0
    if not args.skip_default_run:
        with progress.line("default run with and without progress"):
            d = bench_progress_cost(args.default_repeats, timeout=600.0)
        if "ratio" in d:
            samples = "; ".join(f"{side} " + ", ".join(f"{wall:.1f}" for wall in walls) for side, walls in d["samples"].items())
            add("default run on a terminal, live progress (wall s)", f"{d['progress']:.1f}", f"{d['status']}; median of {args.default_repeats}")
            add("default run on a terminal, --quiet (wall s)", f"{d['quiet']:.1f}", f"the same run without progress; {samples}")
            add("default run: with progress / without", f"{d['ratio']:.3f}x", "wall seconds; alternating order, both on a pseudo-terminal")
            cpu_samples = "; ".join(f"{side} " + ", ".join(f"{cpu:.1f}" for cpu in cpus) for side, cpus in d["cpu_samples"].items())
            median_reports = _median([float(count) for count in d["reports"]]) if d["reports"] else 0.0
            add("default run: the progress's own CPU (s)", f"{d['own_cpu']:.3f}",
                f"{d['own_share'] * 100:.2f}% of the run's CPU: the display thread plus {median_reports:,.0f} reports x "
                f"{d['send_seconds'] * 1e6:.1f} us to send; load-independent, unlike the ratios")
            add("default run: with / without, pair by pair", " ".join(f"{r:.3f}" for r in d["pair_ratios"]),
                "each pair ran back to back; their spread is the machine's noise")
            add("default run: CPU s with progress / without", f"{d['cpu_ratio']:.3f}x",
                f"{d['cpu_progress']:.1f} vs {d['cpu_quiet']:.1f} CPU s, the run's whole process tree; {cpu_samples}")
        else:
            add("default run with and without progress", "-", d["status"])
    if not args.skip_default_run and not args.only_default_run and args.review_repeats > 0:
        for mutants in (True, False):
            with progress.line("review of a one-function change" + ("" if mutants else " (--no-mutants)")):
                r = bench_review_cost(args.review_repeats, timeout=3600.0, mutants=mutants)
            if "ratio" in r:
                samples = "; ".join(f"{name} " + ", ".join(f"{wall:.1f}" for wall in walls) for name, walls in r["samples"].items())
                add(f"{r['label']} / default run (wall)", f"{r['ratio']:.2f}x",
                    f"{r['review']:.1f} vs {r['run']:.1f} s, alternating, median of {args.review_repeats}; {samples}; {r['status']}")
                add(f"{r['label']} / default run (CPU)", f"{r['cpu_ratio']:.2f}x", "the whole process trees; issue 20's goal: 2.5x wall")
            else:
                add(r.get("label", "review of a one-function change"), "-", r["status"])
    _table(rows)
    _write_table(args.figures, rows, drawn)
    return 0


def _write_table(out: Path, rows: list[tuple[str, str, str]], drawn: list[tuple[str, str]]) -> None:
    """``bench.md`` under ``out``: the table, then a link to every figure the subjects drew."""
    from properties import figures

    out.mkdir(parents=True, exist_ok=True)
    lines = [f"# bench: seed {SEED}, {figures.caption()}", "", "| measure | value | note |", "|---|---|---|"]
    lines += [f"| {name} | {value} | {note} |" for name, value, note in rows]
    lines += ["", *(f"![{title}]({name})" for name, title in drawn)]
    (out / "bench.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    for name, _title in drawn:
        print(f"figure: {out / name}")
    print(f"written: {out / 'bench.md'}")


def _table(rows: list[tuple[str, str, str]]) -> None:
    print()
    if not rows:
        print("no rows")
        return
    width = max(len(r[0]) for r in rows)
    print(f"{'measure':<{width}}  {'value':>16}  note")
    print("-" * (width + 40))
    for name, value, note in rows:
        print(f"{name:<{width}}  {value:>16}  {note}")


if __name__ == "__main__":
    sys.exit(main())
