"""Invariants L1-L4 of the lookup subject (seed 000, ``shared/spec/classifiers.md``), written once.

One step of a lookup trace is one receipt (``events.Receipt``). ``judge``
builds a self-contained ``Step`` from the receipt, the classifier's verdict
on it and what the real programs did with it (``programs.Observation``,
only for a chain of the accepted grammar: a hostile receipt is never run);
every check reads the step and nothing else.

What the classifier must accept comes from the generator, never from the
classifier: a ``valid`` receipt is a chain built from the accepted grammar
as argv lists first and rendered to shell text second
(``properties.lookup.generate``), or one of the seed's own chains
(``fixtures``); every other receipt carries one disqualifier of the spec.

Choices where the spec is silent (the tests made the same ones):

* L1 is judged on every valid chain, accepted or not: the tests require
  each generated chain accepted before they compare words, so a classifier
  that rejects a chain of the grammar reads words (none) that are not dash's.
  That is how a classifier that accepts nothing fails the verdict.
* L3 as written ("its last lookup run alone also exits 1") cannot hold for an
  ``&&`` chain whose earlier lookup finds nothing: dash stops there with
  status 1 and the last lookup never runs. L3 is judged as the seed means it
  (exit 1 still means a search found nothing): the step that decided the
  status, the last one that ran, is a bare lookup that exits 1 alone; with
  only ``;`` joiners that is the last lookup, exactly as L3 says.
* The classifier judges ``(command, 1, "")`` for L1-L3, as the tests do:
  the real run's output is shown, never fed back (an error line would make
  the classifier refuse, and L1-L3 are about what it accepts).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import attrs

from properties.catalogue import Invariant, Outcome
from properties.lookup.events import Receipt
from properties.lookup.programs import Observation, Part, steps_alone

SUBJECT = "lookup"


@attrs.frozen
class Step:
    """Everything a check reads about one receipt."""

    index: int
    receipt: Receipt
    #: The classifier's verdict: the receipt's own fields for a hostile receipt, ``(command, 1, "")`` for a
    #: valid chain.
    accepted: bool
    #: ``scan_words``: the argv of every simple command as the classifier reads them, or None.
    words: "tuple[tuple[str, ...], ...] | None"
    #: What the real programs did (valid chains only).
    observation: "Observation | None" = None
    #: The step that decided the real run's status (the last of those run alone that ran), when it exited 1.
    deciding: "Part | None" = None
    deciding_status: "int | None" = None
    #: Whether the deciding step is the command's last step, and whether every joiner is ``;``.
    deciding_is_last: bool = True
    only_semicolons: bool = True

    @property
    def command(self) -> Any:
        return self.receipt.arguments()[0]


def shown(command: Any) -> str:
    return repr(command) if not isinstance(command, str) else "`" + command + "`"


def judge(index: int, receipt: Receipt, observation: "Observation | None") -> Step:
    """The self-contained step of one receipt (the classifier is called here, never in a check)."""
    from guard.lookup import lookup_found_nothing, scan_words

    command = receipt.arguments()[0]
    accepted = bool(lookup_found_nothing(*receipt.asked()))
    # Only L1 reads the words, and only of a valid chain: a hostile receipt is not scanned twice.
    words = scan_words(command) if receipt.valid and isinstance(command, str) else None
    step = Step(index, receipt, accepted, None if words is None else tuple(tuple(argv) for argv in words), observation)
    if observation is None or observation.status != 1 or not isinstance(command, str):
        return step
    parts = steps_alone(command) or []
    ran = [(part, status) for part, (_joiner, _text, status) in zip(parts, observation.alone) if status is not None]
    if not ran:
        return step
    part, status = ran[-1]
    scanned = scan_joiners(command)
    return attrs.evolve(step, deciding=part, deciding_status=status, deciding_is_last=part is parts[-1],
                        only_semicolons="&&" not in scanned)


def scan_joiners(command: str) -> tuple[str, ...]:
    """The joiners between the steps after any ``cd`` (the classifier's split)."""
    from guard.lookup import scan_steps

    scanned = scan_steps(command)
    if scanned is None:
        return ()
    steps, joiners = scanned
    if steps and steps[0] and steps[0][0] and steps[0][0][0] == "cd":
        joiners = joiners[1:]
    return tuple(joiners)


def scanner_fidelity(step: Step) -> Outcome:
    """For every chain of the accepted grammar, the classifier accepts it and the words it parsed equal the argv dash passes to each program (run under ``dash -c`` with every program replaced by
    a recorder; a pipeline's members run at once, so compared as multisets)."""
    if not step.receipt.valid:
        return False, None
    seen = step.observation
    dash = "" if seen is None else f"; dash passed {[list(argv) for argv in seen.argv]}"
    if not step.accepted:
        return True, f"the classifier refuses {shown(step.command)}, a chain of the accepted grammar{dash}"
    if seen is None:
        return True, None
    if seen.argv_status != 0:
        return True, (f"{shown(step.command)} exited {seen.argv_status} under dash with recorders "
                      f"({seen.argv_errors.strip()[:200] or 'no message'}); the classifier read {_words(step)}")
    if step.words is None or Counter(step.words) != Counter(seen.argv):
        return True, f"{shown(step.command)}: the classifier read {_words(step)}{dash}"
    return True, None


def _words(step: Step) -> str:
    return "nothing" if step.words is None else str([list(argv) for argv in step.words])


def no_side_effects(step: Step) -> Outcome:
    """Every accepted command, run for real under dash in a scratch git repository with
    a scratch HOME, creates, changes or deletes no file there (nor do its steps run alone)."""
    seen = step.observation
    if not (step.receipt.valid and step.accepted and seen is not None):
        return False, None
    if seen.changed:
        return True, (f"{shown(step.command)} (exit {seen.status}) changed {', '.join(seen.changed[:6])}"
                      + (f" and {len(seen.changed) - 6} more" if len(seen.changed) > 6 else ""))
    return True, None


def exit_one_means_nothing_found(step: Step) -> Outcome:
    """For every accepted command whose real run exits 1, the step that set
    that status (the last one that ran: in an ``&&`` chain stopped by an empty search, that search) is a
    bare lookup which, run alone, exits 1; with only ``;`` joiners, that is the last lookup."""
    seen = step.observation
    if not (step.receipt.valid and step.accepted and seen is not None and seen.status == 1):
        return False, None
    if step.deciding is None:
        return True, f"{shown(step.command)} exits 1, and no step of it run alone ran"
    if step.deciding_status != 1:
        return True, (f"{shown(step.command)} exits 1, but the step that decided it, `{step.deciding.text}`, "
                      f"exits {step.deciding_status} alone")
    if not step.deciding.bare_lookup:
        return True, (f"{shown(step.command)} exits 1 from `{step.deciding.text}`, which is not a bare lookup "
                      "(an exit 1 there does not mean a search found nothing)")
    return True, None


def rejection_is_robust(step: Step) -> Outcome:
    """No receipt of the hostile corpus (each disqualifier of the spec, quoted and
    unquoted, combined flags, odd whitespace, Unicode look-alikes, bad exit statuses, error lines, values of
    the wrong type) is accepted."""
    if step.receipt.valid:
        return False, None
    if step.accepted:
        command, exit_code, output = step.receipt.arguments()
        return True, (f"a receipt of the hostile kind {step.receipt.kind} is accepted: command {shown(command)}, exit {exit_code!r}, "
                      f"output {str(output)[:200]!r}")
    return True, None


CATALOGUE: tuple[Invariant, ...] = (
    Invariant("L1", "000", "scanner fidelity", scanner_fidelity, SUBJECT),
    Invariant("L2", "000", "no side effects", no_side_effects, SUBJECT),
    Invariant("L3", "000", "exit 1 means nothing found", exit_one_means_nothing_found, SUBJECT),
    Invariant("L4", "000", "rejection is robust", rejection_is_robust, SUBJECT),
)
BY_ID = {invariant.id: invariant for invariant in CATALOGUE}

#: What a default run must reach (``drivers.SIZES``, ``drivers.EXAMPLES``): the tests ask for at least 10
#: exits of 1 and 5 last lookups alone in 60 chains, and an ``&&`` chain decided before its last step; every
#: one of the seed's chains runs. CI draws a fresh seed on every run, so each minimum holds on every seed:
#: the bulk driver's 12 directed chains of each shape (``generate.directed_chain``) reach "last lookup alone
#: exits 1" and "decided before the last step" 12 times each for certain, and random chains add to them. Both drivers at their default sizes on seeds 100-159 and
#: 3555001728 (2026-12-02) reached at their lowest 118 chains (113 of them the bulk driver's), 69 exits of
#: 1, 33 last lookups alone and 13 chains decided before their last step (medians 157, 97, 56, 19); before
#: the directed chains the lowest were 94, 48, 21 and 2, and seed 3555001728 failed a CI run with 3.
COVERAGE_MINIMUMS = {
    "chains run for real": 100,
    "the seed's chains": 9,
    "exit 1 for real": 45,
    "last lookup alone exits 1": 20,
    "decided before the last step": 12,
    "hostile receipts": 2_000,
}


def coverage(step: Step) -> list[str]:
    """The coverage names one step reached (counted by the monitor, never by a check)."""
    names = []
    if step.receipt.valid:
        if step.observation is not None:
            names.append("chains run for real")
        if step.receipt.label.startswith("seed000"):
            names.append("the seed's chains")
        if step.accepted and step.observation is not None and step.observation.status == 1:
            names.append("exit 1 for real")
        if step.deciding is not None and step.deciding_status == 1:
            if step.only_semicolons and step.deciding_is_last:
                names.append("last lookup alone exits 1")
            if not step.deciding_is_last:
                names.append("decided before the last step")
    else:
        names.append("hostile receipts")
    return names
