"""Layer 2: apply each catalogue entry to its own scratch copy and let the suites try to kill it.

Per entry: first the property drivers alone (``python -m properties
--mutants``), which must exit non-zero and name the violated invariant; then
pytest with ``-x`` and the ``mutants`` Hypothesis profile. A budget-level
entry must be killed by both, every other entry by pytest. An unmutated
baseline copy runs the same suites first: if it fails, no kill means anything.
"""

from __future__ import annotations

import ast
import hashlib
import json
import shutil
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable

import attrs

from mutations import scratch
from mutations.catalogue import BUDGET, HOOKS, NAVIGATION, CatalogueError, Entry

KILLED = "killed"
SURVIVED = "survived"
NOT_APPLIED = "not applied"
TIMEOUT = "timeout"
PROPERTIES_MISSING = "properties missing"

#: Per-suite limit on one entry; a mutant that makes a suite loop is reported as a timeout.
SUITE_TIMEOUT = 600.0


@attrs.define
class EntryResult:
    entry: Entry
    status: str
    properties_killer: str | None
    test_killer: str | None
    detail: str
    seconds: float
    line: int = 1

    @property
    def killer(self) -> str | None:
        """What the report names: the invariant when the drivers killed it, else the first failing test."""
        return self.properties_killer or self.test_killer


@attrs.define
class CatalogueResult:
    entries: list[EntryResult]
    baseline: str
    properties_available: bool
    wall_seconds: float

    def count(self, status: str) -> int:
        return sum(1 for result in self.entries if result.status == status)

    @property
    def failures(self) -> list[str]:
        reasons = []
        if self.baseline != "ok":
            reasons.append(f"catalogue baseline: {self.baseline}")
        if not self.properties_available:
            reasons.append("property drivers missing: `python -m properties --mutants` does not exist yet")
        for result in self.entries:
            if result.status != KILLED:
                reasons.append(f"catalogue {result.entry.id} [{result.entry.seed}]: {result.status}: {result.detail}")
        return reasons


def _judge(entry: Entry, properties: scratch.Outcome, tests: scratch.Outcome) -> tuple[str, str]:
    problems = []
    if entry.level in (BUDGET, HOOKS, NAVIGATION):
        if scratch.properties_missing(properties):
            return PROPERTIES_MISSING, "python -m properties --mutants does not exist"
        if properties.exit_code is None:
            return TIMEOUT, f"property drivers timed out after {SUITE_TIMEOUT:.0f}s"
        if properties.exit_code == 0:
            problems.append("the property drivers passed (budget and hook entries must be killed by them alone)")
        elif properties.killer is None:
            last = (properties.output_tail.splitlines() or [""])[-1]
            problems.append(f"the property drivers exited {properties.exit_code} without naming a violated invariant: {last}")
    if tests.exit_code is None:
        return TIMEOUT, f"pytest timed out after {SUITE_TIMEOUT:.0f}s"
    if tests.exit_code == 0:
        problems.append("every test passed")
    elif tests.exit_code != 1 and not tests.failures:
        last = (tests.output_tail.splitlines() or [""])[-1]
        problems.append(f"pytest exited {tests.exit_code} without a failing test: {last}")
    if problems:
        return SURVIVED, "; ".join(problems)
    return KILLED, "ok"


