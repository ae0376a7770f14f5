"""Round trip as a property: every event any driver can generate survives a trace file.

For each subject, ``STRATEGIES`` holds a Hypothesis strategy of traces built
from what its drivers really generate. The property: the trace saves to a file
(strict JSON), the file loads back equal, and replaying the loaded trace gives
the same states and the same broken invariants at every step as replaying the
original. So no driver can again produce a file its own schema refuses (seen:
the bulk driver's lane 7).

The budget's strategies: seeded bulk traces (every family of
``properties.budget.bulk``), the explorer's whole alphabet, traces the state
machine of ``properties.budget.stateful`` builds, and receipts assembled from
every value pool the drivers draw from plus arbitrary JSON params. The hook
subject's sequences have their own file format
(``properties/hooks/trace_file.py``): its generator's sequences must save,
load back equal and be judged the same; so must the navigation subject's
scenarios (``properties/navigation/scenario.py``), generated as its bulk
driver does, and its stored fixtures. Another subject plugs in by adding
its entry to ``STRATEGIES``; a subject that declares events without one fails
the test.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any, Callable

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from guard.limits import Limits
from properties.budget import replay
from properties.budget import bulk, explorer, stateful
from properties.budget import generate
from properties.budget.events import Event, FirstCall, Result, Round, Stop
from properties.budget.trace_file import EVENT_KINDS, MAX_INT, Trace, dumps, load_trace, save_trace

# -- the budget's strategies ------------------------------------------------------------------------


def _bulk_traces() -> st.SearchStrategy[list[Event]]:
    """A trace of the bulk driver: a seed picks one of the generated traces of every family."""
    return st.tuples(st.integers(0, 2**32 - 1), st.integers(0, 11)).map(
        lambda pair: list(generate.traces_for(pair[0], 12))[pair[1]][1]
    )


def _explorer_events() -> st.SearchStrategy[list[Event]]:
    shapes = st.tuples(st.booleans(), st.booleans(), st.booleans(), st.integers(0, 3), st.booleans(),
                       st.sampled_from(("full", "counters")))
    alphabet = shapes.map(lambda shape: explorer.alphabet(*shape))
    return alphabet.flatmap(lambda events: st.lists(st.sampled_from(events), min_size=1, max_size=30))


def _json_values() -> st.SearchStrategy[Any]:
    scalars = (st.none() | st.booleans() | st.integers(-MAX_INT - 1, MAX_INT)
               | st.floats(allow_nan=False, allow_infinity=False) | st.text())
    return st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
                        max_leaves=12)


def _pooled_events() -> st.SearchStrategy[list[Event]]:
    """Receipts from every pool the drivers draw from, plus any JSON params and text a host could send."""
    text = st.text(max_size=12)
    result = st.builds(
        Result,
        call_id=st.sampled_from(generate.BAD_IDS) | st.text(max_size=6) | st.integers(-5, 5) | st.floats(allow_nan=False, allow_infinity=False),
        tool=st.sampled_from(generate.TOOLS) | text,
        params=st.sampled_from(generate.PARAMS) | _json_values(),
        failed=st.booleans(), pending=st.booleans(), discovery=st.booleans(),
        lane=st.sampled_from(generate.LANE_VALUES) | st.none() | st.integers(-3, 9) | text | st.booleans(),
        correctable=st.booleans(), corrected=st.booleans(),
        correctable_refusal=st.sampled_from((None,) + generate.KINDS) | text,
        empty_lookup=st.booleans(),
        label=text,
    )
    other = st.builds(Round, label=text) | st.builds(Stop, label=text) | st.builds(FirstCall, remedy=st.booleans(), label=text)
    return st.lists(result | other, min_size=1, max_size=25)


def _stateful_traces() -> st.SearchStrategy[list[Event]]:
    """Traces the state machine builds: run it for a few examples once, at import, and keep every trace it made.

    At import, so that processes forked after collection (mutmut's per-mutant runs, the catalogue's warm
    forks) inherit the traces instead of each running the machine again. The machine's traces are inputs
    here, not a verdict: a failure while recording (a broken guard under mutation) keeps the traces made so
    far and is not shrunk, so it can neither stall nor fail the collection; the tests judge the guard.
    """
    traces = _state_machine_traces()
    return st.sampled_from(traces) if traces else st.nothing()


_STATEFUL_CACHE: list[list[Event]] = []


def _state_machine_traces() -> list[list[Event]]:
    if not _STATEFUL_CACHE:
        from hypothesis import Phase
        from hypothesis.stateful import run_state_machine_as_test

        captured: list[list[Event]] = []

        class Recording(stateful.standalone()):
            def _step(self, item: Event) -> None:
                super()._step(item)
                if len(self.events) == 1:
                    captured.append(self.events)

        try:
            run_state_machine_as_test(Recording, settings=settings(max_examples=25, deadline=None, database=None,
                                                                   derandomize=True, stateful_step_count=40,
                                                                   phases=[Phase.generate],
                                                                   suppress_health_check=list(HealthCheck)))
        except Exception:  # recorded traces stay inputs; the failure itself is for the guard's tests to find
            pass
        _STATEFUL_CACHE.extend(trace for trace in captured if trace)
    return _STATEFUL_CACHE


def _limits() -> st.SearchStrategy[Limits]:
    return st.sampled_from((Limits(), bulk.SPEC_LIMITS, Limits(consecutive_failures=2, total_failures=5, rounds_without_progress=3)))


BUDGET = st.one_of(_bulk_traces(), _explorer_events(), _pooled_events(), _stateful_traces())


def _budget_states(trace: Trace) -> list[tuple]:
    """Per step: both budgets' states, the admission, the ignored mark and what broke; then every broken invariant."""
    broken: dict[str, replay.Broken] = {}
    rows = [(row.reference, row.production, row.admitted, row.ignored, row.broken)
            for row in replay.replay_rows(trace, trace.events, broken)]
    return rows + [tuple(sorted(broken.items()))]


