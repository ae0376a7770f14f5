"""Issue 24 part 4 for navigation: a vacuous navigation invariant's line names the coverage counts that fell to
zero and how production compared with the reference on the shortest scenario of each kind, so a change that
stopped synthesis altogether reads as "never a synthesized answer", not only as "N10 vacuous"."""

from __future__ import annotations

import random

import attrs

from properties.catalogue import Tally
from properties.navigation.generate import random_scenario
from properties.navigation.monitor import SYNTHESIZED, new_monitor
from properties.navigation.subject import SUBJECT
from properties.report import vacuity_explained

SEED = 24  # fixed, so the 400 scenarios are the same on every run


def _judge(**changes: object) -> Tally:
    tally = Tally()
    monitor = new_monitor(tally)
    rng = random.Random(SEED)
    for index in range(400):
        monitor.step(attrs.evolve(random_scenario(rng, f"vacuity-{index}"), **changes))
    return tally


def test_a_world_where_every_synthesis_is_refused_is_explained_by_the_missing_answers() -> None:
    # Every request's synthesis policy rejects: no answer is ever synthesized, so N10 has nothing to judge.
    tally = _judge(policy_rejects=True)
    assert not tally.violations
    assert tally.status("N10") == "vacuous"
    line = vacuity_explained(SUBJECT, tally)
    zero = line.split("; coverage at zero: ")[1].split(";")[0].split(", ")
    assert "synthesis citations outside the bucket" in zero
    assert f"never {SYNTHESIZED}" in line
    # The other ways production parts from the reference are named with their shortest scenario.
    assert "an explicit insufficient-evidence result on " in line
    assert "the reference returned error 'timeout'" in line


def test_the_real_controller_parts_from_the_reference_by_synthesized_answers() -> None:
    tally = _judge()
    assert tally.status("N10") == "held"
    assert tally.partings[SYNTHESIZED][0] > 0
    line = vacuity_explained(SUBJECT, tally)
    assert f"never {SYNTHESIZED}" not in line
    assert "the child answered before any bound returned what the reference returned" in line
