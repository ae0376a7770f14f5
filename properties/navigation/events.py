"""Navigation's one event: a scenario (one delegated request) as plain JSON-able data.

A scenario is the request, the child's messages with the time each becomes
visible (the same id may be listed twice: a duplicated snapshot), how
teardown, the policy and the completion behave, and when the caller cancels.
``properties.navigation.scenario`` plays it on fakes; its file format is
``properties.navigation.trace_file``.
"""

from __future__ import annotations

import attrs

from guard.navigation_ports import Grant, Message, Request

#: The event's name in files and in ``SUBJECT.events``.
EVENT_NAMES = {"scenario": "scenario"}


@attrs.frozen
class Timed:
    at: int
    message: Message


@attrs.frozen
class Scenario:
    name: str
    timeout_ms: int
    delegation_timeout_ms: int
    messages: tuple[Timed, ...]
    bucket: tuple[str, ...] = ()
    grant_tokens: int = 4_000
    model: str = "expansion-model"
    summary_thinking: bool = False
    output_tokens: int = 1_500
    delete_fails: bool = False
    revoke_fails: bool = False
    teardown_ms: int = 200
    policy_rejects: bool = False
    completion_ms: int = 2_000
    #: The synthesis model's reply text (JSON with ``answer`` and ``citations``).
    completion_reply: str = '{"answer": "partial answer", "citations": []}'
    cancel_at: "int | None" = None
    note: str = ""
    #: The fake clock's reading when the request is made (every other time here is on the same clock): the
    #: spec's deadlines count from "now", which a clock that always starts at 0 could not tell from 0.
    start_ms: int = 0
    #: Scaled-down navigation limits, as (``guard.navigation_limits.NavigationLimits`` field, value) pairs; empty:
    #: the seed's own. Production runs under them and the invariants judge by the spec's numbers scaled the same
    #: way (``properties.navigation.spec_rules.spec_of``): the exhaustive model's scopes, kept in its saved files.
    limits: tuple[tuple[str, int], ...] = ()

    def request(self) -> Request:
        grant = Grant(id=f"grant-{self.name}", source_tokens=self.grant_tokens, model=self.model)
        return Request(question=f"question of {self.name}", timeout_ms=self.timeout_ms,
                       delegation_timeout_ms=self.delegation_timeout_ms, grant=grant, bucket=frozenset(self.bucket),
                       output_tokens=self.output_tokens, summary_thinking=self.summary_thinking)

    def final_at(self) -> "int | None":
        """When the child gives its final reply (an assistant message without tool calls), or None."""
        for timed in self.messages:
            if timed.message.role == "assistant" and timed.message.tool_calls == 0:
                return timed.at
        return None
