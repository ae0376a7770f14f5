"""Shared test set-up: the Hypothesis profile and the path to ``../shared``."""

from __future__ import annotations

from pathlib import Path

import pytest

from properties import profiles
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
