"""CPython's cyclic garbage collector during a search: kept off the states a search has already stored.

A search keeps every state it reached (millions of tuples, all tracked by the
collector) and makes almost no reference cycles: its peak memory is the same
with the collector on and off. With the default thresholds the collector
still ran thousands of times per search and rescanned the stored states: 40%
of the CPU time of the budget's real-limits counters search, 25% of small c4
t6 (``python -m properties.bench``, measured 2026-12-01). So for the search
the first generation collects every ``SEARCH_GC_THRESHOLD`` allocations
instead of every 700, and each finished level is frozen (``freeze_level``:
``gc.freeze``, moved to the permanent generation, which no collection
scans). The collector stays on, so any cycle the code under test makes among
new objects is still collected; the thresholds are restored and the frozen
objects handed back to it afterwards (``gc.unfreeze``), where they are freed
by reference counting as usual.
"""

from __future__ import annotations

import contextlib
import gc
from typing import Iterator

#: The cyclic collector's first-generation threshold during a search (CPython's default is 700).
SEARCH_GC_THRESHOLD = 100_000


@contextlib.contextmanager
def collector_for_search() -> Iterator[None]:
    """Raise the first threshold for the search's duration; unfreeze afterwards unless a caller had frozen objects."""
    threshold = gc.get_threshold()
    frozen = gc.get_freeze_count()
    gc.set_threshold(SEARCH_GC_THRESHOLD, *threshold[1:])
    try:
        yield
    finally:
        gc.set_threshold(*threshold)
        # Only when nothing was frozen before the search: a caller's own frozen objects stay frozen.
        if not frozen:
            gc.unfreeze()


def freeze_level() -> None:
    """Everything allocated so far outlives the level: no collection need scan it again."""
    gc.freeze()
