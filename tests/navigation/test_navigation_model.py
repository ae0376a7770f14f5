"""Navigation's exhaustive model: its default scope proved, and a planted rule bug found on a shortest run that replays."""

from __future__ import annotations

from pathlib import Path

import pytest

from guard import navigation
from properties.engine.search import search
from properties.navigation.model import ENDINGS, scopes
from properties.navigation.monitor import new_monitor
from properties.navigation.trace_file import load
from properties.catalogue import Tally
from properties.replay import main as replay_main


def test_the_default_scope_is_proved_to_its_fixpoint_judging_every_navigation_invariant() -> None:
    (model,) = scopes("default")
    result = search(model)
    assert result.proved and result.complete, result.row()
    assert result.symmetries == () and result.merge_pairs == 0
    assert len(model.initial()) == len(ENDINGS) and result.depth == model.slices


def plant_child_reply_truncated(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seed 003's rule broken: a child's own reply no longer keeps the reference path (production marks it truncated)."""
    original = navigation.parse_reply

    def planted(text):  # type: ignore[no-untyped-def]
        parsed = original(text)
        return None if parsed is None else (parsed[0], True, parsed[2])

    monkeypatch.setattr(navigation, "parse_reply", planted)


def test_a_planted_rule_bug_is_found_on_a_shortest_run_whose_file_replays(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    plant_child_reply_truncated(monkeypatch)
    (model,) = scopes("default")
    result = search(model, out_dir=tmp_path)
    assert not result.proved and result.violation is not None and result.violation.invariant == "N7"
    # The child's reply in the first slice is the shortest request on which the reference path shows.
    assert result.path == ("reply",) and result.start == 0
    assert result.saved is not None
    scenario = load(result.saved)
    assert scenario.limits == model.limits
    again = new_monitor(Tally()).step(scenario)
    assert [v.invariant for v in again] == [v.invariant for v in result.violations]
    assert replay_main([str(result.saved)]) == 1
    assert "N7" in capsys.readouterr().out
    monkeypatch.undo()
    assert new_monitor(Tally()).step(scenario) == []
