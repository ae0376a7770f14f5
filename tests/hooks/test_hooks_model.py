"""The hook path's exhaustive model: its default scope proved, and a planted rule bug found on a shortest run that replays."""

from __future__ import annotations

from pathlib import Path

import pytest

from guard.hooks import ToolLoopGuard
from properties.catalogue import Tally
from properties.engine.search import search
from properties.hooks.events import Call
from properties.hooks.model import scopes
from properties.hooks.monitor import HookMonitor
from properties.hooks.trace_file import load
from properties.replay import main as replay_main


def test_the_default_scope_is_proved_to_its_fixpoint_judging_every_hook_invariant() -> None:
    (model,) = scopes("default")
    result = search(model)
    assert result.proved and result.complete, result.row()
    assert result.symmetries == () and result.merge_pairs == 0
    assert result.states > 1_000 and result.depth == model.length


def plant_nested_remedy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seed 002's rule broken: a nested Tool Search child's write is taken for the remedy after a trip."""
    original = ToolLoopGuard._is_remedy

    def planted(self: ToolLoopGuard, record) -> bool:  # type: ignore[no-untyped-def]
        nested, record.nested = record.nested, False
        try:
            return original(self, record)
        finally:
            record.nested = nested

    monkeypatch.setattr(ToolLoopGuard, "_is_remedy", planted)


def test_a_planted_rule_bug_is_found_on_a_shortest_run_whose_file_replays(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    plant_nested_remedy(monkeypatch)
    (model,) = scopes("default")
    result = search(model, out_dir=tmp_path)
    assert not result.proved and result.violation is not None
    # Two refused gated execs trip the fuse of 2; the nested child's remedy is the first call after the trip.
    assert [event.kind for event in result.path] == ["gate", "gate", "remedy"]
    assert isinstance(result.path[-1], Call) and result.path[-1].binding == "nested"
    found = {violation.invariant for violation in result.violations}
    assert found & {"H2", "H5"}
    # The saved file is the subject's own, with its scaled-down limits: it replays to the same violation.
    assert result.saved is not None
    sequence, _name, invariant = load(result.saved)
    assert sequence.limits == model.limits and invariant == result.violation.invariant
    again = HookMonitor(Tally()).check(sequence)
    assert [(v.invariant, v.step) for v in again] == [(v.invariant, v.step) for v in result.violations]
    assert replay_main([str(result.saved)]) == 1
    shown = capsys.readouterr().out
    assert f"{result.violation.invariant} (" in shown and f"violated at step {result.violation.step}" in shown


def test_the_same_file_holds_on_the_real_guard(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    with monkeypatch.context() as patch:
        plant_nested_remedy(patch)
        result = search(scopes("quick")[0], out_dir=tmp_path)
    assert result.saved is not None
    sequence, _name, _invariant = load(result.saved)
    assert HookMonitor(Tally()).check(sequence) == []


def test_the_model_driver_reports_the_violation_with_its_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from properties.model_driver import run_models
    from properties.subject import DriverRequest

    plant_nested_remedy(monkeypatch)
    result = run_models("hooks", DriverRequest(seed=0, mode="default", profile="dev", out=tmp_path))
    assert result.tally.violations and result.tally.violations[0].invariant in ("H2", "H5")
    assert result.counterexample_text.startswith("COUNTEREXAMPLE from hooks model")
    assert Path(result.counterexample_path).is_file()
    assert not result.configurations[0]["proved"]
