"""Exact outcomes of guard.navigation: every field of the child-reply and synthesis paths, worked out by hand.

Each scripted child below is small enough that the whole run can be followed
on the fake clock. Common arithmetic: timeout 100 s, delegation 600 s, start
0, so the work deadline is min(600 s, 100 s - 30 s) = 70 s; the reserve is
min(30 s, 70 s // 4) = 17.5 s and the retrieval deadline 52.5 s. Slices are
5 s. Teardown takes 200 ms per step unless a test says otherwise.

These tests pin what the mutation run (``nox -s mutants``) found unpinned:
the answer reserve's integer arithmetic, ``parse_reply``'s edge cases, the
observer counters and reserve reported on the child-reply path, the
``no answer`` / ``timeout`` / ``insufficient_evidence`` errors, the
arguments teardown and the synthesis policy receive, and that only the
no-evidence and no-answer ends say ``insufficient``.
"""

from __future__ import annotations

import attrs

from guard import navigation
from guard.navigation_limits import NavigationLimits
from guard.navigation_ports import Message
from properties.navigation.scenario import Allowance, FakeCancel, FakeClock, FakeCompletion, FakePolicy, FakeSpawner, FakeTeardown, Meter, Record
from properties.navigation.events import Scenario, Timed

LIMITS = NavigationLimits(slice_ms=5_000)


@attrs.define
class ArgumentTeardown:
    """Wraps the scenario's teardown fake and keeps what each call was given."""

    inner: FakeTeardown
    deleted: list = attrs.field(factory=list)
    revoked: list = attrs.field(factory=list)

    def delete(self, child):
        self.deleted.append(child)
        self.inner.delete(child)

    def revoke(self, grant):
        self.revoked.append(grant)
        self.inner.revoke(grant)


@attrs.frozen
class Played:
    outcome: navigation.Outcome
    record: Record
    teardown: ArgumentTeardown
    request: object


def play(scenario: Scenario, start: int = 0) -> Played:
    # The same counted allowance as the drivers' fakes: a controller that never ends fails here by count (issue 25).
    clock = FakeClock(start, Meter(Allowance.of(scenario, LIMITS)))
    record = Record()
    cancel = FakeCancel(clock, scenario.cancel_at)
    teardown = ArgumentTeardown(FakeTeardown(scenario, clock, record))
    ports = navigation.Ports(clock=clock, spawner=FakeSpawner(scenario, clock, record), teardown=teardown,
                             policy=FakePolicy(scenario, clock, record),
                             completion=FakeCompletion(scenario, clock, record, cancel), cancel=cancel)
    request = scenario.request()
    return Played(navigation.navigate(request, ports, LIMITS), record, teardown, request)


def scenario(name: str, messages: list[tuple[int, Message]], **settings) -> Scenario:
    return Scenario(name=name, timeout_ms=100_000, delegation_timeout_ms=600_000,
                    messages=tuple(Timed(at, message) for at, message in messages), **settings)


def call(id_: str, calls: int = 1) -> Message:
    return Message(id=id_, role="assistant", text="", tool_calls=calls)


def result(id_: str, text: str, source: str = "s1") -> Message:
    return Message(id=id_, role="tool", text=text, source=source)


# -- helpers ---------------------------------------------------------------


def test_the_reserve_is_a_whole_number_of_milliseconds() -> None:
    # 10,001 ms remaining: a quarter is 2,500.25 ms; the reserve is whole milliseconds on an integer clock.
    reserve = navigation.answer_reserve(10_001, NavigationLimits())
    assert reserve == 2_500 and type(reserve) is int
    assert navigation.answer_reserve(1_000_000, NavigationLimits()) == 30_000


def test_a_blank_answer_is_no_answer() -> None:
    assert navigation.parse_reply('{"answer": "   "}') is None
    assert navigation.parse_reply('{"answer": ""}') is None
    assert navigation.parse_reply('{"answer": 5}') is None


def test_citations_that_are_not_a_list_are_ignored() -> None:
    assert navigation.parse_reply('{"answer": "a", "citations": "s1"}') == ("a", False, ())
    assert navigation.parse_reply('{"answer": "a", "citations": {"s1": 1}}') == ("a", False, ())


