"""Delegated navigation that converges (seed 003): observe the child, stop at a bound, answer once without tools.

The earlier behaviour waited for the child until the work deadline and
returned a timeout when it never answered (71 and 87 tool turns, no answer).
Now the controller reads the child's messages in bounded polling slices and,
at the end of each slice, stops at the first bound reached: 24 model-issued
tool calls, 3 consecutive no-progress results, or the retrieval deadline
(``work - reserve``). Then it deletes the child and revokes its grant, and
only when both succeeded makes one tool-free completion from the kept
evidence, under the original work deadline and cancellation signal.

A child's own final reply keeps the earlier path (its JSON answer as is).

Choices where the seed and spec are silent (reviewed as a safety guard would be):

* A final reply read in the same slice as a bound wins: the child answered
  before the bound was checked, and its own answer is the reference path.
* Cancellation is checked at the end of each slice too; a cancelled request
  tears the child down and returns ``cancelled`` without synthesis.
* With no kept evidence the controller reports insufficient evidence without
  calling the model; so does a synthesis whose reply has no answer.
* A synthesis that fails (raises, or misses the deadline) is not retried.
* The outcome reports how each tool result read was classified (``results``,
  in reading order) and whether the evidence cap cut any of it
  (``evidence_capped``): navigation.md asks that empty content, native
  retrieval counters and zero-token manifests be told apart, and a reviewer
  (and the verdict) can only see that they were if the outcome says so.
"""

from __future__ import annotations

import json
from typing import Any, Callable

import attrs

from guard.navigation_evidence import DEADLINE, Observer
from guard.navigation_limits import NavigationLimits
from guard.navigation_ports import Cancel, Clock, Completion, Policy, Request, Spawner, SynthesisCall, Teardown

TIMEOUT_MIN_MS = 1
TIMEOUT_MAX_MS = 600_000
HEADROOM_MS = 30_000

CANCELLED = "cancelled"
INSUFFICIENT = "insufficient_evidence"


@attrs.frozen
class Outcome:
    """What the tool returns, plus what a reviewer needs to see why."""

    answer: "str | None"
    truncated: bool
    error: "str | None"
    citations: tuple[str, ...] = ()
    finished_at: int = 0
    #: The bound that ended navigation (``tool_calls``, ``no_progress``, ``deadline``), ``cancelled``, or None.
    stop: "str | None" = None
    tool_calls: int = 0
    no_progress: int = 0
    evidence_chars: int = 0
    dropped_citations: tuple[str, ...] = ()
    insufficient: bool = False
    reserve: int = 0
    #: Each tool result read, in reading order: (message id, class, detail), the detail telling apart what the
    #: class lumps together (empty content, a zero-token counter, a zero-token manifest).
    results: tuple[tuple[str, str, str], ...] = ()
    #: Whether the evidence cap cut a progress result (in part or whole).
    evidence_capped: bool = False

    def outward(self) -> tuple[Any, ...]:
        """The fields the caller sees, as the reference returns them."""
        return (self.answer, self.truncated, self.error, self.citations, self.finished_at)


@attrs.frozen
class Ports:
    clock: Clock
    spawner: Spawner
    teardown: Teardown
    policy: Policy
    completion: Completion
    cancel: Cancel


def work_deadline(now: int, timeout_ms: int, delegation_timeout_ms: int) -> int:
    """The work deadline: the caller's timeout clamped to 1 ms..600 s, less a fixed 30 s headroom."""
    timeout = min(max(timeout_ms, TIMEOUT_MIN_MS), TIMEOUT_MAX_MS)
    return min(now + delegation_timeout_ms, max(now, now + timeout - HEADROOM_MS))


