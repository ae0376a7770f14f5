"""Feeding H3's oracle one step of G's hooks, and what it then expects after each hook.

``follow_earlier`` walks the hook records of one step in order and tells the
oracle (``properties.hooks.earlier_stop.EarlierStop``) what the host did: a
model call, an owner cancel, a tool boundary, the receipts a result hook
counted. After each hook it keeps the oracle's view: the refusal it expects
at a boundary, whether its run is stopped, whether it has aborted.
"""

from __future__ import annotations

from typing import Any

import attrs

from properties.hooks.earlier_stop import EarlierStop, Refusal
from properties.hooks.events import Call, HookEvent
from properties.hooks.shapes import NESTED_PREFIX

RESULT_HOOKS = frozenset({"after_tool_call", "tool_result_persist"})


@attrs.frozen
class EarlierView:
    """The oracle after one hook of G."""

    #: What a ``before_tool_call`` must show (None: the run is open there, or this is another hook).
    refusal: "Refusal | None"
    stopped: bool
    aborted: bool
    #: A receipt hooks.md says reaches the budget and did not (else "").
    missing: str = ""


def follow_earlier(oracle: EarlierStop, records: list, event: HookEvent) -> list[EarlierView]:
    """One view per record of G, feeding ``oracle`` as it goes."""
    views = []
    counted_ids: set[Any] = set()
    for record in records:
        refusal = None
        hook = record.hook
        if hook == "model_call":
            oracle.model_call()
        elif hook == "owner_cancel":
            oracle.owner_cancel()
        elif hook == "before_tool_call":
            refusal = oracle.boundary()
        elif hook in RESULT_HOOKS:
            for call_id, tool, params, failed in record.received:
                counted_ids.add(call_id)
                oracle.receipt(call_id, tool, params, failed)
        views.append(EarlierView(refusal, oracle.stopped, oracle.aborted))
    if isinstance(event, Call) and views and not event.call_id.startswith(NESTED_PREFIX) and event.call_id not in counted_ids:
        # hooks.md "Events": both result hooks arrive for each call and the first one counts its receipt.
        views[-1] = attrs.evolve(views[-1], missing=f"{event.call_id}'s receipt never reached the budget")
    return views
