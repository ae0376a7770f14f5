"""Planted runaways end the verdict with a named invariant, a replayable counterexample and no traceback (issue 25).

Each test plants a change in a scratch copy of the project (``mutations.scratch``) and runs the verdict there as
a reviewer would, in a fresh interpreter: a polling loop whose deadline cannot fire, a budget step that loops, a
hook that records without bound (the catalogue's own entries, so ``nox -s mutants`` judges the same plants), a
worker killed by a signal, and one that exhausts its memory limit.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from mutations import catalogue, scratch
from mutations.entry import Edit, Entry

ROOT = Path(__file__).resolve().parents[2]
ENTRIES = {entry.id: entry for entry in catalogue.entries()}


def _copy(tmp_path: Path, entry: "str | None" = None, edit: "tuple[str, str, str] | None" = None) -> Path:
    copy = scratch.make(ROOT, tmp_path)
    if entry is not None:
        ENTRIES[entry].apply_to(copy)
    if edit is not None:
        file, find, replace = edit
        text = (copy / file).read_text(encoding="utf-8")
        assert text.count(find) == 1, find
        (copy / file).write_text(text.replace(find, replace), encoding="utf-8")
    return copy


def _run(copy: Path, *arguments: str, timeout: float = 240) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PYTEST_", "HYPOTHESIS_"))}
    env.pop("MUTANT_UNDER_TEST", None)
    env.update(PYTHONPATH=str(copy), PYTHONHASHSEED="0", PYTHONDONTWRITEBYTECODE="1")
    return subprocess.run([sys.executable, "-m", *arguments], cwd=copy, env=env, capture_output=True, text=True,
                          timeout=timeout)


def _saved(output: str) -> list[str]:
    return re.findall(r"saved: (counterexamples/\S+\.json)", output)


def _no_traceback(done: subprocess.CompletedProcess) -> None:
    assert "Traceback" not in done.stdout + done.stderr, (done.stdout + done.stderr)[-3000:]


def test_a_deadline_that_cannot_fire_is_n1_with_a_scenario_that_replays(tmp_path: Path) -> None:
    copy = _copy(tmp_path, "nav-deadline-never-fires")
    done = _run(copy, "properties", "--subject", "navigation", "--seed", "7")
    _no_traceback(done)
    assert done.returncode == 1
    assert re.search(r"^VIOLATED N1 \(navigation (bulk|stateful)", done.stdout, re.M), done.stdout[-3000:]
    assert "did not end within its bound" in done.stdout
    files = _saved(done.stdout)
    assert files
    replayed = _run(copy, "properties.replay", files[0], timeout=60)
    _no_traceback(replayed)
    assert replayed.returncode == 1
    assert "BROKEN N1: production navigation did not end within its bound" in replayed.stdout


def test_a_budget_step_that_loops_is_b6_with_a_trace_that_replays(tmp_path: Path) -> None:
    copy = _copy(tmp_path, "budget-wait-loops-for-rescue")
    done = _run(copy, "properties", "--mutants", "--subject", "budget")
    _no_traceback(done)
    assert done.returncode == 1
    assert re.search(r"^VIOLATED B6 .*did not end within its bound of 100,000", done.stdout, re.M), done.stdout[-3000:]
    files = _saved(done.stdout)
    assert files
    replayed = _run(copy, "properties.replay", files[0], timeout=60)
    _no_traceback(replayed)
    assert replayed.returncode == 1
    assert re.search(r"^BROKEN B6 .*did not end within its bound", replayed.stdout, re.M), replayed.stdout[-2000:]


def test_a_hook_that_records_without_bound_is_h3_with_a_sequence_that_replays(tmp_path: Path) -> None:
    copy = _copy(tmp_path, "hooks-record-without-bound")
    done = _run(copy, "properties", "--mutants", "--subject", "hooks")
    _no_traceback(done)
    assert done.returncode == 1
    assert re.search(r"^VIOLATED H3 .*did not end within its bound", done.stdout, re.M), done.stdout[-3000:]
    files = _saved(done.stdout) or re.findall(r"(counterexamples/hooks\S+\.json)", done.stdout)
    assert files, done.stdout[-2000:]
    replayed = _run(copy, "properties.replay", "--hooks", files[0], timeout=60)
    _no_traceback(replayed)
    assert replayed.returncode == 1
    assert "H3" in replayed.stdout and "did not end within its bound" in replayed.stdout


def test_a_worker_killed_by_a_signal_is_one_line_and_the_other_drivers_still_report(tmp_path: Path) -> None:
    copy = _copy(tmp_path, edit=("guard/navigation.py", "    clock = ports.clock\n    start = clock.now()\n",
                                 "    clock = ports.clock\n    import os, signal\n    os.kill(os.getpid(), signal.SIGKILL)\n"
                                 "    start = clock.now()\n"))
    done = _run(copy, "properties", "--quick", "--seed", "1", "--subject", "navigation,hooks")
    _no_traceback(done)
    assert done.returncode == 1
    died = [line for line in done.stdout.splitlines() if line.startswith("CRASHED navigation")]
    assert died, done.stdout[-3000:]
    assert all("worker died while running seed 1: the worker was killed by SIGKILL" in line for line in died)
    assert any("while running navigation scenario" in line for line in died)
    # The hook path's drivers ran in the same pool and are reported as usual.
    assert re.search(r"^  hooks bulk A: [\d,]+ steps", done.stdout, re.M)
    assert re.search(r"^hooks: [\d,]+ sequences checked", done.stdout, re.M)


def test_a_worker_past_its_memory_limit_is_a_crash_of_its_driver_not_the_kernels_business(tmp_path: Path) -> None:
    # 64 MiB of address space per iteration: the worker's limit (an equal share of 80% of memory) ends it in
    # about a hundred iterations, far inside the loop bound, and the pages are never touched.
    copy = _copy(tmp_path, edit=("guard/navigation.py", "    clock = ports.clock\n    start = clock.now()\n",
                                 "    clock = ports.clock\n    hoard = []\n    while True:\n"
                                 "        hoard.append(bytearray(1 << 26))\n    start = clock.now()\n"))
    done = _run(copy, "properties", "--quick", "--seed", "1", "--subject", "navigation")
    _no_traceback(done)
    assert done.returncode == 1
    crashed = [line for line in done.stdout.splitlines() if line.startswith("CRASHED navigation")]
    # Every navigation driver that met the hoard names the cause and the scenario it was running; the state
    # machine too: the exhausted memory is released and the crash is not replayed as a failing example (which
    # made its report a flaky-data error or a worker that died before reporting; ``work_bound.ResourceExhausted``).
    assert crashed and all("MemoryError" in line for line in crashed), done.stdout[-3000:]
    assert all("while running navigation scenario" in line for line in crashed), done.stdout[-3000:]
    assert any(line.startswith("CRASHED navigation bulk") for line in crashed), done.stdout[-3000:]
    assert any(line.startswith("CRASHED navigation stateful") for line in crashed), done.stdout[-3000:]
    assert not re.search(r"^VIOLATED", done.stdout, re.M)


CRASH = ("guard/navigation_evidence.py",
         '        """Take in the new messages of one slice; the first bound they reached, in message order, or None."""\n',
         '        """Take in the new messages of one slice; the first bound they reached, in message order, or None."""\n'
         '        raise RuntimeError("planted crash")\n')


def test_a_crash_is_its_own_outcome_never_an_invariant_nor_vacuity(tmp_path: Path) -> None:
    # Issue 22: the verdict names the crash and its driver; nothing is violated or vacuous because of it.
    copy = _copy(tmp_path, edit=CRASH)
    done = _run(copy, "properties", "--mutants", "--seed", "3", "--subject", "navigation")
    _no_traceback(done)
    assert done.returncode == 1
    crashed = [line for line in done.stdout.splitlines() if line.startswith("CRASHED ")]
    assert crashed and crashed[0].startswith("CRASHED navigation "), done.stdout[-3000:]
    assert "RuntimeError: planted crash" in crashed[0] and "navigation_evidence.py" in crashed[0]
    assert not re.search(r"^VIOLATED|vacuous", done.stdout, re.M), done.stdout[-3000:]
    assert "not judged (a driver crashed)" in done.stdout
    assert scratch.violated_invariant(done.stdout) is None
    assert scratch.crash(done.stdout).startswith("navigation ")


def test_the_catalogue_reports_a_crash_as_a_crash_not_a_kill(tmp_path: Path) -> None:
    from mutations import catalogue_runner

    copy = _copy(tmp_path, edit=CRASH)
    properties = scratch.run_properties(copy, "catalogue:planted-crash", 3, 600, first="navigation")
    entry = Entry(id="planted-crash", seed="003", rule="a planted crash", file=CRASH[0],
                  level="navigation", edits=(Edit(CRASH[1], CRASH[2]),), breaks=("N1",))
    tests = scratch.Outcome(exit_code=1, killer="tests/navigation/x.py::test", output_tail="", seconds=0.0,
                            failures=("tests/navigation/x.py::test",))
    status, detail = catalogue_runner.judge(entry, properties, tests)
    assert status == catalogue_runner.CRASHED
    assert "RuntimeError: planted crash" in detail


def test_a_slow_but_correct_mutant_is_a_survivor_whatever_the_load(tmp_path: Path) -> None:
    """Issue 22: the per-test deadline (20x the unmutated time, at least 3 s) fails a slow but correct mutant; the
    kill counts only if the test runs past a 200x deadline (at least 60 s) alone, so a sleep of 4 s, which a
    loaded machine stretches but never past a minute, survives on a quiet machine and a loaded one alike."""
    import json

    sleepy = ('    ) -> None:\n        """Account one tool receipt."""\n',
              '    ) -> None:\n        """Account one tool receipt."""\n        import time\n        time.sleep(4)\n')
    copy = _copy(tmp_path, edit=("guard/budget.py", *sleepy))
    test = "tests/budget/test_budget_basics.py::test_four_consecutive_failures_stop[production]"
    durations = tmp_path / "durations.json"
    durations.write_text(json.dumps({"duration_by_test": {test: 0.001}}), encoding="utf-8")
    first = scratch.run_pytest(copy, "catalogue:slow-but-correct", durations, stop_at_first=True, timeout=300,
                               extra=(test,))
    assert first.killer == test + scratch.DEADLINE_MARK, first.output_tail
    confirmed = scratch.confirm_deadline(copy, "catalogue:slow-but-correct", first, durations, 300)
    assert confirmed.exit_code == 0 and confirmed.killer is None, confirmed.output_tail


#: ``failure_ends`` charging a lane counter of ``None`` (mutmut's ``failure_ends`` mutant 20): the bulk driver
#: finds B13, and replaying the trace with every probe on raises KeyError in the guard.
RAISES_ON_REPLAY = ("guard/budget.py",
                    "        counter = lane if lane is not None else GLOBAL\n        # A charge that would wait",
                    "        counter = None\n        # A charge that would wait")


def test_a_guard_that_raises_while_its_counterexample_is_replayed_still_fails_on_the_invariant(tmp_path: Path) -> None:
    copy = _copy(tmp_path, edit=RAISES_ON_REPLAY)
    done = _run(copy, "properties", "--mutants", "--subject", "budget", "--seed", "20261130")
    _no_traceback(done)
    assert done.returncode == 1
    assert re.search(r"^VIOLATED B13 \(budget ", done.stdout, re.M), done.stdout[-3000:]
    assert "not shrunk (replaying them raised KeyError: None (budget.py:" in done.stdout
    files = _saved(done.stdout)
    assert files
    replayed = _run(copy, "properties.replay", files[0], timeout=60)
    _no_traceback(replayed)
    assert replayed.returncode == 1
    assert re.fullmatch(rf"python -m properties.replay: replaying {re.escape(files[0])} raised KeyError: None "
                        r"\(budget\.py:\d+\)\n", replayed.stderr), replayed.stderr
