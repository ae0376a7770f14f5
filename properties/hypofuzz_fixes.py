"""What HypoFuzz 25.11.1 needs to fuzz this project's state machines under Hypothesis 6.170.15 (fuzz workers only).

HypoFuzz is pinned (``pyproject.toml``); these workarounds are for exactly
``PINNED`` and ``install()`` refuses other versions, so an upgrade is a
deliberate re-check (``tests/fuzz/test_fuzz_feedback.py`` shows whether each
one is still needed).

Why the fuzzer was blind (0 behaviours on every target)
-------------------------------------------------------
HypoFuzz adds an input to its corpus, and counts its behaviours, only after
a *stable replay*: it runs the input's recorded choice sequence again and
requires the same branches. Every replay here differed, so the corpus stayed
empty. The cause is how the two libraries disagree about *forced* draws.
Hypothesis records every draw of an example as a choice node, including the
ones whose value was fixed in advance (``forced``), and a state machine makes
many: the first "stop?" draw of every run is forced to False, and the swarm
rule selection (``FeatureFlags``) forces each rule's on/off decision after its
first draw. HypoFuzz saves and replays the sequence of *all* those nodes, but
Hypothesis never asks a provider for a forced value, so HypoFuzz's provider
hands the recorded forced value to the next unforced draw instead: from the
first forced draw on, the replay reads every choice one (or more) places off,
and runs a different example. ``align_forced_draws`` makes the provider step
past each recorded forced value, as Hypothesis's own replay (``for_choices``)
does. ``tests/fuzz/one_worker.py`` shows it with HypoFuzz's own numbers
(see the README's fuzz section): without the fix every stability replay of
the budget target differs and it has 0 behaviours; with it every one matches.

The other cause of unstable replays was the project's own: the hook
machine's ``call_shape`` cache, warm from earlier examples, made a replay run
less code than the first run (fixed in ``properties/hooks/stateful.py``).

Coverage cost
-------------
On Python 3.11 HypoFuzz collects coverage with a pure-Python
``sys.settrace`` function that is called for every line of every frame
(Hypothesis's own draws included) and filters by file afterwards.
``ProjectCoverage`` drives coverage.py's C tracer instead, restricted to the
chosen packages; any trace function at all puts the 3.11 interpreter in its
slow tracing mode, so coverage there still costs most of the fuzzer's speed.
On 3.12+ HypoFuzz uses ``sys.monitoring`` branch events, but its callback
rebuilds the whole function's position table at every branch taken (0.5
examples a second on the budget target, against 46 for plain Hypothesis);
``MonitoringCoverage`` records the same branches, each looked up once.
``nox -s fuzz`` runs on 3.12+ where the machine has one (noxfile
``FUZZ_PYTHON``). What counts as a behaviour is the code under test's
branches (``guard/``, ``reference/``) by default and the whole project's with
``--coverage project`` (``coverage_prefixes``); the README's fuzz section has
the figures.

Redis
-----
``poll_redis_changes``: Hypothesis's Redis database never reads the change
subscription it opens, so neither the dashboard nor other workers heard of a
worker's saves (see its docstring).
"""

from __future__ import annotations

import functools
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

from properties.paths import ROOT

#: The versions these workarounds were written and measured for.
PINNED = {"hypofuzz": "25.11.1", "hypothesis": "6.170.15"}
#: The packages whose lines count as behaviour: the code under test, its oracle and the harness that judges them.
PACKAGES = ("guard", "reference", "properties")
#: What a fuzz worker collects coverage of (``nox -s fuzz -- --coverage``, passed to the workers in
#: ``COVERAGE_VARIABLE``): the code under test and its oracle (the default), or the whole project.
COVERAGE_SCOPES = {"code": ("guard", "reference"), "project": PACKAGES}
DEFAULT_COVERAGE = "code"
COVERAGE_VARIABLE = "GUARD_FUZZ_COVERAGE"


class VersionError(Exception):
    """HypoFuzz or Hypothesis is not the version these workarounds are for."""


def check_versions() -> None:
    for name, wanted in PINNED.items():
        try:
            found = metadata.version(name)
        except metadata.PackageNotFoundError:
            raise VersionError(f"{name} is not installed (nox -s fuzz installs {name} {wanted})") from None
        if found != wanted:
            raise VersionError(f"{name} {found} is installed; properties/hypofuzz_fixes.py is for {name} {wanted} "
                               f"(re-check its workarounds, then update PINNED)")


