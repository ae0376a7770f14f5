"""Each of H1-H12 can fail: the smallest bug it exists to catch, planted in the hook path, is reported by it alone.

Every probe plants one bug with pytest's ``MonkeyPatch`` (a public method of ``ToolLoopGuard`` or
``Finalization`` wrapped or replaced, or a module-level name of ``guard.hooks`` rebound; never an edit of
``guard/``), delivers a short hand-written hook sequence through the real ``HookMonitor`` with only the probed
invariant selected, and asserts that invariant is violated at the step where the bug shows. The same sequence
with the bug taken out again must pass and exercise the invariant, or the probe would prove nothing. What each
sequence must do comes from ``shared/spec/hooks.md`` and the seeds (four failures trip the fuse, the first
boundary after a trip shows the instruction, the next the stop), never from the guard.
"""

from __future__ import annotations

import re
from typing import Any, Callable

import pytest

import guard.hooks as hooks
from guard.finalization import PENDING, Finalization
from guard.hooks import Decision, ToolLoopGuard
from properties.catalogue import Tally, Violation
from properties.hooks.events import AFTER, PERSIST, Call, HookSequence, ModelCall
from properties.hooks.generate import Builder
from properties.hooks.invariants import BY_ID
from properties.hooks.monitor import HookMonitor
from properties.hooks.shapes import WORKSPACE_ROOT, call_shape
from properties.probes import Probes

PROBED = Probes()

Plant = Callable[[pytest.MonkeyPatch], None]


def judge(invariant: str, sequence: HookSequence) -> tuple[list[Violation], Tally]:
    """Every event of ``sequence`` through a monitor checking only ``invariant`` (every step, not just the first failing)."""
    tally = Tally()
    monitor = HookMonitor(tally, (BY_ID[invariant],))
    monitor.start(sequence)
    found = [violation for event in sequence.events for violation in monitor.step(event)]
    return found, tally


def assert_caught(invariant: str, sequence: HookSequence, plant: Plant, at: int) -> None:
    """``invariant`` breaks first at step ``at`` with the bug planted, and holds (exercised) once it is taken out."""
    with pytest.MonkeyPatch.context() as patch:
        plant(patch)
        found, _tally = judge(invariant, sequence)
    assert found, f"{invariant} missed its planted bug"
    assert {violation.invariant for violation in found} == {invariant}
    assert found[0].step == at, found[0]
    honest, tally = judge(invariant, sequence)
    assert honest == [], honest
    assert tally.exercised[invariant] > 0, f"the sequence never exercises {invariant} on the real hook path"


def playground_trip(then: str, policy: str = AFTER) -> HookSequence:
    """Four router-gated execs (the fourth trips the fuse with the first-write kind), a model call, then ``then``
    and one failing exec (``Builder.trip``)."""
    builder = Builder(playground=True, policy=policy)
    builder.trip(then)
    return builder.build()


def website(*events: Any) -> HookSequence:
    return HookSequence(playground=False, events=tuple(events))


# -- the probes ------------------------------------------------------------------


@PROBED("H1")
def test_h1_catches_a_result_hook_that_drops_the_refusal_kind() -> None:
    """Plants: ``after_tool_call`` forgets the call's refusal kind before counting the receipt. Breaks: after-first
    and persist-first delivery leave the budget in the same state (hooks.md: the kind travels by call id to
    whichever result hook counts the receipt): only the persist-first order grants the correction at the trip."""
    original = ToolLoopGuard.after_tool_call

    def forgetful(self: ToolLoopGuard, call_id: Any, tool: Any, params: Any, result: Any, error: Any = None) -> None:
        self.refusal_kinds.pop(call_id, None)
        original(self, call_id, tool, params, result, error)

    assert_caught("H1", playground_trip("remedy"), lambda patch: patch.setattr(ToolLoopGuard, "after_tool_call", forgetful), at=3)


