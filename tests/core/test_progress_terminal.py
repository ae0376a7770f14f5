"""Live progress as a person sees it: read from a pseudo-terminal, from a pipe, and gone under ``--quiet``.

Each test runs ``python -m properties`` for real in a subprocess (a short
``--quick`` run with more bulk traces, so that every driver lives for a few
refreshes, and a terminal redraw period of 0.1 s) and reads what it wrote.
Nothing here times anything: a loaded machine only makes the lines move more
often.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from mutations.scratch import violated_invariant

ROOT = Path(__file__).resolve().parents[2]
SEED = 11
#: Enough bulk work that the bulk drivers take a few seconds each, whatever the machine.
TRACES = "1500"
RUN = ["-m", "properties", "--quick", "--seed", str(SEED), "--traces", TRACES]
#: The drivers a --quick run has: every one must have had a moving line.
DRIVERS = ("budget explorer", "budget stateful", "budget bulk A", "budget bulk B", "hooks stateful", "hooks bulk A",
           "hooks bulk B", "navigation stateful", "navigation bulk")
ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
#: A drawn progress line: a spinner (a check mark once its count reached its total), the label, a bar of 16 cells, then the figures.
DRAWN = re.compile(r"^[\u2800-\u28ff\u2713] (?P<label>.+?) +[\u2501\u2578\u257a ]{16} ?(?P<figures>.*)$")
PLAIN = re.compile(r"^progress: (?P<label>[a-z]+ [a-z]+(?: [AB])?(?: / [a-z0-9 ,]+)?): (?P<figures>.+)$")


def _env() -> dict[str, str]:
    return {**{k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "HYPOTHESIS_"))},
            "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "0"}


def _on_terminal(arguments: list[str], timeout: float = 300.0) -> tuple[int, str]:
    """Run with stdout and stderr on a pseudo-terminal of 150 columns; (exit status, everything it wrote)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 150, 0, 0))
    process = subprocess.Popen([sys.executable, *arguments], cwd=ROOT, env=_env(), stdin=subprocess.DEVNULL,
                               stdout=slave, stderr=slave)
    os.close(slave)
    chunks = []
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 1.0)
            if not ready:
                if process.poll() is not None:
                    break
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
        else:
            process.kill()
            pytest.fail(f"python {' '.join(arguments)} still running after {timeout:.0f} s")
    finally:
        os.close(master)
    return process.wait(timeout=60), b"".join(chunks).decode("utf-8", "replace")


def _drawn_lines(raw: str) -> dict[str, list[str]]:
    """Per label, the successive different texts the live display drew for it."""
    seen: dict[str, list[str]] = defaultdict(list)
    for piece in re.split(r"\r\n|\r|\n|\x1b\[2K", raw):
        found = DRAWN.match(ESCAPE.sub("", piece).strip())
        if found:
            label, figures = found["label"].strip(), found["figures"].strip()
            if figures and (not seen[label] or seen[label][-1] != figures):
                seen[label].append(figures)
    return seen


