"""The hook subject's rows of ``nox -s bench``: what checking costs over delivering alone.

Both rows run the same seeded sequences (``properties.hooks.generate``, seed
``SEED``), drawn before the clock starts:

* checked: ``HookMonitor.check``, the bulk driver's work per sequence (the
  guard stepped hook by hook, the earlier-behaviour views, every H invariant
  through the one judge, coverage counted);
* bare: a fresh guard per sequence and every event delivered to it
  (``deliver``), nothing judged: what the guard itself costs.

Their ratio is what the catalogue costs per event; a change that makes
judging slower shows there first.

Timed in CPU seconds of this process (``time.process_time``): the work is
single-threaded, and on a machine shared with other work CPU seconds move far
less with the load than wall seconds. Medians of ``REPEATS``; ``python -m
properties.hooks.bench`` prints the rows alone.
"""

from __future__ import annotations

import statistics
import sys
import time
from typing import Any, Callable

from properties.catalogue import Tally
from properties.subject import print_rows
from properties.hooks.deliver import deliver, make_guard
from properties.hooks.generate import sequences
from properties.hooks.monitor import new_monitor

SEED = 70_000
SEQUENCES = 1_000
REPEATS = 3


def bench_hooks(count: int = SEQUENCES, repeats: int = REPEATS) -> dict[str, Any]:
    """Sequences and events per second, checked and bare (medians of ``repeats``), over one seeded batch."""
    batch = list(sequences(SEED, 0, count))
    events = sum(len(sequence.events) for sequence in batch)
    checked, bare = [], []
    for _ in range(repeats):
        tally = Tally()
        monitor = new_monitor(tally)
        began = time.process_time()
        for sequence in batch:
            monitor.check(sequence)
        checked.append(time.process_time() - began)
        began = time.process_time()
        for sequence in batch:
            guard = make_guard(sequence)
            for event in sequence.events:
                deliver(guard, event)
        bare.append(time.process_time() - began)
    checked_s, bare_s = statistics.median(checked), statistics.median(bare)
    return {"sequences": count, "events": events, "checked_seconds": checked_s, "bare_seconds": bare_s,
            "checked_per_second": count / checked_s, "bare_events_per_second": events / bare_s,
            "checked_events_per_second": events / checked_s, "ratio": checked_s / bare_s, "repeats": repeats, "seed": SEED,
            # What the checked rows measured, counted rather than timed: the steps the last repeat judged.
            "judged": tally.steps}


def run(_args: Any, add: Callable[[str, str, str], None]) -> tuple[list[tuple[str, str]], bool]:
    """The subject's rows (``properties.subject.Bench``)."""
    result = bench_hooks()
    note = f"{result['sequences']:,} sequences, {result['events']:,} events, seed {result['seed']}, median of {result['repeats']}"
    add("hooks bulk: sequences/s checked", f"{result['checked_per_second']:,.0f}", note)
    add("hooks bulk: events/s delivered bare", f"{result['bare_events_per_second']:,.0f}", "fresh guard per sequence, nothing judged")
    add("hooks bulk: checked / bare", f"{result['ratio']:.2f}x", "what the H catalogue and its views cost per event")
    return [], True


def main() -> int:
    return print_rows(run)


if __name__ == "__main__":
    sys.exit(main())
