"""Shared test set-up: the Hypothesis profile and the path to ``../shared``."""

from __future__ import annotations

from pathlib import Path

import pytest

from properties import profiles, work_bound
from properties.paths import fixtures_dir as _fixtures_dir, shared_dir

PROFILE = profiles.load()

SHARED = shared_dir()
FIXTURES = _fixtures_dir()


def pytest_report_header(config: pytest.Config) -> str:
    return f"hypothesis profile: {PROFILE}; shared: {SHARED}"


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    if not FIXTURES.is_dir():
        pytest.fail(f"missing fixtures: {FIXTURES} (the project expects ../shared beside its root)")
    return FIXTURES


#: Loop iterations of guard/ and reference/ one test may run outside the drivers' own per-step bounds (issue 25):
#: about a second of looping, far above any unit test's need, so a change that makes the guard loop for good fails
#: its tests with ``WorkBoundExceeded`` instead of hanging them.
TEST_LOOPS = 2_000_000


@pytest.fixture(autouse=True)
def bounded_guard_loops() -> None:
    work_bound.arm(TEST_LOOPS, "one test's guard code")
