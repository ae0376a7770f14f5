"""The engine's own expander for a ``Model``: every event of a state stepped by the model, every reduction checked.

It expands a level for the level loop (``properties.engine.levels``) one edge
at a time: the model's ``step`` runs the subject's real code, the edge's
judgement is the model's, and the successor is stored under the least key of
its images by the group of symmetries kept (``canon``). On the way it checks
what that merging assumes (``properties.engine.model``): for each group
element, the permuted state stepped with the permuted event reaches the
permuted successor, judged alike (``check_symmetry``); and a successor whose
key is stored with another state is checked against it as a bisimulation
(``check_merge``). A failed check is reported as what the level found (its
``broken`` item), never raised past the level.

This expander keeps the representatives in the store (``Store.states``), so it
runs in one process; a model that wants both cores supplies its own batched
expander (``properties.engine.model.Batched``).
"""

from __future__ import annotations

from collections import deque
from typing import Any, Hashable, Sequence

from properties.engine.levels import Bounds
from properties.engine.model import Edge, Model
from properties.engine.store import Store
from properties.engine.symmetry import Permutation, SymmetryBroken

#: How many state pairs one configuration's merge checks may step before the claim is withdrawn as unchecked.
MERGE_PAIR_LIMIT = 200_000


class MergeFailed(Exception):
    """Two merged states told apart by a step: the model's key forgets something the future reads."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class ModelExpander:
    """Expands levels of one search with a fixed group of checked symmetries and a fixed keying."""

    def __init__(self, model: Model, elements: tuple[Permutation, ...], by_state: bool, store: Store, bounds: Bounds) -> None:
        self.model = model
        self.elements = elements
        #: Key states by themselves as well (nothing forgotten): the keying once a merge was found unsound.
        self.by_state = by_state
        self.store = store
        self.bounds = bounds
        self.pairs_done: set[tuple[Any, Any]] = set()
        self.merge_pairs = 0
        self.known: int | None = 0

    def raw(self, state: Any) -> Hashable:
        return (self.model.key(state), state) if self.by_state else self.model.key(state)

    def canon(self, state: Any) -> Any:
        """The least key among the state's images (the identity's included)."""
        best = self.raw(state)
        for element in self.elements:
            image = self.raw(element.key(state))
            if image < best:  # type: ignore[operator]
                best = image
        return best

    def start(self) -> tuple[list, tuple]:
        """Check the initial states closed under the group, store their keys; (the first level, nothing found)."""
        starts = tuple(self.model.initial())
        keys = {self.model.key(state) for state in starts}
        for element in self.elements:
            for state in starts:
                if self.model.key(element.key(state)) not in keys:
                    raise SymmetryBroken(element, "the initial states", "not closed under the permutation")
        level = []
        for index, state in enumerate(starts):
            key = self.canon(state)
            if self.store.add_start(key, index, state):
                level.append(key)
        return level, ()

    def expand(self, keys: Sequence[Hashable], depth: int) -> tuple[list, tuple | None, int]:
        """Children ``(position, event, key)`` new to the store; what was found (see ``levels.Found``); edges taken."""
        children: list = []
        states = self.store.states
        assert states is not None, "the model expander keeps its representatives in the store"
        edges = 0
        for position, key in enumerate(keys):
            if self.bounds.past_deadline():
                return children, (position, None, (), False, None, "deadline"), edges
            state = states[key]
            for event in self.model.alphabet(state):
                edges += 1
                edge = self.model.step(state, event)
                try:
                    self.check_symmetry(state, event, edge)
                except SymmetryBroken as broken:
                    return children, (position, event, (), False, broken), edges
                if edge.violations:
                    return children, (position, event, edge.violations, False), edges
                target_key = self.canon(edge.target)
                if target_key in states:
                    if not self.by_state:
                        representative = states[target_key]
                        image = self.image_with_key(edge.target, self.raw(representative))
                        if image != representative:
                            try:
                                self.check_merge(image, representative)
                            except MergeFailed as failed:
                                return children, (position, event, (), False, failed), edges
                    continue
                states[target_key] = edge.target
                children.append((position, event, target_key))
        return children, None, edges

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
                raise MergeFailed(f"more than {MERGE_PAIR_LIMIT:,} merged pairs to check")
            events = tuple(self.model.alphabet(first))
            if tuple(map(repr, events)) != tuple(map(repr, self.model.alphabet(second))):
                raise MergeFailed("two merged states offer different events")
            for event in events:
                one, other = self.model.step(first, event), self.model.step(second, event)
                if one.judgement() != other.judgement():
                    raise MergeFailed(f"after {self.model.describe(event)}: judged {one.judgement()} against {other.judgement()}")
                if self.model.key(one.target) != self.model.key(other.target):
                    raise MergeFailed(f"after {self.model.describe(event)}: their successors' keys differ")
                if one.target != other.target:
                    queue.append((one.target, other.target))

    def image_with_key(self, state: Any, wanted: Any) -> Any:
        """The image of ``state`` (itself or under one group element) whose raw key is the representative's."""
        if self.raw(state) == wanted:
            return state
        for element in self.elements:
            image = element.key(state)
            if self.raw(image) == wanted:
                return image
        return state
