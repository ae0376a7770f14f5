"""Part 4 of the review (``python -m properties.review``): mutation of the change, and the change's own tests.

* mutmut on the changed functions only: a scratch copy of HEAD
  (``scratch.make``), mutmut generates every mutant there and is handed only
  the names of mutants in the changed units (``mutmut_layer.run`` with
  ``select``). Its first run on a fresh copy still collects mutmut's test
  statistics over the whole suite: that is mutmut's cost, not the review's
  choice, and the dominant part of a review's wall time.
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


def mutate_changed(head: Path, units: set[tuple[str, str]], entry_ids: list[str], work: Path, jobs: int, seed: int,
                   progress: Any = print) -> tuple[Any, Any, Path]:
    """mutmut on ``units`` and the catalogue entries ``entry_ids``, on a scratch copy of ``head``.

    Returns (mutmut result or None, catalogue result or None, the copy)."""
    from mutations import catalogue, catalogue_runner, equivalents, mutmut_layer

    copy = scratch.make(head, work / "mutate")
    reports = work / "mutate-reports"
    reports.mkdir(parents=True, exist_ok=True)
    mutmut_result = None
    if any(path.startswith("guard/") for path, _name in units):
        def select(name: str) -> bool:
            return unit_of_mutant(name) in units

        previous = Path.cwd()
        try:
            os.chdir(copy)
            mutmut_result = mutmut_layer.run(copy, jobs, equivalents.load(), reports, select=select)
        finally:
            os.chdir(previous)
    catalogue_result = None
    chosen = tuple(entry for entry in catalogue.entries() if entry.id in set(entry_ids))
    if chosen:
        catalogue_result = catalogue_runner.run(copy, chosen, jobs, seed, None, progress=progress)
    return mutmut_result, catalogue_result, copy


def changed_tests(head: Path, base: str) -> tuple[list[str], list[str]]:
    """Test files the change added or edited (as HEAD has them), and the tests in them it added or edited, as
    ``path::name`` (``path::Class.name`` for a method), found by ``properties.review.changes.changed_units``."""
    from properties.review.changes import changed_units, git

    done = git(head, "diff", "--name-only", "--diff-filter=AM", base, "HEAD", "--", "tests/")
    files = [name for name in done.stdout.split() if Path(name).name.startswith("test_") and name.endswith(".py")
             and (head / name).is_file()]
    tests = []
    for file in files:
        before = git(head, "show", f"{base}:{file}")
        old = {file: before.stdout} if before.returncode == 0 else {}
        for unit in changed_units(old, {file: (head / file).read_text(encoding="utf-8")}):
            if unit.kind != "removed" and unit.name.rpartition(".")[2].startswith("test"):
                tests.append(f"{file}::{unit.name}")
    return files, tests


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
