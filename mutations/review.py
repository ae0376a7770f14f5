"""Part 4 of the review (``python -m properties.review``): mutation of the change, and the change's own tests.

* mutmut on the changed functions only: a scratch copy of HEAD
  (``scratch.make``), mutmut generates every mutant there and is handed only
  the names of mutants in the changed units (``mutmut_layer.run`` with
  ``select``). mutmut's first run on a fresh copy collects its test
  statistics over every test it is given, so before it each mutant gets one
  pytest run over the test files that import a changed module, up to the
  first failure; mutmut then sees only those files for what that did not
  kill, and only the mutants those do not kill are tested again over the
  whole suite (``mutate_changed``).
* a survivor in a function BASE had too is matched with its twin at BASE
  (``against_base``: the same unit and the same one-line diff, never the
  line number) and that twin is tested with BASE's own suite; a survivor
  whose twin survived there too is carried over, not new. Only survivors
  pay for this: a change whose mutants all die never runs BASE's suite.
* the catalogue entries whose spans lie in the changed units
  (``properties.review.changes.attach_entries``) run through the catalogue
  runner on that copy, as ``nox -s mutants`` runs them.
* the test files the change added or edited (``git diff --name-only BASE --
  tests/``) run on two scratch copies of HEAD, one with BASE's ``guard/`` in
  place of HEAD's: a test that passes on both does not tell them apart.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path
from typing import Any, Iterable

import attrs

from mutations import scratch

_MUTANT_SUFFIX = re.compile(r"__mutmut_\d+$")


def unit_of_mutant(name: str) -> tuple[str, str] | None:
    """(module path ``guard/budget.py``, unit name ``Class.method`` or ``function``) of a mutmut 3.8 mutant name."""
    stem = _MUTANT_SUFFIX.sub("", name)
    parts = stem.split(".")
    for index in range(len(parts) - 1, 0, -1):
        piece = ".".join(parts[index:])
        if piece.startswith("x\u01c1"):
            owner, _, function = piece[2:].partition("\u01c1")
            return "/".join(parts[:index]) + ".py", f"{owner}.{function}"
        if piece.startswith("x_"):
            return "/".join(parts[:index]) + ".py", piece[2:]
    return None


def nearby_tests(root: Path, modules: set[str]) -> list[str]:
    """The test files of ``root`` that import one of ``modules`` (``guard.budget``) by name, as paths relative to
    ``root``, sorted; files mutmut's own options leave out (``--ignore=``) are not among them.

    A plain reading of each file's import lines: which tests run a function is mutmut's statistics' business, this
    only picks the files likely to hold its killers (``mutate_changed``'s first stage)."""
    from mutations.mutmut_layer import ignored_tests

    patterns = []
    for module in sorted(modules):
        package, _, last = module.rpartition(".")
        dotted = re.escape(module)
        patterns.append(rf"^\s*from\s+{dotted}\s+import\b|^\s*import\s+{dotted}\b")
        if package:
            patterns.append(rf"^\s*from\s+{re.escape(package)}\s+import\s+[^\n]*\b{re.escape(last)}\b")
    if not patterns:
        return []
    found = re.compile("|".join(patterns), re.MULTILINE)
    ignored = ignored_tests(root)
    out = []
    for path in sorted((root / "tests").rglob("test_*.py")):
        name = path.relative_to(root).as_posix()
        if "__pycache__" in path.parts or name in ignored or any(name.startswith(i.rstrip("/") + "/") for i in ignored):
            continue
        if found.search(path.read_text(encoding="utf-8", errors="replace")):
            out.append(name)
    return out


def mutate_changed(head: Path, units: set[tuple[str, str]], entry_ids: list[str], work: Path, jobs: int, seed: int,
                   progress: Any = print) -> tuple[Any, Any, Path]:
    """mutmut on ``units`` and the catalogue entries ``entry_ids``, on a scratch copy of ``head``.

    The mutants are judged in up to three stages, each only for what the
    one before did not kill. Stage 0 (``mutmut_layer.kill_near``) runs
    pytest once per mutant (forked from one collection of the files by the
    catalogue's warm server, ``mutations.warm``) over the test files that import a changed module
    (``nearby_tests``, those naming a changed function first), stopping at
    the first failure: a kill there is a test that fails with the mutant
    active and passes without it, and it costs those tests up to the first
    failure instead of mutmut's statistics over all of them. The first
    mutant that passes every nearby test goes straight to stage 2; at the
    next one it does not kill, it stops, and stage 1 takes the rest. Stage 1
    is mutmut on a copy whose mutmut sees only the nearby files: its
    statistics then cost those files, not the whole suite. A mutant one of
    them kills (or a confirmed hang, or the type check) is killed: a test of
    HEAD's suite fails with it active, whichever tests a whole run would
    have tried first. Every other mutant
    (survived, no tests, timed out, suspicious, or all of them when that
    stage failed: a red file, or none of those files reaching a changed
    function) is tested again in stage 2, on a fresh copy, by mutmut over
    the whole suite, exactly as a single run would test it. So a survivor is
    always a survivor of the whole suite, and the whole suite's statistics
    are paid only when something does not die near its code. Listed
    equivalents are judged once, over all stages (``mutmut_layer.combine``).

    Returns (mutmut result or None, catalogue result or None, the copy)."""
    from mutations import catalogue, catalogue_runner, equivalents, mutmut_layer

    copy = scratch.make(head, work / "mutate")
    reports = work / "mutate-reports"
    reports.mkdir(parents=True, exist_ok=True)
    mutmut_result = None
    if any(path.startswith("guard/") for path, _name in units):
        def select(name: str) -> bool:
            return unit_of_mutant(name) in units

        modules = {path.removesuffix(".py").replace("/", ".") for path, _name in units if path.startswith("guard/")}
        near = ordered_nearby(copy, nearby_tests(copy, modules), {name for path, name in units if path.startswith("guard/")})
        direct = None
        if near:
            print(f"  mutations| stage 0: one pytest run per mutant, forked from one collection of the {len(near)} "
                  f"test files that import "
                  f"{', '.join(sorted(modules))}, first failure kills", flush=True)
            direct = mutmut_layer.kill_near(copy, jobs, select, near, reports / "direct")
            if not direct.run_ok:
                print(f"  mutations| stage 0 did not run ({direct.run_message}): mutmut tests every mutant", flush=True)
                direct = None
        if direct is None:
            rest, copy = _later_stages(head, copy, work, reports, jobs, near, select, None, set())
            mutmut_result = mutmut_layer.combine(rest, {m.name for m in rest.mutants}, None, equivalents.load(), select,
                                                 label="")
        else:
            killed = {m.name for m in direct.mutants if m.status in mutmut_layer.DETECTED}
            survived = {m.name for m in direct.mutants if m.status == mutmut_layer.SURVIVED}
            untested = {m.name for m in direct.mutants if m.status == mutmut_layer.NOT_CHECKED}
            print(f"  mutations| stage 0: {len(killed)} of {len(direct.mutants)} mutants killed, {len(survived)} "
                  f"passed every nearby test, {len(untested)} left to mutmut", flush=True)
            later = None
            if survived or untested:
                later, copy = _later_stages(head, copy, work, reports, jobs, near,
                                            lambda name: select(name) and name not in killed, untested, survived)
            mutmut_result = mutmut_layer.combine(direct, killed, later, equivalents.load(), select, label="stage 0")
    catalogue_result = None
    chosen = tuple(entry for entry in catalogue.entries() if entry.id in set(entry_ids))
    if chosen:
        catalogue_result = catalogue_runner.run(copy, chosen, jobs, seed, None, progress=progress)
    return mutmut_result, catalogue_result, copy


def _later_stages(head: Path, copy: Path, work: Path, reports: Path, jobs: int, near: list[str], select: Any,
                  untested: set[str] | None, survived: set[str]) -> tuple[Any, Path]:
    """Stages 1 and 2 (see ``mutate_changed``) for the mutants ``select`` accepts: mutmut over the nearby test
    files ``near`` for ``untested`` (None: every one), then over the whole suite for what that did not kill and
    for ``survived`` (those stage 0 saw pass every nearby test). One result, listed equivalents not yet judged,
    and the copy the last run used."""
    from mutations import mutmut_layer

    first = None
    final: set[str] = set()
    rest: list[str] | None = sorted(survived)
    if untested is None or untested:
        problem = mutmut_layer.restrict_tests(copy, near) if near else "no test file imports a changed module"
        if problem:
            print(f"  mutations| one stage, over the whole suite: {problem}", flush=True)
            rest = None
        else:
            print(f"  mutations| stage 1: mutmut with the {len(near)} test files near the change", flush=True)
            first = _mutmut_in(copy, jobs, [], reports / "nearby", lambda name: select(name) and name not in survived)
            final = {m.name for m in first.mutants if m.status in mutmut_layer.DETECTED} if first.run_ok else set()
            rest = [m.name for m in first.mutants if m.name not in final] + sorted(survived) if first.run_ok else None
    second = None
    if rest is None or rest:
        print(f"  mutations| stage 2: mutmut over the whole suite for {len(rest) if rest is not None else 'every'}"
              " mutant the nearby tests did not kill", flush=True)
        # A copy whose mutmut saw only the nearby files would keep that selection: the whole suite needs a fresh one.
        whole = scratch.make(head, work / "mutate-whole") if first is not None else copy
        second = _mutmut_in(whole, jobs, [], reports, (lambda name: select(name) and name not in final))
        copy = whole
    if first is None:  # one stage, over the whole suite: its result is the whole
        assert second is not None
        return second, copy
    return mutmut_layer.combine(first, final, second, [], select), copy


def ordered_nearby(root: Path, tests: list[str], units: set[str]) -> list[str]:
    """``tests`` in the order stage 0 runs them: first the files that name a changed function (the last part of
    each unit, ``RunProgressBudget._observe`` -> ``_observe``) as a word, then the rest; each group smallest
    file first. Only an order (a cheap first guess at which tests reach the change): every file still runs
    for a mutant that none of the earlier ones kills."""
    names = sorted({last for last in (unit.rpartition(".")[2] for unit in units) if last and not last.startswith("<")})
    named = re.compile(r"\b(?:" + "|".join(re.escape(name) for name in names) + r")\b") if names else None

    def key(test: str) -> tuple[bool, int, str]:
        path = root / test
        text = path.read_text(encoding="utf-8", errors="replace")
        return (named is None or not named.search(text), path.stat().st_size, test)

    return sorted(tests, key=key)


def _mutmut_in(copy: Path, jobs: int, listed: list[Any], reports: Path, select: Any) -> Any:
    """``mutmut_layer.run`` with ``copy`` as the working folder (mutmut reads its configuration from there)."""
    from mutations import mutmut_layer

    reports.mkdir(parents=True, exist_ok=True)
    previous = Path.cwd()
    try:
        os.chdir(copy)
        return mutmut_layer.run(copy, jobs, listed, reports, select=select)
    finally:
        os.chdir(previous)


def survived(status: str) -> bool:
    """Whether a mutant with this status counts as a survivor: tested (a mutant mutmut never ran is untested, not
    a survivor), and not killed, caught, a confirmed hang or a listed equivalent (``mutations/equivalents.toml``
    of the tree it was judged in)."""
    from mutations.mutmut_layer import DETECTED, EQUIVALENT, NOT_CHECKED

    return status not in DETECTED and status not in (EQUIVALENT, NOT_CHECKED)


def twin_key(mutant: Any) -> tuple[str, str, str]:
    """What makes two mutants, one at BASE and one at HEAD, the same mutation: the module, the unit (qualified
    name) and the one-line diff (the replaced text and its replacement, whitespace folded), never the line number
    or mutmut's serial number, which any edit above them shifts."""
    unit = unit_of_mutant(mutant.name)
    return mutant.path, unit[1] if unit else mutant.name, mutant.one_line


def _serial(name: str) -> int:
    found = _MUTANT_SUFFIX.search(name)
    return int(found.group(0).rpartition("_")[2]) if found else 0


def _numbered(mutants: Iterable[Any]) -> dict[tuple[tuple[str, str, str], int], Any]:
    """Each mutant under (its twin key, how many mutants with that key come before it in mutmut's order), so that
    a line mutated the same way twice in one function pairs first with first and second with second."""
    seen: dict[tuple[str, str, str], int] = {}
    out = {}
    for mutant in sorted(mutants, key=lambda m: (m.path, unit_of_mutant(m.name) or ("", ""), _serial(m.name))):
        key = twin_key(mutant)
        out[(key, seen.get(key, 0))] = mutant
        seen[key] = seen.get(key, 0) + 1
    return out


def pair_twins(head: Iterable[Any], base: Iterable[Any]) -> dict[str, str]:
    """HEAD mutant name -> the name of its twin among ``base`` (same ``twin_key``, same rank among equal keys in
    mutmut's order), for every HEAD mutant that has one."""
    at_base = _numbered(base)
    return {mutant.name: at_base[key].name for key, mutant in _numbered(head).items() if key in at_base}


#: ``BaseTwins.at_base`` for a survivor whose mutation does not exist at BASE (new code, or new text).
ABSENT = "absent"


@attrs.frozen
class BaseTwins:
    """HEAD's survivors of the change, each matched with the same mutation at BASE and judged by BASE's tests.

    A survivor is new unless its twin at BASE was a survivor too (or a listed equivalent there): the change did
    not create it, and the review reports it as carried over instead of failing on it. Where BASE could not be
    judged (``problem``), every survivor stays new: a review never excuses what it did not check."""

    #: HEAD survivor name -> its twin's status at BASE (a ``mutmut_layer`` status), or ``ABSENT``.
    at_base: dict[str, str]
    #: HEAD survivor name -> the twin's name at BASE.
    twins: dict[str, str]
    problem: str = ""
    seconds: float = 0.0

    def carried(self, name: str) -> bool:
        """Whether the survivor ``name`` survived at BASE too: its twin was tested there and no test killed it
        (or BASE lists it as equivalent). A twin mutmut did not get to (not checked, interrupted) excuses nothing."""
        from mutations.mutmut_layer import EQUIVALENT, NO_TESTS, SURVIVED

        return not self.problem and self.at_base.get(name, ABSENT) in (SURVIVED, NO_TESTS, EQUIVALENT)


def against_base(base_tree: Path, survivors: list[Any], work: Path, jobs: int) -> BaseTwins:
    """Judge the BASE twins of ``survivors`` (HEAD's mutants of the change that no test killed) with BASE's tests.

    BASE's mutants are generated on a scratch copy of BASE's tree and matched by ``twin_key``; only the matched
    ones are tested (mutmut with their names), with BASE's own ``mutations/equivalents.toml``, so a review whose
    change leaves no survivor, or only survivors in new code, never pays for BASE's suite."""
    import time

    from mutations import equivalents, mutmut_layer

    started = time.monotonic()
    units = {unit for unit in (unit_of_mutant(mutant.name) for mutant in survivors) if unit is not None}
    copy = scratch.make(base_tree, work / "mutate-base")
    previous = Path.cwd()
    try:
        os.chdir(copy)
        problem, base_mutants = mutmut_layer.described(copy, jobs, lambda name: unit_of_mutant(name) in units)
        if problem:
            return BaseTwins({}, {}, f"BASE's mutants could not be generated: {problem}", time.monotonic() - started)
        twins = pair_twins(survivors, base_mutants)
        if not twins:
            return BaseTwins({mutant.name: ABSENT for mutant in survivors}, {}, "", time.monotonic() - started)
        try:
            listed = equivalents.load(copy / "mutations" / "equivalents.toml")
        except equivalents.EquivalentsError as error:
            return BaseTwins({}, twins, f"BASE's equivalents list: {error}", time.monotonic() - started)
        chosen = set(twins.values())
        reports = work / "mutate-base-reports"
        reports.mkdir(parents=True, exist_ok=True)
        result = mutmut_layer.run(copy, jobs, listed, reports, select=lambda name: name in chosen)
    finally:
        os.chdir(previous)
    if not result.run_ok:
        return BaseTwins({}, twins, f"mutmut at BASE failed: {result.run_message}", time.monotonic() - started)
    status = {mutant.name: mutant.status for mutant in result.mutants}
    at_base = {mutant.name: status.get(twins[mutant.name], mutmut_layer.NOT_CHECKED) if mutant.name in twins else ABSENT
               for mutant in survivors}
    return BaseTwins(at_base, twins, "", time.monotonic() - started)


@attrs.define
class TestSides:
    files: list[str]
    #: The tests the change added or edited (``path::name``); only these are judged.
    tests: list[str] = attrs.field(factory=list)
    #: test case id (``path::name`` or ``path::name[param]``) -> "passed" | "failed" | "error" | "skipped", per side.
    head: dict[str, str] = attrs.field(factory=dict)
    base: dict[str, str] = attrs.field(factory=dict)
    problem: str = ""

    def _cases(self, test: str) -> list[str]:
        return [case for case in self.head if case == test or case.startswith(test + "[")]

    @property
    def fail_on_base(self) -> list[str]:
        """Changed tests with a case that passes at HEAD and fails (or errs) on BASE's guard."""
        return [test for test in self.tests
                if any(self.head[case] == "passed" and self.base.get(case) in ("failed", "error") for case in self._cases(test))]

    @property
    def pass_on_both(self) -> list[str]:
        """Changed tests every case of which passes on both sides: they do not tell BASE from HEAD."""
        return [test for test in self.tests if self._cases(test) and test not in self.fail_on_base
                and all(self.head[case] == "passed" and self.base.get(case) == "passed" for case in self._cases(test))]


def _outcomes(report: Path, root: Path) -> dict[str, str]:
    """Each test case's outcome from pytest's JUnit XML, keyed ``path::name`` (``path::Class.name``)."""
    if not report.is_file():
        return {}
    out = {}
    for case in ElementTree.parse(report).getroot().iter("testcase"):
        parts = case.get("classname", "").split(".")
        owner = ""
        path = "/".join(parts) + ".py"
        if not (root / path).is_file() and len(parts) > 1:
            path, owner = "/".join(parts[:-1]) + ".py", parts[-1] + "."
        outcome = "passed"
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                outcome = {"failure": "failed"}.get(child.tag, child.tag)
        out[f"{path}::{owner}{case.get('name', '')}"] = outcome
    return out


def _run_tests(copy: Path, files: Iterable[str], report: Path, timeout: float) -> str:
    env = scratch.environment(copy, "", None, None)
    env.pop("MUTANT_UNDER_TEST", None)  # these are ordinary runs, not runs under mutation
    try:
        subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--junitxml", str(report),
                        *files], cwd=copy, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"the changed tests ran past {timeout:.0f} s"
    return ""


def tests_on_both(head: Path, base_tree: Path, files: list[str], tests: list[str], work: Path,
                  timeout: float = 1200.0) -> TestSides:
    """Run ``files`` on a copy of HEAD and on a copy of HEAD whose ``guard/`` is BASE's; judge ``tests``."""
    sides = TestSides(files, tests)
    if not files:
        return sides
    head_copy = scratch.make(head, work / "tests-head")
    base_copy = scratch.make(head, work / "tests-base")
    shutil.rmtree(base_copy / "guard")
    shutil.copytree(base_tree / "guard", base_copy / "guard", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    problems = [_run_tests(head_copy, files, work / "head.xml", timeout), _run_tests(base_copy, files, work / "base.xml", timeout)]
    sides.head, sides.base = _outcomes(work / "head.xml", head_copy), _outcomes(work / "base.xml", base_copy)
    sides.problem = "; ".join(problem for problem in problems if problem)
    return sides
