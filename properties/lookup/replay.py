"""Replaying and pinning lookup traces: each receipt judged again by L1-L4, the real programs run again.

``replay(argv)`` is what ``nox -s replay -- FILE`` hands a ``guard-lookup-trace/1``
file to (``properties.subject.Replay``): one line per receipt, ``BROKEN Ln``
with the message (the command and what dash did) where an invariant breaks,
and exit 1 then, 0 when every receipt holds, 2 with one line for a bad file or
missing programs. ``pin`` and ``check_pinned`` are the subject's ``Pin``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import attrs

from properties.catalogue import Tally, Violation
from properties.lookup import programs
from properties.lookup.trace_file import LookupTrace, LookupTraceError, dumps, load
from properties.pinning import invariant_to_pin, judged_line, write_pinned
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
    trace = attrs.evolve(trace, invariant=invariant_to_pin(source, trace.invariant, invariant, "L2", LookupTraceError))
    if not trace.origin.startswith("pinned from "):
        trace = attrs.evolve(trace, origin=f"pinned from {source.name}" + (f" ({trace.origin})" if trace.origin else ""))
    target = write_pinned(folder, trace.name, dumps(trace), LookupTraceError)
    return target, tuple(f"{item.invariant} (at step {item.step})" for item in judge(trace))


def check_pinned(path: Path) -> tuple[str, bool]:
    """Re-judge one pinned lookup trace: (one line, whether it holds)."""
    trace = load(path)
    return judged_line(path, trace.invariant, judge(trace), f"{len(trace.events)} receipts")
