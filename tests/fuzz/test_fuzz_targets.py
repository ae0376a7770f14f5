"""The fuzz targets: one Hypothesis state machine per subject, as pytest tests HypoFuzz can select.

Generated from the subject registry (``properties.fuzz.machines()``): a class
``TestFuzz_<subject>`` per subject with a state machine, each checking the
subject's whole catalogue and failing with ``VIOLATED <id>`` at the first
violation.

Two ways they run:

* under ``nox -s fuzz`` (``GUARD_FUZZ_DATABASE`` set): HypoFuzz fuzzes them
  against that database (``conftest.py`` here loads it as the settings
  profile ``fuzz``: HypoFuzz reads the profile's database, not a test's own);
* under ``nox -s tests``: as ordinary Hypothesis tests with a small example
  budget (``EXAMPLES``), a smoke check that every target runs and passes on the
  correct code; the deep checking is ``python -m properties``' and the fuzzer's.
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings

from properties import fuzz

#: Examples per target in an ordinary test run (each up to 50 steps).
EXAMPLES = 15
#: Every health check but ``nested_given``: HypoFuzz declines to fuzz a test that suppresses that one.
QUIET = [check for check in HealthCheck if check is not HealthCheck.nested_given]

for _name, _machine in fuzz.machines().items():
    _case = _machine.TestCase
    _case.settings = settings(settings.default, max_examples=EXAMPLES, stateful_step_count=50, deadline=None,
                              suppress_health_check=QUIET)
    _case.__name__ = _case.__qualname__ = f"TestFuzz_{_name}"
    globals()[_case.__name__] = _case
del _name, _machine, _case
