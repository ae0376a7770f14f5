"""The verification harness: one catalogue of invariants and the drivers that check it.

Drivers: Hypothesis state machines (``stateful``), an exhaustive explorer
(``explorer``), seeded bulk traces (``bulk``) and recorded replays
(``replay``). Every one of them checks the same named predicates from
``invariants``.
"""
