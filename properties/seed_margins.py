"""``python -m properties.seed_margins``: how far each coverage count stays above its minimum, over many seeds.

A coverage minimum is a promise about every seed, not about the seed it was
measured with: CI draws a fresh seed on every run (``nox -s properties``
prints it), and a minimum that one seed in a hundred misses fails one CI run
in a hundred with no change to the guard (seed 3555001728 did, on the lookup
subject's "decided before the last step", 3 against a minimum of 4). This
command runs the default verdict once per seed, each in its own process
(``python -m properties --seed S --quiet --out DIR``, so no seed warms
another's process), reads every run's ``properties.json`` back, and prints,
per required count, the lowest and median count over the seeds, the minimum,
and the lowest as a multiple of the minimum, tightest first, then every seed
whose verdict failed for any other reason (a violated or vacuous invariant, a
crash), with the report's reasons. It exits 1 when some seed missed a minimum
(naming the seed and the count) or failed, 2 on a bad command line or a run
that wrote no report.

A minimum is safe when the lowest stays well above it: for a count that is
a sum of many rare chances the spread is about the square root of the
median, so a low of twice the minimum at a median of 20 is still a real
risk, while three times the minimum at a median of several hundred is not.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Sequence

import attrs

from properties import profiles
from properties.cli import OneLineParser, UsageError, whole_number
from properties.paths import ROOT

_seed = whole_number(0)


def seeds_of(text: str) -> tuple[int, ...]:
    """``200-224``, ``1,3,7`` or a mix (``1,3,200-210``): the seeds in the order given, each once."""
    chosen: list[int] = []
    for part in (piece.strip() for piece in text.split(",")):
        if not part:
            continue
        low_text, dash, high_text = part.partition("-")
        try:
            low = _seed(low_text)
            high = _seed(high_text) if dash else low
        except argparse.ArgumentTypeError as error:
            raise argparse.ArgumentTypeError(f"in --seeds {text!r}: {error}") from None
        if high < low:
            raise argparse.ArgumentTypeError(f"in --seeds {text!r}: the range {part!r} runs backwards")
        chosen.extend(range(low, high + 1))
    if not chosen:
        raise argparse.ArgumentTypeError(f"expected seeds such as 200-224 or 1,3,7, got {text!r}")
    return tuple(dict.fromkeys(chosen))


@attrs.frozen
class Margin:
    """One required coverage count over every seed run."""

    subject: str
    name: str
    minimum: int
    #: The count each seed reached, in the order the seeds ran.
    counts: tuple[tuple[int, int], ...]

    @property
    def lowest(self) -> int:
        return min(count for _seed, count in self.counts)

    @property
    def median(self) -> float:
        return float(statistics.median(count for _seed, count in self.counts))

    @property
    def ratio(self) -> float:
        """The lowest count as a multiple of the minimum (infinite for a minimum of 0)."""
        return self.lowest / self.minimum if self.minimum else float("inf")

    @property
    def missed(self) -> tuple[int, ...]:
        """The seeds whose count fell below the minimum."""
        return tuple(seed for seed, count in self.counts if count < self.minimum)


def margins(reports: Sequence[tuple[int, dict[str, Any]]]) -> list[Margin]:
    """The required counts of every report (seed, ``properties.json`` as read back), tightest first."""
    gathered: dict[tuple[str, str], tuple[int, list[tuple[int, int]]]] = {}
    for seed, data in reports:
        for row in data["coverage"]:
            if not row.get("required", True):
                continue
            key = (row["subject"], row["name"])
            minimum, counts = gathered.setdefault(key, (int(row["minimum"]), []))
            counts.append((seed, int(row["count"])))
    found = [Margin(subject, name, minimum, tuple(counts)) for (subject, name), (minimum, counts) in gathered.items()]
    return sorted(found, key=lambda margin: (margin.ratio, margin.subject, margin.name))


def render(found: Sequence[Margin], seeds: Sequence[int]) -> str:
    header = ("subject", "count", "lowest", "median", "minimum", "lowest/min", "missed by seeds")
    rows = [(m.subject, m.name, f"{m.lowest:,}", f"{m.median:,.0f}", f"{m.minimum:,}",
             "-" if m.minimum == 0 else f"{m.ratio:.2f}", ", ".join(map(str, m.missed)) or "none")
            for m in found]
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows)]
    lines = [f"coverage margins over {len(seeds)} seeds ({seeds_text(seeds)}), tightest first:"]
    for index, row in enumerate([header, *rows]):
        lines.append("  ".join(str(cell).ljust(width) for cell, width in zip(row, widths)).rstrip())
        if index == 0:
            lines.append("-" * len(lines[-1]))
    return "\n".join(lines)


def seeds_text(seeds: Sequence[int]) -> str:
    """Consecutive seeds as ranges: ``200-224``, ``1, 3, 7``."""
    spans: list[list[int]] = []
    for seed in seeds:
        if spans and seed == spans[-1][1] + 1:
            spans[-1][1] = seed
        else:
            spans.append([seed, seed])
    return ", ".join(str(low) if low == high else f"{low}-{high}" for low, high in spans)


def run_seed(seed: int, out: Path, options: Sequence[str]) -> dict[str, Any]:
    """One default verdict in a process of its own; its report read back (UsageError when it wrote none)."""
    command = [sys.executable, "-m", "properties", "--seed", str(seed), "--quiet", "--out", str(out), *options]
    finished = subprocess.run(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    path = out / "properties.json"
    try:
        data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or not isinstance(data.get("coverage"), list):
            raise ValueError("no coverage table")
    except (OSError, ValueError):
        last = (finished.stderr.strip().splitlines() or ["no message"])[-1]
        raise UsageError(f"seed {seed}: the verdict (exit {finished.returncode}) wrote no readable {path.name}: {last}") from None
    return data


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = OneLineParser(prog="python -m properties.seed_margins", description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=seeds_of, default=seeds_of("1-10"),
                        help="seeds to run, e.g. 200-224 or 1,3,7 (default 1-10)")
    parser.add_argument("--subject", help="only these subjects, e.g. lookup,navigation (as python -m properties)")
    parser.add_argument("--profile", choices=profiles.PROFILES, default="ci", help="Hypothesis profile (default ci, as CI)")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = parse(argv)
        options = ["--profile", args.profile] + (["--subject", args.subject] if args.subject else [])
        reports = []
        with tempfile.TemporaryDirectory(prefix="seed-margins-") as scratch:
            for index, seed in enumerate(args.seeds, 1):
                reports.append((seed, run_seed(seed, Path(scratch) / str(seed), options)))
                print(f"seed margins: {index}/{len(args.seeds)} seeds run (seed {seed})", file=sys.stderr, flush=True)
    except UsageError as error:
        print(f"python -m properties.seed_margins: {error}", file=sys.stderr)
        return 2
    found = margins(reports)
    print(render(found, args.seeds))
    missed = [(m, seed) for m in found for seed in m.missed]
    for margin, seed in missed:
        print(f"seed {seed} missed {margin.subject} {margin.name!r}: "
              f"{dict(margin.counts)[seed]:,} < {margin.minimum:,}")
    failed = failures(reports)
    for seed, reasons in failed:
        print(f"seed {seed} failed: {'; '.join(reasons)}")
    return 1 if missed or failed else 0


def failures(reports: Sequence[tuple[int, dict[str, Any]]]) -> list[tuple[int, list[str]]]:
    """The seeds whose verdict failed, with its reasons (a coverage shortfall among them)."""
    return [(seed, [str(reason) for reason in data.get("reasons") or ["no reason given"]])
            for seed, data in reports if data.get("ok") is not True]


if __name__ == "__main__":
    sys.exit(main())
