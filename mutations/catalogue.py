"""The rule catalogue: named semantic mutations of ``guard/``, each an exact textual edit.

mutmut cannot reach what matters most in a guard: the numbers in
``guard/limits.py`` (attrs defaults) and whole rules that only a reviewer
would think to break. Each entry here breaks exactly one rule of
``shared/spec/budget.md``, ``hooks.md`` or ``classifiers.md`` in one named
way. Edits are literal find/replace pairs, and each ``find`` must occur exactly
once in its file: an entry whose text has drifted fails loudly instead of
silently testing nothing.

``level``: ``budget``, ``hooks``, ``navigation`` and ``lookup`` entries must
also be killed by the property drivers alone (``python -m properties
--mutants`` naming one of the entry's ``breaks``); every entry must be killed
by at least one pytest test.
"""

from __future__ import annotations

from pathlib import Path

import attrs

from properties.budget.copies import SPEC_LIMITS

BUDGET = "budget"
HOOKS = "hooks"
CLASSIFIER = "classifier"
NAVIGATION = "navigation"
LOOKUP_LEVEL = "lookup"
LEVELS = (BUDGET, HOOKS, CLASSIFIER, NAVIGATION, LOOKUP_LEVEL)
#: Levels whose entries must also be killed by the property drivers alone (``python -m properties --mutants``):
#: each has a subject in the verdict. The inspection classifier's entries are judged by its table tests.
PROPERTY_LEVELS = (BUDGET, HOOKS, NAVIGATION, LOOKUP_LEVEL)


class CatalogueError(Exception):
    """An entry cannot be applied: its file or its text is missing or ambiguous."""


@attrs.frozen
class Edit:
    find: str
    replace: str


@attrs.frozen
class Span:
    """Where an entry changes its file: 1-based lines and columns, the end exclusive (Stryker's convention).

    ``replacement`` is exactly what takes the place of that range; together they
    turn the unmutated file into the mutated one.
    """

    start_line: int
    start_column: int
    end_line: int
    end_column: int
    replacement: str


@attrs.frozen
class Entry:
    id: str
    seed: str
    rule: str
    file: str
    level: str
    edits: tuple[Edit, ...]
    #: The invariants the verdict must name as violated for a kill (issue 22): a property-level entry killed by
    #: any other one, by a crash, or only by a unit test does not pass the catalogue. Classifier entries: none.
    breaks: tuple[str, ...] = ()

    def applied(self, text: str) -> str:
        """``text`` with every edit made; CatalogueError when a target is missing or ambiguous."""
        for number, edit in enumerate(self.edits, 1):
            found = text.count(edit.find)
            if found != 1:
                what = "not found" if found == 0 else f"found {found} times"
                raise CatalogueError(f"{self.id}: {self.file}: edit {number}: target text {what}: {edit.find.strip()[:80]!r}")
            text = text.replace(edit.find, edit.replace, 1)
        return text

    def apply_to(self, root: Path) -> str:
        """Apply every edit to ``root/file``; returns a one-line description of the change."""
        path = root / self.file
        if not path.is_file():
            raise CatalogueError(f"{self.id}: {self.file}: file not found")
        path.write_text(self.applied(path.read_text(encoding="utf-8")), encoding="utf-8")
        return self.one_line_diff()

    def spans(self, original: str) -> tuple[Span, ...]:
        """Where each edit changes ``original`` (the unmutated file), in file order.

        Computed from the texts, not from the edit strings: an entry's find text
        repeats context on purpose (to be unique), and drawing all of it would
        mark unchanged code. Each edit is applied alone and compared with the
        original (see ``changed_span``). When an edit cannot be applied alone
        (its text only exists after an earlier edit), the entry gets one span
        covering everything it changes.
        """
        mutated = self.applied(original)
        alone = []
        for edit in self.edits:
            if original.count(edit.find) != 1:
                return (changed_span(original, mutated),)
            at = original.find(edit.find)
            alone.append(changed_span(original, original.replace(edit.find, edit.replace, 1), (at, at + len(edit.find))))
        return tuple(sorted(alone, key=lambda span: (span.start_line, span.start_column)))

    def span(self, original: str) -> Span:
        """The first place the entry changes ``original``: the mutant's location in the report."""
        return self.spans(original)[0]

    def span_in(self, root: Path) -> "Span | None":
        """``span`` of the unmutated ``root/file``; None when the file or an edit's text is missing."""
        try:
            return self.span((root / self.file).read_text(encoding="utf-8"))
        except (OSError, CatalogueError):
            return None

    def one_line_diff(self) -> str:
        parts = [f"{_squash(edit.find)} -> {_squash(edit.replace)}" for edit in self.edits]
        return "; ".join(parts)

    def first_line(self, root: Path) -> int:
        """Line (1-based) of the first edit in the unmutated file, for the report; 1 when unknown."""
        try:
            text = (root / self.file).read_text(encoding="utf-8")
        except OSError:
            return 1
        at = text.find(self.edits[0].find)
        if at < 0:
            return 1
        # Skip the leading whitespace of the find text so the line is that of the code, not of a newline.
        stripped = len(self.edits[0].find) - len(self.edits[0].find.lstrip())
        return text.count("\n", 0, at + stripped) + 1


