"""Two versions of ``guard/`` in one interpreter, for the exhaustive comparison (``properties.review.product``).

The product model steps BASE's guard and HEAD's guard with the same event,
so both must live in one process. Both are packages named ``guard`` whose
modules import each other by that absolute name, at import time and, in
places, inside functions (``guard/hooks.py`` imports the lookup classifier
when it first needs it). Renaming either would mean rewriting its source,
so neither is renamed: ``load`` imports a version's every module with
``sys.modules`` holding only that version's ``guard`` entries, then puts
back whatever was there before; ``GuardPackage.active()`` installs one
version's entries again for as long as its code runs, so an import made
inside a function finds its own version, never the other.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, Iterator

import attrs

PACKAGE = "guard"


def _ours(name: str) -> bool:
    return name == PACKAGE or name.startswith(PACKAGE + ".")


@attrs.define
class GuardPackage:
    """One version of ``guard/``, imported from ``folder``: its modules by their ordinary names."""

    label: str
    folder: Path
    modules: dict[str, ModuleType]

    def module(self, name: str) -> ModuleType:
        """``module("budget")`` is this version's ``guard.budget``."""
        return self.modules[f"{PACKAGE}.{name}" if name else PACKAGE]

    def attribute(self, module: str, name: str, default: Any = None) -> Any:
        """A name of one module, or ``default`` when this version lacks the module or the name (an older BASE)."""
        found = self.modules.get(f"{PACKAGE}.{module}")
        return default if found is None else getattr(found, name, default)

    @contextlib.contextmanager
    def active(self) -> Iterator[None]:
        """``sys.modules`` holds this version's ``guard`` modules while the block runs."""
        saved = _take()
        sys.modules.update(self.modules)
        try:
            yield
        finally:
            _take()
            sys.modules.update(saved)


def _take() -> dict[str, ModuleType]:
    """Remove every ``guard`` entry from ``sys.modules``, returning them."""
    return {name: sys.modules.pop(name) for name in [n for n in sys.modules if _ours(n)]}


def load(folder: Path, label: str) -> GuardPackage:
    """Import the ``guard`` package in ``folder`` (every module of it) apart from any other version."""
    folder = folder.resolve()
    init = folder / "__init__.py"
    if not init.is_file():
        raise FileNotFoundError(f"{folder} holds no guard package (no __init__.py)")
    saved = _take()
    try:
        spec = importlib.util.spec_from_file_location(PACKAGE, init, submodule_search_locations=[str(folder)])
        assert spec is not None and spec.loader is not None
        package = importlib.util.module_from_spec(spec)
        sys.modules[PACKAGE] = package
        spec.loader.exec_module(package)
        # Every module now, so that a later import inside a function finds it among this version's entries.
        for path in sorted(folder.glob("*.py")):
            if path.stem != "__init__":
                importlib.import_module(f"{PACKAGE}.{path.stem}")
        modules = {name: module for name, module in sys.modules.items() if _ours(name)}
    finally:
        _take()
        sys.modules.update(saved)
    return GuardPackage(label, folder, modules)
