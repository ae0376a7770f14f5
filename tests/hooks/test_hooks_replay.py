"""The recorded sessions replayed through the hooks, in both hook orders (``shared/fixtures/pixel/README.md``).

Expected stops come from the fixture README's table and prose (seeds 001 and
002). Each website call goes: a model call whenever ``round`` changes,
``before_tool_call``, the inspection tool's own record (it returns before
either hook runs), then ``after_tool_call`` and ``tool_result_persist`` in the
order under test. The live result and the persisted copy are the README's
persisted copy (envelope or direct shape). A call the guard refuses gets a
blocked receipt instead of its recording.

The never-executed next calls are the README's: strixy's call 12 is again
``invalid_request`` and mac-mini's call 13 is ``incomplete`` with
``transition_untested``.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from guard.budget import RunProgressBudget
from guard.hooks import Decision, ToolLoopGuard
from guard.inspection import INSPECTION_KIND, INSPECTION_TOOL
from guard.playground import RoutingState
from properties.hooks import replay as hooks_replay
from properties.hooks.fixtures import params_of, photo_params
from properties.paths import fixtures_dir

ORDERS = ("after", "persist")
WEBSITE = "inspection-budget-replay-round106-107.json"
PHOTO = "photo-renamer-bfb62a2b.json"


class LoggingBudget(RunProgressBudget):
    """The production budget, remembering each receipt's flags (to check the README's correctable calls)."""

    def __init__(self) -> None:
        super().__init__()
        self.flags: dict = {}

    def observe_result(self, call_id, tool, params, failed, **flags):
        self.flags.setdefault(call_id, flags)
        super().observe_result(call_id, tool, params, failed, **flags)


def load(name: str) -> Any:
    path = fixtures_dir() / name
    if not path.is_file():
        pytest.fail(f"missing fixture {path}: the recorded sessions live in ../shared/fixtures/pixel")
    return json.loads(Path(path).read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def sessions() -> dict:
    return {session["label"]: session for session in load(WEBSITE)["sessions"]}


@pytest.fixture(scope="module")
def photo() -> dict:
    return load(PHOTO)


# -- website sessions (seed 001) -------------------------------------------------------------


def persisted_copy(call: dict, is_error: bool | None = None) -> dict:
    is_error = call["persistedIsError"] if is_error is None else is_error
    if call["tool"] == "tool_call" and call.get("envelope", True):
        return {"isError": is_error, "details": {"result": call["result"]}}
    return {"isError": is_error, "details": (call["result"] or {}).get("details")}


def real_tool(call: dict) -> str:
    return call.get("selected") or call["tool"]


def capped(message: dict) -> dict:
    details = message.get("details") or {}
    return {"isError": message.get("isError"), "details": {"persistedDetailsTruncated": True, "originalDetailKeys": sorted(details)}}


@pytest.fixture
def next_calls(sessions) -> dict:
    """The README's never-executed next calls, with the results the seed reports for them."""
    strixy = copy.deepcopy(sessions["strixy-r107"]["calls"][11])
    strixy.update(result={"isError": True, "details": {"schemaVersion": 1, "kind": INSPECTION_KIND, "status": "failed", "errorCode": "invalid_request"}},
                  persistedIsError=False, envelope=True)
    mac = copy.deepcopy(sessions["mac-mini-r106"]["calls"][12])
    mac.update(result={"isError": True, "details": {"schemaVersion": 1, "kind": INSPECTION_KIND, "status": "incomplete", "errorCode": "transition_untested"}},
               envelope=False)
    for call in (strixy, mac):
        call.pop("stopped")
    return {"strixy-r107": strixy, "mac-mini-r106": mac}