@PROBED("H2")
def test_h2_catches_a_nested_child_taken_for_an_outer_call() -> None:
    """Plants: no call id is recognised as a nested Tool Search child. Breaks: nested receipts are never observed
    and never granted anything (hooks.md; seed 001): the child's correctable inspection failure is counted."""
    sequence = website(Call(0, "no_match", "nested"))
    assert_caught("H2", sequence, lambda patch: patch.setattr(hooks, "is_nested", lambda call_id: False), at=0)


@PROBED("H3")
def test_h3_catches_a_spent_correction_that_skips_the_instruction() -> None:
    """Plants: when the first call after a correctable trip is not the remedy, spending the correction counts as
    the instruction shown, so that call gets the stop text and the run aborts at once. Breaks: with no allowance
    applied the stop is the earlier guard's: the same calls refused with the same text (hooks.md, H3); the
    earlier guard, which never pends a correction, shows the instruction at that boundary."""
    original = ToolLoopGuard.before_tool_call

    def planted(self: ToolLoopGuard, run: Any, session: Any, call_id: Any, tool: Any, params: Any) -> Decision:
        spending = self.budget.pending_correction is not None
        decision = original(self, run, session, call_id, tool, params)
        if spending and decision.block and self.budget.terminal:
            self.aborted = True
            return Decision(block=True, block_reason=hooks.STOP_TEXT)
        return decision

    # A read is not the remedy: the correction is spent, nothing is admitted.
    assert_caught("H3", playground_trip("read"), lambda patch: patch.setattr(ToolLoopGuard, "before_tool_call", planted), at=5)


@PROBED("H4")
def test_h4_catches_a_refusal_text_that_names_its_kind() -> None:
    """Plants: the first-write refusal's text starts with its kind. Breaks: only ``{block, block_reason}`` goes
    back to the host and the kind never does (hooks.md; seed 002: the kind travels by call id)."""
    named = f"[{hooks.FIRST_WRITE_KIND}] {hooks.FIRST_WRITE_TEXT}"
    sequence = HookSequence(playground=True, events=(Call(0, "gate"),))
    assert_caught("H4", sequence, lambda patch: patch.setattr(hooks, "FIRST_WRITE_TEXT", named), at=0)


@PROBED("H5")
def test_h5_catches_an_admission_of_a_write_that_binds_no_project() -> None:
    """Plants: the admission no longer asks whether the call binds a new project. Breaks: the first call after
    a trip is admitted only when it binds a new project (hooks.md "After the fuse"; seed 002: only the remedy the
    refusal named): a write to a bare file is admitted."""
    sequence = playground_trip("bad_write")
    assert_caught("H5", sequence, lambda patch: patch.setattr(hooks, "binds_new_project", lambda *args: True), at=5)


@PROBED("H5")
def test_h5_catches_a_remedy_judged_without_the_configured_root() -> None:
    """Plants: the admission asks whether the call binds a new project without the guard's configured root.
    Breaks: classifiers.md strips a configured absolute root from a write's path before the project rules read
    it, so the remedy written by its absolute path under that root is admitted; without the root it reads as an
    unusable path and the correction is spent. Issue 24: every generated guard used to run without a root."""
    original = hooks.binds_new_project

    def rootless(tool: Any, params: Any, state: Any, root: Any = None, read_paths: Any = ()) -> bool:
        return original(tool, params, state, None, read_paths)

    builder = Builder(playground=True, policy=AFTER, root=WORKSPACE_ROOT)
    builder.trip("remedy_rooted")
    assert_caught("H5", builder.build(), lambda patch: patch.setattr(hooks, "binds_new_project", rootless), at=5)


@PROBED("H6")
def test_h6_catches_an_admission_that_leaves_the_instruction_pending() -> None:
    """Plants: ``Finalization.disarm`` does nothing. Breaks: admitting calls ``correct_fuse(True)`` and
    ``disarm()`` (hooks.md), so an open run has no instruction left to deliver; here the re-opened run still
    holds a pending instruction."""
    sequence = playground_trip("remedy")
    assert_caught("H6", sequence, lambda patch: patch.setattr(Finalization, "disarm", lambda self: None), at=5)


