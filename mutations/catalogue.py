"""The rule catalogue: every entry of ``mutations/entries/``, assembled and checked once.

mutmut cannot reach what matters most in a guard: the numbers in
``guard/limits.py`` (attrs defaults) and whole rules that only a reviewer
would think to break. Each entry (``mutations.entry``) breaks exactly one rule
of ``shared/spec/`` in one named way.

Decisions:

* One module per subject in ``mutations/entries/``, named for it and holding
  ``SUBJECT`` (the subject's name) and ``ENTRIES``. The modules are found by
  listing the package, so a new subject's entries file joins without an edit
  here. The order is the registry's subject order, then any other file by
  name (a file whose subject is not registered yet, such as the lookup
  classifier's).
* The levels come from the registry (``properties.subject.available()``): an
  entry's level is its file's subject, which must be a subject of the verdict,
  or ``CLASSIFIER`` (judged by its tests alone). A level the registry does not
  know is an error, never a silently skipped verdict.
* The invariants an entry may declare (``breaks``) are those of its subject,
  and of the subjects its file says it drives (``DRIVES``: the hook path
  feeds the budget).
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from types import ModuleType

from mutations import entries as entries_package
from mutations.entry import CLASSIFIER, CatalogueError, Entry


def entry_modules() -> tuple[ModuleType, ...]:
    """Every module of ``mutations/entries/``: the registry's subjects first, in its order, then the rest by name."""
    names = sorted(found.name for found in pkgutil.iter_modules(entries_package.__path__) if not found.ispkg)
    modules = [importlib.import_module(f"{entries_package.__name__}.{name}") for name in names]
    order = {name: position for position, name in enumerate(property_levels())}
    return tuple(sorted(modules, key=lambda module: (order.get(_subject_of(module), len(order)), _subject_of(module))))


@functools.cache
def property_levels() -> tuple[str, ...]:
    """The levels whose entries the verdict must kill: the name of every subject in the registry, in its order."""
    from properties.subject import available

    return tuple(subject.name for subject in available())


def levels() -> tuple[str, ...]:
    """Every level an entry may have: the subjects of the verdict, then ``CLASSIFIER``."""
    return (*property_levels(), CLASSIFIER)


def judged_by_verdict(entry: Entry) -> bool:
    """Whether ``python -m properties --mutants`` must kill ``entry`` (its level is a subject of the verdict)."""
    return entry.level in property_levels()


def _subject_of(module: ModuleType) -> str:
    subject = getattr(module, "SUBJECT", None)
    if not isinstance(subject, str):
        raise CatalogueError(f"{module.__name__}: names no SUBJECT (the subject its entries belong to)")
    return subject


def entries() -> tuple[Entry, ...]:
    """Every entry, checked: unique ids, each level known to the registry, each declared invariant its subject's."""
    found: list[Entry] = []
    for module in entry_modules():
        subject = _subject_of(module)
        listed = getattr(module, "ENTRIES", None)
        if not isinstance(listed, tuple) or not all(isinstance(item, Entry) for item in listed):
            raise CatalogueError(f"{module.__name__}: ENTRIES is not a tuple of Entry")
        for item in listed:
            if item.level not in (subject, CLASSIFIER):
                raise CatalogueError(f"{item.id}: level {item.level} in {module.__name__}, whose subject is {subject}")
            if item.level != CLASSIFIER and item.level not in property_levels():
                raise CatalogueError(f"{item.id}: level {item.level} is no subject of the verdict "
                                     f"(registered: {', '.join(property_levels())})")
        found.extend(listed)
    ids = [item.id for item in found]
    duplicates = sorted({name for name in ids if ids.count(name) > 1})
    if duplicates:
        raise CatalogueError(f"duplicate catalogue ids: {', '.join(duplicates)}")
    check_declared(found)
    return tuple(found)


def driven_by(level: str) -> tuple[str, ...]:
    """The subjects the entries file of ``level`` declares it drives (``DRIVES``), each a subject of the verdict."""
    for module in entry_modules():
        if _subject_of(module) == level:
            driven = tuple(getattr(module, "DRIVES", ()))
            unknown = [name for name in driven if name not in property_levels()]
            if unknown:
                raise CatalogueError(f"{module.__name__}: DRIVES names {', '.join(unknown)}, no subject of the verdict")
            return driven
    return ()


def check_declared(entries: list[Entry]) -> None:
    """Every entry of a subject declares the invariants it must break, each an invariant of its subject or of a
    subject it drives; a classifier entry declares none (its tests judge it)."""
    from properties.subject import available

    known = {subject.name: set(subject.ids) for subject in available()}
    for entry in entries:
        if not judged_by_verdict(entry):
            if entry.breaks:
                raise CatalogueError(f"{entry.id}: a {entry.level} entry is judged by its tests; it declares no invariant")
            continue
        allowed = known[entry.level].union(*(known[name] for name in driven_by(entry.level)))
        if not entry.breaks:
            raise CatalogueError(f"{entry.id}: declares no invariant it must break (Entry.breaks)")
        strange = [name for name in entry.breaks if name not in allowed]
        if strange:
            raise CatalogueError(f"{entry.id}: declares {', '.join(strange)}, not an invariant of level {entry.level}")
