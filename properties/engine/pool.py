"""A breadth-first search split over the cores: this process expands the first slice of each level, forked
expanders the rest.

The pool knows no subject. An expander is anything with ``start()``,
``expand(states, depth) -> (children, found, edges)`` (children as
``(position, event number, child)``; ``found`` a tuple whose first item is the
position of the state it was found at, or None), a ``seen`` set, a ``known``
attribute and ``counts()``, a mergeable tally. Children are merged back in
frontier order, so states, edges, order and anything found are the same as
with one process. Each forked expander keeps its own caches, warm from level
to level.
"""

from __future__ import annotations

import multiprocessing
from typing import Any, Callable

from properties.engine.collector import freeze_level


def _worker(connection: Any, make: Callable[[], Any]) -> None:
    """A forked expander: per level, receive (new states, my slice, depth), send back children and what it found."""
    expander = make()
    expander.known = None
    expander.start()
    while True:
        message = connection.recv()
        if message is None:
            connection.send(expander.counts())
            connection.close()
            return
        fresh, start, stop, depth = message
        expander.seen.update(fresh)
        freeze_level()
        children, found, edges = expander.expand(fresh[start:stop], depth)
        connection.send((
            [(position + start, number, child) for position, number, child in children],
            found and (found[0] + start,) + tuple(found[1:]), edges,
        ))


class ForkPool:
    """``workers - 1`` forked expanders made by ``make``, beside ``local`` in this process."""

    def __init__(self, make: Callable[[], Any], workers: int, local: Any, tally: Callable[[], Any]) -> None:
        context = multiprocessing.get_context("fork")
        self.local = local
        self.tally = tally
        self.connections = []
        self.processes = []
        for _ in range(workers - 1):
            mine, theirs = context.Pipe()
            process = context.Process(target=_worker, args=(theirs, make), daemon=True)
            process.start()
            self.connections.append(mine)
            self.processes.append(process)

    def expand(self, frontier: list, depth: int) -> tuple[list, tuple | None, int]:
        size = len(frontier)
        count = len(self.connections) + 1
        bounds = [size * index // count for index in range(count + 1)]
        for index, connection in enumerate(self.connections, start=1):
            connection.send((frontier, bounds[index], bounds[index + 1], depth))
        children, found, edges = self.local.expand(frontier[: bounds[1]], depth)
        children = list(children)
        for connection in self.connections:
            their_children, theirs, their_edges = connection.recv()
            # Past the first slice that found something, later slices are not this search's: it ends there.
            if found is None:
                children.extend(their_children)
                found = theirs
                edges += their_edges
        # The next level's states are known to every forked expander (they receive the frontier); here too.
        self.local.seen.update(child for _position, _number, child in children)
        return children, found, edges

    def close(self) -> Any:
        """Every forked expander's counts, merged into a fresh tally; the processes joined."""
        total = self.tally()
        for connection in self.connections:
            connection.send(None)
            total.merge(connection.recv())
        for process in self.processes:
            process.join()
        return total