@PROBED("H7")
def test_h7_catches_a_tripping_refusal_that_loses_its_text() -> None:
    """Plants: once the run is stopped every persisted copy gets the stop text, the tripping refusal's own copy
    too. Breaks: "while a correction pends, the tripping refusal's persisted copy keeps its refusal text"
    (hooks.md; seed 002)."""
    original = ToolLoopGuard.tool_result_persist

    def planted(self: ToolLoopGuard, call_id: Any, tool: Any, message: Any) -> Any:
        persisted = original(self, call_id, tool, message)
        return hooks.text_message(message, hooks.STOP_TEXT) if self.budget.terminal else persisted

    builder = Builder(playground=True, policy=PERSIST)
    for _ in range(4):
        builder.call("gate")
    assert_caught("H7", builder.build(), lambda patch: patch.setattr(ToolLoopGuard, "tool_result_persist", planted), at=3)


@PROBED("H8")
def test_h8_catches_an_empty_lookup_read_off_the_exit_code() -> None:
    """Plants: any exec that exits 1 is an empty lookup, whatever the recorded command. Breaks: a bound exec
    receipt is free only when the command recorded by ``before_tool_call`` is a search that found nothing
    (hooks.md "Binding"; seed 000): a failing ``make`` whose receipt claims a grep is taken as free."""

    def planted(command: Any, exit_code: Any, output: str) -> bool:
        return exit_code == 1

    sequence = website(Call(0, "lying_lookup"))
    assert_caught("H8", sequence, lambda patch: patch.setattr(hooks, "lookup_found_nothing", planted), at=0)


@PROBED("H8")
def test_h8_catches_a_search_classified_without_its_output() -> None:
    """Plants: the classifier is handed no text (``result_text`` returns nothing). Breaks: a search that exits 1
    and prints an error line found no "nothing" (classifiers.md, seed 000): it is a failure, never a free empty
    lookup. Issue 24: every generated search used to print nothing, so the verdict could not see this."""
    sequence = website(Call(0, "lookup_error"))
    assert_caught("H8", sequence, lambda patch: patch.setattr(hooks, "result_text", lambda result: ""), at=0)


@PROBED("H8")
def test_h8_catches_text_parts_glued_together() -> None:
    """Plants: ``result_text`` joins the content's text parts with a space instead of one part per line. Breaks: a
    search that exits 1 and prints an error line is a failure (classifiers.md, seed 000) in whichever text part the
    host put that line: at odd call numbers the generated search prints nothing, then its error line in a second
    part, which the glued text hides behind a space (issue 24: every generated search used to have one part)."""

    def planted(result: Any) -> str:
        content = result.get("content") if isinstance(result, dict) else None
        parts = content if isinstance(content, list) else []
        return " ".join(part["text"] for part in parts if isinstance(part, dict) and isinstance(part.get("text"), str))

    assert len(call_shape("lookup_error", 1).live["content"]) == 2
    assert_caught("H8", website(Call(1, "lookup_error")), lambda patch: patch.setattr(hooks, "result_text", planted), at=0)


def _careless_same(sequences: tuple[type, ...], lengths: bool) -> Callable[[Any, Any], bool]:
    """A planted ``same``: deep equality that takes any two of ``sequences`` alike and compares their lengths only
    when ``lengths`` is set (objects and other values as the real one does)."""

    def planted(left: Any, right: Any) -> bool:
        if isinstance(left, sequences) and isinstance(right, sequences):
            return (not lengths or len(left) == len(right)) and all(planted(a, b) for a, b in zip(left, right))
        if isinstance(left, dict) and isinstance(right, dict):
            return left.keys() == right.keys() and all(planted(left[key], right[key]) for key in left)
        return type(left) is type(right) and bool(left == right)

    return planted


