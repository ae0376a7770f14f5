"""``python -m properties.review BASE``: what a change does to the promises, on one page (``nox -s review``).

The harness judges a tree; a reviewer judges a change. The review compares
BASE (any commit-ish, checked out into a temporary ``git worktree``) with
HEAD (the current checkout, which must be clean: a dirty tree is not a
commit the review could name):

1. ``changes``: the functions of ``guard/`` and ``reference/`` added, removed
   or edited, by qualified name, with the seeds their rule comments name, the
   catalogue entries whose spans lie in them, and whether ``reference/``
   changed without adoption (its pin).
2. ``behaviour``: the budget at BASE and at HEAD driven by the same seeded
   bulk traces, step by step, observable by observable; each shortest
   distinguishing trace saved as a ``guard-trace/1`` file.
3. the verdict (``python -m properties``) on both sides with the same seed.
4. ``mutations.review``: mutmut on the changed functions only, the catalogue
   entries inside them, and the tests the change added or edited run against
   BASE's ``guard/``.
5. ``render``: ``reports/review.md``, ``reports/review.json`` and the changed
   code's mutants as Stryker JSON.

Not built yet: the exhaustive half of part 2 (the explorer driving BASE and
HEAD side by side needs an engine that does not exist), and the behaviour
comparison of the hook path and of navigation (only the budget is compared).
"""
