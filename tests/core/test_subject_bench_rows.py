"""Every subject has bench rows reached through the registry, and the hook and navigation rows measure real work."""

from __future__ import annotations

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