def _rewritten_inspection_at_the_fuse(number: int) -> HookSequence:
    """Three failures, then an inspection that measured nothing, its params rewritten by the host (call ``number``)."""
    return website(*[Call(index, "fetch_fail") for index in range(3)], Call(number, "no_match", "rewritten", order=AFTER))


@PROBED("H2")
def test_h2_catches_deep_equality_that_ignores_a_longer_list() -> None:
    """Plants: ``same`` compares two lists only over their common length. Breaks: a receipt whose executed params
    differ from the recorded ones is not its call's and earns nothing (hooks.md, H2; seeds 000/001): at call
    numbers 1 mod 4 the host's rewrite appends one step to the inspection's steps, and the glued-on step would let
    the fourth failure, an inspection that measured nothing, wait at the fuse."""
    planted = _careless_same((list,), lengths=False)
    assert_caught("H2", _rewritten_inspection_at_the_fuse(5), lambda patch: patch.setattr(hooks, "same", planted), at=3)


@PROBED("H2")
def test_h2_catches_deep_equality_that_ignores_types() -> None:
    """Plants: ``same`` takes a list and a tuple with equal elements for the same value. Breaks: as above (hooks.md
    H2): at call numbers 3 mod 4 the host's rewrite hands the inspection's steps back as a tuple, and a deep
    equality blind to types would let the fourth failure wait at the fuse."""
    planted = _careless_same((list, tuple), lengths=True)
    assert_caught("H2", _rewritten_inspection_at_the_fuse(3), lambda patch: patch.setattr(hooks, "same", planted), at=3)


@PROBED("H9")
def test_h9_catches_a_capped_copy_classified_without_its_record() -> None:
    """Plants: a capped persisted copy is not recognised as capped. Breaks: without the tool's record a capped
    copy cannot be classified and is charged at once (hooks.md; seed 001: fail closed): the stub of a passed
    inspection, counted by the persist hook, passes as a success."""
    sequence = website(Call(0, "passed", record=False, order=PERSIST, capped=True))
    assert_caught("H9", sequence, lambda patch: patch.setattr(hooks, "is_capped", lambda result: False), at=0)


@PROBED("H10")
def test_h10_catches_an_instruction_shown_at_every_boundary() -> None:
    """Plants: ``Finalization.deliver`` reports the instruction delivered but leaves the phase pending. Breaks:
    the first refused boundary after a trip shows the instruction and every later one the stop text with one
    abort (hooks.md "After the fuse"; seed 002): the second read after the trip gets the instruction again."""
    events = [Call(number, "fetch_fail") for number in range(4)] + [ModelCall(), Call(4, "read"), Call(5, "read")]

    def planted(self: Finalization) -> bool:
        return self.phase == PENDING

    assert_caught("H10", website(*events), lambda patch: patch.setattr(Finalization, "deliver", planted), at=6)


@PROBED("H2")
def test_h2_catches_a_deferral_granted_by_the_result_shape_alone() -> None:
    """Plants: the guard takes another tool (``web_fetch``) for the inspection tool. Breaks: only the inspection
    tool's receipts may wait at the fuse (hooks.md H2, "other-tool receipts are never deferred"; seed 001): a
    fetch whose result is shaped like an inspection that measured nothing is deferred at the fourth failure."""
    events = [Call(number, "fetch_fail") for number in range(3)] + [Call(3, "no_match@web_fetch")]
    assert_caught("H2", website(*events), lambda patch: patch.setattr(hooks, "INSPECTION_TOOL", "web_fetch"), at=3)


