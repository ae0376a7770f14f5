"""Counted bounds on the code under test (issue 25): the instrumented loops, the fakes' allowance, the runaways."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import guard.budget
from guard.limits import Limits
from guard.navigation_limits import NavigationLimits
from properties import work_bound
from properties.budget.copies import new_copies
from properties.budget.events import Result
from properties.budget.monitor import new_monitor as budget_monitor
from properties.catalogue import Tally
from properties.navigation.generate import Builder
from properties.navigation.scenario import Allowance, run

ROOT = Path(__file__).resolve().parents[2]


def test_every_guard_and_reference_module_counts_its_loops() -> None:
    # In a fresh interpreter, as every entry point starts: this process's imports depend on the test runner.
    program = ("import properties, guard.budget, guard.hooks, guard.lookup, guard.navigation, reference.budget, "
               "reference.navigation\nfrom properties import work_bound\n"
               "print(work_bound.uncounted_modules(), guard.budget.__work_tick__ is work_bound.tick)")
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=ROOT)
    assert done.stdout.split() == ["[]", "True"], done.stderr[-2000:]


def test_a_bound_raises_past_its_count_and_stays_exceeded() -> None:
    with work_bound.armed(5, "five iterations"):
        for _ in range(5):
            work_bound.tick()
        with pytest.raises(work_bound.WorkBoundExceeded, match="five iterations did not end within its bound of 5"):
            work_bound.tick()
        # A raise swallowed by the code under test is raised again at its next iteration.
        with pytest.raises(work_bound.WorkBoundExceeded):
            work_bound.tick()


def test_the_bound_is_not_an_exception_the_guard_could_swallow() -> None:
    assert not issubclass(work_bound.WorkBoundExceeded, Exception)


def test_an_instrumented_while_loop_is_stopped_by_its_count() -> None:
    namespace = {work_bound.TICK_NAME: work_bound.tick}
    exec(work_bound.compile_counted("def spin():\n    while True:\n        pass\n", "<planted>"), namespace)
    with work_bound.armed(1_000, "a planted loop"), pytest.raises(work_bound.WorkBoundExceeded, match="1,000"):
        namespace["spin"]()


def test_line_numbers_survive_instrumenting() -> None:
    code = work_bound.compile_counted("x = 0\nfor i in range(3):\n    x += i\nraise ValueError(x)\n", "<lines>")
    namespace = {work_bound.TICK_NAME: work_bound.tick}
    with pytest.raises(ValueError) as raised:
        exec(code, namespace)
    assert raised.traceback[-1].lineno == 3  # pytest numbers lines from 0: the fourth line, the raise


def test_the_allowance_follows_the_work_deadline_and_the_slice() -> None:
    scenario = Builder().scenario(timeout_ms=150_000, delegation_timeout_ms=120_000)
    allowance = Allowance.of(scenario)
    # 120 s of work in 5 s slices: 24 slices and the one ending on the deadline, twice, plus 8.
    assert (allowance.work_ms, allowance.slice_ms, allowance.polls) == (120_000, 5_000, 2 * 25 + 8)
    assert Allowance.of(scenario, NavigationLimits(slice_ms=60_000)).polls == 2 * 3 + 8


def test_production_and_the_reference_end_well_inside_their_allowance() -> None:
    scenario = Builder().scenario(timeout_ms=150_000, delegation_timeout_ms=120_000)
    for version in ("reference", "production"):
        played = run(scenario, version)
        assert not played.ran_away
        assert len(played.record.polls) <= Allowance.of(scenario).polls // 2


def test_the_deadline_fires_when_a_slice_ends_exactly_on_it() -> None:
    # 120 s of work, a 30 s reserve: the retrieval deadline is 90 s, and 5 s slices end exactly on it.
    played = run(Builder().scenario(timeout_ms=150_000, delegation_timeout_ms=120_000), "production")
    assert not played.ran_away, played.outcome
    assert played.outcome.stop == "deadline"
    assert played.record.polls[-1][2] == 90_000


def test_a_budget_step_that_loops_is_b6_at_that_step(monkeypatch: pytest.MonkeyPatch) -> None:
    tally = Tally()
    monitor = budget_monitor(tally, limits=Limits(), budgets=new_copies(Limits()))
    original = guard.budget.RunProgressBudget.observe_result

    def looping(self, call_id, *args, **kwargs):  # type: ignore[no-untyped-def]
        if call_id == "b":
            for _ in iter(int, 1):  # never ends; the counted loop below is what the bound sees
                work_bound.tick()
        return original(self, call_id, *args, **kwargs)

    monkeypatch.setattr(guard.budget.RunProgressBudget, "observe_result", looping)
    assert monitor.step(Result("a", "exec", {}, failed=True)) == []
    found = monitor.step(Result("b", "inspect", {}, failed=True, correctable=True))
    assert [violation.invariant for violation in found] == ["B6"]
    assert found[0].step == 1 and "did not end within its bound of 100,000" in found[0].message
    # The trace is judged no further: its copies stopped half-way through a step.
    assert monitor.step(Result("c", "read", {}, failed=False)) == []
    assert tally.steps == 2


def test_the_fakes_turn_a_loop_that_never_reaches_its_deadline_into_a_runaway(monkeypatch: pytest.MonkeyPatch) -> None:
    from guard import navigation

    # The planted bug of issue 25: the deadline cannot fire when a slice ends exactly on it.
    source = navigation.__spec__.loader.get_source(navigation.__name__)
    planted = source.replace("elif clock.now() >= retrieval:", "elif clock.now() > retrieval:")
    assert planted != source
    namespace = dict(vars(navigation))
    exec(work_bound.compile_counted(planted, navigation.__file__), namespace)
    monkeypatch.setattr(navigation, "navigate", namespace["navigate"])
    played = run(Builder().scenario(timeout_ms=150_000, delegation_timeout_ms=120_000), "production")
    assert played.ran_away
    assert "59 polls, more than its work time (120,000 ms in slices of 5,000 ms) allows" in played.outcome.detail
    assert len(played.record.polls) == 58  # the 59th poll raised before it was recorded: memory stays bounded
    assert sys.getsizeof(played.record.polls) < 10_000


def test_a_monitor_step_restores_the_bound_armed_around_it() -> None:
    with work_bound.armed(1_000_000, "the caller's bound"):
        monitor = budget_monitor(Tally(), limits=Limits(), budgets=new_copies(Limits()))
        monitor.step(Result("a", "exec", {}, failed=True))
        # The step armed 100,000 of its own, then gave the caller's bound back, minus nothing of it.
        assert work_bound.used() == 0
        with pytest.raises(work_bound.WorkBoundExceeded, match="the caller's bound"):
            for _ in range(1_000_001):
                work_bound.tick()


def test_a_crash_is_named_by_what_it_stands_for() -> None:
    """Both crash reports (the verdict's driver line, the replay's one line) name an exhausted step ``MemoryError``,
    the error it replaced, and any other exception by its own name."""
    assert work_bound.crash_name(work_bound.exhausted(MemoryError())) == "MemoryError"
    assert work_bound.crash_name(RecursionError("deep")) == "RecursionError"
    assert work_bound.crash_name(ValueError()) == "ValueError"