def _same_verdict(first: Path, second: Path) -> None:
    """Two runs' reports agree on everything but time."""
    def numbers(path: Path) -> Any:
        def strip(value: Any) -> Any:
            if isinstance(value, dict):
                return {k: strip(v) for k, v in value.items() if not re.search(r"second|wall|/s|figures", k)}
            if isinstance(value, list):
                return [strip(v) for v in value]
            return value
        return strip(json.loads(path.read_text(encoding="utf-8")))

    assert numbers(first) == numbers(second)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The same short run three ways: on a terminal, piped (plain lines every second), and piped with ``--quiet``."""
    where = tmp_path_factory.mktemp("progress-runs")
    code, raw = _on_terminal([*RUN, "--out", str(where / "terminal"), "--progress-every", str(REDRAW)])
    piped = subprocess.run([*[sys.executable], *RUN, "--out", str(where / "piped"), "--progress-every", str(EVERY)],
                           cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=300)
    quiet = subprocess.run([sys.executable, *RUN, "--out", str(where / "quiet"), "--quiet"], cwd=ROOT, env=_env(),
                           capture_output=True, text=True, timeout=300)
    return {"where": where, "terminal": (code, raw), "piped": piped, "quiet": quiet}


#: Off a terminal, the shortest gap between two lines of one driver in these runs (10 s by default).
EVERY = 1.0
#: On the terminal, the redraw period of this run (0.5 s by default): the fastest driver (hooks stateful, about
#: 1 s on a fast machine) still gets several redraws, so "its line moved" does not depend on the machine's speed.
REDRAW = 0.1


@pytest.mark.slow
def test_on_a_terminal_every_driver_has_a_live_line_that_moves(runs: dict[str, Any]) -> None:
    code, raw = runs["terminal"]
    assert code == 0, raw[-3000:]
    drawn = _drawn_lines(raw)
    for driver in DRIVERS:
        assert len(drawn.get(driver, [])) >= 2, f"{driver}: drawn as {drawn.get(driver)}; every line drawn: {sorted(drawn)}"
    # Where the work is counted, the count itself moves (not only the clock), and never past its total.
    for driver in ("budget bulk A", "budget bulk B", "hooks bulk A", "hooks bulk B", "budget stateful"):
        counts = [tuple(int(n.replace(",", "")) for n in found.groups())
                  for found in (re.match(r"([\d,]+)/([\d,]+) ", text) for text in drawn[driver]) if found]
        assert len({done for done, _total in counts}) >= 2, f"{driver}: {drawn[driver]}"
        assert all(done <= total for done, total in counts), f"{driver}: {counts}"
    # The explorer's configurations, each in its forked child, report their states from there.
    pieces = [label for label in drawn if label.startswith("budget explorer / ")]
    assert pieces and any(re.search(r"[\d,]+ states", text) for label in pieces for text in drawn[label]), drawn
    # The report came out whole on the same terminal, after the display.
    plain = ESCAPE.sub("", raw).replace("\r", "")
    assert "verdict: PASS" in plain
    assert plain.index("verdict: PASS") > plain.rindex("drivers finished")


@pytest.mark.slow
def test_through_a_pipe_progress_is_plain_lines_on_stderr_only(runs: dict[str, Any]) -> None:
    done = runs["piped"]
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    lines = done.stderr.splitlines()
    assert lines, "a run of several seconds printed no progress line"
    for line in lines:
        assert "\x1b" not in line and "\r" not in line, repr(line)
        assert PLAIN.match(line), f"not a plain progress line: {line!r}"
    assert not any(line.startswith("progress:") for line in done.stdout.splitlines())
    # At most one line per driver per interval: a driver running t seconds prints at most t / EVERY lines.
    per_label: dict[str, list[int]] = defaultdict(list)
    for line in lines:
        found = PLAIN.match(line)
        assert found is not None
        per_label[found["label"]].append(int(re.search(r"(\d+) s(?:,|$)", found["figures"]).group(1)))
    for label, elapsed in per_label.items():
        assert len(elapsed) <= max(elapsed) / EVERY + 1, f"{label}: {len(elapsed)} lines by {max(elapsed)} s"
    # The mutation catalogue reads a violated invariant from stdout and stderr together: progress must never look like one.
    assert violated_invariant(done.stderr) is None


@pytest.mark.slow
def test_progress_changes_nothing_but_stderr_and_quiet_turns_it_off(runs: dict[str, Any]) -> None:
    quiet = runs["quiet"]
    assert quiet.returncode == 0 and quiet.stderr == "", quiet.stderr[-2000:]
    where = runs["where"]
    _same_verdict(where / "terminal" / "properties.json", where / "quiet" / "properties.json")
    _same_verdict(where / "piped" / "properties.json", where / "quiet" / "properties.json")
    # The report on stdout is the same text with progress on or off, up to its table of timings.
    assert _untimed(runs["piped"].stdout) == _untimed(quiet.stdout)


def _untimed(stdout: str) -> list[str]:
    lines = []
    for line in stdout.splitlines():
        if line.startswith("Drivers:"):
            break
        lines.append(re.sub(r"\d+\.\d+ s\b", "# s", line))
    assert len(lines) > 20, stdout[-2000:]
    return lines


def test_a_forked_worker_reports_through_the_pipe_and_a_report_outside_any_task_is_dropped() -> None:
    """The channel itself, in this process: a forked child's reports reach the display; one with no task never does."""
    import io

    from properties import progress

    stream = io.StringIO()
    display = progress.Display(stream=stream, live=False, every=0.01, tasks=1)
    with display:
        child = os.fork()
        if child == 0:  # the worker: report, then report once more outside any task, then leave at once
            try:
                with progress.task("worker"):
                    for done in (1, 2):
                        progress.update(done=done, total=2, unit="things", force=True)
                        time.sleep(1.2)
                progress.update(done=5, total=5, unit="strays", force=True)
            finally:
                os._exit(0)
        os.waitpid(child, 0)
        time.sleep(1.0)
    shown = stream.getvalue().splitlines()
    assert any(line.startswith("progress: worker: 1/2 things") for line in shown), shown
    assert any(line.startswith("progress: worker: 2/2 things") for line in shown), shown
    assert not any("strays" in line for line in shown), shown
    assert display.finished == 1 and not display.lines
    assert not progress.active(), "the channel is closed once the display stops"