@PROBED("H11")
def test_h11_catches_a_live_receipt_whose_error_is_dropped() -> None:
    """Plants: ``after_tool_call`` drops the error its event carries. Breaks: a receipt is a failure when the event
    carries an error, whatever its result says (classifiers.md "failed outcome"): a read that raised is counted
    as a success when its live hook comes first."""
    original = ToolLoopGuard.after_tool_call

    def forgetful(self: ToolLoopGuard, call_id: Any, tool: Any, params: Any, result: Any, error: Any = None) -> None:
        original(self, call_id, tool, params, result, None)

    sequence = website(Call(0, "read"), Call(1, "read!error", order=AFTER))
    assert_caught("H11", sequence, lambda patch: patch.setattr(ToolLoopGuard, "after_tool_call", forgetful), at=1)


@PROBED("H11")
def test_h11_catches_a_kept_record_that_outvotes_its_receipt() -> None:
    """Plants: once the tool's own record is kept, the receipt's ``isError`` is not read (the live hook is handed
    the receipt without it). Breaks: with a record, the receipt is still a failure when it says ``isError``
    (``properties.hooks.spec_outcome``, the guard's documented choice where hooks.md is silent): an inspection
    whose record passed, delivered as an error, is counted as a success. Issue 24: every generated record used to
    be its receipt, so the verdict could not see this."""
    original = ToolLoopGuard.after_tool_call

    def trusting(self: ToolLoopGuard, call_id: Any, tool: Any, params: Any, result: Any, error: Any = None) -> None:
        kept = {key: value for key, value in result.items() if key != "isError"} if isinstance(result, dict) else result
        original(self, call_id, tool, params, kept, error)

    sequence = website(Call(0, "passed_error_receipt", order=AFTER))
    assert_caught("H11", sequence, lambda patch: patch.setattr(ToolLoopGuard, "after_tool_call", trusting), at=0)


@PROBED("H11")
def test_h11_catches_a_record_kept_under_a_nested_childs_id() -> None:
    """Plants: ``record_tool_result`` reads a nested child's id as its parent's. Breaks: a record is for the exact
    pending call (hooks.md), and nested Tool Search children are never observed: a record arriving under a
    nested id is kept for nothing. Issue 24: every generated record used to arrive under its call's own id."""
    original = ToolLoopGuard.record_tool_result

    def adopting(self: ToolLoopGuard, call_id: Any, params: Any, result: Any) -> bool:
        if isinstance(call_id, str) and call_id.startswith("tool_search_code:record-"):
            call_id = "call-" + call_id.rsplit("-", 1)[1]
        return original(self, call_id, params, result)

    sequence = website(Call(0, "no_match", record_id="nested"))
    assert_caught("H11", sequence, lambda patch: patch.setattr(ToolLoopGuard, "record_tool_result", adopting), at=0)


@PROBED("H11")
def test_h11_catches_a_record_under_another_id_that_finds_no_parent() -> None:
    """Plants: a record under an id that is no pending call is dropped. Breaks: guard/hooks.py's documented rule
    (the one uncounted Tool Search parent selecting the inspection tool with deep-equal args keeps it), which H11
    restates: the Tool Search inspection's record under an id of its own is kept for it."""
    original = ToolLoopGuard.record_tool_result

    def strict(self: ToolLoopGuard, call_id: Any, params: Any, result: Any) -> bool:
        return original(self, call_id, params, result) if call_id in self.pending else False

    sequence = website(Call(0, "ts_passed", record_id="foreign"))
    assert_caught("H11", sequence, lambda patch: patch.setattr(ToolLoopGuard, "record_tool_result", strict), at=0)


def router_calls(*calls: tuple[int, str]) -> HookSequence:
    """Playground calls by (call number, kind), each bound, after-first: the call number picks the path form."""
    return HookSequence(playground=True, events=tuple(Call(index, kind) for index, kind in calls))


@PROBED("H12")
def test_h12_catches_a_gate_that_lets_code_run() -> None:
    """Plants: the first-write gate takes any command for a version probe. Breaks: the router refuses commands
    until the first project file exists (seed 002: its recorded call 1, a probe with code chained to it, was
    refused); here seed 002's recorded call 1 runs."""
    sequence = router_calls((2, "gate"))
    assert call_shape("gate", 2).params["command"].startswith("python3 --version && ")
    assert_caught("H12", sequence, lambda patch: patch.setattr(hooks, "VERSION_PROBE", re.compile(r".*")), at=0)


