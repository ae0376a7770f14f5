"""The navigation subject's rows of ``nox -s bench``: what judging a scenario costs over running it once.

Both rows play the same seeded scenarios (``properties.navigation.generate``,
``random.Random(SEED)``), drawn before the clock starts:

* checked: the bulk driver's work per scenario (``Monitor.step``: the
  production and the reference version each run on fresh fakes, every N
  invariant through the one judge, coverage counted);
* bare: the production version alone (``scenario.run``), nothing judged.

Timed in CPU seconds of this process (``time.process_time``): the work is
single-threaded, and on a machine shared with other work CPU seconds move far
less with the load than wall seconds. Medians of ``REPEATS``; ``python -m properties.navigation.bench`` prints the
rows alone.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from typing import Any, Callable

from properties.catalogue import Tally
from properties.subject import print_rows
from properties.navigation.generate import random_scenario
from properties.navigation.monitor import new_monitor
from properties.navigation.scenario import run as play

SEED = 80_000
SCENARIOS = 800
REPEATS = 3


def bench_navigation(count: int = SCENARIOS, repeats: int = REPEATS) -> dict[str, Any]:
    """Scenarios per second, checked and bare (medians of ``repeats``), over one seeded batch."""
    rng = random.Random(SEED)
    batch = [random_scenario(rng, name=f"bench-{index}") for index in range(count)]
    checked, bare = [], []
    for _ in range(repeats):
        tally = Tally()
        monitor = new_monitor(tally)
        began = time.process_time()
        for scenario in batch:
            monitor.step(scenario)
        checked.append(time.process_time() - began)
        began = time.process_time()
        for scenario in batch:
            play(scenario, "production")
        bare.append(time.process_time() - began)
    checked_s, bare_s = statistics.median(checked), statistics.median(bare)
    return {"scenarios": count, "checked_per_second": count / checked_s, "bare_per_second": count / bare_s,
            "ratio": checked_s / bare_s, "repeats": repeats, "seed": SEED,
            # What the checked rows measured, counted rather than timed: the scenarios the last repeat judged.
            "judged": tally.steps}


def run(_args: Any, add: Callable[[str, str, str], None]) -> tuple[list[tuple[str, str]], bool]:
    """The subject's rows (``properties.subject.Bench``)."""
    result = bench_navigation()
    note = f"{result['scenarios']:,} scenarios, seed {result['seed']}, median of {result['repeats']}"
    add("navigation bulk: scenarios/s checked", f"{result['checked_per_second']:,.0f}", note)
    add("navigation bulk: scenarios/s, production alone", f"{result['bare_per_second']:,.0f}", "one version, nothing judged")
    add("navigation bulk: checked / bare", f"{result['ratio']:.2f}x", "both versions run, and the N catalogue, per scenario")
    return [], True


def main() -> int:
    return print_rows(run)


if __name__ == "__main__":
    sys.exit(main())
