"""The reviewer's replay tool: ``python -m properties.replay`` (``nox -s replay``).

The summaries asserted here restate the fixture README (strixy: the
reference stops after call 11 and production is still open with its wait
pending; mac-mini: 12 and open; laptop: 40 on both; photo-renamer: the
remedy is admitted on production only).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from properties import replay
from properties.budget import replay as budget_replay
from properties.budget.events import FirstCall, Result, Round
from properties.paths import ROOT
from properties.budget.trace_file import SCHEMA, Trace, save_trace

SUMMARIES = {
    "strixy-r107": "reference stops after call 11; production open (waiting: global)",
    "mac-mini-r106": "reference stops after call 12; production open (waiting: global)",
    "windows-laptop-wsl-beta-r107": "reference stops after call 40; production stops after call 40",
    "photo-renamer-bfb62a2b": "reference stops after call 6; production open (tripped after call 6; "
                              "remedy admitted at call 7)",
}


def run_main(capsys, *argv: str) -> tuple[int, str, str]:
    code = replay.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def tables(out: str) -> dict[str, list[str]]:
    """Each trace's lines, by the name in its ``== name`` heading."""
    found: dict[str, list[str]] = {}
    name = None
    for line in out.splitlines():
        if line.startswith("== "):
            name = line[3:].split(" (")[0]
            found[name] = []
        elif name is not None:
            found[name].append(line)
    return found


def test_recorded_sessions_summaries(capsys, fixtures_dir) -> None:
    code, out, err = run_main(capsys)
    assert code == 0, err
    found = tables(out)
    assert list(found) == list(SUMMARIES)
    for name, summary in SUMMARIES.items():
        assert summary in found[name], (name, found[name][-3:])


def test_tables_fit_in_100_columns(capsys, fixtures_dir) -> None:
    code, out, _ = run_main(capsys)
    assert code == 0
    assert max(len(line) for line in out.splitlines()) <= 100


def test_strixy_rows_mark_the_divergence(capsys, fixtures_dir) -> None:
    code, out, _ = run_main(capsys, "--name", "strixy")
    assert code == 0
    rows = [line for line in tables(out)["strixy-r107"] if re.match(r"\s*\d+ call ", line)]
    assert len(rows) == 11
    assert all(not line.endswith("<") for line in rows[:10])
    _, reference, production = rows[-1].split("|")
    # Call 11: the reference stops at consecutive 4, total 4; production waits with consecutive 3.
    assert reference.split() == ["4", "4", "-", "-", "yes"]
    assert production.split() == ["3", "4", "global", "-", "-", "<<"]
    assert "result failed C" in rows[-1]


def test_photo_renamer_table_shows_the_admission(capsys, fixtures_dir) -> None:
    code, out, _ = run_main(capsys, "--name", "photo")
    assert code == 0
    lines = tables(out)["photo-renamer-bfb62a2b"]
    assert any("first_call remedy yes" in line for line in lines)
    assert any("R:pfw" in line for line in lines)
    assert "kinds: pfw = playground-first-write" in lines


def test_json_rows(capsys, fixtures_dir) -> None:
    code, out, _ = run_main(capsys, "--json", "--name", "strixy")
    assert code == 0
    document = json.loads(out)
    (trace,) = document["traces"]
    assert trace["name"] == "strixy-r107"
    assert trace["summary"] == SUMMARIES["strixy-r107"]
    assert len(trace["rows"]) == 22
    last = trace["rows"][-1]
    assert last["label"] == "call 11"
    assert last["reference"]["stopped"] is True and last["reference"]["consecutive"] == 4
    assert last["production"]["stopped"] is False and last["production"]["waiting"] == "global"
    assert last["trace_event"]["event"] == "result" and last["trace_event"]["correctable"] is True


def test_subprocess_run(fixtures_dir) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "properties.replay", "--name", "mac-mini"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert SUMMARIES["mac-mini-r106"] in done.stdout.splitlines()


def remedy_trace(remedy: bool) -> Trace:
    events = []
    for index in range(4):
        events += [Round(), Result(call_id=f"r{index}", tool="exec", params={"i": index}, failed=True,
                                   correctable_refusal="playground-project-path", label=f"call {index + 1}")]
    events += [Round(), FirstCall(remedy=remedy, label="call 5"),
               Result(call_id="w", tool="write", params={"path": "Playground/x/y.py"}, label="call 5")]
    return Trace(name=f"remedy-{remedy}", events=tuple(events))


