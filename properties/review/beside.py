"""Part 4's mutation, run in a forked process beside the verdicts and the behaviour comparison.

Why: mutmut's statistics over the suite and its clean run are one pytest
process each, so the mutation of the change, run after the verdicts, kept one
core busy while the other idled (measured on a one-function change: 184 CPU s
in 171 s of wall time, after 95 s in which the verdicts had both cores). Forked
as soon as the changed units are known, the mutation keeps a core of its own
while everything else the review starts afterwards shares the other: the
review's process lowers its own priority by ``NICE`` once the child runs, and
every process it starts from then on inherits that.

Nothing the review reports changes: the child reads what the mutation read
before (HEAD's scratch copy, BASE's worktree, the changed units), and each
result is the same function of the same inputs; only when the work is done
moves. Decision: the child's output (mutmut's lines) goes to a log that the
review prints where the phase printed it before, so the report on stdout
keeps its order; its live progress still reaches the display as it comes.

The child hands back its result as a pickle in the review's scratch folder,
read once the child has been waited for; its CPU seconds are its whole
tree's, from ``os.wait4``. The child leads a process group of its own, so
stopping the review (an error, Ctrl-C, SIGTERM) stops mutmut's processes too.
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
import time
import traceback
from pathlib import Path
from typing import Any, Callable

import attrs

#: How much the review lowers its own priority (and that of every process it starts) while the mutation runs.
#: With CFS's weights, nice 19 against 0 is about 1 to 68: one process at 0 keeps a whole core beside any number
#: of niced ones on two cores.
NICE = 19


class BesideError(Exception):
    """The forked mutation failed; the message is its traceback, or how it ended."""


@attrs.define
class Beside:
    """A job running in a forked child (``start``); ``finish`` waits for it and returns what it returned."""

    pid: int
    log: Path
    result: Path
    started: float
    done: bool = False
    #: After ``finish``: the child's wall and CPU seconds (its whole process tree), and what it printed.
    wall: float = 0.0
    cpu: float = 0.0
    output: str = ""

    def finish(self) -> Any:
        """Wait for the child; its job's return value, or ``BesideError`` with the child's traceback."""
        _pid, status, usage = os.wait4(self.pid, 0)
        self.done = True
        self.wall = time.monotonic() - self.started
        self.cpu = usage.ru_utime + usage.ru_stime
        self.output = self.log.read_text(encoding="utf-8", errors="replace") if self.log.is_file() else ""
        if not self.result.is_file():
            how = (f"killed by signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status)
                   else f"exit {os.WEXITSTATUS(status)}")
            raise BesideError(f"the mutation process ended without a result ({how}); its output ends: "
                              + " | ".join(self.output.strip().splitlines()[-3:]))
        kind, value = pickle.loads(self.result.read_bytes())
        if kind != "ok":
            raise BesideError(value)
        return value

    def stop(self) -> None:
        """Stop the child and its process group if it still runs (the review is ending early)."""
        if self.done:
            return
        try:
            os.killpg(self.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass
        self.done = True


def start(folder: Path, job: Callable[[], Any]) -> Beside:
    """Fork a child that runs ``job()`` with its stdout and stderr in ``folder/mutation.log``, then lower this
    process's priority by ``NICE`` (the child keeps the priority it had)."""
    folder.mkdir(parents=True, exist_ok=True)
    log, result = folder / "mutation.log", folder / "mutation.pickle"
    # What this process buffered must not be written a second time by the child.
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child; its result is what the tests read
        _child(log, result, job)
    os.nice(NICE)
    return Beside(pid, log, result, time.monotonic())


def _child(log: Path, result: Path, job: Callable[[], Any]) -> None:
    code = 0
    try:
        os.setpgid(0, 0)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.close(fd)
        sys.stdout = open(1, "w", buffering=1, encoding="utf-8", errors="replace", closefd=False)
        sys.stderr = open(2, "w", buffering=1, encoding="utf-8", errors="replace", closefd=False)
        try:
            outcome: tuple[str, Any] = ("ok", job())
        except BaseException:  # noqa: BLE001 - everything the job raises goes back to the review, as text
            outcome = ("error", traceback.format_exc())
        result.with_suffix(".part").write_bytes(pickle.dumps(outcome))
        result.with_suffix(".part").replace(result)
    except BaseException:  # noqa: BLE001 - a child must never return into the review's own code
        code = 1
        try:
            sys.stderr.write(traceback.format_exc())
        except BaseException:  # noqa: BLE001
            pass
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)
