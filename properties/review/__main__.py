"""``python -m properties.review [BASE]`` (``nox -s review -- BASE``): the review of a change; see the package.

    python -m properties.review [BASE] [--seed N] [--traces N] [--sequences N] [--scenarios N] [--receipts N] [--quick]
                                [--no-mutants] [--jobs N] [--out reports/]
    python -m properties.review --show FILE      # a saved distinguishing item, BASE beside HEAD

BASE defaults to the merge base with the branch HEAD tracks (its upstream),
else ``HEAD~1``. HEAD is the current checkout and must be clean (tracked and
untracked files; ignored ones such as ``reports/`` do not count): a dirty
tree is not a commit the review could name or BASE's worktree compare with.

Choices:

* Both verdicts run in parallel, each ``python -m properties --seed S --out
  DIR`` in its own tree (HEAD's checkout, BASE's worktree) with
  ``PYTHONPATH`` set to that tree, so each side is judged by its own
  invariants. ``--quick`` passes ``--quick`` on (coverage minimums then are
  not required): the tests of the review use it, because a default verdict
  takes about a minute alone on a quiet machine and each scenario needs two.
* The behaviour comparison (``properties.review.behaviour``) uses the same
  seed and each compared subject's bulk work as the default verdict draws it,
  each under its side's own option (``properties.review_sides``): the
  budget's 8,000 traces (``--traces``), the hook path's 10,000 sequences
  (``--sequences``), navigation's 4,000 scenarios (``--scenarios``) and the
  lookup classifier's 2,213 receipts (``--receipts``). A subject whose folder
  names no review side is listed as not compared.
* ``--no-mutants`` skips part 4's mutmut and catalogue runs (the changed
  tests still run on both sides); the review then cannot say whether a new
  survivor exists and says so.
* Part 4's mutation runs in a forked child (``properties.review.beside``)
  as soon as the changed functions are known, beside the verdicts and the
  behaviour comparison, which then run at the lowest priority so mutmut's
  one pytest process keeps a core. Its output is printed where the phase
  prints it, so the report's order on stdout does not depend on timing.

Exit status: 1 when an invariant breaks at HEAD (or HEAD's verdict fails
otherwise), a mutant of the change survives with no justified equivalence
(``mutations/equivalents.toml``) and is new (its twin at BASE, the same
mutation of the same function, did not survive BASE's tests too; see
``mutations.review.against_base``), or ``reference/`` changed without adoption;
0 otherwise, also when the behaviour changed within the promises; 2, with one
line, for a BASE that does not resolve, a dirty tree, or a bad command line.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Sequence

from properties import progress
from properties.cli import OneLineParser, UsageError, whole_number
from properties.paths import ROOT, shared_dir
from properties.review import behaviour, beside, changes, render
from properties.subject import available

def count_options() -> dict[str, tuple[str, Any]]:
    """Per compared subject: its count option's destination and its side module (``properties.review_sides``)."""
    found = {}
    for subject in behaviour.compared():
        module = behaviour.side(subject)
        found[subject] = (str(module.OPTION).lstrip("-").replace("-", "_"), module)
    return found


def parse(argv: Sequence[str]) -> argparse.Namespace:
    parser = OneLineParser(prog="python -m properties.review", description=__doc__.splitlines()[0])
    parser.add_argument("base", nargs="?", help="any commit-ish (default: merge base with the upstream, else HEAD~1)")
    parser.add_argument("--seed", type=whole_number(0, 2**32 - 1), help="the seed of both sides (default: random, printed)")
    # Each compared subject's count (--traces, --sequences, --scenarios): its side module names it.
    for _subject, (dest, module) in count_options().items():
        parser.add_argument(module.OPTION, dest=dest, type=whole_number(int(module.MINIMUM_COUNT)),
                            default=int(module.DEFAULT_COUNT), help=str(module.OPTION_HELP))
    parser.add_argument("--quick", action="store_true", help="quick verdicts on both sides (coverage not required)")
    parser.add_argument("--no-mutants", action="store_true", help="skip mutmut and the catalogue on the change")
    parser.add_argument("--no-exhaustive", action="store_true",
                        help="skip the exhaustive comparison (BASE and HEAD in one product model, searched to its fixpoint)")
    parser.add_argument("--jobs", type=whole_number(1, 64), default=2, help="mutmut and catalogue workers")
    parser.add_argument("--out", type=Path, default=ROOT / "reports", help="where review.md and review.json go")
    parser.add_argument("--database", metavar="URL", default=os.environ.get("GUARD_FUZZ_DATABASE") or None,
                        help="a fuzz fleet's example database (redis://... or a directory): its stored failures are "
                             "replayed against HEAD (default: $GUARD_FUZZ_DATABASE)")
    parser.add_argument("--quiet", action="store_true", help="no live progress on stderr")
    parser.add_argument("--show", type=Path, metavar="FILE", help="replay a saved distinguishing item, BASE beside HEAD")
    return parser.parse_args(argv)


