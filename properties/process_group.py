"""Commands timed to their end as one process group, and never left running (the bench's side-by-side timings).

``nox -s bench``'s review row and ``python -m properties.review.scenarios``
time whole commands (a default run, a review) whose work happens in their
children and grandchildren; a command cut off by its timeout must take them
with it, or the next row is measured beside the leftovers.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

__all__ = ["exit_on_sigterm", "stop_group", "timed"]


#: Seconds a cut-off command gets to unwind (remove its worktree and scratch folder) before its group is killed.
_GRACE = 30.0


def timed(command: list[str], tree: Path, env: dict[str, str], timeout: float) -> tuple[float, float, int]:
    """(wall s, CPU s of the process tree, exit status) of one command run to its end in ``tree``.

    The command runs in a process group of its own, and is never left behind: past ``timeout``, or when this
    process is stopped (Ctrl-C, or SIGTERM turned into an exit), the whole group gets SIGTERM (a review unwinds
    on it, removing BASE's worktree), then SIGKILL after ``_GRACE`` seconds. A review's verdicts and mutmut,
    a default run's workers, are in that group; ``subprocess.run``'s own timeout kills the direct child only
    and would leave them running, still loading the machine the next measurement runs on.
    subprocess.TimeoutExpired past ``timeout``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=tree, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               start_new_session=True)
    try:
        code = process.wait(timeout=timeout)
    finally:
        if process.poll() is None:
            stop_group(process, _GRACE)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, code


def stop_group(process: subprocess.Popen[Any], grace: float) -> None:
    """End the process group ``process`` leads (started with ``start_new_session``): SIGTERM, then SIGKILL after
    ``grace`` seconds; once the leader has exited, SIGKILL to the group either way, since its children (a
    review's verdicts, HypoFuzz's workers) may outlive it. A leader already gone: the group gets SIGKILL."""
    if process.poll() is not None:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        return
    for sent in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(process.pid, sent)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=grace)
            os.killpg(process.pid, signal.SIGKILL)
            return
        except subprocess.TimeoutExpired:
            continue
        except ProcessLookupError:
            return


def exit_on_sigterm() -> None:
    """From now on SIGTERM (a cancelled job) unwinds this process like an exit: ``finally`` blocks run, so a
    timed command's group is stopped (``timed``) and temporary worktrees are removed, instead of outliving it."""
    signal.signal(signal.SIGTERM, _exit)


def _exit(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)
