"""Acceptance: every counterexample a run saves under a planted bug replays to the same broken invariant and step.

For each of five rule bugs of the catalogue (``mutations/entries/``) (different rules,
different invariants), a scratch copy of the project gets the bug, ``python -m
properties --mutants --seed 0`` runs there and saves its counterexamples
(``--quick`` for one of them, so that every driver and both bulk workers save
one), and ``python -m properties.replay FILE`` replays each saved file in the
same copy:
it must exit 1, print ``BROKEN <id> ... at step <n>`` for the invariant and
step the run printed in its ``COUNTEREXAMPLE`` line, and say the invariant the
file was saved for still breaks there. Every path the report lists must be a
distinct file (no overwrites).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from mutations import catalogue, scratch
from properties.paths import ROOT

pytestmark = [
    pytest.mark.slow,
    # Under mutation this would plant bugs in copies of a mutant: it tests the harness, not guard/.
    pytest.mark.skipif("MUTANT_UNDER_TEST" in os.environ, reason="checks replay of saved counterexamples, not guard/"),
]

#: Five rule bugs, one per rule family: deferral, total cap, free lookups, refusal grants, correction on stop.
PLANTED = ("defer-below-fuse", "hold-back-total", "free-lookup-resets-consecutive", "same-kind-twice",
           "stop-keeps-correction")
#: How each runs: ``--mutants`` stops at the first violation; ``--quick`` runs every driver (explorer, state
#: machine, two bulk workers), so one run saves several counterexamples of one invariant that must not collide.
MODES = {"defer-below-fuse": ("--quick", "--seed", "5")}
TIMEOUT = 600.0
COUNTEREXAMPLE = re.compile(r"^COUNTEREXAMPLE from (\S+): ([A-Z]+\d+) .*? violated at step (\d+):", re.M)


def _environment(copy: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PYTEST_", "HYPOTHESIS_"))}
    env.pop("MUTANT_UNDER_TEST", None)
    env.update(PYTHONPATH=str(copy), PYTHONHASHSEED="0", PYTHONDONTWRITEBYTECODE="1",
               GUARD_SHARED=str(copy.parent / "shared"))
    return env


def plant_and_replay(entry_id: str, parent: Path) -> dict:
    entry = {entry.id: entry for entry in catalogue.entries()}[entry_id]
    copy = scratch.make(ROOT, parent)
    entry.apply_to(copy)
    env = _environment(copy)
    mode = MODES.get(entry_id, ("--mutants", "--seed", "0"))
    run = subprocess.run([sys.executable, "-m", "properties", *mode], cwd=copy, env=env,
                         capture_output=True, text=True, errors="replace", timeout=TIMEOUT)
    found = {"id": entry_id, "exit": run.returncode, "printed": COUNTEREXAMPLE.findall(run.stdout), "replays": [],
             "tail": run.stdout[-2000:] + run.stderr[-2000:]}
    report = json.loads((copy / "reports" / "properties.json").read_text(encoding="utf-8"))
    found["listed"] = list(report["counterexamples"])
    for listed in found["listed"]:
        path = copy / listed
        replay = subprocess.run([sys.executable, "-m", "properties.replay", str(path)], cwd=copy, env=env,
                                capture_output=True, text=True, errors="replace", timeout=TIMEOUT)
        saved = json.loads(path.read_text(encoding="utf-8"))
        found["replays"].append({"path": listed, "exit": replay.returncode, "out": replay.stdout, "err": replay.stderr,
                                 "invariant": saved.get("invariant"), "step": saved.get("step")})
    return found


def test_saved_counterexamples_replay_to_the_same_invariant_and_step(tmp_path: Path) -> None:
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda name: plant_and_replay(name, tmp_path / name), PLANTED))
    invariants = set()
    for result in results:
        name = result["id"]
        assert result["exit"] == 1, (name, result["tail"])
        assert result["printed"], (name, "no COUNTEREXAMPLE line", result["tail"])
        assert result["listed"], (name, "the report lists no counterexample file")
        assert len(set(result["listed"])) == len(result["listed"]), (name, result["listed"])
        printed = {(invariant, int(step)) for _driver, invariant, step in result["printed"]}
        for replay in result["replays"]:
            where = (name, replay["path"])
            assert replay["exit"] == 1, (where, replay["out"][-1500:], replay["err"])
            invariant, step = replay["invariant"], replay["step"]
            assert (invariant, step) in printed, (where, invariant, step, printed)
            assert re.search(rf"^BROKEN {invariant} \(.*\) at step {step}: ", replay["out"], re.M), (where, replay["out"][-1500:])
            assert f"saved for {invariant} at step {step}: still breaks at step {step}" in replay["out"].splitlines(), where
            invariants.add(invariant)
    print(f"acceptance: {len(PLANTED)} planted bugs, {sum(len(r['replays']) for r in results)} counterexamples replayed, "
          f"invariants {', '.join(sorted(invariants))}")
    assert len(invariants) >= 3, invariants
    quick = next(result for result in results if result["id"] in MODES)
    drivers = {re.match(r"(.*)-B\d+-\d+steps-[0-9a-f]{8}\.json$", Path(path).name).group(1) for path in quick["listed"]}
    assert {"explorer", "stateful", "bulk-A", "bulk-B"} <= drivers, quick["listed"]
