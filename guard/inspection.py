"""Seed 001's classifiers for the preview inspection tool's receipts.

A correctable failure measured nothing and already hands the model its fix,
so its charge may wait one result at the fuse. Anything that measured the
page (visibility mismatch, click failure, page errors, blocked requests, ...)
is never correctable: deferring it would keep a broken site's run alive.

Reading where the seed is silent: the locator rule asks for "no errorCode";
a receipt that carries the key at all, even as null, is not given the
allowance (the narrower reading is the safe one for a guard).
"""

from __future__ import annotations

from typing import Any

#: ``details.kind`` of the inspection tool's receipts.
INSPECTION_KIND = "ods-pixel-preview-inspection"

#: The registered tool whose receipts these classifiers read.
INSPECTION_TOOL = "pixel_ods_workspace_preview_inspect"

#: A last step that failed with one of these measured nothing: the locator was wrong.
LOCATOR_ERRORS = frozenset({"no_match", "selector_not_unique", "invalid_selector"})


def _inspection_details(result: Any) -> dict[str, Any] | None:
    if not isinstance(result, dict):
        return None
    details = result.get("details")
    if not isinstance(details, dict) or details.get("kind") != INSPECTION_KIND:
        return None
    return details


def correctable_inspection_failure(result: Any) -> bool:
    """True for an inspection failure that ran or measured nothing and names its own fix."""
    details = _inspection_details(result)
    if details is None or result.get("isError") is not True:
        return False
    status = details.get("status")
    code = details.get("errorCode")
    # Rejected before execution: nothing was measured.
    if code == "invalid_request" and status == "failed":
        return True
    # The requested transition was not tested; the receipt carries corrected steps.
    if status == "incomplete" and code == "transition_untested":
        return True
    if status != "failed" or "errorCode" in details or "pageErrors" in details:
        return False
    blocked = details.get("blockedRequests")
    steps = details.get("steps")
    if not isinstance(blocked, list) or blocked or not isinstance(steps, list) or not steps:
        return False
    last = steps[-1]
    return isinstance(last, dict) and last.get("errorCode") in LOCATOR_ERRORS


def passed_inspection(result: Any) -> bool:
    """True for an inspection that passed and recorded no page errors; only this forgives a waiting charge."""
    details = _inspection_details(result)
    if details is None or result.get("isError") is True:
        return False
    if details.get("status") != "passed":
        return False
    return not details.get("pageErrors")
