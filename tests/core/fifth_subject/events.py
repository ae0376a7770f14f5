"""The counter's two events."""

from __future__ import annotations

import attrs


@attrs.frozen
class Up:
    pass


@attrs.frozen
class Down:
    pass


EVENT_NAMES = {Up: "up", Down: "down"}
