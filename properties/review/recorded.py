"""The exhaustive comparison of the hook path and of navigation: every run of a scope, played by each side.

The budget's product (``properties.budget.review_model``) imports BASE's and
HEAD's ``guard/`` into one process. The hook path and navigation cannot be
driven that way without copying harness code: their delivery code
(``properties.hooks.deliver``, ``properties.navigation.scenario``) builds the
guard's own objects (decisions, messages, a spy budget subclass) from the
``guard`` package it imported. So each side plays the scope in its own
interpreter, whose ``guard`` is that side's and whose harness is HEAD's
(``behaviour.side_environment``, the bulk comparison's), and writes the
scope's *tree*: every run of the verdict's model of that scope
(``properties.hooks.model``, ``properties.navigation.model``), breadth
first, each node with what the side showed after its last event and the
events offered next (each side module's ``tree``;
``python -m properties.review.behaviour --subject S --tree SCOPE``).

``TableModel`` is one side's tree as an engine ``Model``, and
``RecordedComparable`` hands the two to ``properties.review.product``'s
``ProductModel``, searched by ``properties.engine.search`` like the
budget's: an observable that differs after a step is a violated equality,
found on a shortest run; a search that reaches its fixpoint proves the two
guards alike on every run of the scope.

Why this is exact (decisions where the issue is silent):

* Both models key a state by the run itself (the events, or the ending and
  the slices), so no two runs are merged, and the tree a side writes is that
  model's whole state space: nothing is sampled and nothing forgotten. The
  product's pair of keys is a pair of runs, the same run on both sides.
* A hook side's run ends where its own guard aborted it (the host delivers
  nothing more) or a hook raised; the other side may go on. Past its end a
  side shows the hook side's ``ENDED`` (every observable absent), so the side that
  went on differs in what it showed. A navigation request's end is the
  spec's (the navigation side's ``tree``), the same on both sides; past it a
  side's outcome is the one it had (a request that ended reads no later
  slice).
* The observables are the bulk comparison's own (each side's ``OBSERVABLES``,
  named in its module), read from the same per-step rows, so a
  saved run replays BASE beside HEAD with ``nox -s replay -- FILE`` as any
  bulk item does.
"""

from __future__ import annotations

import atexit
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any, Hashable, Sequence

import attrs

from properties.engine.model import Edge
from properties.engine.symmetry import Permutation
from properties.paths import ROOT, shared_dir
from properties.review import behaviour
from properties.guard_versions import GuardPackage

#: A node of a side's tree: (start, path) -> (events offered next, the row after the path's last event).
Node = tuple[tuple[Any, ...], "dict[str, Any] | None"]


class TreeError(RuntimeError):
    """A side could not write its tree (its interpreter failed): the comparison has no verdict for that scope."""


@attrs.define
class TableModel:
    """One side's tree of one scope as an engine ``Model``: a state is (start, path), the run itself."""

    subject: str
    name: str
    scope: str
    starts: tuple[int, ...]
    nodes: dict[tuple[int, tuple[Any, ...]], Node]
    symmetries: Sequence[Permutation] = ()

    def initial(self) -> Sequence[tuple[int, tuple[Any, ...]]]:
        return tuple((start, ()) for start in self.starts)

    def alphabet(self, state: tuple[int, tuple[Any, ...]]) -> Sequence[Any]:
        node = self.nodes.get(state)
        return () if node is None else node[0]

    def step(self, state: tuple[int, tuple[Any, ...]], event: Any) -> Edge:
        return Edge((state[0], state[1] + (event,)))

    def key(self, state: tuple[int, tuple[Any, ...]]) -> Hashable:
        return state

    def row(self, state: tuple[int, tuple[Any, ...]]) -> dict[str, Any]:
        """What the side showed after the run ``state``; past the end of its run, what its side module says."""
        node = self.nodes.get(state)
        if node is not None and node[1] is not None:
            return node[1]
        start, path = state
        for cut in range(len(path) - 1, 0, -1):
            held = self.nodes.get((start, path[:cut]))
            if held is not None and held[1] is not None:
                return dict(behaviour.side(self.subject).after_end(held[1]))
        return {}

    def save(self, start: int, events: Sequence[Any], path: Path, origin: str = "review") -> Path:
        """A hook sequence or scenario file of the run, with the scope's limits and ``origin`` in the format's own
        field for it (a hook sequence's name, a scenario's note)."""
        return behaviour.side(self.subject).save_path(self.scope, start, events, path, origin)

    def describe(self, event: Any) -> str:
        return str(behaviour.side(self.subject).describe_token(self.scope, event))


