"""Catalogue entries of the hooks subject (``guard/hooks.py``, ``shared/spec/hooks.md``), and of the inspection
classifier (``guard/inspection.py``, seed 001) that the hook path calls.

Hook entries must be killed by the verdict naming one of their ``breaks``:
an H invariant, or a B invariant, since the hook path drives the budget
(``DRIVES``). The inspection classifier's entries sit here because the hook
path is its only caller in ``guard/`` (each receipt is classified there before
the budget sees it), so the hooks subject is the one whose sequences run it;
they stay at level ``classifier``, judged by their tests alone, because no
invariant of the verdict restates the classifier's table (``shared/spec/
classifiers.md``) and a wrong classification need not break a promise.
"""

from __future__ import annotations

from mutations.entry import CLASSIFIER, Edit, entry

SUBJECT = "hooks"
#: Subjects this one drives: its entries may be killed by their invariants too (the hook path feeds the budget).
DRIVES = ("budget",)
HOOKS_PY = "guard/hooks.py"
INSPECTION_PY = "guard/inspection.py"

HOOK_PATH = [
    entry(
        "hooks-no-pending-phase-check", "002", "a remedy is admitted after the finalization instruction was shown",
        HOOKS_PY, SUBJECT,
        Edit("        if self.finalization.phase != PENDING:\n            return False\n", ""), breaks=("H5",),
    ),
    entry(
        "hooks-no-nested-check", "002", "a nested Tool Search child may be admitted as the remedy",
        HOOKS_PY, SUBJECT,
        Edit("        if record.nested:\n            return False\n        # Seed 002: one failure after the remedy",
             "        # Seed 002: one failure after the remedy"), breaks=("H2", "H5"),
    ),
    entry(
        "hooks-no-usable-id-check", "002", "a remedy under a call id the budget ignores may be admitted",
        HOOKS_PY, SUBJECT,
        Edit("        if not (isinstance(record.call_id, str) and record.call_id):\n            return False\n", ""),
        breaks=("H2", "H5"),
    ),
    entry(
        "hooks-no-routing-check", "002", "a remedy is admitted while Playground routing is not active",
        HOOKS_PY, SUBJECT,
        Edit("        if not self._routing_active():\n            return False\n        # Seed 002: only the write the refusal asked for",
           "        # Seed 002: only the write the refusal asked for"),
        Edit("binds_new_project(record.tool, record.params, self.routing, self.root, self.read_paths)",
           "binds_new_project(record.tool, record.params, self.routing or RoutingState(), self.root, self.read_paths)"), breaks=("H5",),
    ),
    entry(
        "hooks-no-disarm", "002", "admitting the remedy does not disarm the pending finalization",
        HOOKS_PY, SUBJECT,
        Edit("            self.finalization.disarm()\n", "            pass\n"), breaks=("H6",),
    ),
    entry(
        "hooks-no-transcript-exception", "002", "the tripping refusal's persisted copy gets the stop text while a correction pends",
        HOOKS_PY, SUBJECT,
        Edit("        if self.budget.pending_correction is not None and call_id == self.tripped_by:\n            return message\n", ""), breaks=("H7",),
    ),
    entry(
        "hooks-leak-kind", "002", "the refusal kind leaks to the host in the block reason",
        HOOKS_PY, SUBJECT,
        Edit("        return Decision(block=True, block_reason=reason)\n",
           '        return Decision(block=True, block_reason=reason if kind is None else f"{reason} [{kind}]")\n'), breaks=("H4",),
    ),
    entry(
        "hooks-after-drops-kind", "002", "after_tool_call drops the refusal kind",
        HOOKS_PY, SUBJECT, Edit("record, self._refusal_kind(call_id))\n", "record, None)\n"),
        # H1: the two orders part at the trip; H12: the refused call's own receipt, counted after-first, has no kind.
        breaks=("H1", "H12"),
    ),
    entry(
        "hooks-persist-drops-kind", "002", "tool_result_persist drops the refusal kind",
        HOOKS_PY, SUBJECT, Edit("        kind = self._refusal_kind(call_id)\n", "        kind = None\n"),
        # As above, with the persist hook counting first.
        breaks=("H1", "H12"),
    ),
    entry(
        "hooks-admit-any-write", "002", "any write is admitted as the remedy, not only one that binds a new project",
        HOOKS_PY, SUBJECT,
        Edit("        return binds_new_project(record.tool, record.params, self.routing, self.root, self.read_paths)",
           "        return write_path(record.tool, record.params) is not None"), breaks=("H5",),
    ),
    entry(
        "hooks-classify-persisted-copy", "001", "the persisted copy is classified even when the tool recorded its own result",
        HOOKS_PY, SUBJECT,
        # H1: the two orders part (the capped copy is classified, not the record); H11: the kept record's flags
        # (seed 001: a bound inspection receipt is flagged as its record is classified): with seed 20261130, H11 first.
        Edit("        source = bound.recorded if bound is not None and bound.has_record else receipt\n",
           "        source = receipt\n"), breaks=("H1", "H11"),
    ),
    entry(
        "hooks-unbound-params", "000", "a receipt whose executed params differ from the pending call still binds",
        HOOKS_PY, SUBJECT,
        # H2 sees the misbound receipt granted an allowance; H11 sees it classified as bound (a refused call's
        # receipt failing, though hooks.md binds only deep-equal executed params): with seed 20261130, H11 first.
        Edit("        if record is not None and not same(record.params, params):\n", "        if False:\n"),
        breaks=("H2", "H11"),
    ),
    entry(
        "hooks-unbound-session", "000", "a receipt from another run or session binds to the pending call",
        HOOKS_PY, SUBJECT,
        Edit("        if record.run != self.run or record.session != self.session:\n            return None\n        if record.transport",
           "        if record.transport"), breaks=("H2",),
    ),
    entry(
        "hooks-command-from-result", "000", "the lookup command is read from the result instead of the call record",
        HOOKS_PY, SUBJECT,
        Edit("lookup_found_nothing(_command_of(bound.args),", 'lookup_found_nothing(details_of(inner).get("command"),'), breaks=("H8",),
    ),
    entry(
        "hooks-no-forfeit", "002", "a forfeited answer turn (two model calls after the trip) leaves the correction pending",
        HOOKS_PY, SUBJECT,
        Edit("        if self.model_calls >= 2 and self.budget.pending_correction is not None:\n            self.budget.stop()\n", ""), breaks=("H5",),
    ),
    entry(
        "hooks-classify-capped-copy", "001", "a capped copy without a record is classified from its stub instead of charged",
        HOOKS_PY, SUBJECT,
        Edit("        if source is receipt and is_capped(receipt):\n            return {\"failed\": True, \"allowances\": {}}\n", ""), breaks=("H9",),
    ),
    entry(
        "hooks-count-nested", "001", "a nested Tool Search child's receipt is counted",
        HOOKS_PY, SUBJECT,
        Edit("        if is_nested(call_id):\n            return\n        record = self.pending.get(call_id)",
           "        record = self.pending.get(call_id)"), breaks=("H2",),
    ),
    entry(
        "hooks-no-instruction", "002", "a stopped run's first refused boundary shows the stop text instead of the finalization instruction",
        HOOKS_PY, SUBJECT,
        # H3's oracle restates hooks.md's instruction-then-stop (the earlier path's first refused boundary), so it
        # sees the missing instruction as soon as H10 does.
        Edit("        if self.finalization.deliver():\n            return FINALIZATION_INSTRUCTION\n", ""), breaks=("H10", "H3"),
    ),
    # Issue 24: the router's own rules (seed 002), judged by H12 against properties/hooks/spec_router.py.
    entry(
        "hooks-router-probe-prefix", "002", "the first-write gate lets through any command that begins like a version probe",
        HOOKS_PY, SUBJECT,
        Edit("VERSION_PROBE.fullmatch(command.strip())", "VERSION_PROBE.match(command.strip())"), breaks=("H12",),
    ),
    entry(
        "hooks-router-generic-case", "002", "the router reads generic folder names in their letter case only",
        HOOKS_PY, SUBJECT,
        Edit("folder[-1].lower() in GENERIC_NAMES", "folder[-1] in GENERIC_NAMES"), breaks=("H12",),
    ),
    entry(
        "hooks-router-forgets-reads", "002", "the router no longer remembers the files a run read",
        HOOKS_PY, SUBJECT,
        Edit("            self.read_paths.append(read)\n", "            pass\n"), breaks=("H5",),
    ),
]

