"""The exhaustive half of the review's part 2: BASE's guard and HEAD's guard as one model, searched by the engine.

The product's state is (BASE's state, HEAD's state, steps since both settled). A subject that wants its behaviour compared exhaustively hands the review a
``Comparable`` (``properties.budget.review_model`` is the budget's): for a
guard package and a scope, a ``properties.engine.model.Model`` of that one
guard, and a function that reads the observables of a step. The product
(``ProductModel``) is itself a ``Model``: its state is a pair (BASE's state,
HEAD's state), both sides are stepped by the same event, and every
observable that differs after the step is reported as a violation of an
equality check (``EQ.<observable>``), so ``properties.engine.search.search``
finds it on a shortest trace, breadth first, and a search that reaches its
fixpoint with nothing violated proves the two guards alike on every trace of
the scope's alphabet.

Decisions:

* The events offered in a pair are BASE's offer followed by whatever HEAD
  offers beyond it, so a change that makes one side offer more (a state the
  other never reaches) is still explored; each side's model must accept any
  event of the other's alphabet.
* One shortest trace per kind of difference: the search stops at its first
  violating step, so after a difference is found the scope is searched again
  with the observables already told apart left unchecked, until a search
  reaches the fixpoint (the rest are proved equal in that scope) or every
  observable differs. Each search is breadth first, so each trace is a
  shortest one for its observables in that scope; across scopes the shortest
  per observable is kept.
* No symmetry is declared for the product: a side's symmetry (the two lanes
  alike) is a claim about one guard, and a change may be exactly what breaks
  it; the product keys pairs by both sides' keys, so any forgetting a side's
  key does is still checked by the engine's merge check on pairs.
* A side model's own judgement (its ``Edge.violations``) is not the
  comparison's business: the verdict judges each side against its promises.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable, Hashable, Iterable, Protocol, Sequence

import attrs

from properties.catalogue import Violation
from properties.engine.model import Edge, Model
from properties.engine.search import SearchResult, search
from properties.engine.symmetry import Permutation
from properties.review.behaviour import differing_observables, unreported_observables
from properties.guard_versions import GuardPackage

PREFIX = "EQ."
#: Events still compared once both sides are settled (stopped with nothing left to admit). The bulk
#: comparison goes on four steps; here a settled pair is not stepped again: a tail multiplied the pairs by the
#: counters only a stopped run keeps moving (rounds) and cost tenfold; the bulk tail covers it.
TAIL = 0


class Comparable(Protocol):
    """What a subject hands the exhaustive comparison."""

    #: The subject's registry name.
    subject: str
    #: Its observables, in the order tables show them.
    observables: tuple[str, ...]

    def scopes(self) -> Sequence[str]:
        """The scopes searched by default, smallest first."""
        ...

    def knows(self, scope: str) -> bool:
        """Whether ``scope`` names a scope of this subject (one ``--scope`` may name any subject's)."""
        ...

    def model(self, guard: GuardPackage, scope: str) -> Model:
        """A model of ``guard`` alone in ``scope``; its step must accept any event either side offers."""
        ...

    def observe(self, model: Model, before: Any, event: Any, after: Any) -> dict[str, Any]:
        """The observables of one step of ``model`` from ``before`` by ``event`` to ``after``."""
        ...

    def settled(self, model: Model, state: Any) -> bool:
        """Whether ``state`` is stopped for good as far as the comparison goes (see ``TAIL``)."""
        ...

    def prepare(self, guards: Sequence[GuardPackage], scopes: Sequence[str]) -> None:
        """Called once with both guards and every scope before any ``model``: work that can run at once starts
        here (the recorded subjects' side interpreters); nothing for a subject that builds its models in process."""
        ...

    def save(self, model: Model, start: int, events: Sequence[Any], path: Path, origin: str) -> Path:
        """``model``'s events from initial state ``start`` saved in the subject's own file format, ``origin`` (the
        review's base, head, seed, scope and kinds) in the field that format keeps it in."""
        ...


def differing(base: dict[str, Any], head: dict[str, Any], checked: Iterable[str]) -> list[str]:
    return differing_observables(base, head, tuple(checked))


@attrs.define
class ProductModel:
    """BASE's model and HEAD's stepped together; an observable in ``checked`` that differs is a violation."""

    comparable: Comparable
    base: Model
    head: Model
    checked: tuple[str, ...]
    scope: str
    symmetries: Sequence[Permutation] = ()
    _unions: dict[tuple[int, int], tuple[Any, ...]] = attrs.field(factory=dict)
    #: The checked observables a side left unreported on some step (``behaviour.unreported_observables``): never
    #: proved equal.
    unreported: set[str] = attrs.field(factory=set)
    #: The offers a union was worked out for, kept alive so that their identities stay theirs.
    _kept: list[Any] = attrs.field(factory=list)

    @property
    def subject(self) -> str:
        return self.comparable.subject

    @property
    def name(self) -> str:
        return f"review {self.scope}"

    def initial(self) -> Sequence[Any]:
        base, head = tuple(self.base.initial()), tuple(self.head.initial())
        if len(base) != len(head):
            raise ValueError(f"{self.scope}: BASE offers {len(base)} initial states, HEAD {len(head)}")
        return tuple((one, two, 0) for one, two in zip(base, head))

    def alphabet(self, state: Any) -> Sequence[Any]:
        if state[2] > TAIL:
            return ()
        one, two = tuple(self.base.alphabet(state[0])), tuple(self.head.alphabet(state[1]))
        # Side models hand out the same offer object for the same offer, so a union is worked out once per pair.
        key = (id(one), id(two))
        union = self._unions.get(key)
        if union is None:
            known = set(map(repr, one))
            union = one + tuple(event for event in two if repr(event) not in known)
            self._unions[key] = union
            self._kept.append((one, two))
        return union

    def step(self, state: Any, event: Any) -> Edge:
        after_base = self.base.step(state[0], event).target
        after_head = self.head.step(state[1], event).target
        seen_base = self.comparable.observe(self.base, state[0], event, after_base)
        seen_head = self.comparable.observe(self.head, state[1], event, after_head)
        self.unreported.update(unreported_observables(seen_base, seen_head, self.checked))
        tail = state[2] + 1 if (self.comparable.settled(self.base, after_base)
                                 and self.comparable.settled(self.head, after_head)) else 0
        violations = tuple(
            Violation(PREFIX + name, 0, f"BASE {seen_base.get(name)!r} against HEAD {seen_head.get(name)!r}",
                      f"{name} equal at BASE and HEAD")
            for name in differing(seen_base, seen_head, self.checked))
        return Edge((after_base, after_head, tail), violations, tuple(PREFIX + name for name in self.checked))

    def key(self, state: Any) -> Hashable:
        return (self.base.key(state[0]), self.head.key(state[1]), state[2])

    def save(self, start: int, events: Sequence[Any], path: Path) -> Path:
        return self.head.save(start, events, path)

    def describe(self, event: Any) -> str:
        return self.head.describe(event)


@attrs.frozen
class Difference:
    """A shortest trace after which the observables ``kinds`` differ, in one scope."""

    scope: str
    kinds: tuple[str, ...]
    start: int
    events: tuple[Any, ...]
    messages: tuple[str, ...]
    states: int
    seconds: float


@attrs.frozen
class ScopeResult:
    """One scope: every search run in it and what it showed."""

    scope: str
    #: The observables proved equal to the fixpoint in this scope (those no difference was found for).
    proved: tuple[str, ...]
    #: The searches ended at their fixpoint (True) or were cut short (False): a cut search proves nothing.
    complete: bool
    differences: tuple[Difference, ...]
    states: int
    edges: int
    seconds: float
    searches: int
    cut: str = ""
    problem: str = ""
    #: Observables one side's guard does not report (an older BASE): compared nowhere, so not proved equal.
    unreported: tuple[str, ...] = ()


def compare_scope(comparable: Comparable, base: GuardPackage, head: GuardPackage, scope: str,
                  max_states: int = 500_000, seconds: float = 300.0,
                  searcher: Callable[..., SearchResult] = search) -> ScopeResult:
    """Search ``scope`` until every observable is either told apart on a shortest trace or proved equal."""
    started = time.perf_counter()
    base_model, head_model = comparable.model(base, scope), comparable.model(head, scope)
    checked = tuple(comparable.observables)
    found: list[Difference] = []
    states = edges = searches = 0
    complete, cut, problem = True, "", ""
    unreported: set[str] = set()
    while checked:
        product = ProductModel(comparable, base_model, head_model, checked, scope)
        result = searcher(product, max_states=max_states, seconds=max(1.0, seconds - (time.perf_counter() - started)))
        searches += 1
        unreported |= product.unreported
        states, edges = max(states, result.states), edges + result.edges
        if result.broken or result.merge_broken is not None:
            problem = result.verdict()
        if not result.violations:
            complete = result.complete and not problem
            cut = result.cut
            break
        kinds = tuple(name for name in checked if PREFIX + name in {v.invariant for v in result.violations})
        found.append(Difference(scope, kinds, result.start, tuple(result.path),
                                tuple(str(v.message) for v in result.violations), result.states, result.seconds))
        checked = tuple(name for name in checked if name not in kinds)
    proved = tuple(name for name in checked if name not in unreported) if complete else ()
    return ScopeResult(scope, proved, complete, tuple(found), states, edges, time.perf_counter() - started,
                       searches, cut, problem, tuple(name for name in comparable.observables if name in unreported))


def shortest_per_kind(results: Sequence[ScopeResult]) -> list[tuple[str, Difference]]:
    """At most one difference per observable: the shortest over every scope (ties to the earlier scope)."""
    best: dict[str, Difference] = {}
    order: list[str] = []
    for result in results:
        for difference in result.differences:
            for kind in difference.kinds:
                held = best.get(kind)
                if held is None:
                    order.append(kind)
                if held is None or len(difference.events) < len(held.events):
                    best[kind] = difference
    return [(kind, best[kind]) for kind in order]
