"""Hook sequences, drawn from named pieces: single events and *motifs* that reach the allowances.

A sequence is a run's setting (Playground routing or not, strict stop or not,
an order policy: every call after-first, every call persist-first, or each
call's order drawn) and its events. Single events are drawn from weighted call
kinds and bindings; a motif is a run of events that reaches what random
events rarely reach:

* ``trip`` (Playground): four router-gated execs trip the fuse with a
  correctable refusal, then the first call after it: the remedy write
  (admitted), or a bare-file write, a nested child, another run's write, the
  remedy under a call id that is no non-empty string, a remedy after the
  router went inactive, after two model calls (a forfeited turn) or after an
  owner cancel (nothing admitted);
* ``deferral`` (website): three failures, then an inspection failure that
  measured nothing (a charge waits), then mostly a passing inspection.

``Builder`` numbers the calls; ``random_sequence`` draws a whole sequence from
a ``random.Random`` (the bulk driver); the state machine draws the same pieces
through Hypothesis.
"""

from __future__ import annotations

import random
from typing import Any

import attrs

from properties.hooks.events import AFTER, PERSIST, Call, Cancel, HookEvent, HookSequence, ModelCall, RouterOff
from properties.hooks.shapes import BASE_KINDS, BINDINGS, DISGUISES, WORKSPACE_ROOT, kind_name

#: Playground sequences lean on the router's refusals and the remedy, or an admission would be rare.
PLAYGROUND_WEIGHTED = BASE_KINDS + ("gate",) * 30 + ("remedy",) * 5 + ("bad_write",) * 4
#: Website sequences lean on failures and inspections, or a deferral at the fuse would be rare.
WEBSITE_WEIGHTED = BASE_KINDS + ("fetch_fail", "describe_fail", "exec_fail") * 3 + ("no_match", "ts_invalid", "incomplete", "passed", "ts_passed") * 2 + ("lookup", "lying_lookup", "lookup_error") * 2
#: The first call after a Playground trip, by what it tests (seed 002); the plain remedy thrice, so that admissions
#: keep about their share since the remedy under an unusable call id joined (issue 24).
AFTER_TRIP = ("remedy", "remedy", "remedy", "read_ahead", "bad_write", "nested_remedy", "other_run_remedy", "router_off", "forfeit", "cancel", "read",
              "remedy_rooted", "remedy_rooted", "unusable_id_remedy")
#: Playground sequences whose guard is configured with ``WORKSPACE_ROOT`` (drawn last, so the events a seed
#: draws do not depend on it): a rooted remedy is admitted exactly there (issue 24).
ROOTED_CHANCE = 0.5
#: The id a single call's record arrives under (issue 24): mostly its own, else each other kind alike.
RECORD_IDS_WEIGHTED = ("own",) * 12 + ("nested", "foreign", "foreign", "unhashable")
#: The order policies of a sequence.
POLICIES = (AFTER, PERSIST, "mixed")
#: Issue 24: each single call's tool, transport and refused receipt are drawn independently of its result
#: shape, each with its own small chance, so the base kinds keep most of the draws (and the allowances their
#: coverage) while every pairing the spec leaves open is reached within the same number of sequences.
DISGUISE_CHANCE = 0.12
WRAP_CHANCE = 0.12
OWN_RECEIPT_CHANCE = 0.2
ERROR_CHANCE = 0.06
#: Model calls right before a trip's tripping call, drawn independently of what follows the trip: the trip must
#: start the forfeit count afresh (seed 002: only model calls after the trip forfeit the answer turn).
EARLY_MODEL_CALLS = (0, 0, 1, 2)


def variant(rng: random.Random, base: str) -> str:
    """``base`` with its tool, transport, refused receipt and event error drawn (always four draws, so later
    draws of a sequence do not depend on which variant came out)."""
    disguise, wrap, own, error = rng.random(), rng.random(), rng.random(), rng.random()
    tool = DISGUISES[int(disguise * 1000) % len(DISGUISES)] if disguise < DISGUISE_CHANCE else None
    return kind_name(base, tool, wrap < WRAP_CHANCE, own < OWN_RECEIPT_CHANCE, error < ERROR_CHANCE)


