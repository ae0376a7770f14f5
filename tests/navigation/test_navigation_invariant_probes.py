"""Each of N1-N11 can fail: a bug planted in production is caught by that invariant alone (``only=(id,)``).

Without these, an invariant that no mutation reaches might be a check that can never fail.
"""

from __future__ import annotations

import attrs
import pytest

import guard.navigation as production
import guard.navigation_evidence as evidence
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
    # N2 (no evidence cap) and N11 (a zero-token manifest recorded as a counter) are planted in the test itself.
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
    "N11": (None, None),
}


def _manifest_as_counter(message, earlier):
    kind, detail = _classify(message, earlier)
    return kind, "zero-token counter" if detail == "zero-token manifest" else detail


_classify = evidence.classify


@PROBED(*PLANTED)
@pytest.mark.parametrize("invariant", sorted(PLANTED, key=lambda name: int(name[1:])))
def test_each_invariant_catches_its_planted_bug(monkeypatch, invariant) -> None:
    name, replacement = PLANTED[invariant]
    if invariant == "N2":
        monkeypatch.setattr(Observer, "keep", lambda self, source, text: (
            self.evidence.append((source, text)), setattr(self, "evidence_chars", self.evidence_chars + len(text))))
    elif invariant == "N11":
        monkeypatch.setattr(evidence, "classify", _manifest_as_counter)
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


# -- issue 24: what the outcome's result list, its cut flag and the error words reach ----------------------------


def _keep_flagging(flag_when_full: bool, flag_when_cut: bool):
    """``Observer.keep`` with its cut flag set as given instead of as the pieces say (mutmut's ``keep`` 6 and 10)."""

    def keep(self, source, text):
        room = self.limits.evidence_chars - self.evidence_chars
        if room <= 0:
            self.evidence_capped = flag_when_full
            return
        piece = text[:room]
        if len(piece) < len(text):
            self.evidence_capped = flag_when_cut
        self.evidence.append((source, piece))
        self.evidence_chars += len(piece)

    return keep


@pytest.mark.parametrize(("when_full", "when_cut"), [(True, False), (False, True)])
def test_n2_catches_a_cut_flag_that_does_not_say_what_was_cut(monkeypatch, when_full, when_cut) -> None:
    monkeypatch.setattr(Observer, "keep", _keep_flagging(when_full, when_cut))
    failure, _tally = _first_violation("N2", 4_000)
    assert failure is not None and failure[1].invariant == "N2"
    assert "evidence_capped is False" in failure[1].message


@pytest.mark.parametrize(("word", "cause"), [("timeout", "at or past the work deadline"),
                                             ("synthesis_failed", "needs until")])
def test_n5_catches_a_result_that_names_its_cause_otherwise(monkeypatch, word, cause) -> None:
    # mutmut's ``_finish`` 49/50 ("timeout" respelt) and 88/89 ("synthesis_failed" respelt).
    monkeypatch.setattr(production, "navigate", _wrap_outcome(
        lambda outcome: attrs.evolve(outcome, error=word.upper()) if outcome.error == word else outcome))
    failure, _tally = _first_violation("N5")
    assert failure is not None and failure[1].invariant == "N5"
    assert cause in failure[1].message and repr(word) in failure[1].message


@pytest.mark.parametrize(("detail", "instead"), [("empty content", "zero-token counter"),
                                                 ("zero-token manifest", "zero-token counter"),
                                                 ("progress", "repeated")])
def test_n11_catches_each_detail_told_otherwise(monkeypatch, detail, instead) -> None:
    def classify(message, earlier):
        kind, said = _classify(message, earlier)
        return kind, instead if said == detail else said

    monkeypatch.setattr(evidence, "classify", classify)
    failure, _tally = _first_violation("N11")
    assert failure is not None and failure[1].invariant == "N11"
    assert repr(detail) in failure[1].message


def test_n5_catches_an_insufficient_result_without_its_flag(monkeypatch) -> None:
    # mutmut's ``_finish`` mutants that drop ``insufficient=True`` for a synthesis reply with no answer.
    monkeypatch.setattr(production, "navigate", _wrap_outcome(
        lambda outcome: attrs.evolve(outcome, insufficient=False) if outcome.answer is None and outcome.insufficient
        and outcome.evidence_chars else outcome))
    failure, _tally = _first_violation("N5")
    assert failure is not None and failure[1].invariant == "N5"
    assert "insufficient evidence flag False beside error 'insufficient_evidence'" in failure[1].message


class _PolicyAskedOtherwise:
    def __init__(self, policy):
        self.policy = policy

    def allows(self, model, purpose):
        return self.policy.allows(model, None)


def test_n9_catches_a_policy_asked_about_another_purpose_than_the_call_it_allows(monkeypatch) -> None:
    # mutmut's ``_finish`` mutants that hand the policy None or another word for the synthesis purpose.
    monkeypatch.setattr(production, "_finish", lambda request, ports, child, *rest: _finish(
        request, attrs.evolve(ports, policy=_PolicyAskedOtherwise(ports.policy)), child, *rest))
    failure, _tally = _first_violation("N9")
    assert failure is not None and failure[1].invariant == "N9"
    assert "asked about purpose None" in failure[1].message


def test_n4_catches_a_synthesis_call_whose_tools_are_none(monkeypatch) -> None:
    # mutmut's ``_finish`` mutant ``tools=None``: no tools either way, but not the call the port describes.
    monkeypatch.setattr(production, "SynthesisCall", lambda **fields: _call(**{**fields, "tools": None}))
    failure, _tally = _first_violation("N4")
    assert failure is not None and failure[1].invariant == "N4"
    assert "tools are None" in failure[1].message