def _run_entry(root: Path, entry: Entry, seed: int, durations: Path | None, work: Path) -> EntryResult:
    started = time.monotonic()
    parent = Path(tempfile.mkdtemp(prefix=f"{entry.id}-", dir=work))
    line = entry.first_line(root)
    try:
        copy = scratch.make(root, parent)
        try:
            entry.apply_to(copy)
            compile((copy / entry.file).read_text(encoding="utf-8"), entry.file, "exec")
        except (CatalogueError, SyntaxError) as error:
            return EntryResult(entry, NOT_APPLIED, None, None, str(error), time.monotonic() - started, line)
        label = f"catalogue:{entry.id}"
        # Budget-, hook- and navigation-level entries owe a kill to the property drivers (their subjects); classifiers have tables.
        properties = scratch.run_properties(copy, label, seed, SUITE_TIMEOUT) if entry.level in (BUDGET, HOOKS, NAVIGATION) else NOT_RUN
        tests = scratch.run_pytest(copy, label, durations, stop_at_first=True, timeout=SUITE_TIMEOUT,
                                   priority=tests_near(root, entry, durations))
        status, detail = _judge(entry, properties, tests)
        properties_killer = properties.killer if properties.exit_code not in (0, None) else None
        return EntryResult(entry, status, properties_killer, tests.killer if tests.exit_code not in (0, None) else None,
                           detail, time.monotonic() - started, line)
    finally:
        shutil.rmtree(parent, ignore_errors=True)


#: Stands for the property drivers on entries that are not budget-level (they are not run there).
NOT_RUN = scratch.Outcome(exit_code=0, killer=None, output_tail="not run (not a budget-level entry)", seconds=0.0)


def tests_near(root: Path, entry: Entry, durations: Path | None) -> list[str]:
    """Tests mutmut's stats pass saw calling the function(s) the entry edits (else anything in its module), run first."""
    if durations is None or not durations.is_file():
        return []
    try:
        stats = json.loads(durations.read_text(encoding="utf-8"))
        by_function: dict[str, list[str]] = stats.get("tests_by_mangled_function_name", {})
        source = (root / entry.file).read_text(encoding="utf-8")
        tree = ast.parse(source)
    except (OSError, ValueError, SyntaxError):
        return []
    module = entry.file[:-3].replace("/", ".")
    lines = set()
    for edit in entry.edits:
        at = source.find(edit.find)
        if at >= 0:
            first = source.count("\n", 0, at + len(edit.find) - len(edit.find.lstrip())) + 1
            lines.update(range(first, first + max(1, edit.find.strip().count("\n") + 1)))
    keys = []
    for node in tree.body:
        members = [(None, node)] if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else (
            [(node.name, item) for item in node.body if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))]
            if isinstance(node, ast.ClassDef) else [])
        for owner, function in members:
            if any(function.lineno <= line <= (function.end_lineno or function.lineno) for line in lines):
                keys.append(f"{module}.x_{function.name}" if owner is None else f"{module}.x\u01c1{owner}\u01c1{function.name}")
    chosen = {test for key in keys for test in by_function.get(key, [])}
    if not chosen:
        chosen = {test for key, tests in by_function.items() if key.startswith(module + ".x") for test in tests}
    return sorted(chosen)


#: Sources whose change invalidates every cached verdict: the suites, the oracle, the harness, the set-up.
CONTEXT_PATHS = ("tests", "properties", "reference", "mutations", "pyproject.toml", "noxfile.py")


def context_digest(root: Path) -> str:
    """One hash over every source that judges a mutant (everything but the subject, ``guard/``)."""
    digest = hashlib.sha256()
    for name in CONTEXT_PATHS:
        path = root / name
        files = sorted(path.rglob("*")) if path.is_dir() else [path]
        for file in files:
            if file.is_file() and "__pycache__" not in file.parts and file.suffix in (".py", ".toml", ".json"):
                digest.update(file.relative_to(root).as_posix().encode())
                digest.update(file.read_bytes())
    return digest.hexdigest()


def enclosing_source(source: str, find: str) -> str:
    """The source of the function (or method, or class) an edit falls in; the whole file at module level."""
    at = source.find(find)
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source
    if at < 0:
        return source
    line = source.count("\n", 0, at) + 1
    for node in tree.body:
        if not (node.lineno <= line <= (node.end_lineno or node.lineno)):
            continue
        if isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.lineno <= line <= (item.end_lineno or item.lineno):
                    return ast.get_source_segment(source, item) or source
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return ast.get_source_segment(source, node) or source
    return source