@attrs.define
class Builder:
    """Builds one sequence's events, numbering its calls and applying its order policy."""

    playground: bool
    policy: str
    #: Keep the sequence inside H1's scope: no rewritten params, capped copies only with the tool's record.
    scoped: bool = True
    strict_stop: bool = False
    #: The guard's configured workspace root (``HookSequence.root``).
    root: "str | None" = None
    events: list[HookEvent] = attrs.field(factory=list)
    count: int = 0

    def order(self, pick: float) -> str:
        if self.policy == "mixed":
            return AFTER if pick < 0.5 else PERSIST
        return self.policy

    def call(self, kind: str, binding: str = "bound", record: bool = True, capped: bool = True, order_pick: float = 0.0,
             record_id: str = "own") -> None:
        if self.scoped:
            if binding == "rewritten":
                binding = "bound"
            # A capped copy stays in H1's scope only with the tool's own record on a bound call.
            capped = capped and record and binding in ("bound", "nested")
        self.events.append(Call(self.count, kind, binding, record=record, order=self.order(order_pick), capped=capped,
                                record_id=record_id))
        self.count += 1

    def model(self) -> None:
        self.events.append(ModelCall())

    def cancel(self) -> None:
        self.events.append(Cancel())

    def router_off(self) -> None:
        self.events.append(RouterOff())

    def trip(self, then: str, order_pick: float = 0.0, early: int = 0, retrip: bool = False) -> None:
        """Four gated execs (the fuse trips with the first-write kind), then the first call after the trip;
        ``early`` model calls come between the third gate and the fourth (before the trip); ``retrip``: after
        the first call, failures up to the fuse again and one more call. ``read_ahead``: a read of the remedy's
        own path comes before the gates, then the remedy after the trip (not admitted: seed 002's router
        preserves a file read earlier instead of binding it)."""
        if then == "read_ahead":
            # Its path is the remedy's, READ_AHEAD calls on: the four gates, then the remedy.
            self.call("read_ahead", order_pick=order_pick)
            then = "remedy"
        for number in range(4):
            if number == 3:
                for _ in range(early):
                    self.model()
            self.call("gate", order_pick=order_pick)
        if then == "forfeit":
            self.model()
            self.model()
            self.call("remedy", order_pick=order_pick)
            return
        if then == "cancel":
            self.cancel()
            self.call("remedy", order_pick=order_pick)
            return
        self.model()
        if then == "router_off":
            self.router_off()
            self.call("remedy", order_pick=order_pick)
        elif then == "nested_remedy":
            self.call("remedy", "nested", order_pick=order_pick)
        elif then == "other_run_remedy":
            self.call("remedy", "other_run", order_pick=order_pick)
        elif then == "unusable_id_remedy":
            # The remedy under an id the budget ignores: never admitted, since its failure could not stop the run again.
            self.call("remedy", "unusable_id", order_pick=order_pick)
        else:
            self.call(then, order_pick=order_pick)
        # One failure after an admission must stop the run again at once (seed 002).
        self.call("exec_fail", order_pick=order_pick)
        if retrip:
            # A second trip after the remedy pends the instruction afresh (hooks.md: every stop makes the phase
            # pending), so the call after it is again a first refused boundary.
            for _ in range(3):
                self.call("exec_fail", order_pick=order_pick)
            self.call("read", order_pick=order_pick)

    def deferral(self, then: str, order_pick: float = 0.0) -> None:
        """Three failures, a correctable inspection failure at the fuse, then the next result."""
        for _ in range(3):
            self.call("fetch_fail", order_pick=order_pick)
        self.call("no_match", order_pick=order_pick)
        self.model()
        self.call(then, order_pick=order_pick)

    def build(self) -> HookSequence:
        return HookSequence(self.playground, tuple(self.events), strict_stop=self.strict_stop, root=self.root)


def random_sequence(rng: random.Random, length: int) -> HookSequence:
    """One sequence of about ``length`` pieces, every choice drawn from ``rng``."""
    playground = rng.random() < 0.5
    builder = Builder(
        playground=playground, policy=rng.choice(POLICIES), scoped=rng.random() < 0.8,
        strict_stop=playground and rng.random() < 0.1,
    )
    kinds = PLAYGROUND_WEIGHTED if playground else WEBSITE_WEIGHTED
    for _ in range(length):
        roll = rng.random()
        if roll < 0.08:
            if playground:
                builder.trip(rng.choice(AFTER_TRIP), rng.random(), rng.choice(EARLY_MODEL_CALLS), rng.random() < 0.5)
            else:
                builder.deferral(rng.choice(("passed", "ts_passed", "passed", "fetch_fail", "search", "no_match")), rng.random())
        elif roll < 0.3:
            builder.model()
        elif roll < 0.31:
            builder.cancel()
        else:
            builder.call(
                variant(rng, rng.choice(kinds)), rng.choice(BINDINGS), record=rng.random() < 0.7,
                capped=rng.random() < 0.6, order_pick=rng.random(), record_id=rng.choice(RECORD_IDS_WEIGHTED),
            )
    rooted = rng.random() < ROOTED_CHANCE
    builder.root = WORKSPACE_ROOT if playground and rooted else None
    return builder.build()


def sequences(seed: int, number: int, count: int) -> Any:
    """The ``count`` sequences of slice ``number`` of a run with ``seed``: deterministic, independent of other slices."""
    rng = random.Random(seed * 1_000_003 + number)
    for _ in range(count):
        yield random_sequence(rng, rng.randint(2, 12))
