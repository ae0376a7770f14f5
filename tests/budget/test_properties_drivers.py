"""The property drivers run, find a planted bug, and give the same answer for the same seed.

Expected numbers here come from ``shared/spec/budget.md`` and ``invariants.md``
(the 256-entry seen-calls memory, the 128-entry successes memory, the total
cap of 12), never from the drivers themselves.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from guard.budget import RunProgressBudget
from properties.budget import bulk, stateful
from properties.budget import generate
from properties.__main__ import main
from properties.budget.events import Result, Round
from properties.budget.invariants import CATALOGUE
from properties.catalogue import Tally

ROOT = Path(__file__).resolve().parents[2]
#: The unplanted copies, kept before any test replaces ``bulk.default_copies``.
HONEST_COPIES = bulk.default_copies


class TotalCapOneLate(RunProgressBudget):
    """A planted bug: the total cap stops the run one failure late (seed 001 says it is never deferred)."""

    def _settle(self) -> None:
        failures = self.failures
        self.failures = failures - 1
        try:
            super()._settle()
        finally:
            self.failures = failures


class RoundsCapOneLate(RunProgressBudget):
    """A planted bug: the ninth model round without progress does not stop the run (budget.md: the 9th stops)."""

    def begin_model_round(self) -> bool:
        self.rounds += 1
        if self.rounds > self.limits.rounds_without_progress + 1:
            self.terminal = True
            self.correction = None
        return self.terminal


def planted_rounds_copies() -> dict[str, Any]:
    copies = HONEST_COPIES()
    for name in ("P0", "P"):
        copies[name] = RoundsCapOneLate(copies[name].limits)
    return copies


def planted_copies() -> dict[str, Any]:
    copies = HONEST_COPIES()
    for name in ("P0", "P"):
        copies[name] = TotalCapOneLate(copies[name].limits)
    return copies


def _counts(tally: Tally) -> tuple:
    return (tally.steps, tally.traces, dict(tally.checked), dict(tally.exercised), dict(tally.coverage), [str(v) for v in tally.violations])


# -- bulk ---------------------------------------------------------------------------------------


def test_bulk_runs_clean_and_exercises_every_invariant() -> None:
    tally = Tally()
    result = bulk.run_bulk(11, 600, tally)
    assert result.failure is None, str(result.failure and result.failure[2])
    assert tally.steps == result.steps > 0
    vacuous = [inv.id for inv in CATALOGUE if tally.exercised[inv.id] == 0]
    assert not vacuous, f"never exercised: {vacuous}"


def test_bulk_finds_a_planted_total_cap_bug() -> None:
    tally = Tally()
    result = bulk.run_bulk(11, 300, tally, copies=planted_copies)
    assert result.failure is not None, "the bulk driver missed a total cap that stops one failure late"
    _family, events, violation = result.failure
    # Production stays open at 12 failures while the reference stops: B1 (P0 vs R), B4 or B2 must say so.
    assert violation.invariant in {"B1", "B2", "B4"}, str(violation)
    assert len(events) == violation.step + 1


def test_bulk_is_deterministic_for_a_seed() -> None:
    first, second = Tally(), Tally()
    bulk.run_bulk(5, 250, first)
    bulk.run_bulk(5, 250, second)
    assert _counts(first) == _counts(second)
    third = Tally()
    bulk.run_bulk(6, 250, third)
    assert _counts(third) != _counts(first), "a different seed drew the very same traces"


def test_bulk_flags_are_python_booleans() -> None:
    # The budget reads the seeds' flags with ``is True``: a numpy bool would silently switch a feature off.
    for _family, events in generate.traces_for(3, 300):
        for event in events:
            if isinstance(event, Result):
                for name in ("failed", "correctable", "corrected", "empty_lookup", "pending", "discovery"):
                    assert type(getattr(event, name)) is bool, (name, event)


def test_memory_family_brings_back_evicted_ids_and_fingerprints() -> None:
    """budget.md: seen ids are remembered 256 deep, success fingerprints 128 deep; the family straddles both edges."""
    traces = [events for family, events in generate.traces_for(2, 12, ["memory"])]
    assert traces and all(len(events) >= 300 for events in traces)
    id_gaps, print_gaps = set(), set()
    for events in traces:
        seen_ids: list[str] = []
        fingerprints: list[str] = []
        for event in events:
            if not isinstance(event, Result):
                continue
            if event.call_id in seen_ids:
                id_gaps.add(len(seen_ids) - 1 - seen_ids.index(event.call_id))
            else:
                seen_ids.append(event.call_id)
            if not event.failed:
                key = json.dumps(event.params, sort_keys=True)
                if key in fingerprints:
                    print_gaps.add(len(fingerprints) - 1 - fingerprints.index(key))
                else:
                    fingerprints.append(key)
    # Distinct ids after the returning one: 255 (still remembered), 256 (just evicted), 257.
    assert {255, 256} <= id_gaps, sorted(id_gaps)[-10:]
    assert {127, 128} <= print_gaps, sorted(print_gaps)[-10:]


# -- stateful -------------------------------------------------------------------------------------


def test_stateful_runs_clean() -> None:
    tally = Tally()
    result = stateful.run_stateful(4, "mutants", tally, examples=15)
    assert result.failure is None and not result.error, (result.failure, result.error)
    assert tally.steps == result.steps > 100


def test_stateful_finds_a_planted_rounds_cap_bug() -> None:
    tally = Tally()
    result = stateful.run_stateful(4, "mutants", tally, examples=100, copies=planted_rounds_copies)
    assert result.failure is not None, "the state machine missed a rounds cap one round late"
    events, violation = result.failure
    # The reference stops at the 9th round, production does not: B1 (P0 vs R) or B2/B10 must say so.
    assert violation.invariant in {"B1", "B2", "B10"}, str(violation)
    assert sum(1 for event in events if isinstance(event, Round)) >= 9


def test_stateful_without_shrinking_still_reports_the_failure() -> None:
    tally = Tally()
    result = stateful.run_stateful(4, "mutants", tally, examples=100, shrink=False, copies=planted_copies)
    assert result.failure is not None, "the state machine missed a total cap that stops one failure late"
    events, violation = result.failure
    assert violation.invariant in {"B1", "B2", "B4"}, str(violation)
    assert sum(1 for event in events if isinstance(event, Result) and event.failed) >= 12


def test_stateful_is_deterministic_for_a_seed() -> None:
    first, second = Tally(), Tally()
    stateful.run_stateful(9, "dev", first, examples=8)
    stateful.run_stateful(9, "dev", second, examples=8)
    assert _counts(first) == _counts(second)


# -- the command line -----------------------------------------------------------------------------


def _cli(tmp_path: Path, *extra: str) -> dict[str, Any]:
    code = main(["--quick", "--traces", "150", "--drivers", "bulk,stateful", "--out", str(tmp_path), *extra])
    data = json.loads((tmp_path / "properties.json").read_text())
    data["exit"] = code
    return data


def _stable(data: dict[str, Any]) -> dict[str, Any]:
    """The parts of a report that must not depend on timing."""
    return {
        "seed": data["seed"], "ok": data["ok"], "steps": data["steps"], "traces": data["traces"],
        "invariants": data["invariants"], "coverage": data["coverage"], "statistics": data["statistics"],
        "drivers": [(d["name"], d["steps"], d["traces"]) for d in data["drivers"]],
    }


def test_cli_same_seed_same_counts_and_verdicts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first = _cli(tmp_path / "a", "--seed", "21")
    second = _cli(tmp_path / "b", "--seed", "21")
    assert _stable(first) == _stable(second)
    assert first["exit"] == second["exit"] == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("properties: seed 21 ")
    assert (tmp_path / "a" / "properties.md").read_text().count("| B") >= len(CATALOGUE)


def test_cli_only_checks_the_named_invariants(tmp_path: Path) -> None:
    data = _cli(tmp_path, "--seed", "2", "--only", "B4,b11")
    rows = {row["id"]: row for row in data["invariants"]}
    assert rows["B4"]["status"] == "held" and rows["B11"]["status"] == "held"
    assert rows["B1"]["status"] == "not selected" and rows["B1"]["checked"] == 0


@pytest.mark.parametrize("seed", ["-3", "abc", "1.5", ""])
def test_cli_bad_seed_is_one_line_and_exit_2(seed: str) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "properties", "--seed", seed], cwd=ROOT, capture_output=True, text=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, timeout=60,
    )
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "--seed" in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""


def test_cli_unknown_invariant_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--only", "B99"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "B99" in err[0]


def test_cli_names_the_violated_invariant_and_exits_1(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(bulk, "default_copies", planted_copies)
    monkeypatch.chdir(tmp_path)
    code = main(["--mutants", "--traces", "300", "--drivers", "bulk", "--workers", "1", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 1
    violated = [line for line in out.splitlines() if line.startswith("VIOLATED ")]
    assert violated and violated[0].split()[1] in {"B1", "B2", "B4"}, out[-2000:]
    assert "COUNTEREXAMPLE" in out and list((tmp_path / "counterexamples").glob("*.json"))


def test_lookup_only_traces_stop_on_the_ninth_round() -> None:
    """B11's last clause needs traces of only empty lookups and rounds; the family must produce them."""
    for _family, events in generate.traces_for(8, 300, ["lookup-only"]):
        assert all(isinstance(e, Round) or (isinstance(e, Result) and e.failed and e.empty_lookup) for e in events)