@PROBED("H12")
def test_h12_catches_a_router_that_binds_a_generic_folder() -> None:
    """Plants: no folder name is generic to the router. Breaks: a first write to a generic folder is refused as
    ``playground-project-path`` (hooks.md: "a write to a bare, generic or unusable path"); here
    ``Playground/src/...`` is bound as the project and the next gated exec runs."""
    generic = next(index for index in range(12) if call_shape("bad_write", index).params["path"].startswith("Playground/src/"))
    sequence = router_calls((generic, "bad_write"), (generic + 1, "gate"))
    assert_caught("H12", sequence, lambda patch: patch.setattr(hooks, "GENERIC_NAMES", frozenset()), at=0)


@PROBED("H12")
def test_h12_catches_a_refusal_that_does_not_name_its_remedy() -> None:
    """Plants: the first-write refusal says only that nothing ran. Breaks: seed 002's refusal "names its own
    remedy" (write the first project file, in a Playground folder); the model is left without the fix."""
    sequence = router_calls((0, "gate"))
    assert_caught("H12", sequence, lambda patch: patch.setattr(hooks, "FIRST_WRITE_TEXT", "Not run."), at=0)


def _budget_default(patch: pytest.MonkeyPatch, flag: str) -> None:
    """The budget treating an omitted ``flag`` as True (mutmut's defaults mutants of ``observe_result``)."""
    from guard.budget import RunProgressBudget

    original = RunProgressBudget.observe_result

    def planted(self: Any, call_id: Any, tool: Any, params: Any, failed: Any, **flags: Any) -> None:
        flags.setdefault(flag, True)
        original(self, call_id, tool, params, failed, **flags)

    patch.setattr(RunProgressBudget, "observe_result", planted)


@PROBED("H2")
def test_h2_catches_a_budget_that_defers_a_receipt_handed_no_flag() -> None:
    """Plants: an omitted ``correctable`` read as True by the budget. Breaks: an unbound receipt is never deferred
    (hooks.md H2): the guard hands the fourth failure, which has no ``before_tool_call``, no flag, and the budget
    defers it anyway. H2 reads the budget's own deferral count, not only the flags it was handed."""
    events = [Call(number, "fetch_fail") for number in range(3)] + [Call(3, "fetch_fail", binding="no_before")]
    assert_caught("H2", website(*events), lambda patch: _budget_default(patch, "correctable"), at=3)


@PROBED("H2")
def test_h2_catches_an_unbound_success_that_forgives_a_waiting_charge() -> None:
    """Plants: an omitted ``corrected`` read as True. Breaks: only a bound passing inspection forgives a waiting
    charge (budget.md production step 5, hooks.md H2): after an inspection that measured nothing waits at the
    fuse, a read with no ``before_tool_call`` must land the charge, and the planted budget forgives it."""
    events = [Call(number, "fetch_fail") for number in range(3)] + [Call(3, "no_match"),
                                                                   Call(4, "read", binding="no_before")]
    assert_caught("H2", website(*events), lambda patch: _budget_default(patch, "corrected"), at=4)


@PROBED("H2")
def test_h2_catches_a_budget_that_frees_a_failure_handed_no_flag() -> None:
    """Plants: an omitted ``empty_lookup`` read as True. Breaks: an unbound receipt is never free (hooks.md H2)."""
    events = [Call(0, "exec_fail", binding="no_before")]
    assert_caught("H2", website(*events), lambda patch: _budget_default(patch, "empty_lookup"), at=0)


