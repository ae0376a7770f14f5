"""H3's oracle: the stop the earlier hook path gives, restated from ``shared/spec/hooks.md`` over the reference budget.

H3 says that whenever no allowance applied, the stop is the reference's: the
same call refused, with the same text, and one abort. The oracle here runs
none of ``guard/``: the frozen ``reference.budget.ReferenceBudget`` decides
when the run stops, and this module restates what hooks.md and seed 002 say
the hook path then shows. It is fed, hook by hook, what the host did:

* each model call is one ``begin_model_round`` (hooks.md "Events");
* an owner cancel stops the run for good (seed 002: cancelled runs are never
  re-opened), with nothing shown but the stop;
* each receipt that reached production's budget (call id, tool, params,
  failed; the seeds' flags dropped, since the earlier path had none) is
  observed by the reference budget, whose own seen-calls rule ignores the
  second hook of a call (hooks.md "Events": the first hook to count a receipt
  observes it);
* each ``before_tool_call`` is a tool boundary: while the run is stopped it
  is refused, the first time with the finalization instruction, every later
  time with the stop text, and the run aborts at the first stop text
  (hooks.md "After the fuse"; seed 002's table, calls 7 and 8: "refused with
  the finalization instruction", then "refused, and the run is aborted").
  A strict-stop or cancelled run shows no instruction (seed 002: "Strict-stop
  runs are the ones whose finalization phase is unavailable").

What this oracle does not restate: whether a receipt is a failure (the
classifiers and the binding) and the Playground router's refusals while the
run is open. Those are inputs here, taken from what production's hooks
counted, and other invariants judge them (H2, H8, H9; the router's kinds by
H4 and H5). The texts: the stop text's head is the recorded session's (fixture
``photo-renamer-bfb62a2b.json``); the instruction's words are in no spec, so
the oracle asks only that it is not the stop text and is the same text at
every trip.
"""

from __future__ import annotations

from typing import Any

import attrs

from properties.hooks.shapes import STOP_HEAD
from reference.budget import ReferenceBudget, ReferenceLimits

#: The stop text as far as the recorded photo-renamer session shows it (its call 8's persisted copy).
RECORDED_STOP_HEAD = (
    STOP_HEAD + " Saved files and previously verified publications were preserved. The full request was not "
    "completed; continue from"
)

#: The finalization phase as hooks.md names it: running, stopped with the instruction not yet shown
#: (``pending``), the instruction shown, or never to be shown (strict stop, owner cancel).
RUNNING, PENDING, SHOWN, NEVER = "running", "pending", "shown", "never"


def reference_budget(limits: "tuple[tuple[str, int], ...]" = ()) -> ReferenceBudget:
    """The reference budget under a sequence's scaled-down limits (those the reference has; the seeds' allowances
    are production's alone, so their caps are not the reference's business)."""
    shared = {name: value for name, value in limits if name in attrs.fields_dict(ReferenceLimits)}
    return ReferenceBudget(ReferenceLimits(**shared))


@attrs.frozen
class Refusal:
    """What the oracle expects at one tool boundary of a stopped run."""

    #: "instruction" or "stop".
    shows: str
    #: Whether this boundary is the run's abort.
    aborts: bool


@attrs.define(slots=True, eq=False)
class EarlierStop:
    """The earlier hook path's stop for one run: the reference budget, the phase, the one abort."""

    strict_stop: bool
    budget: ReferenceBudget = attrs.field(factory=ReferenceBudget)
    phase: str = RUNNING
    aborted: bool = False

    @property
    def stopped(self) -> bool:
        return self.budget.terminal

    def model_call(self) -> None:
        was = self.budget.terminal
        self.budget.begin_model_round()
        self.note_stop(was)

    def owner_cancel(self) -> None:
        self.budget.stop()
        # Seed 002: an owner-cancelled run is never re-opened, so nothing but the stop is shown.
        self.phase = NEVER

    def receipt(self, call_id: Any, tool: Any, params: Any, failed: bool) -> None:
        was = self.budget.terminal
        self.budget.observe_result(call_id, tool, params, failed)
        self.note_stop(was)

    def boundary(self) -> "Refusal | None":
        """A ``before_tool_call``: None while the run is open, else what the refusal must show."""
        if not self.budget.terminal:
            return None
        if self.phase == PENDING:
            # hooks.md: "the next tool boundary delivers" the instruction.
            self.phase = SHOWN
            return Refusal("instruction", aborts=False)
        # Seed 002, call 8: a later refusal shows the stop and aborts the run, once.
        first = not self.aborted
        self.aborted = True
        return Refusal("stop", aborts=first)

    def note_stop(self, was_terminal: bool) -> None:
        if was_terminal or not self.budget.terminal or self.phase != RUNNING:
            return
        # hooks.md: a stop leaves the instruction pending; seed 002: a strict-stop run has none to show.
        self.phase = NEVER if self.strict_stop else PENDING


def refusal_problem(expected: "Refusal | None", block: bool, reason: Any, instruction_seen: "str | None") -> "str | None":
    """Why a ``before_tool_call`` decision differs from the oracle's (None: it agrees).

    ``instruction_seen`` is the instruction text met earlier (the same text at every trip), or None.
    Open-run refusals are the router's, not the stop's: only the stop's two texts are barred there.
    """
    text = reason if isinstance(reason, str) else ""
    if expected is None:
        if block and (text.startswith(STOP_HEAD) or (instruction_seen is not None and text == instruction_seen)):
            return f"refused with the stop's text {text[:50]!r} while the reference's run is open"
        return None
    if not block:
        return f"let through while the reference's run is stopped (expected the {expected.shows})"
    if expected.shows == "stop":
        if not text.startswith(RECORDED_STOP_HEAD):
            return f"refused with {text[:50]!r} where the reference shows the stop text"
        return None
    if not text or text.startswith(STOP_HEAD):
        return f"refused with {text[:50]!r} where the reference shows the finalization instruction"
    if instruction_seen is not None and text != instruction_seen:
        return f"the instruction changed between trips: {text[:50]!r} vs {instruction_seen[:50]!r}"
    return None
