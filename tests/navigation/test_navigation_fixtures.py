"""The three synthetic traces of navigation.md: their shapes are the seed's numbers, and both versions end as the
spec says. Expected figures come from seed 003 and navigation.md (and, for the two motivating traces, from the
hand count written in properties/navigation/fixtures.py's docstring), never from the code under test."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from guard.navigation_limits import NavigationLimits
from properties.navigation import fixtures
from properties.navigation.trace_file import ScenarioError, load
from properties.navigation.scenario import run

SLICES = NavigationLimits(slice_ms=5_000)
STORED = {scenario.name: scenario for scenario in fixtures.load_all()}


def _shape(scenario):
    turns = [t.message for t in scenario.messages if t.message.role == "assistant"]
    results = [t.message for t in scenario.messages if t.message.role == "tool"]
    expansions = [message for message in results if message.tool == "expand"]
    return turns, results, expansions


def test_the_stored_json_is_what_the_builders_make() -> None:
    assert set(STORED) == set(fixtures.NAMES)
    for name, build in fixtures.BUILDERS.items():
        assert STORED[name] == build()


@pytest.mark.parametrize(("name", "turns", "expansions", "zero", "tokens"),
                         [("seed003-trace-71", 71, 19, 10, 84), ("seed003-trace-87", 87, 45, 41, 126)])
def test_the_motivating_traces_have_the_seeds_shape(name, turns, expansions, zero, tokens) -> None:
    scenario = STORED[name]
    assistant, _results, expanded = _shape(scenario)
    assert len(assistant) == turns and all(message.tool_calls >= 1 for message in assistant)  # no final answer
    assert scenario.final_at() is None and scenario.grant_tokens == 4_000
    assert len(expanded) == expansions
    assert sum(1 for message in expanded if message.source_tokens == 0) == zero
    assert sum(message.source_tokens for message in expanded) == tokens


def test_the_production_archive_has_the_seeds_shape() -> None:
    scenario = STORED["seed003-production-archive"]
    assistant, results, _expanded = _shape(scenario)
    assert len(assistant) == 20 and sum(message.tool_calls for message in assistant) == 22
    assert scenario.final_at() is None
    sources = [message for message in results if message.source in scenario.bucket]
    assert len(sources) == 7 and sum(len(message.text) for message in sources) == 4_813
    assert sum(len(message.text) for message in results[:18]) > 32_000
    # The last four results: repeated content, empty content, a zero-token counter, a zero-token manifest.
    last = results[-4:]
    assert last[0].text in {message.text for message in results[:18]}
    assert last[1].text == "" and last[2].source_tokens == 0 and last[3].manifest and last[3].source_tokens == 0


@pytest.mark.parametrize("name", fixtures.NAMES)
def test_the_reference_waits_to_the_work_deadline_and_times_out(name) -> None:
    outcome = run(STORED[name], "reference").outcome
    # timeout 150 s: work = min(150 s, 150 s - 30 s) = 120 s; then two 200 ms teardown actions.
    assert (outcome.answer, outcome.truncated, outcome.error, outcome.finished_at) == (None, True, "timeout", 120_400)


def test_trace_71_ends_at_the_tool_call_bound_with_a_truncated_answer() -> None:
    outcome = run(STORED["seed003-trace-71"], "production", SLICES).outcome
    assert (outcome.stop, outcome.tool_calls) == ("tool_calls", 25)
    assert outcome.truncated is True and outcome.answer and outcome.evidence_chars > 0
    assert outcome.finished_at < 120_000


def test_trace_87_ends_without_progress_and_reports_insufficient_evidence() -> None:
    played = run(STORED["seed003-trace-87"], "production", SLICES)
    outcome = played.outcome
    assert (outcome.stop, outcome.tool_calls, outcome.no_progress) == ("no_progress", 5, 4)
    assert outcome.insufficient is True and outcome.answer is None and outcome.truncated is True
    assert outcome.evidence_chars == 0 and played.record.completions == []


def test_the_production_archive_ends_as_the_seed_reports() -> None:
    played = run(STORED["seed003-production-archive"], "production", SLICES)
    outcome = played.outcome
    # Seed 003: no_progress, 22 model-issued tool calls, four consecutive no-progress results, 32,000 characters.
    assert (outcome.stop, outcome.tool_calls, outcome.no_progress, outcome.evidence_chars) == ("no_progress", 22, 4, 32_000)
    # The child is torn down before the one synthesis call.
    assert [name for name in played.record.order if name != "poll"] == ["spawn", "delete", "revoke", "policy", "complete"]
    assert outcome.truncated is True and len(outcome.answer) == 2_272
    assert outcome.citations == ("m2", "m5") and outcome.dropped_citations == ("elsewhere-9",)
    assert outcome.finished_at == 52_354  # 45 s of reading, 0.4 s teardown, a 6,954 ms completion


def test_a_malformed_fixture_names_its_file_and_field(tmp_path: Path) -> None:
    data = json.loads(fixtures.path_of("seed003-trace-87").read_text())
    data["messages"][3]["role"] = "system"
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(data))
    with pytest.raises(ScenarioError, match=r"broken\.json: messages\[3\]\.role"):
        load(broken)
    with pytest.raises(ScenarioError, match="missing.json: file not found"):
        load(tmp_path / "missing.json")
