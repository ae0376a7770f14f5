"""The frozen earlier navigation: deadlines, waiting blind, the child's own answer, timeout, best-effort teardown.

Expected values come from shared/spec/navigation.md ("Reference").
"""

from __future__ import annotations

import attrs
import pytest

from properties.navigation.generate import Builder
from properties.navigation.scenario import run
from reference import navigation as reference


@pytest.mark.parametrize(
    ("timeout", "delegation", "work"),
    [
        (150_000, 120_000, 120_000),  # total - 30 s headroom = 120 s; delegation 120 s
        (150_000, 60_000, 60_000),  # the delegation timeout is the smaller
        (20_000, 120_000, 0),  # total - 30 s is before now: max(now, ...) = now, no work time
        (0, 120_000, 0),  # clamped up to 1 ms, still no work time
        (900_000, 900_000, 570_000),  # clamped down to 600 s, less 30 s
    ],
)
def test_deadlines_follow_the_spec(timeout: int, delegation: int, work: int) -> None:
    limits = reference.deadlines(0, timeout, delegation)
    assert limits.work == work
    assert limits.total == min(max(timeout, 1), 600_000)


def test_no_work_time_fails_at_once_without_a_child() -> None:
    played = run(Builder().scenario(timeout_ms=20_000), "reference")
    assert played.outcome.error == "timeout" and played.outcome.answer is None
    assert played.record.spawns == [] and played.outcome.finished_at == 0


def test_a_child_that_never_answers_times_out_at_the_work_deadline_with_no_answer() -> None:
    builder = Builder()
    for _ in range(80):
        builder.turn(["counter"])
    played = run(builder.scenario(timeout_ms=150_000, delegation_timeout_ms=120_000, teardown_ms=200), "reference")
    outcome = played.outcome
    assert (outcome.answer, outcome.truncated, outcome.error) == (None, True, "timeout")
    # One blind wait until work (120 s), then teardown: two actions of 200 ms.
    assert played.record.polls == [(0, 120_000, 120_000)]
    assert outcome.finished_at == 120_400
    assert [what for what, _at, _ok in played.record.teardown] == ["delete", "revoke"]


def test_the_childs_own_json_answer_is_returned_as_it_said() -> None:
    builder = Builder()
    builder.turn(["progress"])
    builder.final_reply(citations=("s2", "s9"))
    played = run(builder.scenario(), "reference")
    assert played.outcome.answer == "the child's answer"
    assert played.outcome.truncated is False
    assert played.outcome.citations == ("s2", "s9")  # the reference checks no bucket


def test_teardown_failures_are_ignored() -> None:
    builder = Builder()
    builder.final_reply()
    played = run(attrs.evolve(builder.scenario(), delete_fails=True, revoke_fails=True), "reference")
    assert played.outcome.answer == "the child's answer"
    assert [ok for _what, _at, ok in played.record.teardown] == [False, False]
