"""Issue 18, part 1: no core module of ``properties/`` imports a subject, and subjects import only what they drive.

Read from the source (every ``import`` and ``from ... import``, at any depth of
a module, so a lazy import inside a function counts too), against the
registry's subjects and their ``Subject.drives``.
"""

from __future__ import annotations

import ast
from pathlib import Path

from properties.paths import ROOT
from properties.subject import available

PROPERTIES = ROOT / "properties"


def imported(path: Path) -> set[str]:
    """Every module ``path`` imports (``from properties import budget`` counts as ``properties.budget``)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def subjects_in(modules: set[str], names: set[str]) -> set[str]:
    return {module.split(".")[1] for module in modules if module.startswith("properties.") and module.split(".")[1] in names}


def test_the_core_imports_no_subject() -> None:
    names = {subject.name for subject in available()} | {"lookup"}
    offenders = {
        path.name: sorted(subjects_in(imported(path), names))
        for path in sorted(PROPERTIES.glob("*.py"))
        if subjects_in(imported(path), names)
    }
    assert not offenders, f"core modules that import a subject: {offenders}"


def test_subjects_import_only_the_subjects_they_drive() -> None:
    subjects = {subject.name: subject for subject in available()}
    wrong = {}
    for name, subject in subjects.items():
        for path in sorted((PROPERTIES / name).glob("*.py")):
            others = subjects_in(imported(path), set(subjects)) - {name} - set(subject.drives)
            if others:
                wrong[f"{name}/{path.name}"] = sorted(others)
    assert not wrong, f"subject modules importing an undeclared subject: {wrong}"


def test_the_scan_sees_an_import_inside_a_function(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("def f():\n    from properties.budget import replay\n    import properties.hooks.monitor\n")
    assert subjects_in(imported(sample), {"budget", "hooks"}) == {"budget", "hooks"}
