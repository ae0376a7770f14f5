"""The production navigation budget, rule by rule, on scripted children (no sleeping, no network).

Every expected value is worked out by hand from shared/spec/navigation.md and
seed 003 for the script in the test; the slice length (5 s) is passed
explicitly so the arithmetic is visible.
"""

from __future__ import annotations

import json

import attrs

from guard.navigation_limits import NavigationLimits
from properties.navigation.generate import BUCKET, Builder
from properties.navigation.scenario import run

SLICES = NavigationLimits(slice_ms=5_000)


def play(scenario, version="production"):
    return run(scenario, version, SLICES if version == "production" else None)


def chain(kinds, *, gap=1_000, size=300, source="s1", **settings):
    """One tool call per turn, turn k at k * gap ms, its result 10 ms later."""
    builder = Builder()
    for kind in kinds:
        builder.turn([kind], size, source, gap)
    return builder.scenario(**settings)


def test_the_24th_tool_call_ends_navigation_at_the_end_of_its_slice() -> None:
    # Calls at 1, 2, ... s: the 24th (24 s) is read in the slice (20 s, 25 s], which also carries the 25th (25 s).
    played = play(chain(["progress"] * 40))
    outcome = played.outcome
    assert outcome.stop == "tool_calls"
    assert outcome.tool_calls == 25
    assert [until for _called, until, _returned in played.record.polls] == [5_000, 10_000, 15_000, 20_000, 25_000]
    assert outcome.truncated is True and outcome.answer is not None


def test_three_consecutive_no_progress_results_end_navigation() -> None:
    # Results at 1.01, 2.01, 3.01 s progress; 4.01 s zero-token counter, 5.01 s empty, 6.01 s a zero-token
    # manifest: the third no-progress result is read in the slice (5 s, 10 s].
    played = play(chain(["progress", "progress", "progress", "counter", "empty", "manifest", "progress", "progress"]))
    assert played.outcome.stop == "no_progress"
    assert len(played.record.polls) == 2
    # The slice (5 s, 10 s] also carried the calls at 7 and 8 s.
    assert played.outcome.tool_calls == 8


def test_progress_resets_the_streak() -> None:
    played = play(chain(["empty", "error", "progress"] * 12))
    assert played.outcome.stop == "tool_calls"


def test_repeated_content_is_no_progress() -> None:
    played = play(chain(["progress", "repeated", "repeated", "repeated", "progress"]))
    assert played.outcome.stop == "no_progress"
    assert played.outcome.evidence_chars == len("t2:") + 300  # only the first copy is evidence


def test_duplicated_snapshots_count_once() -> None:
    builder = Builder()
    for _ in range(10):
        builder.turn(["progress", "progress"], gap=1_000)
        builder.duplicate(2)
        builder.duplicate(3)
    played = play(builder.scenario(timeout_ms=60_000))
    # 20 distinct calls, each listed up to three times: never 24.
    assert played.outcome.tool_calls == 20
    assert played.outcome.stop == "deadline"


def test_the_retrieval_deadline_leaves_the_reserve() -> None:
    # timeout 150 s, delegation 120 s: work 120 s; reserve min(30 s, 120 s / 4) = 30 s; retrieval deadline 90 s.
    played = play(chain(["progress", "empty"] * 12, gap=10_000))
    assert played.outcome.stop == "deadline"
    assert played.outcome.reserve == 30_000
    assert played.record.polls[-1][1:] == (90_000, 90_000)


def test_the_reserve_is_a_quarter_of_a_short_work_budget() -> None:
    # timeout 60 s: work = 60 - 30 = 30 s; reserve min(30 s, 7.5 s) = 7.5 s; retrieval deadline 22.5 s.
    played = play(chain(["progress", "empty"] * 12, gap=10_000, timeout_ms=60_000))
    assert played.outcome.reserve == 7_500
    assert played.record.polls[-1][1] == 22_500


def test_evidence_is_capped_at_32000_characters() -> None:
    # Every result is over 2,000 characters: the first 16 alone are over 32,000, all read before the 24th call.
    played = play(chain(["progress"] * 30, size=2_000))
    assert played.outcome.evidence_chars == 32_000
    (call, *_), = played.record.completions
    assert call.evidence_chars == 32_000


def test_zero_token_manifests_and_counters_are_not_evidence() -> None:
    played = play(chain(["manifest", "counter", "empty", "manifest"]))
    outcome = played.outcome
    assert outcome.stop == "no_progress"
    assert outcome.insufficient is True and outcome.answer is None and outcome.truncated is True
    assert played.record.completions == []


