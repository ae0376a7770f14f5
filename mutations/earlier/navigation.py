"""``earlier-navigation``: the reference's blind wait behind the production ``navigate`` (seed 003).

No observation, no bounds, no synthesis; best-effort teardown. The earlier
outcome is returned in the production record.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable, Mapping


def earlier(namespace: Mapping[str, Any], rules: ModuleType | None) -> Callable[..., Any]:
    """The function that replaces ``navigate`` in the module whose globals are ``namespace`` (its ``Outcome`` and
    ``NavigationLimits``), waiting as ``rules.navigate`` (the reference's) does."""
    if rules is None:
        raise ValueError("earlier-navigation needs the reference's navigation")
    outcome_type = namespace["Outcome"]
    wait = rules.navigate
    # Production's default, made once as its own is (at definition).
    default_limits = namespace["NavigationLimits"]()

    def navigate(request: Any, ports: Any, limits: Any = default_limits) -> Any:
        earlier_outcome = wait(request, ports.clock, ports.spawner, ports.teardown)
        return outcome_type(earlier_outcome.answer, earlier_outcome.truncated, earlier_outcome.error,
                            earlier_outcome.citations, earlier_outcome.finished_at)

    navigate.__module__ = namespace["__name__"]
    navigate.__qualname__ = "navigate"
    return navigate
