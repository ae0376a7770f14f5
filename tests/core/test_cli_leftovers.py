"""Bad options of ``python -m properties`` that used to slip through: each is one line on stderr and exit 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from properties.paths import ROOT


def run(*argv: str, **env: str) -> subprocess.CompletedProcess:
    environment = {key: value for key, value in os.environ.items() if key not in ("HYPOTHESIS_PROFILE", "MUTANT_UNDER_TEST")}
    environment.update(PYTHONPATH=str(ROOT), **env)
    return subprocess.run([sys.executable, "-m", "properties", *argv], cwd=ROOT, env=environment,
                          capture_output=True, text=True, timeout=120)


def test_unknown_hypothesis_profile_exits_2_in_one_line() -> None:
    done = run("--quick", HYPOTHESIS_PROFILE="nope")
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        "HYPOTHESIS_PROFILE: unknown profile 'nope'; choose one of dev, ci, thorough, mutants"
    ]


def test_unwritable_out_is_refused_before_the_run(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder\n", encoding="utf-8")
    done = run("--quick", "--seed", "1", "--out", str(blocker / "reports"))
    assert done.returncode == 2
    # Refused before the run: no driver printed anything.
    assert done.stdout == ""
    assert len(done.stderr.splitlines()) == 1
    assert f"--out {blocker / 'reports'}: cannot write the report" in done.stderr


def test_out_that_is_a_file_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "reports"
    target.write_text("a file where the folder should be\n", encoding="utf-8")
    done = run("--quick", "--seed", "1", "--out", str(target))
    assert done.returncode == 2 and done.stdout == "" and len(done.stderr.splitlines()) == 1
