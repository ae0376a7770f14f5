"""One content-hash cache for every mutation layer: a result is reused only while what it depends on is unchanged.

A layer names each result (a catalogue entry's id, a red-check variant, a
test file, a mutant) and computes its *key*, a hash of every byte the result
depends on (``tree_digest`` over files, ``key`` over strings). ``Cache.get``
returns the stored record only when the stored key equals the current one;
anything else (no file, an unreadable or older file, another key) is a miss,
so a stale cache can cost a rerun but never a wrong verdict.

Decisions: each run's file holds exactly what that run kept (``keep``), so a
result that stopped being valid disappears instead of lingering; a layer keeps
only the results it may reuse (the catalogue its kills, the red check its red
outcomes). A fresh clone has no cache, so CI always runs everything.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Callable, Iterable

import attrs

#: Bumped when the file's shape changes: a file of another format is read as empty.
FORMAT = 1

#: Sources whose change invalidates every cached verdict: the suites, the oracle, the harness, the set-up, and
#: all of ``guard/`` (issue 22: a mutated function calls helpers anywhere in it, so an edit to any of them can
#: turn a kill into a survivor).
JUDGING_PATHS = ("guard", "tests", "properties", "reference", "mutations", "pyproject.toml", "noxfile.py")
#: The files of those paths that can change a verdict.
JUDGING_SUFFIXES = (".py", ".toml", ".json")


def key(*parts: str | bytes) -> str:
    """The hash of ``parts`` in order, each kept apart from the next (so ``("ab", "c")`` differs from ``("a", "bc")``)."""
    digest = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        digest.update(len(data).to_bytes(8, "big") + data)
    return digest.hexdigest()


def files_under(root: Path, paths: Iterable[str], suffixes: tuple[str, ...]) -> list[Path]:
    """The files of ``paths`` (folders searched recursively, ``__pycache__`` left out) with one of ``suffixes``, sorted."""
    found = []
    for name in paths:
        path = root / name
        for file in sorted(path.rglob("*")) if path.is_dir() else [path]:
            if file.is_file() and "__pycache__" not in file.parts and file.suffix in suffixes:
                found.append(file)
    return found


def tree_digest(root: Path, paths: Iterable[str], suffixes: tuple[str, ...] = JUDGING_SUFFIXES,
                transform: Callable[[str, bytes], bytes] | None = None) -> str:
    """One hash over the relative path and bytes of every file of ``paths``; ``transform(relative path, bytes)``
    may replace a file's bytes first (the red check leaves out code its variant never runs)."""
    digest = hashlib.sha256()
    for file in files_under(root, paths, suffixes):
        relative = file.relative_to(root).as_posix()
        data = file.read_bytes()
        if transform is not None:
            data = transform(relative, data)
        digest.update(key(relative, data).encode())
    return digest.hexdigest()


def judging_sources(root: Path, with_guard: bool = True) -> str:
    """``tree_digest`` of the code under test and every source that judges a mutant (``JUDGING_PATHS``), read once
    per run; ``with_guard=False`` for a layer that keys ``guard/`` itself (the red check)."""
    return tree_digest(root, JUDGING_PATHS if with_guard else JUDGING_PATHS[1:])


@attrs.define
class Cache:
    """The records of one layer's last run, by name, each under the key it was made with."""

    path: Path | None
    stored: dict[str, dict[str, Any]] = attrs.field(factory=dict)
    kept: dict[str, dict[str, Any]] = attrs.field(factory=dict)
    #: Whether a file of this format was read (a layer that compares snapshots needs an earlier one).
    found: bool = False

    @classmethod
    def load(cls, path: Path | None) -> Cache:
        """The cache in ``path``; empty when there is none, it cannot be read, or it has another format. ``None``:
        an empty cache that is never saved (``--no-cache``)."""
        if path is None or not path.is_file():
            return cls(path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return cls(path)
        records = data.get("records") if isinstance(data, dict) and data.get("format") == FORMAT else None
        if not isinstance(records, dict):
            return cls(path)
        return cls(path, {name: record for name, record in records.items()
                          if isinstance(record, dict) and isinstance(record.get("key"), str)}, found=True)

    def get(self, name: str, current: str) -> dict[str, Any] | None:
        """The record stored for ``name`` when it was made under the key ``current``, else None."""
        record = self.stored.get(name)
        return record if record is not None and record["key"] == current else None

    def stored_keys(self) -> dict[str, str]:
        """The key of every stored record, by name (a layer that compares whole snapshots: the mutmut layer's tests)."""
        return {name: record["key"] for name, record in self.stored.items()}

    def keep(self, name: str, current: str, record: dict[str, Any] | None = None) -> None:
        """Store ``record`` for ``name`` under the key ``current`` for the next run."""
        self.kept[name] = {**(record or {}), "key": current}

    def save(self) -> None:
        """Write what this run kept (nothing when the cache has no path)."""
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(json.dumps({"format": FORMAT, "records": self.kept}, indent=1, sort_keys=True) + "\n",
                             encoding="utf-8")
