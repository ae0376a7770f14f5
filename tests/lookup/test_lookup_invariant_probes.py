"""Each of L1-L4 can fail: a bug planted in the classifier (a monkeypatch of ``guard.lookup``, never an edit) is
caught by that invariant alone (``only=(id,)``), and the same receipt holds on the real classifier.

L1-L3 run the real programs (``real_programs``: left out of mutation runs, run by ``nox -s tests``); L4 is pure.
"""

from __future__ import annotations

from typing import Any, Callable

import pytest

import guard.lookup as classifier
from properties.catalogue import Tally
from properties.lookup.events import Receipt
from properties.lookup.monitor import new_monitor
from properties.probes import Probes

PROBED = Probes()

_scan_words = classifier.scan_words
_is_filter = classifier.is_filter
_accepts_chain = classifier.accepts_chain


def _drops_empty_words(command: Any) -> Any:
    """The scanner loses a word that is empty after quote removal (``''``): dash still passes it."""
    words = _scan_words(command)
    return None if words is None else [[word for word in argv if word] for argv in words]


def _tee_is_a_filter(argv: list[str]) -> bool:
    """``tee FILE`` taken for a read-only filter such as ``cat``: it writes FILE."""
    return argv[0] == "tee" or _is_filter(argv)


def _piped_last_lookup(steps: Any, joiners: list[str]) -> bool:
    """The last step may be a lookup piped into filters: the status is then the last filter's."""
    last = steps[-1]
    if len(last) > 1 and classifier.is_lookup(last[0]) and all(classifier.is_filter(argv) for argv in last[1:]):
        return all(classifier.is_step(pipeline) for pipeline in steps[:-1])
    return _accepts_chain(steps, joiners)


def _plant_or_joiner(monkeypatch: pytest.MonkeyPatch) -> None:
    """``||`` read as a joiner like ``;``: a failed first step then runs the second."""
    monkeypatch.setattr(classifier, "ALLOWED_OPERATORS", classifier.ALLOWED_OPERATORS | {"||"})
    monkeypatch.setattr(classifier, "STEP_JOINERS", classifier.STEP_JOINERS | {"||"})


#: Invariant -> (how the bug is planted, the receipt that shows it). The L1-L3 receipts are run for real.
PLANTED: dict[str, tuple[Callable[[pytest.MonkeyPatch], None], Receipt]] = {
    "L1": (lambda patch: patch.setattr(classifier, "scan_words", _drops_empty_words),
           Receipt.of("grep -n '' ui.js")),
    "L2": (lambda patch: patch.setattr(classifier, "is_filter", _tee_is_a_filter),
           Receipt.of("echo found | tee out.txt; grep -n nosuchname_zz ui.js")),
    "L3": (lambda patch: patch.setattr(classifier, "accepts_chain", _piped_last_lookup),
           Receipt.of("grep -n showScreen ui.js | cat missing.txt")),
    "L4": (_plant_or_joiner, Receipt.of("grep -n nosuchname_zz ui.js || which y", kind="text-edit")),
}


def judged(invariant: str, receipt: Receipt) -> tuple[list[Any], Tally]:
    tally = Tally()
    monitor = new_monitor(tally, (invariant,))
    try:
        return monitor.step(receipt), tally
    finally:
        monitor.close()


def _check(monkeypatch: pytest.MonkeyPatch, invariant: str) -> None:
    plant, receipt = PLANTED[invariant]
    with monkeypatch.context() as patch:
        plant(patch)
        found, tally = judged(invariant, receipt)
    assert [violation.invariant for violation in found] == [invariant], found
    assert tally.exercised[invariant] == 1
    found, tally = judged(invariant, receipt)
    assert found == [] and tally.violations == []


@PROBED("L1", "L2", "L3")
@pytest.mark.real_programs
@pytest.mark.parametrize("invariant", ["L1", "L2", "L3"])
def test_each_real_program_invariant_catches_its_planted_bug(monkeypatch: pytest.MonkeyPatch, invariant: str) -> None:
    _check(monkeypatch, invariant)


@PROBED("L4")
def test_rejection_catches_a_classifier_that_reads_or_as_a_joiner(monkeypatch: pytest.MonkeyPatch) -> None:
    _check(monkeypatch, "L4")


@pytest.mark.real_programs
def test_the_planted_l2_receipt_really_writes_a_file(monkeypatch: pytest.MonkeyPatch) -> None:
    # L2's probe shows a change because tee wrote out.txt in the scratch repository, not by accident.
    plant, receipt = PLANTED["L2"]
    with monkeypatch.context() as patch:
        plant(patch)
        monitor = new_monitor(Tally(), ("L2",))
        try:
            monitor.step(receipt)
            assert monitor.last is not None and monitor.last.observation is not None
            assert monitor.last.observation.changed == ("work", "work/out.txt")
        finally:
            monitor.close()
