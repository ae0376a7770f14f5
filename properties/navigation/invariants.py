"""Invariants N1-N11 of the navigation subject (seed 003), written once, and the monitor that checks them.

One step of a navigation trace is one scenario (one delegated request): the
monitor plays it against the reference and the production version on fresh
fakes and judges what each did from the fakes' records. Everything the
checks compare against is restated here from ``shared/spec/navigation.md``
(``properties.navigation.spec_rules``: ``SPEC``, ``spec_class``, ``spec_deadlines``), never read from ``guard/``,
so a mutated limit or rule in production is judged by the spec's numbers.
"""

from __future__ import annotations

import functools
import json
from typing import Any, Sequence

import attrs

from properties.catalogue import Invariant, Outcome, unique_ids
from properties.navigation.scenario import Run, run
from properties.navigation.events import Scenario
from properties.navigation.spec_rules import (
    BOUNDS, INSUFFICIENT_ERROR, SPEC, Spec, spec_class, spec_deadlines, spec_detail, spec_of,
)

SUBJECT = "navigation"


@attrs.define
class PollView:
    """What one production poll delivered, recounted by the spec."""

    called: int
    until: int
    returned: int
    tool_calls: int = 0
    streak: int = 0
    progress_chars: int = 0
    #: How many progress results had been read by the end of this slice (a prefix of ``Step.progress_texts``).
    progress_count: int = 0
    #: How many tool results had been read by the end of this slice (a prefix of ``Step.results``).
    result_count: int = 0
    bound: "str | None" = None  # first count bound reached in this slice, in message order
    deadline: bool = False
    cancelled: bool = False
    finished: bool = False


@attrs.define
class Step:
    """Everything a check reads about one scenario."""

    index: int
    scenario: Scenario
    reference: Run
    production: Run
    work: int
    reserve: int
    retrieval: int
    polls: list
    #: The poll at which production should have stopped reading (index into ``polls``), or None.
    end: "int | None"
    #: What should have ended it: a bound, "cancelled", "reply", or None.
    expected: "str | None"
    progress_chars: int = 0
    #: The numbers judged by (navigation.md's, or the scenario's scaled ones: ``spec_of``).
    spec: Spec = SPEC
    #: The progress results' texts read until navigation ended, in reading order (the evidence the spec keeps
    #: is their first 32,000 characters).
    progress_texts: tuple[str, ...] = ()
    #: The source of each of ``progress_texts`` (the id a citation names).
    progress_sources: tuple[str, ...] = ()
    #: Every tool result read until navigation ended, in reading order: (message id, class, detail) by the spec.
    results: tuple[tuple[str, str, str], ...] = ()

    @property
    def prod(self) -> Any:
        return self.production.outcome

    @property
    def ref(self) -> Any:
        return self.reference.outcome

    @property
    def no_work_time(self) -> bool:
        """navigation.md: no work time left (the work deadline is the request's start): a timeout at once, no child."""
        return self.work <= self.scenario.start_ms

    @functools.cached_property
    def error_cause(self) -> "tuple[str, str] | None":
        """``_error_cause`` of this step, worked out once for N5 and the coverage counts."""
        return _error_cause(self)

    @property
    def bound_path(self) -> bool:
        """Production ended navigation itself (at a bound or a cancellation), not on the child's reply."""
        return self.expected in BOUNDS or self.expected == "cancelled"


