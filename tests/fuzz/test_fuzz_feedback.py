"""HypoFuzz's coverage feedback works on every fuzz target: behaviours above 0, every stability replay equal.

Each target's machine runs through one HypoFuzz worker's own loop
(``one_worker.py fuzz``, a fresh process, seeded) for ``SECONDS``; HypoFuzz's
own numbers must show behaviours, and every replay it made to check an input's
coverage must have covered the same behaviours. The pinned HypoFuzz without
``properties.hypofuzz_fixes`` is run too, and must still be blind: when it no
longer is, the forced-draw workaround can go (see that module).

Skipped only under mutation (``MUTANT_UNDER_TEST``): it checks the fuzzing
tooling, not ``guard/``, and the mutation environments do not install HypoFuzz.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from properties import fuzz
from properties.paths import ROOT

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif("MUTANT_UNDER_TEST" in os.environ, reason="checks the fuzz tooling, not guard/; not run per mutant"),
]

WORKER = Path(__file__).resolve().parent / "one_worker.py"
#: Seconds of fuzzing per target: even on a loaded machine, enough for a first input and its stability replay.
SECONDS = 8
SEED = 1


def _one_worker(mode: str, subject: str) -> dict:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PYTEST_", "HYPOTHESIS_"))}
    env.update(PYTHONPATH=str(ROOT), PYTHONHASHSEED="0")
    done = subprocess.run([sys.executable, str(WORKER), mode, subject, "--seconds", str(SECONDS), "--seed", str(SEED)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=SECONDS + 240)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("subject", sorted(fuzz.machines()))
def test_every_target_gains_behaviours_and_replays_stably(subject: str) -> None:
    outcome = _one_worker("fuzz", subject)
    assert outcome["first_failure"] is None, outcome
    assert outcome["behaviours"] > 0 and outcome["corpus"] > 0, outcome
    assert outcome["stable_replays"] > 0 and outcome["unstable_replays"] == 0, outcome


def test_the_pinned_hypofuzz_alone_is_still_blind() -> None:
    outcome = _one_worker("fuzz-unfixed", "budget")
    assert outcome["unstable_replays"] > 0, outcome
    assert outcome["behaviours"] == 0 and outcome["stable_replays"] == 0, outcome


def test_project_coverage_records_only_project_files_and_the_same_arcs_twice() -> None:
    from guard.budget import RunProgressBudget
    from properties import hypofuzz_fixes

    def run() -> set:
        collector = hypofuzz_fixes.ProjectCoverage()
        with collector:
            budget = RunProgressBudget()
            for number in range(5):
                budget.observe_result(f"c{number}", "exec", {"n": number}, True)
            json.dumps({"not": "traced"})
        return collector.branches

    tracer_before = sys.gettrace()
    first, second = run(), run()
    assert first and first == second
    files = {branch.start.filename for branch in first} | {branch.end.filename for branch in first}
    assert str(ROOT / "guard" / "budget.py") in files
    assert all(name.startswith(hypofuzz_fixes.project_files()) for name in files), files
    assert sys.gettrace() is tracer_before, "the collector puts back the tracer it found"
