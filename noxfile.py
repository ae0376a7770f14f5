"""The one entry point. Reviewers: ``nox -s properties`` and ``nox -s mutants``; CI: ``nox -s tests``.

Sessions install pinned dependencies from ``pyproject.toml`` into their own
virtualenvs (uv when available). The project itself is not installed: code is
imported from the checkout, so that mutmut's ``mutants/`` copy is what runs
under mutation and nothing in site-packages can shadow it.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import nox

nox.options.default_venv_backend = "uv|virtualenv"
nox.options.reuse_existing_virtualenvs = True
nox.options.sessions = ["properties"]

ROOT = Path(__file__).parent
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
RUNTIME = PROJECT["dependencies"]
TEST = PROJECT["optional-dependencies"]["test"]
MUTANTS = PROJECT["optional-dependencies"]["mutants"]
ENV = {"PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "0"}


def _install(session: nox.Session, *groups: list[str]) -> None:
    session.install(*(requirement for group in groups for requirement in group))


@nox.session
def tests(session: nox.Session) -> None:
    """Unit, table, replay and real-program tests (what CI runs)."""
    _install(session, RUNTIME, TEST)
    session.run("pytest", *session.posargs, env=ENV)


@nox.session
def properties(session: nox.Session) -> None:
    """Every invariant, every driver: the verdict a reviewer reads before merging."""
    _install(session, RUNTIME)
    session.run("python", "-m", "properties", *session.posargs, env=ENV)


@nox.session
def replay(session: nox.Session) -> None:
    """Reference and production side by side, call by call, for the recorded sessions or ``-- FILE``."""
    _install(session, RUNTIME)
    session.run("python", "-m", "properties.replay", *session.posargs, env=ENV)


@nox.session(name="pin-regression")
def pin_regression(session: nox.Session) -> None:
    """Pin a counterexample as a regression: ``nox -s pin-regression -- counterexamples/FILE.json``."""
    _install(session, RUNTIME)
    session.run("python", "-m", "properties.regressions", "pin", *session.posargs, env=ENV)


@nox.session
def bench(session: nox.Session) -> None:
    """Throughput of every driver and the classifier, as medians of several runs."""
    _install(session, RUNTIME)
    session.run("python", "-m", "properties.bench", *session.posargs, env=ENV)


@nox.session
def mutants(session: nox.Session) -> None:
    """mutmut over guard/ plus the rule catalogue and the red check."""
    _install(session, RUNTIME, TEST, MUTANTS)
    session.run("python", "-m", "mutations", *session.posargs, env=ENV)


@nox.session(name="adopt-reference")
def adopt_reference(session: nox.Session) -> None:
    """Deliberately adopt the edited reference/ as the new oracle and re-pin it."""
    _install(session, RUNTIME)
    session.run("python", "-m", "properties.pin", "--adopt", *session.posargs, env=ENV)