class Replay:
    """One website session through the hooks; remembers when the budget stopped and every decision."""

    def __init__(self, session: dict, order: str, allowances: bool = True, cap: bool = False) -> None:
        self.budget = LoggingBudget()
        self.guard = ToolLoopGuard(run=session["runId"], session=session["sessionId"], budget=self.budget, allowances=allowances)
        self.session = session
        self.order = order
        self.cap = cap
        self.previous_round: Any = None
        self.stopped_at: int | None = None
        self.decisions: dict[int, Decision] = {}
        self.max_consecutive = 0

    def call(self, call: dict) -> Decision:
        guard = self.guard
        if call["round"] != self.previous_round:
            guard.model_call_start()
            guard.model_call_end()
            self.previous_round = call["round"]
        params = params_of(call)
        decision = guard.before_tool_call(self.session["runId"], self.session["sessionId"], call["id"], call["tool"], params)
        if decision.block:
            live = persisted = {"isError": True, "content": [{"type": "text", "text": decision.block_reason}], "details": {"status": "blocked"}}
        else:
            live = persisted = persisted_copy(call)
            if real_tool(call) == INSPECTION_TOOL:
                guard.record_tool_result(call["id"], call["args"], call["result"])
                # hooks.md: with the tool's record, a capped transcript copy accounts like the full one.
                persisted = capped(live) if self.cap else live
        hooks = [lambda: guard.after_tool_call(call["id"], call["tool"], params, live),
                 lambda: guard.tool_result_persist(call["id"], call["tool"], persisted)]
        for hook in (hooks if self.order == "after" else hooks[::-1]):
            hook()
        self.decisions[call["n"]] = decision
        self.max_consecutive = max(self.max_consecutive, self.budget.consecutive)
        if self.budget.terminal and self.stopped_at is None:
            self.stopped_at = call["n"]
        return decision

    def recorded(self) -> "Replay":
        """The recorded calls up to, not including, the first ``stopped`` one."""
        for call in self.session["calls"]:
            if call.get("stopped"):
                break
            self.call(call)
        return self

    def correctable_calls(self) -> list[int]:
        ids = {call["id"]: call["n"] for call in self.session["calls"]}
        return sorted(ids[call_id] for call_id, flags in self.budget.flags.items() if flags.get("correctable") is True)


# README table: reference stop, production stop (None: still open), correctable calls.
TABLE = {
    "strixy-r107": (11, None, [8, 11]),
    "mac-mini-r106": (12, None, [9, 10, 11, 12]),
    "windows-laptop-wsl-beta-r107": (40, 40, [4, 5, 9, 10, 13, 14, 24, 40]),
}


@pytest.mark.parametrize("cap", [False, True], ids=["full copy", "capped copy with record"])
@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("label", sorted(TABLE))
class TestWebsiteSessions:
    def test_reference_stop(self, sessions, label, order, cap) -> None:
        replay = Replay(sessions[label], order, allowances=False, cap=cap).recorded()
        assert replay.stopped_at == TABLE[label][0]

    def test_production_after_the_recorded_calls(self, sessions, label, order, cap) -> None:
        replay = Replay(sessions[label], order, cap=cap).recorded()
        assert replay.stopped_at == TABLE[label][1]
        assert replay.correctable_calls() == TABLE[label][2]
        if TABLE[label][1] is None:
            # "its wait is pending": the tripping failure's charge waits one result.
            assert replay.budget.deferred == "global" and not replay.budget.terminal


@pytest.mark.parametrize("order", ORDERS)
def test_laptop_stops_on_the_total_cap_never_more_than_two_in_a_row(sessions, order) -> None:
    for allowances in (False, True):
        replay = Replay(sessions["windows-laptop-wsl-beta-r107"], order, allowances=allowances).recorded()
        assert replay.budget.failures == 12 and replay.max_consecutive <= 2 and replay.stopped_at == 40


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("label, next_n", [("strixy-r107", 12), ("mac-mini-r106", 13)])
def test_production_stops_one_call_later(sessions, next_calls, label, next_n, order) -> None:
    replay = Replay(sessions[label], order).recorded()
    decision = replay.call(next_calls[label])
    assert not decision.block and replay.stopped_at == next_n
    assert replay.budget.deferred is None


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("label, next_n", [("strixy-r107", 12), ("mac-mini-r106", 13)])
def test_reference_refuses_the_next_call(sessions, next_calls, label, next_n, order) -> None:
    """The recorded ``stopped`` call: refused by the stop, never executed."""
    replay = Replay(sessions[label], order, allowances=False).recorded()
    assert replay.call(next_calls[label]).block


def passing_inspection(template: dict, call_id: str) -> dict:
    call = copy.deepcopy(template)
    call.update(id=call_id, round=call["round"] + 1, persistedIsError=False, envelope=True,
                result={"isError": False, "details": {"schemaVersion": 1, "kind": INSPECTION_KIND, "status": "passed", "blockedRequests": []}})
    return call


def failing_fetch(call_id: str, round_: int) -> dict:
    return {"n": 100, "id": call_id, "tool": "web_fetch", "round": round_, "argsSha256": call_id, "persistedIsError": True,
            "result": {"isError": True, "details": {"status": "error"}}}


@pytest.mark.parametrize("order", ORDERS)
@pytest.mark.parametrize("after_call", [8, 11])
def test_a_passing_inspection_keeps_strixy_open(sessions, order, after_call) -> None:
    """Counterfactual: consecutive 0 after the pass; three more failures pass, the fourth stops."""
    session = sessions["strixy-r107"]
    replay = Replay(session, order)
    for call in session["calls"][:after_call]:
        replay.call(call)
    inspection = session["calls"][after_call - 1]
    replay.call(passing_inspection(inspection, "pass-1"))
    assert not replay.budget.terminal and replay.budget.consecutive == 0
    round_ = inspection["round"] + 10
    for index in range(3):
        replay.call(failing_fetch(f"fetch-{index}", round_ + index))
        assert not replay.budget.terminal
    replay.call(failing_fetch("fetch-3", round_ + 3))
    assert replay.budget.terminal


