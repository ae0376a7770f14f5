"""The guard's accounting path: the host's hooks turned into budget calls (``shared/spec/hooks.md``).

``ToolLoopGuard`` owns one run's ``RunProgressBudget``. The host calls, in
order: ``model_call_start``/``model_call_end`` around each model call,
``before_tool_call`` for each tool call, optionally ``record_tool_result``
(the inspection tool records its own result), then ``after_tool_call`` and
``tool_result_persist`` in either order. The guard binds each receipt to its
pending call, classifies it, and feeds the budget; it also models the
Playground router's two correctable refusals and the finalization phase.

Choices where hooks.md and the seeds are silent (a safety guard's reading):

* Binding also requires the receipt's tool name to equal the recorded one.
  ``tool_result_persist`` carries no params, so on that path the executed
  params are the record's own (the event cannot contradict them): a host that
  rewrites params is caught only by ``after_tool_call``. Order independence
  (H1) therefore holds for every trace whose executed params equal the
  ``before_tool_call`` params.
* A capped persisted copy with no record is charged as a failure, whatever
  its remaining ``isError``/``status`` say, and gets no allowance.
* With a record, a receipt is a failure when the record's outcome is, or when
  the hook's own receipt says ``isError`` (or after_tool_call has an error).
* A call the guard itself refused is a failure whatever its receipt says.
* The success fingerprint uses the recorded (tool, params) when a record
  exists, and (tool, ``UNRECORDED_PARAMS``) when the call was never recorded,
  so both hooks fingerprint a receipt the same way.
* A second ``before_tool_call`` with a known call id keeps the first record.
* A call whose id is no non-empty string is decided like any other but never
  admitted as the remedy after a trip: its receipt cannot reach the budget
  (budget.md ignores it), so its failure could not stop the run again.
* No lane: this path models website and Playground tasks, where the host
  gives no progress lane (seed 001).
* The router model: before the first project file (no binding yet), exec and
  apply_patch (direct or through ``tool_call``) are refused unless the command
  is a bare version probe such as ``python3 --version`` (the photo-renamer
  run's call 2 ran); a write whose path is a bare file, ``Playground/<file>``,
  a generic folder, or has an unusable component (absolute outside the
  workspace, ``..``) is refused; any other write binds its project folder
  (the router binds more spellings than ``binds_new_project`` admits). Reads
  are remembered for ``binds_new_project``. Nested children are routed too;
  their receipts are never counted, so a kind never reaches the budget.
* The first call after a trip that is not admitted runs the exhausted branch
  unchanged: the finalization instruction while the phase is pending, else
  the stop text and the run's single abort.
* The remedy must also come from this guard's run and session.
* A forfeited answer turn spends the correction (``stop()``, which leaves the
  stopped run as ``correct_fuse(False)`` would) at
  the second model call that starts after the trip (a model call that started
  before a late fire-and-forget receipt tripped the fuse does not count). The
  first tool call after the trip decides the correction anyway, so only model
  calls before it matter.
* ``record_tool_result`` from an id that is not pending attaches to the one
  pending, uncounted Tool Search parent selecting the inspection tool with
  deep-equal args; if there are several, nothing is recorded.
"""

from __future__ import annotations

import copy
import re
from typing import Any

import attrs

from guard.budget import RunProgressBudget
from guard.finalization import PENDING, Finalization
from guard.inspection import INSPECTION_TOOL, correctable_inspection_failure, passed_inspection
from guard.outcome import failed_outcome
from guard.playground import (
    GENERIC_NAMES,
    MAX_COMPONENTS,
    MAX_PATH_CHARS,
    RoutingState,
    usable_component,
    binds_new_project,
    relative_path,
    write_path,
)

#: Call ids of Tool Search's nested children: never observed, never granted anything.
NESTED_PREFIX = "tool_search_code:"
#: The Tool Search wrapper tool; ``params.id`` names the real tool and ``params.args`` its arguments.
TOOL_CALL = "tool_call"
DIRECT = "direct"
TOOL_SEARCH = "tool-search"

