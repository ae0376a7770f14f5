"""The navigation replay: the three fixtures side by side, dispatch from properties.replay, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

from properties import replay as budget_replay
from properties.navigation import fixtures, replay


def test_the_fixtures_are_shown_side_by_side(capsys) -> None:
    assert replay.main() == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 100
    for name, stop in (("seed003-trace-71", "tool_calls"), ("seed003-trace-87", "no_progress"),
                       ("seed003-production-archive", "no_progress")):
        block = out.split(f"** navigation: {name}")[1].split("** navigation:")[0]
        assert f"STOP {stop}" in block
        assert "timeout: no answer" in block  # the reference's side
    assert "dropped: elsewhere-9" in out


def test_the_replay_cli_hands_scenario_files_to_the_navigation_replay(capsys) -> None:
    assert budget_replay.main([str(fixtures.path_of("seed003-trace-87"))]) == 0
    out = capsys.readouterr().out
    assert "** navigation: seed003-trace-87" in out and "insufficient evidence" in out


def test_the_default_replay_ends_with_the_navigation_fixtures(capsys) -> None:
    assert budget_replay.main([]) == 0
    assert "** navigation: seed003-production-archive" in capsys.readouterr().out


def test_a_malformed_scenario_file_is_one_line_and_exit_2(capsys, tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({"format": "navigation-scenario/1", "name": "x", "timeout_ms": -5,
                                  "delegation_timeout_ms": 1, "messages": []}))
    assert budget_replay.main([str(broken)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "broken.json: timeout_ms" in err


def test_a_child_reply_the_reference_cannot_parse_is_one_line_and_exit_1(tmp_path: Path, capsys) -> None:
    # A valid scenario whose child ends with a reply nested past json's depth: the frozen reference's parser raises
    # (the earlier behaviour, kept); the replay reports that in one line instead of a traceback.
    data = json.loads(fixtures.path_of("seed003-trace-87").read_text(encoding="utf-8"))
    final = dict(data["messages"][0], id="deep-final", role="assistant", text="[" * 100_000, tool_calls=0, at=3_000)
    data["messages"] = sorted(data["messages"] + [final], key=lambda message: message["at"])
    path = tmp_path / "deep.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert budget_replay.main([str(path)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "seed003-trace-87: replaying raised RecursionError" in err[0]


def test_the_replay_says_how_the_results_were_classified_and_whether_the_cap_cut(capsys) -> None:
    # navigation.md's production-validation archive: more tool evidence than 32,000 characters, the last four
    # results without progress, and empty content, counters and zero-token manifests told apart.
    assert replay.main([str(fixtures.path_of("seed003-production-archive"))]) == 0
    out = capsys.readouterr().out
    assert "32,000 evidence chars kept (cut)" in out
    assert "   results read: " in out and "progress" in out.split("   results read: ")[1].splitlines()[0]
    assert replay.results_lines([("a", "empty", "zero-token manifest"), ("b", "progress", "progress"),
                                 ("c", "empty", "empty content"), ("d", "empty", "zero-token manifest")]) == [
        "   results read: 3 empty, 1 progress", "   the empty ones: 1 empty content, 2 zero-token manifest"]
    assert replay.results_lines([]) == []


def test_a_navigation_counterexample_is_pinned_and_checked(tmp_path: Path, capsys, monkeypatch) -> None:
    """A scenario file names the invariant it was saved for; pinning keeps it, the check judges the pinned
    scenario with every navigation invariant, and both the check and the replay name a break under a planted
    bug (evidence kept past the 32,000-character cap: N2) on navigation.md's production archive."""
    from guard.navigation_evidence import Observer
    from properties import regressions
    from properties.navigation.trace_file import load, load_saved, save

    scenario = load(fixtures.path_of("seed003-production-archive"))
    source = tmp_path / "in" / "archive.json"
    source.parent.mkdir()
    save(scenario, source, "N2")
    assert load_saved(source) == (scenario, "N2")
    folder = tmp_path / "pinned"
    assert regressions.main(["pin", str(source), "--dir", str(folder), "--invariant", "N4"]) == 2
    assert "saved for N2, not N4" in capsys.readouterr().err
    assert regressions.main(["pin", str(source), "--dir", str(folder)]) == 0
    pinned = folder / f"{scenario.name}.json"
    assert capsys.readouterr().out.strip() == f"pinned: {pinned}"
    assert load_saved(pinned) == (scenario, "N2")
    assert regressions.main(["check", "--dir", str(folder)]) == 0
    assert capsys.readouterr().out.startswith(f"holds {pinned.name} (once broke N2; {len(scenario.messages)} messages)")
    assert replay.main([str(pinned)]) == 0
    assert "saved for N2: it holds now" in capsys.readouterr().out
    monkeypatch.setattr(Observer, "keep", lambda self, source, text: (
        self.evidence.append((source, text)), setattr(self, "evidence_chars", self.evidence_chars + len(text))))
    assert regressions.main(["check", "--dir", str(folder)]) == 1
    assert capsys.readouterr().out.startswith(f"BROKEN {pinned.name}: N")
    assert replay.main([str(pinned)]) == 1
    out = capsys.readouterr().out
    assert "BROKEN N2:" in out and "saved for N2: it breaks again" in out
