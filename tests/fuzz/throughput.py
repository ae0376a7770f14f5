"""Benchmark: examples per second of one fuzz worker beside plain Hypothesis, same machine, side by side.

    .nox/tests/bin/python tests/fuzz/throughput.py [--seconds 20] [--rounds 3] [--subjects budget hooks navigation]

For each subject's fuzz target machine (``properties.fuzz.machines()``, 50
steps an example, as the fuzz targets run it), round after round, each mode of
``one_worker.py`` runs in a fresh process for ``--seconds`` on the correct
code:

* ``plain``: plain Hypothesis, as the verdict's stateful driver runs a machine;
* ``fuzz``: one HypoFuzz worker with ``properties.hypofuzz_fixes``
  (coverage of this project's files through coverage.py's C tracer);
* ``fuzz-hypofuzz-coverage``: the same with HypoFuzz's own coverage collector;
* ``fuzz-no-coverage``: the same with no coverage collected at all, so what
  the fuzz loop costs without coverage shows alone.

Modes alternate within a round so that a change of load hits them alike. It
prints every run and then, per subject, the median examples per second of
each mode and its ratio to ``plain``; the examples a fuzzer runs include its
stability replays (as HypoFuzz counts them). Timings depend on the machine's
load: say what else was running. It asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

from properties.paths import ROOT

MODES = ("plain", "fuzz", "fuzz-project-coverage", "fuzz-hypofuzz-coverage", "fuzz-no-coverage")
WORKER = Path(__file__).resolve().parent / "one_worker.py"


def run_once(mode: str, subject: str, seconds: float, seed: int) -> dict:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PYTEST_", "HYPOTHESIS_"))}
    env.pop("MUTANT_UNDER_TEST", None)
    env.update(PYTHONPATH=str(ROOT), PYTHONHASHSEED="0")
    done = subprocess.run([sys.executable, str(WORKER), mode, subject, "--seconds", str(seconds), "--seed", str(seed)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=seconds + 300)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise SystemExit(f"one_worker.py {mode} {subject} failed (exit {done.returncode}): {done.stderr[-1500:]}")
    return json.loads(lines[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--subjects", nargs="+", default=["budget", "hooks", "navigation"])
    parser.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES))
    args = parser.parse_args()
    print(f"throughput: {args.seconds:g} s a run, {args.rounds} rounds, load average at start {os.getloadavg()[0]:.2f}",
          flush=True)
    rates: dict[tuple[str, str], list[float]] = {}
    for subject in args.subjects:
        for round_number in range(1, args.rounds + 1):
            for mode in args.modes:
                outcome = run_once(mode, subject, args.seconds, seed=round_number)
                rates.setdefault((subject, mode), []).append(outcome["per_second"])
                extra = (f", {outcome['behaviours']} behaviours, replays {outcome['stable_replays']} stable "
                         f"{outcome['unstable_replays']} unstable" if "behaviours" in outcome else "")
                print(f"  {subject} round {round_number} (seed {round_number}) {mode}: {outcome['examples']} examples in "
                      f"{outcome['seconds']:.1f} s = {outcome['per_second']:.2f}/s{extra} (load {os.getloadavg()[0]:.2f})",
                      flush=True)
    print("\n| subject | " + " | ".join(f"{mode} (examples/s, x plain)" for mode in args.modes) + " |")
    print("|---|" + "---|" * len(args.modes))
    for subject in args.subjects:
        base = statistics.median(rates[(subject, "plain")]) if (subject, "plain") in rates else None
        cells = []
        for mode in args.modes:
            median = statistics.median(rates[(subject, mode)])
            cells.append(f"{median:.1f}" + (f" ({median / base:.2f}x)" if base else ""))
        print(f"| {subject} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
