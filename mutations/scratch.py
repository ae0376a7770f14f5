"""Scratch copies of the project, so that no mutation ever touches the working tree."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import attrs

from properties.paths import shared_dir

#: Never copied: mutmut's workspace, virtualenvs, VCS data, outputs and caches.
_SKIP = {"mutants", ".git", ".nox", "reports", "counterexamples", "__pycache__", ".hypothesis", ".pytest_cache",
         "build", ".venv", "venv"}

#: pytest options for every run on a scratch copy: fastest tests first, killers recorded, the report test left out.
PYTEST_ARGS = ("-p", "no:cacheprovider", "-q", "-p", "mutations.pytest_plugin", "--ignore=tests/core/test_mutations_report.py",
               "--ignore=tests/core/test_catalogue_cache.py", "--ignore=tests/core/test_warm.py",
               "--ignore=tests/core/test_left_out.py", "--ignore=tests/core/test_runaways.py",
               "--ignore=tests/core/test_progress_terminal.py", "--ignore=tests/core/test_figures_browser.py",
               "--ignore=tests/core/test_review.py", "--ignore=tests/core/test_review_scenarios.py",
               "--ignore=tests/core/test_content_cache.py",
               "--ignore=tests/core/test_red_check_earlier.py", "--ignore=tests/core/test_import_contracts.py",
               "--ignore=tests/core/test_readme_layout.py")



def _ignore(folder: str, names: list[str]) -> set[str]:
    return {name for name in names if name in _SKIP or name.endswith((".egg-info", ".pyc"))}


def make(root: Path, parent: Path) -> Path:
    """Copy the project to ``parent/main`` with ``parent/shared`` pointing at the real shared folder."""
    copy = parent / "main"
    shutil.copytree(root, copy, ignore=_ignore, symlinks=True)
    shared = parent / "shared"
    if not shared.exists():
        shared.symlink_to(shared_dir().resolve(), target_is_directory=True)
    return copy


def environment(copy: Path, label: str, killers: Path | None, durations: Path | None) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PYTEST_", "HYPOTHESIS_"))}
    env["PYTHONPATH"] = str(copy)
    env["PYTHONHASHSEED"] = "0"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["GUARD_SHARED"] = str(copy.parent / "shared")
    # The deterministic Hypothesis profile is chosen by the presence of this variable (properties/profiles.py).
    env["MUTANT_UNDER_TEST"] = label
    env.pop("MUTATIONS_KILLERS_FILE", None)
    if killers is not None:
        env["MUTATIONS_KILLERS_FILE"] = str(killers)
    if durations is not None and durations.is_file():
        env["MUTATIONS_DURATIONS"] = str(durations)
    return env


@attrs.frozen
class Outcome:
    """One suite's run on a scratch copy."""

    exit_code: int | None  # None: timed out
    killer: str | None  # first failing test id or violated invariant id
    output_tail: str
    seconds: float
    failures: tuple[str, ...] = ()
    #: A property driver that crashed (``CRASHED`` line), "" when none did: its own outcome, never a kill.
    crashed: str = ""


def tail(text: str, lines: int = 12) -> str:
    return "\n".join(text.rstrip().splitlines()[-lines:])


def read_failures(killers: Path) -> list[str]:
    """The failing test ids ``mutations.pytest_plugin`` recorded in ``killers``, first failure first, each once."""
    failures: list[str] = []
    if killers.is_file():
        for line in killers.read_text(encoding="utf-8", errors="replace").splitlines():
            nodeid = line.partition("\t")[2]
            if nodeid and nodeid not in failures:
                failures.append(nodeid)
    return failures


def run_pytest(copy: Path, label: str, durations: Path | None, stop_at_first: bool, timeout: float,
               extra: tuple[str, ...] = (), priority: list[str] | None = None) -> Outcome:
    import time

    killers = copy.parent / "pytest-failures.tsv"
    killers.unlink(missing_ok=True)
    command = [sys.executable, "-m", "pytest", *PYTEST_ARGS, *(("-x",) if stop_at_first else ()), *extra]
    env = environment(copy, label, killers, durations)
    if priority:
        first = copy.parent / "priority-tests.txt"
        first.write_text("".join(f"{test}\n" for test in priority), encoding="utf-8")
        env["MUTATIONS_PRIORITY"] = str(first)
    started = time.monotonic()
    try:
        done = subprocess.run(command, cwd=copy, env=env, capture_output=True,
                              text=True, errors="replace", timeout=timeout)
        code: int | None = done.returncode
        output = done.stdout + done.stderr
    except subprocess.TimeoutExpired as expired:
        code = None
        output = (expired.stdout or b"").decode("utf-8", "replace") if isinstance(expired.stdout, bytes) else (expired.stdout or "")
    seconds = time.monotonic() - started
    failures = read_failures(killers)
    killer = failures[0] if failures else None
    if killer is None and code not in (0, None):
        killer = f"pytest exit {code}"
    return Outcome(exit_code=code, killer=killer, output_tail=tail(output), seconds=seconds, failures=tuple(failures))