@pytest.mark.parametrize(
    "remedy, summary",
    [
        (True, "reference stops after call 4; production open (tripped after call 4; remedy admitted at call 5)"),
        (False, "reference stops after call 4; production stops after call 4"),
    ],
)
def test_trace_file(capsys, tmp_path: Path, remedy: bool, summary: str) -> None:
    path = save_trace(remedy_trace(remedy), tmp_path / "trace.json")
    code, out, err = run_main(capsys, str(path))
    assert code == 0, err
    assert out.splitlines()[-2:] == [summary, "invariants: none broken in 11 steps"]


def test_two_trace_files_and_lanes(capsys, tmp_path: Path) -> None:
    lane = Trace(name="lane", events=tuple(
        Result(call_id=f"l{index}", tool="exec", failed=True, correctable=index == 3, lane="workspace",
               label=f"call {index + 1}") for index in range(4)))
    first = save_trace(lane, tmp_path / "lane.json")
    second = save_trace(remedy_trace(True), tmp_path / "remedy.json")
    code, out, _ = run_main(capsys, str(first), str(second))
    assert code == 0
    found = tables(out)
    assert list(found) == ["lane", "remedy-True"]
    assert "reference open; production open (waiting: workspace)" in found["lane"]
    assert any("L:workspace" in line for line in found["lane"])


def test_rounds_cap_stop_is_named_by_step(capsys, tmp_path: Path) -> None:
    path = save_trace(Trace(name="idle", events=tuple(Round() for _ in range(9))), tmp_path / "idle.json")
    code, out, _ = run_main(capsys, str(path))
    assert code == 0
    # Steps count from 0, as the failure table numbers them: the ninth round is step 8.
    assert out.splitlines()[-2] == "reference stops after step 8 (round); production stops after step 8 (round)"


# -- malformed input --------------------------------------------------------------------------------


def write(tmp_path: Path, name: str, content: str) -> Path:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    return path


def good_result(**fields) -> dict:
    return {"event": "result", "call_id": "c1", "tool": "exec", "failed": True, **fields}


MALFORMED = [
    ("bad-json.json", "{\"schema\": ", "bad-json.json: schema: not JSON at line 1"),
    ("wrong-schema.json", json.dumps({"schema": "guard-trace/0", "events": []}), "wrong-schema.json: schema"),
    ("flag.json", json.dumps({"schema": SCHEMA, "events": [good_result(failed="yes")]}),
     "flag.json: events[0].failed"),
    ("call-id.json", json.dumps({"schema": SCHEMA, "events": [{"event": "result", "failed": True}]}),
     "call-id.json: events[0].call_id"),
    ("lane.json", json.dumps({"schema": SCHEMA, "events": [{"event": "round"}, good_result(lane=[3])]}),
     "lane.json: events[1].lane"),
    # JSON of another shape is named as what it is, not called "not JSON"; a number that ends the file is whole.
    ("array.json", "[]", "array.json: (top level): expected an object, got []"),
    ("number.json", "5", "number.json: (top level): expected an object, got 5"),
    ("null.json", " null\n", "null.json: (top level): expected an object, got None"),
    ("words.json", "not json", "words.json: (top level): not JSON at line 1"),
    ("cut.json", "[1,", "cut.json: (top level): not JSON at line 1: the file ends inside this value"),
]


@pytest.mark.parametrize("name, content, expected", MALFORMED, ids=[row[0] for row in MALFORMED])
def test_malformed_file_exits_2_with_one_line(capsys, tmp_path: Path, name: str, content: str, expected: str) -> None:
    path = write(tmp_path, name, content)
    code, out, err = run_main(capsys, str(path))
    assert code == 2
    assert out == ""
    assert len(err.splitlines()) == 1, err
    assert expected in err
    assert str(tmp_path) in err


def test_a_schema_no_subject_reads_is_named_with_every_format(capsys, tmp_path: Path) -> None:
    """A file whose first field names a format no subject reads gets one line listing the formats (from the
    registry), not the budget reader's "expected 'guard-trace/1'"; a subject's switch still hands it the file."""
    from properties.subject import available

    path = write(tmp_path, "newer.json", json.dumps({"schema": "guard-trace/2", "events": [good_result()]}))
    code, out, err = run_main(capsys, str(path))
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1, err
    assert f"{path}: schema: 'guard-trace/2' is no format replay reads" in err
    formats = [subject.replay.schema for subject in available() if subject.replay is not None]
    assert len(formats) >= 4 and all(name in err for name in formats), err
    code, out, err = run_main(capsys, "--hooks", str(path))
    assert code == 2 and "expected 'guard-hook-sequence/1'" in err, err
    # A "schema" key inside a value is not the file's: that file still goes to the reader, which names its field.
    nested = write(tmp_path, "nested.json", json.dumps({"events": [good_result(params={"schema": "other/1"})]}))
    code, out, err = run_main(capsys, str(nested))
    assert code == 2 and "nested.json: schema: missing" in err and "no format" not in err, err