#: Issue 25: a change that makes a step never end (see ``mutations/entries/budget.py``).
RUNAWAY = [
    entry(
        "hooks-record-without-bound", "002", "a new pending call is recorded under numbered keys until its own id "
        "holds it, which it never does", HOOKS_PY, SUBJECT,
        Edit("            self.pending.setdefault(call_id, record)\n",
           "            while self.pending.get(call_id) is not record:\n"
           "                self.pending[f\"{call_id}#{len(self.pending)}\"] = record\n"), breaks=("H3",),
    ),
]

# -- the inspection classifier (seed 001) ----------------------------------------

INSPECTION = [
    entry(
        "inspection-visibility-mismatch-correctable", "001", "a visibility mismatch (a measured failure) counts as correctable",
        INSPECTION_PY, CLASSIFIER,
        Edit('LOCATOR_ERRORS = frozenset({"no_match", "selector_not_unique", "invalid_selector"})',
           'LOCATOR_ERRORS = frozenset({"no_match", "selector_not_unique", "invalid_selector", "visibility_mismatch"})'),
    ),
    entry(
        "inspection-click-failure-correctable", "001", "a click failure (a measured failure) counts as correctable",
        INSPECTION_PY, CLASSIFIER,
        Edit('LOCATOR_ERRORS = frozenset({"no_match", "selector_not_unique", "invalid_selector"})',
           'LOCATOR_ERRORS = frozenset({"no_match", "selector_not_unique", "invalid_selector", "click_failed"})'),
    ),
    entry(
        "inspection-page-errors-correctable", "001", "a failure that recorded page errors counts as correctable",
        INSPECTION_PY, CLASSIFIER,
        Edit('    if status != "failed" or "errorCode" in details or "pageErrors" in details:\n',
           '    if status != "failed" or "errorCode" in details:\n'),
    ),
    entry(
        "inspection-blocked-requests-correctable", "001", "a failure with blocked requests counts as correctable",
        INSPECTION_PY, CLASSIFIER,
        Edit("    if not isinstance(blocked, list) or blocked or not isinstance(steps, list) or not steps:\n",
           "    if not isinstance(steps, list) or not steps:\n"),
    ),
    entry(
        "inspection-pass-with-page-errors", "001", "a pass that recorded page errors counts as passed and forgives",
        INSPECTION_PY, CLASSIFIER,
        Edit('    return not details.get("pageErrors")\n', "    return True\n"),
    ),
]

ENTRIES = (*HOOK_PATH, *RUNAWAY, *INSPECTION)