def check_budget(case: tuple[list[Event], Limits], folder: Path) -> None:
    events, limits = case
    trace = Trace(name="round-trip", events=tuple(events), limits=limits)
    text = dumps(trace)
    json.loads(text, parse_constant=lambda name: pytest.fail(f"{name} in a saved trace"))
    path = save_trace(trace, folder / "trace.json")
    loaded = load_trace(path)
    assert loaded == trace
    assert [type(event) for event in loaded.events] == [type(event) for event in trace.events]
    assert _budget_states(loaded) == _budget_states(trace)


# -- the hook subject: its sequences have their own file format (properties/hooks/trace_file.py) --------


def _hook_sequences() -> st.SearchStrategy[Any]:
    from properties.hooks import generate

    return st.tuples(st.integers(0, 2**32 - 1), st.integers(1, 16)).map(
        lambda pair: generate.random_sequence(random.Random(pair[0]), pair[1]))


def check_hooks(sequence: Any, folder: Path) -> None:
    from properties.hooks import trace_file as sequence_file
    from properties.hooks.counterexample import first_violation

    path = sequence_file.save(sequence, folder / "sequence.json", "round-trip", "H1")
    loaded, name, invariant = sequence_file.load(path)
    assert (loaded, name, invariant) == (sequence, "round-trip", "H1")
    assert first_violation(loaded) == first_violation(sequence)


# -- the navigation subject: its scenarios have their own file format (properties/navigation/scenario.py) ----


def _navigation_scenarios() -> st.SearchStrategy[Any]:
    """What the bulk driver generates (``random_scenario``), one seed each, plus the stored fixtures' builders."""
    from properties.navigation import fixtures, generate

    seeded = st.integers(0, 2**32 - 1).map(lambda seed: generate.random_scenario(random.Random(seed), f"seed-{seed}"))
    return seeded | st.sampled_from(sorted(fixtures.BUILDERS)).map(lambda name: fixtures.BUILDERS[name]())


def _navigation_verdict(scenario: Any) -> list[tuple[str, str]]:
    from properties.catalogue import Tally
    from properties.navigation.monitor import new_monitor

    return [(violation.invariant, str(violation)) for violation in new_monitor(Tally()).step(scenario)]


