"""Navigation scenarios replayed through the reference and production, side by side, slice by slice.

``python -m properties.navigation.replay [FILE ...]`` prints the stored
fixtures (or the named ``navigation-scenario/1`` files); ``nox -s replay``
prints them after the budget sessions. Production's slices are recounted by
the spec (``properties.navigation.invariants.judge``), so the calls, streak
and evidence shown are what the invariants judged, with production's
stop reason and outcome beside them. Production polls with its default
5 s slices here, as the fixtures' hand counts assume.
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from typing import Any, Sequence

from properties.catalogue import Tally, Violation
from properties.navigation.invariants import Step
from properties.navigation.monitor import new_monitor
from properties.navigation.events import Scenario
from properties.navigation.trace_file import SCHEMA, ScenarioError, load_saved
from properties.safe_json import carries_schema

WIDTH = 52


def _cut(text: str, width: int = WIDTH) -> str:
    return text if len(text) <= width else text[: width - 1] + "~"


def _seconds(ms: int) -> str:
    return f"{ms / 1000:7.1f} s"


def _result(outcome: Any) -> str:
    if outcome.answer is not None:
        kind = "truncated answer" if outcome.truncated else "answer"
        return f"{kind}, {len(outcome.answer):,} chars, {len(outcome.citations)} citations"
    if getattr(outcome, "insufficient", False):
        return "insufficient evidence (explicit), truncated"
    return f"{outcome.error}: no answer" + (", truncated" if outcome.truncated else "")


def rows(step: Step) -> list[tuple[str, str, str]]:
    """(time, production, reference) rows of one judged scenario."""
    prod, ref = step.production, step.reference
    out = [(_seconds(0), "spawn the child", "spawn the child")]
    for number, view in enumerate(step.polls):
        text = f"{view.tool_calls} calls, streak {view.streak}, {view.progress_chars:,} chars read"
        if number == len(step.polls) - 1 and prod.outcome.stop:
            text = text.replace(" chars read", " read") + f" > STOP {prod.outcome.stop}"
        elif view.finished:
            text += " > child replied"
        out.append((_seconds(view.returned), text, "(waiting; not observing)"))
    for what, at, ok in prod.record.teardown:
        out.append((_seconds(at), f"{what} {'ok' if ok else 'FAILED'}", ""))
    for call, at, *_ in prod.record.completions:
        out.append((_seconds(at), f"one synthesis: no tools, {call.evidence_chars:,} evidence chars", ""))
    for _called, _until, returned in ref.record.polls:
        out.append((_seconds(returned), "", "the wait ends" + (" (child replied)" if ref.outcome.answer else "")))
    for what, at, ok in ref.record.teardown:
        out.append((_seconds(at), "", f"{what} {'ok' if ok else 'failed (ignored)'}"))
    out.append((_seconds(prod.outcome.finished_at), _result(prod.outcome), ""))
    out.append((_seconds(ref.outcome.finished_at), "", _result(ref.outcome)))
    # Stable: at equal times, the order in which each side did things.
    out.sort(key=lambda row: float(row[0].split()[0]))
    return out


def results_lines(results: Sequence[tuple[str, str, str]]) -> list[str]:
    """How many results of each class production read, and what told the empty ones apart (one line each; none
    when it read no result)."""
    if not results:
        return []
    classes = Counter(kind for _id, kind, _detail in results)
    details = Counter(detail for _id, kind, detail in results if kind == "empty")
    lines = ["   results read: " + ", ".join(f"{classes[kind]} {kind}" for kind in sorted(classes))]
    if details:
        lines.append("   the empty ones: " + ", ".join(f"{details[detail]} {detail}" for detail in sorted(details)))
    return [_cut(line, 100) for line in lines]


def render(scenario: Scenario) -> str:
    return judged_text(scenario)[0]


def judged_text(scenario: Scenario) -> tuple[str, list[Violation]]:
    """The side-by-side table of one scenario and every invariant it breaks (each named on a ``BROKEN`` line)."""
    monitor = new_monitor(Tally())
    violations = monitor.step(scenario)
    broken = [f"BROKEN {violation.invariant}: {violation.message}" for violation in violations]
    step = monitor.last
    assert step is not None
    heading = (f"** navigation: {scenario.name} (work {step.work / 1000:g} s, reserve {step.reserve / 1000:g} s, "
               f"retrieval deadline {step.retrieval / 1000:g} s)")
    if step.production.ran_away:
        runaway = step.production.outcome
        lines = [_cut(heading, 100), f"   production read {len(step.polls):,} slices and did not end: {runaway.detail}",
                 f"   its last slices (called, until, returned, in ms): {step.production.record.polls[-3:]}"]
        return "\n".join(lines + broken), violations
    prod = step.production.outcome
    lines = [_cut(heading, 100), f"{'time':>9} | {'production':<{WIDTH}} | reference"]
    lines += [f"{time:>9} | {_cut(left):<{WIDTH}} | {_cut(right, 33)}".rstrip() for time, left, right in rows(step)]
    lines.append(f"   production ended: {prod.stop or 'child reply'} with {prod.tool_calls} tool calls, "
                 f"streak {prod.no_progress}, {prod.evidence_chars:,} evidence chars kept"
                 + (" (cut)" if prod.evidence_capped else ""))
    lines += results_lines(prod.results)
    if prod.dropped_citations:
        lines.append(_cut(f"   citations outside the bucket, dropped: {', '.join(prod.dropped_citations)}", 100))
    return "\n".join(lines + broken), violations


def pin(source: Path, folder: Path, invariant: "str | None") -> tuple[Path, tuple[str, ...]]:
    """Copy a scenario file into ``folder`` (``python -m properties.regressions pin FILE``); the new path and the
    invariants that break on the current code. The copy names the invariant it once broke (its ``invariant``
    field); the scenario is kept as saved, its name too (the request's question is made from it)."""
    from properties.navigation.trace_file import dumps
    from properties.pinning import invariant_to_pin, write_pinned

    scenario, saved = load_saved(source)
    chosen = invariant_to_pin(source, saved, invariant, "N4", ScenarioError)
    target = write_pinned(folder, scenario.name, dumps(scenario, chosen), ScenarioError)
    return target, tuple(f"{found.invariant} (at step {found.step})" for found in _judged(scenario))


def check_pinned(path: Path) -> tuple[str, bool]:
    """Re-judge one pinned scenario with every navigation invariant: (one line, whether it holds). A version that
    raises on it breaks it too (as in the replay)."""
    from properties.pinning import judged_line, pinned_as

    scenario, saved = load_saved(path)
    try:
        broken = _judged(scenario)
    except Exception as error:  # noqa: BLE001 - a crash of either version is a finding, reported in one line
        return (f"BROKEN {path.name}: replaying raised {type(error).__name__}: {str(error)[:200]} "
                f"({pinned_as(saved)})"), False
    return judged_line(path, saved, broken, f"{len(scenario.messages)} messages")


def _judged(scenario: Scenario) -> list[Violation]:
    return list(new_monitor(Tally()).step(scenario))


def is_scenario_file(path: "str | Path") -> bool:
    """Whether ``path`` holds a navigation scenario (so the replay CLI can hand it here)."""
    return carries_schema(path, SCHEMA)


def main(files: Sequence[str] = ()) -> int:
    try:
        if files:
            saved = [load_saved(Path(name)) for name in files]
        else:
            from properties.navigation.fixtures import load_all

            saved = [(scenario, "") for scenario in load_all()]
    except ScenarioError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    failed = False
    for index, (scenario, invariant) in enumerate(saved):
        try:
            text, violations = judged_text(scenario)
            if invariant:
                text += f"\n   saved for {invariant}: " + ("it breaks again" if any(
                    violation.invariant == invariant for violation in violations) else "it holds now")
            failed = failed or bool(violations)
        except Exception as error:  # noqa: BLE001 - a crash of either version is a finding, reported in one line
            # A valid file can still crash a version: the frozen reference parses the child's reply with a bare
            # json.loads, so a reply nested past the parser's depth raises there (the earlier behaviour, kept as
            # it was). Say which scenario and what was raised, and exit 1, rather than print a traceback.
            print(f"error: {scenario.name}: replaying raised {type(error).__name__}: {str(error)[:200]}", file=sys.stderr)
            failed = True
            continue
        print(("\n\n" if index else "") + text)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
