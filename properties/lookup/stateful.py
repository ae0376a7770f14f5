"""The lookup state machine: Hypothesis builds chains step by step, and hostile receipts between them.

Rules add a step of the accepted grammar to the chain being built (a
lookup, an ``echo`` or a ``sed -n 'N,Mp'``, with filters piped after it),
or a search that finds nothing or something (so that ``&&`` chains stop on
an empty search, the case L3's wording misses); ``finish`` ends the chain
with a bare lookup (``rg`` allowed only there), renders it with random
quoting and spacing and judges it, real programs and all; ``hostile``
judges one receipt of a chosen hostile kind (never run). A chain left open
when an example ends is dropped unjudged. A violation fails the example
with an AssertionError naming the invariant, and Hypothesis shrinks it.

The details of a step come from a ``random.Random`` seeded by an integer
Hypothesis draws (``DETAIL``): Hypothesis's own Random would shrink inside a
step, but every one of its draws is a Hypothesis draw, and a hostile receipt
takes about a hundred of them, which made the machine four times slower.

One monitor, and so one scratch workspace, serves every example of the
driver's run: making the scratch git repository costs more than a chain.
The standalone machine (HypoFuzz's target) makes one per example instead
(``machine_class``).
"""

from __future__ import annotations

import random

import attrs
from hypothesis import event, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, precondition, rule

from properties import profiles  # noqa: F401  (registers the profiles)
from properties.catalogue import Tally
from properties.lookup import generate
from properties.lookup.events import Receipt
from properties.lookup.monitor import Monitor, new_monitor
from properties.machines import StatefulResult, driver_settings, run_machine, stateful_result

#: At most this many steps before the last lookup (the generator's own chains have up to three).
MOST_STEPS = 3
SEARCH_FILES = ("ui.js", "app.py", "src/game.js", "README.md")
#: The seed of one step's details (shrinks towards 0).
DETAIL = st.integers(0, 2**32 - 1)


def chooser(detail: int) -> generate.RandomChooser:
    return generate.RandomChooser(random.Random(detail))


def machine_class(tally: Tally, only: "tuple[str, ...] | None" = None, failures: "list | None" = None,
                  shared: "list[Monitor] | None" = None) -> type:
    """A standalone ``RuleBasedStateMachine`` that fills ``tally`` and records its first failure in ``failures``.

    With ``shared`` (a list, empty at first) every example judges with one monitor, kept there so that the
    caller removes its workspace: the driver's way, since a workspace costs more than a chain. Without, each
    example makes its own on its first chain and removes it at its end, so that every example runs the same
    code for the same input (HypoFuzz counts an input's behaviours only when a replay covers them again)."""

    class LookupMachine(RuleBasedStateMachine):
        #: This example's own monitor (none shared): made on its first chain, removed at its end.
        own: "Monitor | None"

        def _monitor(self) -> Monitor:
            if shared is not None:
                if not shared:
                    shared.append(new_monitor(tally, only))
                return shared[0]
            if self.own is None:
                self.own = new_monitor(tally, only)
            return self.own

        @initialize(cd=st.sampled_from((None, None) + generate.CD_DIRS))
        def start(self, cd: "str | None") -> None:
            self.own = None
            self.cd = cd
            self.steps: list[tuple[tuple[str, ...], ...]] = []
            self.joiners: list[str] = []

        def _add(self, pipeline: tuple[tuple[str, ...], ...], joiner: str) -> None:
            if self.steps:
                self.joiners.append(joiner)
            self.steps.append(pipeline)

        @precondition(lambda self: len(self.steps) < MOST_STEPS)
        @rule(detail=DETAIL, joiner=st.sampled_from(generate.JOINERS))
        def add_step(self, detail: int, joiner: str) -> None:
            self._add(generate.step(chooser(detail)), joiner)

        @precondition(lambda self: len(self.steps) < MOST_STEPS)
        @rule(pattern=st.sampled_from(("nosuchname_zz", "showScreen", "drawSprite")),
              where=st.sampled_from(SEARCH_FILES), joiner=st.sampled_from(generate.JOINERS))
        def add_search(self, pattern: str, where: str, joiner: str) -> None:
            """A plain search that finds something or nothing: an ``&&`` after an empty one is skipped."""
            self._add((("grep", "-n", pattern, where),), joiner)

        @rule(detail=DETAIL, joiner=st.sampled_from(generate.JOINERS))
        def finish(self, detail: int, joiner: str) -> None:
            choices = chooser(detail)
            self._add((generate.lookup_argv(choices, True),), joiner)
            chain = generate.Chain(self.cd, tuple(self.steps), tuple(self.joiners))
            self._judge(Receipt.of(generate.render(chain, choices).command, label="stateful"))
            self.steps, self.joiners = [], []

        @rule(kind=st.sampled_from(generate.HOSTILE_KINDS), detail=DETAIL)
        def hostile(self, kind: str, detail: int) -> None:
            case = generate.hostile_case(chooser(detail), kind)
            self._judge(Receipt.of(case.command, case.exit_code, case.output, kind=kind, label="stateful"))

        def teardown(self) -> None:
            own = getattr(self, "own", None)
            if own is not None:
                own.close()

        def _judge(self, receipt: Receipt) -> None:
            judging = self._monitor()
            found = judging.step(receipt)
            last = judging.last
            if last is not None and last.deciding is not None:
                event("decided before the last step" if not last.deciding_is_last else "decided by the last step")
            if found:
                if failures is not None and not failures:
                    seen = last.observation.to_json() if last is not None and last.observation is not None else None
                    failures.append(([attrs.evolve(receipt, observed=seen)], found[0]))
                raise AssertionError("\n".join(f"VIOLATED {v.invariant} {v}" for v in found))

    return LookupMachine


def standalone() -> type:
    """The machine over the whole catalogue with a tally of its own (pytest, HypoFuzz)."""
    return machine_class(Tally())


def run_stateful(seed: int, profile: str, tally: Tally, *, examples: "int | None" = None, steps: int = 8,
                 only: "tuple[str, ...] | None" = None, shrink: bool = True) -> StatefulResult:
    """Run the machine with ``seed`` under ``profile``; what it checked is merged into ``tally``."""
    own = Tally()
    failures: list = []
    monitors: list[Monitor] = []
    chosen = driver_settings(profile, examples, steps, shrink)
    try:
        outcome = run_machine(machine_class(own, only, failures, shared=monitors), chosen, seed,
                              lambda: failures[0] if failures else None)
    finally:
        for made in monitors:
            made.close()
    return stateful_result(seed, profile, chosen, outcome, own, tally)
