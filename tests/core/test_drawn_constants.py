"""Hypothesis draws constants from the code under test only, and the pool never moves (``properties.drawn_constants``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from hypothesis.internal.conjecture import providers

from properties import drawn_constants

ROOT = Path(__file__).resolve().parents[2]

# Runs the hook machine's driver, imports harness modules it had not imported (the figures, the report, the
# review), and runs it again: before the pin, the second run drew other examples.
SCRIPT = """
import importlib, sys
import properties
from properties.subject import DriverRequest
from properties.hooks.drivers import run_stateful_driver

def once():
    result = run_stateful_driver(DriverRequest(seed=21, mode="quick", profile="dev"))
    return result.tally.steps, result.tally.traces

first = once()
for name in ("properties.figures", "properties.report", "properties.review.render", "properties.budget.explorer"):
    importlib.import_module(name)
print(first, once())
"""


def test_the_pool_is_the_code_under_tests_and_does_not_grow_with_imports() -> None:
    before = providers._get_local_constants()
    assert before is drawn_constants.pool()
    import properties.figures  # noqa: F401  (a harness module with literals of its own)

    after = providers._get_local_constants()
    assert after is before and list(after.strings) == list(drawn_constants.pool().strings)
    # The figures' SVG salt is a harness literal: never drawn.
    assert "guard-harness" not in after.strings
    # The guard's own literals are: a tool name the inspection classifier compares with, read from its source.
    source = (ROOT / "guard" / "inspection.py").read_text(encoding="utf-8")
    tool = next(value for value in after.strings if f'"{value}"' in source and len(value) > 3)
    assert tool


def test_a_seed_draws_the_same_examples_whatever_the_process_imported_before() -> None:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PYTEST_", "HYPOTHESIS_"))}
    env.update(PYTHONPATH=str(ROOT))
    runs = []
    for hash_seed in ("0", "1"):
        done = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, env={**env, "PYTHONHASHSEED": hash_seed},
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-2000:]
        first, second = done.stdout.strip().rsplit(") (", 1)
        assert first + ")" == "(" + second, done.stdout
        runs.append(done.stdout)
    # And string hashing does not reorder the pool: the same examples under another PYTHONHASHSEED.
    assert runs[0] == runs[1]
