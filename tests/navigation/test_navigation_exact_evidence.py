"""guard.navigation_evidence rule by rule: classification, deduplication, the two bounds, the evidence cap, the prompt.

Each expected value is worked out by hand from shared/spec/navigation.md and
seed 003 for the few messages in the test (small limits keep the arithmetic
visible). These pin the exact edges mutmut found unpinned: the ``>=`` of each
bound, the first-bound-wins rule within one slice, the evidence cap at zero
and one character of room, and the prompt's layout.
"""

from __future__ import annotations

from guard.navigation_evidence import (
    EMPTY, ERROR, NO_PROGRESS_BOUND, PROGRESS, REPEATED, TOOL_CALLS, Observer, classify,
)
from guard.navigation_limits import NavigationLimits
from guard.navigation_ports import Message


def call(mid: str, calls: int = 1, text: str = "") -> Message:
    return Message(mid, "assistant", text=text, tool_calls=calls)


def result(mid: str, text: str = "some text", **fields) -> Message:
    return Message(mid, "tool", text=text, **fields)


def observer(**limits) -> Observer:
    return Observer(NavigationLimits(**limits))


# --- classify: the class and the detail that tells the no-progress kinds apart -------------------------------------

def test_a_failed_call_is_an_error_whatever_its_text() -> None:
    assert classify(result("r", "plenty of text", is_error=True, source_tokens=500), set()) == (ERROR, "error")


def test_blank_content_is_empty_content() -> None:
    assert classify(result("r", " \n\t "), set()) == (EMPTY, "empty content")
    assert classify(result("r", ""), set()) == (EMPTY, "empty content")


def test_zero_token_counter_and_zero_token_manifest_are_told_apart() -> None:
    # Seed 003: "Distinguish empty tool content and native retrieval counters from zero-token subtree manifests."
    counter = classify(result("r", "listing of 40 nodes", source_tokens=0), set())
    manifest = classify(result("r", "listing of 40 nodes", source_tokens=0, manifest=True), set())
    assert counter == (EMPTY, "zero-token counter")
    assert manifest == (EMPTY, "zero-token manifest")


def test_same_content_again_is_repeated_and_new_content_is_progress() -> None:
    assert classify(result("r", "node 7 body"), {"node 7 body"}) == (REPEATED, "repeated")
    assert classify(result("r", "node 8 body"), {"node 7 body"}) == (PROGRESS, "progress")
    # A counter reporting tokens is progress (only zero reads as nothing retrieved).
    assert classify(result("r", "node 9 body", source_tokens=12), set()) == (PROGRESS, "progress")


# --- Observer.read: each message once, in order ---------------------------------------------------------------------

def test_a_repeated_snapshot_counts_each_message_once_and_reads_the_new_ones() -> None:
    obs = observer()
    a, b, c = call("a", 2), result("b", "first"), call("c", 3)
    assert obs.read([a]) is None
    # The second snapshot repeats "a" ahead of new messages: "a" is skipped, "b" and "c" are read.
    assert obs.read([a, b, c]) is None
    assert obs.read([a, b, c]) is None
    assert obs.tool_calls == 2 + 3
    assert obs.unique == [a, b, c]
    assert obs.seen == {"a", "b", "c"}
    assert obs.results == [("b", PROGRESS, "progress")]


def test_nothing_reached_is_none_not_another_falsy_value() -> None:
    assert observer().read([call("a"), result("b")]) is None
    assert observer().read([]) is None


def test_only_assistant_messages_count_tool_calls_and_only_tool_messages_are_classified() -> None:
    obs = observer()
    obs.read([
        call("a", 2),
        Message("u", "user", text="what is in node 7?", tool_calls=5),
        result("r", "node 7 body", tool_calls=4),
    ])
    assert obs.tool_calls == 2
    assert obs.results == [("r", PROGRESS, "progress")]
    assert obs.evidence == [("", "node 7 body")]


def test_the_tool_call_bound_fires_at_exactly_the_limit() -> None:
    obs = observer(tool_calls=4)
    assert obs.read([call("a", 1), call("b", 2)]) is None  # 3 of 4
    assert obs.read([call("c", 1)]) == TOOL_CALLS  # the 4th call reaches the bound
    assert obs.tool_calls == 4


def test_the_default_tool_call_bound_is_24() -> None:
    obs = observer()
    assert obs.read([call(f"a{k}") for k in range(23)]) is None
    assert obs.read([call("a23")]) == TOOL_CALLS


def test_the_no_progress_bound_fires_at_the_third_consecutive_result() -> None:
    obs = observer()
    assert obs.read([result("r1", ""), result("r2", "x", is_error=True)]) is None
    assert obs.streak == 2
    assert obs.read([result("r3", "y", source_tokens=0)]) == NO_PROGRESS_BOUND
    assert obs.streak == 3


