"""Every subject has bench rows reached through the registry, and the hook and navigation rows measure real work."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

from properties.hooks.bench import bench_hooks
from properties.navigation.bench import bench_navigation
from properties.subject import available


def test_every_subject_has_bench_rows_in_the_registry() -> None:
    missing = [subject.name for subject in available() if subject.bench is None]
    assert not missing, f"subjects without bench rows: {missing}"


def test_the_hook_rows_judge_every_event_they_time() -> None:
    """The checked row times the monitor judging every event of the batch, the bare row the same events delivered.

    Which of the two is slower is the bench's figure to print, never a test's to assert: a timing claim depends
    on how loaded the machine is. What a test can hold exactly is what was measured: every event judged, both
    times real."""
    result = bench_hooks(count=60, repeats=1)
    assert result["events"] > result["sequences"] > 0
    assert result["judged"] == result["events"], result
    assert result["checked_seconds"] > 0 and result["bare_seconds"] > 0 and math.isfinite(result["ratio"]), result


def test_the_navigation_rows_judge_every_scenario_they_time() -> None:
    """The checked row times every scenario judged (both versions run, the N catalogue); the bare row production
    alone. As for the hook rows, the comparison of the two times is the bench's figure, not an assertion."""
    result = bench_navigation(count=60, repeats=1)
    assert result["judged"] == result["scenarios"] == 60, result
    assert result["checked_per_second"] > 0 and result["bare_per_second"] > 0 and math.isfinite(result["ratio"]), result


def test_only_the_default_run_refuses_a_subject_or_skipping_the_run_in_one_line() -> None:
    root = Path(__file__).resolve().parents[2]
    for extra in (["--skip-default-run"], ["--subject", "budget"]):
        done = subprocess.run([sys.executable, "-m", "properties.bench", "--only-default-run", "--quiet", *extra],
                              cwd=root, capture_output=True, text=True, timeout=120)
        assert done.returncode == 2, done.stderr
        assert done.stderr.strip().splitlines() == [
            "python -m properties.bench: --only-default-run: not with --skip-default-run or --subject"]