def test_missing_file_exits_2(capsys, tmp_path: Path) -> None:
    code, out, err = run_main(capsys, str(tmp_path / "nowhere.json"))
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1
    assert "nowhere.json" in err and "not found" in err


def test_a_bad_file_after_a_good_one_prints_nothing(capsys, tmp_path: Path) -> None:
    good = save_trace(remedy_trace(True), tmp_path / "good.json")
    bad = write(tmp_path, "bad.json", "[]")
    code, out, err = run_main(capsys, str(good), str(bad))
    assert code == 2 and out == ""
    assert "bad.json" in err and len(err.splitlines()) == 1


def test_unknown_name_exits_2(capsys, fixtures_dir) -> None:
    code, out, err = run_main(capsys, "--name", "no-such-session")
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and "--name" in err


def test_malformed_file_in_a_subprocess_has_no_traceback(tmp_path: Path) -> None:
    path = write(tmp_path, "flag.json", json.dumps({"schema": SCHEMA, "events": [good_result(pending=1)]}))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "properties.replay", str(path)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1
    assert "Traceback" not in done.stderr
    assert f"{path}: events[0].pending" in done.stderr


# -- judging, ignored receipts, strict JSON, long traces ---------------------------------------------


def test_bogus_option_is_one_line_and_exit_2(capsys) -> None:
    code, out, err = run_main(capsys, "--bogus")
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and "--bogus" in err


def test_ignored_receipts_are_marked(capsys, tmp_path: Path) -> None:
    """A numeric or empty id and a repeated id change nothing; the row says so instead of a silent 0 0."""
    trace = Trace(name="ids", events=(
        Result(call_id=5, tool="exec", failed=True), Result(call_id="", tool="exec", failed=True),
        Result(call_id="a", tool="exec", failed=True), Result(call_id="a", tool="exec", failed=True),
    ))
    path = save_trace(trace, tmp_path / "ids.json")
    code, out, _ = run_main(capsys, str(path))
    assert code == 0
    rows = [line for line in tables(out)["ids"] if re.match(r"\s*\d+ ", line)]
    assert ["ignored" in line.split("|")[0] for line in rows] == [True, True, False, True]
    assert rows[-1].split("|")[1].split() == ["1", "1", "-", "-", "-"]
    assert any(line.startswith("ignored: both budgets ignored the receipt (") and "call_id 5 is not a non-empty string" in line
               for line in out.splitlines())
    code, out, _ = run_main(capsys, "--json", str(path))
    reasons = [row["ignored"] for row in json.loads(out)["traces"][0]["rows"]]
    assert reasons == ["ignored: call_id 5 is not a non-empty string", 'ignored: call_id "" is not a non-empty string',
                       "", "ignored: duplicate call_id"]


def test_saved_invariant_that_holds_now(capsys, tmp_path: Path) -> None:
    trace = Trace(name="fixed", events=remedy_trace(True).events, invariant="B5", step=3)
    path = save_trace(trace, tmp_path / "fixed.json")
    code, out, _ = run_main(capsys, str(path))
    assert code == 0
    assert out.splitlines()[-2:] == ["invariants: none broken in 11 steps", "saved for B5 at step 3: holds now"]
    code, out, _ = run_main(capsys, "--json", str(path))
    saved = json.loads(out)["traces"][0]["saved_for"]
    assert saved == {"invariant": "B5", "step": 3, "verdict": "saved for B5 at step 3: holds now", "still_breaks": False}


def test_json_is_strict_and_the_table_is_capped(capsys, tmp_path: Path, monkeypatch) -> None:
    events = tuple(Result(call_id=f"c{index}", tool="read", params={"x": index / 3, "big": 2**62}) for index in range(30))
    path = save_trace(Trace(name="long", events=events), tmp_path / "long.json")
    monkeypatch.setattr(budget_replay, "TABLE_ROWS", 5)
    code, out, _ = run_main(capsys, str(path))
    assert code == 0
    assert "... 25 more steps not shown (--json prints every step)" in out.splitlines()
    code, out, _ = run_main(capsys, "--json", str(path))

    def refuse(name: str) -> None:
        raise AssertionError(f"bare {name} in --json output")

    document = json.loads(out, parse_constant=refuse)
    (trace,) = document["traces"]
    assert trace["steps"] == 30 and len(trace["rows"]) == 30 and trace["broken"] == []
    assert [row["step"] for row in trace["rows"]] == list(range(30))
