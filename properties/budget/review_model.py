"""The budget's part of the exhaustive comparison: one production budget of one guard version as a ``Model``.

The scopes are the explorer's small scopes of a default run (``SCOPES``,
read from ``properties.budget.explorer.configurations("default")``: the
scaled-down limits each proved to its fixpoint there), with each side's own
default for every limit the scope does not scale (the deferral allowance),
because a changed default is a changed behaviour. A scope's name is also
how a saved trace names its limits (``scope=small-c1-t2`` in its origin),
so the replay rebuilds them on each side the same way (``scope_limits``).

A side's state is a value, not a budget: every field of the budget frozen
(``freeze``), the last step's answer to a first call (``admitted``, what
the host received) and an error when the step raised. A step rebuilds a
budget of the side's own class from the value, delivers the event as the
bulk driver's copy ``P`` does (every flag), and freezes it again, so two
states are equal exactly when the budgets are, and the key is the state
itself: nothing is forgotten, no merge needs checking.

The alphabet is the explorer's events (its failures, successes and
corrected receipts; with one success fingerprint in every scope), offered in every state, terminal or not, waiting or not: the explorer
leaves out events that a correct guard ignores in a state, but a change may
be exactly what stops ignoring them. Call ids are real: a fresh event takes
the least name ``c0``, ``c1``, ... the side does not remember, and each
remembered id is offered again as a duplicate failure and success. With a
seen-calls cap of 1 a side remembers one id, so the names stay few and the
pairs finite. A success is offered while its fingerprint was counted
fewer than identical-successes + 2 times (``repeats_left``): the count
would otherwise grow without end in an open run.

The observables are the bulk comparison's (``properties.budget.review_side.OBSERVABLES``), read
by its own ``observe``: after a step ``terminal``, ``exhausted``,
``pending_correction``, ``counters``, ``admitted`` and ``error``; and
``failure_ends`` as the bulk rows have it, the state before the step asked
about the step's event, so a saved trace shows a ``failure_ends`` difference
on its second-to-last row.
"""

from __future__ import annotations

import collections
from pathlib import Path
from typing import Any, Hashable, Sequence

import attrs

from properties.budget.events import FirstCall, Round, Stop
from properties.engine.model import Edge
from properties.budget import review_side as budget_side
from properties.budget.review_scopes import REVIEW_SCOPES, SCOPES, Scope, scope_limits, scope_limits_value, scope_named
from properties.guard_versions import GuardPackage

SUBJECT = "budget"
ROUND, STOP = Round(), Stop()
FIRST_CALLS = (FirstCall(remedy=True), FirstCall(remedy=False))


def _templates(fingerprints: bool) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    from properties.budget.explorer import CORRECTED, DUPLICATES, FRESH_FAILURES, FRESH_SUCCESSES, ONE_FINGERPRINT

    fresh = FRESH_FAILURES + (FRESH_SUCCESSES if fingerprints else ONE_FINGERPRINT) + CORRECTED
    return fresh, DUPLICATES


#: Types frozen as themselves, tested first: most of a budget's fields are counters and flags.
SCALARS = frozenset({int, bool, str, float, type(None)})


def freeze(value: Any) -> Hashable:
    """A hashable value from which ``thaw`` rebuilds ``value`` exactly (the order of a dict or a deque kept)."""
    if type(value) in SCALARS:
        return ("value", value)
    if isinstance(value, dict):
        return ("dict", tuple((key, freeze(item)) for key, item in value.items()))
    if isinstance(value, collections.deque):
        return ("deque", tuple(freeze(item) for item in value), value.maxlen)
    if isinstance(value, (set, frozenset)):
        return ("set", tuple(sorted((freeze(item) for item in value), key=repr)), isinstance(value, frozenset))
    if isinstance(value, list):
        return ("list", tuple(freeze(item) for item in value))
    if isinstance(value, tuple):
        return ("tuple", tuple(freeze(item) for item in value))
    return ("value", value)


