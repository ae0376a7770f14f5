"""Navigation's side of the behaviour comparison: the outcome of each seeded scenario.

A side plays each scenario of the navigation bulk driver (the same
``random.Random(seed)`` stream and names, so a review with seed S plays the
scenarios ``python -m properties --seed S`` checks) against its own
``guard/navigation.py`` with its own default limits, on fresh fakes within the
counted allowance (``properties.navigation.scenario.run``: a version that
never ends is a ``Runaway`` outcome, never a hang). A scenario is one step;
its observables are the outcome's parts:

* ``stop`` - the bound that ended navigation, or cancelled, or none;
* ``answer`` - the answer, whether it was truncated, the error;
* ``citations`` - the citations kept and dropped;
* ``finished_at`` - when, on the fake clock, navigation returned;
* ``counts`` - tool calls, rounds without progress, evidence characters,
  the reserve, whether the evidence was called insufficient;
* ``calls`` - the order of calls the fakes saw (spawn, poll, teardown,
  policy, completion);
* ``results`` - how each tool result read was classified (message id, class,
  detail) and whether the cap cut evidence; a guard whose outcome has no
  such fields (one from before they were added) reports
  ``properties.review_sides.UNREPORTED``, which is shown and never compared;
* ``error`` - the version ran away or raised.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, Iterator

import attrs

from properties.review_sides import UNREPORTED

SUBJECT = "navigation"
UNIT = "scenarios"
OBSERVABLES = ("stop", "answer", "citations", "finished_at", "counts", "calls", "results", "error")
#: The verdict's default number of bulk scenarios.
DEFAULT_COUNT = 4_000
OPTION = "--scenarios"
MINIMUM_COUNT = 0
OPTION_HELP = "navigation bulk scenarios compared (0: navigation is not compared)"


def bulk(seed: int, count: int) -> Iterator[Any]:
    from properties.navigation.generate import random_scenario

    rng = random.Random(seed)
    for index in range(count):
        yield random_scenario(rng, name=f"bulk-{seed}-{index}")


def steps_of(scenario: Any) -> list[Any]:
    return [scenario]


def prefix(scenario: Any, _steps: int) -> Any:
    return scenario


def observe(outcome: Any, calls: list[Any]) -> dict[str, Any]:
    get = lambda name: getattr(outcome, name, None)  # noqa: E731 - an older BASE's outcome may lack a field
    return {
        "stop": get("stop"),
        "answer": [get("answer"), get("truncated"), get("error")],
        "citations": [list(get("citations") or ()), list(get("dropped_citations") or ())],
        "finished_at": get("finished_at"),
        "counts": [get("tool_calls"), get("no_progress"), get("evidence_chars"), get("reserve"), get("insufficient")],
        "calls": list(calls),
        "results": [[list(entry) for entry in outcome.results], outcome.evidence_capped]
        if hasattr(outcome, "results") and hasattr(outcome, "evidence_capped") else UNREPORTED,
    }


def limits() -> dict[str, Any]:
    return {}


def rows_of(scenario: Any) -> list[dict[str, Any]]:
    """Play ``scenario`` against this side's navigation: one row, the outcome's observables."""
    from properties.navigation.scenario import run

    try:
        played = run(scenario, "production")
    except Exception as error:
        return [{"error": f"{type(error).__name__}: {error}"}]
    if played.ran_away:
        return [{"error": f"ran away: {played.outcome.detail}"}]
    return [observe(played.outcome, played.record.order)]


def save(scenario: Any, path: Path, origin: str, _limits: "dict[str, Any] | None" = None) -> Path:
    """A scenario file whose ``note`` is the review's origin line; its name stays the bulk scenario's."""
    from properties.navigation.trace_file import save as save_scenario

    path.parent.mkdir(parents=True, exist_ok=True)
    save_scenario(attrs.evolve(scenario, note=origin), path)
    return path


def load(path: Path) -> tuple[Any, str]:
    from properties.navigation.trace_file import load as load_scenario

    scenario = load_scenario(path)
    return scenario, scenario.note


def describe(scenario: Any) -> str:
    return f"scenario {scenario.name} ({len(scenario.messages)} messages, timeout {scenario.timeout_ms} ms)"


def show(name: str, value: Any) -> str:
    """One observable's value as a table cell (``behaviour.cell`` handles a missing row or value)."""
    if name == "calls":
        return " ".join(str(call) for call in value)[:120]
    if name == "results" and value != UNREPORTED:
        read, capped = value
        shown = ", ".join(f"{message} {kind}" + (f" ({detail})" if detail and detail != kind else "")
                          for message, kind, detail in read) or "none read"
        return (shown + (" (cut)" if capped else ""))[:160]
    return json.dumps(value, separators=(",", ":")) if not isinstance(value, str) else value


# -- the exhaustive comparison's side: every request of a scope (``properties.review.recorded``) ---------------


def scope_model(name: str) -> Any:
    """The verdict's navigation model of the scope ``name`` (``properties.navigation.model.scopes``), of any mode."""
    from properties.navigation.model import scopes
    from properties.review_sides import scope_of

    return scope_of(scopes, name, "navigation")


def default_scopes() -> tuple[str, ...]:
    from properties.navigation.model import scopes

    return tuple(model.name for model in scopes("default"))


def tree(name: str) -> Iterator[dict[str, Any]]:
    """Every request of the scope, breadth first: per node its ending (``start``) and slices, this side's outcome
    of that request, and the slices offered next.

    The tree is the verdict's model's (``NavigationModel.alphabet`` and its ``over``: a request ends once the
    spec says a bound, the child's reply or a cancellation ended it, and at the retrieval deadline), which reads
    the reference and the spec, never the side's guard: both sides walk the same requests, and a side whose
    own navigation reads past that end shows it in the outcome of the request where the spec ended."""
    from collections import deque

    # Walked with no invariant: the shape of the tree (which requests have ended) is the spec's recount of the
    # side's slices, and HEAD's catalogue judging a BASE guard it was not written for (an outcome without a field
    # a newer invariant reads) must not end a branch on one side only and so report a difference that is not one.
    model = attrs.evolve(scope_model(name), invariants=())
    level: deque[Any] = deque()
    for state in model.initial():
        offer = list(model.alphabet(state))
        yield {"start": state.ending, "path": [], "offer": offer, "row": None}
        level.append(state)
    while level:
        state = level.popleft()
        for event in model.alphabet(state):
            slices = state.slices + (event,)
            row = rows_of(model.scenario(state.ending, slices))[0]
            try:
                child = model.step(state, event).target
                offer = [] if "error" in row else list(model.alphabet(child))
            except Exception:
                # The verdict's own model could not play it (this side raised under its monitor): a leaf.
                child, offer = None, []
            yield {"start": state.ending, "path": list(slices), "offer": offer, "row": row}
            if offer:
                level.append(child)


def after_end(last: dict[str, Any]) -> dict[str, Any]:
    """A request that ended reads no later slice: a longer prefix has the outcome it had."""
    return last


def save_path(name: str, start: int, tokens: Any, path: Path, origin: str) -> Path:
    """A request of the scope as a scenario file carrying the scope's limits (``nox -s replay -- FILE``)."""
    return save(scope_model(name).scenario(start, tuple(tokens)), path, origin)


def describe_token(_name: str, token: Any) -> str:
    return f"slice: {token}"
