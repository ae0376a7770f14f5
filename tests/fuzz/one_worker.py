"""One subject's state machine run for a bounded time, by one HypoFuzz worker's loop or by plain Hypothesis.

Not a test module: ``throughput.py``, ``time_to_failure.py`` and
``test_fuzz_feedback.py`` run it, in a subprocess per run so that each run
starts from a fresh interpreter (no tally, cache or patch left by another)::

    python tests/fuzz/one_worker.py MODE SUBJECT --seconds S --seed N [--steps 50]

``MODE``:

* ``fuzz``: what a ``hypothesis fuzz`` worker does with one target (HypoFuzz's
  own ``FuzzTarget.run_one`` in a loop), with ``properties.hypofuzz_fixes``
  installed, against an in-memory example database;
* ``fuzz-project-coverage``: ``fuzz`` with coverage of the whole project
  (``guard/``, ``reference/`` and the harness, ``properties/``) instead of the
  code under test alone (``properties.hypofuzz_fixes.COVERAGE_SCOPES``);
* ``fuzz-unfixed``: the same without the workarounds (HypoFuzz as pinned);
* ``fuzz-hypofuzz-coverage``: the workarounds except the scoped coverage
  (HypoFuzz's own collector), to price the coverage collection;
* ``fuzz-no-coverage``: the workarounds with a collector that records
  nothing, so the rest of HypoFuzz's cost shows alone;
* ``plain``: plain Hypothesis (``run_state_machine_as_test``, generate phase
  only, no database), the way the verdict's stateful driver runs a machine.

Both run the machine the fuzz targets run (``properties.fuzz.machines()``)
with the same step count, start timing at the first example (start-up and
HypoFuzz's hub are left out), stop at the first failing example or at the
bound, and print one JSON line: examples run, seconds, examples per second,
the time the first failure finished (or null) and its invariant, and, for the
fuzz modes, HypoFuzz's own behaviour, fingerprint and corpus counts and how
many of its stability replays matched. HypoFuzz's and Hypothesis's random
generators are seeded with ``--seed``; HypoFuzz still makes a few choices by
elapsed time (when to save a report or an observation), so a fuzz run is not
exactly repeatable.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path
from typing import Any

MODES = ("fuzz", "fuzz-project-coverage", "fuzz-unfixed", "fuzz-hypofuzz-coverage", "fuzz-no-coverage", "plain")
_INVARIANT = re.compile(r"VIOLATED ([A-Z]+\d+)\b")


class TimeUp(KeyboardInterrupt):
    """Raised as an example starts once the bound has passed.

    A ``KeyboardInterrupt``: the one exception Hypothesis lets through untouched
    (any other is a failure or, raised before any draw, a flaky generation).
    """


class NoCoverage:
    """HypoFuzz's collector interface, recording nothing."""

    branches: frozenset = frozenset()

    def __enter__(self) -> "NoCoverage":
        return self

    def __exit__(self, *exc: object) -> None:
        return None


class Unshrunk:
    """HypoFuzz's shrinker interface, keeping the failing example as it was found."""

    def __init__(self, initial: Any) -> None:
        self.shrink_target = initial

    def shrink(self) -> None:
        return None


def machine_for(subject: str) -> type:
    from properties import fuzz

    machines = fuzz.machines()
    if subject not in machines:
        raise SystemExit(f"one_worker: no state machine for subject {subject!r}; choose from {', '.join(machines)}")
    return machines[subject]


def run_plain(machine: type, seconds: float, seed: int, steps: int) -> dict[str, Any]:
    from hypothesis import HealthCheck, Phase, settings
    from hypothesis import seed as hypothesis_seed
    from hypothesis.stateful import run_state_machine_as_test

    started = time.perf_counter()
    count = 0
    original = machine.__init__

    def counted_init(self: Any) -> None:
        nonlocal count
        if time.perf_counter() - started >= seconds:
            raise TimeUp()
        count += 1
        original(self)

    bounded = type(machine.__name__, (machine,), {"__init__": counted_init})
    hypothesis_seed(seed)(bounded)
    chosen = settings(max_examples=10**9, stateful_step_count=steps, database=None, deadline=None, print_blob=False,
                      phases=[Phase.generate], suppress_health_check=list(HealthCheck))
    failure, invariant = None, None
    try:
        run_state_machine_as_test(bounded, settings=chosen)
    except TimeUp:
        pass
    except AssertionError as error:
        failure = time.perf_counter() - started
        found = _INVARIANT.search("\n".join([str(error), *getattr(error, "__notes__", ())]))
        invariant = found.group(1) if found else "?"
    elapsed = time.perf_counter() - started
    # The bound is checked as an example starts, so every counted example ran to its end (or failed).
    return {"examples": count, "seconds": elapsed,
            "first_failure": failure, "invariant": invariant}


