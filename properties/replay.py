"""Reference and production side by side, one row per event (``nox -s replay``).

Usage::

    python -m properties.replay [--json] [--name TEXT] [FILE ...]

Without FILE it replays the built-in recorded sessions (``properties.budget.fixtures``:
the three website runs of seed 001 and seed 002's photo-renamer). With FILE
arguments it loads ``guard-trace/1`` files (``properties.trace``). Every trace
gets a table and a one-line summary such as::

    reference stops after call 11; production open (waiting: global)

Columns: ``step``, ``label``, ``tool``, ``event`` (``round``; ``result
failed|ok`` with flags C correctable, P corrected/passed, R:kind correctable
refusal, E empty lookup, L:lane, D discovery, pend running process;
``first_call remedy yes|no``; ``stop``), then for each budget ``con``
(consecutive), ``tot`` (total failures), ``wait`` (waiting charge), ``pend``
(pending correction) and ``stop``; the last column marks divergence: ``<<``
when one budget is stopped and the other is not, ``<`` when only the counters
differ. Refusal kinds are abbreviated in the table (legend below it) and kept
whole in the summary and in ``--json``.

The production column is the copy ``P`` of ``properties.budget.copies``: every flag
as the trace gives it. A bad or missing file prints one line naming the file
and the field to stderr and exits 2.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from typing import Any, Sequence

import attrs

from properties.budget.copies import applier, new_copies
from properties.budget.events import Event, FirstCall, Result, Round, Stop
from properties.trace import Trace, TraceError, event_to_json, load_trace

#: Tools whose successes are discovery by name (both budgets).
DISCOVERY_TOOLS = frozenset({"tool_search", "tool_describe", "pixel_ods_skill"})

#: Long tool names are shown without this prefix so the table fits 100 columns.
TOOL_PREFIX = "pixel_ods_workspace_"
TOOL_WIDTH = 15
LABEL_WIDTH = 12


@attrs.frozen
class BudgetState:
    """What a row shows of one budget after the event."""

    consecutive: int
    total: int
    waiting: str | None
    pending: str | None
    stopped: bool
    rounds: int
    lane_failures: dict[str, int]
    exhausted_lanes: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return attrs.asdict(self)


@attrs.frozen
class Row:
    step: int
    event: Event
    label: str
    tool: str
    summary: str
    reference: BudgetState
    production: BudgetState
    admitted: bool
    marker: str


@attrs.frozen
class Replay:
    name: str
    rows: tuple[Row, ...]
    summary: str


# -- running a trace -------------------------------------------------------------------------


def _state(budget: Any) -> BudgetState:
    return BudgetState(
        consecutive=budget.consecutive,
        total=budget.failures,
        waiting=getattr(budget, "deferred", None),
        pending=getattr(budget, "pending_correction", None),
        stopped=bool(budget.terminal),
        rounds=budget.rounds,
        lane_failures=dict(budget.lane_failures),
        exhausted_lanes=tuple(sorted(budget.exhausted_lanes)),
    )


def _marker(reference: BudgetState, production: BudgetState) -> str:
    if reference.stopped != production.stopped:
        return "<<"
    if (reference.consecutive, reference.total) != (production.consecutive, production.total):
        return "<"
    return ""


def tool_name(event: Event) -> str:
    """The tool a result came from, a wrapped ``tool_call`` shown by the id it selected."""
    if not isinstance(event, Result):
        return ""
    tool = event.tool
    if tool == "tool_call" and isinstance(event.params, dict) and isinstance(event.params.get("id"), str):
        tool = event.params["id"]
    text = tool if isinstance(tool, str) else repr(tool)
    if text.startswith(TOOL_PREFIX):
        text = text[len(TOOL_PREFIX):]
    return text


def event_summary(event: Event, kinds: dict[str, str] | None = None) -> str:
    """``round``, ``stop``, ``first_call remedy yes|no`` or ``result failed|ok`` with its flags."""
    if isinstance(event, Round):
        return "round"
    if isinstance(event, Stop):
        return "stop"
    if isinstance(event, FirstCall):
        return f"first_call remedy {'yes' if event.remedy is True else 'no'}"
    parts = ["result", "failed" if event.failed else "ok"]
    if event.correctable:
        parts.append("C")
    if event.corrected:
        parts.append("P")
    if event.correctable_refusal:
        kind = event.correctable_refusal
        parts.append(f"R:{(kinds or {}).get(kind, kind)}")
    if event.empty_lookup:
        parts.append("E")
    if event.lane is not None:
        parts.append(f"L:{event.lane}")
    if event.discovery or (not event.failed and event.tool in DISCOVERY_TOOLS):
        parts.append("D")
    if event.pending:
        parts.append("pend")
    return " ".join(parts)


def _describe(row: Row) -> str:
    if row.label:
        return row.label
    return f"step {row.step} ({event_summary(row.event).split(' ')[0]})"


def replay_trace(trace: Trace) -> Replay:
    """Deliver every event to the reference and to production (``P``) and record each step."""
    copies = new_copies(trace.limits)
    reference, production = copies["R"], copies["P"]
    to_reference, to_production = applier("R"), applier("P")
    rows = []
    for step, event in enumerate(trace.events, start=1):
        to_reference(reference, event)
        admitted = to_production(production, event)
        ref_state, prod_state = _state(reference), _state(production)
        rows.append(Row(
            step=step, event=event, label=_clean(getattr(event, "label", "")), tool=_clean(tool_name(event)),
            summary=event_summary(event), reference=ref_state, production=prod_state,
            admitted=admitted, marker=_marker(ref_state, prod_state),
        ))
    rows_t = tuple(rows)
    return Replay(name=trace.name, rows=rows_t, summary=summarize(rows_t))


def _clean(text: Any) -> str:
    # A label from a file must not break the table's lines.
    return re.sub(r"[\x00-\x1f\x7f]", " ", str(text))


def _list(labels: list[str], limit: int = 4) -> str:
    shown = labels[:limit]
    more = len(labels) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")


def _side(rows: tuple[Row, ...], which: str) -> str:
    """How one budget ended: where it stopped, and what waited, pended, was admitted or ignored."""
    stop_row = None
    first_stop = None
    previous = False
    for row in rows:
        state: BudgetState = getattr(row, which)
        if state.stopped and not previous:
            stop_row = row
            first_stop = first_stop or row
        previous = state.stopped
    final: BudgetState | None = getattr(rows[-1], which) if rows else None
    notes: list[str] = []
    admissions = [_describe(row) for row in rows if which == "production" and row.admitted]
    if final is not None and final.stopped and stop_row is not None:
        head = f"stops after {_describe(stop_row)}"
        if first_stop is not stop_row:
            notes.append(f"first tripped after {_describe(first_stop)}")
    else:
        head = "open"
        if first_stop is not None:
            notes.append(f"tripped after {_describe(first_stop)}")
    if admissions:
        notes.append(f"remedy admitted at {_list(admissions)}")
    if final is not None and final.pending:
        notes.append(f"pending correction: {final.pending}")
    if final is not None and final.waiting:
        notes.append(f"waiting: {final.waiting}")
    return head + (f" ({'; '.join(notes)})" if notes else "")


def summarize(rows: tuple[Row, ...]) -> str:
    """One line: how the reference and production ended."""
    return f"reference {_side(rows, 'reference')}; production {_side(rows, 'production')}"


# -- rendering ---------------------------------------------------------------------------------


def kind_abbreviations(kinds: Sequence[str]) -> dict[str, str]:
    """Initials of each kind's words (``playground-first-write`` -> ``pfw``), made unique."""
    out: dict[str, str] = {}
    used: set[str] = set()
    for kind in kinds:
        if kind in out:
            continue
        initials = "".join(word[0] for word in re.split(r"[-_:./ ]+", kind) if word) or "k"
        short, suffix = initials, 2
        while short in used:
            short, suffix = f"{initials}{suffix}", suffix + 1
        used.add(short)
        out[kind] = short
    return out


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "~"