def entry_key(root: Path, entry: Entry, seed: int, context: str) -> str:
    """What a cached kill depends on: the entry, the seed, the code it mutates and every judging source.

    This is mutmut's own policy for its mutants (a verdict is re-tested when
    the mutated function or a test changes), applied to the catalogue. A
    fresh clone has no cache, so CI always runs every entry.
    """
    digest = hashlib.sha256(f"{entry.id}\0{seed}\0{context}\0{entry.file}".encode())
    try:
        source = (root / entry.file).read_text(encoding="utf-8")
    except OSError:
        source = ""
    for edit in entry.edits:
        digest.update(f"\0{edit.find}\0{edit.replace}\0".encode())
        digest.update(enclosing_source(source, edit.find).encode())
    return digest.hexdigest()


def _load_cache(path: Path | None) -> dict[str, dict]:
    if path is None or not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _cached(entry: Entry, hit: dict) -> EntryResult:
    return EntryResult(entry, KILLED, hit.get("properties_killer"), hit.get("test_killer"),
                       "ok (cached: entry, mutated function and judging sources unchanged)", 0.0, hit.get("line", 1))


def _baseline(root: Path, seed: int, durations: Path | None, work: Path) -> tuple[str, bool]:
    """Run both suites on an unmutated copy; returns (verdict, whether the property drivers exist)."""
    parent = Path(tempfile.mkdtemp(prefix="baseline-", dir=work))
    try:
        copy = scratch.make(root, parent)
        properties = scratch.run_properties(copy, "catalogue:baseline", seed, SUITE_TIMEOUT)
        available = not scratch.properties_missing(properties)
        tests = scratch.run_pytest(copy, "catalogue:baseline", durations, stop_at_first=True, timeout=SUITE_TIMEOUT)
        problems = []
        if available and properties.exit_code != 0:
            problems.append(f"the property drivers fail unmutated (exit {properties.exit_code}, {properties.killer or 'no invariant named'})")
        if tests.exit_code != 0:
            problems.append(f"pytest fails unmutated ({tests.killer or f'exit {tests.exit_code}'})")
        return ("; ".join(problems) or "ok"), available
    finally:
        shutil.rmtree(parent, ignore_errors=True)


def run(root: Path, entries: tuple[Entry, ...], jobs: int, seed: int, durations: Path | None,
        progress: Callable[[str], None] = print, cache: Path | None = None) -> CatalogueResult:
    """Run every entry; with ``cache``, a kill whose ``entry_key`` is unchanged is reused (only kills are cached)."""
    started = time.monotonic()
    work = Path(tempfile.mkdtemp(prefix="guard-catalogue-"))
    cached = _load_cache(cache)
    context = context_digest(root)
    keys = {entry.id: entry_key(root, entry, seed, context) for entry in entries}
    try:
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            baseline_future = pool.submit(_baseline, root, seed, durations, work)
            futures = [
                None if cached.get(entry.id, {}).get("key") == keys[entry.id]
                else pool.submit(_run_entry, root, entry, seed, durations, work)
                for entry in entries
            ]
            results = []
            for entry, future in zip(entries, futures):
                result = _cached(entry, cached[entry.id]) if future is None else future.result()
                results.append(result)
                progress(f"  catalogue| {result.entry.id:<44} {result.status:<18} {result.killer or result.detail}"
                         f"  ({result.seconds:.1f}s)")
            baseline, available = baseline_future.result()
        progress(f"  catalogue| baseline (unmutated copy): {baseline}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if cache is not None:
        kept = {
            result.entry.id: {"key": keys[result.entry.id], "properties_killer": result.properties_killer,
                              "test_killer": result.test_killer, "line": result.line}
            for result in results if result.status == KILLED
        }
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_text(json.dumps(kept, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return CatalogueResult(results, baseline, available, time.monotonic() - started)