def test_the_truncated_flag_is_read_only_when_it_is_true() -> None:
    assert navigation.parse_reply('{"answer": "a", "truncated": true, "citations": ["s1"]}') == ("a", True, ("s1",))
    assert navigation.parse_reply('{"answer": "a", "truncated": "yes"}') == ("a", False, ())
    assert navigation.parse_reply('{"answer": "a", "TRUNCATED": true}') == ("a", False, ())


# -- the child's own reply -------------------------------------------------

FINAL = Message(id="final", role="assistant", text='{"answer": "done", "truncated": true, "citations": ["s1"]}')
#: Two model-issued calls, one 12-character progress result, one empty result, then the final reply at 2 s.
WORKING = [(1_000, call("a1", 2)), (1_010, result("r1", "evidence one")), (1_020, result("r2", "")),
           (2_000, FINAL)]


def test_a_child_reply_keeps_its_answer_and_reports_the_observed_counters() -> None:
    # The first poll (until 5 s) returns at the final reply (2 s); teardown ends at 2.2 s and 2.4 s.
    played = play(scenario("child-answer", WORKING))
    outcome = played.outcome
    assert outcome.outward() == ("done", True, None, ("s1",), 2_400)
    assert (outcome.tool_calls, outcome.no_progress, outcome.evidence_chars, outcome.reserve) == (2, 1, 12, 17_500)
    assert outcome.stop is None and outcome.insufficient is False
    assert [(what, at) for what, at, _ok in played.record.teardown] == [("delete", 2_200), ("revoke", 2_400)]


def test_a_child_reply_without_an_answer_is_no_answer() -> None:
    final = Message(id="final", role="assistant", text="I could not find it")
    played = play(scenario("child-no-answer", WORKING[:3] + [(2_000, final)]))
    outcome = played.outcome
    assert outcome.outward() == (None, True, "no answer", (), 2_400)
    assert (outcome.tool_calls, outcome.no_progress, outcome.evidence_chars, outcome.reserve) == (2, 1, 12, 17_500)


def test_a_child_reply_tears_down_that_child_and_the_callers_grant() -> None:
    played = play(scenario("child-teardown", WORKING))
    assert len(played.teardown.deleted) == 1
    assert played.teardown.deleted[0] is not None and played.teardown.deleted[0].id == "child-1"
    assert played.teardown.revoked == [played.request.grant]


# -- synthesis after a bound -----------------------------------------------

#: One call and one 4-character progress result, then three empty results: the no-progress bound, read in the
#: first slice (polled until 5 s). Teardown ends at 5.2 s and 5.4 s; the policy is asked at 5.4 s.
STALLED = [(1_000, call("a1")), (1_010, result("r1", "fact")), (1_020, result("r2", "")),
           (1_030, result("r3", "")), (1_040, result("r4", ""))]


def test_synthesis_asks_the_policy_for_the_callers_model_and_the_answer_purpose() -> None:
    played = play(scenario("policy-asked", STALLED, bucket=("s1",),
                           completion_reply='{"answer": "from fact", "citations": ["s1"]}'))
    assert played.record.policy == [("expansion-model", "navigation-answer", 5_400)]
    # The completion takes 2 s.
    assert played.outcome.outward() == ("from fact", True, None, ("s1",), 7_400)
    assert played.outcome.stop == "no_progress"
    assert played.outcome.insufficient is False


def test_the_one_synthesis_call_carries_the_question_and_the_kept_evidence_without_tools() -> None:
    played = play(scenario("synthesis-call", STALLED, output_tokens=900))
    [(made, at, cancelled, same_signal)] = played.record.completions
    assert (at, cancelled, same_signal) == (5_400, False, True)
    assert (made.model, made.tools, made.deadline, made.thinking, made.output_tokens, made.evidence_chars) == (
        "expansion-model", (), 70_000, False, 900, 4)
    assert "question of synthesis-call" in made.prompt and "fact" in made.prompt
    assert "None" not in made.prompt


