"""What a search reports: one row per configuration (``SearchResult``) and a run's rows together (``Results``).

Every subject's search gives a ``SearchResult``; a subject may extend it with
fields of its own (the budget's ``ConfigResult`` adds its limits and the
canonical path beside the real one) and its own row layout, keeping these
fields and their meaning.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import attrs

from properties.catalogue import Violation
from properties.engine.symmetry import SymmetryBreak


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
        """Reached its fixpoint, or searched every trace up to its depth limit."""
        return self.complete or (self.max_depth is not None and self.depth >= self.max_depth and not self.cut)

    @property
    def proved(self) -> bool:
        """A claim the run stands behind: finished with nothing violated.

        A reduction found false (``broken``, ``merge_broken``) has already withdrawn the search that relied on it;
        this row is the search made again without it, which needs no assumption of its own, so it stands."""
        return self.finished and self.violation is None

    @property
    def reduced_as_declared(self) -> bool:
        """Every reduction the subject declared held: nothing searched again without a symmetry or a forgetting key."""
        return not self.broken and self.merge_broken is None

    @property
    def ok(self) -> bool:
        return self.proved

    @property
    def summary(self) -> str:
        """The configuration's parameters in one line, for the proof's summary ("" when the name says it all)."""
        return ""

    @property
    def states_per_second(self) -> float:
        return self.states / self.seconds if self.seconds > 0 else float("inf")

    @property
    def edges_per_second(self) -> float:
        return self.edges / self.seconds if self.seconds > 0 else float("inf")

    def found(self) -> str:
        """The search's own verdict, before any broken reduction is said."""
        if self.violation is not None:
            return f"VIOLATED {self.violation.invariant}"
        return "ok" if self.finished else f"CUT SHORT ({self.cut})" if self.cut else "CUT SHORT"

    def verdict(self) -> str:
        found = self.found()
        if self.broken:
            found = f"symmetry broken ({', '.join(b.symmetry for b in self.broken)}); searched again: {found}"
        if self.merge_broken is not None:
            found = f"merge broken; searched again keyed by whole states: {found}"
        return found

    def row(self) -> str:
        reach = "fixpoint" if self.complete else f"depth {self.depth}"
        merged = f"symmetries {' and '.join(self.symmetries)} checked on every edge" if self.symmetries else "no symmetry merged"
        lines = [
            f"{self.name:<20} {self.states:>9,} states {self.edges:>10,} edges  depth {self.depth:>3}  "
            f"{'complete' if self.complete else 'bounded ':<8}  {self.seconds:6.2f} s  {self.states_per_second:>9,.0f} states/s  "
            f"{self.verdict()}",
            f"{'':<20} ({reach}; {merged}; {self.merge_pairs:,} merged pairs checked)",
        ]
        lines.extend(f"{'':<20} {b.line()}" for b in self.broken)
        if self.merge_broken is not None:
            lines.append(f"{'':<20} {self.merge_broken.line()}")
        return "\n".join(lines)


@attrs.frozen
class Results:
    """A run's configurations in order, and the one counterexample it saved (anything with ``render()``)."""

    rows: tuple[SearchResult, ...]
    counterexample: Any = None
    #: The first line of ``render``.
    title: str = "exhaustive search (breadth first; the catalogue on every edge):"
    #: The declared symmetries' names in the order the proof's summary lists them (others follow, sorted).
    order: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """No violation, and every configuration finished: a proof cut short proves nothing."""
        return self.counterexample is None and all(row.violation is None and row.finished for row in self.rows)

    @property
    def states(self) -> int:
        return sum(row.states for row in self.rows)

    @property
    def edges(self) -> int:
        return sum(row.edges for row in self.rows)

    @property
    def seconds(self) -> float:
        return sum(row.seconds for row in self.rows)

    def render(self) -> str:
        lines = [self.title]
        lines.extend(row.row() for row in self.rows)
        lines.append(
            f"{'total':<20} {self.states:>9,} states {self.edges:>10,} edges  {self.seconds:.2f} s  "
            f"{self.states / self.seconds if self.seconds else 0:,.0f} states/s"
        )
        lines.extend(self.proved())
        if self.counterexample is not None:
            lines.append(self.counterexample.render())
        return "\n".join(lines)

    def proved(self) -> list[str]:
        """What the run proves: the scopes searched to their fixpoint, and how deep the bounded ones went."""
        complete = [row for row in self.rows if row.complete and row.violation is None]
        lines = []
        if complete:
            largest = max(complete, key=lambda row: row.states)
            about = f" ({largest.summary})" if largest.summary else ""
            lines.append(
                f"proved to the fixpoint: {', '.join(row.name + without_broken(row) for row in complete)}; largest "
                f"{largest.name}{about}, {largest.seconds:.1f} s; {merged_by(complete, self.order)}"
            )
        for row in self.rows:
            if row.max_depth is not None and row.finished and row.violation is None:
                lines.append(f"searched {row.name}{without_broken(row)} to depth {row.depth}: every trace of up to {row.depth} events")
        return lines


def without_broken(row: SearchResult) -> str:
    """How a proof differs from the set's: searched again without the symmetries the code under test broke."""
    if not row.broken:
        return ""
    return " (without " + " and ".join(part for broken in row.broken for part in broken.parts) + ", broken)"


def merged_by(rows: Sequence[SearchResult], order: Sequence[str] = ()) -> str:
    """The symmetries a set of proofs merged by, and whether every one of them was checked on every edge."""
    names = sorted({name for row in rows for name in row.symmetries},
                   key=lambda name: (list(order).index(name) if name in order else len(order), name))
    if not names:
        return "no symmetry merged"
    checked = all(getattr(row, "verified", True) for row in rows)
    return f"symmetries {' and '.join(names)} {'checked on every edge' if checked else 'NOT checked'}"
