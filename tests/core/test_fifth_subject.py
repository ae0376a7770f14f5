"""Proof of the subject design (issue 18, part 6): a fifth subject joins by adding its folder and nothing else.

A copy of the project gets ``properties/counter/`` (the files of
``tests/core/fifth_subject/``: a capped counter, invariants C1 and C2, a state
machine, a bulk driver, one recorded session) and no other edit. The new
subject then shows in the verdict, in replay, in a counterexample's round trip
(saved by the verdict with the bug planted, replayed to the same invariant),
among the fuzz targets, in bench, and among the mutation levels: its one
catalogue entry (``tests/core/fifth_subject_entries.py``, copied to
``mutations/entries/counter.py``, the one file a subject adds outside its
folder) is read at level ``counter`` from the registry, and the verdict's
``--mutants`` run of the mutated copy names the invariant it declares.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mutations import scratch
from properties.paths import ROOT

pytestmark = pytest.mark.skipif("MUTANT_UNDER_TEST" in os.environ,
                                reason="tests the subject registry on a copy of its own, never the mutant")

FOLDER = Path(__file__).parent / "fifth_subject"
ENTRIES = Path(__file__).parent / "fifth_subject_entries.py"
TIMEOUT = 300.0
SEED = "7"


@pytest.fixture(scope="module")
def copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    project = scratch.make(ROOT, tmp_path_factory.mktemp("fifth"))
    target = project / "properties" / "counter"
    shutil.copytree(FOLDER, target, ignore=shutil.ignore_patterns("README.md", "__pycache__"))
    shutil.copyfile(ENTRIES, project / "mutations" / "entries" / "counter.py")
    return project


def run(copy: Path, *argv: str, planted: bool = False) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PYTEST_", "HYPOTHESIS_"))}
    env.pop("MUTANT_UNDER_TEST", None)
    env.update(PYTHONPATH=str(copy), PYTHONHASHSEED="0", PYTHONDONTWRITEBYTECODE="1",
               GUARD_SHARED=str(copy.parent / "shared"), COUNTER_PLANTED="1" if planted else "0")
    return subprocess.run([sys.executable, *argv], cwd=copy, env=env, capture_output=True, text=True,
                          errors="replace", timeout=TIMEOUT)


def test_the_new_folder_is_the_only_change(copy: Path) -> None:
    """Nothing but ``properties/counter/`` differs from this checkout's files (the copy is otherwise whole)."""
    added = sorted(path.name for path in (copy / "properties" / "counter").iterdir())
    assert added == sorted(path.name for path in FOLDER.iterdir() if path.suffix == ".py")
    for name in ("subject.py", "replay.py", "bench.py", "__main__.py", "fuzz.py", "database.py"):
        assert (copy / "properties" / name).read_bytes() == (ROOT / "properties" / name).read_bytes()


def test_the_verdict_judges_it(copy: Path) -> None:
    done = run(copy, "-m", "properties", "--subject", "counter", "--seed", SEED, "--quiet", "--out", "reports")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    report = json.loads((copy / "reports" / "properties.json").read_text(encoding="utf-8"))
    rows = {row["id"]: row for row in report["invariants"] if row["subject"] == "counter"}
    assert sorted(rows) == ["C1", "C2"]
    assert all(row["status"] == "held" and row["exercised"] > 0 for row in rows.values()), rows
    assert {driver["name"] for driver in report["drivers"] if driver["subject"] == "counter"} >= {"bulk (seeded)", "stateful"}


def test_the_registry_orders_it_after_the_declared_subjects(copy: Path) -> None:
    done = run(copy, "-c", "from properties.subject import SUBJECTS; print(','.join(SUBJECTS))")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["budget,hooks,navigation,counter"] or done.stdout.strip().endswith(",counter")


def test_a_counterexample_round_trips_through_replay(copy: Path) -> None:
    """With the bug planted the verdict saves a C1 counterexample; replay judges it to C1 again, through the core."""
    done = run(copy, "-m", "properties", "--subject", "counter", "--seed", SEED, "--quiet", "--out", "planted",
               planted=True)
    assert done.returncode == 1, done.stdout[-3000:]
    assert re.search(r"^VIOLATED C1\b", done.stdout, re.M), done.stdout[-3000:]
    saved = json.loads((copy / "planted" / "properties.json").read_text(encoding="utf-8"))["counterexamples"]
    assert saved and all(Path(name).name.startswith("counter-") for name in saved), saved
    path = copy / saved[0]
    assert json.loads(path.read_text(encoding="utf-8"))["invariant"] == "C1"
    replayed = run(copy, "-m", "properties.replay", str(path), planted=True)
    assert replayed.returncode == 1, replayed.stdout + replayed.stderr
    assert re.search(r"^BROKEN C1 \(never above the cap\) at step \d+", replayed.stdout, re.M), replayed.stdout
    fixed = run(copy, "-m", "properties.replay", str(path))
    assert fixed.returncode == 0 and "BROKEN" not in fixed.stdout, fixed.stdout + fixed.stderr


def test_replay_without_files_shows_its_recorded_session(copy: Path) -> None:
    done = run(copy, "-m", "properties.replay")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "counter trace recorded" in done.stdout


def test_it_is_a_fuzz_target(copy: Path) -> None:
    done = run(copy, "-c", "from properties import fuzz; print(sorted(fuzz.machines()))")
    assert done.returncode == 0, done.stderr
    assert "'counter'" in done.stdout


def test_bench_has_its_row(copy: Path) -> None:
    done = run(copy, "-m", "properties.bench", "--subject", "counter", "--skip-default-run", "--quiet",
               "--figures", str(copy / "bench"))
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert re.search(r"^counter bulk \(steps/s\)\s+[\d,]+\s+the fifth subject$", done.stdout, re.M), done.stdout


def test_it_is_a_mutation_level_whose_entry_the_verdict_kills(copy: Path) -> None:
    done = run(copy, "-c", "from mutations import catalogue\n"
                           "print(','.join(catalogue.property_levels()))\n"
                           "print([(e.id, e.level, e.breaks) for e in catalogue.entries() if e.level == 'counter'])")
    assert done.returncode == 0, done.stderr
    levels, entries = done.stdout.splitlines()
    assert levels.split(",")[-1] == "counter", levels
    assert entries == "[('counter-up-past-cap', 'counter', ('C1',))]", entries
    # What the catalogue runner requires of a property-level entry: applied to a copy, the verdict's deterministic
    # mutant run names one of its declared invariants on a VIOLATED line.
    mutated = copy.parent / "fifth-mutated"
    shutil.copytree(copy, mutated, ignore=shutil.ignore_patterns("reports", "planted", "bench", "__pycache__"))
    applied = run(mutated, "-c", "from pathlib import Path\nfrom mutations import catalogue\n"
                                 "entry = next(e for e in catalogue.entries() if e.id == 'counter-up-past-cap')\n"
                                 "entry.apply_to(Path('.'))")
    assert applied.returncode == 0, applied.stderr
    killed = run(mutated, "-m", "properties", "--mutants", "--subject", "counter", "--seed", SEED, "--quiet")
    assert killed.returncode == 1, killed.stdout[-3000:] + killed.stderr[-2000:]
    assert re.search(r"^VIOLATED C1\b", killed.stdout, re.M), killed.stdout[-3000:]
