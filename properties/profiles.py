"""Hypothesis profiles, registered once and chosen the same way by pytest and the properties CLI.

* ``dev``: quick local feedback, random seed (printed by the runners).
* ``ci``: derandomized, so CI verdicts do not depend on the day.
* ``thorough``: many more examples, for a reviewer with time to spare.
* ``mutants``: derandomized, no example database and no deadline, so that a
  verdict under mutmut depends only on the mutant (selected whenever mutmut's
  ``MUTANT_UNDER_TEST`` is present, even empty, as during its clean run); and
  no shrinking: under mutation only *whether* a test fails counts, and the
  first failing example answers that as well as the smallest one would (a
  reviewer reproduces a kill with the ``ci`` profile, which shrinks).
"""

from __future__ import annotations

import os
import sys

from hypothesis import HealthCheck, Phase, settings

from properties import drawn_constants

_QUIET = [HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large]

settings.register_profile("dev", max_examples=100, deadline=None, suppress_health_check=_QUIET)
settings.register_profile(
    "ci", max_examples=200, deadline=None, derandomize=True, database=None, print_blob=True,
    suppress_health_check=_QUIET,
)
settings.register_profile("thorough", max_examples=2000, deadline=None, suppress_health_check=_QUIET)
# mutmut runs pytest many times in one process, which Hypothesis reports as differing executors.
settings.register_profile(
    "mutants", max_examples=60, deadline=None, derandomize=True, database=None,
    suppress_health_check=[*_QUIET, HealthCheck.differing_executors],
    phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target],
)

PROFILES = ("dev", "ci", "thorough", "mutants")


def chosen_profile() -> str:
    """``mutants`` under mutmut; else ``HYPOTHESIS_PROFILE``; else ``ci`` on CI and ``dev`` elsewhere."""
    if "MUTANT_UNDER_TEST" in os.environ:
        return "mutants"
    named = os.environ.get("HYPOTHESIS_PROFILE")
    if named:
        if named not in PROFILES:
            # A bad option like any other: one line, exit status 2 (a SystemExit with a message exits 1).
            print(f"HYPOTHESIS_PROFILE: unknown profile {named!r}; choose one of {', '.join(PROFILES)}", file=sys.stderr)
            raise SystemExit(2)
        return named
    return "ci" if os.environ.get("CI") else "dev"


def load() -> str:
    name = chosen_profile()
    settings.load_profile(name)
    return name

# Before anything is drawn: Hypothesis's pool of constants stays the code under test's, whatever is imported later.
drawn_constants.pin()
