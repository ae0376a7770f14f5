"""Counted bounds on the work one step of the code under test may do (issue 25): a runaway is a verdict, not a hang.

Seed 003 exists because a delegated agent never converged; a change to the
guard can make the harness meet the same failure in itself (a polling loop
whose deadline can no longer fire, a budget step that loops). A wall-clock
timeout would turn that into a verdict that depends on the machine, so every
bound here is *counted*:

* **Loop iterations.** ``install()`` (called when ``properties`` is imported)
  makes every ``for`` and ``while`` loop in ``guard/`` and ``reference/`` call
  ``tick()`` once per iteration. The source on disk is untouched: the import
  system compiles the instrumented tree (line numbers kept; cached under a
  name of its own, ``*.counted.pyc``, keyed on the source's hash, so an
  uninstrumented import never reads it). A driver arms a bound around
  one step (``armed(limit, what)``); past it ``tick()`` raises
  ``WorkBoundExceeded``. Loops inside comprehensions are not counted: they
  iterate a finite value the step already holds (recursion, the other way
  code runs on, ends in ``RecursionError``, a crash the drivers report).
* **Calls on the fakes.** The navigation fakes (clock, child, cancellation)
  count what the controller asks of them against a bound derived from the
  scenario's work deadline and slice (``properties.navigation.scenario``), and
  raise the same error.

``WorkBoundExceeded`` derives from ``BaseException`` on purpose: the guard
catches ``Exception`` around teardown and synthesis, and a bound the code
under test can swallow bounds nothing. Once raised, a bound stays exceeded
until it is armed again, so a swallowed raise is raised again at the next
count. Each subject reports an exceeded bound as the invariant it protects,
violated (N1 for navigation, B6 for the budget, H3 for the hook path; see
their monitors), with the step that ran away as its counterexample.

When nothing is armed, ``tick()`` counts against ``UNARMED`` (effectively
no bound): unit tests that call the guard directly see no difference.
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import importlib.abc
import importlib.machinery
import marshal
import os
import sys
from pathlib import Path
from typing import Any, Iterator, Sequence

#: The packages whose loops are counted: the code under test and its oracle.
COUNTED_PACKAGES = ("guard", "reference")
#: The name the instrumented loops call; bound in each instrumented module's globals before it runs.
TICK_NAME = "__work_tick__"
UNARMED = sys.maxsize
#: Loop iterations one step of a budget trace or a hook sequence may run in guard/ and reference/. A step loops
#: only over its own receipt (at most two charges per result, a command's words, an output's lines; B13's probes
#: step twelve copies): a default run counts at most a few hundred per step (``nox -s bench`` prints the
#: largest), so 100,000 is a margin of over 100x, and a step that loops for good reaches it in under a second.
STEP_LOOPS = 100_000


class WorkBoundExceeded(BaseException):
    """The code under test did more work in one step than its counted bound allows."""

    def __init__(self, what: str, bound: int, detail: str = "") -> None:
        self.what = what
        self.bound = bound
        self.detail = detail
        super().__init__(self.describe())

    def describe(self) -> str:
        text = f"{self.what} did not end within its bound of {self.bound:,}"
        return f"{text}: {self.detail}" if self.detail else text


class ResourceExhausted(BaseException):
    """The code under test ran out of memory in one step: its driver's crash, reported as a ``MemoryError``.

    A ``BaseException`` for the reason ``WorkBoundExceeded`` is one, and one more: Hypothesis takes any
    ``Exception`` raised in a rule for a failing example and replays and shrinks it, while that failure's traceback
    still holds the exhausted memory, so the report became a flaky-data error or a worker that died before it
    reported, instead of the cause (``exhausted`` frees the frames first)."""

    def __init__(self, message: str, where: str) -> None:
        self.where = where
        super().__init__(message)


def crash_name(error: BaseException) -> str:
    """The exception's name as a crash report gives it: a ``ResourceExhausted`` is the ``MemoryError`` it stands for."""
    return "MemoryError" if isinstance(error, ResourceExhausted) else type(error).__name__


def exhausted(error: MemoryError) -> ResourceExhausted:
    """``error`` as a ``ResourceExhausted``, with the frames that ran out of memory cleared (their locals released).

    Raise the result ``from None`` outside the ``except`` block that caught ``error``, or at least with its frames
    cleared as here: the new exception's context would otherwise keep every object the runaway step allocated."""
    import traceback

    where = raised_where(error)
    traceback.clear_frames(error.__traceback__)
    return ResourceExhausted(str(error) or "out of memory", where)


def raised_where(error: BaseException) -> str:
    """``budget.py:121``: the file and line that raised ``error`` (its innermost frame), "?" when it has none."""
    import traceback

    if isinstance(error, ResourceExhausted):
        return error.where
    frames = traceback.extract_tb(error.__traceback__)
    return f"{Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else "?"


def raised(error: BaseException) -> str:
    """``KeyError: None (budget.py:121)``: an exception and the line that raised it, for a one-line report."""
    return f"{crash_name(error)}: {error} ({raised_where(error)})"


# The counter is two module globals rather than an object: ``tick()`` runs once per loop iteration of the guard.
_left = UNARMED
_armed: "tuple[int, str]" = (UNARMED, "")


def tick() -> None:
    """One loop iteration in ``guard/`` or ``reference/``; raises past the armed bound."""
    global _left
    _left -= 1
    if _left < 0:
        _left = -1  # sticky: every later iteration raises too, until the next ``arm``
        bound, what = _armed
        raise WorkBoundExceeded(what, bound, "loop iterations in guard/ or reference/")


