"""H11's oracle: classifiers.md's "failed outcome" and hooks.md's binding, restated without ``guard/``.

classifiers.md: a receipt is a failure when the event carries an error, or
when, walking the result and then ``details.result`` at most three levels
deep (stopping at the first value that is not an object), a level has
``isError`` exactly true, a ``details.status`` of failed, error or blocked, or
an integer (never a bool) ``details.exitCode`` other than 0.

hooks.md adds, for the hook path: the tool's own record, when it was kept for
the bound call, is what gets classified; without a record a capped copy
cannot be classified and is charged at once. Where the spec is silent the
guard's documented choices are taken as the expectation (``guard/hooks.py``
module notes), and each is said here so that a reviewer can disagree:

* with a record, the receipt is still a failure when the hook's own receipt
  says ``isError`` or ``after_tool_call`` carried an error;
* a call the guard refused is a failure whatever receipt the host sends for it.
"""

from __future__ import annotations

from typing import Any

FAILED_STATUSES = ("failed", "error", "blocked")
LEVELS = 3


def spec_failed(result: Any, error: Any = None) -> bool:
    """classifiers.md's failed outcome, restated."""
    if error:
        return True
    level = result
    for _ in range(LEVELS):
        if not isinstance(level, dict):
            return False
        details = level.get("details")
        if level.get("isError") is True:
            return True
        if not isinstance(details, dict):
            return False
        code = details.get("exitCode")
        if details.get("status") in FAILED_STATUSES or (isinstance(code, int) and not isinstance(code, bool) and code != 0):
            return True
        level = details.get("result")
    return False


def capped_copy(message: Any) -> bool:
    """The host's stub of a persisted copy above 8 KiB (hooks.md)."""
    details = message.get("details") if isinstance(message, dict) else None
    return isinstance(details, dict) and details.get("persistedDetailsTruncated") is True


def expected_failed(receipt: Any, error: Any, *, bound: bool, record: Any, refused: bool) -> bool:
    """Whether a counted receipt must reach the budget as a failure.

    ``bound``: the receipt is its pending call's (the generator's ground truth); ``record``: the tool's own
    record kept for that call, or None; ``refused``: the guard refused the call at ``before_tool_call``.
    """
    if bound and refused:
        return True
    source = record if bound and record is not None else receipt
    if source is receipt and capped_copy(receipt):
        return True
    return spec_failed(source, error) or (isinstance(receipt, dict) and receipt.get("isError") is True)


#: classifiers.md: the inspection tool's receipts carry this ``details.kind``.
INSPECTION_KIND = "ods-pixel-preview-inspection"
#: classifiers.md: the last step's error codes that name a locator the model can fix.
LOCATOR_ERRORS = frozenset({"no_match", "selector_not_unique", "invalid_selector"})


def _inspection_details(result: Any) -> "dict | None":
    if not isinstance(result, dict):
        return None
    details = result.get("details")
    return details if isinstance(details, dict) and details.get("kind") == INSPECTION_KIND else None


def spec_correctable(result: Any) -> bool:
    """classifiers.md's correctable inspection failure: ``isError`` exactly true, the inspection's kind, and either a
    request rejected before it ran, a transition left untested, or a failure that measured nothing (no error code,
    no page errors, no blocked request, and a last step that names a locator)."""
    details = _inspection_details(result)
    if details is None or result.get("isError") is not True:
        return False
    status, code = details.get("status"), details.get("errorCode")
    if (status, code) in (("failed", "invalid_request"), ("incomplete", "transition_untested")):
        return True
    if status != "failed" or "errorCode" in details or "pageErrors" in details:
        return False
    blocked, steps = details.get("blockedRequests"), details.get("steps")
    if not isinstance(blocked, list) or blocked or not isinstance(steps, list) or not steps:
        return False
    return isinstance(steps[-1], dict) and steps[-1].get("errorCode") in LOCATOR_ERRORS


def spec_passed(result: Any) -> bool:
    """classifiers.md's passed inspection: ``isError`` not true, the kind, ``status`` passed, no page errors."""
    details = _inspection_details(result)
    return details is not None and result.get("isError") is not True and details.get("status") == "passed" \
        and not details.get("pageErrors")


def expected_inspection_flags(receipt: Any, *, record: Any, wrapped: bool) -> "tuple[bool, bool] | None":
    """(correctable, corrected) that a bound receipt of the inspection tool must reach the budget with, or None when
    it earns neither (a capped copy without a record: charged at once, unclassified; hooks.md).

    What is classified (hooks.md, seed 001): the tool's own record when it was kept for the call, else the
    receipt, unwrapped from its Tool Search envelope (``details.result``) when the call went through Tool Search.
    """
    if record is not None:
        inner = record
    elif capped_copy(receipt):
        return None
    elif wrapped:
        details = receipt.get("details") if isinstance(receipt, dict) else None
        inner = details.get("result") if isinstance(details, dict) else None
    else:
        inner = receipt
    return spec_correctable(inner), spec_passed(inner)
