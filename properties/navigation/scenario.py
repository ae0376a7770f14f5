"""A navigation scenario (one delegated request) as data, the fakes that play it, and one run of either version.

A scenario is plain JSON-able data: the request, the child's messages with
the time each becomes visible (the same id may be listed twice: a duplicated
snapshot), how teardown, the policy and the completion behave, and when the
caller cancels. The fakes play it on a fake clock and record every call, so
the monitor judges what each version *did*, not what it says it did.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import attrs

from guard import navigation as production
from guard.navigation_ports import Grant, Message, Request, SynthesisCall
from reference import navigation as reference

MESSAGE_FIELDS = ("id", "role", "text", "tool_calls", "is_error", "source_tokens", "manifest", "source", "tool")


class ScenarioError(Exception):
    """A scenario file or record that cannot be read; the message names the file and field."""


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


# -- fakes -----------------------------------------------------------------


@attrs.define
class Record:
    """Every call the fakes saw, in order; times on the fake clock."""

    spawns: list = attrs.field(factory=list)  # (question, grant, at)
    polls: list = attrs.field(factory=list)  # (called_at, until, returned_at)
    teardown: list = attrs.field(factory=list)  # (what, at, ok)
    policy: list = attrs.field(factory=list)  # (model, purpose, at)
    completions: list = attrs.field(factory=list)  # (SynthesisCall, at, cancelled then, same signal)
    order: list = attrs.field(factory=list)  # call names in order


@attrs.define
class FakeClock:
    time: int = 0

    def now(self) -> int:
        return self.time

    def advance_to(self, when: int) -> None:
        self.time = max(self.time, when)


@attrs.define
class FakeCancel:
    clock: FakeClock
    at: "int | None"

    def cancelled(self) -> bool:
        return self.at is not None and self.clock.time >= self.at


@attrs.define
class FakeChild:
    id: str
    scenario: Scenario
    clock: FakeClock
    record: Record

    def poll(self, until: int) -> list[Message]:
        called = self.clock.time
        end = self.scenario.final_at()
        target = until if end is None or end < called else min(until, end)
        self.clock.advance_to(target)
        self.record.polls.append((called, until, self.clock.time))
        self.record.order.append("poll")
        return [timed.message for timed in self.scenario.messages if timed.at <= self.clock.time]

    def finished(self) -> bool:
        end = self.scenario.final_at()
        return end is not None and end <= self.clock.time


@attrs.define
class FakeSpawner:
    scenario: Scenario
    clock: FakeClock
    record: Record

    def spawn(self, question: str, grant: Grant) -> FakeChild:
        self.record.spawns.append((question, grant, self.clock.time))
        self.record.order.append("spawn")
        return FakeChild(f"child-{len(self.record.spawns)}", self.scenario, self.clock, self.record)


class CleanupFailed(Exception):
    pass


@attrs.define
class FakeTeardown:
    scenario: Scenario
    clock: FakeClock
    record: Record

    def _act(self, what: str, fails: bool) -> None:
        self.clock.advance_to(self.clock.time + self.scenario.teardown_ms)
        self.record.teardown.append((what, self.clock.time, not fails))
        self.record.order.append(what)
        if fails:
            raise CleanupFailed(what)

    def delete(self, child: Any) -> None:
        self._act("delete", self.scenario.delete_fails)

    def revoke(self, grant: Any) -> None:
        self._act("revoke", self.scenario.revoke_fails)


@attrs.define
class FakePolicy:
    scenario: Scenario
    clock: FakeClock
    record: Record

    def allows(self, model: str, purpose: str) -> bool:
        self.record.policy.append((model, purpose, self.clock.time))
        self.record.order.append("policy")
        return not self.scenario.policy_rejects


class CompletionFailed(Exception):
    pass


@attrs.define
class FakeCompletion:
    scenario: Scenario
    clock: FakeClock
    record: Record
    cancel: FakeCancel

    def complete(self, call: SynthesisCall, cancel: Any) -> str:
        self.record.completions.append((call, self.clock.time, cancel.cancelled(), cancel is self.cancel))
        self.record.order.append("complete")
        if cancel.cancelled():
            raise CompletionFailed("cancelled")
        done = self.clock.time + self.scenario.completion_ms
        if done > call.deadline:
            self.clock.advance_to(call.deadline)
            raise CompletionFailed("deadline")
        self.clock.advance_to(done)
        return self.scenario.completion_reply


@attrs.frozen
class Run:
    version: str
    outcome: Any
    record: Record


def run(scenario: Scenario, version: str, limits: Any = None) -> Run:
    """Play ``scenario`` against ``reference`` or ``production`` (with its default limits unless given) on fresh fakes."""
    clock = FakeClock()
    record = Record()
    cancel = FakeCancel(clock, scenario.cancel_at)
    spawner = FakeSpawner(scenario, clock, record)
    teardown = FakeTeardown(scenario, clock, record)
    request = scenario.request()
    if version == "reference":
        outcome = reference.navigate(request, clock, spawner, teardown)
    elif version == "production":
        ports = production.Ports(clock=clock, spawner=spawner, teardown=teardown,
                                 policy=FakePolicy(scenario, clock, record),
                                 completion=FakeCompletion(scenario, clock, record, cancel), cancel=cancel)
        outcome = production.navigate(request, ports) if limits is None else production.navigate(request, ports, limits)
    else:
        raise ValueError(f"unknown version {version!r}")
    return Run(version, outcome, record)


# -- files -----------------------------------------------------------------


def to_json(scenario: Scenario) -> dict[str, Any]:
    data = attrs.asdict(scenario, recurse=False)
    data["bucket"] = list(scenario.bucket)
    data["messages"] = [{"at": timed.at, **attrs.asdict(timed.message)} for timed in scenario.messages]
    return {"format": "navigation-scenario/1", **data}


_SCALARS = {field.name: field for field in attrs.fields(Scenario) if field.name not in ("messages", "bucket")}


def from_json(data: Any, where: str = "scenario") -> Scenario:
    """The scenario of ``data``; a ``ScenarioError`` naming ``where`` and the field when it is malformed."""
    if not isinstance(data, dict) or data.get("format") != "navigation-scenario/1":
        raise ScenarioError(f"{where}: format: expected 'navigation-scenario/1'")
    values: dict[str, Any] = {}
    for name, field in _SCALARS.items():
        if name in data:
            values[name] = data[name]
        elif field.default is attrs.NOTHING:
            raise ScenarioError(f"{where}: {name}: missing")
    for name in ("timeout_ms", "delegation_timeout_ms", "teardown_ms", "completion_ms", "grant_tokens", "output_tokens"):
        if name in values and (type(values[name]) is not int or values[name] < 0):
            raise ScenarioError(f"{where}: {name}: expected a non-negative integer, got {values[name]!r}")
    bucket = data.get("bucket", [])
    if not isinstance(bucket, list) or not all(isinstance(item, str) for item in bucket):
        raise ScenarioError(f"{where}: bucket: expected a list of strings")
    messages = data.get("messages")
    if not isinstance(messages, list):
        raise ScenarioError(f"{where}: messages: expected a list")
    timed = []
    for index, item in enumerate(messages):
        if not isinstance(item, dict) or type(item.get("at")) is not int:
            raise ScenarioError(f"{where}: messages[{index}].at: expected an integer time")
        try:
            message = Message(**{name: item[name] for name in MESSAGE_FIELDS if name in item})
        except TypeError as error:
            raise ScenarioError(f"{where}: messages[{index}]: {error}") from None
        if message.role not in ("assistant", "tool"):
            raise ScenarioError(f"{where}: messages[{index}].role: expected 'assistant' or 'tool'")
        timed.append(Timed(item["at"], message))
    return Scenario(messages=tuple(timed), bucket=tuple(bucket), **values)


def save(scenario: Scenario, path: Path) -> None:
    path.write_text(json.dumps(to_json(scenario), indent=1) + "\n", encoding="utf-8")


def load(path: Path) -> Scenario:
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as error:
        raise ScenarioError(f"{path}: cannot read ({error.strerror or error})") from None
    except ValueError as error:
        raise ScenarioError(f"{path}: not JSON ({error})") from None
    return from_json(data, str(path))
