"""The events a trace is made of, shared by every driver, the replay tool and trace files.

A trace is what the agent host tells the budget, in order: model rounds, tool
receipts with their flags, the first tool call after a trip (admitted as the
refusal's remedy or not), and stops by another guard.
"""

from __future__ import annotations

from typing import Any, Union

import attrs

from properties.names import DISCOVERY_TOOLS


@attrs.frozen
class Round:
    """One model call: ``begin_model_round()``."""

    label: str = ""


@attrs.frozen
class Stop:
    """Another guard stopped the run: ``stop()``."""

    label: str = ""


@attrs.frozen
class FirstCall:
    """The first tool call after a trip; ``remedy`` is whether it binds a new project (seed 002)."""

    remedy: bool = False
    label: str = ""


@attrs.frozen
class Result:
    """One tool receipt with every flag either budget reads."""

    call_id: Any
    tool: Any = "read"
    params: Any = None
    failed: bool = False
    pending: bool = False
    discovery: bool = False
    lane: Any = None
    correctable: bool = False
    corrected: bool = False
    correctable_refusal: str | None = None
    empty_lookup: bool = False
    label: str = ""

    @property
    def neutral(self) -> bool:
        """A discovery success (duplicates are neutral too, but that depends on the budget's memory)."""
        return not self.failed and (bool(self.discovery) or self.tool in DISCOVERY_TOOLS)


Event = Union[Round, Stop, FirstCall, Result]

#: Names used in trace files and step tables.
EVENT_NAMES = {Round: "round", Stop: "stop", FirstCall: "first_call", Result: "result"}