def git(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, errors="replace")


def commit_of(name: str) -> str:
    done = git("rev-parse", "--verify", "--quiet", f"{name}^{{commit}}")
    if done.returncode != 0 or not done.stdout.strip():
        raise UsageError(f"BASE {name!r} does not resolve to a commit")
    return done.stdout.strip()


def default_base() -> str:
    """The merge base with the upstream HEAD tracks; else (or when that is HEAD itself) ``HEAD~1``."""
    upstream = git("rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{upstream}")
    if upstream.returncode == 0 and upstream.stdout.strip():
        merge = git("merge-base", "HEAD", upstream.stdout.strip())
        if merge.returncode == 0 and merge.stdout.strip() and merge.stdout.strip() != commit_of("HEAD"):
            return merge.stdout.strip()
    return "HEAD~1"


def check_clean() -> None:
    if git("rev-parse", "--is-inside-work-tree").returncode != 0:
        raise UsageError(f"{ROOT} is not a git checkout; the review compares commits")
    status = git("status", "--porcelain")
    if status.returncode != 0:
        raise UsageError(f"git status failed: {status.stderr.strip()}")
    dirty = status.stdout.splitlines()
    if dirty:
        raise UsageError(f"the tree is dirty ({len(dirty)} paths, first {dirty[0][3:]!r}); commit or stash first: "
                         "the review judges commits")


#: The budget explorer's time budget in each verdict of a review (full, quick): four times a lone run's (240 s,
#: 60 s). Choice: a review runs its two verdicts beside each other, the behaviour comparison and the mutation, so
#: each verdict has about a quarter of the cores a lone ``python -m properties`` has; measured 2026-12-06, HEAD's
#: verdict of the stricter-rule scenario stopped at the lone run's 240 s with "real limits not finished" and failed
#: the review, though its search is the lone run's (the same states and edges whenever it finishes). The budget
#: stays a bound: a search that does not end within it is still reported incomplete and fails the verdict.
REVIEW_EXPLORER_SECONDS = {False: 960, True: 240}


def properties_run(tree: Path, seed: int, out: Path, quick: bool, log: Path) -> subprocess.Popen[bytes]:
    env = _env(tree)
    command = [sys.executable, "-m", "properties", "--seed", str(seed), "--out", str(out),
               "--explorer-seconds", str(REVIEW_EXPLORER_SECONDS[quick])] + (["--quick"] if quick else [])
    return subprocess.Popen(command, cwd=tree, env=env, stdout=log.open("wb"), stderr=subprocess.STDOUT)


def fleet_replay(url: str, log: Path) -> dict[str, Any]:
    """The fuzz fleet's stored failures replayed against HEAD (``python -m properties.database``, issue 21 part 5).

    Each stored failure runs once more through HEAD's state machines: one that still fails is a broken promise
    at HEAD the fleet found, whatever the change touched; a database that cannot be read is reported, not
    skipped, because the reviewer named it."""
    done = subprocess.run([sys.executable, "-m", "properties.database", "--database", url], cwd=ROOT, env=_env(ROOT),
                          capture_output=True, text=True)
    log.write_text(done.stdout + done.stderr, encoding="utf-8")
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.startswith(("VIOLATED ", "ERROR ", "ok "))]
    problem = "" if done.returncode in (0, 1) else (done.stderr.strip().splitlines() or ["no output"])[-1]
    return {"database": url, "status": done.returncode, "lines": lines, "problem": problem}


