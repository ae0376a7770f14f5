"""Benchmark: seconds until HypoFuzz stores the planted bug's failure in a real Redis, by number of workers.

    .nox/tests/bin/python tests/fuzz/time_to_failure.py [--runs 3] [--workers 1 2] [--bound 180]

Each run starts from an empty database (FLUSHDB) on a scratch copy with
``fuzz_helpers.PLANTED`` applied and prints the time the runner reports
("first failure stored after"), which includes HypoFuzz's start-up (test
collection in the hub and in each worker). Medians per worker count. Timings
on a shared machine are noisy; this prints figures and asserts nothing.
"""

from __future__ import annotations

import argparse
import re
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from fuzz_helpers import PLANTED, project_copy, redis_server, run_in  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--bound", type=float, default=180.0)
    args = parser.parse_args()
    import redis

    with tempfile.TemporaryDirectory(prefix="time-to-failure-") as work:
        copy = project_copy(Path(work) / "planted", PLANTED)
        with redis_server(Path(work) / "redis") as url:
            for workers in args.workers:
                times = []
                for run in range(args.runs):
                    redis.Redis.from_url(url).flushdb()
                    done = run_in(copy, "properties.fuzz", "--seconds", str(args.bound), "--workers", str(workers),
                                  "--redis", url, timeout=args.bound + 120)
                    found = re.search(r"first failure stored after ([\d.]+) s", done.stdout)
                    seconds = float(found.group(1)) if found else None
                    print(f"workers {workers} run {run + 1}: {seconds if seconds is not None else 'not found'} s "
                          f"(exit {done.returncode})", flush=True)
                    if seconds is not None:
                        times.append(seconds)
                if times:
                    print(f"workers {workers}: median {statistics.median(times):.1f} s over {len(times)} runs "
                          f"(min {min(times):.1f}, max {max(times):.1f})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
