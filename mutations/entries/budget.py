"""Catalogue entries of the budget subject (``guard/budget.py``, ``guard/limits.py``; seeds 000-002).

Each must be killed by the budget subject's verdict naming one of its
``breaks`` and by at least one pytest test.
"""

from __future__ import annotations

import attrs

from mutations.entry import Edit, Entry, entry
from properties.budget.copies import SPEC_LIMITS

SUBJECT = "budget"
BUDGET_PY = "guard/budget.py"
LIMITS_PY = "guard/limits.py"

# -- seed 001 -----------------------------------------------------------------

_WAIT_CONDITION = "if not (corrected is True and (waiting == GLOBAL or waiting == lane)):"
_LAND_WAITING = (
    "            if self.deferred is not None:\n"
    "                self._charge(self.deferred)\n"
    "                self.deferred = None\n"
)

DEFERRAL = [
    entry(
        "defer-below-fuse", "001", "a correctable failure may wait even when its charge would not trip the fuse",
        BUDGET_PY, SUBJECT,
        Edit("            and self.deferrals_used < self.limits.corrected_attempts\n            and self._would_trip(counter)\n",
           "            and self.deferrals_used < self.limits.corrected_attempts\n"), breaks=("B5",),
    ),
    entry(
        "any-success-forgives", "001", "any success forgives a waiting charge, corrected or not",
        BUDGET_PY, SUBJECT, Edit(_WAIT_CONDITION, "if False:"), breaks=("B6", "B7"),
    ),
    entry(
        "other-lane-forgives", "001", "a corrected success in the other lane forgives a lane's waiting charge",
        BUDGET_PY, SUBJECT, Edit(_WAIT_CONDITION, "if not (corrected is True and (waiting == GLOBAL or lane is not None)):"), breaks=("B7",),
    ),
    entry(
        "unbounded-deferrals", "001", "more than two charges may wait in one run",
        BUDGET_PY, SUBJECT,
        Edit("            and self.deferrals_used < self.limits.corrected_attempts\n", ""), breaks=("B5",),
    ),
    entry(
        "two-charges-wait", "001", "a second charge may start waiting while one already waits",
        BUDGET_PY, SUBJECT,
        Edit("            self.deferred is None\n            and self.deferrals_used", "            self.deferrals_used"), breaks=("B5",),
    ),
    entry(
        "hold-back-total", "001", "a deferred failure's total count waits with its charge instead of counting at once",
        BUDGET_PY, SUBJECT,
        Edit("        self.failures += 1\n        counter = lane if lane is not None else GLOBAL\n",
           "        counter = lane if lane is not None else GLOBAL\n"),
        Edit("        else:\n            self._charge(counter)\n",
           "        else:\n            self.failures += 1\n            self._charge(counter)\n"),
        Edit(_LAND_WAITING,
           "            if self.deferred is not None:\n"
           "                self._charge(self.deferred)\n"
           "                self.failures += 1\n"
           "                self.deferred = None\n"),
        Edit("                self._charge(waiting)\n", "                self._charge(waiting)\n                self.failures += 1\n"), breaks=("B4",),
    ),
    entry(
        "discovery-charges-wait", "001", "a discovery success charges the waiting charge",
        BUDGET_PY, SUBJECT,
        Edit("        if discovery or tool in DISCOVERY_TOOLS:\n            return\n",
           "        if discovery or tool in DISCOVERY_TOOLS:\n"
           "            if self.deferred is not None:\n"
           "                self._charge(self.deferred)\n"
           "                self.deferred = None\n"
           "                self._settle()\n"
           "            return\n"), breaks=("B7",),
    ),
    entry(
        "discovery-forgives-wait", "001", "a discovery success forgives the waiting charge",
        BUDGET_PY, SUBJECT,
        Edit("        if discovery or tool in DISCOVERY_TOOLS:\n            return\n",
           "        if discovery or tool in DISCOVERY_TOOLS:\n            self.deferred = None\n            return\n"), breaks=("B7",),
    ),
    entry(
        "next-failure-keeps-wait", "001", "the next failure does not land the waiting charge",
        BUDGET_PY, SUBJECT, Edit(_LAND_WAITING, ""), breaks=("B7", "B6"),
    ),
    entry(
        "failure-ends-ignores-wait", "001", "failure_ends forgets the waiting charge that the next failure would land",
        BUDGET_PY, SUBJECT, Edit(" else (counter, self.deferred)\n", " else (counter,)\n"), breaks=("B13",),
    ),
]

# -- seed 002 -------------------------------------------------------

