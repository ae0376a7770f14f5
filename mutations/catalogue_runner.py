"""Layer 2: apply each catalogue entry and let the suites try to kill it.

Per entry: first the property drivers alone (``python -m properties
--mutants``), which must exit non-zero and name the violated invariant; then
pytest with ``-x`` and the ``mutants`` Hypothesis profile. A budget-, hook- or
navigation-level entry must be killed by both, every other entry by pytest.

Two paths to the same verdict. *Warm* (``mutations.warm``): entries whose edit
only changes function bodies run in forks of a process that imported the
project and collected the suite once, the edit swapped into the live code.
*Cold* (``mutations.scratch``): the entry's own scratch copy, fresh
interpreters. Every other entry, and every warm survivor, is judged cold, so
only a cold run can call an entry a survivor. Each path's baseline vouches for
its kills (``_baseline``, ``_warm_baseline``): without the edit, the property
drivers pass and so does every test that killed an entry on that path; if the
warm baseline fails, the warm kills are judged again cold.
"""

from __future__ import annotations

import ast
import json
import shutil
import tempfile
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

import attrs

from mutations import content_cache, scratch
from mutations.catalogue import judged_by_verdict
from mutations.entry import CatalogueError, Entry

if TYPE_CHECKING:
    from mutations import warm

KILLED = "killed"
SURVIVED = "survived"
#: Issue 22: the verdict broke, but not as the entry declares: another invariant, or only a crash.
WRONG_INVARIANT = "killed by an undeclared invariant"
CRASHED = "crashed (Stryker's RuntimeError)"
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
    #: "warm", "cold", or "cached"; with why a cold entry was not judged warm.
    path: str = "cold"
    why_cold: str = ""

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
    #: The warm baseline's verdict ("ok", "not run" or the problem); warm kills count only after "ok".
    warm_baseline: str = "not run"

    def count(self, status: str) -> int:
        return sum(1 for result in self.entries if result.status == status)

    @property
    def failures(self) -> list[str]:
        reasons = []
        if self.baseline != "ok" and not self.baseline.startswith("not run"):
            reasons.append(f"catalogue baseline: {self.baseline}")
        if any(result.path == "warm" for result in self.entries) and self.warm_baseline != "ok":
            reasons.append(f"catalogue warm baseline: {self.warm_baseline} (yet warm kills were kept)")
        if not self.properties_available:
            reasons.append("property drivers missing: `python -m properties --mutants` does not exist yet")
        for result in self.entries:
            if result.status != KILLED:
                reasons.append(f"catalogue {result.entry.id} [{result.entry.seed}]: {result.status}: {result.detail}")
        return reasons


def judge(entry: Entry, properties: scratch.Outcome, tests: scratch.Outcome) -> tuple[str, str]:
    """(status, detail) of an entry from its two suites: the verdict must name a declared invariant (issue 22)."""
    problems = []
    if judged_by_verdict(entry):
        if scratch.properties_missing(properties):
            return PROPERTIES_MISSING, "python -m properties --mutants does not exist"
        if properties.exit_code is None:
            return TIMEOUT, f"property drivers timed out after {SUITE_TIMEOUT:.0f}s"
        if properties.exit_code == 0:
            problems.append("the property drivers passed (budget and hook entries must be killed by them alone)")
        elif properties.killer is None and properties.crashed:
            return CRASHED, f"no invariant broke; a driver crashed: {properties.crashed}"
        elif properties.killer is None:
            last = (properties.output_tail.splitlines() or [""])[-1]
            problems.append(f"the property drivers exited {properties.exit_code} without naming a violated invariant: {last}")
        elif properties.killer not in entry.breaks:
            return WRONG_INVARIANT, (f"the verdict broke {properties.killer}; the entry declares "
                                     f"{', '.join(entry.breaks)}")
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
        # Budget-, hook- and navigation-level entries owe a kill to the property drivers (their subjects);
        # classifiers have tables.
        properties = (scratch.run_properties(copy, label, seed, SUITE_TIMEOUT, first=entry.level)
                      if judged_by_verdict(entry) else NOT_RUN)
        tests = scratch.run_pytest(copy, label, durations, stop_at_first=True, timeout=SUITE_TIMEOUT,
                                   priority=tests_near(root, entry, durations))
        tests = scratch.confirm_deadline(copy, label, tests, durations, SUITE_TIMEOUT)
        status, detail = judge(entry, properties, tests)
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
    lines: set[int] = set()
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