def answer_reserve(remaining: int, limits: NavigationLimits) -> int:
    # Seed 003: the reserve is min(30 s, remaining / 4) (else a short budget spends all of it waiting).
    return min(limits.reserve_ms, remaining // limits.reserve_divisor)


def parse_reply(text: Any) -> "tuple[str, bool, tuple[str, ...]] | None":
    """(answer, truncated, citations) of a JSON reply with a non-empty ``answer``, else None."""
    if not isinstance(text, str):
        return None
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        # Seed 003: a model's reply is untrusted text; one nested past the parser's depth must read as "no
        # answer" (insufficient evidence), not crash the request after the child was already torn down.
        return None
    if not isinstance(data, dict):
        return None
    answer = data.get("answer")
    if not isinstance(answer, str) or not answer.strip():
        return None
    citations = data.get("citations") or []
    if not isinstance(citations, list):
        citations = []
    return answer, data.get("truncated") is True, tuple(str(item) for item in citations)


def navigate(request: Request, ports: Ports, limits: NavigationLimits = NavigationLimits()) -> Outcome:
    """Run one delegated question with the navigation budget."""
    clock = ports.clock
    start = clock.now()
    work = work_deadline(start, request.timeout_ms, request.delegation_timeout_ms)
    if work <= start:
        return Outcome(None, True, "timeout", (), clock.now())
    reserve = answer_reserve(work - start, limits)
    retrieval = work - reserve
    # Seed 003: the child's grant and model endpoint are the caller's, unchanged.
    child = ports.spawner.spawn(request.question, request.grant)
    observer = Observer(limits)
    stop = None
    while stop is None:
        # Seed 003: observe in bounded slices (else nothing sees the child loop until the work deadline).
        snapshot = child.poll(min(clock.now() + limits.slice_ms, retrieval))
        reached = observer.read(snapshot)
        if child.finished():
            return _child_reply(request, ports, child, observer, reserve)
        if reached is not None:
            stop = reached
        elif ports.cancel.cancelled():
            stop = CANCELLED
        # Seed 003: the retrieval deadline leaves the reserve for teardown and one answer.
        elif clock.now() >= retrieval:
            stop = DEADLINE
    return _finish(request, ports, child, observer, stop, work, reserve)


def _child_reply(request: Request, ports: Ports, child: Any, observer: Observer, reserve: int) -> Outcome:
    """The earlier path for a child that answered: its JSON answer as it is, teardown best effort."""
    last = None
    for message in reversed(observer.unique):
        if message.role == "assistant":
            last = message.text
            break
    actions: tuple[Callable[[], object], ...] = (lambda: ports.teardown.delete(child), lambda: ports.teardown.revoke(request.grant))
    for action in actions:
        try:
            action()
        except Exception:  # the reference path keeps the reference's best-effort teardown
            pass
    parsed = parse_reply(last)
    common: dict[str, Any] = dict(finished_at=ports.clock.now(), tool_calls=observer.tool_calls, no_progress=observer.streak,
                  evidence_chars=observer.evidence_chars, reserve=reserve, results=tuple(observer.results),
                  evidence_capped=observer.evidence_capped)
    if parsed is None:
        return Outcome(None, True, "no answer", (), **common)
    answer, truncated, citations = parsed
    return Outcome(answer, truncated, None, citations, **common)


def _finish(request: Request, ports: Ports, child: Any, observer: Observer, stop: str, work: int,
            reserve: int) -> Outcome:
    clock = ports.clock

    def end(answer: "str | None", error: "str | None", citations: tuple[str, ...] = (), dropped: tuple[str, ...] = (),
            insufficient: bool = False) -> Outcome:
        # Seed 003: every synthesized or partial result is truncated: true (else partial coverage looks complete).
        return Outcome(answer, True, error, citations, clock.now(), stop, observer.tool_calls, observer.streak,
                       observer.evidence_chars, dropped, insufficient, reserve, tuple(observer.results),
                       observer.evidence_capped)

    # Seed 003: await deletion and revocation before the answer (else a live child races the synthesis).
    try:
        ports.teardown.delete(child)
        ports.teardown.revoke(request.grant)
    except Exception:
        # Seed 003: a cleanup failure prevents synthesis (else an orphaned child keeps its grant while we answer).
        return end(None, "cleanup_failed")
    # Seed 003: synthesis runs under the original cancellation signal (else a cancelled caller still pays a call).
    if ports.cancel.cancelled():
        return end(None, CANCELLED)
    # Seed 003: no usable evidence is said explicitly (else the model invents an answer from nothing).
    if not observer.evidence:
        return end(None, INSUFFICIENT, insufficient=True)
    # Seed 003: the original work deadline bounds the answer (else synthesis overruns the caller).
    if clock.now() >= work:
        return end(None, "timeout")
    model = request.grant.model
    # Seed 003: the synthesis policy is checked on its own and its rejection is final (else another model or child).
    if not ports.policy.allows(model, "navigation-answer"):
        return end(None, "policy_rejected")
    # Seed 003: no tools, the original work deadline, the caller's output budget, and no thinking when
    # enableSummaryThinking is false (else the answer pass navigates again, overruns, or reasons unasked).
    call = SynthesisCall(
        model=model, prompt=observer.prompt(request.question), evidence_chars=observer.evidence_chars,
        tools=(), deadline=work, thinking=request.summary_thinking, output_tokens=request.output_tokens,
    )
    try:
        text = ports.completion.complete(call, ports.cancel)
    except Exception:
        return end(None, "synthesis_failed")
    parsed = parse_reply(text)
    if parsed is None:
        return end(None, INSUFFICIENT, insufficient=True)
    answer, _claimed, citations = parsed
    # Seed 003: citations must lie in the selected bucket (else the answer cites sources it was never given).
    kept = tuple(item for item in citations if item in request.bucket)
    dropped = tuple(item for item in citations if item not in request.bucket)
    return end(answer, None, kept, dropped)