def _env(tree: Path) -> dict[str, str]:

    env = {key: value for key, value in os.environ.items() if key != "MUTANT_UNDER_TEST"}
    env.update(PYTHONPATH=str(tree), PYTHONHASHSEED="0", GUARD_SHARED=str(shared_dir()))
    return env


def read_report(path: Path) -> dict[str, Any] | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def compare_behaviour(head: Path, base_tree: Path, work: Path, seed: int,
                      counts: dict[str, int]) -> tuple[dict[str, behaviour.Comparison], dict[str, list[Any]]]:
    """Every subject's seeded bulk work on both sides, then the comparisons (see ``properties.review.behaviour``).

    Per subject, BASE's and HEAD's sides run at once (one core each): first every item's summary, then, for the
    items whose summaries differ, their rows step by step; then the next subject. The returned items are, per
    subject, the bulk items that hold a shortest difference (None elsewhere)."""
    comparisons: dict[str, behaviour.Comparison] = {}
    kept_items: dict[str, list[Any]] = {}
    for subject, count in counts.items():
        arguments = ["--subject", subject, "--seed", str(seed), "--count", str(count)]
        summaries = both_sides(head, base_tree, work, subject, arguments, "summary")
        with summaries[0].open(encoding="utf-8") as base_lines, summaries[1].open(encoding="utf-8") as head_lines:
            comparison, differing = behaviour.compare_summaries(iter(base_lines), iter(head_lines), subject)
        if differing:
            numbers = work / f"{subject}-differing.json"
            numbers.write_text(json.dumps(differing), encoding="utf-8")
            details = both_sides(head, base_tree, work, subject, [*arguments, "--items", str(numbers)], "rows")
            with details[0].open(encoding="utf-8") as base_lines, details[1].open(encoding="utf-8") as head_lines:
                behaviour.add_details(comparison, iter(base_lines), iter(head_lines), differing)
        comparisons[subject] = comparison
        wanted = {difference.trace for difference in comparison.shortest.values()}
        found: dict[int, Any] = {}
        if wanted:
            for number, item in enumerate(behaviour.side(subject).bulk(seed, count)):
                if number in wanted:
                    found[number] = item
                if len(found) == len(wanted):
                    break
        kept_items[subject] = [found.get(number) for number in range(max(wanted) + 1)] if wanted else []
    return comparisons, kept_items


def both_sides(head: Path, base_tree: Path, work: Path, subject: str, arguments: list[str],
                what: str) -> tuple[Path, Path]:
    """Run one side per ``guard/`` (BASE's, HEAD's) at once with ``arguments``; the two output files."""
    sides = []
    for name, guard in (("base", base_tree / "guard"), ("head", head / "guard")):
        env = behaviour.side_environment(head, guard, work / f"overlay-{name}")
        env["GUARD_SHARED"] = str(shared_dir())
        output = work / f"{subject}-{what}-{name}.jsonl"
        # The working directory is the overlay: ``python -m`` puts it first on sys.path, before PYTHONPATH.
        sides.append((name, output, behaviour.start_side(env, work / f"overlay-{name}", arguments, output)))
    for name, _output, process in sides:
        _out, err = process.communicate()
        if process.returncode != 0:
            raise RuntimeError(f"the {name} side of the {subject} behaviour comparison failed: "
                               f"{err.decode(errors='replace').strip().splitlines()[-1:] or ['no output']}")
    return sides[0][1], sides[1][1]


def save_distinguishing(comparisons: dict[str, behaviour.Comparison], items: dict[str, list[Any]], base: str, head: str,
                        seed: int, folder: Path) -> list[dict[str, Any]]:
    """Per subject, one file per observable: the prefix of the item that tells BASE and HEAD apart soonest."""
    saved = []
    for subject, comparison in comparisons.items():
        module = behaviour.side(subject)
        files: dict[tuple[int, int], Path] = {}
        for name in comparison.observables:
            difference = comparison.shortest.get(name)
            if difference is None:
                continue
            item = module.prefix(items[subject][difference.trace], difference.step + 1)
            key = (difference.trace, difference.step)
            if key not in files:
                origin = f"review base={base} head={head} seed={seed} subject={subject} item={difference.trace}"
                path = folder / f"review-{subject}-{base[:8]}-{head[:8]}-s{seed}-{difference.trace}-{difference.step + 1}steps.json"
                files[key] = module.save(item, path, origin, comparison.head_limits)
            saved.append({"subject": subject, "observable": name, "trace": difference.trace,
                          "steps": difference.step + 1, "file": str(files[key]), "events": module.steps_of(item)})
    return saved


