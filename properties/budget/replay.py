"""Reference and production side by side, one row per event, every invariant judged (``nox -s replay``).

Usage::

    python -m properties.replay [--json] [--name TEXT] [FILE ...]

Without FILE it replays the built-in recorded sessions (``properties.budget.fixtures``:
the three website runs of seed 001 and seed 002's photo-renamer). With FILE
arguments it loads ``guard-trace/1`` files (``properties.budget.trace_file``). Every trace
gets a table, a one-line summary such as::

    reference stops after call 11; production open (waiting: global)

and the verdict of the subject's monitor, the very checks every driver runs
(for the budget: ``properties.budget.invariants.new_monitor`` over fresh
``properties.budget.copies`` with the trace's limits)::

    BROKEN B5 (bounded deferrals) at step 0: P deferred 'global' ...
    saved for B5 at step 0: still breaks at step 0

Steps count from 0, as the failure table of ``properties.budget.counterexample``
and every ``Violation`` number them. The second line appears when the file
names the invariant it was saved for. Exit status: 0 when no invariant
breaks, 1 when one does, 2 for a bad file or option (one line on stderr
naming the file and the field; nothing else is printed, since every file is
checked whole before the first table).

Columns: ``step``, ``label``, ``tool``, ``event`` (``round``; ``result
failed|ok`` with flags C correctable, P corrected/passed, R:kind correctable
refusal, E empty lookup, L:lane, D discovery, pend running process, and
``ignored`` when both budgets ignore the receipt: an id that is not a
non-empty string, or a repeated one; ``first_call remedy yes|no``; ``stop``),
then for each budget ``con`` (consecutive), ``tot`` (total failures), ``wait``
(waiting charge), ``pend`` (pending correction) and ``stop``; the last column
marks divergence (``<<`` when one budget is stopped and the other is not,
``<`` when only the counters differ, which the relaxations do legitimately)
and ``!B5`` where an invariant broke. Refusal kinds are abbreviated in the
table (legend below it) and kept whole in the summary and in ``--json``.

Long traces are streamed: a table shows the first ``TABLE_ROWS`` steps and
counts the rest; ``--json`` prints every row, one per line, in strict JSON.
Text from a file is printed escaped (``properties.budget.trace_file.printable``).

The production column is the copy ``P`` of ``properties.budget.copies``: every flag
as the trace gives it. A trace of another subject (its ``subject`` field) is
judged by that subject's ``SUBJECT.monitor`` and shown one event per line.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

import attrs

from guard.limits import Limits
from properties.budget.copies import new_copies
from properties.cli import OneLineParser, UsageError
from properties.budget.events import Event, FirstCall, Result, Round, Stop
from properties.catalogue import Tally
from properties.budget.monitor import new_monitor
from properties.budget.state import BudgetState, budget_state
from properties.names import DISCOVERY_TOOLS
from properties.pinning import invariant_to_pin, write_pinned
from properties.budget.trace_file import Trace, TraceError, dumps, event_to_json, load_trace, printable, read_trace

#: Long tool names are shown without this prefix so the table fits 100 columns.
TOOL_PREFIX = "pixel_ods_workspace_"
TOOL_WIDTH = 15
LABEL_WIDTH = 12
#: A table shows at most this many rows; ``--json`` streams every row of any length.
TABLE_ROWS = 2_000


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
    #: Why both budgets ignored this receipt, or "".
    ignored: str = ""
    #: The invariants that broke at this step.
    broken: tuple[str, ...] = ()


@attrs.frozen
class Replay:
    name: str
    rows: tuple[Row, ...]
    summary: str
    #: Steps replayed (``rows`` may hold only the first ``TABLE_ROWS`` of them).
    count: int = 0
    broken: tuple["Broken", ...] = ()
    #: Whether the invariant the file was saved for still breaks ("" when it names none).
    saved: str = ""
    trace: "Trace | None" = None


# -- running a trace -------------------------------------------------------------------------


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


def ignored_reason(event: Event, reference: Any, production: Any) -> str:
    """Why both budgets ignore this receipt ("" when they do not): an unusable id, or one they have seen.

    A host may send any JSON scalar as an id; both budgets count a receipt only under a non-empty
    string id (seed 001's duplicate rule), so a trace may hold one and the table must say the receipt
    changed nothing on purpose rather than leave a silent ``0 0``.
    """
    if not isinstance(event, Result):
        return ""
    call_id = event.call_id
    if not isinstance(call_id, str) or call_id == "":
        return f"ignored: call_id {printable(json.dumps(call_id))} is not a non-empty string"
    if call_id in reference.seen_call_set and call_id in production.seen_call_set:
        return "ignored: duplicate call_id"
    return ""


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
        kind = printable(event.correctable_refusal)
        parts.append(f"R:{(kinds or {}).get(kind, kind)}")
    if event.empty_lookup:
        parts.append("E")
    if event.lane is not None:
        parts.append(f"L:{printable(event.lane)}")
    if event.discovery or (not event.failed and event.tool in DISCOVERY_TOOLS):
        parts.append("D")
    if event.pending:
        parts.append("pend")
    return " ".join(parts)


def _describe(row: Row) -> str:
    if row.label:
        return row.label
    return f"step {row.step} ({event_summary(row.event).split(' ')[0]})"


@attrs.define
class _Side:
    """How one budget ended, kept step by step so that a trace of any length needs constant memory."""

    which: str
    previous: bool = False
    first_stop: str | None = None
    stop_at: str | None = None
    admissions: list[str] = attrs.field(factory=list)
    admission_count: int = 0
    final: BudgetState | None = None

    def add(self, row: Row) -> None:
        state: BudgetState = getattr(row, self.which)
        if state.stopped and not self.previous:
            self.stop_at = _describe(row)
            self.first_stop = self.first_stop or self.stop_at
        self.previous = state.stopped
        if self.which == "production" and row.admitted:
            self.admission_count += 1
            if len(self.admissions) < 4:
                self.admissions.append(_describe(row))
        self.final = state

    def text(self) -> str:
        notes: list[str] = []
        final = self.final
        if final is not None and final.stopped and self.stop_at is not None:
            head = f"stops after {self.stop_at}"
            if self.first_stop != self.stop_at:
                notes.append(f"first tripped after {self.first_stop}")
        else:
            head = "open"
            if self.first_stop is not None:
                notes.append(f"tripped after {self.first_stop}")
        if self.admission_count:
            more = self.admission_count - len(self.admissions)
            notes.append("remedy admitted at " + ", ".join(self.admissions) + (f" and {more} more" if more > 0 else ""))
        if final is not None and final.pending:
            notes.append(f"pending correction: {final.pending}")
        if final is not None and final.waiting:
            notes.append(f"waiting: {final.waiting}")
        return head + (f" ({'; '.join(notes)})" if notes else "")


def summarize(rows: Iterable[Row]) -> str:
    """One line: how the reference and production ended."""
    reference, production = _Side("reference"), _Side("production")
    for row in rows:
        reference.add(row)
        production.add(row)
    return f"reference {reference.text()}; production {production.text()}"


@attrs.frozen
class Broken:
    """An invariant that broke during a replay: its first step and how many steps broke it."""

    invariant: str
    title: str
    step: int
    message: str
    steps: int

    def to_json(self) -> dict[str, Any]:
        return attrs.asdict(self)


def saved_verdict(trace: Trace, broken: Sequence[Broken]) -> str:
    """Whether the invariant a file was saved for still breaks, and where ("" when the file names none)."""
    if trace.invariant is None:
        return ""
    at = f" at step {trace.step}" if trace.step is not None else ""
    found = next((item for item in broken if item.invariant == trace.invariant), None)
    if found is None:
        return f"saved for {trace.invariant}{at}: holds now"
    if trace.step is None or found.step == trace.step:
        return f"saved for {trace.invariant}{at}: still breaks at step {found.step}"
    return f"saved for {trace.invariant}{at}: still breaks, but first at step {found.step}"


def _new_judge(limits: Limits) -> Any:
    """The budget's monitor over fresh copies with the trace's limits: the checks every driver runs."""
    return new_monitor(Tally(), limits=limits, budgets=new_copies(limits))


def replay_rows(trace: Trace, events: Iterable[Event], broken: dict[str, Broken]) -> Iterator[Row]:
    """Deliver every event to every copy through the monitor; yield one row per step (numbered from 0).

    Each invariant that breaks is added to ``broken`` (its first step, and a count of steps). The
    table shows the reference and production (``P``); the monitor also runs the other copies and
    B13's probes, exactly as the drivers do, so a replay breaks what the run broke.
    """
    monitor = _new_judge(trace.limits)
    reference, production = monitor.budgets["R"], monitor.budgets["P"]
    tally = monitor.tally
    for step, event in enumerate(events):
        ignored = ignored_reason(event, reference, production)
        admissions = monitor.admissions["P"]
        found = monitor.step(event)
        # The monitor keeps every violation in its tally; replay keeps the first of each invariant.
        tally.violations.clear()
        for violation in found:
            known = broken.get(violation.invariant)
            if known is None:
                broken[violation.invariant] = Broken(violation.invariant, violation.title, step,
                                                     printable(violation.message), 1)
            else:
                broken[violation.invariant] = attrs.evolve(known, steps=known.steps + 1)
        ref_state, prod_state = budget_state(reference), budget_state(production)
        yield Row(
            step=step, event=event, label=_clean(getattr(event, "label", "")), tool=_clean(tool_name(event)),
            summary=event_summary(event), reference=ref_state, production=prod_state,
            admitted=monitor.admissions["P"] > admissions, marker=_marker(ref_state, prod_state),
            ignored=ignored, broken=tuple(violation.invariant for violation in found),
        )


def _sorted(broken: dict[str, Broken]) -> tuple[Broken, ...]:
    return tuple(sorted(broken.values(), key=lambda item: (item.step, _order(item.invariant))))


def judge_trace(trace: Trace, events: Iterable[Any] | None = None) -> tuple[Broken, ...]:
    """Every invariant of the trace's subject that breaks when it is replayed, first step first.

    The budget replays through its monitor with the trace's limits; another subject through its
    ``SUBJECT.monitor`` (``properties.subject``).
    """
    events = trace.events if events is None else events
    broken: dict[str, Broken] = {}
    if trace.subject == "budget":
        for _row in replay_rows(trace, events, broken):
            pass
        return _sorted(broken)
    for _step in subject_steps(trace, events, broken):
        pass
    return _sorted(broken)


def subject_steps(trace: Trace, events: Iterable[Any], broken: dict[str, Broken]) -> Iterator[tuple[int, Any, tuple[str, ...]]]:
    """(step, event, invariants broken there) for a subject other than the budget, judged by its monitor."""
    from properties.subject import load

    subject = load(trace.subject)
    if subject.monitor is None:
        raise TraceError(f"{printable(trace.name)}: subject: {trace.subject} declares no monitor to judge a trace with")
    tally = Tally()
    monitor = subject.monitor(tally, None)
    for step, event in enumerate(events):
        found = monitor.step(event)
        tally.violations.clear()
        for violation in found:
            known = broken.get(violation.invariant)
            broken[violation.invariant] = (
                Broken(violation.invariant, violation.title, step, printable(violation.message), 1) if known is None
                else attrs.evolve(known, steps=known.steps + 1)
            )
        yield step, event, tuple(violation.invariant for violation in found)


def render_subject(trace: Trace, events: Iterable[Any], keep: int | None) -> tuple[str, bool]:
    """A subject without a side-by-side table: one line per step, then the verdict lines."""
    broken: dict[str, Broken] = {}
    lines, count = [], 0
    for step, event, found in subject_steps(trace, events, broken):
        if keep is None or step < keep:
            text = printable(json.dumps(event_to_json(event, trace.subject), default=repr))
            lines.append(f"{step:>5} {_cut(text, 80)}" + ("  " + " ".join("!" + name for name in found) if found else ""))
        count += 1
    replay = Replay(name=printable(trace.name), rows=(), summary="", count=count, broken=_sorted(broken), trace=trace)
    replay = attrs.evolve(replay, saved=saved_verdict(trace, replay.broken))
    head = f"== {replay.name} ({count} events, subject {trace.subject})"
    if count > len(lines):
        lines.append(f"... {count - len(lines):,} more steps not shown")
    return "\n".join([head, *lines, *verdict_lines(replay)]), bool(replay.broken)


def replay_trace(trace: Trace, events: Iterable[Event] | None = None, keep: int | None = None) -> Replay:
    """Replay a trace (or ``events`` streamed from its file), keeping at most ``keep`` rows for the table."""
    broken: dict[str, Broken] = {}
    reference, production = _Side("reference"), _Side("production")
    kept: list[Row] = []
    count = 0
    for row in replay_rows(trace, trace.events if events is None else events, broken):
        reference.add(row)
        production.add(row)
        if keep is None or count < keep:
            kept.append(row)
        count += 1
    found = _sorted(broken)
    return Replay(
        name=printable(trace.name), rows=tuple(kept), summary=f"reference {reference.text()}; production {production.text()}",
        count=count, broken=found, saved=saved_verdict(trace, found), trace=trace,
    )


def _order(invariant: str) -> tuple[str, int]:
    match = re.fullmatch(r"([A-Z]+)(\d+)", invariant)
    return (match.group(1), int(match.group(2))) if match else (invariant, 0)


def _clean(text: Any) -> str:
    # A label from a file must not break the table's lines, nor the terminal's encoder.
    return re.sub(r"[\x00-\x1f\x7f]", " ", printable(text))


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


def verdict_lines(replay: Replay) -> list[str]:
    """Which invariants broke (first step, from 0 as the failure table numbers them) and the saved-for verdict."""
    lines = []
    for item in replay.broken:
        more = f" (and {item.steps - 1} later steps)" if item.steps > 1 else ""
        lines.append(f"BROKEN {item.invariant} ({item.title}) at step {item.step}: {item.message}{more}")
    if not replay.broken:
        lines.append(f"invariants: none broken in {replay.count:,} steps")
    if replay.saved:
        lines.append(replay.saved)
    return lines


def render(replay: Replay) -> str:
    """The side-by-side table, its legend, the summary line and the invariants' verdict."""
    kinds = kind_abbreviations([
        kind for row in replay.rows
        for kind in (getattr(row.event, "correctable_refusal", None), row.production.pending)
        if isinstance(kind, str) and kind
    ])
    head = ["step", "label", "tool", "event"]
    table = []
    for row in replay.rows:
        event = event_summary(row.event, kinds) + (" ignored" if row.ignored else "")
        table.append([
            str(row.step), _cut(row.label, LABEL_WIDTH), _cut(row.tool, TOOL_WIDTH), event,
            *_budget_cells(row.reference, kinds),
            *_budget_cells(row.production, kinds, "+" if row.admitted else ""),
            " ".join(filter(None, [row.marker, *("!" + name for name in row.broken)])),
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
    lines = [f"== {replay.name} ({replay.count} events)", group, fmt(columns)]
    lines.extend(fmt(line) for line in table)
    if replay.count > len(replay.rows):
        lines.append(f"... {replay.count - len(replay.rows):,} more steps not shown (--json prints every step)")
    if kinds:
        lines.append("kinds: " + ", ".join(f"{short} = {kind}" for kind, short in kinds.items()))
    if any(row.admitted for row in replay.rows):
        lines.append("+ in production's stop column: the first call after the trip was admitted as the remedy")
    reasons = sorted({row.ignored for row in replay.rows if row.ignored})
    if reasons:
        lines.append("ignored: both budgets ignored the receipt (" + "; ".join(r.removeprefix("ignored: ") for r in reasons) + ")")
    if any(row.broken for row in replay.rows):
        lines.append("!ID in the last column: that invariant broke at this step (listed below)")
    lines.append(replay.summary)
    lines.extend(verdict_lines(replay))
    return "\n".join(lines)


def row_to_json(row: Row) -> dict[str, Any]:
    return {
        "step": row.step,
        "label": row.label,
        "tool": row.tool,
        "event": row.summary,
        "trace_event": event_to_json(row.event),
        "ignored": row.ignored,
        "reference": row.reference.to_json(),
        "production": {**row.production.to_json(), "admitted": row.admitted},
        "marker": row.marker,
        "broken": list(row.broken),
    }


def _dump(value: Any) -> str:
    # Strict JSON: a non-finite number raises instead of printing a bare NaN (trace files cannot hold one).
    return json.dumps(value, allow_nan=False, default=repr)


def _verdict_json(replay: Replay) -> dict[str, Any]:
    trace = replay.trace
    return {
        "name": replay.name,
        "subject": trace.subject if trace else "budget",
        "summary": replay.summary,
        "steps": replay.count,
        "broken": [item.to_json() for item in replay.broken],
        "saved_for": None if trace is None or trace.invariant is None else {
            "invariant": trace.invariant, "step": trace.step, "verdict": replay.saved,
            "still_breaks": any(item.invariant == trace.invariant for item in replay.broken),
        },
    }


def to_json(replay: Replay) -> dict[str, Any]:
    return {**_verdict_json(replay), "rows": [row_to_json(row) for row in replay.rows]}


# -- command line ------------------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="python -m properties.replay",
        description="Replay traces through the reference and the production budget, side by side, "
                    "judging every invariant at every step.",
    )
    parser.add_argument("files", nargs="*", metavar="FILE", help="guard-trace/1 files (default: the recorded sessions)")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON instead of tables")
    parser.add_argument("--name", action="append", default=[], metavar="TEXT",
                        help="only traces whose name contains TEXT (repeatable)")
    return parser


def check_file(path: str) -> Trace:
    """Read a whole file once, checking every event, and return its header (memory stays bounded)."""
    stream = read_trace(path)
    for _ in stream.events:
        pass
    return stream.header


def load_traces(files: Sequence[str]) -> list[Trace]:
    """The named trace files (headers only: events are streamed again when replayed), or the recorded sessions."""
    if files:
        return [check_file(path) for path in files]
    from properties.budget.fixtures import recorded_traces

    return recorded_traces()


def _render(trace: Trace, path: str | None, keep: int | None) -> tuple[str, bool]:
    """The printed replay of one trace and whether an invariant broke; dispatches on the trace's subject."""
    events = read_trace(path).events if path is not None else None
    if trace.subject != "budget":
        return render_subject(trace, trace.events if events is None else events, keep)
    replay = replay_trace(trace, events, keep)
    return render(replay), bool(replay.broken)


def replay_main(argv: Sequence[str] | None = None) -> int:
    # Text from a trace file is escaped when printed; this guards any path that forgot to (lone surrogates).
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        args = _parser().parse_args(argv)
    except UsageError as error:
        print(f"python -m properties.replay: {error}", file=sys.stderr)
        return 2
    try:
        # Every file is checked whole before anything is printed: a bad file prints one line and nothing else.
        traces = load_traces(args.files)
    except TraceError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    paths: list[str | None] = list(args.files) if args.files else [None] * len(traces)
    chosen = list(zip(traces, paths))
    if args.name:
        chosen = [(trace, path) for trace, path in chosen if any(text in trace.name for text in args.name)]
        if not chosen:
            print(f"error: --name: no trace name contains {' or '.join(map(repr, args.name))}", file=sys.stderr)
            return 2
    broke = False
    try:
        if args.json:
            broke = _print_json(chosen)
        else:
            for index, (trace, path) in enumerate(chosen):
                text, broken = _render(trace, path, TABLE_ROWS)
                broke = broke or broken
                print(("\n" if index else "") + text, flush=True)
        sys.stdout.flush()
    except TraceError as error:  # the file changed between the check and the replay
        print(f"error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # A reader such as `head` closed the pipe; that is not an error of the replay. Point stdout at
        # devnull so the interpreter's final flush does not report the closed pipe as well.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 1 if broke else 0


def _print_json(chosen: list[tuple[Trace, str | None]]) -> bool:
    """``{"traces": [...]}``, each trace's rows streamed one per line, then its verdict: constant memory."""
    write = sys.stdout.write
    broke = False
    write('{"traces": [\n')
    for index, (trace, path) in enumerate(chosen):
        broken: dict[str, Broken] = {}
        events = read_trace(path).events if path is not None else trace.events
        write((",\n" if index else "") + '{"rows": [\n')
        if trace.subject != "budget":
            broken_steps: dict[str, Broken] = {}
            count = 0
            for step, event, found in subject_steps(trace, events, broken_steps):
                write(("," if count else "") + _dump({"step": step, "trace_event": event_to_json(event, trace.subject),
                                                      "broken": list(found)}) + "\n")
                count += 1
            found_all = _sorted(broken_steps)
            replay = Replay(name=printable(trace.name), rows=(), count=count, broken=found_all, trace=trace,
                            summary="", saved=saved_verdict(trace, found_all))
            write("], " + _dump(_verdict_json(replay))[1:] + "\n")
            broke = broke or bool(found_all)
            continue
        reference, production = _Side("reference"), _Side("production")
        count = 0
        for row in replay_rows(trace, events, broken):
            reference.add(row)
            production.add(row)
            write(("," if count else "") + _dump(row_to_json(row)) + "\n")
            count += 1
        found_broken = _sorted(broken)
        replay = Replay(name=printable(trace.name), rows=(), count=count, broken=found_broken, trace=trace,
                        summary=f"reference {reference.text()}; production {production.text()}",
                        saved=saved_verdict(trace, found_broken))
        verdict = _dump(_verdict_json(replay))
        write("], " + verdict[1:] + "\n")
        broke = broke or bool(found_broken)
    write("]}\n")
    return broke


# -- pinning (``properties.regressions``) ------------------------------------------------------


def pin_trace(source: Path, folder: Path, invariant: str | None = None) -> tuple[Path, tuple[str, ...]]:
    """Copy the trace file ``source`` into ``folder``; the new path and the invariants that break on the current code."""
    trace = load_trace(source)
    trace = attrs.evolve(trace, invariant=invariant_to_pin(source, trace.invariant, invariant, "B5", TraceError))
    if not trace.origin.startswith("pinned from "):  # pinning a pinned file keeps where it first came from
        trace = attrs.evolve(trace, origin=f"pinned from {source.name}" + (f" ({trace.origin})" if trace.origin else ""))
    target = write_pinned(folder, trace.name, dumps(trace), TraceError)
    return target, tuple(f"{item.invariant} (at step {item.step})" for item in judge_trace(trace) if item.invariant)


def check_pinned(path: Path) -> tuple[str, bool]:
    """Re-judge one pinned trace file: (one line, whether it holds)."""
    trace = load_trace(path)
    broken = judge_trace(trace)
    once = f"once broke {trace.invariant}" + (f" at step {trace.step}" if trace.step is not None else "")
    if broken:
        first = broken[0]
        return f"BROKEN {path.name}: {first.invariant} at step {first.step}: {first.message} ({once})", False
    return f"holds {path.name} ({once}; {len(trace.events)} steps)", True


if __name__ == "__main__":
    # The core's replay is the one entry point: it sets the memory limit and hands a budget file back here.
    from properties.replay import main

    sys.exit(main())
