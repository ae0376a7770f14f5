"""The events of a hook sequence: what the host does, step by step, to one run's guard.

A ``HookSequence`` is a run's setting (Playground routing or a website task,
strict stop or not) and its events:

* ``ModelCall``: ``model_call_start`` then ``model_call_end`` (one budget round).
* ``Call``: one tool call through every hook: ``before_tool_call`` (unless the
  binding is ``no_before``), the inspection tool's own record when it keeps
  one, then ``after_tool_call`` and ``tool_result_persist`` in the call's
  ``order`` (``after`` first or ``persist`` first). The call's shape comes from
  its ``kind`` and ``index`` (``properties.hooks.shapes.call_shape``).
* ``Cancel``: the owner cancels the run.
* ``RouterOff``: the Playground router stops being active for the run (its
  routing state is lost), so nothing can be admitted as a router remedy.
"""

from __future__ import annotations

from typing import Any, Union

import attrs

from properties.hooks.shapes import NESTED_PREFIX

AFTER, PERSIST = "after", "persist"
ORDERS = (AFTER, PERSIST)
#: The ids a tool's own record may arrive under (``Call.record_id``).
RECORD_IDS = ("own", "nested", "foreign", "unhashable")


@attrs.frozen
class ModelCall:
    """One model call: ``model_call_start``/``model_call_end``."""


@attrs.frozen
class Cancel:
    """The owner cancels the run: stopped for good, nothing admitted (seed 002)."""


@attrs.frozen
class RouterOff:
    """The Playground router is no longer active for this run."""


@attrs.frozen
class Call:
    """One tool call delivered through the hooks."""

    index: int
    kind: str
    binding: str = "bound"
    #: Whether the inspection tool records its own result (only inspection shapes have one).
    record: bool = True
    #: Which result hook the host runs first.
    order: str = AFTER
    #: Whether the persisted copy is the host's capped stub (inspection shapes only).
    capped: bool = True
    #: The id the tool's own record arrives under (``RECORD_IDS``): the call's own, a nested child's, an id no
    #: call has, or one that is not even a string (issue 24: hooks.md binds a record to "the exact pending call";
    #: the guard's documented rule for another id is the one fitting Tool Search parent).
    record_id: str = "own"

    @property
    def call_id(self) -> Any:
        """The id the host calls every hook with: ``call-N``, a nested child's, or for ``unusable_id`` one that is no
        non-empty string (in turn a list, which cannot even be a key, a number and the empty string)."""
        if self.binding == "unusable_id":
            return (["call", self.index], self.index, "")[self.index % 3]
        return f"{NESTED_PREFIX}{self.index}" if self.binding == "nested" else f"call-{self.index}"

    @property
    def recorded_under(self) -> Any:
        """The id ``record_tool_result`` is called with (``record_id``): never another call's own id."""
        if self.record_id == "nested":
            return f"{NESTED_PREFIX}record-{self.index}"
        if self.record_id == "foreign":
            return f"record-{self.index}"
        if self.record_id == "unhashable":
            return ["record", self.index]
        return self.call_id

    def flipped(self) -> "Call":
        """The same call with its two result hooks in the other order."""
        return attrs.evolve(self, order=PERSIST if self.order == AFTER else AFTER)


HookEvent = Union[ModelCall, Call, Cancel, RouterOff]

#: Names used in step tables and trace files.
EVENT_NAMES = {ModelCall: "model_call", Call: "call", Cancel: "cancel", RouterOff: "router_off"}


@attrs.frozen
class HookSequence:
    """One run's setting and events."""

    playground: bool
    events: tuple[HookEvent, ...]
    strict_stop: bool = False
    #: Scaled-down run-progress limits, as (``guard.limits.Limits`` field, value) pairs; empty: the seeds' own.
    #: The exhaustive model (``properties.hooks.model``) runs under them, and its saved files carry them so that
    #: a replay judges the run it found; the guards and H3's reference budget both take them.
    limits: tuple[tuple[str, int], ...] = ()
    #: The guard's configured absolute workspace root (``ToolLoopGuard.root``), or None: classifiers.md strips
    #: it from a write's path before the router's project rules read it (issue 24: a remedy written by its
    #: absolute path is a remedy exactly when the guard knows the root).
    root: "str | None" = None

    @property
    def order_policy(self) -> str:
        """``after`` or ``persist`` when every call runs that hook first, ``mixed`` otherwise (or ``none``)."""
        orders = {event.order for event in self.events if isinstance(event, Call)}
        return orders.pop() if len(orders) == 1 else "mixed" if orders else "none"
