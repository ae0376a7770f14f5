"""Every invariant of every subject has a planted-bug probe (issue 22: "every invariant falsifiable").

The invariants come from the subject registry (``properties.subject.available()``), so a subject that joins
the verdict, or an invariant added to a catalogue, fails here until a probe shows it violated. The probes come
from the probe modules' ``PROBED`` index (``properties.probes``): every ``tests/<subject>/test_*probe*.py`` but
this one.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Iterable

from properties.probes import Probes
from properties.subject import Subject, available

TESTS = Path(__file__).resolve().parents[1]


def probe_modules() -> list[Path]:
    """Every ``tests/<dir>/test_*probe*.py`` but this file (which indexes them)."""
    return sorted(path for path in TESTS.glob("*/test_*probe*.py") if path != Path(__file__).resolve())


def load(path: Path) -> ModuleType:
    """Import a probe module by its path, under a name of its own (pytest may hold it under its bare name)."""
    spec = importlib.util.spec_from_file_location(f"probe_index_{path.parent.name}_{path.stem}", path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def probed(modules: Iterable[tuple[str, ModuleType]]) -> dict[str, list[str]]:
    """Invariant id -> "module::test" of each probe; fails on a module without an index or an index naming no test."""
    found: dict[str, list[str]] = {}
    for name, module in modules:
        index = getattr(module, "PROBED", None)
        assert isinstance(index, Probes), f"{name} looks like a probe module but has no PROBED = Probes()"
        for invariant_id, tests in index.by_invariant.items():
            for test in tests:
                # An index entry must be a test pytest runs, or it would vouch for a probe that never runs.
                assert test.startswith("test_") and callable(getattr(module, test, None)), f"{name}: {test} is not a test"
                found.setdefault(invariant_id, []).append(f"{name}::{test}")
    return found


def missing(subjects: Iterable[Subject], probes: dict[str, list[str]]) -> list[str]:
    """One line per invariant without a probe, naming its subject, id and title."""
    return [
        f"{subject.name} {invariant.id} ({invariant.title}) has no planted-bug probe"
        for subject in subjects
        for invariant in subject.catalogue
        if invariant.id not in probes
    ]


def test_every_invariant_of_every_subject_has_a_probe() -> None:
    subjects = available()
    modules = [(str(path.relative_to(TESTS)), load(path)) for path in probe_modules()]
    probes = probed(modules)
    known = {invariant.id for subject in subjects for invariant in subject.catalogue}
    assert set(probes) <= known, f"probes name unknown invariants: {sorted(set(probes) - known)}"
    gaps = missing(subjects, probes)
    assert not gaps, "\n".join(gaps)


def test_the_index_reports_an_invariant_without_a_probe() -> None:
    # The check itself can fail: with one budget invariant's probe taken away, that invariant is named.
    budget = next(subject for subject in available() if subject.name == "budget")
    everything = {invariant.id: ["x::test_x"] for invariant in budget.catalogue}
    del everything["B7"]
    assert missing([budget], everything) == ["budget B7 (only a passing correction rescues) has no planted-bug probe"]
