"""The subject registry: every part of the verdict a subject declares, in one record, found by its folder.

The harness judges several parts of the guard with one catalogue, one tally
and one report. Each part is a subpackage ``properties/<name>/`` whose
``subject.py`` defines ``SUBJECT``, a ``Subject`` record. The core (the
command line, the report, replay, counterexamples, bench, fuzzing, the
example database) imports no subject package: it reaches every subject
through this registry, and a folder with a ``subject.py`` joins on its own.

Order (a choice the issue leaves open): the verdict, replay and bench take the
subjects by ``Subject.order`` (budget 10, hooks 20, navigation 30; a subject
that sets none comes after them at 100), then by name. The order is declared
rather than taken from the file system, so a new folder can never reorder the
subjects before it, and a run's report reads the same on every machine.

Everything a subject declares is plain data and functions, so a driver runs in
any process and returns picklable results:

* ``catalogue``: its invariants (``properties.catalogue.Invariant``), ids
  unique across every subject (``B*``, ``H*``, ``N*``): two invariants with one
  id are an error (``DuplicateInvariant``) when the registry is read.
* ``coverage_minimums``: coverage counts a default run must reach.
* ``drivers``: ``Driver`` records; each takes a ``DriverRequest`` and returns
  a ``DriverResult`` (a tally, a report row's details, and the first failure
  as events plus a violation, or None).
* ``state_machine``: the Hypothesis state machine as a standalone class, for
  pytest and HypoFuzz (``fuzz_targets``).
* ``events``: the event classes of its traces, by the name its files use;
  ``monitor(tally, only)`` builds the subject's monitor over fresh copies, so
  that replay, counterexample shrinking and regression tests re-judge a trace
  with the very checks the drivers ran.
* ``counterexample``: how a failure is shrunk, saved and printed.
* ``replay``: its file format and replay command (``Replay``):
  ``python -m properties.replay FILE`` hands a file to the subject whose
  schema it carries.
* ``pin``: how a counterexample file becomes a regression test (``nox -s pin-regression``).
* ``bench``: its rows of ``nox -s bench`` (``Bench``).
* ``options``: command-line options of ``python -m properties`` that only this
  subject reads (the budget's ``--explorer-seconds``); their values reach its
  drivers in ``DriverRequest.options``.
* ``models``: ``models(scopes)`` -> the engine's models (``properties.engine.model.Model``) of the scopes
  ``quick``, ``default`` or ``thorough``. A subject that declares it gains the core's ``model`` driver
  (``properties.model_driver``), which searches each model to its fixpoint with ``properties.engine.search``
  in every run; nothing else is needed.
"""

from __future__ import annotations

import argparse
import importlib
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import attrs

from properties.catalogue import Invariant, Tally, Violation, unique_ids

#: The folder whose subpackages are subjects.
PACKAGE_DIR = Path(__file__).resolve().parent
#: Where a subject without a declared order comes.
LAST = 100
#: Run modes: the reviewer's full run, a fast smoke run, and the deterministic run made against each mutant.
MODES = ("default", "quick", "mutants")
#: The name of the core's driver that proves a subject's models (``Subject.models``).
MODEL_DRIVER = "model"


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
    #: The values of the subject's own command-line options (``Subject.options``), by destination name.
    options: Mapping[str, Any] = attrs.field(factory=dict)
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
    #: Rows of a driver that searches configurations one by one: name, limits, states, edges, depth,
    #: complete, seconds (the report prints them under the driver).
    configurations: list[dict[str, Any]] = attrs.field(factory=list)
    #: Statistics the seeds reported for their own tests (summed over drivers of a subject).
    statistics: dict[str, int] = attrs.field(factory=dict)
    #: A counterexample the driver rendered and saved itself, as (text, path); else "".
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
    #: Takes the run's size override (``--traces``): a driver that draws its work in bulk.
    sized: bool = False