REFUSAL_REMEDY = [
    entry(
        "same-kind-twice", "002", "the same refusal kind may be granted twice in a run",
        BUDGET_PY, SUBJECT, Edit("            and kind not in self.corrected_kinds\n", ""), breaks=("B8",),
    ),
    entry(
        "grant-past-total-cap", "002", "a refusal is granted even when the total cap stopped the run",
        BUDGET_PY, SUBJECT, Edit("            and self.failures < limits.total_failures\n", ""), breaks=("B8",),
    ),
    entry(
        "grant-with-lanes-exhausted", "002", "a refusal is granted even when both lanes are exhausted",
        BUDGET_PY, SUBJECT, Edit("            and len(self.exhausted_lanes) < len(LANES)\n        ):", "        ):"), breaks=("B8",),
    ),
    entry(
        "drop-lane-exclusion", "002", "a lane-classified refusal is granted too (only a global-fuse trip may be)",
        BUDGET_PY, SUBJECT, Edit("            and lane is None\n            and kind is not None\n", "            and kind is not None\n"), breaks=("B8",),
    ),
    entry(
        "rounds-cap-keeps-correction", "002", "the rounds cap leaves a pending correction in place",
        BUDGET_PY, SUBJECT,
        Edit("            self.terminal = True\n            # Seed 002: the rounds cap outranks a pending remedy, or an idle model could reopen a stopped run.\n            self.correction = None\n",
           "            self.terminal = True\n"), breaks=("B10",),
    ),
    entry(
        "declined-correction-kept", "002", "a declined first call does not spend the correction",
        BUDGET_PY, SUBJECT,
        Edit("        self.correction = None\n        if remedy is not True:\n            return False\n",
           "        if remedy is not True:\n            return False\n        self.correction = None\n"), breaks=("B8",),
    ),
    entry(
        "admission-resets-counters", "002", "admitting the remedy resets the consecutive count instead of leaving it at the fuse",
        BUDGET_PY, SUBJECT,
        Edit("        self.terminal = False\n        return True\n",
           "        self.terminal = False\n        self.consecutive = 0\n        return True\n"), breaks=("B12",),
    ),
    entry(
        "stop-keeps-correction", "002", "stop() keeps a pending correction",
        BUDGET_PY, SUBJECT,
        Edit('        """Another guard stopped the run: sticky, and it leaves no correction to admit (seed 002)."""\n'
           "        self.terminal = True\n        self.correction = None\n",
           '        """Another guard stopped the run: sticky, and it leaves no correction to admit (seed 002)."""\n'
           "        self.terminal = True\n"), breaks=("B8",),
    ),
]

# -- seed 000 -------------------------------------------------------

EMPTY_LOOKUPS = [
    entry(
        "unbounded-free-lookups", "000", "every empty lookup is free, not only the first twelve",
        BUDGET_PY, SUBJECT,
        Edit("        if empty_lookup and self.free_lookups_used < limits.free_empty_lookups:\n",
           "        if empty_lookup:\n"),
        Edit("        if empty_lookup is True and self.free_lookups_used < limits.free_empty_lookups:\n",
           "        if empty_lookup is True:\n"), breaks=("B4", "B11"),
    ),
    entry(
        "free-lookup-resets-consecutive", "000", "a free empty lookup resets the consecutive count",
        BUDGET_PY, SUBJECT,
        Edit("            self.free_lookups_used += 1\n            return\n",
           "            self.free_lookups_used += 1\n            self.consecutive = 0\n            return\n"), breaks=("B11",),
    ),
    entry(
        "free-lookup-resets-rounds", "000", "a free empty lookup resets the rounds count",
        BUDGET_PY, SUBJECT,
        Edit("            self.free_lookups_used += 1\n            return\n",
           "            self.free_lookups_used += 1\n            self.rounds = 0\n            return\n"), breaks=("B11",),
    ),
]

# -- the earlier rules ------------------------------------------------

EARLIER_RULES = [
    entry(
        "lane-failure-charges-global", "001", "a lane failure also charges the global consecutive count",
        BUDGET_PY, SUBJECT,
        Edit("        self.lane_failures[counter] += 1\n", "        self.consecutive += 1\n        self.lane_failures[counter] += 1\n"), breaks=("B1",),
    ),
    entry(
        "pending-keeps-rounds", "001", "a verified running-process receipt does not reset rounds",
        BUDGET_PY, SUBJECT, Edit("        if pending:\n            self.rounds = 0\n            return\n", "        if pending:\n            return\n"), breaks=("B1",),
    ),
    entry(
        "fingerprint-ignores-params", "001", "the success fingerprint ignores the params",
        BUDGET_PY, SUBJECT, Edit("json.dumps([tool, params], sort_keys=True,", "json.dumps([tool], sort_keys=True,"), breaks=("B1",),
    ),
    entry(
        "fingerprint-key-order", "001", "the success fingerprint depends on the params' key order",
        BUDGET_PY, SUBJECT, Edit("json.dumps([tool, params], sort_keys=True,", "json.dumps([tool, params], sort_keys=False,"), breaks=("B1",),
    ),
]