def test_the_display_records_its_own_cost_where_the_bench_reads_it(tmp_path: Path, monkeypatch: Any) -> None:
    """The load-independent half of "progress costs nothing measurable": its thread's CPU and every report it read."""
    import io

    from properties import progress

    cost = tmp_path / "cost.json"
    monkeypatch.setenv(progress.COST_VARIABLE, str(cost))
    display = progress.Display(stream=io.StringIO(), live=False, every=0.01, tasks=1)
    with display:
        with progress.task("counted"):
            for done in range(7):
                progress.update(done=done, total=7, unit="things", force=True)
        deadline = time.monotonic() + 0.05
        while time.monotonic() < deadline:  # busy, so the reading thread has CPU time to show
            pass
    recorded = json.loads(cost.read_text(encoding="utf-8"))
    # A begin, seven updates and an end: every message the workers sent is one report read.
    assert recorded["reports"] == 9
    assert 0.0 <= recorded["thread_cpu"] < 5.0 and recorded["live"] is False


def test_a_report_the_throttle_held_back_is_sent_before_the_end_of_its_line(tmp_path: Path, monkeypatch: Any) -> None:
    """A driver's last figures are never lost to the throttle: its count reaching its total arrives before its end.

    Reports of one label closer together than the throttle's interval (a quarter of a second under this display)
    are held back, the latest kept; the line's end sends the held one first."""
    import io

    from properties import progress

    cost = tmp_path / "cost.json"
    monkeypatch.setenv(progress.COST_VARIABLE, str(cost))
    display = progress.Display(stream=io.StringIO(), live=False, every=10.0, tasks=1)
    with display:
        with progress.task("short"):
            for done in (1, 2, 3):  # microseconds apart: the second and the third are throttled
                progress.update(done=done, total=3, unit="things")
    recorded = json.loads(cost.read_text(encoding="utf-8"))
    # The begin, the first report, the held third (the second replaced by it), the end.
    assert recorded["reports"] == 4


def test_on_a_terminal_a_line_is_drawn_once_more_with_its_last_figures_before_it_goes() -> None:
    """A driver that ends between two redraws still shows where it ended: its count reaching its total, in a row
    marked finished, drawn once at its end (here the last reports come microseconds apart, far inside one redraw)."""
    import io

    from properties import progress

    stream = io.StringIO()
    display = progress.Display(stream=stream, live=True, every=0.05, tasks=1)
    with display:
        with progress.task("short"):
            progress.update(done=0, total=3, unit="things", force=True)
            deadline = time.monotonic() + 5.0
            while "short" not in display.rows and time.monotonic() < deadline:  # its row drawn at a redraw
                time.sleep(0.01)
            assert "short" in display.rows, "no redraw drew the line's row within 5 s"
            for done in (1, 2, 3):
                progress.update(done=done, total=3, unit="things")
    drawn = _drawn_lines(stream.getvalue())
    assert drawn["short"][-1].startswith("3/3 things"), drawn
    finished = [ESCAPE.sub("", piece).strip() for piece in re.split(r"\r\n|\r|\n|\x1b\[2K", stream.getvalue())]
    assert any(piece.startswith(f"{progress.FINISHED} short ") for piece in finished), finished
