"""``python -m mutations``: mutmut over guard/, the rule catalogue and the red check, with one report.

Exit 0 only when every mutmut mutant is killed or a listed equivalent, every
catalogue entry is killed as its level requires, and both red-check copies
fail at least one test. Exit 1 otherwise, with the reasons and the offending
diffs printed; exit 2 for a usage error (one line).
"""

from __future__ import annotations

import argparse
import sys
import time

from properties.cli import OneLineParser, UsageError, whole_number
from properties.paths import ROOT

DEFAULT_SEED = 20261130
REPORTS = ROOT / "reports"


_positive = whole_number(1, 64)
_seed = whole_number(0, 2**32 - 1)


def parse(argv: list[str]) -> argparse.Namespace:
    parser = OneLineParser(prog="python -m mutations", description=__doc__.splitlines()[0])
    only = parser.add_mutually_exclusive_group()
    only.add_argument("--only-catalogue", action="store_true", help="skip mutmut; run the rule catalogue and the red check")
    only.add_argument("--only-mutmut", action="store_true", help="run mutmut only (no catalogue, no red check)")
    parser.add_argument("--no-cache", action="store_true",
                        help="re-run every catalogue entry (by default a kill is reused while the entry, the function "
                             "it mutates and every test, property and reference source are unchanged)")
    parser.add_argument("--cold", action="store_true",
                        help="judge every catalogue entry on its own scratch copy in fresh interpreters (no warm forks)")
    parser.add_argument("--jobs", type=_positive, default=2, metavar="N",
                        help="mutmut --max-children and catalogue workers (default 2)")
    parser.add_argument("--quiet", action="store_true",
                        help="no live progress on stderr (each layer's count against its total)")
    parser.add_argument("--seed", type=_seed, default=DEFAULT_SEED, metavar="N",
                        help=f"seed passed to the property drivers (default {DEFAULT_SEED}); printed")
    # Issue 24: the verdict's own mutation score (mutations/verdict_alone.py); no other layer runs.
    alone = parser.add_argument_group("--verdict-alone")
    alone.add_argument("--verdict-alone", action="store_true",
                       help="judge mutmut's mutants of guard/ with the property verdict only (a seeded sample)")
    from mutations import verdict_alone

    verdict_alone.add_options(alone)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    try:
        args = parse(sys.argv[1:] if argv is None else argv)
    except UsageError as error:
        sys.stderr.write(f"python -m mutations: {error}\n")
        return 2
    if args.verdict_alone or args.all or args.sample or args.properties_from or args.record_before or args.module:
        return _verdict_alone(args)
    from mutations import catalogue, entry, equivalents, mutmut_layer, pytest_plugin

    try:
        listed = equivalents.load()
        pytest_plugin.left_out()
        entries = catalogue.entries()
        if not args.only_catalogue:
            mutmut_layer.check_mutmut()
    except (equivalents.EquivalentsError, entry.CatalogueError, mutmut_layer.MutmutSetupError,
            pytest_plugin.LeftOutError) as error:
        sys.stderr.write(f"python -m mutations: {error}\n")
        return 2

    print(f"mutations: seed {args.seed}, jobs {args.jobs}, root {ROOT}", flush=True)
    from properties import progress

    # Each layer's line counts its mutants or entries against the total (properties/progress.py); stderr only.
    with progress.shown(args.quiet, title="mutations"):
        return _run_layers(args, listed, entries)


def _verdict_alone(args: argparse.Namespace) -> int:
    from mutations import verdict_alone

    if not args.verdict_alone:
        sys.stderr.write("python -m mutations: --all, --sample, --module, --properties-from and --record-before need --verdict-alone\n")
        return 2
    if args.record_before and not args.properties_from:
        sys.stderr.write("python -m mutations: --record-before needs --properties-from REV\n")
        return 2
    sample = None if args.all else (args.sample or verdict_alone.DEFAULT_SAMPLE)
    print(f"mutations --verdict-alone: seed {args.seed}, jobs {args.jobs}, root {ROOT}", flush=True)
    from properties import progress

    with progress.shown(args.quiet, title="verdict alone"):
        return verdict_alone.main(ROOT, REPORTS, seed=args.seed, sample=sample, jobs=args.jobs,
                                  properties_from=args.properties_from, record=args.record_before,
                                  modules=args.module)


