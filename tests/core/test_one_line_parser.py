"""Every command line of the project parses with one parser (``properties.cli.OneLineParser``).

A bad option reads the same in every command: the command's name, one line
naming the option, exit status 2, no usage dump and no traceback. The
parser and its error are written once; this test keeps it that way (a new
command that subclasses ``argparse.ArgumentParser`` on its own would print
argparse's usage block and its own exit code).
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from properties.paths import ROOT

#: Every command a user runs, the name its messages start with, and the words before the bad option.
COMMANDS = [
    ("properties", "python -m properties", ()),
    ("properties.replay", "python -m properties.replay", ()),
    ("properties.regressions", "python -m properties.regressions", ("check",)),
    ("properties.seed_margins", "python -m properties.seed_margins", ()),
    ("properties.review", "python -m properties.review", ()),
    ("properties.fuzz", "nox -s fuzz", ()),
    ("mutations", "python -m mutations", ()),
    ("mutations.verdict_alone", "python -m mutations.verdict_alone", ()),
]


def _parser_classes(path: Path) -> list[str]:
    """Classes in ``path`` that derive from ``argparse.ArgumentParser`` (by name, as the code spells it)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ClassDef):
            for base in node.bases:
                if ast.unparse(base) in ("argparse.ArgumentParser", "ArgumentParser"):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
    return found


def test_one_parser_class_in_the_project() -> None:
    sources = [path for folder in ("properties", "mutations", "guard", "reference") for path in (ROOT / folder).rglob("*.py")]
    classes = [found for path in sources for found in _parser_classes(path)]
    assert [entry.split(" ")[1] for entry in classes] == ["OneLineParser"], classes
    assert classes[0].startswith("properties/cli.py:")


@pytest.mark.parametrize(("module", "name", "before"), COMMANDS, ids=[command[0] for command in COMMANDS])
def test_a_bad_option_is_one_line_and_exit_2(module: str, name: str, before: tuple[str, ...]) -> None:
    environment = {key: value for key, value in os.environ.items() if key not in ("HYPOTHESIS_PROFILE", "MUTANT_UNDER_TEST")}
    environment["PYTHONPATH"] = str(ROOT)
    done = subprocess.run([sys.executable, "-m", module, *before, "--no-such-option"], cwd=ROOT, env=environment,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0] == f"{name}: unrecognized arguments: --no-such-option"
    assert "Traceback" not in done.stderr and "usage:" not in done.stderr
