"""The generic breadth-first search over a ``Model``, with every reduction it makes checked on the way.

``search(model, ...)`` explores from the model's initial states, level by
level, until no new key appears (the fixpoint: a proof for that
configuration), a depth limit (every trace of at most that many events), a
state limit or a deadline (incomplete: proves nothing). Every edge is judged
by the model's step (through the one judge); the first violating step found
is on a shortest trace, since the search is breadth first.

Reductions and their checks (see ``properties.engine.model``):

* symmetry: states are stored under the least key of their images by the
  group the declared symmetries generate; on every edge each image step is
  run and compared. A failed check raises ``SymmetryBroken`` inside the
  search, which ``search`` turns into a ``SymmetryBreak`` (with the kept trace
  and its image, saved when ``out_dir`` is given) and searches again without
  the symmetries the broken element composes;
* merging by key: a reached state whose key equals a stored, different state
  is checked against it as a bisimulation (``_check_merge``); a failure is a
  ``MergeBreak`` and the configuration is searched again with states keyed by
  themselves (nothing forgotten).

Decisions where the issue is silent:

* A broken reduction fails the configuration, whatever the search without it
  finds: a declared symmetry or a forgetting key is a claim about the guard,
  and a guard that breaks it is not the guard the subject described. The row
  says what broke and what the search without it found.
* Keys are compared with ``<`` to choose the least image; a model's key is a
  tuple of built-in values (documented on ``Model.key``).
"""

from __future__ import annotations

import time
from collections import deque
from pathlib import Path
from typing import Any, Hashable, Sequence

import attrs

from properties.catalogue import Violation
from properties.engine.model import Edge, Model
from properties.engine.symmetry import Permutation, SymmetryBreak, SymmetryBroken, group

#: How many state pairs one configuration's merge checks may step before the claim is withdrawn as unchecked.
MERGE_PAIR_LIMIT = 200_000


@attrs.frozen
class MergeBreak:
    """Two states the model's key merges that do not behave alike: the key forgets something that matters."""

    detail: str
    depth: int
    kept: tuple = ()
    files: tuple[Path, ...] = ()

    def line(self) -> str:
        saved = f"; replay: python -m properties.replay {self.files[-1]}" if self.files else ""
        return f"merge broken: {self.detail} (at event {self.depth}){saved}"


@attrs.frozen
class SearchResult:
    """One configuration's search: its size, how far it got, and what (if anything) it found."""

    subject: str
    name: str
    states: int
    edges: int
    depth: int
    #: Reached the fixpoint: no new key at the last level.
    complete: bool
    seconds: float
    max_depth: int | None = None
    #: Why it stopped short, when it did ("state limit", "deadline").
    cut: str = ""
    #: Every violation of the first violating step found (breadth first: on a shortest trace).
    violations: tuple[Violation, ...] = ()
    #: The events from ``start`` (an index into ``model.initial()``) to that step; a real trace.
    start: int = 0
    path: tuple = ()
    #: The file the counterexample was saved to, when an output folder was given.
    saved: Path | None = None
    #: The symmetries merged by, each checked on every edge.
    symmetries: tuple[str, ...] = ()
    #: Merges by key met and checked as bisimilar (pairs stepped).
    merge_pairs: int = 0
    #: The symmetries found broken, each of which withdrew the search that assumed it.
    broken: tuple[SymmetryBreak, ...] = ()
    merge_broken: MergeBreak | None = None

    @property
    def violation(self) -> Violation | None:
        return self.violations[0] if self.violations else None

    @property
    def finished(self) -> bool:
        return self.complete or (self.max_depth is not None and self.depth >= self.max_depth and not self.cut)

    @property
    def proved(self) -> bool:
        """A claim the run stands behind: finished, nothing violated, no reduction found false."""
        return self.finished and self.violation is None and not self.broken and self.merge_broken is None

    @property
    def ok(self) -> bool:
        return self.proved

    def verdict(self) -> str:
        found = f"VIOLATED {self.violation.invariant}" if self.violation else "ok" if self.finished else f"CUT SHORT ({self.cut})"
        if self.broken:
            found = f"symmetry broken ({', '.join(b.symmetry for b in self.broken)}); searched again: {found}"
        if self.merge_broken is not None:
            found = f"merge broken; searched again keyed by whole states: {found}"
        return found

    def row(self) -> str:
        reach = "fixpoint" if self.complete else f"depth {self.depth}"
        merged = f"symmetries {' and '.join(self.symmetries)} checked on every edge" if self.symmetries else "no symmetry merged"
        rate = self.states / self.seconds if self.seconds > 0 else float("inf")
        lines = [
            f"{self.name:<20} {self.states:>9,} states {self.edges:>10,} edges  depth {self.depth:>3}  "
            f"{'complete' if self.complete else 'bounded ':<8}  {self.seconds:6.2f} s  {rate:>9,.0f} states/s  {self.verdict()}",
            f"{'':<20} ({reach}; {merged}; {self.merge_pairs:,} merged pairs checked)",
        ]
        lines.extend(f"{'':<20} {b.line()}" for b in self.broken)
        if self.merge_broken is not None:
            lines.append(f"{'':<20} {self.merge_broken.line()}")
        return "\n".join(lines)