def test_a_synthesis_that_misses_the_work_deadline_fails_without_an_answer() -> None:
    # Asked at 5.4 s, the 100 s completion is cut off at the 70 s work deadline.
    played = play(scenario("synthesis-late", STALLED, completion_ms=100_000))
    assert played.outcome.outward() == (None, True, "synthesis_failed", (), 70_000)
    assert played.outcome.insufficient is False
    assert len(played.record.completions) == 1


def test_a_synthesis_reply_without_an_answer_is_insufficient_evidence() -> None:
    played = play(scenario("synthesis-empty", STALLED, completion_reply='{"answer": "", "citations": ["s1"]}'))
    assert played.outcome.outward() == (None, True, "insufficient_evidence", (), 7_400)
    assert played.outcome.insufficient is True


def test_a_policy_rejection_is_not_insufficient_evidence() -> None:
    played = play(scenario("policy-rejects", STALLED, policy_rejects=True))
    assert played.outcome.outward() == (None, True, "policy_rejected", (), 5_400)
    assert played.outcome.insufficient is False
    assert played.record.completions == []


def test_a_bound_tears_down_that_child_and_the_callers_grant() -> None:
    played = play(scenario("bound-teardown", STALLED))
    assert len(played.teardown.deleted) == 1
    assert played.teardown.deleted[0] is not None and played.teardown.deleted[0].id == "child-1"
    assert played.teardown.revoked == [played.request.grant]


def test_no_kept_evidence_is_reported_as_insufficient_evidence() -> None:
    empties = [(1_000, call("a1")), (1_010, result("r1", "")), (1_020, result("r2", "")), (1_030, result("r3", ""))]
    played = play(scenario("no-evidence", empties))
    assert played.outcome.outward() == (None, True, "insufficient_evidence", (), 5_400)
    assert played.outcome.insufficient is True
    assert played.record.policy == [] and played.record.completions == []


def test_teardown_that_ends_past_the_work_deadline_is_a_timeout() -> None:
    # Evidence at 1.01 s, then nothing: polls until 5, 10, ..., 50 s and 52.5 s, where the retrieval deadline
    # stops navigation. Teardown steps of 10 s end at 62.5 s and 72.5 s, past the 70 s work deadline.
    played = play(scenario("slow-teardown", [(1_000, call("a1")), (1_010, result("r1", "fact"))],
                           teardown_ms=10_000))
    assert [until for _called, until, _returned in played.record.polls][-2:] == [50_000, 52_500]
    assert played.outcome.stop == "deadline"
    assert played.outcome.outward() == (None, True, "timeout", (), 72_500)
    assert played.outcome.insufficient is False
    assert played.record.policy == [] and played.record.completions == []


# -- a clock that does not start at zero -----------------------------------


def test_no_work_time_is_an_immediate_timeout_at_the_current_time() -> None:
    # A 30 s timeout less the 30 s headroom leaves no work time: the deadline is the start (7 s) itself.
    played = play(attrs.evolve(scenario("no-time", [(8_000, call("a1"))]), timeout_ms=30_000), start=7_000)
    assert played.outcome.outward() == (None, True, "timeout", (), 7_000)
    assert played.record.spawns == [] and played.record.teardown == []


def test_the_reserve_is_taken_from_the_time_left_not_from_the_clock_reading() -> None:
    # Start at 7 s: work deadline 77 s, reserve min(30 s, 70 s // 4) = 17.5 s, retrieval deadline 59.5 s.
    # Slices end at 12, 17, ..., 57 s, then 59.5 s; teardown ends at 59.9 s, the 2 s completion at 61.9 s.
    played = play(scenario("late-start", [(8_000, call("a1")), (8_010, result("r1", "fact"))]), start=7_000)
    assert [until for _called, until, _returned in played.record.polls] == [
        12_000, 17_000, 22_000, 27_000, 32_000, 37_000, 42_000, 47_000, 52_000, 57_000, 59_500]
    assert played.outcome.stop == "deadline" and played.outcome.reserve == 17_500
    assert played.outcome.outward() == ("partial answer", True, None, (), 61_900)