def tables(saved: list[dict[str, Any]], head: Path, base_tree: Path, work: Path) -> None:
    """Replay each saved file on both sides (as ``--show`` does) and put its short step table on it."""
    for item in saved:
        base_rows, head_rows = replay_both(item["subject"], Path(item["file"]), head, base_tree, work)
        item["table"] = behaviour.step_table(item["subject"], item["events"], base_rows, head_rows, [item["observable"]])


def replay_both(subject: str, file: Path, head: Path, base_tree: Path, work: Path) -> tuple[list[Any], list[Any]]:
    rows = []
    for name, guard in (("base", base_tree / "guard"), ("head", head / "guard")):
        env = behaviour.side_environment(head, guard, work / f"overlay-{name}")
        env["GUARD_SHARED"] = str(shared_dir())
        output = work / f"show-{name}.jsonl"
        process = behaviour.start_side(env, work / f"overlay-{name}", ["--subject", subject, "--file", str(file.resolve())],
                                       output)
        _out, err = process.communicate()
        if process.returncode != 0:
            raise UsageError(f"{file}: cannot replay on {name}: {err.decode(errors='replace').strip().splitlines()[-1:]}")
        rows.append(behaviour.read_rows(output))
    return rows[0], rows[1]


def show(file: Path) -> int:
    """``--show FILE``: BASE (named in the file's origin) beside HEAD, step by step, every observable that differs."""
    # A missing file, a folder or a FIFO is refused as every reader refuses it (properties.safe_json).
    from properties.safe_json import JsonFileError, open_regular

    try:
        os.close(open_regular(file))
    except JsonFileError as error:
        raise UsageError(str(error)) from None
    subject = behaviour.file_subject(file)
    if subject is None:
        kinds = ", ".join(f"{subject.name} ({subject.replay.schema})" for subject in available()
                          if subject.review and subject.replay is not None)
        raise UsageError(f"{file}: not a file of a compared subject: {kinds}")
    module = behaviour.side(subject)
    try:
        item, origin = module.load(file)
    except Exception as error:  # the subject's own reader names the file and field
        raise UsageError(str(error)) from None
    fields = dict(part.split("=", 1) for part in origin.split() if "=" in part)
    if not origin.startswith("review ") or "base" not in fields:
        raise UsageError(f"{file}: not a review file (its origin names no base)")
    base = commit_of(fields["base"])
    with tempfile.TemporaryDirectory(prefix="guard-review-show-") as scratch:
        work = Path(scratch)
        tree = add_worktree(base, work / "base")
        try:
            base_rows, head_rows = replay_both(subject, file, ROOT, tree, work)
        finally:
            remove_worktree(tree)
    events = module.steps_of(item)
    print(f"{file}: {origin}; BASE {base[:12]} beside HEAD ({commit_of('HEAD')[:12]}), * marks a difference")
    observables = [name for name in module.OBSERVABLES
                   if any(behaviour.value_differs(a.get(name), b.get(name)) for a, b in zip(base_rows, head_rows))
                   or len(base_rows) != len(head_rows)] or list(module.OBSERVABLES[:1])
    print("\n".join(behaviour.step_table(subject, events, base_rows, head_rows, observables, keep=len(events))))
    return 0