def _budget_cells(state: BudgetState, kinds: dict[str, str], extra: str = "") -> list[str]:
    pending = kinds.get(state.pending, state.pending) if state.pending else "-"
    return [
        str(state.consecutive), str(state.total), state.waiting or "-", pending,
        ("yes" if state.stopped else "-") + extra,
    ]


BUDGET_HEAD = ["con", "tot", "wait", "pend", "stop"]


def render(replay: Replay) -> str:
    """The side-by-side table, its legend and the summary line."""
    kinds = kind_abbreviations([
        kind for row in replay.rows
        for kind in (getattr(row.event, "correctable_refusal", None), row.production.pending)
        if isinstance(kind, str) and kind
    ])
    head = ["step", "label", "tool", "event"]
    table = []
    for row in replay.rows:
        table.append([
            str(row.step), _cut(row.label, LABEL_WIDTH), _cut(row.tool, TOOL_WIDTH), event_summary(row.event, kinds),
            *_budget_cells(row.reference, kinds),
            *_budget_cells(row.production, kinds, "+" if row.admitted else ""),
            row.marker,
        ])
    columns = head + BUDGET_HEAD + BUDGET_HEAD + [""]
    widths = [max([len(columns[i])] + [len(line[i]) for line in table]) for i in range(len(columns))]
    right = {0, 4, 5, 9, 10}

    def fmt(cells: list[str]) -> str:
        out = []
        for index, cell in enumerate(cells):
            text = cell.rjust(widths[index]) if index in right else cell.ljust(widths[index])
            out.append(text)
            if index in (3, 8):
                out.append("|")
        return " ".join(out).rstrip()

    left = sum(widths[:4]) + 3
    ref_width = sum(widths[4:9]) + 4
    prod_width = sum(widths[9:14]) + 4
    group = " ".join([" " * left, "|", "reference".center(ref_width), "|", "production".center(prod_width)]).rstrip()
    lines = [f"== {replay.name} ({len(replay.rows)} events)", group, fmt(columns)]
    lines.extend(fmt(line) for line in table)
    if kinds:
        lines.append("kinds: " + ", ".join(f"{short} = {kind}" for kind, short in kinds.items()))
    if any(row.admitted for row in replay.rows):
        lines.append("+ in production's stop column: the first call after the trip was admitted as the remedy")
    lines.append(replay.summary)
    return "\n".join(lines)


