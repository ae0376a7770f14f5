"""The finalization phase of a stopped run (seed 002's ``progress-finalization``).

When the budget stops a run the model has not yet been told; the next tool
boundary delivers the finalization instruction. Only while that has not
happened (``pending``) may the refusal's remedy re-open the run, because only
then has the model never seen the stop.

Phases: ``idle`` (running), ``pending`` (stopped, instruction not yet shown),
``delivered`` (instruction shown), ``unavailable`` (owner cancel or a
strict-stop run: never re-opened).
"""

from __future__ import annotations

import attrs

IDLE = "idle"
PENDING = "pending"
DELIVERED = "delivered"
UNAVAILABLE = "unavailable"


@attrs.define(slots=True)
class Finalization:
    """The phase machine; the guard drives it at trips, tool boundaries, admissions and cancels."""

    phase: str = IDLE

    def stopped(self, strict_stop: bool) -> None:
        """The budget stopped the run."""
        # Seed 002: strict-stop runs are never re-opened, so their stop leaves nothing pending.
        if strict_stop:
            self.phase = UNAVAILABLE
            return
        # Seed 002: only a running response gains a pending instruction; a delivered one stays delivered.
        if self.phase == IDLE:
            self.phase = PENDING

    def deliver(self) -> bool:
        """A tool boundary shows the instruction; True only the first time (the pending phase ends)."""
        if self.phase != PENDING:
            return False
        self.phase = DELIVERED
        return True

    def disarm(self) -> None:
        """Seed 002: the admitted remedy re-opened the run before the model saw the stop; elsewhere a no-op."""
        # Seed 002: disarm works only from pending, else an admission could erase a delivered or cancelled stop.
        if self.phase == PENDING:
            self.phase = IDLE

    def cancel(self) -> None:
        """The owner cancelled the run: nothing may re-open it."""
        self.phase = UNAVAILABLE