def check_navigation(scenario: Any, folder: Path) -> None:
    from properties.navigation import trace_file as scenario_file
    from properties.navigation.replay import is_scenario_file, render

    path = folder / "scenario.json"
    scenario_file.save(scenario, path)
    assert is_scenario_file(path), "the replay CLI must recognise a saved scenario"
    loaded = scenario_file.load(path)
    assert loaded == scenario
    assert render(loaded) == render(scenario)
    assert _navigation_verdict(loaded) == _navigation_verdict(scenario)


# -- the lookup subject: receipts in guard-lookup-trace/1 files (properties/lookup/trace_file.py) ----------


def _lookup_receipts() -> st.SearchStrategy[Any]:
    """What the bulk driver judges: a seeded chain of the grammar, or a hostile receipt of any kind (bytes,
    None, lists and odd exit statuses included)."""
    from properties.lookup import drivers

    valid = st.integers(0, 2**32 - 1).map(lambda seed: drivers.valid_receipts(seed, 1)[0])
    hostile = st.tuples(st.integers(0, 2**32 - 1), st.integers(0, 20)).map(
        lambda pair: drivers.hostile_receipts(pair[0], 1)[pair[1]])
    return valid | hostile


def check_lookup(receipt: Any, folder: Path) -> None:
    from guard.lookup import lookup_found_nothing
    from properties.catalogue import Violation
    from properties.lookup import trace_file

    path = trace_file.save(receipt, Violation("L4", 0, "round trip"), "round-trip, L4", folder)
    loaded = trace_file.load(path)
    assert trace_file.SCHEMA in path.read_text(encoding="utf-8") and loaded.events == (receipt,)
    # The classifier receives the very values it received before the file (bytes, None and floats too).
    assert loaded.events[0].arguments() == receipt.arguments()
    assert lookup_found_nothing(*loaded.events[0].arguments()) == lookup_found_nothing(*receipt.arguments())


#: Subject name -> (strategy of what its drivers generate, the round-trip check of one example). A new
#: subject that declares events adds its entry here; the test fails until it does.
STRATEGIES: dict[str, tuple[st.SearchStrategy, Callable[[Any, Path], None]]] = {
    "budget": (st.tuples(BUDGET, _limits()), check_budget),
    "hooks": (_hook_sequences(), check_hooks),
    "navigation": (_navigation_scenarios(), check_navigation),
    "lookup": (_lookup_receipts(), check_lookup),
}


def _subjects_with_events() -> list[str]:
    """Every available subject that declares trace events (``SUBJECT.events``), plus any registered by hand."""
    from properties.subject import available

    return sorted({subject.name for subject in available() if subject.events} | set(EVENT_KINDS))


@pytest.mark.parametrize("subject", _subjects_with_events())
def test_every_generated_event_round_trips(subject: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    if subject not in STRATEGIES:
        pytest.fail(f"subject {subject!r} registers trace events but no strategy in STRATEGIES")
    folder = tmp_path_factory.mktemp("round-trip")

    # Fewer under mutation: the file format does not depend on guard/, and every catalogue entry runs the suite.
    examples = 20 if "MUTANT_UNDER_TEST" in os.environ else int(os.environ.get("ROUND_TRIP_EXAMPLES", "150"))

    strategy, check = STRATEGIES[subject]

    @settings(max_examples=examples, deadline=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(strategy)
    def round_trip(case: Any) -> None:
        check(case, folder)

    round_trip()


def test_every_bulk_family_and_lane_value_round_trips(tmp_path: Path) -> None:
    """Deterministic companion: the first traces of every bulk family (lane 7 included) load back."""
    seen_lanes = set()
    for _family, events in generate.traces_for(5, 300):
        check_budget((events, bulk.SPEC_LIMITS), tmp_path)
        seen_lanes.update(event.lane for event in events if isinstance(event, Result))
    assert 7 in seen_lanes, "the bulk driver's lane 7 must be among the traces checked"


def test_the_state_machine_traces_are_checked() -> None:
    traces = _state_machine_traces()
    assert len(traces) >= 5 and sum(len(trace) for trace in traces) > 50
