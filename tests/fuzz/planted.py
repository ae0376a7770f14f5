"""Three bugs the one-minute verdict's budget machine finds rarely, planted only in scratch copies (never in guard/).

Not a test module: ``time_to_failure.py`` plants each in its own copy
(``fuzz_helpers.project_copy`` with ``planted.apply``) and times how long the
fuzzer and plain Hypothesis take to find it. Each is an edit of
``guard/budget.py`` in the catalogue's own form (literal text, found exactly
once), chosen to misbehave only deep in a run:

* ``uncounted-second-deferral``: a second deferral is not counted when it is
  taken in the extension lane after 10 failures and 3 free lookups, so the
  run may defer a third time (seed 001: at most two waits a run; B5);
* ``uncounted-late-lookup``: past the 11th free empty lookup, one in the
  extension lane after 6 idle rounds and a deferral is free without being
  counted, so a run gets more than 12 free (seed 000; B11);
* ``second-grant-at-total-cap``: once both deferrals are spent and one
  refusal kind has had its remedy, a refusal of the other kind that reaches
  the total cap still grants its remedy (seed 002: never past the total cap;
  B8).

Each was tried against plain Hypothesis on the budget machine while choosing
them: the first versions (a second deferral in any lane, any lookup past the
9th in a lane) were found within 2 s, so conditions were added until a minute
of plain Hypothesis usually missed them.
"""

from __future__ import annotations

from pathlib import Path

from mutations.entry import Edit, Entry

FILE = "guard/budget.py"

BUGS: dict[str, Entry] = {
    entry.id: entry for entry in (
        Entry("uncounted-second-deferral", "001", "a late second deferral in the extension lane is not counted", FILE, "planted", (Edit(
            "            self.deferrals_used += 1\n",
            "            self.deferrals_used += 0 if self.deferrals_used == 1 and counter == \"extension\" and self.failures >= 10 and self.free_lookups_used >= 3 else 1\n",
        ),)),
        Entry("uncounted-late-lookup", "000", "past 11 free lookups, a late one in the extension lane is uncounted", FILE,
              "planted", (Edit(
                  "            self.free_lookups_used += 1\n            return\n",
                  "            self.free_lookups_used += 0 if lane == \"extension\" and self.free_lookups_used >= 11 and self.rounds >= 6 and self.deferrals_used >= 1 else 1\n"
                  "            return\n",
              ),)),
        Entry("second-grant-at-total-cap", "002", "with both deferrals spent, a second grant passes the total cap",
              FILE, "planted", (Edit(
                  "            and self.failures < limits.total_failures\n",
                  "            and (self.failures < limits.total_failures or (self.deferrals_used >= 2 and len(self.corrected_kinds) == 1))\n",
              ),)),
    )
}


def apply(bug: str, copy: Path) -> str:
    """Plant ``bug`` in the scratch copy ``copy``; returns its one-line description."""
    return BUGS[bug].apply_to(copy)