def _recount(scenario: Scenario, polls: Sequence[tuple], retrieval: int
             ) -> tuple[list[PollView], int, list[tuple[str, str]], list[tuple[str, str, str]]]:
    spec = spec_of(scenario)
    results: list[tuple[str, str, str]] = []
    seen: set = set()
    #: (source, text) of each progress result, in reading order.
    progress: list[tuple[str, str]] = []
    texts: set = set()
    calls = streak = chars = 0
    views = []
    final = scenario.final_at()
    for called, until, returned in polls:
        view = PollView(called, until, returned)
        for timed in scenario.messages:
            message = timed.message
            if timed.at > returned or message.id in seen:
                continue
            seen.add(message.id)
            if message.role == "assistant":
                calls += message.tool_calls
                if view.bound is None and calls >= spec.tool_calls:
                    view.bound = "tool_calls"
            else:
                kind = spec_class(message, texts)
                results.append((message.id, kind, spec_detail(message, kind)))
                if kind == "progress":
                    streak = 0
                    chars += len(message.text)
                    progress.append((message.source, message.text))
                else:
                    streak += 1
                    if view.bound is None and streak >= spec.no_progress:
                        view.bound = "no_progress"
                if kind in ("progress", "repeated"):
                    texts.add(message.text)
        view.tool_calls, view.streak, view.progress_chars, view.progress_count = calls, streak, chars, len(progress)
        view.result_count = len(results)
        view.deadline = returned >= retrieval
        view.cancelled = scenario.cancel_at is not None and returned >= scenario.cancel_at
        view.finished = final is not None and final <= returned
        views.append(view)
    return views, chars, progress, results


def kept_evidence(texts: Sequence[str], cap: int = SPEC.evidence_chars) -> list[str]:
    """The pieces navigation.md keeps: the progress texts in reading order, cut at 32,000 characters in all."""
    kept, room = [], cap
    for text in texts:
        if room <= 0:
            break
        kept.append(text[:room])
        room -= len(kept[-1])
    return kept


def judge(index: int, scenario: Scenario) -> Step:
    """Play ``scenario`` against both versions and recount production's polls by the spec."""
    reference = run(scenario, "reference")
    production = run(scenario, "production")
    work, reserve, retrieval = spec_deadlines(scenario, scenario.start_ms)
    polls, chars, progress, results = _recount(scenario, production.record.polls, retrieval)
    end = expected = None
    for number, view in enumerate(polls):
        if view.finished:
            end, expected = number, "reply"
        elif view.bound is not None:
            end, expected = number, view.bound
        elif view.cancelled:
            end, expected = number, "cancelled"
        elif view.deadline:
            end, expected = number, "deadline"
        else:
            continue
        break
    read = progress[: polls[end].progress_count] if end is not None else progress
    return Step(index, scenario, reference, production, work, reserve, retrieval, polls, end, expected,
                polls[end].progress_chars if end is not None else chars, spec_of(scenario),
                tuple(text for _source, text in read), tuple(source for source, _text in read),
                tuple(results[: polls[end].result_count] if end is not None else results))


def _synthesized(step: Step) -> bool:
    return bool(step.production.record.completions)


# -- the invariants ------------------------------------------------------


def n1_bounded(step: Step) -> Outcome:
    """Navigation ends at the end of the first polling slice in which the 24th model-issued tool call, the third
    consecutive no-progress result or the retrieval deadline is reached; no later slice is read, no slice reads past
    the retrieval deadline, and the stop reason names the bound that fired (tool_calls, no_progress, deadline)."""
    if step.no_work_time:
        return False, None
    for view in step.polls:
        if view.until > step.retrieval:
            return True, f"a slice was read until {view.until} ms, past the retrieval deadline {step.retrieval} ms"
    if step.end is None:
        return True, (f"production stopped reading after {len(step.polls)} slices (stop reason {step.prod.stop!r}) "
                      "though no bound, reply or cancellation was reached")
    if len(step.polls) > step.end + 1:
        return True, (f"slice {step.end} reached {step.expected} but {len(step.polls) - step.end - 1} later "
                      "slice(s) were read")
    stop = step.prod.stop
    if step.expected in BOUNDS:
        if stop != step.expected:
            return True, f"the slice ending at {step.polls[step.end].returned} ms reached {step.expected}, stop reason {stop!r}"
        view = step.polls[step.end]
        if step.prod.tool_calls != view.tool_calls:
            return True, f"reported {step.prod.tool_calls} tool calls, the slices carried {view.tool_calls}"
        # navigation.md reports the counts at the end (22 tool calls, four consecutive no-progress results).
        if step.prod.no_progress != view.streak:
            return True, f"reported {step.prod.no_progress} consecutive no-progress results, the slices carried {view.streak}"
        return True, None
    if step.expected == "reply":
        if stop is not None:
            return True, f"the child replied in the last slice, yet stop reason {stop!r}"
        # Production counts the child's calls and results whichever way it ends (navigation.md: "Count
        # model-issued tool calls; classify each tool result"), and reports what it counted.
        view = step.polls[step.end]
        if (step.prod.tool_calls, step.prod.no_progress) != (view.tool_calls, view.streak):
            return True, (f"the child replied; reported {step.prod.tool_calls} tool calls and {step.prod.no_progress} "
                          f"consecutive no-progress results, the slices carried {view.tool_calls} and {view.streak}")
        return True, None
    return False, None


