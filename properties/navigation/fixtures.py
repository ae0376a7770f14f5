"""The three synthetic traces of navigation.md, built deterministically from seed 003's numbers.

``python -m properties.navigation.fixtures`` (re)writes them as JSON under
``properties/navigation/fixtures/``; ``load_all`` reads them back. Each is a
scenario: the child's messages on a clock, and what teardown, the policy and
the completion do. Times in ms; turns are 2 s apart and each result arrives
10 ms after its turn, so with 5 s polling slices the figures below can be
worked out by hand.

* ``seed003-trace-71``: 71 assistant tool-use turns, no final answer; 19
  expansion calls of which 10 returned zero tokens, the other 9 retaining 84
  tokens of a 4,000-token grant; the other calls are describe/grep results
  with content. No three results in a row lack progress, so the tool-call
  bound fires: the 24th call (48 s) is read in the slice (45 s, 50 s], which
  also carries the 25th (50 s): ``tool_calls`` with 25 calls.
* ``seed003-trace-87``: 87 tool-use turns, no final answer; 45 expansion
  calls, 41 returning zero tokens (the 4 others retain 126 tokens), starting
  with zero-token expansions: the third no-progress result (6.01 s) is read in
  the slice (5 s, 10 s], which also carries the fourth (8.01 s) and the 5th
  call (10 s): ``no_progress`` with 5 calls, no evidence, so an explicit
  insufficient-evidence result.
* ``seed003-production-archive``: 20 tool-use turns, no JSON answer, 22
  model-issued tool calls (turns 19 and 20 issue two each), the last four
  results without progress (the slice ending at 40 s reads two, the one ending
  at 45 s the other two: ``no_progress`` with the streak at 4), 37,813
  characters of progress evidence of which seven source messages make 4,813
  (kept: exactly 32,000). The synthesis reply cites two sources of the
  selected bucket and one outside it (dropped and reported); with 0.2 s per
  teardown action and a 6,954 ms completion it ends at 52,354 ms, the seed's
  52.354 s.

Timeout 150 s and delegation timeout 150 s for all three (the seed's parent
and tool limits): work deadline 120 s, reserve 30 s, retrieval deadline 90 s.
The reference waits to 120 s and times out with no answer.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from guard.navigation_ports import Message
from properties.navigation.events import Scenario, Timed
from properties.navigation.trace_file import ScenarioError, load, save

FOLDER = Path(__file__).parent / "fixtures"
NAMES = ("seed003-trace-71", "seed003-trace-87", "seed003-production-archive")
GAP = 2_000
COMMON: dict[str, Any] = dict(timeout_ms=150_000, delegation_timeout_ms=150_000, grant_tokens=4_000, model="expansion-model",
              summary_thinking=False, teardown_ms=200)


def _turns(results: list[list[Message]], name: str) -> tuple[Timed, ...]:
    """Turn k (from 1) at k * 2 s issuing one call per result, each result 10 ms after the one before."""
    timed = []
    for number, batch in enumerate(results, 1):
        at = number * GAP
        timed.append(Timed(at, Message(f"{name}-a{number}", "assistant", "", tool_calls=len(batch))))
        timed.extend(Timed(at + 10 * (index + 1), message) for index, message in enumerate(batch))
    return tuple(timed)


def _result(ident: str, tool: str, text: str, tokens: "int | None", source: str = "", manifest: bool = False) -> Message:
    return Message(ident, "tool", text, source_tokens=tokens, manifest=manifest, source=source, tool=tool)


def _expansion(ident: str, tokens: int, source: str) -> Message:
    if tokens == 0:
        return _result(ident, "expand", f"subtree {ident}: children c1 c2 c3 (0 tokens)", 0, manifest=True)
    return _result(ident, "expand", f"{ident} {source}: " + "s" * (tokens * 4), tokens, source)


def _other(ident: str, tool: str) -> Message:
    return _result(ident, tool, f"{tool} {ident}: " + "d" * 60, None)


def trace_71() -> Scenario:
    name = "seed003-trace-71"
    # Expansions on even turns 2..38: the first ten zero tokens, then nine retaining 84 tokens in all.
    retained = [9, 9, 9, 9, 9, 9, 10, 10, 10]
    batches = []
    for turn in range(1, 72):
        ident = f"{name}-r{turn}"
        if turn % 2 == 0 and turn <= 38:
            index = turn // 2 - 1
            tokens = 0 if index < 10 else retained[index - 10]
            batches.append([_expansion(ident, tokens, f"s{1 + index % 5}")])
        else:
            batches.append([_other(ident, "describe" if turn % 4 == 1 else "grep")])
    return Scenario(name=name, messages=_turns(batches, name), bucket=("s1", "s2", "s3", "s4", "s5"),
                    completion_reply=json.dumps({"answer": "partial: what the retained expansions say",
                                                 "citations": ["s2", "s3"]}), **COMMON,
                    note="71 tool-use turns, 19 expansions (10 zero-token, 84 tokens retained), no answer")


def trace_87() -> Scenario:
    name = "seed003-trace-87"
    # 45 expansions on turns 1..45; the four on turns 10, 20, 30, 40 retain 126 tokens; then 42 grep calls.
    retained = {10: 30, 20: 31, 30: 32, 40: 33}
    batches = []
    for turn in range(1, 88):
        ident = f"{name}-r{turn}"
        if turn <= 45:
            batches.append([_expansion(ident, retained.get(turn, 0), f"s{1 + turn % 5}")])
        else:
            batches.append([_other(ident, "grep")])
    return Scenario(name=name, messages=_turns(batches, name), bucket=("s1", "s2", "s3", "s4", "s5"), **COMMON,
                    note="87 tool-use turns, 45 expansions (41 zero-token, 126 tokens retained), no answer")


#: Seven source messages, 4,813 characters in all (the seed's production validation).
SOURCE_LENGTHS = (700, 690, 680, 700, 683, 680, 680)


def production_archive() -> Scenario:
    name = "seed003-production-archive"
    sources = iter(range(7))
    batches = []
    for turn in range(1, 19):
        ident = f"{name}-r{turn}"
        if turn % 3 == 1 or turn in (2, 5):  # turns 1, 2, 4, 5, 7, 10, 13, 16: eight candidates, seven sources
            number = next(sources, None)
            if number is not None:
                text = (f"m{number + 1}|" + "m" * SOURCE_LENGTHS[number])[: SOURCE_LENGTHS[number]]
                batches.append([_result(ident, "expand", text, len(text) // 4, f"m{number + 1}")])
                continue
        text = (f"{ident}|" + "x" * 3_000)[:3_000]
        batches.append([_result(ident, "describe", text, None)])
    repeated = batches[2][0].text
    batches.append([_result(f"{name}-r19a", "describe", repeated, None),
                    _result(f"{name}-r19b", "expand", "", 0)])
    batches.append([_result(f"{name}-r20a", "expand", "expansion returned 0 tokens", 0),
                    _result(f"{name}-r20b", "expand", "subtree: c1 c2 (0 tokens)", 0, manifest=True)])
    answer = ("Partial answer from seven visible source messages. " * 60)[:2_272]
    return Scenario(name=name, messages=_turns(batches, name), bucket=tuple(f"m{n}" for n in range(1, 8)),
                    completion_ms=6_954,
                    completion_reply=json.dumps({"answer": answer, "citations": ["m2", "m5", "elsewhere-9"]}),
                    **COMMON, note="20 tool-use turns, 22 tool calls, last four results without progress, "
                                   "evidence past 32,000 characters, seven source messages of 4,813 characters")


BUILDERS = {"seed003-trace-71": trace_71, "seed003-trace-87": trace_87, "seed003-production-archive": production_archive}


def path_of(name: str) -> Path:
    return FOLDER / f"{name}.json"


def load_all() -> list[Scenario]:
    """The stored fixtures, read back from JSON (a missing or malformed one raises ``ScenarioError``)."""
    return [load(path_of(name)) for name in NAMES]


def main(argv: "list[str] | None" = None) -> int:
    FOLDER.mkdir(parents=True, exist_ok=True)
    for name, build in BUILDERS.items():
        save(build(), path_of(name))
        print(f"wrote {path_of(name)}")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except ScenarioError as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)