@PROBED("H5")
def test_h5_catches_a_turn_forfeited_by_one_model_call() -> None:
    """Plants: the trip leaves the guard's model-call count at 1 (mutmut's ``_note_stop`` mutant 5; ``+= 2`` in
    ``model_call_start`` is the same bug). Breaks: only two model calls without a tool boundary forfeit the answer
    turn (hooks.md), so the model's one answer after the trip must leave the correction pending; H5 counts the
    model calls itself, where its admission expectation alone read the guard's own pending correction."""
    original = ToolLoopGuard._note_stop

    def planted(self: ToolLoopGuard, was_terminal: bool, call_id: Any) -> None:
        original(self, was_terminal, call_id)
        if not was_terminal and self.budget.terminal:
            self.model_calls = 1

    assert_caught("H5", playground_trip("remedy"), lambda patch: patch.setattr(ToolLoopGuard, "_note_stop", planted), at=4)


@PROBED("H11")
def test_h11_catches_an_inspection_that_measured_nothing_handed_no_flag() -> None:
    """Plants: the guard never calls an inspection failure correctable (mutmut's ``_allowances`` mutants 1 and 6).
    Breaks: a bound inspection receipt reaches the budget flagged exactly as classifiers.md classifies what hooks.md
    says is classified (seed 001): the fourth call, an inspection whose last step names a locator that matched
    nothing, must arrive correctable. H3 could not tell: without a deferral production is the reference."""
    events = [Call(number, "fetch_fail") for number in range(3)] + [Call(3, "no_match")]
    assert_caught("H11", website(*events),
                  lambda patch: patch.setattr(hooks, "correctable_inspection_failure", lambda result: False), at=3)


@pytest.mark.parametrize("kind", ["odd_receipt", "odd_details", "odd_args", "odd_content"])
def test_values_the_spec_leaves_open_reach_the_guard_and_hold(kind: str) -> None:
    """Issue 24: each of ``shapes.ODD_KINDS``, bound and through Tool Search, holds H8 and H11 on the real hook
    path (each exercised), whichever of its forms the call number picks."""
    from properties.hooks.shapes import kind_name

    for index in range(3):
        for variant in (kind, kind_name(kind, wrapped=True)):
            sequence = website(Call(index, variant))
            for invariant in ("H8", "H11"):
                found, tally = judge(invariant, sequence)
                assert found == [], (variant, found)
            assert judge("H11", sequence)[1].exercised["H11"] > 0


def test_a_guard_that_reads_a_receipt_as_an_object_crashes_on_one_that_is_not(monkeypatch) -> None:
    """mutmut's ``details_of`` mutant 3 (the object check dropped): the generator's receipts that are no object
    (a bare text, null, a list) make such a guard raise, which the verdict reports as a driver crash."""
    monkeypatch.setattr(hooks, "details_of", lambda result: result.get("details") or {})
    sequence = website(Call(0, "odd_receipt"))
    assert call_shape("odd_receipt", 0).live == "done"
    with pytest.raises(AttributeError):
        judge("H11", sequence)


@PROBED("H3")
def test_h3_catches_a_budget_that_skips_a_successs_fingerprint() -> None:
    """Plants: an omitted ``pending`` read as True (mutmut's ``observe_result`` mutant 1): every success the hooks
    count resets the rounds without its fingerprint being counted. Breaks: with no allowance applied the budget
    is the reference fed the same receipts, memories included (budget.md), which H3 now compares."""
    events = [Call(0, "read")] + [Call(number, "fetch_fail") for number in range(1, 5)]  # then the run stops
    assert_caught("H3", website(*events), lambda patch: _budget_default(patch, "pending"), at=0)


def _hand_the_budget(patch: pytest.MonkeyPatch, which: str) -> None:
    """Plants: every receipt the hooks count reaches the budget with ``which`` (its tool or its params) None, as
    the hooks would hand it over: the spy budget every hook driver gives the guard (``deliver.SpyBudget``) is
    wrapped, so what it logs as received is what the guard handed it, as under mutmut's ``_count`` mutants."""
    from properties.hooks.deliver import SpyBudget

    original = SpyBudget.observe_result

    def planted(self: SpyBudget, call_id: Any, tool: Any, params: Any, *args: Any, **kwargs: Any) -> Any:
        return original(self, call_id, None if which == "tool" else tool, None if which == "params" else params,
                        *args, **kwargs)

    patch.setattr(SpyBudget, "observe_result", planted)


