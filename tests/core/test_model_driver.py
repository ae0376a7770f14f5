"""The core's model driver: every subject that declares models is proved in the run, its rows in the one table."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from properties import model_driver
from properties.subject import MODEL_DRIVER, DriverRequest, available


def modelled() -> list[str]:
    return [subject.name for subject in available() if subject.models is not None]


def test_a_subject_with_models_gains_the_model_driver() -> None:
    assert {"hooks", "navigation"} <= set(modelled())
    for subject in available():
        has = any(driver.name == MODEL_DRIVER for driver in subject.drivers)
        assert has == (subject.models is not None), subject.name


def test_each_scope_is_a_row_and_every_judged_step_counts(tmp_path: Path) -> None:
    for name in modelled():
        result = model_driver.run_models(name, DriverRequest(seed=0, mode="quick", profile="dev", out=tmp_path))
        assert not result.incomplete and not result.tally.violations, result.incomplete
        (row,) = result.configurations
        assert row["subject"] == name and row["complete"] and row["proved"] and row["limits"]
        assert result.tally.steps == row["edges"]
        subject = next(subject for subject in available() if subject.name == name)
        assert set(result.tally.checked) == set(subject.ids)


def test_a_scope_that_does_not_finish_is_not_proved(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(model_driver, "MAX_STATES", 10)
    name = modelled()[0]
    result = model_driver.run_models(name, DriverRequest(seed=0, mode="quick", profile="dev", out=tmp_path))
    assert result.status == "not proved" and "state limit" in result.incomplete
    assert not result.configurations[0]["proved"]


def test_the_verdict_lists_every_subjects_proofs(tmp_path: Path) -> None:
    names = ",".join(modelled())
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "properties", "--quick", "--subject", names, "--drivers", MODEL_DRIVER, "--seed", "1",
         "--quiet", "--out", str(tmp_path)],
        capture_output=True, text=True, env=env, timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    for name in modelled():
        assert f"{name} proved to the fixpoint:" in done.stdout
    data = json.loads((tmp_path / "properties.json").read_text())
    rows = [row for driver in data["drivers"] for row in driver["configurations"]]
    assert {row["subject"] for row in rows} == set(modelled())
    assert "Configurations (exhaustive proofs)" in (tmp_path / "properties.md").read_text()
