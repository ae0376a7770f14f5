"""The oracle cannot change by accident, and the oracle and the subject stay independent."""

from __future__ import annotations

import ast
from pathlib import Path

from properties import pin
from properties.paths import ROOT


def test_reference_matches_its_pin() -> None:
    changes = pin.differences(pin.pinned(), pin.digests())
    assert changes == [], f"reference/ changed without adoption: {changes}; run nox -s adopt-reference deliberately"


def test_pin_notices_an_edit(tmp_path: Path) -> None:
    copy = tmp_path / "reference"
    copy.mkdir()
    for source in (ROOT / "reference").glob("*.py"):
        (copy / source.name).write_bytes(source.read_bytes())
    assert pin.differences(pin.pinned(), pin.digests(copy)) == []
    budget = copy / "budget.py"
    budget.write_text(budget.read_text().replace("consecutive_failures: int = attrs.field(default=4", "consecutive_failures: int = attrs.field(default=5"))
    assert pin.differences(pin.pinned(), pin.digests(copy)) == ["changed: reference/budget.py"]


def _imported_roots(folder: Path) -> set[str]:
    roots = set()
    for path in folder.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Import):
                roots.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                roots.add(node.module.split(".")[0])
    return roots


def test_reference_imports_nothing_from_guard() -> None:
    assert "guard" not in _imported_roots(ROOT / "reference")


def test_guard_imports_nothing_from_reference_or_the_harness() -> None:
    roots = _imported_roots(ROOT / "guard")
    assert not roots & {"reference", "properties", "mutations", "tests"}, roots