@attrs.frozen
class Lazy:
    """A function named by its module and name, imported when first called.

    Choice: a subject's ``subject.py`` names its drivers this way, so reading the registry (replay, the
    command line's checks, the fuzz targets) does not import every subject's drivers and what they need
    (numpy for the budget's bulk traces); a driver's module is imported by the process that runs it."""

    module: str
    name: str
    #: Arguments passed first, before the caller's (the core's model driver is told which subject it serves).
    bound: tuple[Any, ...] = ()

    def resolve(self) -> Callable[..., Any]:
        """The function itself (its module imported)."""
        return getattr(importlib.import_module(self.module), self.name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.resolve()(*self.bound, *args, **kwargs)


@attrs.frozen
class Option:
    """A command-line option of ``python -m properties`` that one subject reads (``DriverRequest.options[dest]``)."""

    flag: str
    dest: str
    help: str
    type: "Callable[[str], Any]" = str
    default: Any = None

    def add_to(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument(self.flag, dest=self.dest, type=self.type, default=self.default, help=self.help)


@attrs.frozen
class Replay:
    """A subject's files and its replay command.

    ``recognizes(path)`` says whether a file is this subject's (it reads the schema only);
    ``run(argv)`` is the subject's replay command line (files and its own options) -> exit status:
    0 every invariant held, 1 one broke, 2 a bad file or option (one line naming the file and the field)."""

    schema: str
    recognizes: Callable[[str], bool]
    run: Callable[[list[str]], int]
    #: A switch of ``python -m properties.replay`` that hands the rest of the command line to ``run`` ("" none).
    option: str = ""
    #: Replays its recorded sessions when ``nox -s replay`` names no file.
    sessions: bool = False


@attrs.frozen
class Pin:
    """How a subject's counterexample becomes a regression test (``python -m properties.regressions``).

    ``pin(source, folder, invariant)`` copies the file into ``folder`` (``invariant`` names the one it broke
    when the file does not) and returns the new path and the invariants that still break on the current code;
    ``check(path)`` re-judges one pinned file: (one line for the reader, whether it holds). Both raise
    ``properties.safe_json.JsonFileError`` (one line naming the file and the field) for a bad file."""

    pin: "Callable[[Path, Path, str | None], tuple[Path, tuple[str, ...]]]"
    check: "Callable[[Path], tuple[str, bool]]"


@attrs.frozen
class Bench:
    """A subject's rows of ``nox -s bench``.

    ``add_options(parser)`` adds its own options; ``run(args, add)`` measures and reports each row with
    ``add(name, value, note)`` and returns the figures it drew, as (file name, title) pairs, and whether
    the other rows should run too (False: an option asked for this subject's rows alone)."""

    run: "Callable[[argparse.Namespace, Callable[[str, str, str], None]], tuple[list[tuple[str, str]], bool]]"
    add_options: "Callable[[argparse.ArgumentParser], None] | None" = None
    #: ``check_options(args)`` -> a one-line problem with the subject's own options, or "".
    check_options: "Callable[[argparse.Namespace], str] | None" = None


def print_rows(run: "Callable[[Any, Callable[[str, str, str], None]], Any]") -> int:
    """Run one subject's bench rows on their own (``python -m properties.<subject>.bench``), a line per row."""
    run(None, lambda name, value, note: print(f"{name:<44} {value:>12}  {note}"))
    return 0


@attrs.frozen
class Partings:
    """How a subject's monitor compares production with its reference (issue 24 part 4), read when an
    invariant goes vacuous: the ways production may part from the reference (each a ``Tally.note_parting``
    label), and the label it notes when production ended as the reference did, with the phrase that says so."""

    ways: tuple[str, ...]
    same: str = ""
    #: Completes "the shortest <unit> that ...".
    same_phrase: str = ""
    #: What the size a monitor notes with each parting counts (a hook sequence's steps, a scenario's messages).
    size: str = "steps"


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
    #: Where the verdict, replay and bench take it (see the module docstring).
    order: int = LAST
    #: Its file format and replay command, or None when it has no files.
    replay: "Replay | None" = None
    #: How its counterexample files are pinned in ``tests/regressions/`` and re-judged there, or None.
    pin: "Pin | None" = None
    #: Its rows of ``nox -s bench``, or None.
    bench: "Bench | None" = None
    #: Command-line options of ``python -m properties`` that only this subject's drivers read.
    options: tuple[Option, ...] = ()
    #: The other subjects this one drives and may import (hooks feed the budget); subjects import no other.
    drives: tuple[str, ...] = ()
    #: What its monitor notes about the reference it follows, or None for a subject that follows none.
    partings: "Partings | None" = None
    #: ``requires()`` -> one line naming what the subject needs and cannot find (a program and its Debian
    #: package), or "": the verdict prints it and exits 2 before any driver runs. None: needs nothing.
    requires: "Callable[[], str] | None" = None
    #: ``models(scopes)`` -> the engine's models of the scopes ``quick``, ``default`` or ``thorough`` (a ``Lazy``,
    #: so that reading the registry imports no model), or None. Declaring it adds ``MODEL_DRIVER``.
    models: "Callable[[str], Sequence[Any]] | None" = None
    #: The module of its review side (``properties.review_sides`` says what it holds): how ``nox -s review``
    #: drives its guard at BASE and at HEAD and compares them. "": the review does not compare its behaviour
    #: (and says so).
    review: str = ""

    def __attrs_post_init__(self) -> None:
        # The core's driver, added here rather than written into each subject's list, so that a subject with a
        # model is proved in every run by declaring the model alone (attrs documents this way of setting a field
        # of a frozen instance after its own initialisation).
        if self.models is not None and all(driver.name != MODEL_DRIVER for driver in self.drivers):
            proof = Driver(MODEL_DRIVER, Lazy("properties.model_driver", "run_models", (self.name,)), cost=3)
            object.__setattr__(self, "drivers", self.drivers + (proof,))

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(invariant.id for invariant in self.catalogue)


def _folders() -> list[str]:
    """Every subpackage of ``properties/`` with a ``subject.py``, by name."""
    return sorted(path.parent.name for path in PACKAGE_DIR.glob("*/subject.py") if path.parent.name.isidentifier())


def _import(name: str) -> Subject:
    found = importlib.import_module(f"properties.{name}.subject").SUBJECT
    if found.name != name:
        raise ValueError(f"properties/{name}/subject.py: SUBJECT.name is {found.name!r}; it must be the folder's name")
    return found


_LOADED: "tuple[Subject, ...] | None" = None


def available() -> tuple[Subject, ...]:
    """Every subject (a folder with a ``subject.py``), by ``order`` then name; ids checked unique across all."""
    global _LOADED
    if _LOADED is None:
        found = sorted((_import(name) for name in _folders()), key=lambda subject: (subject.order, subject.name))
        unique_ids(invariant for subject in found for invariant in subject.catalogue)
        _LOADED = tuple(found)
    return _LOADED


def unknown_schema(path: str, subjects: Sequence[Subject], tool: str) -> "str | None":
    """One line for a file whose leading ``schema`` names none of ``subjects``' formats (and which none of them
    recognizes), listing those formats; None for any other file, which its subject's reader judges.

    Without it such a file went to the first subject's reader, whose "expected 'guard-trace/1'" read as though
    every file had to be a budget trace; a user holding another tool's file, or a newer format, is better told
    every format ``tool`` reads."""
    from properties.safe_json import printable, sniff_schema

    readers = [subject.replay for subject in subjects if subject.replay is not None]
    if any(replay.recognizes(path) for replay in readers):
        return None
    schema = sniff_schema(path)
    known = {replay.schema: subject.name for subject in subjects if (replay := subject.replay) is not None}
    if schema is None or schema in known:
        return None
    formats = ", ".join(f"{name} ({subject})" for name, subject in known.items())
    return f"{printable(path)}: schema: {printable(repr(schema))} is no format {tool} reads; it reads {formats}"


def names() -> tuple[str, ...]:
    """Every subject's name, in the registry's order."""
    return tuple(subject.name for subject in available())


def __getattr__(attribute: str) -> Any:
    # ``SUBJECTS`` is read from the folders on first use: reading it at import would import every subject
    # package while the first of them is still importing this module.
    if attribute == "SUBJECTS":
        return names()
    raise AttributeError(f"module {__name__!r} has no attribute {attribute!r}")


def load(name: str) -> Subject:
    """The subject called ``name`` (``properties/<name>/subject.py``'s ``SUBJECT``)."""
    for subject in available():
        if subject.name == name:
            return subject
    raise KeyError(f"unknown subject {name!r}; choose from {', '.join(names())}")


def load_one(name: str) -> Subject:
    """The subject called ``name``, importing its own ``subject.py`` alone (KeyError when there is none).

    For a process that serves one subject under another ``guard/`` (a review side at BASE): loading the whole
    registry would import every subject's declaration, and one that needs a ``guard`` module BASE lacks would
    stop the sides of every other subject too."""
    if not name.isidentifier() or name not in _folders():
        raise KeyError(f"unknown subject {name!r}; choose from {', '.join(_folders())}")
    return _import(name)


def all_invariants() -> dict[str, Invariant]:
    """Every invariant of every subject, by id (ids are unique: ``available`` checks)."""
    return {invariant.id: invariant for subject in available() for invariant in subject.catalogue}


def import_drivers() -> None:
    """Import every subject's driver modules (``Lazy``), whichever subjects a run selects, before workers fork.

    Each forked worker then finds them imported instead of importing them again. This once also kept the
    state machines' draws from depending on ``--subject`` (Hypothesis draws constants from every local module
    loaded); that is now ``properties.drawn_constants``'s job, which pins the pool to ``guard/`` and
    ``reference/``: the one import order left to chance (what a worker's earlier tasks imported) no longer
    reaches the draws either."""
    for subject in available():
        for driver in subject.drivers:
            if isinstance(driver.run, Lazy):
                driver.run.resolve()


def fuzz_targets() -> dict[str, type]:
    """Subject name -> a standalone state machine class, for every subject that declares one (HypoFuzz's targets)."""
    return {subject.name: subject.state_machine() for subject in available() if subject.state_machine is not None}
