"""Feeding H3's oracle one step of G's hooks, and what it then expects after each hook.

``follow_earlier`` walks the hook records of one step in order and tells the
oracle (``properties.hooks.earlier_stop.EarlierStop``) what the host did: a
model call, an owner cancel, a tool boundary, the receipts a result hook
counted. After each hook it keeps the oracle's view: the refusal it expects
at a boundary, whether its run is stopped, whether it has aborted.

The oracle is told each counted receipt's tool and params as the call's own
record has them, not as production handed them to its budget: the tool the
call was made with, and the params ``before_tool_call`` saw, whatever tool name
or executed params the receipt carries. hooks.md is silent on what the budget
is handed; this is guard/hooks.py's documented choice (the success fingerprint
uses the recorded tool and params, so both hooks fingerprint a receipt alike),
restated here so that a hook path handing its budget another tool or params
(issue 24: ``_count`` 24 and 25) parts from the oracle. A call that never
passed ``before_tool_call`` has no record: its receipt's tool is still the
call's, and its params are what production handed over, since the placeholder
the guard fingerprints such receipts with is its own word, which no spec names.
"""

from __future__ import annotations

from typing import Any

import attrs

from properties.hooks.earlier_stop import EarlierStop, Refusal
from properties.hooks.events import Call, HookEvent
from properties.hooks.shapes import NESTED_PREFIX, call_shape

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
    counted_ids: list[Any] = []  # a list: an unusable call id may be unhashable
    shape = call_shape(event.kind, event.index) if isinstance(event, Call) else None
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
                counted_ids.append(call_id)
                if shape is not None and isinstance(event, Call) and call_id == event.call_id:
                    tool = shape.tool
                    if event.binding != "no_before":
                        params = shape.params
                oracle.receipt(call_id, tool, params, failed)
        views.append(EarlierView(refusal, oracle.stopped, oracle.aborted))
    if (isinstance(event, Call) and views and not str(event.call_id).startswith(NESTED_PREFIX)
            and event.call_id not in counted_ids):
        # hooks.md "Events": both result hooks arrive for each call and the first one counts its receipt.
        views[-1] = attrs.evolve(views[-1], missing=f"{event.call_id}'s receipt never reached the budget")
    return views
