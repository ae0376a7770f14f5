"""The states a search has reached, each with the step that first reached it: TLC's fingerprint set and parent links.

A search stores keys, never states: the key a model gives a state (or its
canonical form, the least of its images) is what the store holds, and each key
points at the key it was first reached from and what led there (``via``: an
event, or the event's number in the parent's alphabet; for a start, its index
in the model's initial states). Breadth first, the first parent of a key lies
on a shortest path to it, so following the links back gives a shortest route
from a start.

Models whose keys are not the states themselves keep one representative state
per key beside the links (``states``); a model whose key is its state (the
budget's canonical states) keeps none, and the store costs one dictionary
entry per key.
"""

from __future__ import annotations

from typing import Any, Hashable

#: The parent of a start: there is none.
START = None


class Store:
    """Every key reached, its parent link, and (when asked) one representative state per key."""

    def __init__(self, keep_states: bool = False) -> None:
        #: key -> (parent key or ``START``, via): read directly by the level loop, where a call per child would show.
        self.parents: dict[Hashable, tuple[Any, Any]] = {}
        self.states: dict[Hashable, Any] | None = {} if keep_states else None

    def __len__(self) -> int:
        return len(self.parents)

    def __contains__(self, key: Hashable) -> bool:
        return key in self.parents

    def add_start(self, key: Hashable, index: int, state: Any = None) -> bool:
        """Store a start (``index`` into the model's initial states); False when its key is stored already."""
        return self.add(key, START, index, state)

    def add(self, key: Hashable, parent: Any, via: Any, state: Any = None) -> bool:
        """Store ``key`` reached from ``parent`` by ``via``; False (and nothing changes) when it is stored already."""
        if key in self.parents:
            return False
        self.parents[key] = (parent, via)
        if self.states is not None:
            self.states[key] = state
        return True

    def state(self, key: Hashable) -> Any:
        """The representative kept for ``key`` (the key itself when the store keeps no states)."""
        return key if self.states is None else self.states[key]

    def chain(self, key: Hashable) -> list[Hashable]:
        """The keys from a start to ``key``, along the parent links."""
        chain = [key]
        while True:
            parent, _via = self.parents[key]
            if parent is START:
                break
            chain.append(parent)
            key = parent
        chain.reverse()
        return chain

    def route(self, key: Hashable) -> tuple[int, tuple]:
        """(the start's index, every ``via`` from it to ``key`` in order)."""
        vias: list[Any] = []
        while True:
            parent, via = self.parents[key]
            if parent is START:
                return via, tuple(reversed(vias))
            vias.append(via)
            key = parent