FIRST_WRITE_KIND = "playground-first-write"
PROJECT_PATH_KIND = "playground-project-path"

FIRST_WRITE_TEXT = (
    "Not run: write the first project file before running commands; write creates its folder, so mkdir is "
    "not needed. Create the first project file with write in a descriptive Playground folder before running "
    "commands or patches. For a new project, write Playground/<descriptive-name>/<file> first."
)
PROJECT_PATH_TEXT = (
    "Not written: the first project file needs a descriptive project folder. Write it as "
    "Playground/<descriptive-name>/<file>; write creates the folder."
)
STOP_TEXT = (
    "This response was stopped after repeated tool failures or attempts without progress. Saved files and "
    "previously verified publications were preserved. The full request was not completed; continue from the "
    "preserved work with a corrected approach."
)
FINALIZATION_INSTRUCTION = (
    "Stop calling tools now. Repeated tool failures or attempts without progress ended the tool work for this "
    "response. Answer the owner with what was completed, what was not, and the exact next step."
)

#: Tool ids the first-write gate refuses, direct or through ``tool_call``.
GATED_IDS = frozenset({"exec", "apply_patch", "openclaw:core:exec", "openclaw:core:apply_patch"})
#: Tool ids whose receipts may be empty lookups (the command is in ``command``).
EXEC_IDS = frozenset({"exec", "openclaw:core:exec"})
READ_IDS = frozenset({"read", "openclaw:core:read"})
#: The params a receipt of a call that was never recorded is fingerprinted with: the persist hook has none, so
#: neither hook uses the receipt's; all such receipts of one tool count as repeats of each other.
UNRECORDED_PARAMS = "(never recorded)"
#: The only command the first-write gate lets run: one program asking for its version.
VERSION_PROBE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]* (?:--version|-V)")


@attrs.frozen
class Decision:
    """What goes back to the host from ``before_tool_call``: never the refusal's kind."""

    block: bool = False
    block_reason: str | None = None


ALLOW = Decision()


@attrs.define(slots=True)
class PendingCall:
    """One ``before_tool_call``, as recorded; the result hooks bind receipts against it."""

    run: Any
    session: Any
    call_id: Any
    tool: Any
    params: Any
    transport: str
    real_tool: Any
    args: Any
    nested: bool
    refused: bool = False
    counted: bool = False
    has_record: bool = False
    recorded: Any = None


def is_nested(call_id: Any) -> bool:
    return isinstance(call_id, str) and call_id.startswith(NESTED_PREFIX)


def transport_of(tool: Any) -> str:
    return TOOL_SEARCH if tool == TOOL_CALL else DIRECT


def real_call(tool: Any, params: Any) -> tuple[Any, Any]:
    """The tool that really runs and its arguments: ``params.id``/``params.args`` through Tool Search."""
    if tool != TOOL_CALL:
        return tool, params
    if not isinstance(params, dict):
        return None, None
    return params.get("id"), params.get("args")


def same(left: Any, right: Any) -> bool:
    """Deep strict equality: equal values of the same types at every depth (``1`` is not ``True`` or ``1.0``)."""
    if type(left) is not type(right):
        return False
    if isinstance(left, dict):
        return left.keys() == right.keys() and all(same(left[key], right[key]) for key in left)
    if isinstance(left, (list, tuple)):
        return len(left) == len(right) and all(same(a, b) for a, b in zip(left, right))
    equal: bool = left == right
    return equal


def details_of(result: Any) -> dict[str, Any]:
    details = result.get("details") if isinstance(result, dict) else None
    return details if isinstance(details, dict) else {}


def is_capped(result: Any) -> bool:
    """The host replaced the details (above 8 KiB) by a stub that keeps only a few keys."""
    return details_of(result).get("persistedDetailsTruncated") is True


