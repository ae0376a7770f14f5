"""The breadth-first level loop: expand a level, store what is new, stop at a fixpoint, a depth, a size or a time.

The loop knows no subject and no state: an *expander* turns a level (a list
of stored keys) into children ``(position, number, child key)``, ``position``
indexing the level and ``number`` naming the event (its number in the parent's
alphabet, or the event itself), and may report one thing it found there (a
``Found``: a violation, a broken reduction, or a deadline met inside the
level). Children are stored in the order given, so the first parent of a key
is the one on the shortest path and the earliest in the level's order; given
the same expander the outcome does not depend on how the level was split over
processes (``properties.engine.pool``).

Limits, checked after each level (an expander may also cut its own level
short at the deadline): ``max_depth`` (every trace of at most that many events:
finished, not complete), ``max_states`` (incomplete: proves nothing) and a
deadline (incomplete). The fixpoint is the level that adds no key: the search
is then complete.
"""

from __future__ import annotations

import sys
import time
from typing import Any, Callable, Hashable, Sequence

import attrs

from properties import progress
from properties.engine.collector import freeze_level
from properties.engine.store import Store

#: What an expander returns for a level: children, what it found (a raw tuple, see ``Found.of``), edges taken.
Expansion = tuple[list[tuple[int, Any, Hashable]], "tuple | None", int]


@attrs.frozen
class Bounds:
    """Where a search stops short of its fixpoint."""

    max_depth: int | None = None
    max_states: int = 2_000_000
    #: ``time.monotonic()`` past which the search stops, incomplete; None: no deadline.
    deadline: float | None = None

    def past_deadline(self) -> bool:
        return self.deadline is not None and time.monotonic() > self.deadline


@attrs.frozen
class Found:
    """What an expander found at one edge of a level; the search ends there.

    Raw, an expander returns a tuple (cheap to send between processes):
    ``(position, number, violations, probed)``, with a fifth item for a broken
    reduction (the exception that the check raised) and a sixth for a cut
    (``"deadline"``). ``probed``: found at the child that edge reached (a
    property of a state rather than of the step), not at the step itself.
    """

    position: int
    number: Any
    violations: tuple = ()
    probed: bool = False
    broken: Any = None
    cut: str = ""

    @classmethod
    def of(cls, raw: tuple) -> "Found":
        position, number, violations, probed, *rest = raw
        return cls(position, number, tuple(violations), probed, rest[0] if rest else None, rest[1] if len(rest) > 1 else "")


@attrs.define
class LevelRun:
    """How a level loop ended."""

    #: Levels expanded (the last one included, even when it added nothing: the fixpoint's own level).
    levels: int
    #: Levels that added a key: the distance of the farthest key from a start.
    deepest: int
    edges: int
    #: "" or why the loop stopped short: "state limit", "deadline".
    cut: str
    #: The last level expanded (what ``found`` indexes) or, when the loop went on, the next one (empty at the fixpoint).
    frontier: list
    #: The last level's children as the expander gave them (``found`` at a child is read from them).
    children: list
    found: Found | None

    @property
    def complete(self) -> bool:
        """Reached the fixpoint: every key expanded, nothing found, nothing cut."""
        return self.found is None and not self.cut and not self.frontier

    def child_at(self, position: int, number: Any) -> Hashable:
        """The child the edge ``(position, number)`` of the last level reached."""
        return next(child for at, n, child in self.children if at == position and n == number)


def run_levels(
    store: Store, frontier: list, expand: Callable[[list, int], Expansion], bounds: Bounds, local: Any = None,
    name: str = "", verbose: bool = False,
) -> LevelRun:
    """Expand ``frontier`` (stored already) level by level until the fixpoint or a bound; see the module docstring.

    ``local`` is the expander running in this process: it is told how many
    keys were known before each level (``known``), for its live progress.
    ``verbose`` prints every level's size on stderr (``--levels``).
    """
    parents = store.parents
    depth = deepest = edges = 0
    cut = ""
    children: list = []
    found: Found | None = None
    while frontier and (bounds.max_depth is None or depth < bounds.max_depth):
        # Everything stored so far outlives the level (``properties.engine.collector``).
        freeze_level()
        if local is not None:
            local.known = len(parents)
        if progress.active():
            levels = f"/{bounds.max_depth}" if bounds.max_depth is not None else ""
            progress.update(level=f"level {depth + 1}{levels}", states=len(parents), edges=edges, force=True)
        children, raw, level_edges = expand(frontier, depth)
        following: list = []
        for position, number, child in children:
            if child in parents:
                continue
            parents[child] = (frontier[position], number)
            following.append(child)
        edges += level_edges
        if raw is not None:
            found = Found.of(raw)
            if found.cut:
                cut = found.cut
                found = None
                frontier = following
                break
            depth += 1
            break
        depth += 1
        if following:
            deepest = depth
        frontier = following
        if verbose:
            print(f"  {name}: depth {depth}: {len(frontier)} new, {len(parents)} states, {edges} edges", file=sys.stderr, flush=True)
        if len(parents) > bounds.max_states:
            cut = "state limit"
            break
        if bounds.past_deadline():
            cut = "deadline"
            break
    return LevelRun(depth, deepest, edges, cut, frontier, children, found)


def store_starts(store: Store, keys: Sequence[Hashable], states: Sequence[Any] | None = None) -> list:
    """Store the starts' keys (each once, in order); the first level."""
    level = []
    for index, key in enumerate(keys):
        if store.add_start(key, index, None if states is None else states[index]):
            level.append(key)
    return level
