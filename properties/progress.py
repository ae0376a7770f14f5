"""Live progress of a long run, on stderr: what is running, how far it got, and (where the work is known) how long is left.

The drivers and their forked workers call ``update`` (and ``task`` around a
whole driver); the process that started the run (``Display``) reads those
reports and shows them:

* on a terminal, one live line per running driver with rich (a bar where the
  total is known, the driver's own counts, the elapsed time and an estimate of
  the time left), and a first line counting finished drivers;
* off a terminal (CI, a pipe), one plain line per driver at most every
  ``every`` seconds (10 by default), so that a log stays readable; a driver
  done sooner prints none.

Reports travel over one pipe made before any worker is forked: a report is
one JSON line written with a single non-blocking ``os.write`` below
``PIPE_BUF``, which the kernel keeps whole, so workers need no lock (a worker
killed midway cannot leave one held) and a full pipe drops a report instead
of slowing the work. Each process sends at most one report per label every
``MIN_INTERVAL`` seconds. With no display running (``--quiet``, or a driver
called outside a run, as the unit tests do) ``update`` returns after one test
of a module global.

Nothing here draws a random number or changes the order of any work: progress
never changes the report, the exit status or what a seed reproduces.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import sys
import threading
import time
from typing import Any, Iterator, TextIO

#: The shortest gap between two reports of one label from one process (the display refreshes twice a second).
MIN_INTERVAL = 0.25
#: On a terminal: how often the live display redraws.
REDRAW = 0.5
#: Off a terminal: the shortest gap between two printed lines of one driver.
PLAIN_EVERY = 10.0
#: When set, the display writes its own cost there at its end (``Display._record_cost``; read by the bench).
COST_VARIABLE = "PROPERTIES_PROGRESS_COST"
#: In a row's spinner cell once its count reached its total (rich's default is a blank): a finished driver's last
#: figures stay recognisable as a row of the display, to a reader and to the terminal test that parses them.
FINISHED = "\u2713"
#: A report longer than this is cut: a pipe keeps writes up to PIPE_BUF (4096 bytes on Linux) whole.
MAX_REPORT = 3000

#: The write end of the pipe while a display runs (inherited by forked workers), else None.
_channel: "int | None" = None
#: The label ``update`` reports under when none is given: the task this process runs (``task``).
_current = ""
#: Per label, when this process last sent a report (the throttle).
_sent: dict[str, float] = {}
#: The throttle in force: MIN_INTERVAL, or shorter under a display that redraws more often (inherited by forks).
_min_interval = MIN_INTERVAL
#: Per label, the last report the throttle held back: sent before the label's end, so a driver's last figures
#: (its count reaching its total) are never lost to the throttle.
_held: dict[str, dict[str, Any]] = {}


def active() -> bool:
    """Whether a display is reading reports (in this process or the one that forked it)."""
    return _channel is not None


def current() -> str:
    """The label of the task this process runs, or ""."""
    return _current


def _send(message: dict[str, Any]) -> None:
    channel = _channel
    if channel is None:
        return
    data = (json.dumps(message, separators=(",", ":"), default=str)[:MAX_REPORT] + "\n").encode()
    try:
        os.write(channel, data)
    except (BlockingIOError, BrokenPipeError, OSError):
        # Progress is best effort: a full or closed pipe loses a report, never the work.
        pass


def update(label: "str | None" = None, *, done: "int | None" = None, total: "int | None" = None, unit: str = "",
           eta: bool = False, force: bool = False, **fields: Any) -> None:
    """Report how far ``label`` (default: this process's task) got: ``done`` of ``total`` ``unit``, and ``fields``.

    ``fields`` are shown in order: an int as ``12,345 name``, a string as it
    is; a later report of the label replaces the fields it names. ``eta``: the
    total is the work left to do, so the time left can be estimated from the
    rate so far. Cheap when no display runs; throttled per label otherwise
    (``force`` sends anyway, for a last report).
    """
    if _channel is None:
        return
    name = label if label is not None else _current
    if not name:  # outside any task (a driver's code called by the bench, say): nothing to show it under
        return
    now = time.monotonic()
    message = {"label": name, "done": done, "total": total, "unit": unit, "eta": eta, "fields": fields, "at": time.time()}
    if not force and now - _sent.get(name, -_min_interval) < _min_interval:
        _held[name] = message
        return
    _sent[name] = now
    _held.pop(name, None)
    _send(message)


@contextlib.contextmanager
def line(label: str) -> Iterator[None]:
    """A line for ``label`` while the block runs (it appears now and goes when the block ends); thread-safe, reports
    name their label."""
    if _channel is not None:
        _send({"label": label, "begin": True, "at": time.time()})
    try:
        yield
    finally:
        held = _held.pop(label, None)
        if _channel is not None:
            if held is not None:
                _send(held)
            _send({"label": label, "end": True, "at": time.time()})
        _sent.pop(label, None)


@contextlib.contextmanager
def task(label: str) -> Iterator[None]:
    """Run a driver (or a part of one) under ``label``: its line, and the label ``update`` uses in this process."""
    global _current
    before = _current
    _current = label
    try:
        with line(label):
            yield
    finally:
        _current = before


def sublabel(name: str) -> str:
    """A label for one piece of the current task (an explorer configuration)."""
    return f"{_current} / {name}" if _current else name


# -- the reading side ---------------------------------------------------------------


class Line:
    """What the display knows of one running label."""

    def __init__(self, label: str, began: float) -> None:
        self.label = label
        self.began = began
        self.done: "int | None" = None
        self.total: "int | None" = None
        self.unit = ""
        self.eta = False
        self.fields: dict[str, Any] = {}
        self.printed = 0.0
        self.changed = False

    def take(self, message: dict[str, Any]) -> None:
        if message.get("done") is not None:
            self.done = message["done"]
        if message.get("total") is not None:
            self.total = message["total"]
        self.unit = message.get("unit") or self.unit
        self.eta = bool(message.get("eta")) or self.eta
        self.fields.update(message.get("fields") or {})
        self.changed = True

    def text(self, now: float) -> str:
        """The line's figures in words (no label): counts, fields, rates, elapsed and, where known, time left."""
        elapsed = max(0.0, now - self.began)
        parts = []
        if self.done is not None:
            count = f"{self.done:,}" if self.total is None else f"{self.done:,}/{self.total:,}"
            parts.append(f"{count} {self.unit}".strip())
        for name, value in self.fields.items():
            if isinstance(value, bool) or value is None:
                continue
            parts.append(f"{value:,} {name}" if isinstance(value, int) else str(value))
        states = self.fields.get("states")
        if isinstance(states, int) and elapsed >= 1.0:
            parts.append(f"{states / elapsed:,.0f} states/s")
        parts.append(f"{elapsed:.0f} s")
        left = self.seconds_left(elapsed)
        if left is not None:
            parts.append(f"about {left:.0f} s left")
        return ", ".join(parts)

    def seconds_left(self, elapsed: float) -> "float | None":
        if not self.eta or not self.total or not self.done or elapsed < 1.0:
            return None
        return elapsed * max(0, self.total - self.done) / self.done


class Display:
    """Reads the workers' reports from the pipe and shows them on ``stream`` (stderr) until ``stop``.

    ``tasks``: how many drivers the run has (the first line counts the
    finished ones), or None. ``live``: draw with rich (a terminal) or print
    plain lines; None decides by ``stream.isatty()``. ``every``: off a
    terminal, the shortest gap between two printed lines of one driver; below
    REDRAW it also shortens the terminal's redraw period and the senders'
    throttle (a test's knob: a driver that lives one second still gets several
    redraws on the fastest machine).
    """

    def __init__(self, stream: "TextIO | None" = None, tasks: "int | None" = None, live: "bool | None" = None,
                 every: float = PLAIN_EVERY, title: str = "properties") -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.tasks = tasks
        self.live = self._is_terminal(self.stream) if live is None else live
        self.every = every
        self.redraw = min(REDRAW, every)
        self.title = title
        self.lines: dict[str, Line] = {}
        self.finished = 0
        self.started = time.time()
        self.reader = -1
        self.thread: "threading.Thread | None" = None
        self.halt = threading.Event()
        self.rich: Any = None
        self.rows: dict[str, Any] = {}
        self.overall: Any = None
        self.stdout: Any = None
        #: What the progress itself cost in this process: the reading thread's CPU seconds, the reports it read.
        self.thread_cpu = 0.0
        self.reports = 0

    @staticmethod
    def _is_terminal(stream: TextIO) -> bool:
        try:
            return stream.isatty()
        except (AttributeError, ValueError):
            return False

    # -- lifetime --

    def start(self) -> "Display":
        global _channel, _min_interval
        if _channel is not None:  # already shown by an outer display (a run inside a run): report there
            return self
        _min_interval = min(MIN_INTERVAL, self.redraw / 2)
        self.reader, writer = os.pipe()
        os.set_blocking(writer, False)
        _channel = writer
        if self.live:
            self._start_rich()
        self.thread = threading.Thread(target=self._loop, name="progress", daemon=True)
        self.thread.start()
        return self

    def stop(self) -> None:
        global _channel, _min_interval
        if self.thread is None:
            return
        writer, _channel = _channel, None
        _min_interval = MIN_INTERVAL
        self.halt.set()
        self.thread.join()
        self.thread = None
        last = time.thread_time()
        self._drain(0.0)
        self._record_cost(last)
        if writer is not None:
            os.close(writer)
        os.close(self.reader)
        if self.rich is not None:
            self._show_rich(time.time())
            self.rich.stop()
            if self.stdout is not None:
                rest = sys.stdout.buffer if isinstance(sys.stdout, AboveDisplay) else ""
                sys.stdout = self.stdout
                self.stdout.write(rest)
                self._reset_stdout()
            self.rich = None

    def _record_cost(self, last: float) -> None:
        """Write what the progress cost to ``$PROPERTIES_PROGRESS_COST`` when set (the bench reads it back).

        Timing a run with and without progress needs a quiet machine to resolve
        2%; the progress's own CPU does not: the reading thread's CPU seconds
        (its ``thread_time``) and the number of reports, each of which a
        worker paid one ``json.dumps`` and one pipe write for (the bench times
        that send alone and multiplies).
        """
        path = os.environ.get(COST_VARIABLE)
        if not path:
            return
        cost = {"thread_cpu": self.thread_cpu + time.thread_time() - last, "reports": self.reports, "live": self.live}
        try:
            with open(path, "w", encoding="utf-8") as out:
                json.dump(cost, out)
        except OSError:
            pass

    @staticmethod
    def _reset_stdout() -> None:
        global _real_stdout
        _real_stdout = None

    def __enter__(self) -> "Display":
        return self.start()

    def __exit__(self, *_exc: Any) -> None:
        self.stop()

    # -- reading --

    def _loop(self) -> None:
        shown = 0.0
        began = time.thread_time()
        try:
            while not self.halt.is_set():
                self._drain(self.redraw)
                if time.monotonic() - shown >= self.redraw:  # redraw on the period however often reports come
                    shown = time.monotonic()
                    self._show()
        finally:
            self.thread_cpu = time.thread_time() - began

    def _drain(self, timeout: float) -> None:
        pending = b""
        while True:
            ready, _, _ = select.select([self.reader], [], [], timeout)
            if not ready:
                return
            try:
                chunk = os.read(self.reader, 65536)
            except OSError:
                return
            if not chunk:
                return
            pending += chunk
            *complete, pending = pending.split(b"\n")
            for raw in complete:
                try:
                    self._take(json.loads(raw))
                except ValueError:
                    continue
            timeout = 0.0

    def _take(self, message: dict[str, Any]) -> None:
        self.reports += 1
        label = str(message.get("label", ""))
        at = float(message.get("at", time.time()))
        if message.get("end"):
            ended = self.lines.pop(label, None)
            if ended is not None and self.rich is not None and label in self.rows:
                # Its last figures, drawn once before its row goes: a driver shorter than a redraw still shows
                # where it ended, not only where it was at the last redraw.
                self.rich.update(self.rows[label], completed=ended.done or 0, total=ended.total,
                                 text=ended.text(time.time()))
                self.rich.refresh()
            if " / " not in label:  # a piece of a driver (an explorer configuration) is not a driver
                self.finished += 1
            self._forget(label)
            return
        line = self.lines.get(label)
        if line is None:
            line = self.lines[label] = Line(label, at)
        if not message.get("begin"):
            line.take(message)

    # -- showing --

    def _show(self) -> None:
        now = time.time()
        if self.rich is not None:
            self._show_rich(now)
            return
        for line in list(self.lines.values()):
            # A driver's first line waits ``every`` seconds too: a short run prints none.
            if line.changed and now - max(line.began, line.printed) >= self.every:
                line.printed = now
                line.changed = False
                self._write(f"progress: {line.label}: {line.text(now)}\n")

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):
            pass

    def _start_rich(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn

        console = Console(file=self.stream, force_terminal=True, highlight=False, soft_wrap=False)
        self.rich = Progress(
            SpinnerColumn(finished_text=FINISHED), TextColumn("{task.description}"), BarColumn(bar_width=16),
            TextColumn("{task.fields[text]}"),
            console=console, auto_refresh=False, redirect_stdout=False, redirect_stderr=False, transient=False,
        )
        self.rich.start()
        self.overall = self.rich.add_task(self.title, total=self.tasks, text="starting")
        if self._is_terminal(sys.stdout) and _same_file(sys.stdout, self.stream):
            # The report's lines written while the display runs must come out above it, as they are.
            global _real_stdout
            self.stdout = _real_stdout = sys.stdout
            sys.stdout = AboveDisplay(console, self.stdout)
            _register_fork_handler()

    def _show_rich(self, now: float) -> None:
        progress = self.rich
        for label, line in self.lines.items():
            if label not in self.rows:
                self.rows[label] = progress.add_task(label, total=None, text="")
            # Every refresh, changed or not: the elapsed time and the rates move on their own.
            progress.update(self.rows[label], completed=line.done or 0, total=line.total, text=line.text(now))
        done = f"{self.finished}/{self.tasks} drivers finished" if self.tasks else f"{self.finished} finished"
        progress.update(self.overall, completed=self.finished, text=f"{done}, {now - self.started:.0f} s")
        progress.refresh()

    def _forget(self, label: str) -> None:
        row = self.rows.pop(label, None)
        if row is not None and self.rich is not None:
            self.rich.remove_task(row)


#: The real stdout while ``AboveDisplay`` stands for it, else None.
_real_stdout: "TextIO | None" = None
_fork_handler = False


def _in_forked_child() -> None:
    # A forked worker writes its own output to the real stdout; only the process that draws may print above it.
    if _real_stdout is not None:
        sys.stdout = _real_stdout


def _register_fork_handler() -> None:
    global _fork_handler
    if not _fork_handler:
        os.register_at_fork(after_in_child=_in_forked_child)
        _fork_handler = True


def _same_file(first: TextIO, second: TextIO) -> bool:
    try:
        return os.path.samestat(os.fstat(first.fileno()), os.fstat(second.fileno()))
    except (AttributeError, OSError, ValueError):
        return False


class AboveDisplay:
    """Stands for stdout while the live display runs on the same terminal: each line is printed above the display,
    exactly as written (no markup, no wrapping, no highlighting)."""

    def __init__(self, console: Any, file: TextIO) -> None:
        self.console = console
        self.file = file
        self.buffer = ""

    def write(self, text: str) -> int:
        from rich.text import Text

        self.buffer += text
        *lines, self.buffer = self.buffer.split("\n")
        for line in lines:
            self.console.print(Text(line), soft_wrap=True, markup=False, highlight=False, emoji=False)
        return len(text)

    def flush(self) -> None:
        self.file.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.file, name)


def shown(quiet: bool, tasks: "int | None" = None, every: float = PLAIN_EVERY, title: str = "properties") -> Any:
    """The display for a run (a context manager), or a do-nothing one under ``--quiet``."""
    if quiet:
        return contextlib.nullcontext()
    return Display(tasks=tasks, every=every, title=title)
