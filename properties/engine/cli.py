"""The command line of a subject's exhaustive search: one set of options and one report for every subject.

A subject's explorer module calls ``main`` with how it runs a set of
configurations (``run(mode, tally, out_dir, levels) -> Results``) and its
catalogue; ``main`` parses the options, prints the rows, the proof's summary,
any counterexample and every invariant's counts, and exits 0 only when every
configuration finished with nothing violated and no invariant is left unchecked.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, Callable, Sequence

from properties.catalogue import Tally
from properties.counterexample import DEFAULT_DIR

#: What ``run`` is handed as its mode: the quick set (--quick) or a profile's.
PROFILES = ("default", "thorough")


def parser(prog: str, description: str) -> argparse.ArgumentParser:
    out = argparse.ArgumentParser(prog=prog, description=description)
    out.add_argument("--quick", action="store_true", help="the small set the unit tests use")
    out.add_argument(
        "--profile", choices=PROFILES, default="default",
        help="thorough: the largest scopes (about 10 minutes on two cores)",
    )
    out.add_argument("--out", type=Path, default=DEFAULT_DIR, help="where a counterexample trace is saved")
    out.add_argument("--levels", action="store_true", help="print the size of every breadth-first level")
    return out


def main(
    argv: Sequence[str] | None, prog: str, description: str, run: Callable[[str, Tally, Path, bool], Any],
    catalogue: Sequence[Any], by_id: Any,
) -> int:
    """Run the chosen set, print its report and the catalogue's counts; 0 when it proved what it searched."""
    args = parser(prog, description).parse_args(argv)
    tally = Tally()
    result = run("quick" if args.quick else args.profile, tally, args.out, args.levels)
    print(result.render())
    for invariant in catalogue:
        print(f"  {invariant.id:<4} {tally.status(invariant.id):<8} checked {tally.checked[invariant.id]:>10,}  "
              f"exercised {tally.exercised[invariant.id]:>10,}")
    return 0 if result.ok and tally.ok_for(by_id) else 1
