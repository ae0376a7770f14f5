"""Throughput of the lookup classifier (seed 000) over a fixed, seeded mix of receipts.

``bench_lookup(seconds)`` builds the same mix every time (half accepted
chains, half hostile receipts, from ``properties.lookup.generate``), then runs
several timed repeats of about ``seconds / REPEATS`` each, cycling through the
mix, and reports the median commands per second. Building the mix is not
timed. ``python -m properties.lookup.bench [SECONDS]`` prints the result.
"""

from __future__ import annotations

import math
import statistics
import sys
import time
from typing import Any

from guard.lookup import lookup_found_nothing
from properties.lookup.generate import bench_mix

SEED = 60_000
MIX_SIZE = 2_000
REPEATS = 5


def bench_lookup(seconds: float) -> dict[str, Any]:
    """Median classifier calls per second over REPEATS timed repeats sharing ``seconds``."""
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not math.isfinite(seconds) or seconds <= 0:
        raise ValueError(f"bench_lookup: seconds: expected a positive number, got {seconds!r}")
    mix = bench_mix(SEED, MIX_SIZE)
    verdicts = [lookup_found_nothing(*receipt) for receipt in mix]
    rates = [timed_repeat(mix, seconds / REPEATS) for _ in range(REPEATS)]
    return {
        "commands_per_second": statistics.median(rates),
        "rates": rates,
        "repeats": REPEATS,
        "seconds": seconds,
        "seed": SEED,
        "mix_size": len(mix),
        "accepted": sum(verdicts),
        "rejected": len(verdicts) - sum(verdicts),
    }


def timed_repeat(mix: list[tuple[Any, Any, Any]], budget: float) -> float:
    calls = 0
    start = time.perf_counter()
    deadline = start + budget
    while True:
        for command, exit_code, output in mix:
            lookup_found_nothing(command, exit_code, output)
        calls += len(mix)
        now = time.perf_counter()
        if now >= deadline:
            return calls / (now - start)


def main(argv: list[str]) -> int:
    try:
        seconds = float(argv[0]) if argv else 2.0
        result = bench_lookup(seconds)
    except ValueError as error:
        print(f"lookup_bench: {error}", file=sys.stderr)
        return 2
    print(
        f"lookup classifier: {result['commands_per_second']:,.0f} commands/s (median of {result['repeats']}, "
        f"seed {result['seed']}, mix {result['mix_size']}: {result['accepted']} accepted, "
        f"{result['rejected']} rejected)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))


#: Seconds ``nox -s bench`` gives the classifier's row (shared by its timed repeats).
BENCH_SECONDS = 5.0


def run(_args: Any, add: Any) -> tuple[list[tuple[str, str]], bool]:
    """The subject's row of ``nox -s bench`` (``properties.subject.Bench``): classifier calls per second."""
    result = bench_lookup(BENCH_SECONDS)
    add("lookup classifier (commands/s)", f"{result['commands_per_second']:,.0f}",
        f"median of {result['repeats']} repeats over {result['mix_size']:,} receipts (seed {result['seed']})")
    return [], True