def run_fuzz(machine: type, seconds: float, seed: int, steps: int, mode: str) -> dict[str, Any]:
    from hypothesis import HealthCheck, settings
    from hypothesis.database import InMemoryExampleDatabase
    from hypothesis.internal.conjecture.data import Status
    from hypothesis.internal.reflection import function_digest
    from hypothesis.stateful import get_state_machine_test

    from hypofuzz import detection
    from hypofuzz import hypofuzz as engine
    from hypofuzz.database import HypofuzzDatabase
    from hypofuzz.provider import QueuePriority
    from properties import hypofuzz_fixes

    detection._in_hypofuzz_run = True
    if mode != "fuzz-unfixed":
        hypofuzz_fixes.check_versions()
        hypofuzz_fixes.alias_slice_comments()
        hypofuzz_fixes.align_forced_draws()
        if mode in ("fuzz", "fuzz-project-coverage"):
            hypofuzz_fixes.scope_coverage()
    # The time to failure is what is measured, not HypoFuzz's shrinking after it (its shrink timeout counts only
    # the time of examples that report to the provider, which shrinking ones do not): the "shrinker" keeps the
    # failure as found.
    engine.get_shrinker = lambda function, *, initial, predicate, random, explain=False: Unshrunk(initial)
    database = InMemoryExampleDatabase()
    settings.register_profile("one-worker", database=database, deadline=None,
                              suppress_health_check=[c for c in HealthCheck if c is not HealthCheck.nested_given])
    settings.load_profile("one-worker")
    test = get_state_machine_test(machine, settings=settings(settings.default, stateful_step_count=steps))
    inner = test.hypothesis.inner_test
    target = engine.FuzzTarget(test_fn=inner, extra_kwargs={}, database=HypofuzzDatabase(database),
                               database_key=function_digest(inner), wrapped_test=test, pytest_item=None)
    if mode == "fuzz-no-coverage":
        target.provider.collector = NoCoverage()
    if mode == "fuzz-project-coverage":
        target.provider.collector = hypofuzz_fixes.project_collector(hypofuzz_fixes.coverage_prefixes("project"))
    target.random.seed(seed)
    target.provider.random.seed(seed)
    provider = target.provider
    tally = {"examples": 0, "stable": 0, "unstable": 0}
    failure: dict[str, Any] = {}
    started = time.perf_counter()
    observe = provider.after_test_case

    def after_test_case(observation: Any) -> None:
        state = provider._state
        if state is not None and state.priority is QueuePriority.STABILITY:
            from hypofuzz.provider import bucket_features

            same = (state.branches | bucket_features(observation.features)) == state.extra_queue_data["behaviors"]
            tally["stable" if same else "unstable"] += 1
        tally["examples"] += 1
        if observation.metadata.data_status is Status.INTERESTING and not failure:
            failure["seconds"] = time.perf_counter() - started
            found = _INVARIANT.search(str(observation.metadata.traceback or ""))
            failure["invariant"] = found.group(1) if found else "?"
        observe(observation)

    provider.after_test_case = after_test_case
    target._enter_fixtures()
    while time.perf_counter() - started < seconds and not failure:
        target.run_one()
    elapsed = time.perf_counter() - started
    corpus = provider.corpus
    return {"examples": tally["examples"], "seconds": elapsed, "first_failure": failure.get("seconds"),
            "invariant": failure.get("invariant"), "behaviours": len(corpus.behavior_counts) if corpus else 0,
            "fingerprints": len(corpus.fingerprints) if corpus else 0, "corpus": len(corpus.corpus) if corpus else 0,
            "stable_replays": tally["stable"], "unstable_replays": tally["unstable"]}


def main(argv: "list[str] | None" = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=MODES)
    parser.add_argument("subject")
    parser.add_argument("--seconds", type=float, required=True)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--steps", type=int, default=50)
    args = parser.parse_args(argv)
    machine = machine_for(args.subject)
    if args.mode == "plain":
        outcome = run_plain(machine, args.seconds, args.seed, args.steps)
    else:
        outcome = run_fuzz(machine, args.seconds, args.seed, args.steps, args.mode)
    outcome.update(mode=args.mode, subject=args.subject, seed=args.seed, steps=args.steps,
                   per_second=outcome["examples"] / outcome["seconds"] if outcome["seconds"] else 0.0)
    print(json.dumps(outcome), flush=True)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    sys.exit(main())
