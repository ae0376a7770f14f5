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


def test_first_without_mutants_exits_2_in_one_line() -> None:
    done = run("--quick", "--first", "hooks")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == ["python -m properties: --first orders the drivers of a --mutants run; add --mutants"]


def test_first_puts_that_subjects_drivers_first_and_keeps_every_driver() -> None:
    from properties import __main__ as cli
    from properties.subject import available

    subjects = list(available())
    plain = cli.plan(subjects, cli.parse(["--mutants"]), 1, "mutants", "mutants", None)
    first = cli.plan(subjects, cli.parse(["--mutants", "--first", "navigation"]), 1, "mutants", "mutants", None)
    assert sorted(task.label for task in first) == sorted(task.label for task in plain)
    subjects_in_order = [task.subject for task in first]
    count = subjects_in_order.count("navigation")
    assert count and subjects_in_order[:count] == ["navigation"] * count
    assert plain[0].subject != "navigation"  # without --first, the cheapest driver of any subject leads
