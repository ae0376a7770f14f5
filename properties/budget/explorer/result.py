"""The explorer's report rows: one per configuration (``ConfigResult``) and the run's (``ExplorerResult``)."""

from __future__ import annotations


import attrs

from properties.budget.counterexample import Counterexample
from properties.engine.result import Results, SearchResult
from properties.budget.events import Event
from properties.catalogue import Tally


@attrs.frozen
class ConfigResult(SearchResult):
    """The engine's row for one budget configuration, extended with what the budget's report shows beside it."""

    subject: str = "budget"
    #: The configuration's limits in one line (``Config.summary``).
    limits: str = ""
    #: ``path`` replays as it is: False only when no real trace follows the canonical path (see ``counterexample_path``).
    exact: bool = True
    #: The events of the search's parent links, each read from a canonical state: not a trace (lanes, kinds
    #: and ids may switch midway); kept for comparison.
    canonical_path: tuple[Event, ...] | None = None
    #: This configuration's own check counts (also merged into the caller's tally).
    tally: Tally = attrs.field(factory=Tally, eq=False, repr=False)
    #: The canonical states reached, when asked for (``keep_states``; the tests compare canonical forms).
    reached: frozenset = attrs.field(default=frozenset(), eq=False, repr=False)
    #: Whether the symmetries were checked; False only when a caller turned the checks off (``Canon.verify``).
    verified: bool = True

    @property
    def summary(self) -> str:
        return self.limits

    @property
    def finished(self) -> bool:
        """Reached its fixpoint (a small scope) or its depth (the real limits); not cut short by ``MAX_STATES``."""
        if self.complete:
            return True
        return self.max_depth is not None and self.depth >= self.max_depth

    @property
    def symmetry_text(self) -> str:
        """What the search merged by: the symmetries checked, or none."""
        if not self.symmetries:
            return "no symmetry merged"
        return f"symmetries {' and '.join(self.symmetries)} {'checked on every edge' if self.verified else 'NOT checked'}"

    def row(self) -> str:
        reach = "fixpoint" if self.complete else f"depth {self.depth}"
        verdict = self.verdict()
        lines = [
            f"{self.name:<20} {self.states:>9,} states {self.edges:>10,} edges  depth {self.depth:>3}  "
            f"{'complete' if self.complete else 'bounded ':<8}  {self.seconds:6.2f} s  "
            f"{self.states_per_second:>9,.0f} states/s  {self.edges_per_second:>9,.0f} edges/s  {verdict}",
            f"{'':<20} {self.limits}  ({reach}; {self.symmetry_text})",
        ]
        lines.extend(f"{'':<20} {broken.line()}" for broken in self.broken)
        return "\n".join(lines)


#: The first line of the explorer's report.
EXPLORER_TITLE = "exhaustive explorer (breadth first; every invariant on every edge, B13 once per distinct state of P):"


@attrs.frozen
class ExplorerResult(Results):
    """The explorer's configurations of one run, and its counterexample (``properties.budget.counterexample``)."""

    counterexample: Counterexample | None = None
    title: str = EXPLORER_TITLE
    order: tuple[str, ...] = ("lanes", "kinds")