def alias_slice_comments() -> None:
    """HypoFuzz reads ``ConjectureResult.slice_comments`` after shrinking a failure; Hypothesis 6.170 names it ``span_comments``.

    Without the alias every worker crashes on its first failure, before saving
    it. The comments only feed HypoFuzz's "explain" notes.
    """
    from hypothesis.internal.conjecture.data import ConjectureResult

    if not hasattr(ConjectureResult, "slice_comments"):
        ConjectureResult.slice_comments = property(lambda self: self.span_comments)  # type: ignore[attr-defined]


@functools.cache
def forced_draw_observer_class() -> type:
    """A Hypothesis ``DataObserver`` that moves a HypoFuzz provider's replay position past every forced draw."""
    from hypothesis.internal.conjecture.data import DataObserver

    class ForcedDrawObserver(DataObserver):
        def __init__(self, provider: Any) -> None:
            self.provider = provider

        def _seen(self, was_forced: bool) -> None:
            # The provider replays a recorded sequence that holds forced values too; Hypothesis never asks it for
            # those, so skip the slot here or every later draw reads its neighbour's value.
            state = self.provider._state
            if was_forced and state is not None:
                state.choice_index += 1

        def draw_integer(self, value: Any, *, constraints: Any, was_forced: bool) -> None:
            self._seen(was_forced)

        draw_float = draw_string = draw_bytes = draw_boolean = draw_integer

    return ForcedDrawObserver


def align_forced_draws() -> None:
    """Make every example a fuzz worker runs read its recorded choices the way Hypothesis's replay does (see above)."""
    from hypothesis.internal.conjecture.data import ConjectureData
    from hypofuzz.hypofuzz import FuzzTarget

    if getattr(FuzzTarget.new_conjecture_data, "aligns_forced_draws", False):
        return
    original = FuzzTarget.new_conjecture_data
    observer = forced_draw_observer_class()

    def new_conjecture_data(self: Any, *, choices: Any = None) -> ConjectureData:
        if choices is not None:
            # A prefix is replayed by Hypothesis itself, which already steps past forced values.
            return original(self, choices=choices)
        return ConjectureData(provider=self.provider, random=self.random, observer=observer(self.provider))

    new_conjecture_data.aligns_forced_draws = True  # type: ignore[attr-defined]
    FuzzTarget.new_conjecture_data = new_conjecture_data


def project_files(root: Path = ROOT, packages: "tuple[str, ...]" = PACKAGES) -> tuple[str, ...]:
    return tuple(f"{root / package}/" for package in packages)


class ProjectCoverage:
    """Branch coverage (line-to-line arcs) of this project's files only, recorded by coverage.py's C tracer.

    A context manager with HypoFuzz's collector interface: ``branches`` holds
    what the last use saw, as HypoFuzz ``Branch`` values. coverage.py's
    ``CTracer`` decides per file, in C, whether a frame is traced at all, so
    frames of Hypothesis, attrs or the standard library cost one dictionary
    lookup per call instead of a Python call per line. It is driven directly
    (coverage.py is pinned beside HypoFuzz for that): no data file, no
    configuration, nothing written.
    """

    def __init__(self, prefixes: "tuple[str, ...] | None" = None) -> None:
        from coverage.tracer import CFileDisposition, CTracer
        from hypofuzz.coverage import Branch, Location

        self.prefixes = prefixes or project_files()
        self.make_disposition = CFileDisposition
        self.branch, self.location = Branch.make, Location
        self.data: dict[str, set[int]] = {}
        self.branches: set[Any] = set()
        self.previous: Any = None
        tracer = self.tracer = CTracer()
        tracer.data = self.data
        tracer.trace_arcs = True
        tracer.should_trace = self._disposition
        # Shared across uses: a file's disposition never changes.
        tracer.should_trace_cache = {}
        tracer.warn = lambda *args, **kwargs: None
        tracer.lock_data = tracer.unlock_data = lambda: None
        # The C tracer reads each of these; unset, it crashes.
        tracer.concur_id_func = None
        tracer.file_tracers = {}
        tracer.check_include = None
        tracer.should_start_context = None
        tracer.switch_context = None
        tracer.disable_plugin = None

    def _disposition(self, filename: str, frame: Any) -> Any:
        disposition = self.make_disposition()
        disposition.original_filename = disposition.canonical_filename = filename
        disposition.trace = filename.startswith(self.prefixes)
        disposition.source_filename = filename if disposition.trace else None
        disposition.reason = ""
        disposition.file_tracer = None
        disposition.has_dynamic_filename = False
        return disposition

    def _unpack(self) -> set[Any]:
        found = set()
        location, branch = self.location, self.branch
        for filename, packed_arcs in self.data.items():
            for packed in packed_arcs:
                # The C tracer packs each (from, to) line pair into one integer: 28 bits a line, then two sign bits
                # (negative lines mark a code object's entry and exit).
                start, end = packed & 0xFFFFFFF, (packed >> 28) & 0xFFFFFFF
                if packed & (1 << 56):
                    start = -start
                if packed & (1 << 57):
                    end = -end
                found.add(branch(location(filename, start, None), location(filename, end, None)))
        return found

    def __enter__(self) -> "ProjectCoverage":
        self.data.clear()
        self.branches = set()
        self.previous = sys.gettrace()
        self.tracer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.tracer.stop()
        sys.settrace(self.previous)
        self.branches = self._unpack()
        self.data.clear()


