"""The earlier run-progress budget, frozen: the oracle the production guard is compared with.

Nothing here imports from ``guard``; ``tests/test_reference_pin.py`` pins the
source so that the oracle cannot drift by accident. Adopt a new reference only
with ``nox -s adopt-reference``.
"""

from reference.budget import DISCOVERY_TOOLS, LANES, ReferenceBudget, ReferenceLimits

__all__ = ["DISCOVERY_TOOLS", "LANES", "ReferenceBudget", "ReferenceLimits"]