def entry_key(entry: Entry, seed: int, context: str) -> str:
    """What a cached kill depends on: the entry (its edits and the invariants it declares), the seed, and
    ``context`` (``content_cache.judging_sources``: all of ``guard/`` and every judging source)."""
    return content_cache.key(entry.id, str(seed), context, entry.file, ",".join(entry.breaks),
                             *(part for edit in entry.edits for part in (edit.find, edit.replace)))


def _cached(entry: Entry, hit: dict[str, Any]) -> EntryResult:
    return EntryResult(entry, KILLED, hit.get("properties_killer"), hit.get("test_killer"),
                       "ok (cached: entry, mutated function and judging sources unchanged)", 0.0, hit.get("line", 1),
                       path="cached")


def _outcome(found: dict) -> scratch.Outcome:
    """A warm child's answer as the cold path's Outcome (None exit code: timed out)."""
    failures = tuple(found.get("failures", ()))
    code = None if found.get("timed_out") else found.get("exit_code")
    tail = found.get("output_tail", "")
    killer = (failures[0] if failures else f"pytest exit {code}") if code not in (0, None) else None
    return scratch.Outcome(exit_code=code, killer=killer, output_tail=tail, seconds=float(found.get("seconds", 0.0)),
                           failures=failures)


def _run_entry_warm(server: "warm.Server", root: Path, entry: Entry, seed: int, durations: Path | None,
                    work: Path) -> tuple[EntryResult | None, str]:
    """The entry on the warm path: its result when both suites killed it, else (None, why it goes cold)."""
    started = time.monotonic()
    scratch_dir = Path(tempfile.mkdtemp(prefix=f"warm-{entry.id}-", dir=work))
    try:
        original = (root / entry.file).read_text(encoding="utf-8")
        mutated = entry.applied(original)
        label = f"catalogue:{entry.id}"
        common: dict[str, Any] = {"file": entry.file, "original": original, "mutated": mutated}
        properties = NOT_RUN
        if judged_by_verdict(entry):
            found = server.judge("properties", label, scratch_dir, seed, SUITE_TIMEOUT, first=entry.level, **common)
            if "not_patchable" in found or "crashed" in found:
                return None, found.get("not_patchable") or found["crashed"]
            properties = _outcome(found)
            properties = attrs.evolve(properties, killer=found.get("invariant"))
            if properties.exit_code in (0, None) or properties.killer is None:
                return None, "the property drivers did not kill it warm"
            if properties.killer not in entry.breaks:
                return None, f"the property drivers broke {properties.killer} warm, not a declared invariant"
        found = server.judge("pytest", label, scratch_dir, seed, SUITE_TIMEOUT,
                             priority=tests_near(root, entry, durations), **common)
        if "not_patchable" in found or "crashed" in found:
            return None, found.get("not_patchable") or found["crashed"]
        tests = _outcome(found)
        if (tests.killer or "").endswith(scratch.DEADLINE_MARK):
            return None, "a test ran past its deadline warm: confirmed cold"
        status, detail = judge(entry, properties, tests)
        if status != KILLED:
            return None, "no test failed warm"
        return EntryResult(entry, KILLED, properties.killer, tests.killer, "ok", time.monotonic() - started,
                           entry.first_line(root), path="warm"), ""
    finally:
        shutil.rmtree(scratch_dir, ignore_errors=True)


def killer_tests(results: list[EntryResult]) -> list[str]:
    """What to run unmutated to vouch for these kills: each killing test (its module, for a collection error)."""
    found: list[str] = []
    for result in results:
        test = result.test_killer
        if not test or test.startswith("pytest exit"):
            continue
        test = test.removesuffix(" [deadline]").removeprefix("collection error: ")
        if test not in found and test != "(session)":
            found.append(test)
    return found