def n2_evidence_cap(step: Step) -> Outcome:
    """Kept evidence never exceeds 32,000 characters: it is the first min(32,000, available) characters of the
    progress results read (on every path that read the child, its reply's too), the outcome says whether the cap
    cut any, and the synthesis call carries no more."""
    if not step.bound_path and step.expected != "reply":
        return False, None
    expected = min(step.spec.evidence_chars, step.progress_chars)
    if step.prod.evidence_chars != expected:
        return True, (f"kept {step.prod.evidence_chars} evidence characters of {step.progress_chars} available; "
                      f"the spec keeps {expected}")
    # Whether the cap cut anything is part of what the outcome reports (``Outcome.evidence_capped``): it did exactly
    # when more progress text was read than the cap keeps (progress text is never empty: blank content is "empty").
    capped = step.progress_chars > step.spec.evidence_chars
    if step.prod.evidence_capped is not capped:
        return True, (f"evidence_capped is {step.prod.evidence_capped!r} with {step.progress_chars} progress characters "
                      f"read and a cap of {step.spec.evidence_chars}")
    for call, *_ in step.production.record.completions:
        if call.evidence_chars > step.spec.evidence_chars:
            return True, f"the synthesis call carried {call.evidence_chars} evidence characters"
    return True, None


def n3_reserve(step: Step) -> Outcome:
    """The answer reserve is min(30 s, remaining work time / 4): never more than 30 s nor a quarter of the remaining
    work time, taken from the end of the work budget."""
    if step.no_work_time:
        return False, None
    # The reserve is set before the child is spawned, so it is judged on the reply path too.
    if step.prod.reserve != step.reserve:
        return True, f"reserve {step.prod.reserve} ms; min(30 s, {step.work} ms / 4) is {step.reserve} ms"
    return True, None


def _synthesis_due(step: Step) -> "str | None":
    """Why navigation.md requires the one synthesis call on this scenario, or None when it does not: a bound
    ended navigation, deletion and revocation succeeded, usable evidence was kept, teardown ended before the work
    deadline with the request not cancelled, and the synthesis policy allows the model."""
    record = step.production.record
    done = {what for what, _at, ok in record.teardown if ok}
    if step.expected not in BOUNDS or not {"delete", "revoke"} <= done or step.progress_chars == 0:
        return None
    ended = max(at for _what, at, _ok in record.teardown)
    cancel = step.scenario.cancel_at
    if ended >= step.work or (cancel is not None and cancel <= ended) or step.scenario.policy_rejects:
        return None
    return (f"navigation ended at {step.expected} with {min(step.progress_chars, step.spec.evidence_chars)} evidence "
            f"characters kept, teardown done at {ended} ms before the work deadline {step.work} ms, not cancelled, "
            "the policy allowing")


def _owned(step: Step) -> set:
    """What teardown must be handed: the child production spawned (the fakes name it ``child-N``) and the grant."""
    children = {f"child-{number}" for number in range(1, len(step.production.record.spawns) + 1)}
    return {("delete", child) for child in children} | {("revoke", step.scenario.request().grant.id)}


