"""Every subject has bench rows reached through the registry, and the hook and navigation rows measure real work."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from properties.hooks.bench import bench_hooks
from properties.navigation.bench import bench_navigation
from properties.subject import available


def test_every_subject_has_bench_rows_in_the_registry() -> None:
    missing = [subject.name for subject in available() if subject.bench is None]
    assert not missing, f"subjects without bench rows: {missing}"


def test_the_hook_rows_check_more_than_they_deliver() -> None:
    result = bench_hooks(count=60, repeats=1)
    # Checking delivers every event too (to the guard under test and its views), then judges: strictly more work.
    assert result["events"] > result["sequences"] > 0
    assert result["ratio"] > 1.0, result


def test_the_navigation_rows_check_more_than_one_version_runs() -> None:
    result = bench_navigation(count=60, repeats=1)
    # Checking runs production and the reference, then judges: more than production alone.
    assert result["ratio"] > 1.0, result


def test_only_the_default_run_refuses_a_subject_or_skipping_the_run_in_one_line() -> None:
    root = Path(__file__).resolve().parents[2]
    for extra in (["--skip-default-run"], ["--subject", "budget"]):
        done = subprocess.run([sys.executable, "-m", "properties.bench", "--only-default-run", "--quiet", *extra],
                              cwd=root, capture_output=True, text=True, timeout=120)
        assert done.returncode == 2, done.stderr
        assert done.stderr.strip().splitlines() == [
            "python -m properties.bench: --only-default-run: not with --skip-default-run or --subject"]
