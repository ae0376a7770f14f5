"""Timed commands never outlive their timing (``properties.process_group``): the bench's and the scenarios' runs."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from properties import process_group

ROOT = Path(__file__).resolve().parents[2]


def _running(pid: int) -> bool:
    """The process exists and is not a zombie (a container's first process may not reap orphans)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text(encoding="utf-8")
    except FileNotFoundError:
        return False
    return "\nState:\tZ" not in status


def test_a_review_cut_off_by_the_timeout_leaves_no_process_behind(tmp_path: Path) -> None:
    # A review's verdicts and mutmut are its grandchildren: killing the direct child alone would leave them running.
    pid_file = tmp_path / "grandchild.pid"
    spawner = ("import subprocess, sys, time\n"
               "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'])\n"
               f"open({str(pid_file)!r}, 'w').write(str(child.pid))\n"
               "time.sleep(120)\n")
    started = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired):
        process_group.timed([sys.executable, "-c", spawner], tmp_path, {}, timeout=3.0)
    assert time.monotonic() - started < 60
    grandchild = int(pid_file.read_text(encoding="utf-8"))
    deadline = time.monotonic() + 10
    while _running(grandchild) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _running(grandchild)


def test_sigterm_unwinds_like_an_exit_so_cleanup_runs(tmp_path: Path) -> None:
    # A cancelled bench must still remove its worktree: its cleanup is a ``finally`` block.
    cleaned = tmp_path / "cleaned"
    program = ("import os, signal\n"
               "from properties.process_group import exit_on_sigterm\n"
               "exit_on_sigterm()\n"
               "try:\n"
               "    os.kill(os.getpid(), signal.SIGTERM)\n"
               "    signal.pause()\n"
               "finally:\n"
               f"    open({str(cleaned)!r}, 'w').write('yes')\n")
    done = subprocess.run([sys.executable, "-c", program], cwd=ROOT, env={"PYTHONPATH": str(ROOT)}, timeout=60)
    assert done.returncode == 128 + 15
    assert cleaned.read_text(encoding="utf-8") == "yes"
