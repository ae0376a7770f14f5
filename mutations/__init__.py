"""Mutation testing for ``guard/``: mutmut (layer 1), the rule catalogue (layer 2) and the red check.

``python -m mutations`` (``nox -s mutants``) runs all three and writes
``reports/mutants.{md,json,html}``. It fails when any single rule of the
production guard could be broken without a test or an invariant noticing.
"""
