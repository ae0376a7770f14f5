"""``python -m properties.review BASE``: what a change does to the promises, on one page (``nox -s review``).

The harness judges a tree; a reviewer judges a change. The review compares
BASE (any commit-ish, checked out into a temporary ``git worktree``) with
HEAD (the current checkout, which must be clean: a dirty tree is not a
commit the review could name):

1. ``changes``: the functions of ``guard/`` and ``reference/`` added, removed
   or edited, by qualified name, with the seeds their rule comments name, the
   catalogue entries whose spans lie in them, and whether ``reference/``
   changed without adoption (its pin).
2. ``behaviour``: every subject's guard at BASE and at HEAD driven by the
   same seeded bulk work (the budget's traces, the hook path's sequences,
   navigation's scenarios, the lookup classifier's receipts; the side module
   each subject names in ``Subject.review``, found through the registry), observable by observable;
   and ``product`` with ``exhaustive``: BASE's and HEAD's guard in one
   product model searched by ``properties.engine.search`` on small scopes,
   one shortest distinguishing trace per kind of difference, or equality
   proved to the fixpoint: the budget's two guards in one process
   (``properties.budget.review_model``), the hook path's and navigation's as the trees of every
   run of their verdict scopes, each written by its side's own interpreter
   (``recorded``). Each distinguishing item is saved in its subject's file
   format.
3. the verdict (``python -m properties``) on both sides with the same seed.
4. ``mutations.review``: mutmut on the changed functions only, the catalogue
   entries inside them, and the tests the change added or edited run against
   BASE's ``guard/``; a survivor in a function BASE had too is new only if
   its twin at BASE (the same mutation of the same function) was killed
   there (``against_base``), else it is carried over.
5. ``render``: ``reports/review.md``, ``reports/review.json`` and the changed
   code's mutants as Stryker JSON, with each phase's wall and CPU seconds.

Not built yet: the issue's time goal (at most 2.5 times one default run):
the two whole verdicts alone cost about 2.5 times one run's CPU (README,
"Reviewing a change").
"""