def arm(limit: int, what: str) -> None:
    """Allow ``limit`` loop iterations from now on, for ``what`` (named in the error)."""
    global _left, _armed
    _left = limit
    _armed = (limit, what)


def push(limit: int, what: str) -> "tuple[int, tuple[int, str]]":
    """Arm ``limit`` for one step and return the bound armed before it, for ``pop`` (cheaper than ``armed``:
    a monitor does this once per step)."""
    saved = (_left, _armed)
    arm(limit, what)
    return saved


def pop(saved: "tuple[int, tuple[int, str]]") -> None:
    """Restore the bound ``push`` replaced (a test's own bound outlives the monitor steps it runs)."""
    global _left, _armed
    _left, _armed = saved


def used() -> int:
    """Loop iterations counted since the last ``arm``."""
    return _armed[0] - _left


@contextlib.contextmanager
def armed(limit: int, what: str) -> Iterator[None]:
    """Arm ``limit`` for the body, and restore the bound armed before it afterwards."""
    saved = push(limit, what)
    try:
        yield
    finally:
        pop(saved)


# -- what is running (named when a worker dies or a step runs away) ------------

running = ""
_sink: "Any | None" = None


def note_running(text: str) -> None:
    """Name the trace, sequence or scenario now running (a driver calls it once per item, not per step)."""
    global running
    running = text
    if _sink is not None:
        _sink(text)


def send_running_to(sink: "Any | None") -> None:
    """Also hand each note to ``sink`` (a forked worker writes it where its parent can read it after a death)."""
    global _sink
    _sink = sink


# -- instrumenting the loops --------------------------------------------------


class _CountLoops(ast.NodeTransformer):
    """Put ``__work_tick__()`` first in the body of every ``for`` and ``while`` statement (comprehensions excluded)."""

    def _count(self, node: Any) -> Any:
        self.generic_visit(node)
        call = ast.Expr(ast.Call(ast.Name(TICK_NAME, ast.Load()), [], []))
        ast.copy_location(call, node.body[0])
        ast.fix_missing_locations(call)
        node.body.insert(0, call)
        return node

    visit_For = visit_AsyncFor = visit_While = _count


def instrument(tree: ast.Module) -> ast.Module:
    """The same module with every loop counting its iterations (line numbers unchanged)."""
    return _CountLoops().visit(tree)


def compile_counted(source: "str | bytes", filename: str, flags: int = 0) -> Any:
    """Compile ``source`` as a counted module would be (``mutations.warm`` swaps such code into live functions)."""
    tree = compile(source, filename, "exec", flags=flags | ast.PyCF_ONLY_AST, dont_inherit=True)
    return compile(instrument(tree), filename, "exec", flags=flags, dont_inherit=True)


def counted(module_name: str) -> bool:
    return any(module_name == package or module_name.startswith(package + ".") for package in COUNTED_PACKAGES)


#: Changes whenever the instrumenting changes, so a cached counted module from another version is never read.
COUNTING_VERSION = b"loops-1"


def cached_path(source_path: str) -> Path:
    """Where a counted module's code is cached: beside CPython's own cache, under a name no plain import reads."""
    source = Path(source_path)
    return source.parent / "__pycache__" / f"{source.stem}.{sys.implementation.cache_tag}.counted.pyc"


def load_counted(source: bytes, source_path: str) -> Any:
    """The counted code of a module: from its cache when the source hash matches, else compiled (and cached,
    unless bytecode writing is off), so every process start does not pay the compile."""
    key = hashlib.sha256(COUNTING_VERSION + b"\0" + source).digest()
    cache = cached_path(source_path)
    try:
        data = cache.read_bytes()
        if data[:32] == key:
            return marshal.loads(data[32:])
    except (OSError, ValueError, EOFError, TypeError):
        pass
    code = compile_counted(source, source_path)
    if not sys.dont_write_bytecode:
        try:
            cache.parent.mkdir(exist_ok=True)
            partial = cache.with_name(f"{cache.name}.{os.getpid()}.tmp")
            partial.write_bytes(key + marshal.dumps(code))
            os.replace(partial, cache)
        except OSError:
            pass  # a read-only checkout compiles at every start; nothing is wrong
    return code


class _CountingLoader(importlib.machinery.SourceFileLoader):
    """A source loader that runs the instrumented tree; it never reads or writes CPython's own bytecode cache."""

    def get_code(self, fullname: str) -> Any:
        path = self.get_filename(fullname)
        return load_counted(self.get_data(path), path)

    def exec_module(self, module: Any) -> None:
        module.__dict__[TICK_NAME] = tick
        super().exec_module(module)


class _CountingFinder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path: "Sequence[str] | None", target: Any = None) -> Any:
        if not counted(fullname):
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.origin is None or not isinstance(spec.loader, importlib.machinery.SourceFileLoader):
            return spec
        spec.loader = _CountingLoader(fullname, spec.origin)
        return spec


def install() -> None:
    """Count the loops of every ``guard``/``reference`` module imported from now on (idempotent).

    A module imported before this call runs uncounted: ``properties`` calls it
    on import, and every entry point imports ``properties`` before ``guard``.
    """
    if not any(isinstance(finder, _CountingFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _CountingFinder())


def uncounted_modules() -> list[str]:
    """Already imported ``guard``/``reference`` modules that were compiled without counting (should be none)."""
    return sorted(name for name, module in list(sys.modules.items())
                  if counted(name) and module is not None and getattr(module, "__file__", None)
                  and name.rpartition(".")[0] != "" and TICK_NAME not in vars(module))