def thaw(frozen: Any) -> Any:
    tag = frozen[0]
    if tag == "value":
        return frozen[1]
    if tag == "dict":
        return {key: thaw(item) for key, item in frozen[1]}
    if tag == "deque":
        return collections.deque((thaw(item) for item in frozen[1]), frozen[2])
    if tag == "set":
        items = (thaw(item) for item in frozen[1])
        return frozenset(items) if frozen[2] else set(items)
    if tag == "list":
        return [thaw(item) for item in frozen[1]]
    if tag == "tuple":
        return tuple(thaw(item) for item in frozen[1])
    return frozen[1]


# The hash is cached: a state is a key of several caches and of the engine's store, hashed at every lookup.
@attrs.frozen(cache_hash=True)
class SideState:
    """One side's budget as a value: its fields (``limits`` left out: the scope's), the last first call's answer,
    and the error a step raised (the side then stays there)."""

    fields: tuple[tuple[str, Hashable], ...]
    admitted: bool = False
    error: str | None = None


class BudgetModel:
    """A production budget of one guard version in one scope, as an engine ``Model`` (judging nothing)."""

    subject = SUBJECT
    symmetries: Sequence[Any] = ()

    def __init__(self, guard: GuardPackage, scope: Scope) -> None:
        self.guard = guard
        self.scope = scope
        self.name = f"{guard.label} {scope.name}"
        self.budget_class = guard.module("budget").RunProgressBudget
        self.limits = scope_limits(guard.module("limits").Limits, scope)
        self.field_names = tuple(field.name for field in attrs.fields(self.budget_class) if field.name != "limits")
        self.fresh, self.duplicates = _templates(scope.fingerprints)
        self._offers: dict[tuple, tuple[Any, ...]] = {}
        self._events: dict[tuple, Any] = {}
        #: Identical successes offered per fingerprint: one past the count that still resets rounds, and one
        #: more so the first ignored repeat is followed by another; past that a success repeats nothing new.
        self.repeat_bound = scope_limits_value(self.limits, "identical_successes", 2) + 2
        self._seen: dict[SideState, dict[str, Any]] = {}
        self._ends: dict[tuple[SideState, tuple[Any, ...]], Any] = {}
        # Keyed by the event's identity: events carry dicts (unhashable), and every event offered is kept in ``_offers``.
        self._steps: dict[tuple[SideState, int], SideState] = {}

    # -- values and budgets --

    def value(self, budget: Any, admitted: bool = False) -> SideState:
        return SideState(tuple((name, freeze(getattr(budget, name))) for name in self.field_names), admitted)

    def budget(self, state: SideState) -> Any:
        budget = self.budget_class(self.limits)
        for name, frozen in state.fields:
            setattr(budget, name, thaw(frozen))
        return budget

    # -- the Model --

    def initial(self) -> Sequence[SideState]:
        return (self.value(self.budget_class(self.limits)),)

    def remembered(self, state: SideState) -> tuple[str, ...]:
        seen = dict(state.fields).get("seen_calls")
        return tuple(str(item) for item in thaw(seen)) if seen is not None else ()

    def repeats_left(self, state: SideState, event: Any) -> bool:
        """Whether a success may be offered: its fingerprint has been counted fewer than identical + 2 times."""
        counts = dict(state.fields).get("successes")
        if counts is None or event.failed or event.pending:
            return True
        fingerprint = self.guard.attribute("budget", "fingerprint")
        if fingerprint is None:
            return True
        return int(thaw(counts).get(fingerprint(event.tool, event.params), 0)) < self.repeat_bound

    def alphabet(self, state: SideState) -> Sequence[Any]:
        if state.error is not None:
            return ()
        remembered = self.remembered(state)
        offer = self._offers.get((remembered, state.fields))
        if offer is None:
            fresh = next(f"c{n}" for n in range(len(remembered) + 1) if f"c{n}" not in remembered)
            events: list[Any] = [ROUND, STOP]
            events += [self._event(template, fresh, template.label) for template in self.fresh
                       if self.repeats_left(state, template)]
            events += [self._event(template, name, f"repeat {template.label}")
                       for name in remembered for template in self.duplicates]
            events += FIRST_CALLS
            offer = self._offers[(remembered, state.fields)] = tuple(events)
        return offer

    def _event(self, template: Any, call_id: str, label: str) -> Any:
        """One event object per (template, id, label), so that a step is cached on its identity."""
        key = (id(template), call_id, label)
        event = self._events.get(key)
        if event is None:
            event = self._events[key] = attrs.evolve(template, call_id=call_id, label=label)
        return event

    def step(self, state: SideState, event: Any) -> Edge:
        known = self._steps.get((state, id(event)))
        if known is not None:
            return Edge(known)
        if state.error is not None:
            target = state
        else:
            from properties.budget.copies import FEATURE_FLAGS, apply_production

            # guard/budget.py imports nothing inside its functions, so its version need not be made active here.
            budget = self.budget(state)
            try:
                admitted = apply_production(budget, event, FEATURE_FLAGS["P"])
                target = self.value(budget, bool(admitted))
            except Exception as error:
                target = attrs.evolve(state, error=f"{type(error).__name__}: {error}")
        self._steps[(state, id(event))] = target
        return Edge(target)

    def key(self, state: SideState) -> Hashable:
        return state

    def settled(self, state: SideState) -> bool:
        """Stopped with no remedy left to admit (or broken by an error): the bulk driver's end of a trace."""
        if state.error is not None:
            return True
        fields = dict(state.fields)
        return bool(thaw(fields.get("terminal", ("value", False)))) and thaw(fields.get("correction", ("value", None))) is None

    def observe(self, before: SideState, event: Any, after: SideState) -> dict[str, Any]:
        """The bulk rows' observables of the step ``before`` -> ``after`` (see the module docstring)."""
        if after.error is not None:
            return {"error": after.error}
        row = self._seen.get(after)
        if row is None:
            row = budget_side.observe(self.budget(after), None)
            row["admitted"] = after.admitted
            self._seen[after] = row
        # Asked once per state and probe, not per event: failure_ends reads only the probe (budget_side.probe_of),
        # and a state offers many events with one probe. The budget is rebuilt for this question alone, so a guard
        # whose failure_ends writes to the budget cannot change what the step saw.
        probe = budget_side.probe_of(event)
        key = (before, tuple(probe.values()))
        if key in self._ends:
            ends = self._ends[key]
        else:
            ends = None if before.error is not None else budget_side.failure_ends_of(self.budget(before), probe)
            self._ends[key] = ends
        return {**row, "failure_ends": ends}

    def save(self, start: int, events: Sequence[Any], path: Path, origin: str | None = None) -> Path:
        """A budget trace file with the scope's limits; ``origin`` (default: the subject and scope) in its origin."""
        return budget_side.save(list(events), path, origin or f"review subject=budget scope={self.scope.slug}",
                                attrs.asdict(self.limits))

    def describe(self, event: Any) -> str:
        return budget_side.describe(event)


class BudgetComparable:
    """The budget's ``Comparable`` (``properties.review.product``)."""

    subject = SUBJECT
    observables = tuple(budget_side.OBSERVABLES)

    def knows(self, scope: str) -> bool:
        """Whether ``scope`` names one of the budget's scopes (``scope_named``), searched or not by default."""
        try:
            scope_named(scope)
        except KeyError:
            return False
        return True

    def scopes(self) -> Sequence[str]:
        return tuple(name for name in REVIEW_SCOPES if name in SCOPES)

    def model(self, guard: GuardPackage, scope: str) -> BudgetModel:
        return BudgetModel(guard, scope_named(scope))

    def observe(self, model: Any, before: SideState, event: Any, after: SideState) -> dict[str, Any]:
        return model.observe(before, event, after)

    def settled(self, model: Any, state: SideState) -> bool:
        return model.settled(state)

    def prepare(self, guards: Sequence[GuardPackage], scopes: Sequence[str]) -> None:
        """Nothing to start: both guards are imported into this process and each model is built on demand."""

    def save(self, model: Any, start: int, events: Sequence[Any], path: Path, origin: str) -> Path:
        return model.save(start, events, path, origin)


COMPARABLE = BudgetComparable()