def test_progress_resets_the_streak_to_zero() -> None:
    obs = observer()
    # empty, empty, progress, empty, empty: the streak is 2 at the end, below the bound of 3.
    assert obs.read([result("r1", ""), result("r2", ""), result("r3", "news"), result("r4", "")]) is None
    assert obs.streak == 1
    assert obs.read([result("r5", "")]) is None
    assert obs.streak == 2


def test_the_first_bound_reached_in_message_order_is_the_one_reported() -> None:
    # Tool calls reach 2 first, then the no-progress streak reaches 1: the tool-call bound is reported.
    obs = observer(tool_calls=2, no_progress=1)
    assert obs.read([call("a", 2), result("r", "")]) == TOOL_CALLS
    # The other order: the no-progress bound first, then the tool calls.
    obs = observer(tool_calls=2, no_progress=1)
    assert obs.read([result("r", ""), call("a", 2)]) == NO_PROGRESS_BOUND


def test_a_slice_that_reaches_no_bound_reports_none_even_after_messages_of_each_kind() -> None:
    obs = observer(tool_calls=10, no_progress=2)
    assert obs.read([call("a"), result("r1", ""), call("b"), result("r2", "news"), call("c")]) is None


def test_repeated_content_is_no_progress_and_counts_against_the_streak() -> None:
    obs = observer()
    reached = obs.read([result("r1", "node 7"), result("r2", "node 7"), result("r3", "node 7"), result("r4", "node 7")])
    assert obs.results == [
        ("r1", PROGRESS, "progress"), ("r2", REPEATED, "repeated"),
        ("r3", REPEATED, "repeated"), ("r4", REPEATED, "repeated"),
    ]
    assert reached == NO_PROGRESS_BOUND
    # Only the first copy is evidence.
    assert obs.evidence == [("", "node 7")]


def test_progress_is_kept_with_its_source() -> None:
    obs = observer()
    obs.read([result("r1", "alpha", source="s1"), result("r2", "", source="s2"), result("r3", "beta", source="s3")])
    assert obs.evidence == [("s1", "alpha"), ("s3", "beta")]
    assert obs.evidence_chars == len("alpha") + len("beta")  # 9


# --- Observer.keep: at most limits.evidence_chars characters ---------------------------------------------------------

def test_evidence_that_fits_is_kept_whole_and_not_capped() -> None:
    obs = observer(evidence_chars=10)
    obs.keep("s1", "abc")
    assert (obs.evidence, obs.evidence_chars, obs.evidence_capped) == ([("s1", "abc")], 3, False)


def test_evidence_filling_the_room_exactly_is_not_capped_until_more_arrives() -> None:
    obs = observer(evidence_chars=10)
    obs.keep("s1", "abcdefghij")
    assert (obs.evidence_chars, obs.evidence_capped) == (10, False)
    # No room left: nothing more is kept (not even an empty piece), and the cap is recorded.
    obs.keep("s2", "k")
    assert obs.evidence == [("s1", "abcdefghij")]
    assert (obs.evidence_chars, obs.evidence_capped) == (10, True)


def test_evidence_past_the_room_is_cut_to_the_room_and_capped() -> None:
    obs = observer(evidence_chars=10)
    obs.keep("s1", "abcdefg")
    obs.keep("s2", "hijklmn")
    assert obs.evidence == [("s1", "abcdefg"), ("s2", "hij")]
    assert (obs.evidence_chars, obs.evidence_capped) == (10, True)


def test_one_character_of_room_keeps_one_character() -> None:
    obs = observer(evidence_chars=10)
    obs.keep("s1", "abcdefghi")
    obs.keep("s2", "jk")
    assert obs.evidence == [("s1", "abcdefghi"), ("s2", "j")]
    assert (obs.evidence_chars, obs.evidence_capped) == (10, True)


def test_the_default_cap_is_32000_characters() -> None:
    obs = observer()
    obs.read([result("r1", "a" * 20_000, source="s1"), result("r2", "b" * 20_000, source="s2")])
    assert obs.evidence == [("s1", "a" * 20_000), ("s2", "b" * 12_000)]
    assert (obs.evidence_chars, obs.evidence_capped) == (32_000, True)


# --- Observer.prompt: the question, the instruction, then each piece under its source ------------------------------

def test_the_prompt_lays_out_question_instruction_and_sourced_evidence() -> None:
    obs = observer()
    obs.read([result("r1", "alpha", source="s1"), result("r2", "beta")])
    assert obs.prompt("Where is X?") == (
        "Question: Where is X?\n\n"
        "Answer from this evidence only; cite sources by id.\n\n"
        "[s1] alpha\n\n"
        "[tool] beta"
    )


def test_the_prompt_without_evidence_is_question_and_instruction() -> None:
    assert observer().prompt("Q") == "Question: Q\n\nAnswer from this evidence only; cite sources by id."
