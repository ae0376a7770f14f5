"""The system under judgement: a counter that never goes above its cap or below zero.

``COUNTER_PLANTED=1`` in the environment plants the bug C1 exists to catch (``up`` ignores the cap).
"""

from __future__ import annotations

import os

import attrs

CAP = 3


@attrs.define
class Counter:
    value: int = 0
    cap: int = CAP

    def up(self) -> None:
        if self.value < self.cap or os.environ.get("COUNTER_PLANTED") == "1":
            self.value += 1

    def down(self) -> None:
        if self.value > 0:
            self.value -= 1
