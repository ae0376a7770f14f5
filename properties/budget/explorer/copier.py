"""A copier for the budgets' attrs classes, generated from their fields: the search copies a budget per real step."""

from __future__ import annotations

from collections import deque
from typing import Any

import attrs


_CLONERS: dict[type, Any] = {}


def _make_cloner(budget: Any) -> Any:
    """Compile a copier for the budget's attrs class: containers copied once, everything else shared.

    Every field is an int, bool, str, None, a frozen limits value, or a dict,
    set or deque of those, so copying each container once is a deep copy. The
    plan is read from the fields' values (``attrs.fields``), so a subclass with
    the same fields (a planted bug in a test) is copied correctly too.
    """
    cls = type(budget)
    lines = ["def clone(budget):", "    twin = new(cls)"]
    for field in attrs.fields(cls):
        value = getattr(budget, field.name)
        suffix = ".copy()" if isinstance(value, (dict, set, deque)) else ""
        lines.append(f"    twin.{field.name} = budget.{field.name}{suffix}")
    lines.append("    return twin")
    namespace: dict[str, Any] = {"new": object.__new__, "cls": cls}
    exec("\n".join(lines), namespace)  # generated from attrs.fields only; no outside input
    return namespace["clone"]


def clone(budget: Any) -> Any:
    """A copy of a budget equal to ``copy.deepcopy(budget)`` except that the frozen limits are shared."""
    cloner = _CLONERS.get(type(budget))
    if cloner is None:
        cloner = _CLONERS[type(budget)] = _make_cloner(budget)
    return cloner(budget)