# -- each limit one lower and one higher ------------------------------

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
    entries: list[Entry] = []
    for name, value in LIMIT_DEFAULTS.items():
        find = f"    {name}: int = attrs.field(default={value}, validator=_positive)\n"
        for step, word in ((-1, "lower"), (1, "higher")):
            entries.append(
                entry(
                    f"limit-{name.replace('_', '-')}-{word}", "000" if name == "free_empty_lookups" else "001",
                    f"the {name.replace('_', ' ')} limit is {value + step} instead of {value}",
                    LIMITS_PY, SUBJECT, Edit(find, f"    {name}: int = attrs.field(default={value + step}, validator=_positive)\n"),
                    breaks=LIMIT_BREAKS[(name, word)],
                )
            )
    return entries


#: Issue 25: a change that makes a step never end. The verdict must name the invariant the counted bound
#: protects (``properties.work_bound``), never hang.
RUNAWAY = [
    entry(
        "budget-wait-loops-for-rescue", "001", "a waiting charge loops until a passing correction rescues it, "
        "instead of being charged by the next result", BUDGET_PY, SUBJECT,
        Edit("            waiting = self.deferred\n            self.deferred = None\n",
           "            waiting = self.deferred\n"
           "            while not (corrected is True and (waiting == GLOBAL or waiting == lane)):\n"
           "                pass\n"
           "            self.deferred = None\n"), breaks=("B6",),
    ),
]

# -- symmetries the explorer merges by, broken on the side it drops (issue 19) --------------

# Catalogue entries for rules that break a symmetry the explorer merges by, on the side its canonical form drops.
#
# The explorer keeps one state per class of lane mirror images and refusal-kind
# swaps, the least of each class: a state whose workspace lane failed while the
# extension lane is clean, or where project-path was granted alone, is never
# searched as such. A rule firing only there was invisible to the explorer
# before it checked its symmetries (issue 19): it printed "proved". Each entry
# must now be killed, and the explorer's row names the broken symmetry
# (``tests/budget/test_explorer_symmetry.py`` plants the same rules as
# subclasses). One entry per declared symmetry; each keeps ``failure_ends`` in
# step with the changed charge, so the break is the symmetry's, not B13's.

_WORKSPACE_ALONE = '"workspace" and self.lane_failures["workspace"] and not self.lane_failures["extension"]'

SYMMETRY = [
    Entry(
        "workspace-forgets-second-charge", "001",
        "a second workspace failure is not charged while the extension lane is clean (one lane only)",
        BUDGET_PY, SUBJECT,
        (
            Edit(
                "        self.lane_failures[counter] += 1\n        if self.lane_failures[counter] >= self.limits.consecutive_failures:\n",
                f"        if not (counter == {_WORKSPACE_ALONE}):\n"
                "            self.lane_failures[counter] += 1\n"
                "        if self.lane_failures[counter] >= self.limits.consecutive_failures:\n",
            ),
            Edit(
                "            elif charged is not None:\n                lane_failures[charged] += 1\n",
                "            elif charged is not None:\n"
                '                if not (charged == "workspace" and lane_failures["workspace"] and not lane_failures["extension"]):\n'
                "                    lane_failures[charged] += 1\n",
            ),
        ),
        breaks=("B1",),
    ),
    Entry(
        "first-write-granted-at-cap-after-project-path", "002",
        "first-write is granted at the total cap once project-path alone was granted (one kind only)",
        BUDGET_PY, SUBJECT,
        (
            Edit(
                "            and self.failures < limits.total_failures\n",
                "            and (self.failures < limits.total_failures\n"
                '                 or (kind == "playground-first-write" and self.corrected_kinds == {"playground-project-path"}))\n',
            ),
        ),
        breaks=("B8",),
    ),
]

ENTRIES = (*DEFERRAL, *REFUSAL_REMEDY, *EMPTY_LOOKUPS, *EARLIER_RULES, *_limit_entries(), *RUNAWAY, *SYMMETRY)