def n4_one_synthesis(step: Step) -> Outcome:
    """Exactly one synthesis call when navigation ended at a bound with evidence kept, teardown and revocation
    succeeded before the work deadline, the request not cancelled and the policy allowing ("then make exactly one
    tool-free completion call with the kept evidence"); at most one otherwise. It comes only after the child's
    deletion and the grant's revocation succeeded, never with tools, carries the kept evidence (the request's
    question restated, each piece named by its source: ``names_source``), under the original work deadline, and
    never starts at or past it."""
    record = step.production.record
    due = _synthesis_due(step)
    if not record.completions:
        if due is not None:
            return True, f"{due}, yet no synthesis call"
        if step.expected == "reply" or step.prod.error != "synthesis_failed":
            return False, None
        return True, "reported a synthesis failure without a synthesis call"
    if len(record.completions) > 1:
        return True, f"{len(record.completions)} synthesis calls"
    call, at, _cancelled, _same = record.completions[0]
    before = record.order[: record.order.index("complete")]
    done = {what for what, _at, ok in record.teardown if ok}
    if not {"delete", "revoke"} <= done or "delete" not in before or "revoke" not in before:
        return True, f"synthesis at {at} ms before deletion and revocation succeeded (calls: {before})"
    owned = _owned(step)
    if any(item not in owned for item in record.torn_down):
        return True, f"teardown handled {record.torn_down!r}; the owned child and its grant are {sorted(owned)!r}"
    # guard/navigation_ports.py types the call's tools as a tuple of tools: "never with tools" is the empty one, and
    # a None there is a call the port does not describe.
    if call.tools != ():
        return True, f"the synthesis call's tools are {call.tools!r}, not the empty tuple"
    if call.deadline != step.work:
        return True, f"synthesis deadline {call.deadline} ms, the work deadline is {step.work} ms"
    if at >= step.work:
        return True, f"synthesis started at {at} ms, at or past the work deadline {step.work} ms"
    kept = kept_evidence(step.progress_texts, step.spec.evidence_chars)
    if call.evidence_chars != sum(len(piece) for piece in kept):
        return True, f"the synthesis call carried {call.evidence_chars} evidence characters, the spec keeps {sum(map(len, kept))}"
    missing = [piece for piece in kept if piece not in call.prompt]
    if missing:
        return True, f"the synthesis prompt lacks {len(missing)} of {len(kept)} kept evidence pieces (first: {missing[0][:40]!r})"
    question = step.scenario.request().question
    if question not in call.prompt:
        return True, f"the synthesis prompt does not restate the question {question!r}"
    unnamed = [source for source, piece in zip(step.progress_sources, kept) if source and not names_source(call.prompt, piece, source)]
    if unnamed:
        return True, f"the synthesis prompt gives {len(unnamed)} kept evidence piece(s) without their source (first: {unnamed[0]!r})"
    return True, None


def names_source(prompt: str, piece: str, source: str) -> bool:
    """``piece`` stands in ``prompt`` on a line that names ``source`` before it (N4's reading of "cite sources by id").

    navigation.md asks for one completion call "with the kept evidence" and
    checks the answer's citations against the selected bucket, which are
    source ids (N10); it does not lay the prompt out. Choice: the prompt
    restates the request's question (an answer is to a question) and names
    each kept piece's source on the piece's own line, before its text (a model
    shown no ids cannot cite the bucket); how the line is written is
    production's own. Every place the piece stands is tried, in case a short
    piece also stands inside a longer one."""
    at = prompt.find(piece)
    while at >= 0:
        if source in prompt[prompt.rfind("\n", 0, at) + 1: at]:
            return True
        at = prompt.find(piece, at + 1)
    return False


def n5_truncated(step: Step) -> Outcome:
    """Every synthesized answer is truncated: true, and so is every result of navigation ended early; empty evidence
    yields an explicit insufficient-evidence result, never an answer (and no synthesis call); a result is an
    answer or insufficient evidence, never both, and one without an answer names its error."""
    if not step.bound_path:
        return False, None
    prod = step.prod
    if not prod.truncated:
        return True, f"navigation ended at {step.expected} and the result is not truncated"
    # "A truncated answer or an explicit insufficient-evidence result" (navigation.md, the traces): never both, and
    # a result without an answer says why, as the reference's timeout does.
    if prod.answer is not None and prod.insufficient:
        return True, "an answer marked insufficient evidence"
    if prod.answer is None and not prod.error:
        return True, "navigation ended with neither an answer nor an error saying why"
    # Choice (navigation.md: "reports insufficient evidence explicitly"): the flag and the error word say it
    # together, whichever way it arose (no evidence kept, or a synthesis reply with no answer), so a caller reading
    # either one reads the same result.
    if prod.insufficient != (prod.error == INSUFFICIENT_ERROR):
        return True, f"insufficient evidence flag {prod.insufficient!r} beside error {prod.error!r}"
    cause = step.error_cause
    if cause is not None and (prod.answer is not None or prod.error != cause[0]):
        return True, f"{cause[1]}; the result is answer {prod.answer!r}, error {prod.error!r}, not error {cause[0]!r}"
    if step.progress_chars == 0 and step.expected in BOUNDS:
        if prod.answer is not None:
            return True, "no usable evidence, yet an answer was returned"
        if step.production.record.completions:
            return True, "no usable evidence, yet a synthesis call was made"
        cleanup_ok = not (step.scenario.delete_fails or step.scenario.revoke_fails)
        if cleanup_ok and step.scenario.cancel_at is None and not prod.insufficient:
            return True, f"no usable evidence and no explicit insufficient-evidence result (error {prod.error!r})"
    return True, None


