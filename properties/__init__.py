"""The verification harness: one catalogue of invariants and the drivers that check it.

Drivers: Hypothesis state machines (``stateful``), an exhaustive explorer
(``explorer``), seeded bulk traces (``bulk``) and recorded replays
(``replay``). Every one of them checks the same named predicates from
``invariants``.
"""

from properties import work_bound

# Every loop of guard/ and reference/ counts its iterations from here on (issue 25): a step that never ends is
# reported as the invariant it breaks, with a counted, machine-independent bound, never left to hang the run.
work_bound.install()
