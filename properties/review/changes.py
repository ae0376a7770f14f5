"""Part 1 of the review: the change, rule by rule.

Both versions of every Python file of ``guard/`` and ``reference/`` are
parsed with ``ast`` and cut into *units*: each top-level function
(``fingerprint``), each method (``RunProgressBudget.observe_result``), and
each class's or module's own statements without its functions
(``Limits.<body>``, ``<module>``), because a rule can live in a default
(``guard/limits.py``) as well as in a function. A unit is compared by its
source text with comments kept (a rule's comment is part of the rule, its
seed's name is read from it), so a change that only reformats code is
reported too: the review cannot know that reformatting is harmless, the
behaviour comparison says whether it was.
"""

from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path
from typing import Any

import attrs

FOLDERS = ("guard", "reference")
SEED_COMMENT = re.compile(r"#\s*Seed (\d{3})\b")
MODULE = "<module>"


@attrs.frozen
class Unit:
    """One function, method, class body or module body of one version of a file."""

    name: str
    text: str
    first: int
    last: int


@attrs.define
class Changed:
    """A unit added, removed or edited, with what the review knows about the rule it holds."""

    path: str
    name: str
    kind: str  # "added" | "removed" | "edited"
    seeds: list[str]
    #: HEAD's lines (BASE's for a removed unit), 1-based and inclusive.
    lines: tuple[int, int]
    entries: list[dict[str, Any]] = attrs.field(factory=list)

    @property
    def qualified(self) -> str:
        module = self.path.removesuffix(".py").replace("/", ".")
        return f"{module}.{self.name}"

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "name": self.name, "qualified": self.qualified, "kind": self.kind, "seeds": self.seeds,
                "lines": list(self.lines), "catalogue_entries": self.entries}


def units(source: str) -> dict[str, Unit]:
    """Every unit of ``source``; a file that does not parse is one unit, its whole text."""
    lines = source.splitlines()
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {MODULE: Unit(MODULE, source, 1, max(1, len(lines)))}
    found: dict[str, Unit] = {}

    def segment(node: ast.stmt) -> tuple[str, int, int]:
        # From the first decorator, so that a changed decorator is a changed function.
        first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
        last = node.end_lineno or node.lineno
        return "\n".join(lines[first - 1:last]), first, last

    def body(owner: str, statements: list[ast.stmt], first: int, last: int, whole: list[str]) -> None:
        # The owner's own statements: its text with every function's lines left out.
        inside = [True] * (last - first + 1)
        for node in statements:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
                for line in range(start, (node.end_lineno or node.lineno) + 1):
                    inside[line - first] = False
        text = "\n".join(line for line, keep in zip(whole[first - 1:last], inside) if keep)
        found[owner] = Unit(owner, text, first, last)

    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found[node.name] = Unit(node.name, *segment(node))
        elif isinstance(node, ast.ClassDef):
            text, first, last = segment(node)
            body(f"{node.name}.<body>", node.body, first, last, lines)
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    found[f"{node.name}.{item.name}"] = Unit(f"{node.name}.{item.name}", *segment(item))
    body(MODULE, tree.body, 1, max(1, len(lines)), lines)
    return found


def git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, errors="replace")


def files_at(root: Path, commit: str) -> dict[str, str]:
    """Every ``.py`` file of ``guard/`` and ``reference/`` at ``commit``, by path."""
    listed = git(root, "ls-tree", "-r", "--name-only", commit, "--", *FOLDERS).stdout.split()
    out = {}
    for path in listed:
        if path.endswith(".py"):
            shown = git(root, "show", f"{commit}:{path}")
            if shown.returncode == 0:
                out[path] = shown.stdout
    return out


def files_in(tree: Path) -> dict[str, str]:
    return {path.relative_to(tree).as_posix(): path.read_text(encoding="utf-8")
            for folder in FOLDERS for path in sorted((tree / folder).glob("**/*.py")) if "mutants" not in path.parts}


def changed_units(base: dict[str, str], head: dict[str, str]) -> list[Changed]:
    """Units added, removed or edited between the two versions, file by file, in HEAD's order."""
    out: list[Changed] = []
    for path in sorted(set(base) | set(head)):
        before = units(base[path]) if path in base else {}
        after = units(head[path]) if path in head else {}
        for name, unit in after.items():
            old = before.get(name)
            if old is None:
                if unit.text.strip():
                    out.append(Changed(path, name, "added", _seeds(unit.text), (unit.first, unit.last)))
            elif old.text != unit.text:
                out.append(Changed(path, name, "edited", _seeds(unit.text), (unit.first, unit.last)))
        for name, unit in before.items():
            if name not in after and unit.text.strip():
                out.append(Changed(path, name, "removed", _seeds(unit.text), (unit.first, unit.last)))
    return out


def _seeds(text: str) -> list[str]:
    return sorted(set(SEED_COMMENT.findall(text)))


def unit_at(text: str, line: int) -> str:
    """The name of the innermost unit holding ``line``: a function or method, else a class body, else the module."""
    best = MODULE
    width = None
    for unit in units(text).values():
        if unit.name == MODULE or not unit.first <= line <= unit.last:
            continue
        size = unit.last - unit.first
        if width is None or size < width:
            best, width = unit.name, size
    return best


def attach_entries(changed: list[Changed], head: dict[str, str], base: dict[str, str]) -> list[str]:
    """Put on each changed unit the catalogue entries whose spans lie in it (HEAD's file; BASE's for a removed
    unit). Returns the entries of changed files whose text no longer applies to HEAD: the change moved it."""
    from mutations.catalogue import entries
    from mutations.entry import CatalogueError

    drifted = []
    by_key = {(c.path, c.name): c for c in changed}
    for entry in entries():
        if not any(c.path == entry.file for c in changed):
            continue
        # HEAD's text first; an entry whose text the change removed is placed by BASE's text and marked so.
        for side, kinds, applies in ((head, ("added", "edited"), True), (base, ("removed", "edited"), False)):
            text = side.get(entry.file)
            if text is None:
                continue
            try:
                spans = entry.spans(text)
            except CatalogueError:
                if applies:
                    drifted.append(entry.id)
                continue
            names = {unit_at(text, span.start_line) for span in spans}
            for name in sorted(names):
                unit = by_key.get((entry.file, name))
                if unit is not None and (unit.kind in kinds) and (applies or unit.kind == "removed" or entry.id in drifted):
                    unit.entries.append({"id": entry.id, "seed": entry.seed, "rule": entry.rule,
                                         "breaks": list(entry.breaks), "line": spans[0].start_line,
                                         "applies_at_head": applies})
            if applies:
                break
    return drifted


def changed_tests(head: Path, base: str) -> tuple[list[str], list[str]]:
    """Test files the change added or edited (as HEAD has them), and the tests in them it added or edited, as
    ``path::name`` (``path::Class.name`` for a method), found by ``changed_units``."""
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