def _error_cause(step: Step) -> "tuple[str, str] | None":
    """(error word, why) where navigation ended at a bound and one cause alone leaves it without an answer, or None.

    navigation.md names the causes, not the words a caller reads. Choice: running out of work time reads as the
    reference's own word, "timeout" (the reference "ends in a timeout error", and "fail at once with a timeout"), so
    a caller's handling of a timeout still applies; a synthesis call that overran the work deadline reads
    "synthesis_failed", the word production's docstring gives a failed synthesis and N4 judges the other way round
    (no such error without a call). A cancellation during the call is left out: "cancelled" and "synthesis_failed"
    both say something true of it."""
    if step.expected not in BOUNDS or step.progress_chars == 0:
        return None
    record = step.production.record
    if not record.teardown or any(not ok for _what, _at, ok in record.teardown):
        return None
    ended = max(at for _what, at, _ok in record.teardown)
    cancel = step.scenario.cancel_at
    if cancel is not None and cancel <= ended:
        return None
    if ended >= step.work:
        return "timeout", f"teardown ended at {ended} ms, at or past the work deadline {step.work} ms, evidence kept"
    if step.scenario.policy_rejects or not record.completions:
        return None
    at = record.completions[0][1]
    done = at + step.scenario.completion_ms
    if done > step.work and (cancel is None or cancel >= step.work):
        return "synthesis_failed", (f"the synthesis call started at {at} ms needs until {done} ms, past the work "
                                    f"deadline {step.work} ms")
    return None


def n6_final_failures(step: Step) -> Outcome:
    """A cleanup failure means no synthesis; a policy rejection means no retry: one policy check, no synthesis call,
    no second child and no other model."""
    if not step.bound_path:
        return False, None
    record = step.production.record
    failed = [what for what, _at, ok in record.teardown if not ok]
    if failed:
        if record.completions:
            return True, f"{failed[0]} failed, yet synthesis was called"
        if step.prod.error != "cleanup_failed":
            return True, f"{failed[0]} failed, result error {step.prod.error!r}"
        return True, None
    if record.policy and step.scenario.policy_rejects:
        if record.completions or len(record.policy) > 1 or len(record.spawns) > 1:
            return True, (f"after a policy rejection: {len(record.completions)} synthesis call(s), "
                          f"{len(record.policy)} policy checks, {len(record.spawns)} children")
        if step.prod.answer is not None or step.prod.error != "policy_rejected":
            return True, f"a policy rejection returned error {step.prod.error!r}"
        return True, None
    return False, None


def n7_differential(step: Step) -> Outcome:
    """When the child replies before any bound trips, production returns exactly what the reference returns, and
    tears down the same child and grant as the reference path does. With no work time at all neither version has
    a child to observe (navigation.md: "fail at once with a timeout, no child"), so production returns exactly
    what the reference returns then too."""
    if step.expected != "reply" and not step.no_work_time:
        return False, None
    prod, ref = step.prod.outward(), (step.ref.answer, step.ref.truncated, step.ref.error, step.ref.citations,
                                      step.ref.finished_at)
    if prod != ref:
        why = "the child replied" if step.expected == "reply" else "no work time"
        return True, f"{why}; production returned {prod!r}, the reference {ref!r}"
    if step.production.record.torn_down != step.reference.record.torn_down:
        return True, (f"the child replied; production tore down {step.production.record.torn_down!r}, the reference "
                      f"{step.reference.record.torn_down!r}")
    return True, None


