"""The constants Hypothesis mixes into its draws, pinned to the code under test so that a seed names its examples.

Hypothesis (6.131 on; pinned here at 6.170.15) draws about one value in twenty
from a pool of literal constants that it collects from every *local* module
in ``sys.modules``, and it grows that pool whenever ``sys.modules`` grows.
This project's harness is local code too, so what a state machine drew for a
given seed depended on which harness modules happened to be imported when it
ran. Measured before this module existed: the hook machine under ``python -m
properties --quick --seed 21 --subject hooks`` judged 552 steps in the first
run of a process and 529 in every later one (the first run had imported the
figure module in between), and a forked worker's draws depended on what its
earlier tasks had imported, which the pool's scheduling decides.

``pin()`` fixes the pool once, before anything is drawn: the constants of
every module of ``guard/`` and ``reference/`` (the code under test, whose
thresholds and tool names are worth drawing), read from their source files, kept in
sorted sets as Hypothesis keeps its own (so the order does not depend on
string hashing). From then on the pool never changes, whatever is imported.
Its cost is paid once per process (forked workers inherit it): reading the
pool took 29-54 ms of CPU, three runs on 2026-12-02 beside a CI run.

Decision where nothing says: pin to the code under test rather than turn the
pool off. Drawing a guard's own constants is how Hypothesis finds an
off-by-one at a limit, and under review the pool is the changed guard's.

This reaches into two names of ``hypothesis.internal.conjecture.providers``
(``_get_local_constants``, ``CONSTANTS_CACHE``); ``pin()`` refuses a
Hypothesis whose module lacks them, so an upgrade is a deliberate re-check
(``tests/core/test_drawn_constants.py`` shows the pool is fixed).
"""

from __future__ import annotations

import importlib.util
import itertools
from pathlib import Path
from typing import Any

#: The packages whose constants Hypothesis may draw: the code under test and its oracle.
PACKAGES = ("guard", "reference")

_pool: Any = None
_installed = False


def pool() -> Any:
    """The pinned constants (``hypothesis.internal.constants_ast.Constants``), computed on first use.

    Read from the source files of ``PACKAGES`` with Hypothesis's own visitor (the literals it would collect from
    those modules), without importing them and without Hypothesis's on-disk cache of constants."""
    global _pool
    if _pool is None:
        import ast

        from hypothesis.internal.constants_ast import ConstantVisitor, Constants, TooManyConstants
        from hypothesis.internal.floats import float_to_int
        from sortedcontainers import SortedSet

        found = Constants(integers=SortedSet(), floats=SortedSet(key=float_to_int), bytes=SortedSet(),
                          strings=SortedSet())
        for name in PACKAGES:
            spec = importlib.util.find_spec(name)
            assert spec is not None and spec.submodule_search_locations, name
            for folder in spec.submodule_search_locations:
                for path in sorted(Path(folder).rglob("*.py")):
                    visitor = ConstantVisitor(limit=True)
                    try:
                        visitor.visit(ast.parse(path.read_bytes()))
                    except TooManyConstants:
                        continue  # as Hypothesis does: a module with too many literals gives none
                    found = found | visitor.constants
        _pool = found
    return _pool


def pin() -> None:
    """Make every later draw of every test and driver in this process use ``pool()`` (idempotent)."""
    global _installed
    if _installed:
        return
    from hypothesis.internal.conjecture import providers

    missing = [name for name in ("_get_local_constants", "CONSTANTS_CACHE") if not hasattr(providers, name)]
    if missing:
        raise RuntimeError(f"properties.drawn_constants: hypothesis {providers.__name__} has no {missing[0]}; "
                           "re-check how this Hypothesis collects constants before upgrading")
    # A C-level callable, not a function of this module: a coverage-guided fuzzer (HypoFuzz, which traces this
    # project's files) must not see a line run when Hypothesis draws a constant and not when it replays one.
    providers._get_local_constants = itertools.repeat(pool()).__next__
    # Permitted values cached from an earlier pool (if anything was drawn before) would outlive the pin.
    providers.CONSTANTS_CACHE.cache.clear()
    _installed = True
