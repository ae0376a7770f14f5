"""Replaying and pinning lookup traces: each receipt judged again by L1-L4, the real programs run again.

``replay(argv)`` is what ``nox -s replay -- FILE`` hands a ``guard-lookup-trace/1``
file to (``properties.subject.Replay``): one line per receipt, ``BROKEN Ln``
with the message (the command and what dash did) where an invariant breaks,
and exit 1 then, 0 when every receipt holds, 2 with one line for a bad file or
missing programs. ``pin`` and ``check_pinned`` are the subject's ``Pin``.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import attrs

from properties.catalogue import Tally, Violation
from properties.lookup import programs
from properties.lookup.trace_file import LookupTrace, LookupTraceError, dumps, load
from properties.safe_json import printable


def judge(trace: LookupTrace) -> list[Violation]:
    """Every receipt of ``trace`` judged by L1-L4 (the programs run each one again); the violations found."""
    from properties.lookup.monitor import new_monitor

    problem = programs.missing()
    if problem:
        raise LookupTraceError(problem)
    monitor = new_monitor(Tally())
    try:
        found = monitor.step_all(list(trace.events))
    finally:
        monitor.close()
    return [violation for violations in found for violation in violations]


def replay(argv: list[str]) -> int:
    files = [argument for argument in argv if not argument.startswith("-")]
    broke = False
    for name in files:
        try:
            trace = load(name)
            violations = judge(trace)
        except LookupTraceError as error:
            print(f"error: {error}", file=sys.stderr)
            return 2
        print(f"{printable(name)}: lookup trace {trace.name!r} ({len(trace.events)} receipts"
              + (f", once broke {trace.invariant}" if trace.invariant else "") + ")")
        for index, receipt in enumerate(trace.events):
            command, exit_code, _output = receipt.arguments()
            mine = [violation for violation in violations if violation.step == index] if len(trace.events) > 1 else violations
            print(f"  {index}: {receipt.kind} {command!r} exit {exit_code!r}: " + ("holds" if not mine else ""))
            for violation in mine:
                print(f"BROKEN {violation.invariant} ({violation.title}) at step {index}: {violation.message}")
        broke = broke or bool(violations)
    return 1 if broke else 0


def pin(source: Path, folder: Path, invariant: "str | None") -> tuple[Path, tuple[str, ...]]:
    """Copy a lookup trace into ``folder``; the new path and the invariants that break on the current code."""
    trace = load(source)
    if invariant is not None:
        if not re.fullmatch(r"L\d{1,3}", invariant):
            raise LookupTraceError(f"--invariant: expected a lookup invariant id such as L2, got {invariant!r}")
        trace = attrs.evolve(trace, invariant=invariant)
    if trace.invariant is None:
        raise LookupTraceError(f"{printable(source)}: invariant: missing; a pinned regression must say which invariant "
                               "it once broke (--invariant L2)")
    if not trace.origin.startswith("pinned from "):
        trace = attrs.evolve(trace, origin=f"pinned from {source.name}" + (f" ({trace.origin})" if trace.origin else ""))
    name = re.sub(r"[^A-Za-z0-9._-]+", "-", trace.name).strip("-") or "regression"
    target = folder / f"{name}.json"
    text = dumps(trace)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        if target.exists() and target.read_text(encoding="utf-8") != text:
            raise LookupTraceError(f"{printable(target)}: already exists with other content; rename the trace (its name field)")
        target.write_text(text, encoding="utf-8")
    except OSError as error:
        raise LookupTraceError(f"{printable(target)}: cannot write: {error.strerror}") from None
    return target, tuple(f"{item.invariant} (at step {item.step})" for item in judge(trace))


def check_pinned(path: Path) -> tuple[str, bool]:
    """Re-judge one pinned lookup trace: (one line, whether it holds)."""
    trace = load(path)
    broken = judge(trace)
    once = f"once broke {trace.invariant}" if trace.invariant else "pinned"
    if broken:
        first = broken[0]
        return f"BROKEN {path.name}: {first.invariant} at step {first.step}: {first.message} ({once})", False
    return f"holds {path.name} ({once}; {len(trace.events)} receipts)", True
