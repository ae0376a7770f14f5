"""The architecture's import contracts (``[tool.importlinter]`` in pyproject.toml, run by ``nox -s lint``) hold on
the tree, and fail when a module of the core of ``properties/`` imports a subject.

Run on a copy of the packages, so the planted import never touches the checkout. import-linter is pinned in the
``lint`` group, which ``nox -s tests`` installs too; a missing one fails here naming the package.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from properties.paths import ROOT

COMMAND = [sys.executable, "-c", "from importlinter.cli import lint_imports_command; lint_imports_command()",
           "--no-cache"]


def _copy(tmp_path: Path) -> Path:
    try:
        import importlinter  # noqa: F401  (only whether it is there)
    except ImportError:
        pytest.fail("import-linter is not installed: pip install import-linter==2.16 (nox -s tests and nox -s lint "
                    "install it)")
    copy = tmp_path / "project"
    for name in ("guard", "reference", "properties", "mutations"):
        shutil.copytree(ROOT / name, copy / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", copy / "pyproject.toml")
    return copy


def _lint(copy: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(COMMAND, cwd=copy, env={"PYTHONPATH": str(copy), "PATH": "/usr/bin:/bin"},
                          capture_output=True, text=True, timeout=300)


def test_the_contracts_hold_and_break_when_the_core_imports_a_subject(tmp_path: Path) -> None:
    copy = _copy(tmp_path)
    kept = _lint(copy)
    assert kept.returncode == 0, kept.stdout + kept.stderr
    assert "0 broken" in kept.stdout
    # properties/report.py is core: it reaches the subjects through the registry only.
    report = copy / "properties" / "report.py"
    report.write_text(report.read_text(encoding="utf-8") + "\nimport properties.navigation.subject  # planted\n",
                      encoding="utf-8")
    broken = _lint(copy)
    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert "properties.report is not allowed to import properties.navigation" in " ".join(broken.stdout.split())


def test_the_contracts_break_when_guard_imports_the_harness(tmp_path: Path) -> None:
    copy = _copy(tmp_path)
    limits = copy / "guard" / "limits.py"
    limits.write_text(limits.read_text(encoding="utf-8") + "\nimport properties.paths  # planted\n", encoding="utf-8")
    broken = _lint(copy)
    assert broken.returncode == 1, broken.stdout + broken.stderr
    assert "guard is not allowed to import properties: - guard.limits -> properties.paths" in " ".join(broken.stdout.split())