DEADLINE_MARK = " [deadline]"
#: A deadline kill is re-run alone with a deadline this many times larger (and at least CONFIRM_FLOOR seconds).
CONFIRM_FACTOR = 200.0
CONFIRM_FLOOR = 60.0


def confirm_deadline(copy: Path, label: str, outcome: Outcome, durations: Path | None, timeout: float) -> Outcome:
    """``outcome`` unless its first failure was the per-test deadline (issue 22). Then that test runs again alone
    with a deadline ``CONFIRM_FACTOR`` times larger: past it again, the kill stands as a confirmed timeout
    (``... [deadline, confirmed]``); failing otherwise, that failure is the killer; passing, the suite passed (a
    slow but correct mutant is a survivor on a loaded machine as on a quiet one)."""
    if not (outcome.killer or "").endswith(DEADLINE_MARK):
        return outcome
    test = (outcome.killer or "").removesuffix(DEADLINE_MARK)
    killers = copy.parent / "confirm-failures.tsv"
    killers.unlink(missing_ok=True)
    env = environment(copy, label, killers, durations)
    env.update(MUTATIONS_DEADLINE_FACTOR=str(CONFIRM_FACTOR), MUTATIONS_MIN_DEADLINE=str(CONFIRM_FLOOR))
    try:
        done = subprocess.run([sys.executable, "-m", "pytest", *PYTEST_ARGS, test], cwd=copy, env=env,
                              capture_output=True, text=True, errors="replace", timeout=timeout)
        code: int | None = done.returncode
    except subprocess.TimeoutExpired:
        code = None
    failures = read_failures(killers)
    if code == 0:
        return Outcome(exit_code=0, killer=None, output_tail=f"{test} passed alone with a {CONFIRM_FACTOR:.0f}x deadline",
                       seconds=outcome.seconds)
    first = failures[0] if failures else f"{test}{DEADLINE_MARK}"
    killer = first.removesuffix(DEADLINE_MARK) + " [deadline, confirmed]" if first.endswith(DEADLINE_MARK) or code is None else first
    return Outcome(exit_code=1, killer=killer, output_tail=outcome.output_tail, seconds=outcome.seconds,
                   failures=(killer,))


def run_properties(copy: Path, label: str, seed: int, timeout: float, first: str | None = None) -> Outcome:
    """``python -m properties --mutants --seed N [--first SUBJECT]`` on the copy; the killer is the first invariant
    it names as violated."""
    import time

    command = [sys.executable, "-m", "properties", "--mutants", "--seed", str(seed), *(("--first", first) if first else ())]
    started = time.monotonic()
    try:
        done = subprocess.run(command, cwd=copy, env=environment(copy, label, None, None), capture_output=True,
                              text=True, errors="replace", timeout=timeout)
        code: int | None = done.returncode
        output = done.stdout + "\n" + done.stderr
    except subprocess.TimeoutExpired as expired:
        code = None
        output = (expired.stdout or b"").decode("utf-8", "replace") if isinstance(expired.stdout, bytes) else (expired.stdout or "")
    seconds = time.monotonic() - started
    return Outcome(exit_code=code, killer=violated_invariant(output) if code not in (0, None) else None,
                   output_tail=tail(output), seconds=seconds, crashed=crash(output) if code not in (0, None) else "")


#: The one line of ``python -m properties`` that names a broken invariant (issue 22: a "FAIL ... vacuous" line, a
#: crash or any other line mentioning an id is never read as a kill).
VIOLATED_LINE = re.compile(r"^VIOLATED ([BHLN]\d{1,2})\b", re.M)
CRASHED_LINE = re.compile(r"^CRASHED (.+)$", re.M)


def violated_invariant(output: str) -> str | None:
    """The invariant of the first ``VIOLATED <id>`` line, else None."""
    found = VIOLATED_LINE.search(output)
    return found.group(1) if found else None


def crash(output: str) -> str:
    """The first ``CRASHED ...`` line's text (a driver that raised or died), else ""."""
    found = CRASHED_LINE.search(output)
    return found.group(1)[:300] if found else ""


def properties_missing(outcome: Outcome) -> bool:
    return outcome.exit_code not in (0, None) and (
        "No module named properties.__main__" in outcome.output_tail
        or "'properties' is a package and cannot be directly executed" in outcome.output_tail
    )