def n8_never_later(step: Step) -> Outcome:
    """Production finishes no later than the reference's deadline: the work deadline plus the best-effort teardown
    (deletion and revocation) the reference makes after it."""
    if step.no_work_time:
        return False, None
    deadline = step.work + 2 * step.scenario.teardown_ms
    if step.prod.finished_at > deadline:
        return True, (f"production finished at {step.prod.finished_at} ms, after the reference's deadline "
                      f"{deadline} ms (work {step.work} ms + teardown)")
    return True, None


def n9_untouched(step: Step) -> Outcome:
    """The child's source-token grant, the model endpoint and the caller's token and time budgets are the reference's;
    the synthesis policy is asked about the model and the purpose of the call it then allows; a cancelled request
    makes no synthesis call."""
    prod, ref = step.production.record, step.reference.record
    if not prod.spawns and not ref.spawns:
        return False, None
    if [spawn[:2] for spawn in prod.spawns] != [spawn[:2] for spawn in ref.spawns]:
        return True, f"children spawned {prod.spawns!r}, the reference spawned {ref.spawns!r}"
    request = step.scenario.request()
    for model, purpose, _at in prod.policy:
        # The synthesis policy judges the caller's model endpoint, the one the call then uses.
        if model != request.grant.model:
            return True, f"the synthesis policy was asked about model {model!r}, the endpoint is {request.grant.model!r}"
        # navigation.md: the policy "that checks synthesis" judges the call it lets through, so it is asked about
        # the purpose that call declares (``SynthesisCall.purpose``), whatever the word is.
        for call, *_rest in prod.completions:
            if purpose != call.purpose:
                return True, (f"the synthesis policy was asked about purpose {purpose!r}; the call it allowed declares "
                              f"{call.purpose!r}")
    for call, _at, cancelled, same in prod.completions:
        if call.model != request.grant.model:
            return True, f"synthesis on model {call.model!r}, the endpoint is {request.grant.model!r}"
        if call.output_tokens != request.output_tokens:
            return True, f"synthesis output budget {call.output_tokens}, the caller's is {request.output_tokens}"
        if call.thinking != request.summary_thinking:
            return True, f"synthesis thinking {call.thinking}, enableSummaryThinking is {request.summary_thinking}"
        if cancelled:
            return True, "synthesis called on a cancelled request"
        if not same:
            return True, "synthesis did not receive the original cancellation signal"
    return True, None


def n10_citations(step: Step) -> Outcome:
    """Every citation of a synthesized answer lies in the selected bucket; the others are dropped and reported,
    never returned."""
    if not step.production.record.completions or step.prod.answer is None:
        return False, None
    try:
        cited = json.loads(step.scenario.completion_reply).get("citations")
    except (ValueError, AttributeError):
        cited = None
    # navigation.md says nothing of citations that are not a list; only a list's items are judged here.
    offered = [str(item) for item in cited] if isinstance(cited, list) else []
    if not offered:
        return False, None
    bucket = set(step.scenario.bucket)
    kept = tuple(item for item in offered if item in bucket)
    dropped = tuple(item for item in offered if item not in bucket)
    if step.prod.citations != kept:
        return True, f"returned citations {step.prod.citations!r}; the bucket admits {kept!r}"
    if step.prod.dropped_citations != dropped:
        return True, f"reported dropped {step.prod.dropped_citations!r}; outside the bucket: {dropped!r}"
    return True, None


def n11_results_classified(step: Step) -> Outcome:
    """Every tool result read until navigation ended is reported in reading order with the class navigation.md gives
    it (progress, or empty, repeated or error) and what told it apart: empty content, a native retrieval counter
    reading zero and a zero-token subtree manifest are three details, not one (``spec_detail``). Judged on every
    path that read the child: the bound's count rests on these classes, and a wrong class the bound did not yet feel
    is still a wrong class."""
    if not step.bound_path and step.expected != "reply":
        return False, None
    reported = tuple(step.prod.results)
    if reported == step.results:
        return bool(step.results), None
    for number, (got, want) in enumerate(zip(reported, step.results)):
        if got != want:
            return True, f"tool result {number} ({want[0]}) reported as {got!r}; navigation.md classes it {want[1:]!r}"
    return True, f"{len(reported)} tool results reported, {len(step.results)} were read"


