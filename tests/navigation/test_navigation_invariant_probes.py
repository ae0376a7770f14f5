"""Each of N1-N10 can fail: a bug planted in production is caught by that invariant alone (``only=(id,)``).

Without these, an invariant that no mutation reaches might be a check that can never fail.
"""

from __future__ import annotations

import attrs
import pytest

import guard.navigation as production
from guard.navigation_evidence import Observer
from guard.navigation_limits import NavigationLimits
from properties.catalogue import Tally
from properties.navigation import drivers as bulk
from properties.probes import Probes

PROBED = Probes()

_navigate = production.navigate
_finish = production._finish
_parse = production.parse_reply
_call = production.SynthesisCall


def _wrap_outcome(change):
    def planted(request, ports, limits=NavigationLimits()):
        outcome = _navigate(request, ports, limits)
        return change(outcome) if outcome.stop is not None else outcome
    return planted


class _Swallow:
    def __init__(self, teardown):
        self.teardown = teardown

    def delete(self, child):
        try:
            self.teardown.delete(child)
        except Exception:
            pass

    def revoke(self, grant):
        try:
            self.teardown.revoke(grant)
        except Exception:
            pass


def _no_headroom(now, timeout_ms, delegation_timeout_ms):
    return min(now + delegation_timeout_ms, now + min(max(timeout_ms, 1), 600_000))


def _bound_of_30(request, ports, limits=None):
    """``navigate`` with a tool-call bound of 30 unless told otherwise.

    Planted by replacing the function, not its ``__defaults__``: under mutmut ``navigate`` is a trampoline whose
    defaults live in the original, so a defaults patch would plant nothing there.
    """
    return _navigate(request, ports, NavigationLimits(tool_calls=30) if limits is None else limits)


PLANTED = {
    # N2 (no evidence cap) is planted in the test itself.
    "N1": ("navigate", _bound_of_30),
    "N2": (None, None),
    "N3": ("answer_reserve", lambda remaining, limits: min(limits.reserve_ms, remaining // 3)),
    "N4": ("SynthesisCall", lambda **fields: _call(**{**fields, "tools": ("search",)})),
    "N5": ("navigate", _wrap_outcome(lambda outcome: attrs.evolve(outcome, truncated=False))),
    "N6": ("_finish", lambda request, ports, child, *rest: _finish(request, attrs.evolve(ports, teardown=_Swallow(ports.teardown)), child, *rest)),
    "N7": ("parse_reply", lambda text: (lambda parsed: parsed and (parsed[0], True, parsed[2]))(_parse(text))),
    "N8": ("work_deadline", _no_headroom),
    "N9": ("SynthesisCall", lambda **fields: _call(**{**fields, "output_tokens": fields["output_tokens"] * 2})),
    "N10": ("navigate", _wrap_outcome(lambda outcome: attrs.evolve(outcome, citations=outcome.citations + ("nowhere",))
                                      if outcome.answer else outcome)),
}


@PROBED(*PLANTED)
@pytest.mark.parametrize("invariant", sorted(PLANTED, key=lambda name: int(name[1:])))
def test_each_invariant_catches_its_planted_bug(monkeypatch, invariant) -> None:
    name, replacement = PLANTED[invariant]
    if invariant == "N2":
        monkeypatch.setattr(Observer, "keep", lambda self, source, text: (
            self.evidence.append((source, text)), setattr(self, "evidence_chars", self.evidence_chars + len(text))))
    else:
        monkeypatch.setattr(production, name, replacement)
    tally = Tally()
    failure = bulk.run_bulk(0, 1_500, tally, only=(invariant,), stop_at_first=True)
    assert failure is not None and failure[1].invariant == invariant
    assert {violation.invariant for violation in tally.violations} == {invariant}


def test_the_probe_scenarios_hold_on_the_real_guard() -> None:
    # The planted runs stop at their first failure, within these 1,500 scenarios; without a bug every one of
    # them holds and every invariant is exercised, so each probe's failure is its bug's and nothing else's.
    tally = Tally()
    assert bulk.run_bulk(0, 1_500, tally, only=tuple(PLANTED)) is None
    assert all(tally.exercised[invariant] > 0 for invariant in PLANTED), dict(tally.exercised)


# -- issue 24: what the drawn limits and N4's prompt checks reach ----------------------------------------------


def _first_violation(only: str, scenarios: int = 1_500):
    tally = Tally()
    failure = bulk.run_bulk(0, scenarios, tally, only=(only,), stop_at_first=True)
    return failure, tally


def test_n4_catches_a_prompt_that_does_not_restate_the_question(monkeypatch) -> None:
    # mutmut's ``_finish`` mutant 79 (``prompt(None)``) and ``prompt`` mutant 5 (the pieces replace the question).
    prompt = Observer.prompt
    monkeypatch.setattr(Observer, "prompt", lambda self, question: prompt(self, "something else"))
    failure, _tally = _first_violation("N4")
    assert failure is not None and failure[1].invariant == "N4"
    assert "does not restate the question" in failure[1].message


def test_n4_catches_evidence_handed_over_without_its_source(monkeypatch) -> None:
    # mutmut's ``prompt`` mutant 7 (``source and 'tool'``) and ``read`` mutant 27 (pieces kept with no source).
    keep = Observer.keep
    monkeypatch.setattr(Observer, "keep", lambda self, source, text: keep(self, None, text))
    failure, _tally = _first_violation("N4")
    assert failure is not None and failure[1].invariant == "N4"
    assert "without their source" in failure[1].message


@pytest.mark.parametrize(("prompt", "piece", "source", "named"), [
    ("Question: q\n\n[s1] t1:eee", "t1:eee", "s1", True),
    ("Question: q\n\n(from s1) t1:eee", "t1:eee", "s1", True),
    ("Question: q\n\n[tool] t1:eee", "t1:eee", "s1", False),
    # The source on another line does not name the piece.
    ("s1\n\nt1:eee", "t1:eee", "s1", False),
    # A short piece inside a longer one: the piece's own line counts.
    ("[s2] t1:eeee\n\n[s1] t1:e", "t1:e", "s1", True),
    ("[s2] t1:eeee", "t1:e", "s1", False),
])
def test_names_source_reads_the_pieces_own_line(prompt, piece, source, named) -> None:
    from properties.navigation.invariants import names_source

    assert names_source(prompt, piece, source) is named


def _one_is_two(request, ports, limits=NavigationLimits()):
    """``navigate`` treating a no-progress bound of 1 as 2: only a scenario whose drawn limits hold a bound of
    one can tell (the seed's limits never do)."""
    return _navigate(request, ports, attrs.evolve(limits, no_progress=max(2, limits.no_progress)))


def test_drawn_limits_reach_a_bound_of_one(monkeypatch) -> None:
    from properties.navigation.generate import random_scenario
    import random

    rng = random.Random(0)
    drawn = [random_scenario(rng) for _ in range(400)]
    assert sum(1 for scenario in drawn if scenario.limits) > 40
    assert any(dict(scenario.limits).get("no_progress") == 1 for scenario in drawn)
    monkeypatch.setattr(production, "navigate", _one_is_two)
    failure, tally = _first_violation("N1")
    assert failure is not None and failure[1].invariant == "N1", dict(tally.coverage)
    assert dict(failure[0][0].limits).get("no_progress") == 1
