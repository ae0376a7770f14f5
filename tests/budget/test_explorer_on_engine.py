"""The budget driven by the engine two ways: edge by edge through its plain model, and batched through its Expander.

The plain way steps decoded budgets through ``Monitor.step`` and B13's probe
for every edge and lets the engine canonicalize (the least image under the
declared symmetries) and check every symmetry on every edge; it shares no
cache with the Expander. Equal states, edges and verdicts on a small scope
and on the real limits (the unordered-ids path) say the Expander's caches and
its own canonical form change nothing the engine would not find itself.
"""

from __future__ import annotations

from guard.limits import Limits

from properties.budget import explorer
from properties.budget.copies import SPEC_LIMITS
from properties.catalogue import Tally
from properties.engine.search import search


def _both(config: explorer.Config) -> tuple[explorer.ConfigResult, object]:
    batched = explorer.explore(config, Tally())
    model = explorer.BudgetModel(config, explorer.canon_for(config))
    plain = search(model, max_depth=config.max_depth, seconds=None, batched=False)
    return batched, plain


def test_a_small_scope_is_the_same_proof_edge_by_edge_and_batched() -> None:
    config = explorer.small_scope("small c2 t2", explorer.small_limits(2, 2, 1, 1, 1, 1, 1))
    batched, plain = _both(config)
    assert batched.complete and plain.proved, plain.row()
    assert (plain.states, plain.edges) == (batched.states, batched.edges)
    assert plain.symmetries == batched.symmetries == ("lanes", "kinds")
    # The batched row counts the fixpoint's own level (it found nothing new); the plain one the farthest state.
    assert plain.depth + 1 == batched.depth


def test_the_real_limits_are_the_same_search_edge_by_edge_and_batched() -> None:
    config = explorer.Config("real limits", Limits(), 3, SPEC_LIMITS)
    batched, plain = _both(config)
    assert batched.finished and plain.proved, plain.row()
    assert (plain.states, plain.edges, plain.depth) == (batched.states, batched.edges, batched.depth)
