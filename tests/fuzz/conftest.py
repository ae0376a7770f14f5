"""Fuzz runs only: the example database ``nox -s fuzz`` names, as the loaded settings profile.

HypoFuzz takes its database from the settings profile loaded after pytest's
collection, and each worker collects again; pytest re-runs conftest files on
every collection (``tests/conftest.py`` loads its own profile each time), but
not test modules. So the choice lives here, in a conftest that runs after the
top-level one, every time.
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings

from properties import database, hypofuzz_fixes

_url = database.from_environment()
if _url:
    hypofuzz_fixes.install()
    settings.register_profile(
        "fuzz", parent=settings.default, database=database.open_database(_url), derandomize=False, deadline=None,
        # Every health check but nested_given: HypoFuzz declines to fuzz a test that suppresses that one.
        suppress_health_check=[check for check in HealthCheck if check is not HealthCheck.nested_given],
    )
    settings.load_profile("fuzz")
