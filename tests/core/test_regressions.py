"""Pinned counterexamples (``tests/regressions/``) hold on the current code; pinning works and refuses bad input.

Each pinned file was produced by planting a rule bug from the catalogue (``mutations/entries/``) in a scratch copy,
running ``python -m properties --mutants --seed 0`` there and pinning the saved counterexample
(``python -m properties.regressions pin FILE``): ``bulk-B5-*`` from ``defer-below-fuse``, ``bulk-B11-*``
from ``free-lookup-resets-consecutive``. ``test_acceptance_replay.py`` shows that such files break again
under their bug.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from properties import regressions
from properties.budget.events import Result, Round
from properties.budget.replay import judge_trace
from properties.budget.trace_file import SCHEMA, Trace, load_trace, save_trace

PINNED = regressions.pinned_files()


def test_there_are_pinned_regressions() -> None:
    assert len(PINNED) >= 2, regressions.DEFAULT_DIR


@pytest.mark.parametrize("path", PINNED, ids=[path.stem for path in PINNED])
def test_pinned_trace_holds_on_the_current_code(path: Path) -> None:
    """Each pinned file, of any subject, judged by its subject (found by its schema, as ``check`` does)."""
    subject = regressions.subject_of(path)
    assert subject.pin is not None
    line, holds = subject.pin.check(path)
    assert holds, line
    assert "(once broke " in line, f"{path.name} must say which invariant it once broke: {line}"
    if subject.name == "budget":
        trace = load_trace(path)
        assert trace.origin.startswith("pinned from "), trace.origin
        assert judge_trace(trace) == ()


def test_check_command_lists_every_pinned_file(capsys) -> None:
    assert regressions.main(["check"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split(" ")[1] for line in out] == [path.name for path in PINNED]
    assert all(line.startswith("holds ") for line in out)


def _trace(**fields) -> Trace:
    events = (Round(), Result(call_id="c1", tool="exec", failed=True, lane=7))
    return Trace(name="t1", events=events, **fields)


def test_pin_copies_and_names_the_invariant(tmp_path: Path, capsys) -> None:
    source = save_trace(_trace(invariant="B3", step=1, origin="bulk worker A"), tmp_path / "in" / "t1.json")
    folder = tmp_path / "pinned"
    assert regressions.main(["pin", str(source), "--dir", str(folder)]) == 0
    assert capsys.readouterr().out.strip() == f"pinned: {folder / 't1.json'}"
    pinned = load_trace(folder / "t1.json")
    assert (pinned.invariant, pinned.step, pinned.events) == ("B3", 1, _trace().events)
    assert pinned.origin == "pinned from t1.json (bulk worker A)"
    # Pinning the same file again is harmless; the check lists it.
    assert regressions.main(["pin", str(source), "--dir", str(folder)]) == 0
    assert regressions.main(["check", "--dir", str(folder)]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("holds t1.json (once broke B3 at step 1")


def test_pin_without_an_invariant_needs_one(tmp_path: Path, capsys) -> None:
    source = save_trace(_trace(), tmp_path / "t1.json")
    folder = tmp_path / "pinned"
    assert regressions.main(["pin", str(source), "--dir", str(folder)]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "invariant: missing" in err and str(source) in err
    assert not folder.exists() or not list(folder.iterdir())
    assert regressions.main(["pin", str(source), "--dir", str(folder), "--invariant", "B12"]) == 0
    assert load_trace(folder / "t1.json").invariant == "B12"


@pytest.mark.parametrize("argv", [["pin"], ["bogus"], ["check", "--bogus"], ["pin", "x.json", "--invariant", "b5"]])
def test_bad_command_lines_exit_2_in_one_line(argv: list[str], capsys, tmp_path: Path) -> None:
    if argv[:2] == ["pin", "x.json"]:
        argv = ["pin", str(save_trace(_trace(), tmp_path / "x.json")), "--invariant", "b5", "--dir", str(tmp_path / "p")]
    assert regressions.main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.splitlines()) == 1


def test_a_pinned_file_that_breaks_fails_the_check(tmp_path: Path, capsys, monkeypatch) -> None:
    """The check's failure path, with a judge that reports a break (``test_acceptance_replay.py`` shows real
    breaks under planted bugs): exit 1, and the line names the file, the invariant and the step."""
    from properties.budget import replay as budget_replay
    from properties.budget.replay import Broken

    folder = tmp_path / "pinned"
    folder.mkdir()
    (folder / "bad.json").write_text(json.dumps({"schema": SCHEMA, "invariant": "B5", "events": [{"event": "round"}]}),
                                     encoding="utf-8")
    monkeypatch.setattr(budget_replay, "judge_trace", lambda trace: (Broken("B5", "bounded deferrals", 0, "planted", 1),))
    assert regressions.main(["check", "--dir", str(folder)]) == 1
    assert capsys.readouterr().out.startswith("BROKEN bad.json: B5 at step 0: planted (once broke B5)")


def test_every_subject_with_a_file_format_pins_its_counterexamples() -> None:
    """A counterexample of any subject can be kept as a regression: each subject that saves files (a replay
    format) declares how they are pinned and checked."""
    from properties.subject import available

    assert [subject.name for subject in available() if subject.replay is not None and subject.pin is None] == []


def test_a_file_no_subject_pins_is_named_with_every_format(tmp_path: Path, capsys) -> None:
    path = tmp_path / "other.json"
    path.write_text(json.dumps({"schema": "someone-else/3", "events": []}), encoding="utf-8")
    assert regressions.main(["pin", str(path), "--dir", str(tmp_path / "p")]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and f"{path}: schema: 'someone-else/3' is no format pinning reads" in err
    assert "guard-trace/1 (budget)" in err and "guard-hook-sequence/1 (hooks)" in err, err