def changed_span(original: str, mutated: str, near: "tuple[int, int] | None" = None) -> Span:
    """The smallest range of ``original`` that, replaced, gives ``mutated``; drawn where a reader expects it.

    The longest common prefix and suffix bound the change. A pure deletion or
    insertion can sit at several offsets with the same result (deleting one of
    two equal lines); it is moved to the start of a line when one of those
    offsets is, so whole lines are marked whole, else to the start of a word.
    A pure insertion has an empty range, which a viewer cannot mark: inserted
    lines take in the code of the line they follow (or precede, when only that
    one is in ``near``, the edit's find text), letters inside a line the
    word they join (else the code before them on their line), and the
    replacement carries that text too.
    """
    limit = min(len(original), len(mutated))
    prefix = 0
    while prefix < limit and original[prefix] == mutated[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and original[-1 - suffix] == mutated[-1 - suffix]:
        suffix += 1
    start, removed, added = prefix, len(original) - suffix - prefix, len(mutated) - suffix - prefix
    if removed == 0 or added == 0:
        moved = original if added == 0 else mutated
        length = removed or added
        candidates = [start]
        while candidates[-1] > 0 and moved[candidates[-1] - 1] == moved[candidates[-1] + length - 1]:
            candidates.append(candidates[-1] - 1)
        at_line = [offset for offset in candidates if offset == 0 or moved[offset - 1] == "\n"]
        at_word = [offset for offset in candidates if not _word(moved[offset - 1]) and _word(moved[offset])]
        start = (at_line or at_word or candidates)[0]
    end = start + removed
    replacement = mutated[start:start + added]
    if removed and added:
        # Whole words: `True` -> `False`, not `Tru` -> `Fals`.
        while start > 0 and _word(original[start - 1]) and _word(original[start]):
            start -= 1
            replacement = original[start] + replacement
        while end < len(original) and _word(original[end - 1]) and _word(original[end]):
            replacement += original[end]
            end += 1
    if removed == 0 and start > 0 and original[start - 1] == "\n" and replacement.endswith("\n"):
        # Whole lines inserted: drawn with the line they follow, or the line they precede when that one is the code
        # the edit names (``near``); never as a range ending at column 1 of a line, which the viewer extends into
        # that line's code.
        line_end = original.find("\n", start)
        line_end = len(original) if line_end < 0 else line_end
        previous = original.rfind("\n", 0, start - 1) + 1
        follows_in_near = near is not None and near[0] <= previous < near[1]
        precedes_in_near = near is not None and near[0] <= start < near[1] and line_end > start
        if precedes_in_near and not follows_in_near:
            replacement += original[start:line_end]
            end = line_end
        else:
            start -= 1
            end = start
            replacement = "\n" + replacement[:-1]
    elif removed == 0 and start > 0 and original[start - 1] != "\n":
        # Inserted inside a line: mark the word(s) it joins (`is_lookup` -> `is_last_lookup`).
        while start > 0 and _word(original[start - 1]):
            start -= 1
            replacement = original[start] + replacement
        while end < len(original) and _word(original[end]):
            replacement += original[end]
            end += 1
    if start == end:
        # Still empty: take in the code before it on its line, else (a blank line, the file's start) the rest of it.
        line_start = original.rfind("\n", 0, start) + 1
        while line_start < start and original[line_start] in " \t":
            line_start += 1
        if line_start < start:
            replacement = original[line_start:start] + replacement
            start = line_start
        else:
            line_end = original.find("\n", end)
            line_end = len(original) if line_end < 0 else line_end
            if line_end == end:
                raise CatalogueError("an insertion at an empty line has no code to mark")
            replacement += original[end:line_end]
            end = line_end
    start_line, start_column = _position(original, start)
    end_line, end_column = _position(original, end)
    return Span(start_line, start_column, end_line, end_column, replacement)


def _word(character: str) -> bool:
    return character.isalnum() or character == "_"


def _position(text: str, offset: int) -> tuple[int, int]:
    """1-based (line, column) of ``offset`` in ``text``."""
    line_start = text.rfind("\n", 0, offset) + 1
    return text.count("\n", 0, offset) + 1, offset - line_start + 1


def _squash(text: str) -> str:
    return " ".join(text.split()) or "(nothing)"


def _e(find: str, replace: str) -> Edit:
    return Edit(find, replace)


def _entry(id: str, seed: str, rule: str, file: str, level: str, *edits: Edit, breaks: tuple[str, ...] = ()) -> Entry:
    return Entry(id=id, seed=seed, rule=rule, file=file, level=level, edits=tuple(edits), breaks=breaks)


B = "guard/budget.py"
L = "guard/limits.py"
INSPECTION = "guard/inspection.py"
LOOKUP = "guard/lookup.py"
HOOK = "guard/hooks.py"

# -- budget: seed 001 -------------------------------------------------------

_WAIT_CONDITION = "if not (corrected is True and (waiting == GLOBAL or waiting == lane)):"
_LAND_WAITING = (
    "            if self.deferred is not None:\n"
    "                self._charge(self.deferred)\n"
    "                self.deferred = None\n"
)

BUDGET_001 = [
    _entry(
        "defer-below-fuse", "001", "a correctable failure may wait even when its charge would not trip the fuse",
        B, BUDGET,
        _e("            and self.deferrals_used < self.limits.corrected_attempts\n            and self._would_trip(counter)\n",
           "            and self.deferrals_used < self.limits.corrected_attempts\n"), breaks=('B5',),
    ),
    _entry(
        "any-success-forgives", "001", "any success forgives a waiting charge, corrected or not",
        B, BUDGET, _e(_WAIT_CONDITION, "if False:"), breaks=('B6', 'B7'),
    ),
    _entry(
        "other-lane-forgives", "001", "a corrected success in the other lane forgives a lane's waiting charge",
        B, BUDGET, _e(_WAIT_CONDITION, "if not (corrected is True and (waiting == GLOBAL or lane is not None)):"), breaks=('B7',),
    ),
    _entry(
        "unbounded-deferrals", "001", "more than two charges may wait in one run",
        B, BUDGET,
        _e("            and self.deferrals_used < self.limits.corrected_attempts\n", ""), breaks=('B5',),
    ),
    _entry(
        "two-charges-wait", "001", "a second charge may start waiting while one already waits",
        B, BUDGET,
        _e("            self.deferred is None\n            and self.deferrals_used", "            self.deferrals_used"), breaks=('B5',),
    ),
    _entry(
        "hold-back-total", "001", "a deferred failure's total count waits with its charge instead of counting at once",
        B, BUDGET,
        _e("        self.failures += 1\n        counter = lane if lane is not None else GLOBAL\n",
           "        counter = lane if lane is not None else GLOBAL\n"),
        _e("        else:\n            self._charge(counter)\n",
           "        else:\n            self.failures += 1\n            self._charge(counter)\n"),
        _e(_LAND_WAITING,
           "            if self.deferred is not None:\n"
           "                self._charge(self.deferred)\n"
           "                self.failures += 1\n"
           "                self.deferred = None\n"),
        _e("                self._charge(waiting)\n", "                self._charge(waiting)\n                self.failures += 1\n"), breaks=('B4',),
    ),
    _entry(
        "discovery-charges-wait", "001", "a discovery success charges the waiting charge",
        B, BUDGET,
        _e("        if discovery or tool in DISCOVERY_TOOLS:\n            return\n",
           "        if discovery or tool in DISCOVERY_TOOLS:\n"
           "            if self.deferred is not None:\n"
           "                self._charge(self.deferred)\n"
           "                self.deferred = None\n"
           "                self._settle()\n"
           "            return\n"), breaks=('B7',),
    ),
    _entry(
        "discovery-forgives-wait", "001", "a discovery success forgives the waiting charge",
        B, BUDGET,
        _e("        if discovery or tool in DISCOVERY_TOOLS:\n            return\n",
           "        if discovery or tool in DISCOVERY_TOOLS:\n            self.deferred = None\n            return\n"), breaks=('B7',),
    ),
    _entry(
        "next-failure-keeps-wait", "001", "the next failure does not land the waiting charge",
        B, BUDGET, _e(_LAND_WAITING, ""), breaks=('B7', 'B6'),
    ),
    _entry(
        "failure-ends-ignores-wait", "001", "failure_ends forgets the waiting charge that the next failure would land",
        B, BUDGET, _e(" else (counter, self.deferred)\n", " else (counter,)\n"), breaks=('B13',),
    ),
]

# -- budget: seed 002 -------------------------------------------------------

BUDGET_002 = [
    _entry(
        "same-kind-twice", "002", "the same refusal kind may be granted twice in a run",
        B, BUDGET, _e("            and kind not in self.corrected_kinds\n", ""), breaks=('B8',),
    ),
    _entry(
        "grant-past-total-cap", "002", "a refusal is granted even when the total cap stopped the run",
        B, BUDGET, _e("            and self.failures < limits.total_failures\n", ""), breaks=('B8',),
    ),
    _entry(
        "grant-with-lanes-exhausted", "002", "a refusal is granted even when both lanes are exhausted",
        B, BUDGET, _e("            and len(self.exhausted_lanes) < len(LANES)\n        ):", "        ):"), breaks=('B8',),
    ),
    _entry(
        "drop-lane-exclusion", "002", "a lane-classified refusal is granted too (only a global-fuse trip may be)",
        B, BUDGET, _e("            and lane is None\n            and kind is not None\n", "            and kind is not None\n"), breaks=('B8',),
    ),
    _entry(
        "rounds-cap-keeps-correction", "002", "the rounds cap leaves a pending correction in place",
        B, BUDGET,
        _e("            self.terminal = True\n            # Seed 002: the rounds cap outranks a pending remedy, or an idle model could reopen a stopped run.\n            self.correction = None\n",
           "            self.terminal = True\n"), breaks=('B10',),
    ),
    _entry(
        "declined-correction-kept", "002", "a declined first call does not spend the correction",
        B, BUDGET,
        _e("        self.correction = None\n        if remedy is not True:\n            return False\n",
           "        if remedy is not True:\n            return False\n        self.correction = None\n"), breaks=('B8',),
    ),
    _entry(
        "admission-resets-counters", "002", "admitting the remedy resets the consecutive count instead of leaving it at the fuse",
        B, BUDGET,
        _e("        self.terminal = False\n        return True\n",
           "        self.terminal = False\n        self.consecutive = 0\n        return True\n"), breaks=('B12',),
    ),
    _entry(
        "stop-keeps-correction", "002", "stop() keeps a pending correction",
        B, BUDGET,
        _e('        """Another guard stopped the run: sticky, and it leaves no correction to admit (seed 002)."""\n'
           "        self.terminal = True\n        self.correction = None\n",
           '        """Another guard stopped the run: sticky, and it leaves no correction to admit (seed 002)."""\n'
           "        self.terminal = True\n"), breaks=('B8',),
    ),
]

# -- budget: seed 000 -------------------------------------------------------

BUDGET_000 = [
    _entry(
        "unbounded-free-lookups", "000", "every empty lookup is free, not only the first twelve",
        B, BUDGET,
        _e("        if empty_lookup and self.free_lookups_used < limits.free_empty_lookups:\n",
           "        if empty_lookup:\n"),
        _e("        if empty_lookup is True and self.free_lookups_used < limits.free_empty_lookups:\n",
           "        if empty_lookup is True:\n"), breaks=('B4', 'B11'),
    ),
    _entry(
        "free-lookup-resets-consecutive", "000", "a free empty lookup resets the consecutive count",
        B, BUDGET,
        _e("            self.free_lookups_used += 1\n            return\n",
           "            self.free_lookups_used += 1\n            self.consecutive = 0\n            return\n"), breaks=('B11',),
    ),
    _entry(
        "free-lookup-resets-rounds", "000", "a free empty lookup resets the rounds count",
        B, BUDGET,
        _e("            self.free_lookups_used += 1\n            return\n",
           "            self.free_lookups_used += 1\n            self.rounds = 0\n            return\n"), breaks=('B11',),
    ),
]

# -- budget: the earlier rules ------------------------------------------------

BUDGET_EARLIER = [
    _entry(
        "lane-failure-charges-global", "001", "a lane failure also charges the global consecutive count",
        B, BUDGET,
        _e("        self.lane_failures[counter] += 1\n", "        self.consecutive += 1\n        self.lane_failures[counter] += 1\n"), breaks=('B1',),
    ),
    _entry(
        "pending-keeps-rounds", "001", "a verified running-process receipt does not reset rounds",
        B, BUDGET, _e("        if pending:\n            self.rounds = 0\n            return\n", "        if pending:\n            return\n"), breaks=('B1',),
    ),
    _entry(
        "fingerprint-ignores-params", "001", "the success fingerprint ignores the params",
        B, BUDGET, _e("json.dumps([tool, params], sort_keys=True,", "json.dumps([tool], sort_keys=True,"), breaks=('B1',),
    ),
    _entry(
        "fingerprint-key-order", "001", "the success fingerprint depends on the params' key order",
        B, BUDGET, _e("json.dumps([tool, params], sort_keys=True,", "json.dumps([tool, params], sort_keys=False,"), breaks=('B1',),
    ),
]

# -- budget: each limit one lower and one higher ------------------------------

#: attrs field of ``Limits`` -> the number ``budget.md`` gives it (the one table, ``SPEC_LIMITS``).
LIMIT_DEFAULTS = attrs.asdict(SPEC_LIMITS)
#: What each moved limit must break: production with every new argument stripped no longer equals the reference
#: (B1), and where the limit is a promise of its own, that promise (the rounds cap B10, the corrected attempts
#: B5, the free lookups B11, whose 13th lookup then charges the total: B4).
LIMIT_BREAKS: dict[tuple[str, str], tuple[str, ...]] = {
    ("consecutive_failures", "lower"): ("B1",),
    ("consecutive_failures", "higher"): ("B1",),
    ("total_failures", "lower"): ("B1", "B4"),
    ("total_failures", "higher"): ("B1", "B4"),
    ("rounds_without_progress", "lower"): ("B1", "B10"),
    ("rounds_without_progress", "higher"): ("B10", "B1"),
    ("identical_successes", "lower"): ("B1",),
    ("identical_successes", "higher"): ("B1",),
    ("corrected_attempts", "lower"): ("B5",),
    ("corrected_attempts", "higher"): ("B5",),
    ("free_empty_lookups", "lower"): ("B4", "B11"),
    ("free_empty_lookups", "higher"): ("B4", "B11"),
    ("seen_calls", "lower"): ("B1",),
    ("seen_calls", "higher"): ("B1",),
    ("successes", "lower"): ("B1",),
    ("successes", "higher"): ("B1",),
}


def _limit_entries() -> list[Entry]:
    entries = []
    for name, value in LIMIT_DEFAULTS.items():
        find = f"    {name}: int = attrs.field(default={value}, validator=_positive)\n"
        for step, word in ((-1, "lower"), (1, "higher")):
            entries.append(
                _entry(
                    f"limit-{name.replace('_', '-')}-{word}", "000" if name == "free_empty_lookups" else "001",
                    f"the {name.replace('_', ' ')} limit is {value + step} instead of {value}",
                    L, BUDGET, _e(find, f"    {name}: int = attrs.field(default={value + step}, validator=_positive)\n"),
                    breaks=LIMIT_BREAKS[(name, word)],
                )
            )
    return entries


# -- classifiers: inspection (seed 001) ---------------------------------------

INSPECTION_ENTRIES = [
    _entry(
        "inspection-visibility-mismatch-correctable", "001", "a visibility mismatch (a measured failure) counts as correctable",
        INSPECTION, CLASSIFIER,
        _e('LOCATOR_ERRORS = frozenset({"no_match", "selector_not_unique", "invalid_selector"})',
           'LOCATOR_ERRORS = frozenset({"no_match", "selector_not_unique", "invalid_selector", "visibility_mismatch"})'),
    ),
    _entry(
        "inspection-click-failure-correctable", "001", "a click failure (a measured failure) counts as correctable",
        INSPECTION, CLASSIFIER,
        _e('LOCATOR_ERRORS = frozenset({"no_match", "selector_not_unique", "invalid_selector"})',
           'LOCATOR_ERRORS = frozenset({"no_match", "selector_not_unique", "invalid_selector", "click_failed"})'),
    ),
    _entry(
        "inspection-page-errors-correctable", "001", "a failure that recorded page errors counts as correctable",
        INSPECTION, CLASSIFIER,
        _e('    if status != "failed" or "errorCode" in details or "pageErrors" in details:\n',
           '    if status != "failed" or "errorCode" in details:\n'),
    ),
    _entry(
        "inspection-blocked-requests-correctable", "001", "a failure with blocked requests counts as correctable",
        INSPECTION, CLASSIFIER,
        _e("    if not isinstance(blocked, list) or blocked or not isinstance(steps, list) or not steps:\n",
           "    if not isinstance(steps, list) or not steps:\n"),
    ),
    _entry(
        "inspection-pass-with-page-errors", "001", "a pass that recorded page errors counts as passed and forgives",
        INSPECTION, CLASSIFIER,
        _e('    return not details.get("pageErrors")\n', "    return True\n"),
    ),
]


# -- classifiers: lookup (seed 000) -------------------------------------------------

LOOKUP_ENTRIES = [
    _entry(
        "lookup-reverted", "000", "the lookup classifier reverted: every non-zero exit is a failure",
        LOOKUP, LOOKUP_LEVEL,
        _e("    if type(exit_code) is not int or exit_code != 1:\n        return False\n", "    return False\n"), breaks=("L1",),
    ),
    _entry(
        "lookup-accepts-or", "000", "`||` is accepted as a joiner between steps",
        LOOKUP, LOOKUP_LEVEL,
        _e('ALLOWED_OPERATORS = frozenset({";", "&&", "|"})\n', 'ALLOWED_OPERATORS = frozenset({";", "&&", "|", "||"})\n'),
        _e('STEP_JOINERS = frozenset({";", "&&"})\n', 'STEP_JOINERS = frozenset({";", "&&", "||"})\n'), breaks=("L4",),
    ),
    _entry(
        "lookup-accepts-redirection", "000", "an unquoted redirection (`>`, `<`) is accepted as part of a word",
        LOOKUP, LOOKUP_LEVEL,
        _e(r"    |(?P<bare>[A-Za-z0-9\-_./,:=+@%^\]]+)", r"    |(?P<bare>[A-Za-z0-9\-_./,:=+@%^\]<>]+)"), breaks=("L4",),
    ),
    _entry(
        "lookup-accepts-substitution", "000", "a command substitution inside double quotes is accepted",
        LOOKUP, LOOKUP_LEVEL,
        _e('    if "$" in body or "`" in body:\n        return None\n', ""), breaks=("L4",),
    ),
    _entry(
        "lookup-rg-before-last", "000", "rg is accepted before the last step",
        LOOKUP, LOOKUP_LEVEL,
        _e("    return is_lookup(argv) or is_sed_range(argv)\n", "    return is_last_lookup(argv) or is_sed_range(argv)\n"), breaks=("L4",),
    ),
    _entry(
        "lookup-accepts-sort-o", "000", "`sort -o FILE` (writes a file) is accepted as a filter",
        LOOKUP, LOOKUP_LEVEL,
        _e('frozenset("bdfgiMhnRrsuVz"), {"k": SORT_KEY,', 'frozenset("bdfgiMhnRrsuVzo"), {"k": SORT_KEY,'), breaks=("L4",),
    ),
    _entry(
        "lookup-sed-dash-operand", "000", "a sed operand that starts with `-` is accepted",
        LOOKUP, LOOKUP_LEVEL,
        _e('    for operand in argv[3:]:\n        if operand.startswith("-"):\n            return False\n    return True\n',
           "    return True\n"), breaks=("L4",),
    ),
    _entry(
        "lookup-accepts-exit-2", "000", "exit status 2 (an error) counts as found nothing",
        LOOKUP, LOOKUP_LEVEL,
        _e("    if type(exit_code) is not int or exit_code != 1:\n", "    if type(exit_code) is not int or exit_code not in (1, 2):\n"), breaks=("L4",),
    ),
    _entry(
        "lookup-ignores-error-lines", "000", "error lines in the output are ignored",
        LOOKUP, LOOKUP_LEVEL,
        _e("    if has_error_line(output):\n        return False\n", ""), breaks=("L4",),
    ),
]

# -- hooks (hooks.md; seeds 000, 001, 002) --------------------------------------------

HOOK_ENTRIES = [
    _entry(
        "hooks-no-pending-phase-check", "002", "a remedy is admitted after the finalization instruction was shown",
        HOOK, HOOKS,
        _e("        if self.finalization.phase != PENDING:\n            return False\n", ""), breaks=('H5',),
    ),
    _entry(
        "hooks-no-nested-check", "002", "a nested Tool Search child may be admitted as the remedy",
        HOOK, HOOKS,
        _e("        if record.nested:\n            return False\n        # Seed 002: a call from another run", "        # Seed 002: a call from another run"), breaks=('H2', 'H5'),
    ),
    _entry(
        "hooks-no-routing-check", "002", "a remedy is admitted while Playground routing is not active",
        HOOK, HOOKS,
        _e("        if not self._routing_active():\n            return False\n        # Seed 002: only the write the refusal asked for",
           "        # Seed 002: only the write the refusal asked for"),
        _e("binds_new_project(record.tool, record.params, self.routing, self.root, self.read_paths)",
           "binds_new_project(record.tool, record.params, self.routing or RoutingState(), self.root, self.read_paths)"), breaks=('H5',),
    ),
    _entry(
        "hooks-no-disarm", "002", "admitting the remedy does not disarm the pending finalization",
        HOOK, HOOKS,
        _e("            self.finalization.disarm()\n", "            pass\n"), breaks=('H6',),
    ),
    _entry(
        "hooks-no-transcript-exception", "002", "the tripping refusal's persisted copy gets the stop text while a correction pends",
        HOOK, HOOKS,
        _e("        if self.budget.pending_correction is not None and call_id == self.tripped_by:\n            return message\n", ""), breaks=('H7',),
    ),
    _entry(
        "hooks-leak-kind", "002", "the refusal kind leaks to the host in the block reason",
        HOOK, HOOKS,
        _e("        return Decision(block=True, block_reason=reason)\n",
           '        return Decision(block=True, block_reason=reason if kind is None else f"{reason} [{kind}]")\n'), breaks=('H4',),
    ),
    _entry(
        "hooks-after-drops-kind", "002", "after_tool_call drops the refusal kind",
        HOOK, HOOKS, _e("record, self._refusal_kind(call_id))\n", "record, None)\n"), breaks=('H1',),
    ),
    _entry(
        "hooks-persist-drops-kind", "002", "tool_result_persist drops the refusal kind",
        HOOK, HOOKS, _e("        kind = self._refusal_kind(call_id)\n", "        kind = None\n"), breaks=('H1',),
    ),
    _entry(
        "hooks-admit-any-write", "002", "any write is admitted as the remedy, not only one that binds a new project",
        HOOK, HOOKS,
        _e("        return binds_new_project(record.tool, record.params, self.routing, self.root, self.read_paths)\n",
           "        return write_path(record.tool, record.params) is not None\n"), breaks=('H5',),
    ),
    _entry(
        "hooks-classify-persisted-copy", "001", "the persisted copy is classified even when the tool recorded its own result",
        HOOK, HOOKS,
        _e("        source = bound.recorded if bound is not None and bound.has_record else receipt\n",
           "        source = receipt\n"), breaks=('H1',),
    ),
    _entry(
        "hooks-unbound-params", "000", "a receipt whose executed params differ from the pending call still binds",
        HOOK, HOOKS,
        _e("        if record is not None and not same(record.params, params):\n", "        if False:\n"), breaks=('H2',),
    ),
    _entry(
        "hooks-unbound-session", "000", "a receipt from another run or session binds to the pending call",
        HOOK, HOOKS,
        _e("        if record.run != self.run or record.session != self.session:\n            return None\n        if record.transport",
           "        if record.transport"), breaks=('H2',),
    ),
    _entry(
        "hooks-command-from-result", "000", "the lookup command is read from the result instead of the call record",
        HOOK, HOOKS,
        _e("lookup_found_nothing(_command_of(bound.args),", 'lookup_found_nothing(details_of(inner).get("command"),'), breaks=('H8',),
    ),
    _entry(
        "hooks-no-forfeit", "002", "a forfeited answer turn (two model calls after the trip) leaves the correction pending",
        HOOK, HOOKS,
        _e("        if self.model_calls >= 2 and self.budget.pending_correction is not None:\n            self.budget.stop()\n", ""), breaks=('H5',),
    ),
    _entry(
        "hooks-classify-capped-copy", "001", "a capped copy without a record is classified from its stub instead of charged",
        HOOK, HOOKS,
        _e("        if source is receipt and is_capped(receipt):\n            return {\"failed\": True, \"allowances\": {}}\n", ""), breaks=('H9',),
    ),
    _entry(
        "hooks-count-nested", "001", "a nested Tool Search child's receipt is counted",
        HOOK, HOOKS,
        _e("        if is_nested(call_id):\n            return\n        record = self.pending.get(call_id)",
           "        record = self.pending.get(call_id)"), breaks=('H2',),
    ),
    _entry(
        "hooks-no-instruction", "002", "a stopped run's first refused boundary shows the stop text instead of the finalization instruction",
        HOOK, HOOKS,
        # H3's oracle restates hooks.md's instruction-then-stop (the earlier path's first refused boundary), so it
        # sees the missing instruction as soon as H10 does.
        _e("        if self.finalization.deliver():\n            return FINALIZATION_INSTRUCTION\n", ""), breaks=('H10', 'H3'),
    ),
]

#: Issue 25: changes that make a step never end. The verdict must name the invariant the counted bound protects
#: (``properties.work_bound``), never hang, and the catalogue counts them as kills by that invariant.
RUNAWAY_ENTRIES = [
    _entry(
        "budget-wait-loops-for-rescue", "001", "a waiting charge loops until a passing correction rescues it, "
        "instead of being charged by the next result", B, BUDGET,
        _e("            waiting = self.deferred\n            self.deferred = None\n",
           "            waiting = self.deferred\n"
           "            while not (corrected is True and (waiting == GLOBAL or waiting == lane)):\n"
           "                pass\n"
           "            self.deferred = None\n"), breaks=('B6',),
    ),
    _entry(
        "hooks-record-without-bound", "002", "a new pending call is recorded under numbered keys until its own id "
        "holds it, which it never does", HOOK, HOOKS,
        _e("            self.pending.setdefault(call_id, record)\n",
           "            while self.pending.get(call_id) is not record:\n"
           "                self.pending[f\"{call_id}#{len(self.pending)}\"] = record\n"), breaks=('H3',),
    ),
]


def _all_entries() -> tuple[Entry, ...]:
    from mutations.navigation_entries import NAVIGATION_ENTRIES
    from mutations.symmetry_entries import SYMMETRY_ENTRIES

    entries = [*BUDGET_001, *BUDGET_002, *BUDGET_000, *BUDGET_EARLIER, *_limit_entries(), *INSPECTION_ENTRIES,
               *LOOKUP_ENTRIES, *HOOK_ENTRIES, *RUNAWAY_ENTRIES, *NAVIGATION_ENTRIES, *SYMMETRY_ENTRIES]
    ids = [entry.id for entry in entries]
    duplicates = sorted({name for name in ids if ids.count(name) > 1})
    if duplicates:
        raise CatalogueError(f"duplicate catalogue ids: {', '.join(duplicates)}")
    check_declared(entries)
    return tuple(entries)


def check_declared(entries: "list[Entry]") -> None:
    """Every property-level entry declares the invariants it must break, each an invariant of its level's subject."""
    from properties.subject import available

    known = {subject.name: set(subject.ids) for subject in available()}
    for entry in entries:
        if entry.level not in PROPERTY_LEVELS:
            if entry.breaks:
                raise CatalogueError(f"{entry.id}: a {entry.level} entry is judged by its tests; it declares no invariant")
            continue
        # Budget entries are judged by the budget subject; hook entries may break a budget invariant too (hooks
        # feed the budget), and navigation entries only navigation's.
        allowed = known.get(entry.level, set()) | (known.get(BUDGET, set()) if entry.level == HOOKS else set())
        if not entry.breaks:
            raise CatalogueError(f"{entry.id}: declares no invariant it must break (Entry.breaks)")
        strange = [name for name in entry.breaks if name not in allowed]
        if strange:
            raise CatalogueError(f"{entry.id}: declares {', '.join(strange)}, not an invariant of level {entry.level}")


def entries() -> tuple[Entry, ...]:
    return _all_entries()
