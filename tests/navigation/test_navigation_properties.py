"""The navigation subject's drivers: deterministic, every invariant exercised, and able to catch planted bugs."""

from __future__ import annotations

import pytest
from hypothesis import settings
from hypothesis.stateful import run_state_machine_as_test

import guard.navigation as production
from guard.navigation_evidence import Observer
from properties.catalogue import Tally
from properties.navigation import drivers as bulk
from properties.navigation.subject import SUBJECT, run_navigation
from properties.subject import DriverRequest, load


def _bulk(seed: int, traces: int) -> Tally:
    tally = Tally()
    failure = bulk.run_bulk(seed, traces, tally)
    assert failure is None, failure
    return tally


def test_the_subject_is_registered_with_n1_to_n11() -> None:
    subject = load("navigation")
    assert subject is SUBJECT
    assert subject.ids == tuple(f"N{number}" for number in range(1, 12))
    assert all(invariant.subject == "navigation" and invariant.statement for invariant in subject.catalogue)


def test_bulk_is_deterministic_for_a_seed() -> None:
    first, second = _bulk(11, 300), _bulk(11, 300)
    assert first.exercised == second.exercised and first.coverage == second.coverage


def test_bulk_exercises_every_invariant_and_coverage_name() -> None:
    tally = _bulk(0, 1_500)
    assert [invariant_id for invariant_id in SUBJECT.ids if tally.status(invariant_id) != "held"] == []
    assert [name for name in SUBJECT.coverage_minimums if tally.coverage[name] == 0] == []


def test_the_standalone_state_machine_passes_on_the_real_code() -> None:
    run_state_machine_as_test(SUBJECT.state_machine(), settings=settings(max_examples=15, deadline=None,
                                                                            database=None, derandomize=True))


def _verdict(mode: str = "mutants") -> list:
    results = run_navigation(DriverRequest(seed=0, mode=mode, profile="mutants", stop_at_first=True))
    return [result.failure[1].invariant for result in results if result.failure is not None]


@pytest.mark.parametrize(
    ("target", "attribute", "replacement", "invariant"),
    [
        # A larger reserve moves the retrieval deadline too: N1 (deadline slice) may speak first.
        (production, "answer_reserve", lambda remaining, limits: min(30_000, remaining // 3), {"N1", "N3"}),
        (Observer, "keep", lambda self, source, text: (self.evidence.append((source, text)),
                                                       setattr(self, "evidence_chars", self.evidence_chars + len(text))),
         {"N2"}),
    ],
)
def test_the_drivers_catch_a_planted_bug(monkeypatch, target, attribute, replacement, invariant) -> None:
    monkeypatch.setattr(target, attribute, replacement)
    found = _verdict()
    assert found and found[0] in invariant, found


def test_the_state_machine_alone_catches_a_planted_bug(monkeypatch) -> None:
    monkeypatch.setattr(production, "answer_reserve", lambda remaining, limits: limits.reserve_ms)
    tally = Tally()
    from properties.navigation.stateful import run_stateful

    result = run_stateful(0, "mutants", tally, examples=60, shrink=False)
    assert result.failure is not None and result.failure[1].invariant in ("N1", "N3")