@pytest.mark.parametrize("order", ORDERS)
def test_an_unrelated_read_after_strixy_call_11_stops(sessions, order) -> None:
    replay = Replay(sessions["strixy-r107"], order).recorded()
    read = {"n": 100, "id": "read-1", "tool": "read", "round": 99, "argsSha256": "r", "persistedIsError": False, "result": {}}
    replay.call(read)
    assert replay.budget.terminal


# -- photo-renamer (seed 002) -------------------------------------------------------------------


def executed(call: dict) -> dict:
    """What a call the guard let through returned (the recorded run shows call 2; writes succeed on production)."""
    if call["tool"] == "exec":
        return {"isError": False, "content": [{"type": "text", "text": call["recorded"]["resultHead"]}], "details": {"status": "completed", "exitCode": 0}}
    return {"content": [{"type": "text", "text": "Successfully wrote the file."}]}


def replay_photo(photo: dict, order: str, allowances: bool) -> tuple[ToolLoopGuard, list]:
    guard = ToolLoopGuard(run="photo-run", session=photo["sessionId"], routing=RoutingState(), allowances=allowances)
    rows = []
    for call in photo["calls"]:
        guard.model_call_start()
        guard.model_call_end()
        params = photo_params(call)
        decision = guard.before_tool_call("photo-run", photo["sessionId"], call["id"], call["tool"], params)
        if decision.block:
            result = {"isError": True, "content": [{"type": "text", "text": decision.block_reason}], "details": {"status": "blocked"}}
        else:
            result = executed(call)
        saved = None
        for hook in (("after", "persist") if order == "after" else ("persist", "after")):
            if hook == "after":
                guard.after_tool_call(call["id"], call["tool"], params, result)
            else:
                saved = guard.tool_result_persist(call["id"], call["tool"], result)
        text = "".join(part["text"] for part in saved["content"])
        rows.append((decision, text, guard.budget.terminal))
    return guard, rows


@pytest.mark.parametrize("order", ORDERS)
def test_photo_renamer_on_the_reference(photo, order) -> None:
    """README: call 1 refused, call 2 ran, 3-6 refused, call 6 trips; 7 and 8 refused and the run aborts."""
    guard, rows = replay_photo(photo, order, allowances=False)
    assert [row[0].block for row in rows] == [True, False, True, True, True, True, True, True]
    assert [row[2] for row in rows] == [False] * 5 + [True] * 3
    assert guard.aborted and guard.routing.binding is None
    # Each persisted copy starts as the recording's does (the refusal text, or the stop text after the fuse).
    for call, (_, text, _) in zip(photo["calls"], rows):
        if call["recorded"]["isError"]:
            assert text.startswith(call["recorded"]["resultHead"]), call["id"]


@pytest.mark.parametrize("order", ORDERS)
def test_photo_renamer_on_production(photo, order) -> None:
    """README: call 6 still trips with a pending playground-first-write; call 7 binds and runs; call 8 revises."""
    guard, rows = replay_photo(photo, order, allowances=True)
    assert [row[0].block for row in rows] == [True, False, True, True, True, True, False, False]
    assert [row[2] for row in rows[:6]] == [False] * 5 + [True]
    assert not guard.budget.terminal and not guard.aborted
    assert guard.routing.binding == "Playground/photo-renamer"
    assert guard.budget.consecutive == 0 and "playground-first-write" in guard.budget.corrected_kinds
    # The tripping refusal's copy kept its refusal text (the recording's head of calls 1-5).
    assert rows[5][1].startswith(photo["calls"][0]["recorded"]["resultHead"])


@pytest.mark.parametrize("order", ORDERS)
def test_photo_renamer_trip_leaves_the_correction_pending(photo, order) -> None:
    guard = ToolLoopGuard(run="photo-run", session=photo["sessionId"], routing=RoutingState())
    for call in photo["calls"][:6]:
        guard.model_call_start()
        params = photo_params(call)
        decision = guard.before_tool_call("photo-run", photo["sessionId"], call["id"], call["tool"], params)
        result = executed(call) if not decision.block else {"isError": True, "details": {"status": "blocked"}}
        if order == "after":
            guard.after_tool_call(call["id"], call["tool"], params, result)
            guard.tool_result_persist(call["id"], call["tool"], result)
        else:
            guard.tool_result_persist(call["id"], call["tool"], result)
            guard.after_tool_call(call["id"], call["tool"], params, result)
    assert guard.budget.terminal and guard.budget.pending_correction == "playground-first-write"
    assert guard.finalization.phase == "pending"


