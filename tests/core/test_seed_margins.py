"""``python -m properties.seed_margins``: each coverage count's lowest over seeds, against its minimum."""

from __future__ import annotations

import subprocess
import sys

import pytest

from properties import seed_margins
from properties.paths import ROOT


def report(rows: list[tuple[str, str, int, int, bool]]) -> dict[str, object]:
    return {"coverage": [{"subject": subject, "name": name, "count": count, "minimum": minimum, "required": required}
                         for subject, name, count, minimum, required in rows]}


def test_margins_keep_every_seed_and_sort_the_tightest_first() -> None:
    found = seed_margins.margins([
        (5, report([("a", "wide", 300, 10, True), ("a", "tight", 9, 4, True), ("a", "free", 0, 7, False)])),
        (6, report([("a", "wide", 250, 10, True), ("a", "tight", 3, 4, True), ("a", "free", 1, 7, False)])),
    ])
    assert [(m.name, m.lowest, m.median, m.missed) for m in found] == [("tight", 3, 6.0, (6,)), ("wide", 250, 275.0, ())]
    assert found[0].ratio == 0.75


def test_a_seed_whose_verdict_failed_is_named_with_its_reasons() -> None:
    passed = {**report([("a", "wide", 300, 10, True)]), "ok": True, "reasons": []}
    violated = {**report([("a", "wide", 300, 10, True)]), "ok": False, "reasons": ["H8 violated"]}
    assert seed_margins.failures([(1, passed), (2, violated)]) == [(2, ["H8 violated"])]


def test_seeds_are_ranges_and_lists_and_bad_ones_are_one_line() -> None:
    assert seed_margins.seeds_of("1,3,200-202,3") == (1, 3, 200, 201, 202)
    assert seed_margins.seeds_text((1, 3, 200, 201, 202)) == "1, 3, 200-202"
    finished = subprocess.run([sys.executable, "-m", "properties.seed_margins", "--seeds", "9-2"], cwd=ROOT,
                              capture_output=True, text=True, timeout=60)
    assert finished.returncode == 2 and finished.stdout == ""
    assert finished.stderr.strip().splitlines() == [
        "python -m properties.seed_margins: argument --seeds: in --seeds '9-2': the range '9-2' runs backwards"]


def test_a_run_that_writes_no_report_is_one_line_naming_the_seed() -> None:
    finished = subprocess.run([sys.executable, "-m", "properties.seed_margins", "--seeds", "4", "--subject", "nosuch"],
                              cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert finished.returncode == 2
    [line] = finished.stderr.strip().splitlines()
    assert line.startswith("python -m properties.seed_margins: seed 4: the verdict (exit 2) wrote no readable properties.json")
    assert "nosuch" in line


@pytest.mark.real_programs
@pytest.mark.slow
def test_the_lookup_minimums_hold_on_the_seed_that_once_failed_ci() -> None:
    """Seed 3555001728 met 3 chains decided before their last step (minimum 4) in a CI run; the directed chains
    now reach the rarer counts on every seed, and the command says so with exit 0."""
    finished = subprocess.run([sys.executable, "-m", "properties.seed_margins", "--seeds", "3555001728,14",
                               "--subject", "lookup"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert finished.returncode == 0, finished.stdout + finished.stderr
    rows = {line.split("  ")[1].strip(): line for line in finished.stdout.splitlines() if line.startswith("lookup ")}
    assert "decided before the last step" in rows and rows["decided before the last step"].rstrip().endswith("none")
    assert finished.stdout.splitlines()[0] == "coverage margins over 2 seeds (3555001728, 14), tightest first:"
