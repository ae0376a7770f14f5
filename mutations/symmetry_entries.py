"""Catalogue entries for rules that break a symmetry the explorer merges by, on the side its canonical form drops.

The explorer keeps one state per class of lane mirror images and refusal-kind
swaps, the least of each class: a state whose workspace lane failed while the
extension lane is clean, or where project-path was granted alone, is never
searched as such. A rule firing only there was invisible to the explorer
before it checked its symmetries (issue 19): it printed "proved". Each entry
must now be killed, and the explorer's row names the broken symmetry
(``tests/budget/test_explorer_symmetry.py`` plants the same rules as
subclasses). One entry per declared symmetry; each keeps ``failure_ends`` in
step with the changed charge, so the break is the symmetry's, not B13's.
"""

from __future__ import annotations

from mutations.catalogue import BUDGET, Edit, Entry

BUDGET_FILE = "guard/budget.py"

_WORKSPACE_ALONE = '"workspace" and self.lane_failures["workspace"] and not self.lane_failures["extension"]'

SYMMETRY_ENTRIES = [
    Entry(
        "workspace-forgets-second-charge", "001",
        "a second workspace failure is not charged while the extension lane is clean (one lane only)",
        BUDGET_FILE, BUDGET,
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
        BUDGET_FILE, BUDGET,
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
