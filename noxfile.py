"""The one entry point. Reviewers: ``nox -s properties``, ``nox -s mutants`` and ``nox -s review -- BASE``; CI: ``nox -s tests``.

Sessions install pinned dependencies from ``pyproject.toml`` into their own
virtualenvs (uv when available). The project itself is not installed: code is
imported from the checkout, so that mutmut's ``mutants/`` copy is what runs
under mutation and nothing in site-packages can shadow it.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tomllib
from pathlib import Path

import nox

nox.options.default_venv_backend = "uv|virtualenv"
nox.options.reuse_existing_virtualenvs = True
nox.options.sessions = ["properties"]
# uv installs without compiling bytecode, and where PYTHONDONTWRITEBYTECODE is set (as on the machines here) Python
# then compiles numpy, Hypothesis and attrs afresh at every start: a short run (one subject's state machine) took
# 4.3 s wall with site-packages uncompiled and 2.8 s compiled (2026-12-03). Compiled once at install instead (pip
# compiles on its own).
os.environ.setdefault("UV_COMPILE_BYTECODE", "1")

ROOT = Path(__file__).parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
RUNTIME = PROJECT["dependencies"]
TEST = PROJECT["optional-dependencies"]["test"]
MUTANTS = PROJECT["optional-dependencies"]["mutants"]
FUZZ = PROJECT["optional-dependencies"]["fuzz"]
FIGURES = PROJECT["optional-dependencies"]["figures"]
LINT = PROJECT["optional-dependencies"]["lint"]
ENV = {"PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "0"}
#: Stryker's report viewer for reports/mutants.html (npm); mutations/report.py checks the installed version against its own pin.
VIEWER_PACKAGE, VIEWER_VERSION = "mutation-testing-elements", "3.9.0"
VIEWER_VARIABLE = "MUTATION_TESTING_ELEMENTS"


#: The interpreters the fuzz session prefers, first found wins: HypoFuzz collects coverage through
#: ``sys.monitoring`` from 3.12 on (``properties.hypofuzz_fixes.MonitoringCoverage``), where 3.11 can only trace
#: every line. 3.12 first: it is the one the README's figures were measured on.
FUZZ_VERSIONS = ("3.12", "3.13")


def _runs(path: str) -> bool:
    try:
        return subprocess.run([path, "-c", "pass"], capture_output=True, timeout=20).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def _fuzz_python() -> "str | None":
    """A CPython of ``FUZZ_VERSIONS`` on this machine (on the path, else pyenv's), or None: nox's own then.

    pyenv's shims name every installed version but run only the selected ones, so each candidate is tried."""
    root = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    for version in FUZZ_VERSIONS:
        found = shutil.which(f"python{version}")
        candidates = ([found] if found else []) + sorted(glob.glob(f"{root}/versions/{version}.*/bin/python{version}"), reverse=True)
        for path in candidates:
            if _runs(path):
                return path
    return None


FUZZ_PYTHON = _fuzz_python()


def _fuzz_interpreter(session: nox.Session) -> dict[str, str]:
    """A virtualenv on ``FUZZ_PYTHON`` with the fuzz dependencies, for the tests that run a fuzz worker under it
    (``tests/fuzz/test_fuzz_feedback.py``); the env that names its interpreter. None found: nothing to name."""
    if FUZZ_PYTHON is None:
        return {}
    where = ROOT / ".nox" / "fuzz-interpreter"
    python = where / "bin" / "python"
    if not python.is_file():
        session.run("uv", "venv", "--quiet", "--python", FUZZ_PYTHON, str(where), external=True)
    session.run("uv", "pip", "install", "--quiet", "--python", str(python), *RUNTIME, *TEST, *FUZZ, external=True)
    return {"GUARD_FUZZ_PYTHON": str(python)}


def _install(session: nox.Session, *groups: list[str]) -> None:
    session.install(*(requirement for group in groups for requirement in group))


def _viewer(session: nox.Session) -> dict[str, str]:
    """Stryker's report viewer, pinned, from the npm registry into nox's cache (once); the env that names it."""
    prefix = Path(session.cache_dir) / f"{VIEWER_PACKAGE}-{VIEWER_VERSION}"
    bundle = prefix / "node_modules" / VIEWER_PACKAGE / "dist" / "mutation-test-elements.js"
    if not bundle.is_file():
        session.run("npm", "install", "--no-save", "--no-audit", "--no-fund", "--no-package-lock", "--ignore-scripts",
                    "--prefix", str(prefix), f"{VIEWER_PACKAGE}@{VIEWER_VERSION}", external=True)
    return {VIEWER_VARIABLE: str(bundle)}


@nox.session
def tests(session: nox.Session) -> None:
    """Unit, table, replay and real-program tests (what CI runs)."""
    # mutmut too: the report's tests read mutants through mutmut's own diff code, as `nox -s mutants` does; and
    # the lint group: tests/core/test_import_contracts.py runs import-linter on a copy of the packages.
    _install(session, RUNTIME, TEST, FUZZ, MUTANTS, FIGURES, LINT)
    session.run("pytest", *session.posargs, env={**ENV, **_viewer(session), **_fuzz_interpreter(session)})


@nox.session
def properties(session: nox.Session) -> None:
    """Every invariant, every driver: the verdict a reviewer reads before merging.

    ``-- --database URL`` instead replays the failures a fuzz fleet stored there (properties/database.py)."""
    # redis: for `--database redis://...`.
    _install(session, RUNTIME, FIGURES, [requirement for requirement in FUZZ if requirement.startswith("redis")])
    session.run("python", "-m", "properties", *session.posargs, env=ENV)


@nox.session
def replay(session: nox.Session) -> None:
    """Reference and production side by side, call by call, for the recorded sessions or ``-- FILE``; a file the
    review saved is then also shown BASE beside HEAD (properties/review/replay.py)."""
    _install(session, RUNTIME)
    session.run("python", "-m", "properties.review.replay", *session.posargs, env=ENV)


@nox.session(name="pin-regression")
def pin_regression(session: nox.Session) -> None:
    """Pin a counterexample as a regression: ``nox -s pin-regression -- counterexamples/FILE.json``."""
    _install(session, RUNTIME)
    session.run("python", "-m", "properties.regressions", "pin", *session.posargs, env=ENV)


@nox.session
def bench(session: nox.Session) -> None:
    """Throughput of every driver and the classifier, as medians of several runs; figures in reports/bench/; the
    review of a one-function change beside one default run (``--review-repeats``)."""
    # The test and mutation groups too: the review row runs `python -m properties.review`, mutmut included.
    _install(session, RUNTIME, FIGURES, TEST, MUTANTS)
    session.run("python", "-m", "properties.bench", *session.posargs, env=ENV)


@nox.session
def margins(session: nox.Session) -> None:
    """Each coverage count's lowest over many seeds against its minimum: ``nox -s margins -- --seeds 200-224``
    (``--subject``, ``--profile``; properties/seed_margins.py). A minimum must hold on every seed CI may draw."""
    # The verdict it runs per seed writes its coverage figure too (matplotlib).
    _install(session, RUNTIME, FIGURES)
    session.run("python", "-m", "properties.seed_margins", *session.posargs, env=ENV)


@nox.session
def mutants(session: nox.Session) -> None:
    """mutmut over guard/ plus the rule catalogue and the red check; ``-- --verdict-alone``: mutmut's mutants judged
    by the property verdict alone (a seeded sample of 300, ``--all`` for every mutant; mutations/verdict_alone.py)."""
    _install(session, RUNTIME, TEST, MUTANTS)
    session.run("python", "-m", "mutations", *session.posargs, env={**ENV, **_viewer(session)})


@nox.session(python=FUZZ_PYTHON)
def fuzz(session: nox.Session) -> None:
    """HypoFuzz over every subject's state machine for ``--seconds N`` (default 180); ``--workers N``,
    ``--redis URL`` (a shared database) or ``--database DIR``, ``--dashboard`` (``--port P``), ``--coverage``;
    see properties/fuzz.py. On Python 3.12+ where one is found (``FUZZ_PYTHON``), else on nox's own."""
    _install(session, RUNTIME, TEST, FUZZ)
    session.run("python", "-m", "properties.fuzz", *session.posargs, env=ENV)


@nox.session
def review(session: nox.Session) -> None:
    """What a change does to the promises: ``nox -s review -- BASE`` (default: the merge base with the upstream,
    else HEAD~1); writes reports/review.md, review.json and review-mutants.json (properties/review/)."""
    # redis: for `--database redis://...` (the fleet's stored failures replayed at HEAD).
    _install(session, RUNTIME, TEST, MUTANTS, [requirement for requirement in FUZZ if requirement.startswith("redis")])
    session.run("python", "-m", "properties.review", *session.posargs, env=ENV)


@nox.session(name="adopt-reference")
def adopt_reference(session: nox.Session) -> None:
    """Deliberately adopt the edited reference/ as the new oracle and re-pin it."""
    _install(session, RUNTIME)
    session.run("python", "-m", "properties.pin", "--adopt", *session.posargs, env=ENV)


@nox.session
def lint(session: nox.Session) -> None:
    """The architecture checked: import-linter's contracts (``[tool.importlinter]``), ruff and mypy, each pinned."""
    # The runtime and test dependencies too: mypy follows imports into attrs, hypothesis, pytest and the rest.
    _install(session, RUNTIME, TEST, LINT)
    # No cache: a graph cached before a package gained its __init__.py misses that package (seen with grimp 3.20).
    session.run("lint-imports", "--no-cache", env=ENV)
    session.run("ruff", "check", ".", env=ENV)
    session.run("mypy", env=ENV)
