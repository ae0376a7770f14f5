"""The production run-progress guard: budgets, the classifiers that feed them, and the hook path.

Nothing here imports from ``reference``: the oracle must stay independent.
"""

from guard.budget import GLOBAL, LANES, RunProgressBudget
from guard.inspection import correctable_inspection_failure, passed_inspection
from guard.limits import Limits
from guard.lookup import lookup_found_nothing
from guard.outcome import failed_outcome
from guard.playground import RoutingState, binds_new_project

__all__ = [
    "GLOBAL",
    "LANES",
    "Limits",
    "RoutingState",
    "RunProgressBudget",
    "binds_new_project",
    "correctable_inspection_failure",
    "failed_outcome",
    "lookup_found_nothing",
    "passed_inspection",
]
