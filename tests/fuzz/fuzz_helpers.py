"""What the fuzz tests and the time-to-failure benchmark share: a real redis-server, a copy with a planted bug.

Not a test module (no ``test_`` prefix): imported by ``test_fuzz_redis.py`` and
run by ``time_to_failure.py``.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

from mutations import catalogue, scratch
from properties.paths import ROOT

REDIS_SERVER = "/usr/bin/redis-server"
#: The planted bug: a catalogue entry (seed 002) the budget's state machine reaches within seconds. It lets the
#: same refusal kind be granted twice in a run, which B8 forbids.
PLANTED = "same-kind-twice"
PLANTED_INVARIANT = "B8"


#: The interpreter of a virtualenv with the fuzz dependencies on Python 3.12+ (``nox -s tests`` makes it when the
#: machine has such a Python: noxfile ``FUZZ_PYTHON``, ``_fuzz_interpreter``).
FUZZ_PYTHON = os.environ.get("GUARD_FUZZ_PYTHON")


def needs_fuzz_python() -> str:
    """The 3.12+ interpreter; a CI run without one fails (the fuzz session runs there), a local run skips."""
    import pytest  # only the tests ask; time_to_failure.py imports this module without pytest

    if FUZZ_PYTHON:
        return FUZZ_PYTHON
    if os.environ.get("CI"):
        pytest.fail("GUARD_FUZZ_PYTHON is not set: nox -s tests found no Python 3.12+ for the fuzz session's collector")
    pytest.skip("no Python 3.12+ fuzz interpreter named (GUARD_FUZZ_PYTHON); nox -s tests names one when it finds one")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def redis_binary() -> str:
    found = REDIS_SERVER if Path(REDIS_SERVER).is_file() else shutil.which("redis-server")
    if not found:
        raise RuntimeError("redis-server is needed: apt-get install redis-server")
    return found


@contextlib.contextmanager
def redis_server(work: Path) -> Iterator[str]:
    """A throw-away redis-server on a free loopback port (no persistence); yields its URL, stops it after."""
    import redis

    port = free_port()
    work.mkdir(parents=True, exist_ok=True)
    process = subprocess.Popen(
        [redis_binary(), "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
         "--dir", str(work), "--protected-mode", "yes"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                redis.Redis.from_url(url, socket_connect_timeout=1).ping()
                break
            except redis.ConnectionError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"redis-server on port {port} did not start (exit {process.poll()})") from None
                time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def project_copy(parent: Path, planted: str | None) -> Path:
    """A scratch copy of the project (``mutations.scratch``), with the catalogue entry ``planted`` applied, if any."""
    copy = scratch.make(ROOT, parent)
    if planted is not None:
        entries = {entry.id: entry for entry in catalogue.entries()}
        entries[planted].apply_to(copy)
    return copy


def run_in(copy: Path, *arguments: str, timeout: float) -> subprocess.CompletedProcess:
    """``python -m <arguments>`` with the copy as the code under test."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PYTEST_", "HYPOTHESIS_"))}
    env.update(PYTHONPATH=str(copy), PYTHONHASHSEED="0", PYTHONDONTWRITEBYTECODE="1",
               GUARD_SHARED=str(copy.parent / "shared"))
    env.pop("MUTANT_UNDER_TEST", None)
    return subprocess.run([sys.executable, "-m", *arguments], cwd=copy, env=env, capture_output=True, text=True,
                          timeout=timeout)
