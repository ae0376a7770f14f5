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
import re
import sys
from pathlib import Path
from typing import Sequence

import attrs

from properties.paths import ROOT
from properties.replay import Broken, judge_trace
from properties.trace import TraceError, dumps, load_trace, printable

DEFAULT_DIR = ROOT / "tests" / "regressions"


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:
        raise UsageError(message)


def pinned_files(folder: Path = DEFAULT_DIR) -> list[Path]:
    return sorted(folder.glob("*.json"))


def pin(source: Path, folder: Path = DEFAULT_DIR, invariant: str | None = None) -> tuple[Path, tuple[Broken, ...]]:
    """Copy ``source`` into ``folder``; returns the new path and what breaks on the current code."""
    trace = load_trace(source)
    if invariant is not None:
        if not re.fullmatch(r"[A-Z]{1,3}\d{1,3}", invariant):
            raise TraceError(f"--invariant: expected an invariant id such as B5, got {invariant!r}")
        if trace.invariant is not None and trace.invariant != invariant:
            raise TraceError(f"{printable(source)}: invariant: the file was saved for {trace.invariant}, not {invariant}")
        trace = attrs.evolve(trace, invariant=invariant)
    if trace.invariant is None:
        raise TraceError(f"{printable(source)}: invariant: missing; a pinned regression must say which invariant it "
                         "once broke (--invariant B5)")
    if not trace.origin.startswith("pinned from "):  # pinning a pinned file keeps where it first came from
        trace = attrs.evolve(trace, origin=f"pinned from {source.name}" + (f" ({trace.origin})" if trace.origin else ""))
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", trace.name).strip("-") or "regression"
    target = folder / f"{name}.json"
    text = dumps(trace)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        if target.exists() and target.read_text(encoding="utf-8") != text:
            raise TraceError(f"{printable(target)}: already exists with other content; rename the trace (its name field)")
        target.write_text(text, encoding="utf-8")
    except OSError as error:
        raise TraceError(f"{printable(target)}: cannot write: {error.strerror}") from None
    return target, judge_trace(trace)


def check(folder: Path = DEFAULT_DIR) -> tuple[list[str], bool]:
    """One line per pinned file; and whether every one holds."""
    lines, ok = [], True
    for path in pinned_files(folder):
        trace = load_trace(path)
        broken = judge_trace(trace)
        once = f"once broke {trace.invariant}" + (f" at step {trace.step}" if trace.step is not None else "")
        if broken:
            ok = False
            first = broken[0]
            lines.append(f"BROKEN {path.name}: {first.invariant} at step {first.step}: {first.message} ({once})")
        else:
            lines.append(f"holds {path.name} ({once}; {len(trace.events)} steps)")
    return lines, ok


def main(argv: Sequence[str] | None = None) -> int:
    parser = _Parser(prog="python -m properties.regressions", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
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
            still = [item for item in broken if item.invariant]
            if still:
                print(f"note: {still[0].invariant} still breaks at step {still[0].step} on the current code; "
                      "nox -s tests fails until it is fixed")
            return 0
        lines, ok = check(args.dir)
    except TraceError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print("\n".join(lines) if lines else f"no pinned regressions in {args.dir}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
