"""Counterexample files: one per counterexample, named from driver, worker, invariant, steps and content."""

from __future__ import annotations

import re
from pathlib import Path

import properties.budget.copies
from guard.budget import RunProgressBudget
from properties.budget.copies import SPEC_LIMITS
from properties.budget.events import Result, Round
from properties.catalogue import Violation
from properties.budget.counterexample import counterexample_trace, record, save_counterexample, step_table
from properties.budget.trace_file import load_trace

EVENTS = [Round(), Result(call_id="c1", tool="exec", failed=True, lane=7)]
VIOLATION = Violation("B11", 1, "planted for the test", "free empty lookups are bounded and inert")


def test_two_workers_never_share_a_file(tmp_path: Path) -> None:
    first = save_counterexample("bulk", EVENTS, SPEC_LIMITS, VIOLATION, tmp_path, worker="A")
    second = save_counterexample("bulk", EVENTS, SPEC_LIMITS, VIOLATION, tmp_path, worker="B")
    assert first != second and first.is_file() and second.is_file()
    assert re.fullmatch(r"bulk-A-B11-2steps-[0-9a-f]{8}\.json", first.name), first.name
    # Same content, same hash: only the worker differs.
    assert first.name.split("-")[-1] == second.name.split("-")[-1]


def test_other_content_gets_another_name(tmp_path: Path) -> None:
    first = save_counterexample("bulk", EVENTS, SPEC_LIMITS, VIOLATION, tmp_path)
    other = save_counterexample("bulk", [Round(), Result(call_id="c2", tool="exec", failed=True)], SPEC_LIMITS,
                                VIOLATION, tmp_path)
    again = save_counterexample("bulk", EVENTS, SPEC_LIMITS, VIOLATION, tmp_path)
    assert first != other and first == again
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted({first.name, other.name})


def test_the_file_names_invariant_step_and_origin(tmp_path: Path) -> None:
    path = save_counterexample("stateful", EVENTS, SPEC_LIMITS, VIOLATION, tmp_path, note="seed 5")
    trace = load_trace(path)
    assert (trace.invariant, trace.step, trace.origin) == ("B11", 1, "stateful, seed 5")
    assert trace.events == tuple(EVENTS) and trace.limits == SPEC_LIMITS
    assert trace.name == path.stem == counterexample_trace("stateful", EVENTS, SPEC_LIMITS, VIOLATION).name


def test_step_table_counts_from_zero() -> None:
    rows = step_table(EVENTS, SPEC_LIMITS).splitlines()[2:]
    assert [row.split()[0] for row in rows] == ["0", "1"]


def test_a_trace_that_breaks_nothing_is_saved_with_a_note_saying_so(tmp_path: Path) -> None:
    # budget.md: one round and one failure outside any lane break nothing on the correct budgets, so the
    # planted B11 violation does not replay; the file must say so rather than pass for a counterexample.
    saved = record("explorer", EVENTS, SPEC_LIMITS, VIOLATION, tmp_path)
    trace = load_trace(saved.path)
    assert trace.origin == "explorer, does not reproduce on a fresh monitor"
    assert trace.events == tuple(EVENTS)


class CountsNoFailure(RunProgressBudget):
    """Seed 001 broken: production forgets failures, so it differs from the reference at once (B1)."""

    def observe_result(self, call_id, tool, params, failed, *args, **kwargs):
        if not failed:
            super().observe_result(call_id, tool, params, failed, *args, **kwargs)


def test_a_trace_that_breaks_the_invariant_is_saved_shrunk_without_a_note(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(properties.budget.copies, "RunProgressBudget", CountsNoFailure)
    # invariants.md B1: a copy given no flags equals the reference, which counts the failure; the round breaks nothing.
    saved = record("explorer", EVENTS, SPEC_LIMITS, Violation("B1", 1, "planted", "omitted flags change nothing"), tmp_path)
    trace = load_trace(saved.path)
    assert trace.origin == "explorer"
    assert trace.events == (EVENTS[1],) and trace.invariant == "B1" and trace.step == 0
