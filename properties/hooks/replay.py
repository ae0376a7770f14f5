"""The recorded sessions replayed through the hook path, in both hook orders (``nox -s replay -- --hooks``).

Usage::

    python -m properties.replay --hooks [--order after|persist] [--name TEXT] [FILE ...]

Without FILE it replays the recorded sessions of ``shared/fixtures/pixel/``
(the three website runs of seed 001, seed 002's photo-renamer) through
``guard.hooks.ToolLoopGuard``: the earlier guard (``allowances=False``, the
reference) beside production, once with ``after_tool_call`` first and once
with ``tool_result_persist`` first. How a recorded call becomes hook calls is
the fixture README's: a model call whenever ``round`` changes (one per call
for the photo-renamer), ``before_tool_call`` with the recorded params, the
inspection tool's own record, then the two result hooks; a refused call gets
a blocked receipt instead of its recording.

One row per call: ``n``, the call id (shortened), the tool, then for the
reference and for production the decision (``run``, ``REFUSED`` by the
router, ``STOP``/``INSTR`` after the fuse, ``ADMIT`` for an admitted remedy),
which hook counted the receipt (``after``/``persist``), how it was classified
(``fail``/``ok`` with C correctable, P passing correction, R:kind, E empty
lookup), and the budget's state (consecutive/total, waiting charge, pending
correction, stop, finalization phase). The last column marks where reference
and production part: ``<<`` when one is stopped and the other not, ``<``
when only their decisions, counters or flags differ. A line per session
says where each stopped and whether both orders left production in the same
state after every call.

With FILE arguments it reads ``guard-hook-sequence/1`` files (saved hook
counterexamples, ``properties.hooks.trace_file``), replays each through
the hook monitor (both orders and H3's oracle) and prints its step
table and verdict; the exit status is 1 when one of them violates an
invariant. A bad or missing file prints one line naming the file and the
field, exit 2.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Sequence

import attrs

from guard.hooks import ToolLoopGuard
from guard.playground import RoutingState
from properties.budget.state import Snap
from properties.catalogue import Tally, Violation
from properties.hooks.deliver import SpyBudget, guard_state
from properties.hooks.events import AFTER, ORDERS, PERSIST
from properties.hooks.fixtures import Session, recorded_sessions
from properties.hooks.shapes import STOP_HEAD, blocked
from properties.safe_json import JsonFileError as TraceError

# -- replaying one session ---------------------------------------------------------------------------


@attrs.frozen
class CallRow:
    """What one guard did with one call."""

    decision: str
    counted_by: str
    classified: str
    state: Snap
    phase: str


def _classify(failed: bool, flags: dict) -> str:
    marks = []
    if flags.get("correctable") is True:
        marks.append("C")
    if flags.get("corrected") is True:
        marks.append("P")
    if flags.get("correctable_refusal"):
        marks.append("R:" + "".join(word[0] for word in str(flags["correctable_refusal"]).split("-")))
    if flags.get("empty_lookup") is True:
        marks.append("E")
    return ("fail" if failed else "ok") + ("" if not marks else " " + ",".join(marks))


def replay_session(session: Session, order: str, allowances: bool) -> list[CallRow]:
    budget = SpyBudget()
    guard = ToolLoopGuard(run=session.run, session=session.session, budget=budget, allowances=allowances,
                          routing=RoutingState() if session.playground else None)
    rows = []
    for call in session.calls:
        if call.new_round:
            guard.model_call_start()
            guard.model_call_end()
        was_terminal, admissions = budget.terminal, budget.admissions
        decision = guard.before_tool_call(session.run, session.session, call.call_id, call.tool, call.params)
        receipt = call.receipt
        if decision.block:
            receipt = blocked(decision.block_reason)
        elif call.record is not None:
            guard.record_tool_result(call.call_id, call.record[0], call.record[1])
        logged = len(budget.log)
        hooks = (AFTER, PERSIST) if order == AFTER else (PERSIST, AFTER)
        for hook in hooks:
            budget.hook = hook
            if hook == AFTER:
                guard.after_tool_call(call.call_id, call.tool, call.params, receipt)
            else:
                guard.tool_result_persist(call.call_id, call.tool, receipt)
        budget.hook = ""
        counted = budget.log[logged:]
        if budget.admissions > admissions:
            shown = "ADMIT"
        elif not decision.block:
            shown = "run"
        elif was_terminal:
            shown = "STOP" if (decision.block_reason or "").startswith(STOP_HEAD) else "INSTR"
        else:
            shown = "REFUSED"
        by, classified = ("-", "ignored") if not counted else (counted[0][3], _classify(counted[0][1], counted[0][2]))
        state = guard_state(guard)
        rows.append(CallRow(shown, by, classified, state.budget, state.phase))
    return rows


def _cell(row: CallRow) -> str:
    state = row.state
    return (f"{row.decision:<7} {row.counted_by:<7} {row.classified:<13} {state.consecutive}/{state.failures:<2} "
            f"{state.deferred or '-':<6} {'pfw' if state.correction == 'playground-first-write' else (state.correction or '-')[:6]:<6} "
            f"{'STOP' if state.terminal else 'open':<4} {row.phase[:7]}")


def _stopped_after(session: Session, rows: list[CallRow]) -> str:
    for call, row in zip(session.calls, rows):
        if row.state.terminal:
            return f"stops after call {call.n}"
    last = rows[-1].state if rows else None
    return "open" + (f" (waiting: {last.deferred})" if last is not None and last.deferred else "")


def render_session(session: Session, order: str) -> str:
    reference = replay_session(session, order, allowances=False)
    production = replay_session(session, order, allowances=True)
    mirror = replay_session(session, PERSIST if order == AFTER else AFTER, allowances=True)
    head = "dec     counted class         c/t  wait   pend   stop phase"
    first = "after_tool_call" if order == AFTER else "tool_result_persist"
    lines = [f"{session.name} ({'Playground' if session.playground else 'website'}, {first} first)",
             f"{'n':>3}  {'call':<10} {'tool':<15} | reference: {head} | production: {head} |"]
    for call, ref, prod in zip(session.calls, reference, production):
        if ref.state.terminal != prod.state.terminal:
            mark = "<<"
        elif (ref.decision, ref.classified, ref.state.consecutive, ref.state.failures) != (prod.decision, prod.classified, prod.state.consecutive, prod.state.failures):
            mark = "<"
        else:
            mark = ""
        tool = call.tool.removeprefix("pixel_ods_workspace_")[:15]
        lines.append(f"{call.n:>3}  {call.call_id[:10]:<10} {tool:<15} | {_cell(ref):<{11 + len(head)}} | {_cell(prod):<{12 + len(head)}} | {mark}")
    parted = next((call.n for call, a, b in zip(session.calls, production, mirror) if (a.state, a.phase, a.decision) != (b.state, b.phase, b.decision)), None)
    lines.append(
        f"reference {_stopped_after(session, reference)}; production {_stopped_after(session, production)}; "
        + ("both hook orders leave production in the same state after every call" if parted is None
           else f"the hook orders part at call {parted}")
    )
    return "\n".join(lines)


def replay_files(paths: Sequence[str]) -> tuple[str, int]:
    """Each hook sequence file through the monitor: its step table and verdict; exit 1 on a violation."""
    from properties.hooks.trace_file import load
    from properties.hooks.counterexample import step_table

    out, status = [], 0
    loaded = [(path, *load(Path(path))) for path in paths]
    for _path, sequence, name, invariant in loaded:
        found = _judged(sequence)
        verdict = "every hook invariant held" if not found else "; ".join(f"VIOLATED {v.invariant} {v}" for v in found)
        if found:
            status = 1
        saved_for = f" (saved for {invariant})" if invariant else ""
        out.append(f"{name}{saved_for}: {'Playground' if sequence.playground else 'website'}"
                   f"{', strict stop' if sequence.strict_stop else ''}\n{step_table(sequence)}\n{verdict}")
    return "\n\n".join(out), status


def pin(source: Path, folder: Path, invariant: "str | None") -> tuple[Path, tuple[str, ...]]:
    """Copy a hook sequence file into ``folder`` (``python -m properties.regressions pin FILE``); the new path and
    the invariants that break on the current code. The copy names the invariant it once broke; a hook file has
    no origin field, so the copy is the sequence as saved, named by its ``name``."""
    from properties.hooks.trace_file import dumps, load
    from properties.pinning import invariant_to_pin, write_pinned

    sequence, name, saved = load(source)
    chosen = invariant_to_pin(source, saved, invariant, "H5", TraceError)
    target = write_pinned(folder, name, dumps(sequence, name, chosen), TraceError)
    return target, tuple(f"{found.invariant} (at step {found.step})" for found in _judged(sequence))


def check_pinned(path: Path) -> tuple[str, bool]:
    """Re-judge one pinned hook sequence with every hook invariant: (one line, whether it holds)."""
    from properties.hooks.trace_file import load
    from properties.pinning import judged_line

    sequence, _name, saved = load(path)
    return judged_line(path, saved, _judged(sequence), f"{len(sequence.events)} hook events")


def _judged(sequence: Any) -> list[Violation]:
    """Every hook invariant on one sequence, with a fresh monitor (the replay and the pinned check alike)."""
    from properties.hooks.monitor import HookMonitor

    return list(HookMonitor(Tally()).check(sequence))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m properties.replay --hooks", description=__doc__.splitlines()[0])
    parser.add_argument("--order", choices=ORDERS, action="append", help="only this hook order (default: both)")
    parser.add_argument("--name", action="append", help="only sessions whose name contains TEXT")
    parser.add_argument("files", nargs="*", help="guard-hook-sequence/1 files")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return 2 if exit_.code else 0
    try:
        if args.files:
            text, status = replay_files(args.files)
            print(text)
            return status
        sessions = recorded_sessions()
    except TraceError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.name:
        sessions = [session for session in sessions if any(text in session.name for text in args.name)]
        if not sessions:
            print(f"error: --name: no session name contains {' or '.join(map(repr, args.name))}", file=sys.stderr)
            return 2
    print("\n\n".join(render_session(session, order) for session in sessions for order in (args.order or ORDERS)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
