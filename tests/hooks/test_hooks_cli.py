"""``python -m properties --subject hooks``: the hook subject in the one verdict, and under ``--mutants``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from guard.hooks import ToolLoopGuard
from properties.__main__ import main
from properties.hooks.invariants import CATALOGUE


def test_the_hook_subject_runs_alone_and_counts_its_sequences(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["--subject", "hooks", "--quick", "--seed", "4", "--traces", "400", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    data = json.loads((tmp_path / "properties.json").read_text())
    assert code == 0, data["reasons"]
    assert [row["id"] for row in data["invariants"]] == [inv.id for inv in CATALOGUE]
    assert all(row["subject"] == "hooks" and row["status"] == "held" for row in data["invariants"])
    hooks = next(s for s in data["subjects"] if s["subject"] == "hooks")
    # 400 bulk sequences plus the state machine's examples, printed with their count.
    assert hooks["traces"] >= 400 and f"hooks: {hooks['traces']:,} sequences checked" in out


def test_a_planted_hook_bug_is_named_under_mutants(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """The catalogue's hooks-leak-kind, planted: --mutants stops at it and names H4 on a VIOLATED line."""
    original = ToolLoopGuard._refuse

    def leaky(self, record, reason, kind):
        decision = original(self, record, reason, kind)
        return type(decision)(block=True, block_reason=f"{reason} [{kind}]") if kind else decision

    monkeypatch.setattr(ToolLoopGuard, "_refuse", leaky)
    monkeypatch.chdir(tmp_path)
    code = main(["--mutants", "--subject", "hooks", "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert code == 1
    violated = [line for line in out.splitlines() if line.startswith("VIOLATED ")]
    assert violated and violated[0].split()[1] == "H4", out[-2000:]
    saved = list((tmp_path / "counterexamples").glob("hooks-*-H4-*.json"))
    assert saved, "the counterexample was not saved"