# -- nox -s replay -- --hooks ------------------------------------------------------------------------


def test_the_hook_replay_shows_the_readme_stops_in_both_orders(capsys) -> None:
    assert hooks_replay.main([]) == 0
    out = capsys.readouterr().out
    # README table: reference stops, production after the recorded calls, in each hook order.
    assert out.count("strixy-r107 (website") == 2
    assert out.count("reference stops after call 11; production open (waiting: global)") == 2
    assert out.count("reference stops after call 12; production open (waiting: global)") == 2
    assert out.count("reference stops after call 40; production stops after call 40") == 2
    assert out.count("reference stops after call 6; production stops after call 6") == 2
    assert "the hook orders part" not in out
    photo = [line for line in out.splitlines() if line.lstrip().startswith("7 ") and "write" in line]
    # Call 7: the reference shows the finalization instruction, production admits the remedy (README).
    assert len(photo) == 2 and all("INSTR" in line and "ADMIT" in line and line.rstrip().endswith("<<") for line in photo)


def test_the_hook_replay_is_reached_through_nox_s_replay(capsys) -> None:
    from properties.replay import main

    assert main(["--hooks", "--name", "photo", "--order", "persist"]) == 0
    out = capsys.readouterr().out
    assert "photo-renamer-bfb62a2b (Playground, tool_result_persist first)" in out and "strixy" not in out


def test_a_saved_hook_counterexample_replays_with_its_verdict(tmp_path, capsys, monkeypatch) -> None:
    from guard.hooks import ToolLoopGuard as Guard
    from properties.hooks.generate import Builder
    from properties.hooks.trace_file import save

    builder = Builder(playground=True, policy="after")
    builder.trip("bad_write")
    path = save(builder.build(), tmp_path / "seq.json", "seq", "H5")
    assert hooks_replay.main([str(path)]) == 0
    assert "every hook invariant held" in capsys.readouterr().out
    # Plant the catalogue's admit-any-write: the same file now fails H5.
    monkeypatch.setattr(Guard, "_is_remedy", lambda self, record: record.tool == "write")
    assert hooks_replay.main([str(path)]) == 1
    assert "VIOLATED H5" in capsys.readouterr().out


def test_a_hook_counterexample_is_pinned_and_checked(tmp_path, capsys, monkeypatch) -> None:
    """``python -m properties.regressions pin`` keeps a hook sequence file with the invariant it once broke; the
    check judges it with every hook invariant and names a break under a planted bug (the catalogue's
    admit-any-write, H5)."""
    from guard.hooks import ToolLoopGuard as Guard
    from properties import regressions
    from properties.hooks.generate import Builder
    from properties.hooks.trace_file import load, save

    builder = Builder(playground=True, policy="after")
    builder.trip("bad_write")
    sequence = builder.build()
    source = save(sequence, tmp_path / "in" / "seq.json", "bulk-H5 trip", "")
    folder = tmp_path / "pinned"
    # The file names no invariant: pinning needs one, and only a hook invariant's id.
    assert regressions.main(["pin", str(source), "--dir", str(folder)]) == 2
    assert "invariant: missing" in capsys.readouterr().err
    assert regressions.main(["pin", str(source), "--dir", str(folder), "--invariant", "B5"]) == 2
    assert "such as H5" in capsys.readouterr().err
    assert regressions.main(["pin", str(source), "--dir", str(folder), "--invariant", "H5"]) == 0
    pinned = folder / "bulk-H5-trip.json"
    assert capsys.readouterr().out.strip() == f"pinned: {pinned}"
    assert load(pinned) == (sequence, "bulk-H5 trip", "H5")
    assert regressions.main(["check", "--dir", str(folder)]) == 0
    assert capsys.readouterr().out.startswith(f"holds {pinned.name} (once broke H5; {len(sequence.events)} hook events)")
    monkeypatch.setattr(Guard, "_is_remedy", lambda self, record: record.tool == "write")
    assert regressions.main(["check", "--dir", str(folder)]) == 1
    assert capsys.readouterr().out.startswith(f"BROKEN {pinned.name}: H5 at step ")


@pytest.mark.parametrize("content, field", [("[", "not JSON"), ('{"schema": "guard-trace/1"}', "schema")])
def test_a_bad_hook_sequence_file_is_one_line_and_exit_2(tmp_path, capsys, content, field) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    assert hooks_replay.main([str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(path) in err[0] and field in err[0]


def test_a_missing_hook_sequence_file_is_one_line_and_exit_2(tmp_path, capsys) -> None:
    assert hooks_replay.main([str(tmp_path / "nope.json")]) == 2
    assert "file not found" in capsys.readouterr().err
