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