def _verdict(suite: str, path: str, outcome: scratch.Outcome, crashed: str = "") -> str:
    if outcome.exit_code == 0:
        return ""
    what = crashed or (outcome.failures[0] if outcome.failures else f"exit {outcome.exit_code}")
    return f"{suite} fails unmutated on the {path} path ({what})"


def _baseline(root: Path, seed: int, durations: Path | None, work: Path, tests: list[str],
              property_levels: bool) -> tuple[str, bool]:
    """The unmutated code on the cold path: the property drivers pass, and so does every test that killed an
    entry there. Returns (verdict, whether the property drivers exist).

    A kill means something only when the killing test passes without the edit, and a driver's kill only
    when the drivers pass without it; that is exactly what is checked. The whole suite's unmutated run is
    mutmut's clean run and CI's ``nox -s tests``.
    """
    parent = Path(tempfile.mkdtemp(prefix="baseline-", dir=work))
    try:
        copy = scratch.make(root, parent)
        problems = []
        available = True
        if property_levels:
            properties = scratch.run_properties(copy, "catalogue:baseline", seed, SUITE_TIMEOUT)
            available = not scratch.properties_missing(properties)
            if available and properties.exit_code != 0:
                problems.append(f"the property drivers fail unmutated (exit {properties.exit_code}, "
                                f"{properties.killer or 'no invariant named'})")
        if tests:
            outcome = scratch.run_pytest(copy, "catalogue:baseline", durations, stop_at_first=False, timeout=SUITE_TIMEOUT,
                                         extra=tuple(tests))
            problems.append(_verdict("a killing test", "cold", outcome))
        return ("; ".join(problem for problem in problems if problem) or "ok"), available
    finally:
        shutil.rmtree(parent, ignore_errors=True)


def _warm_baseline(server: "warm.Server", seed: int, work: Path, tests: list[str], property_levels: bool) -> str:
    """The same on the warm path, in forks with no edit: "ok" or the problem."""
    scratch_dir = Path(tempfile.mkdtemp(prefix="warm-baseline-", dir=work))
    try:
        problems = []
        if property_levels:
            found = server.judge("properties", "catalogue:baseline", scratch_dir, seed, SUITE_TIMEOUT)
            problems.append(_verdict("the property drivers", "warm", _outcome(found), found.get("crashed", "")))
        if tests:
            found = server.judge("pytest", "catalogue:baseline", scratch_dir, seed, SUITE_TIMEOUT, tests=tests)
            problems.append(_verdict("a killing test", "warm", _outcome(found), found.get("crashed", "")))
        return "; ".join(problem for problem in problems if problem) or "ok"
    finally:
        shutil.rmtree(scratch_dir, ignore_errors=True)


#: The live progress line of this layer (``properties.progress``).
LABEL = "layer 2: rule catalogue"