def test_teardown_is_awaited_before_one_tool_free_synthesis_under_the_work_deadline() -> None:
    played = play(chain(["progress"] * 30, summary_thinking=False))
    order = [name for name in played.record.order if name != "poll"]
    assert order == ["spawn", "delete", "revoke", "policy", "complete"]
    (call, at, cancelled, same_signal), = played.record.completions
    assert call.tools == () and call.deadline == 120_000 and call.thinking is False
    assert call.model == "expansion-model" and call.output_tokens == 1_500
    assert same_signal and not cancelled


def test_a_cleanup_failure_prevents_synthesis() -> None:
    for failing in ("delete_fails", "revoke_fails"):
        played = play(attrs.evolve(chain(["progress"] * 30), **{failing: True}))
        assert played.outcome.error == "cleanup_failed" and played.outcome.answer is None
        assert played.record.completions == [] and played.record.policy == []


def test_a_policy_rejection_is_final() -> None:
    played = play(attrs.evolve(chain(["progress"] * 30), policy_rejects=True))
    assert played.outcome.error == "policy_rejected" and played.outcome.answer is None
    assert len(played.record.policy) == 1 and played.record.completions == [] and len(played.record.spawns) == 1


def test_a_cancelled_request_makes_no_synthesis_call() -> None:
    played = play(attrs.evolve(chain(["progress"] * 30), cancel_at=7_000))
    assert played.outcome.error == "cancelled"
    assert played.outcome.stop == "cancelled"
    assert played.record.completions == []
    assert len(played.record.polls) == 2  # cancelled at 7 s, seen at the end of the slice ending at 10 s


def test_citations_outside_the_bucket_are_dropped_and_reported() -> None:
    reply = json.dumps({"answer": "partial", "citations": ["s1", "outside", "s3"]})
    played = play(attrs.evolve(chain(["progress"] * 30), completion_reply=reply))
    assert played.outcome.citations == ("s1", "s3")
    assert played.outcome.dropped_citations == ("outside",)
    assert set(BUCKET) >= set(played.outcome.citations)


def test_a_reply_nested_past_the_parser_reads_as_no_answer() -> None:
    # A model's reply is untrusted: 100,000 open brackets make json.loads raise RecursionError. Production must
    # end with explicit insufficient evidence after its one synthesis call, never raise.
    played = play(attrs.evolve(chain(["progress"] * 30), completion_reply="[" * 100_000))
    assert played.outcome.answer is None
    assert played.outcome.insufficient is True and played.outcome.truncated is True
    assert len(played.record.completions) == 1


def test_a_child_reply_keeps_the_reference_path() -> None:
    builder = Builder()
    for _ in range(5):
        builder.turn(["progress"])
    builder.final_reply(citations=("s1", "outside"))
    scenario = builder.scenario()
    production, reference = play(scenario).outcome, play(scenario, "reference").outcome
    assert production.outward() == (reference.answer, reference.truncated, reference.error, reference.citations,
                                    reference.finished_at)
    assert production.stop is None and production.truncated is False


def test_no_work_time_fails_at_once() -> None:
    played = play(chain(["progress"], timeout_ms=20_000))
    assert played.outcome.error == "timeout" and played.record.spawns == []


def test_with_one_call_per_slice_navigation_ends_at_exactly_the_24th_call() -> None:
    # timeout 600 s, delegation 300 s: work 300 s, reserve 30 s, retrieval deadline 270 s. A call every 5 s lands
    # on each slice's end (5 s, 10 s, ...): the 24th call (120 s) is alone in its slice.
    played = play(chain(["progress"] * 40, gap=5_000, timeout_ms=600_000, delegation_timeout_ms=300_000))
    assert (played.outcome.stop, played.outcome.tool_calls) == ("tool_calls", 24)
    assert played.record.polls[-1][2] == 120_000


def test_with_one_result_per_slice_navigation_ends_at_exactly_the_third_no_progress_result() -> None:
    # Turn k at 5k s, its result 10 ms later (read in the next slice): progress, progress, then no progress.
    played = play(chain(["progress", "progress", "empty", "error", "counter", "progress", "progress"], gap=5_000,
                        timeout_ms=600_000, delegation_timeout_ms=300_000))
    assert (played.outcome.stop, played.outcome.no_progress) == ("no_progress", 3)
    # The third no-progress result (turn 5 at 25 s, result at 25.01 s) is read in the slice ending at 30 s.
    assert played.record.polls[-1][2] == 30_000


def test_the_reserve_is_at_most_30_seconds_of_a_long_work_budget() -> None:
    # timeout 600 s, delegation 300 s: work 300 s; a quarter would be 75 s, the cap is 30 s; retrieval deadline 270 s.
    played = play(chain(["progress", "empty"] * 6, gap=30_000, timeout_ms=600_000, delegation_timeout_ms=300_000))
    assert played.outcome.reserve == 30_000
    assert (played.outcome.stop, played.record.polls[-1][1]) == ("deadline", 270_000)