class MonitoringCoverage:
    """Branch coverage of this project's files on Python 3.12+, from ``sys.monitoring`` branch events.

    The same behaviours HypoFuzz's own 3.12 collector records (a branch from
    one source position to another, as HypoFuzz ``Branch`` values), for this
    project's packages only, at a cost per example instead of per branch taken:

    * HypoFuzz's callback rebuilds ``list(code.co_positions())`` (one entry per
      instruction of the whole function) at every branch event, so a 50-step
      example of the budget machine ran 2 s (0.5 examples a second against 46
      for plain Hypothesis, measured here on 3.12.1). Here each (code, source,
      destination) triple is turned into its ``Branch`` once per process.
    * A branch instruction whose two ways out this example has both taken is
      switched off (``sys.monitoring.DISABLE`` disables the instruction, not
      one way out) until the next example starts (``restart_events`` in
      ``__enter__``); one taken the same way again costs a dictionary look-up.
      A set cannot hold a branch twice, so an example's branches are exactly
      those HypoFuzz's collector records. Files outside the project are
      switched off at their first event, as HypoFuzz does.

    Choice: the tool id is HypoFuzz's own (4), which its collector would hold
    otherwise; only one collector runs per worker.
    """

    tool_id = 4
    tool_name = "hypofuzz-project"

    def __init__(self, prefixes: "tuple[str, ...] | None" = None) -> None:
        from hypofuzz.coverage import Branch, Location

        self.prefixes = prefixes or project_files()
        self.make_branch, self.location = Branch.make, Location
        self.branches: set[Any] = set()
        #: (code, source offset, destination offset) -> its Branch, or None where positions are missing.
        self.known: dict[tuple, Any] = {}
        self.positions: dict[Any, tuple] = {}
        #: Per example: per code object of the project, the first destination each branch instruction went to.
        self.first: dict[Any, dict[int, int]] = {}
        self.callback = self._callback()

    def _branch(self, code: Any, source: int, destination: int) -> Any:
        positions = self.positions.get(code)
        if positions is None:
            positions = self.positions[code] = tuple(code.co_positions())
        start, end = positions[source // 2], positions[destination // 2]
        if start[0] is None or end[0] is None or start[2] is None or end[2] is None:
            return None
        name = code.co_filename
        return self.make_branch(self.location(name, start[0], start[2]), self.location(name, end[0], end[2]))

    def _callback(self) -> Any:
        """The branch callback, a closure over its tables: it runs for every branch taken in the project's code."""
        disable = sys.monitoring.DISABLE  # type: ignore[attr-defined]
        traced: dict[Any, Any] = {}
        first, known, prefixes = self.first, self.known, self.prefixes
        make = self._branch
        collector = self

        def trace_branch(code: Any, source: int, destination: int) -> Any:
            places = first.get(code)
            if places is None:
                name = code.co_filename
                inside = traced.get(name)
                if inside is None:
                    inside = traced[name] = name.startswith(prefixes)
                if not inside:
                    return disable
                places = first[code] = {}
            went = places.get(source)
            if went == destination:
                return None
            triple = (code, source, destination)
            branch = known.get(triple, known)
            if branch is known:
                branch = known[triple] = make(code, source, destination)
            if branch is not None:
                collector.branches.add(branch)
            if went is None:
                places[source] = destination
                return None
            # Both ways out of this instruction are recorded for this example: nothing more can be new here.
            return disable

        return trace_branch

    def __enter__(self) -> "MonitoringCoverage":
        monitoring = sys.monitoring  # type: ignore[attr-defined]
        self.branches = set()
        self.first.clear()
        if monitoring.get_tool(self.tool_id) is not None:
            raise RuntimeError(f"sys.monitoring tool id {self.tool_id} is held by {monitoring.get_tool(self.tool_id)}")
        monitoring.use_tool_id(self.tool_id, self.tool_name)
        monitoring.register_callback(self.tool_id, monitoring.events.BRANCH, self.callback)
        monitoring.set_events(self.tool_id, monitoring.events.BRANCH)
        monitoring.restart_events()
        return self

    def __exit__(self, *exc: object) -> None:
        monitoring = sys.monitoring  # type: ignore[attr-defined]
        monitoring.set_events(self.tool_id, 0)
        monitoring.register_callback(self.tool_id, monitoring.events.BRANCH, None)
        monitoring.free_tool_id(self.tool_id)


def coverage_prefixes(scope: "str | None" = None) -> tuple[str, ...]:
    """The file prefixes of a coverage scope (``COVERAGE_SCOPES``; None: the workers' variable, else the default).

    Choice (the issue leaves the scope open): the default is the code under
    test and its oracle, not the harness. The harness's branches mostly
    restate which invariant a step exercised and which coverage count it
    reached, and every state machine already reports those as ``event()``
    labels, which HypoFuzz counts as behaviours too; measured on the budget
    target under 3.12 (README, Fuzzing), the whole project's branches cost
    the fuzzer about half of its examples for the harness's own code.
    """
    import os

    scope = scope or os.environ.get(COVERAGE_VARIABLE) or DEFAULT_COVERAGE
    if scope not in COVERAGE_SCOPES:
        raise ValueError(f"{COVERAGE_VARIABLE}={scope!r}: choose one of {', '.join(COVERAGE_SCOPES)}")
    return project_files(packages=COVERAGE_SCOPES[scope])


def project_collector(prefixes: "tuple[str, ...] | None" = None) -> Any:
    """The coverage collector a fuzz target gets: ``MonitoringCoverage`` on 3.12+, ``ProjectCoverage`` before,
    over ``prefixes`` (default: ``coverage_prefixes()``)."""
    prefixes = prefixes or coverage_prefixes()
    return MonitoringCoverage(prefixes) if sys.version_info >= (3, 12) else ProjectCoverage(prefixes)


def scope_coverage() -> None:
    """Give every fuzz target's provider this project's collector (``project_collector``) instead of HypoFuzz's."""
    from hypofuzz.hypofuzz import FuzzTarget

    if getattr(FuzzTarget.__init__, "scopes_coverage", False):
        return
    original = FuzzTarget.__init__

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        self.provider.collector = project_collector()

    __init__.scopes_coverage = True  # type: ignore[attr-defined]
    FuzzTarget.__init__ = __init__


def poll_redis_changes() -> None:
    """Deliver a Redis database's change events to its listeners: a thread polls the subscription while one listens.

    Hypothesis 6.170's ``RedisExampleDatabase`` subscribes to its change channel
    when a listener is added but nothing reads the subscription, so listeners
    never hear of a change: HypoFuzz's dashboard never sees a worker's new
    report, and a worker never sees the corpus entries another worker saves.
    """
    from hypothesis.extra.redis import RedisExampleDatabase

    if getattr(RedisExampleDatabase._start_listening, "polls", False):
        return
    start, stop = RedisExampleDatabase._start_listening, RedisExampleDatabase._stop_listening

    def start_listening(self: Any) -> None:
        start(self)
        # Polls the subscription every 0.2 s at most, on a daemon thread, calling the handler for each message.
        self.change_poller = self._pubsub.run_in_thread(sleep_time=0.2, daemon=True)

    def stop_listening(self: Any) -> None:
        poller = getattr(self, "change_poller", None)
        if poller is not None:
            poller.stop()
            self.change_poller = None
        stop(self)

    start_listening.polls = True  # type: ignore[attr-defined]
    RedisExampleDatabase._start_listening = start_listening  # type: ignore[method-assign]  # the fix itself
    RedisExampleDatabase._stop_listening = stop_listening  # type: ignore[method-assign]


def install() -> None:
    """Every workaround above, in a fuzz worker (``tests/fuzz/conftest.py`` calls it when a fuzz database is named)."""
    check_versions()
    alias_slice_comments()
    align_forced_draws()
    scope_coverage()
    poll_redis_changes()