def run(root: Path, entries: tuple[Entry, ...], jobs: int, seed: int, durations: Path | None,
        progress: Callable[[str], None] = print, cache: Path | None = None, use_warm: bool = True) -> CatalogueResult:
    """Run every entry; with ``cache``, a kill whose ``entry_key`` is unchanged is reused (only kills are cached).

    ``use_warm``: judge entries that only change function bodies on the warm
    path first (``mutations.warm``); off, every entry is judged cold.
    """
    import threading

    from mutations import warm
    from properties import progress as live

    started = time.monotonic()
    work = Path(tempfile.mkdtemp(prefix="guard-catalogue-"))
    cached = content_cache.Cache.load(cache)
    context = content_cache.judging_sources(root)
    keys = {entry.id: entry_key(entry, seed, context) for entry in entries}
    hits = {entry.id: hit for entry in entries if (hit := cached.get(entry.id, keys[entry.id])) is not None}
    why_cold = {entry.id: ("warm path off" if not use_warm else warm.patchable(root, entry)) for entry in entries}
    local = threading.local()
    servers: list[warm.Server] = []
    lock = threading.Lock()
    warm_state = {"baseline": "not run", "error": ""}

    def server() -> "warm.Server | None":
        found = getattr(local, "server", None)
        if found is None and not warm_state["error"]:
            try:
                parent = Path(tempfile.mkdtemp(prefix="warm-server-", dir=work))
                found = local.server = warm.Server(scratch.make(root, parent), durations)
                with lock:
                    servers.append(found)
            except (warm.ServerError, OSError) as error:
                warm_state["error"] = str(error)
                return None
        return found

    def judge_entry(entry: Entry) -> EntryResult:
        reason = why_cold[entry.id]
        if reason is None:
            chosen = server()
            if chosen is None:
                reason = f"no warm server: {warm_state['error']}"
            else:
                try:
                    result, reason = _run_entry_warm(chosen, root, entry, seed, durations, work)
                except warm.ServerError as error:
                    result, reason = None, str(error)
                if result is not None:
                    return result
                reason = f"warm: {reason}"
        result = _run_entry(root, entry, seed, durations, work)
        result.why_cold = reason or ""
        return result

    def warm_baseline(kills: list[EntryResult]) -> None:
        chosen = server()
        if chosen is None:
            warm_state["baseline"] = f"no warm server: {warm_state['error']}"
            return
        try:
            warm_state["baseline"] = _warm_baseline(chosen, seed, work, killer_tests(kills),
                                                    any(judged_by_verdict(result.entry) for result in kills))
        except warm.ServerError as error:
            warm_state["baseline"] = str(error)

    try:
        with ThreadPoolExecutor(max_workers=jobs) as pool:

            def cold_baseline() -> "Future[tuple[str, bool]] | None":
                kills = [result for result in results if result.path == "cold"]
                if not kills:
                    return None
                return pool.submit(_baseline, root, seed, durations, work, killer_tests(kills),
                                   any(judged_by_verdict(result.entry) for result in kills))

            def show(result: EntryResult) -> None:
                live.update(LABEL, done=len(results), total=len(entries), unit="entries", eta=True)
                where = result.path + (f" ({result.why_cold})" if result.path == "cold" and result.why_cold.startswith("warm") else "")
                progress(f"  catalogue| {result.entry.id:<44} {result.status:<18} {result.killer or result.detail}"
                         f"  ({result.seconds:.1f}s, {where})")

            futures = [None if entry.id in hits else pool.submit(judge_entry, entry) for entry in entries]
            results = []
            for entry, future in zip(entries, futures):
                results.append(_cached(entry, hits[entry.id]) if future is None else future.result())
                show(results[-1])
            # The baselines vouch for this run's kills, each on its own path (a cached kill was vouched for when
            # it was made, on the same sources).
            warm_kills = [result for result in results if result.path == "warm"]
            warm_future = pool.submit(warm_baseline, warm_kills) if warm_kills else None
            baseline_future = cold_baseline()
            if warm_future is not None:
                warm_future.result()
                if warm_state["baseline"] != "ok":
                    # Without a passing warm baseline a warm kill proves nothing: judge those entries again, cold.
                    progress(f"  catalogue| warm baseline: {warm_state['baseline']}; warm kills are judged again cold")
                    redo = {index: pool.submit(_run_entry, root, result.entry, seed, durations, work)
                            for index, result in enumerate(results) if result.path == "warm"}
                    for index, future in redo.items():
                        results[index] = future.result()
                        results[index].why_cold = f"warm baseline: {warm_state['baseline']}"
                        show(results[index])
                    if baseline_future is not None:
                        baseline_future.result()
                    baseline_future = cold_baseline()
            baseline, available = (baseline_future.result() if baseline_future is not None
                                   else ("not run (no entry killed on the cold path this run)", True))
        progress(f"  catalogue| baseline, cold path: {baseline}; warm path: {warm_state['baseline']}")
    finally:
        for found in servers:
            found.close()
        shutil.rmtree(work, ignore_errors=True)
    for result in results:
        if result.status == KILLED:
            cached.keep(result.entry.id, keys[result.entry.id], {"properties_killer": result.properties_killer,
                                                                 "test_killer": result.test_killer, "line": result.line})
    cached.save()
    return CatalogueResult(results, baseline, available, time.monotonic() - started, warm_baseline=warm_state["baseline"])
