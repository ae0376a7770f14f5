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

from fuzz_helpers import needs_fuzz_python
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


def _one_worker(mode: str, subject: str, python: str = sys.executable) -> dict:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PYTEST_", "HYPOTHESIS_"))}
    env.update(PYTHONPATH=str(ROOT), PYTHONHASHSEED="0")
    done = subprocess.run([python, str(WORKER), mode, subject, "--seconds", str(SECONDS), "--seed", str(SEED)],
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


# -- Python 3.12+: sys.monitoring ------------------------------------------------------------------------------



@pytest.mark.parametrize("subject", sorted(fuzz.machines()))
def test_on_python_312_every_target_gains_behaviours_through_sys_monitoring(subject: str) -> None:
    python = needs_fuzz_python()
    outcome = _one_worker("fuzz", subject, python)
    assert outcome["first_failure"] is None, outcome
    assert outcome["behaviours"] > 0 and outcome["corpus"] > 0, outcome
    assert outcome["stable_replays"] > 0 and outcome["unstable_replays"] == 0, outcome


#: Run under the 3.12+ interpreter: HypoFuzz's own collector and ``MonitoringCoverage`` watch the same budget
#: calls (a branch taken both ways, a loop run many times); ours must record exactly HypoFuzz's branches in
#: ``guard/``, twice alike, and nothing outside its prefixes.
_SAME_BRANCHES = """
import json, sys
sys.path.insert(0, sys.argv[1])
from hypofuzz.coverage import CoverageCollector
from guard.budget import RunProgressBudget
from properties import hypofuzz_fixes

def work():
    budget = RunProgressBudget()
    for number in range(30):
        budget.observe_result(f"c{number}", "exec", {"n": number}, number % 3 != 0)
    json.dumps({"not": "traced"})

def collect(collector):
    with collector:
        work()
    return set(collector.branches)

prefixes = hypofuzz_fixes.project_files(packages=("guard",))
# HypoFuzz's first: it never restarts the events a collector switched off, ours does on entry.
theirs = {branch for branch in collect(CoverageCollector()) if branch.start.filename.startswith(prefixes)}
ours = hypofuzz_fixes.MonitoringCoverage(prefixes)
first, second = collect(ours), collect(ours)
files = sorted({branch.start.filename for branch in first} | {branch.end.filename for branch in first})
print(json.dumps({"ours": len(first), "again": first == second, "theirs": len(theirs), "same": first == theirs,
                  "files": files, "collector": type(hypofuzz_fixes.project_collector()).__name__}))
"""


def test_monitoring_coverage_records_exactly_hypofuzz_s_own_branches() -> None:
    python = needs_fuzz_python()
    done = subprocess.run([python, "-c", _SAME_BRANCHES, str(ROOT)], cwd=ROOT, capture_output=True, text=True, timeout=240,
                          env={**os.environ, "PYTHONHASHSEED": "0"})
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["ours"] > 0 and found["again"], found
    assert found["same"] and found["ours"] == found["theirs"], found
    assert all(name.startswith(str(ROOT / "guard")) for name in found["files"]), found
    assert found["collector"] == "MonitoringCoverage", found
