"""The red check's earlier behaviours, one module each, put back behind the production interface in a scratch copy.

Each module defines ``earlier(namespace, rules)``: the object that replaces
one production definition (``mutations.red_check.VARIANTS`` says which) in a
scratch copy's ``guard/`` module, built from that module's own namespace (the
production records it must return) and ``rules``, the reference's module of
the earlier rules (copied into the copy's ``guard/``, so the copy's guard still
imports nothing from ``reference``), or None when the variant needs none.
The modules import nothing from ``guard`` or ``reference`` themselves: they are
copied into ``guard/`` as they are, and can be built against the real tree in
a test (``tests/core/test_red_check_earlier.py``).
"""