def _run_layers(args: argparse.Namespace, listed: list, entries: tuple) -> int:
    from mutations import catalogue_runner, mutmut_layer, red_check, report
    from properties import progress

    started = time.monotonic()
    REPORTS.mkdir(exist_ok=True)
    mutmut = catalogue_result = red = None
    durations = ROOT / "mutants" / "mutmut-stats.json"
    layers: dict[str, float] = {}
    red_future = None
    if not args.only_mutmut:
        # The red check needs nothing the other layers make (it runs without -x, so no timings, in copies of
        # its own): it runs alongside them from the start, filling the core mutmut's one-process phases
        # (stats, clean run) and the catalogue's baselines leave idle.
        from concurrent.futures import ThreadPoolExecutor

        def red_layer() -> tuple[list, float]:
            mark = time.monotonic()
            with progress.line("red check"):
                progress.update("red check", phase="the new tests against the earlier behaviour", force=True)
                found = red_check.run(ROOT, args.jobs, None,
                                      cache=None if args.no_cache else ROOT / "mutants" / "red-check-cache.json")
            return found, time.monotonic() - mark

        red_pool = ThreadPoolExecutor(max_workers=1)
        red_future = red_pool.submit(red_layer)
        print("== red check: the new tests against the earlier behaviour (started; runs alongside the layers)", flush=True)
    if not args.only_catalogue:
        print("== layer 1: mutmut run over guard/", flush=True)
        with progress.line(mutmut_layer.LABEL):
            mutmut = mutmut_layer.run(ROOT, args.jobs, listed, REPORTS)
        layers.update({f"mutmut: {name}": seconds for name, seconds in mutmut.phases.items()})
        layers["mutmut (all)"] = time.monotonic() - started
    if not args.only_mutmut:
        print(f"== layer 2: rule catalogue ({len(entries)} entries, {args.jobs} workers)", flush=True)
        cache = None if args.no_cache else ROOT / "mutants" / "catalogue-cache.json"
        mark = time.monotonic()
        with progress.line(catalogue_runner.LABEL):
            catalogue_result = catalogue_runner.run(ROOT, entries, args.jobs, args.seed, durations, cache=cache,
                                                    use_warm=not args.cold)
        layers["catalogue"] = time.monotonic() - mark
    if red_future is not None:
        red, layers["red check (alongside)"] = red_future.result()
        red_pool.shutdown()
        print("== red check: done", flush=True)
    wall = time.monotonic() - started
    layers["total"] = wall

    failures: list[str] = []
    if mutmut is not None:
        failures += mutmut.failures
    if catalogue_result is not None:
        failures += catalogue_result.failures
    if red is not None:
        failures += red_check.failures(red)
    meta = {"seed": args.seed, "jobs": args.jobs, "wallSeconds": round(wall, 1), "verdict": "FAIL" if failures else "PASS",
            "layerSeconds": {name: round(seconds, 1) for name, seconds in layers.items()},
            "layers": [name for name, ran in (("mutmut", mutmut), ("catalogue", catalogue_result), ("red-check", red)) if ran is not None]}
    if mutmut is not None:
        meta["mutmut"] = {"wallSeconds": round(mutmut.wall_seconds, 1), "testedThisRun": mutmut.tested_this_run,
                          "mutmutRate": mutmut.mutmut_rate, "runOk": mutmut.run_ok, "runMessage": mutmut.run_message,
                          "testsLeftOut": mutmut.left_out_tests}
    if catalogue_result is not None:
        meta["catalogue"] = {"wallSeconds": round(catalogue_result.wall_seconds, 1), "baseline": catalogue_result.baseline,
                             "propertiesAvailable": catalogue_result.properties_available}
    data = report.stryker(ROOT, mutmut, catalogue_result, red, listed, meta)
    text = report.markdown(mutmut, catalogue_result, red, meta, failures)
    report.write(REPORTS, data, text)

    _print_summary(mutmut, catalogue_result, red, failures, wall)
    print("time per layer (wall s): " + ", ".join(f"{name} {seconds:.1f}" for name, seconds in layers.items()))
    print(f"reports: {REPORTS / 'mutants.md'}, mutants.json, mutants.html")
    return 1 if failures else 0


def _print_summary(mutmut, catalogue_result, red, failures: list[str], wall: float) -> None:
    from mutations import mutmut_layer

    print()
    if mutmut is not None:
        for mutant in mutmut.offenders:
            print(mutmut_layer.show(mutant))
            if mutant.problem:
                print(f"# {mutant.problem}")
            print()
        killed = mutmut.count(mutmut_layer.KILLED) + mutmut.count(mutmut_layer.TYPE_CHECK)
        rate = len(mutmut.mutants) / mutmut.wall_seconds if mutmut.wall_seconds else 0.0
        print(f"mutmut: {len(mutmut.mutants)} mutants: {killed} killed, {mutmut.count(mutmut_layer.SURVIVED)} survived, "
              f"{mutmut.count(mutmut_layer.EQUIVALENT)} equivalent, {mutmut.count(mutmut_layer.TIMEOUT)} timeout, "
              f"{mutmut.count(mutmut_layer.NO_TESTS)} no tests, "
              f"{mutmut.count(mutmut_layer.SUSPICIOUS) + mutmut.count(mutmut_layer.SEGFAULT)} suspicious, "
              f"{mutmut.count(mutmut_layer.NOT_CHECKED) + mutmut.count(mutmut_layer.INTERRUPTED)} not checked; "
              f"score {mutmut.score:.1f}%")
        print(f"mutmut: {mutmut.wall_seconds:.1f}s wall, {mutmut.tested_this_run} tested this run, "
              f"{rate:.2f} mutants/s overall (mutmut: {mutmut.mutmut_rate or '?'} mutations/s)")
    if catalogue_result is not None:
        from mutations.catalogue_runner import KILLED

        print(f"catalogue: {catalogue_result.count(KILLED)}/{len(catalogue_result.entries)} killed, baseline "
              f"{catalogue_result.baseline}, {catalogue_result.wall_seconds:.1f}s wall")
    if red is not None:
        for variant in red:
            print(f"red check {variant.name}: {variant.verdict()} ({variant.summary})")
    if failures:
        print(f"FAIL ({len(failures)} reasons):")
        for reason in failures[:60]:
            print(f"  - {reason}")
        if len(failures) > 60:
            print(f"  - ... and {len(failures) - 60} more (reports/mutants.md)")
    else:
        print("PASS: every mutant killed or a justified equivalent; every catalogue entry killed; the red check is red.")
    print(f"total wall time {wall:.1f}s")


if __name__ == "__main__":
    try:
        raise SystemExit(main())
    except KeyboardInterrupt:
        sys.stderr.write("python -m mutations: interrupted; mutants/ keeps every verdict reached so far\n")
        raise SystemExit(130) from None