def read_tree(subject: str, lines: Sequence[str], label: str) -> TableModel:
    """A side's ``--tree`` output (a header line, then one node per line) as a ``TableModel``."""
    header = json.loads(lines[0])
    scope = str(header["scope"])
    nodes: dict[tuple[int, tuple[Any, ...]], Node] = {}
    starts: list[int] = []
    for line in lines[1:]:
        node = json.loads(line)
        path = tuple(node["path"])
        if not path:
            starts.append(int(node["start"]))
        nodes[(int(node["start"]), path)] = (tuple(node["offer"]), node["row"])
    return TableModel(subject, f"{label} {scope}", scope, tuple(starts), nodes)


@attrs.define
class RecordedComparable:
    """The ``product.Comparable`` of a subject whose sides write their trees in interpreters of their own."""

    subject: str
    _tables: dict[tuple[str, str], TableModel] = attrs.field(factory=dict)
    _work: "Path | None" = None

    @property
    def observables(self) -> tuple[str, ...]:
        return tuple(behaviour.side(self.subject).OBSERVABLES)

    def scopes(self) -> Sequence[str]:
        return tuple(behaviour.side(self.subject).default_scopes())

    def knows(self, scope: str) -> bool:
        try:
            behaviour.side(self.subject).scope_model(scope)
        except KeyError:
            return False
        return True

    def _folder(self) -> Path:
        if self._work is None:
            self._work = Path(tempfile.mkdtemp(prefix=f"guard-review-{self.subject}-"))
            atexit.register(shutil.rmtree, self._work, True)
        return self._work

    def prepare(self, guards: Sequence[GuardPackage], scopes: Sequence[str]) -> None:
        """Every side's tree of every scope, the sides' interpreters running at once (one core each)."""
        started: list[tuple[GuardPackage, str, Any, Path]] = []
        for guard in guards:
            for scope in scopes:
                if (str(guard.folder), scope) in self._tables:
                    continue
                number = len(started) + len(self._tables)
                overlay = self._folder() / f"overlay-{number}"
                env = behaviour.side_environment(ROOT, guard.folder, overlay)
                env["GUARD_SHARED"] = str(shared_dir())
                output = self._folder() / f"tree-{number}.jsonl"
                process = behaviour.start_side(env, overlay, ["--subject", self.subject, "--tree", scope], output)
                started.append((guard, scope, process, output))
        for guard, scope, process, output in started:
            _out, err = process.communicate()
            if process.returncode != 0:
                last = err.decode(errors="replace").strip().splitlines()[-1:] or ["no output"]
                raise TreeError(f"the {guard.label} side of the {self.subject} scope {scope!r} failed: {last[0]}")
            lines = output.read_text(encoding="utf-8").splitlines()
            self._tables[(str(guard.folder), scope)] = read_tree(self.subject, lines, guard.label)

    def model(self, guard: GuardPackage, scope: str) -> TableModel:
        if (str(guard.folder), scope) not in self._tables:
            self.prepare([guard], [scope])
        return self._tables[(str(guard.folder), scope)]

    def observe(self, model: TableModel, _before: Any, _event: Any, after: Any) -> dict[str, Any]:
        return model.row(after)

    def settled(self, model: TableModel, state: Any) -> bool:
        return not model.alphabet(state)

    def save(self, model: TableModel, start: int, events: Sequence[Any], path: Path, origin: str) -> Path:
        return model.save(start, events, path, origin)

