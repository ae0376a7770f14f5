"""The budget's scopes for the review's exhaustive comparison: the explorer's small scopes, as limits a side builds.

Read by the product model (``properties.budget.review_model``) and by the
replay of a saved trace (``properties.budget.review_side``), so both rebuild a
scope's limits on each side the same way (``scope_limits``).
"""

from __future__ import annotations

from typing import Any

import attrs

#: The limits a scope scales; any other field keeps the side's own default.
SCALED = ("consecutive_failures", "total_failures", "rounds_without_progress", "identical_successes",
          "free_empty_lookups", "seen_calls", "successes")


@attrs.frozen
class Scope:
    name: str
    numbers: tuple[tuple[str, int], ...]
    fingerprints: bool

    @property
    def slug(self) -> str:
        return self.name.replace(" ", "-")


def _scopes() -> dict[str, Scope]:
    from properties.budget.explorer import configurations

    out = {}
    for config in configurations("default"):
        if config.max_depth is None:
            numbers = tuple((name, getattr(config.oracle, name)) for name in SCALED)
            # One fingerprint in every scope: the other two tripled the pairs, and identical-success accounting is a
            # rule no seed touches (the explorer leaves them out of its larger scopes for the same reason).
            out[config.name] = Scope(config.name, numbers, False)
    return out


SCOPES = _scopes()
#: The scopes a review searches: the explorer's three smallest (its quick set's). Its two fuse scopes (consecutive
#: 3/total 5, 4/6) took minutes per product search on a loaded machine and are searched only when named
#: (``python -m properties.review.exhaustive --scope "small c4 t6"``).
REVIEW_SCOPES = ("small c1 t2", "small c2 t2", "small c1 t3")


def scope_named(name: str) -> Scope:
    """A scope by its name or its slug (``small-c1-t2``); KeyError names the known ones."""
    for scope in SCOPES.values():
        if name in (scope.name, scope.slug):
            return scope
    raise KeyError(f"no budget scope {name!r}; known: {', '.join(SCOPES)}")


def scope_limits(limits_class: Any, scope: Scope) -> Any:
    """The side's ``Limits`` with the scope's numbers, and its own default for the rest (and for a number its
    ``Limits`` has no field for, which is left out)."""
    own = {field.name for field in attrs.fields(limits_class)}
    return limits_class(**{name: value for name, value in scope.numbers if name in own})


def scope_limits_value(limits: Any, name: str, default: int) -> int:
    return int(getattr(limits, name, default))
