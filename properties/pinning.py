"""Pinning a counterexample, the parts every subject shares (``python -m properties.regressions pin FILE``).

Each subject's ``Pin`` reads and judges its own files; what pinning means is
the same for all of them, so it is written once here: the invariant a pinned
file names (the one it once broke, from the file or ``--invariant``), the
file's name in ``tests/regressions/`` (its ``name`` field, made safe for a
file system), and a write that never replaces another regression. Every
problem is the subject's ``JsonFileError``, one line naming the file and the
field.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Sequence

from properties.safe_json import JsonFileError, printable


def invariant_to_pin(source: Path, saved: "str | None", given: "str | None", example: str,
                     error: type[JsonFileError]) -> str:
    """The invariant the pinned copy of ``source`` names: ``given`` (``--invariant``, an id of the subject's,
    like ``example``) where the file names none or the same one, else the file's own ``saved``.

    A pinned regression must say what it once broke: without it, a later break could not be told from the
    old one. ``--invariant`` cannot overrule the file: the file was saved for the one it names."""
    prefix = re.match(r"[A-Z]+", example)
    assert prefix is not None, example
    if given is not None:
        if not re.fullmatch(rf"{prefix.group()}\d{{1,3}}", given):
            raise error(f"--invariant: expected an invariant id such as {example}, got {given!r}")
        if saved and saved != given:
            raise error(f"{printable(source)}: invariant: the file was saved for {saved}, not {given}")
        return given
    if not saved:
        raise error(f"{printable(source)}: invariant: missing; a pinned regression must say which invariant it "
                    f"once broke (--invariant {example})")
    return saved


def write_pinned(folder: Path, name: str, text: str, error: type[JsonFileError]) -> Path:
    """Write ``text`` as ``folder/NAME.json`` (``name`` made safe for a file system) and return the path.

    Pinning the same file twice is harmless; a different regression under the same name is refused rather than
    replaced (the file would silently stop guarding what it was pinned for)."""
    target = folder / f"{re.sub(r'[^A-Za-z0-9._-]+', '-', name).strip('-') or 'regression'}.json"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        if target.exists() and target.read_text(encoding="utf-8") != text:
            raise error(f"{printable(target)}: already exists with other content; rename the trace (its name field)")
        target.write_text(text, encoding="utf-8")
    except OSError as error_:
        raise error(f"{printable(target)}: cannot write: {error_.strerror}") from None
    return target


def pinned_as(saved: "str | None") -> str:
    """How a check's line names what a pinned file was kept for: the invariant it once broke, if it says."""
    return f"once broke {saved}" if saved else "pinned"


def judged_line(path: Path, saved: "str | None", broken: "Sequence[Any]", size: str) -> tuple[str, bool]:
    """The check's line for one pinned file and whether it holds: ``broken`` is what the subject's judge found
    (each with ``invariant``, ``step`` and ``message``; the first is named), ``size`` says how long the file is
    (``"3 steps"``)."""
    once = pinned_as(saved)
    if broken:
        first = broken[0]
        return f"BROKEN {path.name}: {first.invariant} at step {first.step}: {first.message} ({once})", False
    return f"holds {path.name} ({once}; {size})", True