@PROBED("H3")
@pytest.mark.parametrize("which", ["tool", "params"])
def test_h3_catches_a_hook_path_that_hands_its_budget_another_tool_or_params(which: str) -> None:
    """Plants: the hooks hand the budget no tool, or no params, for every receipt (mutmut's ``_count`` 24 and 25).
    Breaks: a success is fingerprinted by the tool and params the call was recorded with (guard/hooks.py's
    documented choice, which H3's oracle is fed: hooks.md is silent), so the first success's fingerprint is
    not the reference's."""
    events = [Call(0, "read")] + [Call(number, "fetch_fail") for number in range(1, 5)]
    assert_caught("H3", website(*events), lambda patch: _hand_the_budget(patch, which=which), at=0)


def test_h5_lets_a_model_call_past_the_rounds_cap_spend_the_correction() -> None:
    """Found by the bulk driver (seed 20261130 under ``--mutants``, shrunk to 13 steps) once issue 24's new
    dimensions moved its draws: seven model calls, three gates, the eighth model call, the fourth gate trips the
    fuse with a correctable refusal, then a ninth model call. That round passes the cap of 8 (budget.md: the 9th
    stops, and ``begin_model_round`` clears the correction), so the correction is spent by the first model call
    since the trip; H5 used to count only model calls and called the guard wrong. The cap is never deferred."""
    events = ([ModelCall()] * 7 + [Call(index, "gate") for index in (1, 2, 3)] + [ModelCall(), Call(4, "gate"), ModelCall()])
    sequence = HookSequence(playground=True, events=tuple(events))
    found, tally = judge("H5", sequence)
    assert found == [] and tally.exercised["H5"] > 0
    # One model call fewer before the trip: the round after it is the 8th, within the cap, and the correction pends.
    monitor = HookMonitor(Tally(), (BY_ID["H5"],))
    monitor.start(sequence)
    for event in events[1:]:
        assert monitor.step(event) == []
    assert monitor.guards["G"].budget.correction is not None


def _shallow_copies(patch: pytest.MonkeyPatch) -> None:
    """Plants: the guard keeps shallow copies of what the host handed it (``copy.deepcopy`` read as ``copy.copy``
    in ``guard.hooks`` alone, never in the harness, whose host copies must stay its own)."""
    import copy
    import types

    patch.setattr(hooks, "copy", types.SimpleNamespace(deepcopy=copy.copy, copy=copy.copy))


@PROBED("H3")
def test_h3_catches_params_kept_as_a_shallow_copy() -> None:
    """Plants: ``before_tool_call`` keeps a shallow copy of the params (mutmut's ``_record`` 3). Breaks: at call
    numbers 2 mod 5 the host empties the lists inside the params it handed over once the hook returned
    (``shapes.host_edits``); a success is fingerprinted by the params the call was made with (H3's oracle), so the
    guard's fingerprint of an emptied copy is not the reference's."""
    assert call_shape("passed", 2).params["steps"]
    events = [Call(2, "passed")] + [Call(number, "fetch_fail") for number in range(3, 7)]  # then the run stops
    assert_caught("H3", website(*events), _shallow_copies, at=0)


@PROBED("H11")
def test_h11_catches_a_record_kept_as_a_shallow_copy() -> None:
    """Plants: ``record_tool_result`` keeps a shallow copy of the tool's record (mutmut's ``record_tool_result``
    10). Breaks: the host empties the record's details once the hook returned (call numbers 2 mod 5), and the kept
    record of an inspection that measured nothing must still read correctable (classifiers.md, seed 001)."""
    assert_caught("H11", website(Call(2, "no_match", order=PERSIST)), _shallow_copies, at=0)
