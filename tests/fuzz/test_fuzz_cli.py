"""The fuzz runner's and the replay's command lines, and the replay itself, without HypoFuzz or Redis.

A failure stored by a plain Hypothesis run (same machine class, so the same
database key HypoFuzz uses) in a directory database must replay from it,
naming the invariant, on the code that has the bug, and not on the correct
code. Usage errors are one line and exit 2.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from fuzz_helpers import PLANTED, PLANTED_INVARIANT, project_copy, run_in
from properties.paths import ROOT

pytestmark = pytest.mark.skipif("MUTANT_UNDER_TEST" in os.environ,
                                reason="plants its own bug in its own copy; a mutant of guard/ changes nothing here")

_STORE = """
import sys
from hypothesis import HealthCheck, Phase, settings
from hypothesis.stateful import run_state_machine_as_test
from properties import database, fuzz
machine = fuzz.machines()["budget"]
chosen = settings(database=database.open_database(sys.argv[1]), max_examples=2000, deadline=None,
                  phases=[Phase.generate, Phase.shrink], suppress_health_check=list(HealthCheck))
try:
    run_state_machine_as_test(machine, settings=chosen)
except AssertionError as error:
    print("stored:", str(error).splitlines()[0])
else:
    print("nothing found")
"""


@pytest.mark.parametrize(("module", "arguments"), [
    ("properties.fuzz", ["--seconds", "0"]), ("properties.fuzz", ["--seconds", "inf"]), ("properties.fuzz", ["--workers", "0"]),
    ("properties.fuzz", ["--port", "70000"]), ("properties.fuzz", ["--progress", "-1"]), ("properties.fuzz", ["--subject", "nowhere"]), ("properties.fuzz", ["--nope"]),
    ("properties.fuzz", ["--redis", "redis://127.0.0.1:1/0"]), ("properties.database", []),
    ("properties", ["--database", "/etc/hostname"]), ("properties", ["--database", "redis://127.0.0.1:1/0"]),
    # A mistyped directory is no empty database: replaying it must not read as "no stored failure replays".
    ("properties", ["--database", "/nonexistent/fleet-db"]),
])
def test_usage_errors_are_one_line_and_exit_2(module: str, arguments: list[str]) -> None:
    done = subprocess.run([sys.executable, "-m", module, *arguments], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert done.returncode == 2, done.stdout + done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr, done.stderr


def test_an_empty_database_replays_nothing(tmp_path: Path) -> None:
    (tmp_path / "db").mkdir()
    done = run_in(ROOT, "properties", "--database", str(tmp_path / "db"), timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ok budget: no stored failure replays" in done.stdout


def test_a_stored_failure_replays_from_a_directory_database(tmp_path: Path) -> None:
    copy = project_copy(tmp_path / "planted", PLANTED)
    store = tmp_path / "db"
    stored = subprocess.run([sys.executable, "-c", _STORE, str(store)], cwd=copy, capture_output=True, text=True,
                            env={**os.environ, "PYTHONPATH": str(copy), "GUARD_SHARED": str(copy.parent / "shared")},
                            timeout=600)
    assert f"VIOLATED {PLANTED_INVARIANT}" in stored.stdout, stored.stdout + stored.stderr[-2000:]
    replayed = run_in(copy, "properties", "--database", str(store), timeout=300)
    assert replayed.returncode == 1, replayed.stdout + replayed.stderr
    assert f"VIOLATED {PLANTED_INVARIANT} (budget, replayed from the database)" in replayed.stdout
    fixed = run_in(ROOT, "properties", "--database", str(store), timeout=300)
    assert fixed.returncode == 0 and "ok budget: no stored failure replays" in fixed.stdout, fixed.stdout + fixed.stderr
