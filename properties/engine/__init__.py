"""The exhaustive engine: a breadth-first proof over any subject's model, one module per idea.

* ``model``: what a subject hands the engine (``Model``), and the optional
  ``Batched`` hook through which it expands whole levels itself;
* ``search``: the search (plain or batched), dropping a broken reduction and
  searching again;
* ``expand``: the engine's own expander, edge by edge, with every reduction
  checked (symmetry on every edge, merges by key as a bisimulation);
* ``levels``: the level loop and its limits (fixpoint, depth, states, deadline);
* ``store``: the keys reached and their parent links, and the routes back;
* ``result``: one row per configuration (``SearchResult``) and a run's rows;
* ``symmetry``: declared symmetries as permutations, their group, a break;
* ``pool``: a level split over forked processes; ``collector``: the garbage
  collector's settings during a search; ``cli``: the command line.

The budget (``properties.budget.explorer``) is a batched model on it.
"""