def start_exhaustive(tree: Path, work: Path, out: Path, base: str, head: str, seed: int) -> subprocess.Popen[bytes]:
    """The product searches (``properties.review.exhaustive``) in their own process, HEAD's checkout on the path."""
    command = [sys.executable, "-m", "properties.review.exhaustive", "--base", str(tree / "guard"), "--head",
               str(ROOT / "guard"), "--out", str(work / "exhaustive-traces"), "--json", str(out),
               "--origin", f"review base={base} head={head} seed={seed}"]
    return subprocess.Popen(command, cwd=ROOT, env=_env(ROOT), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def finish_exhaustive(process: subprocess.Popen[bytes], report: Path, folder: Path, work: Path) -> dict[str, Any]:
    """Wait for the product searches; their traces moved into ``folder`` beside the bulk ones, each with its events."""
    _out, err = process.communicate()
    data = read_report(report)
    if process.returncode != 0 or data is None:
        raise RuntimeError("the exhaustive comparison failed: "
                           f"{err.decode(errors='replace').strip().splitlines()[-1:] or ['no output']}")
    folder.mkdir(parents=True, exist_ok=True)
    traces = []
    for subject, result in data["subjects"].items():
        for item in result["traces"]:
            source = Path(item["file"])
            target = folder / source.name
            shutil.copyfile(source, target)
            module = behaviour.side(subject)
            item_read, _origin = module.load(target)
            events = module.steps_of(item_read)
            traces.append({**item, "file": str(target), "trace": "exhaustive", "events": events,
                           "descriptions": item["events"]})
    data["traces"] = traces
    return data


def guard_tree(commit: str) -> "str | None":
    """The git tree id of ``guard/`` at ``commit`` (None when it has none): equal ids are byte-identical folders,
    every file's name, mode and content."""
    done = git("rev-parse", "--verify", "--quiet", f"{commit}:guard")
    return done.stdout.strip() or None if done.returncode == 0 else None


def add_worktree(base: str, where: Path) -> Path:
    done = git("worktree", "add", "--detach", str(where), base)
    if done.returncode != 0:
        raise UsageError(f"cannot check out BASE {base[:12]} into a worktree: {done.stderr.strip().splitlines()[-1:]}")
    return where


def remove_worktree(where: Path) -> None:
    git("worktree", "remove", "--force", str(where))
    shutil.rmtree(where, ignore_errors=True)
    git("worktree", "prune")


def pin_state(head_files: dict[str, str]) -> tuple[bool, bool]:
    """(reference changed against BASE is decided elsewhere) whether HEAD's pin matches HEAD's reference/."""
    import hashlib

    from properties.pin import PIN_FILE, pinned

    actual = {path: hashlib.sha256(text.encode("utf-8")).hexdigest() for path, text in head_files.items()
              if path.startswith("reference/") and path.count("/") == 1}
    try:
        expected = pinned(PIN_FILE)
    except (OSError, ValueError):
        return False, False
    return True, expected == actual


def main(argv: Sequence[str] | None = None) -> int:
    from properties.process_group import exit_on_sigterm

    # SIGTERM (a CI job cancelled) unwinds like an exit, so BASE's worktree and the scratch folder are removed.
    exit_on_sigterm()
    try:
        args = parse(sys.argv[1:] if argv is None else argv)
        if args.show is not None:
            return show(args.show)
        check_clean()
        if args.database:
            from properties.database import DatabaseError, open_database

            try:
                open_database(args.database, reading=True)
            except DatabaseError as error:
                raise UsageError(f"--database {error}") from None
        base = commit_of(args.base if args.base is not None else default_base())
        head = commit_of("HEAD")
    except UsageError as error:
        print(f"python -m properties.review: {error}", file=sys.stderr)
        return 2
    seed = args.seed if args.seed is not None else secrets.randbelow(2**32)
    options = count_options()
    counts = {subject: getattr(args, dest) for subject, (dest, _module) in options.items()}
    print(f"review: base {base[:12]}  head {head[:12]}  seed {seed}  "
          + "  ".join(f"{options[subject][1].UNIT} {count}" for subject, count in counts.items())
          + f"{'  quick verdicts' if args.quick else ''}{'  no mutants' if args.no_mutants else ''}", flush=True)
    for subject in behaviour.not_compared():
        print(f"review: {subject} names no review side (Subject.review): its behaviour is not compared", flush=True)
    started = time.monotonic()
    timings: dict[str, float] = {}
    # CPU seconds per phase (the review's issue-20 goal is a ratio of wall times, but on two shared cores the
    # CPU each phase costs is what says where the time goes): each child's CPU counts once, when it is waited for.
    cpu: dict[str, float] = {}
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="guard-review-"))
    tree = None
    mutation: beside.Beside | None = None
    # Progress on stderr (issue 23): one line naming the phase; a verdict's and mutmut's own lines beside it.
    display = contextlib.ExitStack()
    display.enter_context(progress.shown(args.quiet, title="review"))
    display.enter_context(progress.line("review"))
    try:
        _phase("the changed rules")
        tree = add_worktree(base, work / "base")
        # Part 1.
        base_files, head_files = changes.files_at(ROOT, base), changes.files_at(ROOT, head)
        changed = changes.changed_units(base_files, head_files)
        drifted = changes.attach_entries(changed, head_files, base_files)
        reference_changed = any(c.path.startswith("reference/") for c in changed) or any(
            base_files.get(p) != head_files.get(p) for p in set(base_files) | set(head_files) if p.startswith("reference/"))
        _pin_readable, adopted = pin_state(head_files)
        # Both behaviour comparisons and the changed tests' BASE side differ from HEAD's in guard/ alone (each side
        # is HEAD's harness with that side's guard/): where guard/ is the same tree, they cannot differ, on any
        # trace, so they are not run and the report says why (a change to the harness, the tests or the docs).
        base_guard = guard_tree(base)
        same_guard = base_guard if base_guard is not None and base_guard == guard_tree(head) else None
        if same_guard is not None:
            print(f"review: guard/ is the same tree at BASE and HEAD ({same_guard[:12]}): its behaviour cannot differ; "
                  "the behaviour comparisons and the changed tests' BASE side are not run", flush=True)
        print(f"review: {len(changed)} changed units; reference/ "
              + (("changed, " + ("adopted (the pin matches)" if adopted else "NOT adopted")) if reference_changed else "unchanged"),
              flush=True)
        # Part 4's mutation starts now, in a process of its own beside everything else (``beside``): mutmut's
        # statistics and clean run are one pytest process each, a chain that would otherwise run alone at the end.
        units = {(c.path, c.name) for c in changed if c.kind != "removed" and c.path.startswith("guard/")}
        entry_ids = sorted({entry["id"] for c in changed if c.kind != "removed" for entry in c.entries
                            if entry["applies_at_head"]})
        edited = {(c.path, c.name) for c in changed if c.kind == "edited" and c.path.startswith("guard/")}
        if not args.no_mutants and (units or entry_ids):
            base_tree = tree
            mutation = beside.start(work / "beside", lambda: mutate(units, entry_ids, edited, base_tree, work, args.jobs, seed))
        # Part 3 runs in the background while parts 2 and 4's tests run.
        verdict_dirs = {"base": work / "verdict-base", "head": work / "verdict-head"}
        mark = time.monotonic()
        running = {
            "base": properties_run(tree, seed, verdict_dirs["base"], args.quick, work / "properties-base.log"),
            "head": properties_run(ROOT, seed, verdict_dirs["head"], args.quick, work / "properties-head.log"),
        }
        # Part 2, its exhaustive half: BASE's guard and HEAD's in one product model, beside the rest.
        exhaustive_json = work / "exhaustive.json"
        exhaustive_started = time.monotonic()
        exhaustive = None if args.no_exhaustive or same_guard else start_exhaustive(tree, work, exhaustive_json, base,
                                                                                        head, seed)
        # Part 2.
        _phase("behaviour side by side")
        step = time.monotonic()
        cpu_mark = _children_cpu()
        comparisons, items = ({}, {}) if same_guard else compare_behaviour(ROOT, tree, work, seed,
                                                                          {k: v for k, v in counts.items() if v})
        folder = out / "review-traces"
        if folder.is_dir():
            shutil.rmtree(folder)
        saved = save_distinguishing(comparisons, items, base, head, seed, folder)
        proofs = None
        if exhaustive is not None:
            proofs = finish_exhaustive(exhaustive, exhaustive_json, folder, work)
            timings["exhaustive comparison"] = time.monotonic() - exhaustive_started
            saved = proofs["traces"] + saved
        tables(saved, ROOT, tree, work)
        timings["behaviour"] = time.monotonic() - step
        # The exhaustive process was waited for in this window too: its own CPU is counted apart.
        exhaustive_cpu = float(proofs.get("cpu_seconds") or 0.0) if proofs is not None else 0.0
        cpu["behaviour, bulk sides and replays"] = _children_cpu() - cpu_mark - exhaustive_cpu
        if proofs is not None:
            cpu["exhaustive comparison"] = exhaustive_cpu
            for subject, result in proofs["subjects"].items():
                print(f"review: {subject} exhaustive: " + "; ".join(
                    f"{row['scope']} " + (f"differs in {', '.join(row['differs'])}" if row["differs"] else
                                          "equal to the fixpoint" if row["complete"] else f"cut short ({row['cut']})")
                    + f" ({row['states']:,} pairs)" for row in result["scopes"]), flush=True)
        for comparison in comparisons.values():
            print(f"review: {comparison.subject} behaviour {'CHANGED' if comparison.changed else 'unchanged'} on the bulk "
                  f"{comparison.unit}: {comparison.traces_differing:,} of {comparison.traces:,} {comparison.unit}, "
                  f"{comparison.steps_differing:,} of {comparison.steps:,} steps differ", flush=True)
        print(f"review: behaviour compared in {timings['behaviour']:.1f} s", flush=True)
        # Part 4: the change's own tests on both sides.
        from mutations import review as mutation_review

        _phase("the change's tests on both sides")
        step = time.monotonic()
        cpu_mark = _children_cpu()
        test_files, changed_test_names = changes.changed_tests(ROOT, base)
        sides = mutation_review.TestSides(test_files, changed_test_names) if same_guard else \
            mutation_review.tests_on_both(ROOT, tree, test_files, changed_test_names, work / "tests")
        timings["changed tests"] = time.monotonic() - step
        cpu["changed tests"] = _children_cpu() - cpu_mark
        print(f"review: {len(test_files)} changed test files; {len(sides.fail_on_base)} tests fail on BASE's guard, "
              f"{len(sides.pass_on_both)} pass on both ({timings['changed tests']:.1f} s)", flush=True)
        _phase("both verdicts")
        verdicts = {}
        cpu_mark = _children_cpu()
        for name, process in running.items():
            process.wait()
            verdicts[name] = read_report(verdict_dirs[name] / "properties.json")
        cpu["verdicts (BASE and HEAD)"] = _children_cpu() - cpu_mark
        # Both verdicts ran side by side from ``mark``; the behaviour comparison and the changed tests ran beside them.
        timings["verdicts (BASE and HEAD in parallel)"] = time.monotonic() - mark
        head_log = (work / "properties-head.log").read_text(encoding="utf-8", errors="replace")
        print(f"review: verdicts BASE {_ok(verdicts['base'])}  HEAD {_ok(verdicts['head'])}", flush=True)
        fleet = None
        if args.database:
            step = time.monotonic()
            fleet = fleet_replay(args.database, work / "fleet.log")
            timings["fleet replay"] = time.monotonic() - step
            print("review: the fleet's stored failures at HEAD: "
                  + ("; ".join(fleet["lines"]) or fleet["problem"] or "none stored"), flush=True)
        # Part 4: mutation of the change (started after part 1, beside the rest: ``mutate``).
        mutmut_result = catalogue_result = None
        twins = None
        mutation_note = ""
        copy = None
        if args.no_mutants:
            mutation_note = "not run (--no-mutants): new survivors unknown"
        elif mutation is not None:
            _phase("mutation of the change")
            cpu_mark = _children_cpu()
            try:
                found = mutation.finish()
            finally:
                # mutmut's lines, where this phase has always printed them.
                sys.stdout.write(mutation.output)
                sys.stdout.flush()
            mutmut_result, catalogue_result, copy, twins = found["mutmut"], found["catalogue"], found["copy"], found["twins"]
            # Wall seconds from the child's own clock (it ran beside the verdicts, so they overlap theirs); CPU
            # seconds are the child's whole tree, of which the BASE twins' share is shown apart.
            timings.update(found["timings"])
            cpu["mutation"] = _children_cpu() - cpu_mark - sum(found["cpu"].values())
            cpu.update(found["cpu"])
        _phase("the report")
        data = render.build(
            base=base, head=head, seed=seed, quick=args.quick, changed=changed, drifted=drifted,
            reference_changed=reference_changed, adopted=adopted, comparisons=comparisons, saved=saved, verdicts=verdicts,
            head_log=head_log, sides=sides, mutmut=mutmut_result, catalogue=catalogue_result, mutation_note=mutation_note,
            timings=timings, cpu={**cpu, "the review's own process": time.process_time()},
            wall=time.monotonic() - started, counts=counts, fleet=fleet, proofs=proofs, twins=twins,
            same_guard=same_guard,
        )
        stryker = None
        if copy is not None:
            from mutations import equivalents as listed, report as mutation_report

            stryker = mutation_report.stryker(copy, mutmut_result, catalogue_result, None, listed.load(),
                                              {"review": {"base": base, "head": head, "seed": seed}})
        written = render.write(data, out, stryker)
        print("\n".join(data["summary"]))
        print("written: " + " ".join(str(path) for path in written))
        return 1 if data["failures"] else 0
    except UsageError as error:
        print(f"python -m properties.review: {error}", file=sys.stderr)
        return 2
    finally:
        if mutation is not None:
            mutation.stop()
        display.close()
        if tree is not None:
            remove_worktree(tree)
        shutil.rmtree(work, ignore_errors=True)


