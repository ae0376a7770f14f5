"""Seeded random counter traces."""

from __future__ import annotations

import random
from typing import Any

from properties.counter.events import Down, Up


def trace(rng: random.Random, length: int = 12) -> list[Any]:
    return [Up() if rng.random() < 0.7 else Down() for _ in range(length)]