CATALOGUE = unique_ids((
    Invariant("N1", "003", "bounded", n1_bounded, SUBJECT),
    Invariant("N2", "003", "evidence cap", n2_evidence_cap, SUBJECT),
    Invariant("N3", "003", "reserve", n3_reserve, SUBJECT),
    Invariant("N4", "003", "one synthesis after teardown", n4_one_synthesis, SUBJECT),
    Invariant("N5", "003", "truncated or insufficient", n5_truncated, SUBJECT),
    Invariant("N6", "003", "cleanup failure and policy rejection are final", n6_final_failures, SUBJECT),
    Invariant("N7", "003", "child reply differential", n7_differential, SUBJECT),
    Invariant("N8", "003", "never later", n8_never_later, SUBJECT),
    Invariant("N9", "003", "grants and budgets untouched", n9_untouched, SUBJECT),
    Invariant("N10", "003", "citations in the bucket", n10_citations, SUBJECT),
    Invariant("N11", "003", "each result classified and told apart", n11_results_classified, SUBJECT),
))
BY_ID = {invariant.id: invariant for invariant in CATALOGUE}

#: Coverage counts a default run must reach. The first ten are at least 20 each; the issue-24 dimensions (from
#: "reply in the slice of a bound" on) are a third of the lowest count that ``python -m properties --subject
#: navigation`` reached with seeds 1, 3 and 7, so a generator change that starves one is noticed while a seed's
#: spread is not (the measured counts are in README.md, "The verdict alone"). CI draws a fresh seed on every
#: run, and three counts of about 20 spread further than three seeds showed: over seeds 200-224 they fell to
#: 20 (cancel during synthesis), 19 (teardown ending exactly at the work deadline) and 11 (evidence at the
#: cap's edge), so their minimums are a third of those lows.
COVERAGE_MINIMUMS = {
    "bound tool_calls": 20,
    "bound no_progress": 20,
    "bound deadline": 20,
    "slice carried a count past its bound": 20,
    "evidence cap reached": 20,
    "cleanup failure": 20,
    "policy rejection": 20,
    "cancellation": 20,
    "insufficient evidence": 20,
    "child reply before any bound": 20,
    "reply in the slice of a bound": 50,
    "reply after navigation ended": 270,
    "child reply that is no answer": 33,
    "deletion failed": 70,
    "revocation failed": 70,
    "cleanup failure with evidence kept": 88,
    "teardown past the work deadline": 310,
    "cancel before the first slice ended": 37,
    "cancel during teardown": 28,
    "cancel during synthesis": 6,
    "cancel after the request ended": 105,
    "synthesis reply that is no answer": 23,
    "synthesis citations outside the bucket": 65,
    "result of a class's edge read": 144,
    "request made at a later clock reading": 520,
    "no work time": 280,
    "reserve of a work time four does not divide": 265,
    "teardown ending exactly at the work deadline": 6,
    "evidence at the cap's edge": 3,
    # Drawn limits (issue 24; ``generate.LIMIT_CHOICES``): a third of the lowest bulk count over seeds 1, 3, 7 and
    # 200-206 (744 and 106, 2026-12-06).
    "scenarios under drawn limits": 248,
    "a bound of one reached": 35,
    # What N11, N2's cut flag and N5's error words judge (issue 24): a third of the lowest bulk count over seeds 1,
    # 3, 7, 200 and 201 (1,360, 1,223, 422, 427 and 233; 2026-12-06).
    "zero-token result read": 450,
    "empty content read": 400,
    "evidence cut by the cap": 140,
    "result without an answer: timeout": 140,
    "result without an answer: synthesis_failed": 75,
}


