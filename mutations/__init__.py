"""Mutation testing for ``guard/``: mutmut (layer 1), the rule catalogue (layer 2) and the red check.

``nox -s mutants`` (``python -m mutations``) runs all three and writes
``reports/mutants.md``, ``reports/mutants.json`` (Stryker mutation-testing
report schema 2) and ``reports/mutants.html`` (self-contained). It exits 1
when any single rule of the production guard could be broken without a test
or an invariant noticing, 2 on a usage error.

Options: ``--only-mutmut``, ``--only-catalogue`` (catalogue and red check),
``--jobs N`` (mutmut's ``--max-children`` and the catalogue's workers,
default 2), ``--seed N`` (passed to the property drivers, printed).

Modules: ``mutmut_layer`` (drives ``mutmut run``, reads ``mutants/**/*.meta``,
judges ``equivalents.toml``), ``entry`` (the model of a named rule mutation),
``entries/`` (one file of entries per subject), ``catalogue`` (assembles and
checks them, levels from the registry) and ``catalogue_runner`` (applies each,
warm or to a scratch copy, see ``scratch``), ``red_check`` (the earlier
behaviours of ``earlier/`` behind the new interface), ``content_cache`` (the
one content-hash cache of every layer), ``pytest_plugin`` (ordering, deadlines
and killer records for runs under mutation), ``report``.

``mutants/`` is mutmut's cache and is kept between runs: mutmut re-tests the
mutants of changed functions, and this package re-tests the verdicts an
edited test file could change (mutmut alone never notices edited tests).
"""