class _MergeFailed(Exception):
    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class _Search:
    """One search with a fixed group of checked symmetries and a fixed keying (by key, or by whole state)."""

    def __init__(self, model: Model, elements: tuple[Permutation, ...], by_state: bool) -> None:
        self.model = model
        self.elements = elements
        self.by_state = by_state
        self.pairs_done: set[tuple[Any, Any]] = set()
        self.merge_pairs = 0
        self.edges = 0

    def raw(self, state: Any) -> Hashable:
        return (self.model.key(state), state) if self.by_state else self.model.key(state)

    def canon(self, state: Any) -> Any:
        best = self.raw(state)
        for element in self.elements:
            image = self.raw(element.key(state))
            if image < best:  # type: ignore[operator]
                best = image
        return best

    def judged(self, state: Any, event: Any) -> Edge:
        self.edges += 1
        return self.model.step(state, event)

    def check_symmetry(self, state: Any, event: Any, edge: Edge) -> None:
        events = tuple(self.model.alphabet(state))
        for element in self.elements:
            image_state = element.key(state)
            offered = tuple(self.model.alphabet(image_state))
            if sorted(map(repr, offered)) != sorted(repr(element.event(e)) for e in events):
                raise SymmetryBroken(element, "the alphabet", "the image state offers other events than the images of the events")
            image = self.model.step(image_state, element.event(event))
            want = self.model.key(element.key(edge.target))
            got = self.model.key(image.target)
            if got != want:
                raise SymmetryBroken(element, "the step", f"image successor {got!r} is not the image of {self.model.key(edge.target)!r}")
            if image.judgement() != edge.judgement():
                raise SymmetryBroken(element, "the judgement", f"{edge.judgement()} against {image.judgement()} on the image")

    def check_merge(self, reached: Any, stored: Any) -> None:
        """The two states share a key: step both with every event, transitively, until every differing pair agrees."""
        queue = deque([(reached, stored)])
        while queue:
            first, second = queue.popleft()
            if first == second or (first, second) in self.pairs_done:
                continue
            self.pairs_done.add((first, second))
            self.merge_pairs += 1
            if self.merge_pairs > MERGE_PAIR_LIMIT:
                raise _MergeFailed(f"more than {MERGE_PAIR_LIMIT:,} merged pairs to check")
            events = tuple(self.model.alphabet(first))
            if tuple(map(repr, events)) != tuple(map(repr, self.model.alphabet(second))):
                raise _MergeFailed("two merged states offer different events")
            for event in events:
                one, other = self.model.step(first, event), self.model.step(second, event)
                if one.judgement() != other.judgement():
                    raise _MergeFailed(f"after {self.model.describe(event)}: judged {one.judgement()} against {other.judgement()}")
                if self.model.key(one.target) != self.model.key(other.target):
                    raise _MergeFailed(f"after {self.model.describe(event)}: their successors' keys differ")
                if one.target != other.target:
                    queue.append((one.target, other.target))


def _initial_closed(model: Model, search: _Search, starts: Sequence[Any]) -> None:
    keys = {model.key(state) for state in starts}
    for element in search.elements:
        for state in starts:
            if model.key(element.key(state)) not in keys:
                raise SymmetryBroken(element, "the initial states", "not closed under the permutation")


