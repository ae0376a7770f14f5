"""The budget's side of the behaviour comparison: every observable of one production budget, step by step.

A side steps one production budget (``RunProgressBudget(Limits())``, every
flag passed on, as the bulk driver's copy ``P``) through each seeded bulk
trace (``properties.budget.generate.traces_for``: the very traces ``python -m
properties --seed S`` checks), with its side's own default limits, because a
change to a default is a change of behaviour. Per step:

* ``terminal`` - the run is stopped;
* ``exhausted`` - the exhausted lanes;
* ``pending_correction`` - the refusal kind whose remedy may still run;
* ``admitted`` - what a ``first_call`` returned (the remedy was let through);
* ``failure_ends`` - ``failure_ends`` for the next event's failure (its lane and
  flags; with no lane and no flag when the next event is not a failure);
* ``counters`` - rounds, failures, consecutive, the two lanes' counts, the
  waiting charge, deferrals used, free lookups used, the kinds corrected;
* ``error`` - an exception raised by the step (the trace ends there).

Like the bulk driver, a side ends a trace ``TAIL_AFTER_STOP`` steps after its
budget stopped with nothing left to admit: what a stopped budget does later
is not compared. Both sides cut by the same rule, so they cut at the same step
unless they already differed at an earlier one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

import attrs

SUBJECT = "budget"
UNIT = "traces"
OBSERVABLES = ("terminal", "exhausted", "pending_correction", "admitted", "failure_ends", "counters", "error")
#: The bulk driver's default number of traces, compared under ``--traces`` (at least one: the budget is
#: always compared).
DEFAULT_COUNT = 8_000
OPTION = "--traces"
MINIMUM_COUNT = 1
OPTION_HELP = "budget bulk traces compared"
#: The exhaustive comparison's model of both guards in one process (``properties.budget.review_model``).
COMPARABLE = "properties.budget.review_model:COMPARABLE"
#: Steps a side keeps stepping after its budget stopped with nothing left to admit (the bulk driver's number).
TAIL_AFTER_STOP = 4
COUNTER_LABELS = ("r", "f", "c", "ws", "ext", "wait", "def", "free", "kinds")


def counters(budget: Any) -> list[Any]:
    """The budget's counters, read by name: an older BASE may lack some (read as None)."""
    lanes = getattr(budget, "lane_failures", {}) or {}
    return [getattr(budget, "rounds", None), getattr(budget, "failures", None), getattr(budget, "consecutive", None),
            lanes.get("workspace"), lanes.get("extension"), getattr(budget, "deferred", None),
            getattr(budget, "deferrals_used", None), getattr(budget, "free_lookups_used", None),
            sorted(getattr(budget, "corrected_kinds", ()) or ())]


def probe_of(following: Any) -> dict[str, Any]:
    """What ``failure_ends`` is asked about ``following``: a failure's lane and flags, or nothing (not a failure).

    ``failure_ends`` reads nothing else of the event, so two events with one probe get one answer from one state
    (the exhaustive comparison asks once per state and probe, ``properties.budget.review_model``)."""
    from properties.budget.events import Result

    if isinstance(following, Result) and following.failed:
        return {"lane": following.lane, "correctable": following.correctable, "empty_lookup": following.empty_lookup}
    return {}


def failure_ends_of(budget: Any, probe: dict[str, Any]) -> Any:
    """``budget.failure_ends(**probe)`` as an observable: a bool, or what it raised."""
    try:
        return bool(budget.failure_ends(**probe))
    except Exception as error:  # an older BASE may lack it or raise: that is an observation, not a crash
        return f"raises {type(error).__name__}"


def observe(budget: Any, following: Any) -> dict[str, Any]:
    """Every observable of ``budget`` after a step; ``following`` is the next event (or None)."""
    return {
        "terminal": bool(budget.terminal),
        "exhausted": sorted(str(lane) for lane in getattr(budget, "exhausted_lanes", ())),
        "pending_correction": getattr(budget, "pending_correction", None),
        "failure_ends": failure_ends_of(budget, probe_of(following)),
        "counters": counters(budget),
    }


def bulk(seed: int, count: int) -> Iterator[list[Any]]:
    from properties.budget.generate import traces_for

    return (events for _family, events in traces_for(seed, count))


def steps_of(events: list[Any]) -> list[Any]:
    return list(events)


def prefix(events: list[Any], steps: int) -> list[Any]:
    return list(events[:steps])


def limits() -> dict[str, Any]:
    """This side's default limits (a change to a default is a change of behaviour, shown apart)."""
    from guard.limits import Limits

    return attrs.asdict(Limits())


def rows_of_file(path: Path) -> list[dict[str, Any]]:
    """A saved file's rows. A file the exhaustive comparison saved names its scope (``scope=`` in its origin):
    its limits are rebuilt on this side as the search built them (``properties.budget.review_scopes.scope_limits``), and the trace
    is not cut after a stop, so its last step is the one the search found."""
    from guard.limits import Limits

    events, origin = load(path)
    fields = dict(part.split("=", 1) for part in origin.split() if "=" in part)
    if "scope" not in fields:
        return rows_of(events)
    from properties.budget.review_scopes import scope_limits, scope_named

    return rows_of(events, scope_limits(Limits, scope_named(fields["scope"])), cut=False)


def rows_of(events: list[Any], limits: Any = None, cut: bool = True) -> list[dict[str, Any]]:
    """Step a fresh production budget through ``events``: one row of observables per step."""
    from guard.budget import RunProgressBudget
    from guard.limits import Limits
    from properties.budget.copies import FEATURE_FLAGS, apply_production

    budget = RunProgressBudget(Limits() if limits is None else limits)
    rows: list[dict[str, Any]] = []
    stopped = 0
    for index, event in enumerate(events):
        try:
            admitted = apply_production(budget, event, FEATURE_FLAGS["P"])
        except Exception as error:
            rows.append({"error": f"{type(error).__name__}: {error}"})
            break
        row = observe(budget, events[index + 1] if index + 1 < len(events) else None)
        row["admitted"] = bool(admitted)
        rows.append(row)
        stopped = stopped + 1 if budget.terminal and getattr(budget, "correction", None) is None else 0
        if cut and stopped > TAIL_AFTER_STOP:
            break
    return rows


def save(events: list[Any], path: Path, origin: str, limits: "dict[str, Any] | None" = None) -> Path:
    """A ``guard-trace/1`` file whose ``origin`` is the review's (``review base=... head=... seed=... trace=...``)."""
    from guard.limits import Limits
    from properties.budget.trace_file import Trace, save_trace

    name = "review-" + "-".join(part.split("=", 1)[1][:8] for part in origin.split()[1:] if "=" in part)
    trace = Trace(name=name, events=tuple(events), limits=Limits(**(limits or {})), origin=origin)
    return save_trace(trace, path)


def load(path: Path) -> tuple[list[Any], str]:
    from properties.budget.trace_file import load_trace

    trace = load_trace(path)
    return list(trace.events), trace.origin


def describe(event: Any) -> str:
    from properties.budget.replay import event_summary

    return event_summary(event)


def show(name: str, value: Any) -> str:
    """One observable's value as a table cell (``behaviour.cell`` handles a missing row or value)."""
    if name == "counters" and isinstance(value, list):
        return " ".join(f"{label}{'=' + str(v) if v not in (None, []) else '=-'}" for label, v in zip(COUNTER_LABELS, value))
    if name == "exhausted":
        return ",".join(value or []) or "none"
    return str(value)
