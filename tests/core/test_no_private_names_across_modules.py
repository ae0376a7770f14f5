"""No module of the code uses another module's private name (a name with one leading underscore).

A private name is a module's own business: the module may change it
without telling anyone. Reaching into it from elsewhere makes two modules
one without saying so (issue 19 found the tests and the bench using the
explorer's ``_canon_for``, ``_prototypes``, ``_scope``...). This test reads
every module of ``guard/``, ``reference/``, ``properties/`` and
``mutations/`` and finds, statically:

* ``from project.module import _name``, and
* ``alias._name`` where ``alias`` was bound to a project module by an import
  (``import project.module as alias``, ``from project import module``).

Dunder names are not private. Tests are not scanned: a test may plant a bug
by replacing one of the module's own helpers (the navigation probes wrap
``guard.navigation._finish``), which is a test's business, not an import
between parts of the code.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("guard", "reference", "properties", "mutations")


def _dotted(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _sources() -> list[Path]:
    return sorted(path for package in PACKAGES for path in (ROOT / package).rglob("*.py"))


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_uses(path: Path, modules: set[str], root: Path = ROOT) -> list[str]:
    """Every use in ``path`` of another project module's private name, as ``file:line: what``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    where = path.relative_to(root)
    found = []
    # Local names bound to project modules by this file's imports.
    bound: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and node.module.split(".")[0] in PACKAGES:
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                if full in modules:
                    bound[alias.asname or alias.name] = full
                elif _private(alias.name):
                    found.append(f"{where}:{node.lineno}: from {node.module} import {alias.name}")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in PACKAGES:
                    if alias.asname:
                        bound[alias.asname] = alias.name
                    else:
                        head = alias.name.split(".")[0]
                        bound[head] = head
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and _private(node.attr)):
            continue
        chain = []
        value = node.value
        while isinstance(value, ast.Attribute):
            chain.append(value.attr)
            value = value.value
        if isinstance(value, ast.Name) and value.id in bound:
            module = ".".join([bound[value.id], *reversed(chain)])
            if module in modules:
                found.append(f"{where}:{node.lineno}: {module}.{node.attr}")
    return found


def test_no_module_uses_another_module_s_private_name() -> None:
    sources = _sources()
    modules = {_dotted(path) for path in sources}
    found = [use for path in sources for use in private_uses(path, modules)]
    assert found == []


def test_the_scan_finds_both_forms_it_looks_for(tmp_path: Path) -> None:
    """The scan is not vacuous: a module written with both forms is reported twice."""
    probe = tmp_path / "properties" / "probe.py"
    probe.parent.mkdir()
    probe.write_text(
        "from properties.budget.bulk import _hidden\nimport properties.budget.bulk as bulk\nbulk._other()\nbulk.__name__\n",
        encoding="utf-8",
    )
    found = private_uses(probe, {"properties.budget.bulk", "properties.probe"}, root=tmp_path)
    assert [line.split(": ", 1)[1] for line in found] == [
        "from properties.budget.bulk import _hidden",
        "properties.budget.bulk._other",
    ]
