"""What a subject hands the review (``nox -s review``) so that its behaviour is compared at BASE and at HEAD.

A subject whose behaviour the review compares names a *review side* module
in its ``SUBJECT`` (``Subject.review``, by convention its folder's
``review_side.py``); the review reaches it only through the registry. A
side module holds:

* ``SUBJECT``, ``UNIT`` (what one bulk item is called: "traces") and
  ``OBSERVABLES``, the names of what one row shows;
* ``OPTION`` and ``DEFAULT_COUNT``: the review's command-line option for
  how many bulk items are compared (``--traces``) and its default, which is
  the verdict's own count, so that the review compares the very items the
  verdict checks; ``MINIMUM_COUNT`` (0: the option can switch it off);
* ``bulk(seed, count)``: the seeded bulk items ``python -m properties --seed
  S`` checks; ``rows_of(item)``: one row of observables per step, played
  against whichever ``guard/`` the interpreter imports;
* ``steps_of``, ``prefix``, ``limits``, ``save(item, path, origin, limits)``,
  ``load(path) -> (item, origin)`` and ``describe``: one item shown, cut
  and kept in the subject's own file format;
* for the exhaustive comparison, either ``COMPARABLE`` (``"module:NAME"`` of
  a product model that imports both guards into one process, as the budget's
  ``review_model``) or the scope trees the review records side by side
  (``default_scopes``, ``scope_model``, ``tree``, ``after_end``,
  ``save_path``, ``describe_token``).

Side modules import this core module and their own subject's, never the
review: the review sits above the subjects (``pyproject.toml``'s layers).
"""

from __future__ import annotations

from typing import Any

#: The value of an observable a side's guard does not report (an older BASE's outcome without a field HEAD
#: added): it is shown, never compared, so a field one side lacks is no behaviour change.
UNREPORTED = "(not reported)"


def scope_of(scopes: Any, name: str, subject: str) -> Any:
    """The model named ``name`` among ``scopes(mode)`` of any mode (quick, default, thorough): a side's scope tree
    (``--tree``) and the exhaustive comparison name a scope by the verdict's own model of it."""
    for mode in ("quick", "default", "thorough"):
        for model in scopes(mode):
            if model.name == name:
                return model
    raise KeyError(f"no {subject} scope {name!r}")
