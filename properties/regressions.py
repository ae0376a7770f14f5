"""Pinned counterexamples: traces that once broke an invariant and must hold from now on.

    python -m properties.regressions pin FILE [--invariant B5] [--dir tests/regressions]
    python -m properties.regressions check [--dir tests/regressions]

``pin`` copies a saved counterexample (``counterexamples/*.json``) into
``tests/regressions/``, the way Hypothesis keeps failing examples in its
database: the file keeps the invariant it once broke (``"invariant"``; a file
without one needs ``--invariant``) and the step, and its ``origin`` says where
it was pinned from. ``check`` (and ``tests/core/test_regressions.py`` under
``nox -s tests``) replays every pinned file with the subject's monitor and
requires that *no* invariant breaks on the current code.

Pinning a trace that still breaks on the current code is allowed (that is how
a fix starts: pin, see the suite fail, fix) and says so on one line.

A bad file, a missing invariant or an unwritable folder prints one line and
exits 2; ``check`` exits 1 when a pinned trace breaks.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Sequence

from properties.cli import OneLineParser, UsageError
from properties.paths import ROOT
from properties.safe_json import JsonFileError as TraceError
from properties.subject import Subject, available, unknown_schema

DEFAULT_DIR = ROOT / "tests" / "regressions"


def pinned_files(folder: Path = DEFAULT_DIR) -> list[Path]:
    return sorted(folder.glob("*.json"))


def subject_of(path: Path) -> Subject:
    """The subject whose files ``path`` is (its schema); the first subject that pins, for a file none claims
    (its reader then names what is wrong with the file). A file whose schema names no format of theirs raises
    ``TraceError`` listing the formats (``properties.subject.unknown_schema``)."""
    pinning = [subject for subject in available() if subject.pin is not None]
    for subject in pinning:
        if subject.replay is not None and subject.replay.recognizes(str(path)):
            return subject
    problem = unknown_schema(str(path), pinning, "pinning")
    if problem is not None:
        raise TraceError(problem)
    return pinning[0]


def pin(source: Path, folder: Path = DEFAULT_DIR, invariant: str | None = None) -> tuple[Path, tuple[str, ...]]:
    """Copy ``source`` into ``folder`` through its subject; the new path and the invariants still broken."""
    subject = subject_of(source)
    assert subject.pin is not None
    return subject.pin.pin(source, folder, invariant)


def check(folder: Path = DEFAULT_DIR) -> tuple[list[str], bool]:
    """One line per pinned file, each re-judged by its subject; and whether every one holds."""
    lines, ok = [], True
    for path in pinned_files(folder):
        subject = subject_of(path)
        assert subject.pin is not None
        line, holds = subject.pin.check(path)
        lines.append(line)
        ok = ok and holds
    return lines, ok


def main(argv: Sequence[str] | None = None) -> int:
    parser = OneLineParser(prog="python -m properties.regressions", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True, parser_class=OneLineParser)
    pin_command = commands.add_parser("pin", help="copy a counterexample into tests/regressions/")
    pin_command.add_argument("file", type=Path)
    pin_command.add_argument("--invariant", help="the invariant it broke, when the file does not name it")
    pin_command.add_argument("--dir", type=Path, default=DEFAULT_DIR, help=argparse.SUPPRESS)
    check_command = commands.add_parser("check", help="replay every pinned trace; each must hold")
    check_command.add_argument("--dir", type=Path, default=DEFAULT_DIR, help=argparse.SUPPRESS)
    try:
        args = parser.parse_args(argv)
    except UsageError as error:
        print(f"python -m properties.regressions: {error}", file=sys.stderr)
        return 2
    try:
        if args.command == "pin":
            target, broken = pin(args.file, args.dir, args.invariant)
            print(f"pinned: {target}")
            if broken:
                print(f"note: {broken[0]} still breaks on the current code; nox -s tests fails until it is fixed")
            return 0
        lines, ok = check(args.dir)
    except TraceError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print("\n".join(lines) if lines else f"no pinned regressions in {args.dir}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