def _once(
    model: Model, elements: tuple[Permutation, ...], by_state: bool, max_depth: int | None, max_states: int, deadline: float,
) -> tuple[dict, dict[str, Any]]:
    """One search; raises ``SymmetryBroken`` or ``_MergeFailed`` (with ``.where`` set to the failing trace)."""
    search = _Search(model, elements, by_state)
    starts = tuple(model.initial())
    # stored: canonical key -> (representative state, parent canonical key or None, event or start index)
    stored: dict[Any, tuple[Any, Any, Any]] = {}
    level: list[Any] = []
    # The edge being judged: (its source's key, its event); turned into a trace only when one is needed.
    current: tuple[Any, Any] | None = None

    def trace() -> tuple[int, tuple]:
        if current is None:
            return 0, ()
        start, events = path_to(current[0])
        return start, events + (current[1],)

    def path_to(key: Any) -> tuple[int, tuple]:
        events: list[Any] = []
        while True:
            _, parent, via = stored[key]
            if parent is None:
                return via, tuple(reversed(events))
            events.append(via)
            key = parent

    try:
        _initial_closed(model, search, starts)
        for index, state in enumerate(starts):
            key = search.canon(state)
            if key not in stored:
                stored[key] = (state, None, index)
                level.append(key)
        depth = 0
        cut = ""
        while level:
            if max_depth is not None and depth >= max_depth:
                break
            following: list[Any] = []
            for key in level:
                state = stored[key][0]
                for event in model.alphabet(state):
                    current = (key, event)
                    edge = search.judged(state, event)
                    search.check_symmetry(state, event, edge)
                    if edge.violations:
                        return stored, {"depth": depth + 1, "violations": edge.violations, "trace": trace(), "search": search,
                                        "complete": False, "cut": ""}
                    target_key = search.canon(edge.target)
                    if target_key in stored:
                        representative = stored[target_key][0]
                        if not by_state:
                            image = _image_with_key(search, edge.target, search.raw(representative))
                            if image != representative:
                                search.check_merge(image, representative)
                        continue
                    stored[target_key] = (edge.target, key, event)
                    following.append(target_key)
                if len(stored) > max_states:
                    cut = "state limit"
                    break
                if time.monotonic() > deadline:
                    cut = "deadline"
                    break
            if cut:
                return stored, {"depth": depth, "violations": (), "trace": trace(), "search": search, "complete": False, "cut": cut}
            if following:
                depth += 1
            level = following
        return stored, {"depth": depth, "violations": (), "trace": trace(), "search": search, "complete": not level, "cut": ""}
    except (SymmetryBroken, _MergeFailed) as failure:
        failure.trace = trace()  # type: ignore[attr-defined]
        failure.search = search  # type: ignore[attr-defined]
        raise


def _image_with_key(search: _Search, state: Any, wanted: Any) -> Any:
    """The image of ``state`` (itself or under one group element) whose raw key is the representative's."""
    if search.raw(state) == wanted:
        return state
    for element in search.elements:
        image = element.key(state)
        if search.raw(image) == wanted:
            return image
    return state


def search(
    model: Model, max_depth: int | None = None, max_states: int = 2_000_000, seconds: float = 600.0,
    out_dir: Path | None = None,
) -> SearchResult:
    """Search ``model``; on a broken reduction, search again without it (see the module docstring)."""
    started = time.perf_counter()
    deadline = time.monotonic() + seconds
    declared = tuple(model.symmetries)
    broken: list[SymmetryBreak] = []
    merge_broken: MergeBreak | None = None
    by_state = False
    while True:
        kept = tuple(p for p in declared if p.name not in {part for b in broken for part in b.parts})
        elements = group(kept)
        try:
            stored, found = _once(model, elements, by_state, max_depth, max_states, deadline)
            break
        except SymmetryBroken as failure:
            start, events = failure.trace  # type: ignore[attr-defined]
            element = failure.permutation
            image = tuple(element.event(e) for e in events)
            starts = tuple(model.initial())
            image_start = next((i for i, s in enumerate(starts) if model.key(s) == model.key(element.key(starts[start]))), start)
            files: tuple[Path, ...] = ()
            if out_dir is not None:
                files = (_save(model, start, events, out_dir, "kept"), _save(model, image_start, image, out_dir, "image"))
            broken.append(SymmetryBreak(symmetry=element.name, parts=element.parts, where=failure.where, detail=failure.detail,
                                        depth=len(events), kept=events, image=image, files=files))
        except _MergeFailed as failure:
            start, events = failure.trace  # type: ignore[attr-defined]
            files = (_save(model, start, events, out_dir, "merge"),) if out_dir is not None else ()
            merge_broken = MergeBreak(detail=failure.detail, depth=len(events), kept=events, files=files)
            by_state = True
    search_state: _Search = found["search"]
    saved = None
    start, path = found["trace"] if found["violations"] else (0, ())
    if found["violations"] and out_dir is not None:
        saved = _save(model, start, path, out_dir, "counterexample")
    return SearchResult(
        subject=model.subject, name=model.name, states=len(stored), edges=search_state.edges, depth=found["depth"],
        complete=found["complete"], seconds=time.perf_counter() - started, max_depth=max_depth, cut=found["cut"],
        violations=tuple(found["violations"]), start=start, path=path, saved=saved,
        symmetries=tuple(p.name for p in declared if p.name not in {part for b in broken for part in b.parts}),
        merge_pairs=search_state.merge_pairs, broken=tuple(broken), merge_broken=merge_broken,
    )


def _save(model: Model, start: int, events: tuple, out_dir: Path, label: str) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    safe = "".join(c if c.isalnum() else "-" for c in model.name).strip("-")
    return model.save(start, events, out_dir / f"{model.subject}-{safe}-{label}.json")
