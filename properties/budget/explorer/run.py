"""Running the explorer: one configuration (``explore``), a mode's set (``run_explorer``), and the command line."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable, Sequence


from properties.budget.counterexample import record
from properties.counterexample import DEFAULT_DIR
from properties.engine import cli
from properties.engine.search import search
from properties.budget.invariants import BY_ID, CATALOGUE
from properties.catalogue import Tally
from properties.budget.explorer.keys import Canon
from properties.budget.explorer.result import ConfigResult, ExplorerResult
from properties.budget.explorer.scopes import Config, MAX_STATES, MODE_MAX_STATES, canon_for, configurations, mode_name
from properties.budget.explorer.model import BudgetModel


#: The first line of the explorer's help.
EXPLORER_SUMMARY = "Driver 2: the exhaustive explorer, a breadth-first search over every reachable state."

_TRACE_LEVELS = False


def explore(
    config: Config, tally: Tally, canon: Canon | None = None, max_states: int = MAX_STATES, workers: int = 1,
    keep_states: bool = False, memo: bool = True, out_dir: Path | None = None,
) -> ConfigResult:
    """Breadth-first search of ``config`` by the engine; check counts go into ``tally``; stops at the first violation.

    With ``workers`` > 1 each level is split between forked processes; the
    states, edges, order and any counterexample are the same as with one (B13's
    per-state probes may be repeated across workers, so its check count is not).

    Every symmetry the canonical form merges by is checked on every edge
    (``Expander.check_step``, ``check_judge``, ``check_probe``, and the
    initial state and each alphabet). When one is broken the search stops,
    its claim is withdrawn (nothing it counted is kept), the break is
    recorded with the shortest trace that shows it (saved under ``out_dir``
    when given), and the scope is searched again without that symmetry
    (``properties.engine.search``); the row returned is the last search's,
    naming every break. Decision: a broken symmetry does not fail the run by
    itself: the search made without it is sound, so its verdict (a violation,
    a proof, or cut short by ``max_states``, never proved) is the scope's.
    """
    model = BudgetModel(config, canon or canon_for(config), memo, keep_states)
    row = search(model, max_depth=config.max_depth, max_states=max_states, seconds=None, out_dir=out_dir, workers=workers,
                 verbose=_TRACE_LEVELS)
    assert isinstance(row, ConfigResult)
    tally.merge(row.tally)
    return row


def run_explorer(
    quick: bool | str, tally: Tally, out_dir: Path = DEFAULT_DIR, configs: Iterable[Config] | None = None,
    workers: int | None = None,
) -> ExplorerResult:
    """Explore every configuration of a mode (``configurations``), stopping at the first violation.

    The check counts are merged into ``tally``. ``workers``: processes per
    search (None: the mode's choice below).
    """
    mode = mode_name(quick)
    rows = []
    counterexample = None
    # The quick set runs in process (unit tests, mutation runs); the others split each level over the cores,
    # unless the caller runs configurations side by side (``properties.budget.drivers``).
    if workers is None:
        workers = 1 if mode == "quick" else max(1, min(2, os.cpu_count() or 1))
    for config in configs if configs is not None else configurations(mode):
        row = explore(config, tally, max_states=MODE_MAX_STATES[mode], workers=workers, out_dir=out_dir)
        rows.append(row)
        if row.violation is not None:
            # The path is a real trace (``real_trace``); only when none follows the canonical path does the file say so.
            note = "" if row.exact else "the search's canonical path: the budget is not lane/kind symmetric, it may not replay"
            counterexample = record("explorer", row.path, config.oracle, row.violation, out_dir, note=note)
            break
    return ExplorerResult(tuple(rows), counterexample)


def main(argv: Sequence[str] | None = None) -> int:
    def run(mode: str, tally: Tally, out_dir: Path, levels: bool) -> ExplorerResult:
        global _TRACE_LEVELS
        _TRACE_LEVELS = levels
        return run_explorer(mode, tally, out_dir)

    return cli.main(argv, "python -m properties.budget.explorer", EXPLORER_SUMMARY, run, CATALOGUE, BY_ID)