def coverage(step: Step) -> list[str]:
    """The coverage names one step reached (counted by the monitor, never by a check)."""
    names = []
    view = step.polls[step.end] if step.end is not None else None
    record = step.production.record
    scenario = step.scenario
    if step.expected in BOUNDS:
        names.append(f"bound {step.expected}")
        if view is not None and ((step.expected == "tool_calls" and view.tool_calls > step.spec.tool_calls) or (
                step.expected == "no_progress" and view.streak > step.spec.no_progress)):
            names.append("slice carried a count past its bound")
        if step.progress_chars >= step.spec.evidence_chars:
            names.append("evidence cap reached")
        if scenario.delete_fails or scenario.revoke_fails:
            names.append("cleanup failure")
        elif record.policy and scenario.policy_rejects:
            names.append("policy rejection")
        if step.prod.insufficient:
            names.append("insufficient evidence")
    if step.expected == "cancelled" or (scenario.cancel_at is not None and step.prod.error == "cancelled"):
        names.append("cancellation")
    if step.expected == "reply":
        names.append("child reply before any bound")
        if view is not None and view.bound is not None:
            names.append("reply in the slice of a bound")
        if step.ref.answer is None:
            names.append("child reply that is no answer")
    if any(detail.startswith("zero-token") for _id, _kind, detail in step.results):
        names.append("zero-token result read")
    if any(detail == "empty content" for _id, _kind, detail in step.results):
        names.append("empty content read")
    if step.progress_chars > step.spec.evidence_chars and step.bound_path:
        names.append("evidence cut by the cap")
    cause = step.error_cause
    if cause is not None:
        names.append(f"result without an answer: {cause[0]}")
    if step.bound_path and scenario.final_at() is not None:
        names.append("reply after navigation ended")
    failed = {what for what, _at, ok in record.teardown if not ok}
    if step.bound_path:
        names += [name for what, name in (("delete", "deletion failed"), ("revoke", "revocation failed")) if what in failed]
        if failed and step.progress_chars > 0:
            names.append("cleanup failure with evidence kept")
        if record.teardown and not failed and max(at for _w, at, _ok in record.teardown) >= step.work:
            names.append("teardown past the work deadline")
    cancel = scenario.cancel_at
    if cancel is not None and step.polls:
        if cancel <= step.polls[0].returned:
            names.append("cancel before the first slice ended")
        if step.bound_path and record.teardown and step.polls[-1].returned < cancel <= record.teardown[-1][1]:
            names.append("cancel during teardown")
        if record.completions and record.completions[0][1] < cancel < step.prod.finished_at + 1:
            names.append("cancel during synthesis")
        if cancel > step.prod.finished_at:
            names.append("cancel after the request ended")
    if record.completions and step.prod.insufficient:
        names.append("synthesis reply that is no answer")
    if step.prod.dropped_citations:
        names.append("synthesis citations outside the bucket")
    if any(edge(timed.message) for timed in scenario.messages if timed.at <= (view.returned if view else 0)):
        names.append("result of a class's edge read")
    if scenario.start_ms > 0:
        names.append("request made at a later clock reading")
    if step.no_work_time:
        names.append("no work time")
    elif step.reserve == (step.work - scenario.start_ms) // step.spec.reserve_divisor and (
            step.work - scenario.start_ms) % step.spec.reserve_divisor:
        names.append("reserve of a work time four does not divide")
    if step.bound_path and record.teardown and max(at for _w, at, _ok in record.teardown) == step.work:
        names.append("teardown ending exactly at the work deadline")
    if step.spec.evidence_chars - 8 <= step.progress_chars <= step.spec.evidence_chars and step.bound_path:
        names.append("evidence at the cap's edge")
    if scenario.limits:
        names.append("scenarios under drawn limits")
        if step.expected in ("tool_calls", "no_progress") and getattr(step.spec, step.expected) == 1:
            names.append("a bound of one reached")
    return names


def edge(message: Any) -> bool:
    """A tool result at a class's edge: blank but not empty text, progress without a native counter, or a
    subtree manifest that did retrieve tokens (navigation.md: only a zero-token manifest is not evidence)."""
    if message.role != "tool" or message.is_error:
        return False
    blank = bool(message.text) and not message.text.strip()
    return blank or (message.source_tokens is None and bool(message.text.strip())) or (
        message.manifest and bool(message.source_tokens))
