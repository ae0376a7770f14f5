"""A subject of the verdict, declared once: its invariants, coverage minimums, drivers and trace events.

The harness judges several parts of the guard (``budget``, ``hooks``,
``navigation``, ``lookup``) with one catalogue, one tally and one report. Each part is a
subpackage ``properties/<name>/`` whose ``subject.py`` defines ``SUBJECT``, a
``Subject`` record; ``python -m properties`` loops over ``SUBJECTS`` (or the
ones ``--subject`` selects) and runs each subject's drivers.

Everything a subject declares is plain data and functions, so a driver runs in
any process and returns picklable results:

* ``catalogue``: its invariants (``properties.catalogue.Invariant``), ids
  unique across every subject (``B*``, ``H*``, ``N*``, ``L*``).
* ``coverage_minimums``: coverage counts a default run must reach.
* ``drivers``: ``Driver`` records; each takes a ``DriverRequest`` and returns
  a ``DriverResult`` (a tally, a report row's details, and the first failure
  as events plus a violation, or None).
* ``state_machine``: the Hypothesis state machine as a standalone class, for
  pytest and HypoFuzz.
* ``events``: the event classes of its traces, by the name trace files use;
  ``monitor`` builds the subject's monitor over fresh copies, so that replay,
  counterexample shrinking and regression tests re-judge a trace with the very
  checks the drivers ran.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import attrs

from properties.catalogue import Invariant, Tally, Violation

#: Every subject, in the order the verdict prints them.
SUBJECTS = ("budget", "hooks", "navigation", "lookup")
#: Run modes: the reviewer's full run, a fast smoke run, and the deterministic run made against each mutant.
MODES = ("default", "quick", "mutants")


@attrs.frozen
class DriverRequest:
    """What one driver is asked to do in one run."""

    seed: int
    mode: str
    profile: str
    #: Invariant ids to check (None: all of the subject's); coverage is counted either way.
    only: "tuple[str, ...] | None" = None
    #: A size override (traces, examples) from the command line, or None for the mode's default.
    size: "int | None" = None
    #: Where counterexamples are saved.
    out: Path = Path("counterexamples")
    #: Stop at the first violation (``--mutants``).
    stop_at_first: bool = False
    #: This request is piece ``part`` of ``parts`` of one driver's work (a driver with ``Driver.parts`` > 1
    #: in a default run): the pieces split the work deterministically and their results add up.
    part: int = 0
    parts: int = 1
    #: A time budget in seconds for a driver that takes one (the budget's explorer), or None for its default.
    seconds: "float | None" = None
    #: The names of the subject's drivers that run in this run (a driver may size itself by its company).
    company: tuple[str, ...] = ()


@attrs.define
class DriverResult:
    """What one driver did: its counts, its report row, and its first failure if any."""

    driver: str
    tally: Tally
    seconds: float
    details: dict[str, Any] = attrs.field(factory=dict)
    #: (events, violation) of the first (shrunk) failure, or None.
    failure: "tuple[list[Any], Violation] | None" = None
    error: str = ""
    #: A driver that ran out of its time budget: fails a default run (no proof is no pass).
    incomplete: str = ""
    #: The report row's status ("ran", "crashed", "cut off after ...").
    status: str = "ran"
    #: Per-configuration rows (the explorer): name, limits, states, edges, depth, complete, seconds.
    configurations: list[dict[str, Any]] = attrs.field(factory=list)
    #: Statistics the seeds reported for their own tests (summed over drivers of a subject).
    statistics: dict[str, int] = attrs.field(factory=dict)
    #: A counterexample the driver rendered and saved itself (the explorer), as (text, path); else "".
    counterexample_text: str = ""
    counterexample_path: str = ""


@attrs.frozen
class Driver:
    name: str
    run: Callable[[DriverRequest], DriverResult]
    #: Rough cost rank: cheaper drivers run first under ``--mutants``.
    cost: int = 1
    #: How many pieces a default run splits this driver into (one worker each); 1: not split.
    parts: int = 1
    #: Runs in the main process, never in a worker (the explorer forks its own child per configuration).
    main_process: bool = False


@attrs.frozen
class Subject:
    name: str
    title: str
    seeds: str
    catalogue: tuple[Invariant, ...]
    coverage_minimums: Mapping[str, int]
    drivers: tuple[Driver, ...]
    #: Trace-file event name -> event class (attrs records).
    events: Mapping[str, type] = attrs.field(factory=dict)
    #: ``monitor(tally, only)`` -> an object with ``step(event) -> list[Violation]``.
    monitor: "Callable[[Tally, Sequence[Invariant] | None], Any] | None" = None
    #: ``state_machine()`` -> a Hypothesis ``RuleBasedStateMachine`` subclass that checks the subject's whole
    #: catalogue and fails (AssertionError naming the invariant id) at the first violation; what
    #: ``tests/fuzz`` exposes to HypoFuzz. None when the subject has no state machine yet.
    state_machine: "Callable[[], type] | None" = None
    #: ``counterexample(driver, events, violation)`` -> (printed text, saved path or ""): how a failure of
    #: this subject is shown and kept. None: the violation line alone.
    counterexample: "Callable[[str, list[Any], Violation], tuple[str, str]] | None" = None
    #: ``preamble()`` -> a line printed before the run (e.g. limits that differ from the spec), or "".
    preamble: "Callable[[], str] | None" = None
    #: What one trace of this subject is called in the report ("traces", "sequences").
    unit: str = "traces"
    #: ``requires()`` -> one line naming what the subject needs and cannot find (a program and its Debian
    #: package), or "": the verdict prints it and exits 2 before any driver runs. None: needs nothing.
    requires: "Callable[[], str] | None" = None

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(invariant.id for invariant in self.catalogue)


def load(name: str) -> Subject:
    """The subject called ``name`` (``properties/<name>/subject.py``'s ``SUBJECT``)."""
    if name not in SUBJECTS:
        raise KeyError(f"unknown subject {name!r}; choose from {', '.join(SUBJECTS)}")
    return importlib.import_module(f"properties.{name}.subject").SUBJECT


def available() -> tuple[Subject, ...]:
    """Every subject whose package exists, in ``SUBJECTS`` order."""
    found = []
    for name in SUBJECTS:
        try:
            found.append(load(name))
        except ModuleNotFoundError as error:
            if error.name not in (f"properties.{name}", f"properties.{name}.subject"):
                raise
    return tuple(found)


def all_invariants() -> dict[str, Invariant]:
    """Every invariant of every available subject, by id."""
    return {invariant.id: invariant for subject in available() for invariant in subject.catalogue}
