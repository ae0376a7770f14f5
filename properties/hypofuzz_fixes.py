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
``ProjectCoverage`` drives coverage.py's C tracer instead, restricted to this
project's packages: a behaviour is an arc between two lines of one code
object in ``guard/``, ``reference/`` or ``properties/``. Any trace function
at all puts the 3.11 interpreter in its slow tracing mode, so coverage still
costs most of the fuzzer's speed; the README's fuzz section has the figures.
On 3.12+ HypoFuzz uses ``sys.monitoring`` branch events that switch
themselves off outside traced files; that collector is kept there (not
measured in this change).

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


def scope_coverage() -> None:
    """On Python 3.11, give every fuzz target's provider a ``ProjectCoverage`` (3.12+ keeps HypoFuzz's own)."""
    if sys.version_info >= (3, 12):
        return
    from hypofuzz.hypofuzz import FuzzTarget

    if getattr(FuzzTarget.__init__, "scopes_coverage", False):
        return
    original = FuzzTarget.__init__

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        self.provider.collector = ProjectCoverage()

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
    RedisExampleDatabase._start_listening = start_listening
    RedisExampleDatabase._stop_listening = stop_listening


def install() -> None:
    """Every workaround above, in a fuzz worker (``tests/fuzz/conftest.py`` calls it when a fuzz database is named)."""
    check_versions()
    alias_slice_comments()
    align_forced_draws()
    scope_coverage()
    poll_redis_changes()