def to_json(replay: Replay) -> dict[str, Any]:
    rows = []
    for row in replay.rows:
        rows.append({
            "step": row.step,
            "label": row.label,
            "tool": row.tool,
            "event": row.summary,
            "trace_event": event_to_json(row.event),
            "reference": row.reference.to_json(),
            "production": {**row.production.to_json(), "admitted": row.admitted},
            "marker": row.marker,
        })
    return {"name": replay.name, "summary": replay.summary, "rows": rows}


# -- command line ------------------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m properties.replay",
        description="Replay traces through the reference and the production budget, side by side.",
    )
    parser.add_argument("files", nargs="*", metavar="FILE", help="guard-trace/1 files (default: the recorded sessions)")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON instead of tables")
    parser.add_argument("--name", action="append", default=[], metavar="TEXT",
                        help="only traces whose name contains TEXT (repeatable)")
    return parser


def load_traces(files: Sequence[str]) -> list[Trace]:
    """The named trace files, or the built-in recorded sessions when none is named."""
    if files:
        return [load_trace(path) for path in files]
    from properties.budget.fixtures import recorded_traces

    return recorded_traces()


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--hooks" in argv:  # the same sessions through the hook path: properties/hooks/replay.py
        from properties.hooks import replay as hooks

        return hooks.main([arg for arg in argv if arg != "--hooks"])
    args = _parser().parse_args(argv)
    try:
        traces = load_traces(args.files)
    except TraceError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if args.name:
        traces = [trace for trace in traces if any(text in trace.name for text in args.name)]
        if not traces:
            print(f"error: --name: no trace name contains {' or '.join(map(repr, args.name))}", file=sys.stderr)
            return 2
    replays = [replay_trace(trace) for trace in traces]
    try:
        if args.json:
            print(json.dumps({"traces": [to_json(replay) for replay in replays]}, indent=1, default=repr))
        else:
            print("\n\n".join(render(replay) for replay in replays))
        sys.stdout.flush()
    except BrokenPipeError:
        # A reader such as `head` closed the pipe; that is not an error of the replay. Point stdout at
        # devnull so the interpreter's final flush does not report the closed pipe as well.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


if __name__ == "__main__":
    sys.exit(main())