# -- subjects, --only and pure checks ---------------------------------------------------------------


def _run(tmp_path: Path, *args: str) -> dict[str, Any]:
    code = main(["--traces", "150", "--drivers", "bulk,stateful", "--out", str(tmp_path), *args])
    data = json.loads((tmp_path / "properties.json").read_text())
    data["exit"] = code
    return data


def test_only_b1_passes_exactly_when_b1_holds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A default-mode run far too small for the coverage minimums still passes under --only B1: B1 held."""
    data = _run(tmp_path / "clean", "--seed", "5", "--subject", "budget", "--only", "B1", "--drivers", "bulk")
    assert data["exit"] == 0 and data["ok"], data["reasons"]
    assert any(not c["met"] for c in data["coverage"]), "the run was meant to be too small for the minimums"
    assert not any(c["required"] for c in data["coverage"])
    # Plant a bug that breaks B1 (P0 stays open past the total cap while R stops): the same run fails on B1.
    monkeypatch.setattr(bulk, "default_copies", planted_copies)
    monkeypatch.chdir(tmp_path)
    data = _run(tmp_path / "planted", "--seed", "5", "--subject", "budget", "--only", "B1", "--drivers", "bulk")
    assert data["exit"] == 1 and data["reasons"] == ["B1 violated"], data["reasons"]


def test_coverage_counts_do_not_depend_on_what_is_checked(tmp_path: Path) -> None:
    """Checks are pure: checking only B1 counts the very same coverage (rescues included) as checking all."""
    every = _run(tmp_path / "all", "--seed", "8", "--quick", "--subject", "budget")
    only = _run(tmp_path / "only", "--seed", "8", "--quick", "--subject", "budget", "--only", "B1")
    assert [(c["name"], c["count"]) for c in every["coverage"]] == [(c["name"], c["count"]) for c in only["coverage"]]
    assert {c["name"]: c["count"] for c in every["coverage"]}["rescues"] > 0


def test_the_report_holds_every_subject(tmp_path: Path) -> None:
    data = _run(tmp_path, "--seed", "3", "--quick")
    subjects = {row["subject"] for row in data["invariants"]}
    assert {"budget", "hooks"} <= subjects
    assert {row["id"] for row in data["invariants"] if row["subject"] == "budget"} == {inv.id for inv in CATALOGUE}
    assert {c["subject"] for c in data["coverage"]} >= {"budget", "hooks"}
    assert data["exit"] == 0, data["reasons"]


@pytest.mark.parametrize("args, named", [
    (["--subject", "nowhere"], "nowhere"),
    (["--subject", "budget", "--only", "H2"], "H2"),
    (["--quick", "--mutants"], "--quick"),
])
def test_cli_subject_errors_are_one_line_and_exit_2(args: list[str], named: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and named in err[0]


def test_the_stateful_driver_keeps_no_module_state() -> None:
    """Two runs in one process neither share counts nor see each other's failures (no module-level tallies)."""
    first, second = Tally(), Tally()
    planted = stateful.run_stateful(4, "mutants", first, examples=100, shrink=False, copies=planted_copies)
    clean = stateful.run_stateful(4, "mutants", second, examples=10)
    assert planted.failure is not None and clean.failure is None and not second.violations
    assert not [name for name in vars(stateful) if name.isupper() and isinstance(vars(stateful)[name], (list, dict, set, Tally))
                and name not in ("PARAMS",)]
