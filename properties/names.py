"""Names the harness uses in more than one place, each defined once (outside ``reference/``, which keeps its own).

These restate ``shared/spec/budget.md`` and ``hooks.md``; the harness does not
import them from ``guard/`` because the harness judges ``guard/``: a mutated
name there must not move the oracle with it.
"""

from __future__ import annotations

from typing import Any

#: The progress lanes a receipt may name (budget.md); any other value means no lane.
LANE_NAMES = ("workspace", "extension")
#: Lane values the generators draw: no lane, each real lane, and two values that must count as no lane.
LANE_VALUES: tuple[Any, ...] = (None, *LANE_NAMES, "fake-lane", 7)
#: The Playground router's correctable refusal kinds (seed 002, hooks.md).
FIRST_WRITE_KIND = "playground-first-write"
PROJECT_PATH_KIND = "playground-project-path"
REFUSAL_KINDS = (FIRST_WRITE_KIND, PROJECT_PATH_KIND)
#: Discovery tools: a success of one is neutral (budget.md; the same set as the reference's own).
DISCOVERY_TOOLS = frozenset({"tool_search", "tool_describe", "pixel_ods_skill"})