def envelope_inner(result: Any) -> Any:
    """The real tool's result inside a Tool Search envelope (the classifiers reject anything but an object)."""
    return details_of(result).get("result")


def result_text(result: Any) -> str:
    """The text the model saw: the ``content`` parts' text, one part per line (other parts carry no text)."""
    content = result.get("content") if isinstance(result, dict) else None
    if not isinstance(content, list):
        return ""
    return "\n".join(part["text"] for part in content if isinstance(part, dict) and isinstance(part.get("text"), str))


def text_message(message: Any, text: str) -> dict[str, Any]:
    """A copy of a persisted message whose only content is ``text`` (its other keys are kept)."""
    kept = message if isinstance(message, dict) else {}
    return {**kept, "content": [{"type": "text", "text": text}]}


def lookup_found_nothing(command: Any, exit_code: Any, output: str) -> bool:
    """Seed 000's classifier, imported late so that this module works before ``guard.lookup`` exists."""
    try:
        from guard.lookup import lookup_found_nothing as classify
    except ImportError:
        # Without the classifier no search is free: failing closed charges it like any failure.
        return False
    return classify(command, exit_code, output) is True


def _command_of(args: Any) -> Any:
    return args.get("command") if isinstance(args, dict) else None


@attrs.define(slots=True, eq=False)
class ToolLoopGuard:
    """One run's tool-loop guard: binds receipts, classifies them, and keeps the budget and the phase."""

    run: Any = "run"
    session: Any = "session"
    budget: RunProgressBudget = attrs.field(factory=RunProgressBudget)
    #: False: the budget gets no new flags and nothing is admitted (the earlier guard, for H3).
    allowances: bool = True
    #: The Playground router's state; None when routing is not active (website tasks).
    routing: RoutingState | None = None
    root: str | None = None
    strict_stop: bool = False
    finalization: Finalization = attrs.field(factory=Finalization)
    pending: dict[str, PendingCall] = attrs.field(factory=dict)
    refusal_kinds: dict[str, str] = attrs.field(factory=dict)
    read_paths: list[str] = attrs.field(factory=list)
    tripped_by: Any = None
    aborted: bool = False
    model_calls: int = 0

    # -- model calls -----------------------------------------------------------

    def model_call_start(self) -> bool:
        """One model call is one budget round; returns whether the run is stopped."""
        was = self.budget.terminal
        self.budget.begin_model_round()
        self._note_stop(was, None)
        self.model_calls += 1
        # Seed 002: two model calls without a tool boundary forfeit the answer turn, so it admits nothing;
        # stopping the stopped run is how the budget spends a pending correction without a remedy.
        if self.model_calls >= 2 and self.budget.pending_correction is not None:
            self.budget.stop()
        return self.budget.terminal

    def model_call_end(self) -> None:
        """The end of a model call changes nothing in the accounting; the next tool call is the boundary."""

    def owner_cancel(self) -> None:
        """The owner cancelled the run: stopped for good, nothing admitted (seed 002)."""
        self.budget.stop()
        self.finalization.cancel()

    # -- before_tool_call --------------------------------------------------------

    def before_tool_call(self, run: Any, session: Any, call_id: Any, tool: Any, params: Any) -> Decision:
        """Record the pending call and decide it: the fuse, the remedy after a trip, then the router."""
        record = self._record(run, session, call_id, tool, params)
        if self.budget.terminal and not self._admit_remedy(record):
            return self._refuse(record, self._exhausted_reason(), None)
        return self._route(record)

    def _record(self, run: Any, session: Any, call_id: Any, tool: Any, params: Any) -> PendingCall:
        params = copy.deepcopy(params)
        real_tool, args = real_call(tool, params)
        record = PendingCall(
            run=run, session=session, call_id=call_id, tool=tool, params=params,
            transport=transport_of(tool), real_tool=real_tool, args=args, nested=is_nested(call_id),
        )
        if isinstance(call_id, str) and call_id:
            # A reused id keeps its first record, so a later call cannot re-bind an earlier receipt.
            self.pending.setdefault(call_id, record)
        return record

    def _admit_remedy(self, record: PendingCall) -> bool:
        """The first call after a trip with a pending correction: admitted only if it is the named remedy."""
        if self.budget.pending_correction is None:
            return False
        # Seed 002: the correction is spent by the first call either way, else the model could try calls until one fits.
        reopened = self.budget.correct_fuse(self._is_remedy(record))
        if reopened:
            # Seed 002: the admitted call re-opens the run before the model saw the stop, so nothing is left to deliver.
            self.finalization.disarm()
        return reopened

    def _is_remedy(self, record: PendingCall) -> bool:
        # Seed 002: only before the instruction was shown; a shown stop must stay a stop.
        if self.finalization.phase != PENDING:
            return False
        # Seed 002: nested Tool Search children are never granted anything.
        if record.nested:
            return False
        # Seed 002: one failure after the remedy must stop the run again, but the budget ignores a receipt whose id
        # is no non-empty string: admitted under such an id, a failing remedy would never be counted.
        if not (isinstance(record.call_id, str) and record.call_id):
            return False
        # Seed 002: a call from another run or session is not this run's remedy.
        if record.run != self.run or record.session != self.session:
            return False
        # Seed 002: the remedy is a router binding, so routing must be active.
        if not self._routing_active():
            return False
        # Seed 002: only the write the refusal asked for, one the router will bind as the new project.
        # The check above makes routing a RoutingState; mypy cannot follow it through _routing_active().
        return binds_new_project(record.tool, record.params, self.routing, self.root, self.read_paths)  # type: ignore[arg-type]

    def _exhausted_reason(self) -> str:
        """The stopped run's answer: the instruction at the first boundary, then the stop and one abort."""
        if self.finalization.deliver():
            return FINALIZATION_INSTRUCTION
        self.aborted = True
        return STOP_TEXT

    def _refuse(self, record: PendingCall, reason: str, kind: str | None) -> Decision:
        record.refused = True
        # Seed 002: the kind travels by exact call id to the result hooks, never to the host (nested ids are never counted).
        if kind is not None and self._stored(record):
            self.refusal_kinds[record.call_id] = kind
        return Decision(block=True, block_reason=reason)

    def _stored(self, record: PendingCall) -> bool:
        """Whether ``record`` is the one its call id binds to (a reused id keeps its first record)."""
        return isinstance(record.call_id, str) and self.pending.get(record.call_id) is record

    # -- the Playground router ----------------------------------------------------

    def _routing_active(self) -> bool:
        return self.routing is not None and self.routing.initialized

    def _project_started(self) -> bool:
        # Called only on the router's path, where routing is active (a RoutingState).
        return self.routing.binding is not None or self.routing.first_project_file  # type: ignore[union-attr]

    def _route(self, record: PendingCall) -> Decision:
        if not self._routing_active():
            return ALLOW
        kind = self._router_refusal(record)
        if kind == FIRST_WRITE_KIND:
            return self._refuse(record, FIRST_WRITE_TEXT, kind)
        if kind == PROJECT_PATH_KIND:
            return self._refuse(record, PROJECT_PATH_TEXT, kind)
        self._router_accepts(record)
        return ALLOW

    def _router_refusal(self, record: PendingCall) -> str | None:
        """The correctable refusal the router gives this call before the first project file, or None."""
        if self._project_started():
            return None
        # Seed 002: before the first project file nothing runs, except a version probe (the recorded run's call 2).
        if record.real_tool in GATED_IDS and not self._version_probe(record.args):
            return FIRST_WRITE_KIND
        path = write_path(record.tool, record.params)
        # Seed 002: a first write to a bare, generic or unusable path is refused and names the usable form.
        if path is not None and self._project_folder(path) is None:
            return PROJECT_PATH_KIND
        return None

    @staticmethod
    def _version_probe(args: Any) -> bool:
        command = _command_of(args)
        return isinstance(command, str) and VERSION_PROBE.fullmatch(command.strip()) is not None

    def _project_folder(self, path: str) -> str | None:
        """The project folder the router would bind for a first write to ``path``, or None to refuse."""
        relative = relative_path(path, self.root)
        parts = relative.split("/")
        if len(relative) > MAX_PATH_CHARS or len(parts) > MAX_COMPONENTS:
            return None
        if not all(usable_component(part) for part in parts):
            return None
        folder = parts[:2] if parts[0].lower() == "playground" else parts[:1]
        if len(parts) <= len(folder) or folder[-1].lower() in GENERIC_NAMES:
            return None
        return "/".join(folder)

    def _router_accepts(self, record: PendingCall) -> None:
        """A call the router lets through: a first write binds its project; a read is remembered."""
        path = write_path(record.tool, record.params)
        if path is not None and not self._project_started():
            # Seed 002: the router reserves and binds the project in before_tool_call, before the write runs.
            self.routing = attrs.evolve(self.routing, binding=self._project_folder(path))  # type: ignore[misc]
        read = record.args.get("path") if record.real_tool in READ_IDS and isinstance(record.args, dict) else None
        if isinstance(read, str):
            self.read_paths.append(read)

    # -- receipts ---------------------------------------------------------------

    def record_tool_result(self, call_id: Any, params: Any, result: Any) -> bool:
        """The inspection tool keeps its own result on its exact pending call; True when it was kept."""
        record = self._inspection_call(call_id, params)
        if record is None:
            return False
        record.recorded = copy.deepcopy(result)
        record.has_record = True
        return True

    def _inspection_call(self, call_id: Any, params: Any) -> PendingCall | None:
        # Seed 001: the record binds like a receipt: this run and session, the inspection tool, deep-equal args.
        own = self.pending.get(call_id) if isinstance(call_id, str) else None
        if own is not None:
            return own if self._records_inspection(own, params) else None
        if is_nested(call_id):
            return None
        parents = [record for record in self.pending.values() if record.transport == TOOL_SEARCH and self._records_inspection(record, params)]
        # Seed 001: the Tool Search parent only when exactly one fits; a guess could defer the wrong call.
        return parents[0] if len(parents) == 1 else None

    def _records_inspection(self, record: PendingCall, params: Any) -> bool:
        return (
            not record.nested
            and not record.counted
            and record.run == self.run
            and record.session == self.session
            and record.real_tool == INSPECTION_TOOL
            and same(record.args, params)
        )

    def after_tool_call(self, call_id: Any, tool: Any, params: Any, result: Any, error: Any = None) -> None:
        """The live receipt with its executed params; counted unless the persist hook counted it first."""
        record = self._bound(call_id, tool)
        if record is not None and not same(record.params, params):
            # Seed 000/001: deep-equal executed params, else the receipt is not this call's and gets nothing.
            record = None
        self._count(call_id, tool, result, error, record, self._refusal_kind(call_id))

    def tool_result_persist(self, call_id: Any, tool: Any, message: Any) -> Any:
        """The transcript copy: counted unless after_tool_call counted it first; returns the copy to persist."""
        record = self._bound(call_id, tool)
        kind = self._refusal_kind(call_id)
        self._count(call_id, tool, message, None, record, kind)
        return self._persisted(call_id, message)

    def _refusal_kind(self, call_id: Any) -> str | None:
        return self.refusal_kinds.get(call_id) if isinstance(call_id, str) else None

    def _bound(self, call_id: Any, tool: Any) -> PendingCall | None:
        """The pending call this receipt is bound to (run, session, transport and tool), or None."""
        record = self.pending.get(call_id) if isinstance(call_id, str) else None
        if record is None:
            return None
        if record.run != self.run or record.session != self.session:
            return None
        if record.transport != transport_of(tool) or record.tool != tool:
            return None
        return record

    def _count(self, call_id: Any, tool: Any, receipt: Any, error: Any, bound: PendingCall | None, kind: str | None) -> None:
        """Feed one receipt to the budget, once per call, with the flags a bound receipt earns."""
        # Seed 001: nested Tool Search children are never observed.
        if is_nested(call_id):
            return
        record = self.pending.get(call_id) if isinstance(call_id, str) else None
        # hooks.md: the first hook to count a receipt observes it; the other is ignored.
        if record is not None and record.counted:
            return
        params = UNRECORDED_PARAMS
        if record is not None:
            record.counted = True
            tool, params = record.tool, record.params
        flags = self._flags(bound, receipt, error, kind)
        was = self.budget.terminal
        self.budget.observe_result(call_id, tool, params, flags["failed"], **flags["allowances"])
        self._note_stop(was, call_id)

    def _flags(self, bound: PendingCall | None, receipt: Any, error: Any, kind: str | None) -> dict[str, Any]:
        # Seed 001: the tool's own recorded result is what gets classified, so both hook orders agree.
        source = bound.recorded if bound is not None and bound.has_record else receipt
        # Seed 001: a capped copy without a record cannot be classified: charged at once, nothing granted.
        if source is receipt and is_capped(receipt):
            return {"failed": True, "allowances": {}}
        failed = self._failed(bound, source, receipt, error)
        if bound is None or not self.allowances:
            # hooks.md: an unbound receipt is an ordinary success or failure.
            return {"failed": failed, "allowances": {}}
        inner = source if source is not receipt or bound.transport == DIRECT else envelope_inner(receipt)
        return {"failed": failed, "allowances": self._allowances(bound, inner, failed, kind)}

    @staticmethod
    def _failed(bound: PendingCall | None, source: Any, receipt: Any, error: Any) -> bool:
        # Seed 002: a call the guard refused ran nothing and counts as a failure when its receipt arrives.
        if bound is not None and bound.refused:
            return True
        return failed_outcome(source, error) or (isinstance(receipt, dict) and receipt.get("isError") is True)

    def _allowances(self, bound: PendingCall, inner: Any, failed: bool, kind: str | None) -> dict[str, Any]:
        """The seeds' flags for a bound receipt; ``inner`` is the real tool's result (unwrapped from Tool Search)."""
        inspection = bound.real_tool == INSPECTION_TOOL
        return {
            # Seed 001: only the inspection tool's own failures that measured nothing may wait at the fuse.
            "correctable": inspection and correctable_inspection_failure(inner),
            # Seed 001: only a passing inspection forgives a waiting charge (the budget reads it on successes only).
            "corrected": inspection and passed_inspection(inner),
            # Seed 002: the router's kind, by exact call id of a bound receipt.
            "correctable_refusal": kind,
            # Seed 000: the command comes from the pending call's record, never from the result.
            "empty_lookup": self._empty_lookup(bound, inner, failed),
        }

    @staticmethod
    def _empty_lookup(bound: PendingCall, inner: Any, failed: bool) -> bool:
        # Seed 000: only an exec that ran and failed can be a search that found nothing.
        if not failed or bound.refused or bound.real_tool not in EXEC_IDS:
            return False
        return lookup_found_nothing(_command_of(bound.args), details_of(inner).get("exitCode"), result_text(inner))

    def _note_stop(self, was_terminal: bool, call_id: Any) -> None:
        """A budget call that stopped the run leaves the finalization pending."""
        if was_terminal or not self.budget.terminal:
            return
        self.tripped_by = call_id
        self.model_calls = 0
        self.finalization.stopped(self.strict_stop)

    def _persisted(self, call_id: Any, message: Any) -> Any:
        """The transcript copy: the stop text once the run is stopped, except the tripping refusal's own copy."""
        if not self.budget.terminal:
            return message
        # Seed 002: while the correction pends the response may continue, so the refusal keeps its own text.
        if self.budget.pending_correction is not None and call_id == self.tripped_by:
            return message
        return text_message(message, STOP_TEXT)
