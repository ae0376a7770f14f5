"""The counter's one recorded session."""

from __future__ import annotations

from typing import Any

from properties.counter.events import Down, Up


def recorded() -> list[Any]:
    return [Up(), Up(), Up(), Up(), Down()]