def mutate(units: set[tuple[str, str]], entry_ids: list[str], edited: set[tuple[str, str]], base_tree: Path, work: Path,
           jobs: int, seed: int) -> dict[str, Any]:
    """Part 4's mutation (``beside``'s job, in its child): mutmut on the changed units and the catalogue entries
    in them on a scratch copy of HEAD, then the BASE twins of the survivors in edited functions.

    Returns the results, their wall seconds per step (mutmut's own phases among them) and CPU seconds (this
    process's waited children)."""
    from mutations import review as mutation_review

    timings: dict[str, float] = {}
    cpu: dict[str, float] = {}
    step = time.monotonic()
    mutmut_result, catalogue_result, copy = mutation_review.mutate_changed(ROOT, units, entry_ids, work / "mutations",
                                                                           jobs, seed)
    timings["mutation"] = time.monotonic() - step
    # mutmut's own phases (its statistics over the suite, the clean run, the mutants), as it titles them.
    # Only after a run that worked: a failed run's spinner titles stop early, and its phases would mislead.
    for name, seconds in (mutmut_result.phases if mutmut_result is not None and mutmut_result.run_ok else {}).items():
        timings[f"mutation: mutmut {name}"] = seconds
    # A survivor in a function BASE had too is matched with the same mutation at BASE and judged by
    # BASE's tests; new code has no twin, so its survivors are new without asking BASE.
    # Only a run that worked has survivors: after a failed one (a red suite at HEAD) nothing was tested.
    asked = [] if mutmut_result is None or not mutmut_result.run_ok else [
        mutant for mutant in mutmut_result.mutants
        if mutation_review.survived(mutant.status) and mutation_review.unit_of_mutant(mutant.name) in edited]
    twins = None
    if asked:
        cpu_mark = _children_cpu()
        twins = mutation_review.against_base(base_tree, asked, work / "mutations", jobs)
        timings["survivors at BASE"] = twins.seconds
        cpu["survivors at BASE"] = _children_cpu() - cpu_mark
        print(f"review: {len(asked)} survivors in edited functions; "
              f"{sum(twins.carried(m.name) for m in asked)} survived at BASE too"
              + (f" ({twins.problem})" if twins.problem else ""), flush=True)
    return {"mutmut": mutmut_result, "catalogue": catalogue_result, "copy": copy, "twins": twins, "timings": timings,
            "cpu": cpu}


#: The review's phases, as its live progress line names them (issue 23): the label's line says which one runs.
PHASES = ("the changed rules", "behaviour side by side", "the change's tests on both sides", "both verdicts",
          "mutation of the change", "the report")


def _phase(name: str) -> None:
    """Show ``name`` on the review's progress line (nothing without a display)."""
    progress.update("review", done=PHASES.index(name), total=len(PHASES), unit="phases done", phase=name, force=True)


def _children_cpu() -> float:
    """CPU seconds of every child process this one has waited for so far (their own waited children included)."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _ok(report: dict[str, Any] | None) -> str:
    return "missing" if report is None else "PASS" if report.get("ok") else "FAIL"


if __name__ == "__main__":
    sys.exit(main())
