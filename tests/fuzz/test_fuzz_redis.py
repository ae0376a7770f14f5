"""The fleet's database, for real: two HypoFuzz workers, a real redis-server, a planted bug, a replay.

A scratch copy of the project gets the catalogue's ``same-kind-twice`` bug
(the same refusal kind granted twice, which B8 forbids). ``nox -s fuzz``'s
runner fuzzes it with two workers against a redis-server started here, for at
most ``BOUND`` seconds. The failure must land in Redis (under the fuzz target's
own key, where Hypothesis looks), and ``python -m properties --database URL``
must replay it from there, naming B8, without fuzzing. The same run on an
unmodified copy must find nothing and leave no failure in Redis.

Skipped only under mutation (``MUTANT_UNDER_TEST``): these tests plant their own
bug in their own copy, so a mutant of ``guard/`` changes nothing they check,
and the mutation environments do not install HypoFuzz.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from fuzz_helpers import PLANTED, PLANTED_INVARIANT, project_copy, redis_server, run_in
from properties.paths import ROOT

pytestmark = [
    pytest.mark.redis, pytest.mark.slow,
    pytest.mark.skipif("MUTANT_UNDER_TEST" in os.environ, reason="checks the fuzz runner, not guard/; not run per mutant"),
]

#: Seconds of fuzzing per run; the planted bug is found in about 10 s (see the report), so this is ample.
BOUND = 120
WORKERS = 2
#: Both runs fuzz the budget's target alone: the planted bug is a budget rule, and with every subject's target
#: two workers share three targets, so within the bound HypoFuzz may never report the budget's (seen here).
TARGET = ("--subject", "budget")


def _stored(url: str) -> list[bytes]:
    """Fuzz targets holding a failure, read straight from Redis with the redis client (not through the runner)."""
    import redis

    client = redis.Redis.from_url(url)
    # RedisExampleDatabase keeps each key as a Redis set named b"hypothesis-example:" + key.
    targets = client.smembers(b"hypothesis-example:hypofuzz.test_keys")
    return [key for key in targets if client.scard(b"hypothesis-example:" + key) > 0]


def test_a_planted_bug_lands_in_redis_and_replays_from_it(tmp_path: Path) -> None:
    copy = project_copy(tmp_path / "planted", PLANTED)
    with redis_server(tmp_path / "redis") as url:
        fuzzed = run_in(copy, "properties.fuzz", *TARGET, "--seconds", str(BOUND), "--workers", str(WORKERS), "--redis", url,
                        timeout=BOUND + 120)
        assert fuzzed.returncode == 1, fuzzed.stdout[-3000:] + fuzzed.stderr[-2000:]
        assert re.search(rf"^VIOLATED {PLANTED_INVARIANT}\b", fuzzed.stdout, re.MULTILINE), fuzzed.stdout[-3000:]
        found = re.search(r"first failure stored after ([\d.]+) s", fuzzed.stdout)
        assert found, fuzzed.stdout[-3000:]
        print(f"time to failure with {WORKERS} workers: {found.group(1)} s (shared machine)")
        assert len(_stored(url)) == 1, "the failing example is in Redis"

        # The reviewer's command replays it from Redis, without fuzzing: against the planted code it fails...
        replayed = run_in(copy, "properties", "--database", url, timeout=300)
        assert replayed.returncode == 1, replayed.stdout[-3000:] + replayed.stderr[-2000:]
        assert f"VIOLATED {PLANTED_INVARIANT} (budget, replayed from the database)" in replayed.stdout
        assert re.search(r"^\s+state\.\w+\(", replayed.stdout, re.MULTILINE), "the replay shows the steps"
        # ...and against the correct code the same stored example passes.
        fixed = run_in(ROOT, "properties", "--database", url, timeout=300)
        assert fixed.returncode == 0, fixed.stdout[-3000:] + fixed.stderr[-2000:]
        assert "ok budget: no stored failure replays" in fixed.stdout
        # Replays only read: the fleet's failure is still there.
        assert len(_stored(url)) == 1


def test_the_same_run_on_the_correct_code_finds_nothing(tmp_path: Path) -> None:
    copy = project_copy(tmp_path / "correct", None)
    with redis_server(tmp_path / "redis") as url:
        fuzzed = run_in(copy, "properties.fuzz", *TARGET, "--seconds", str(BOUND), "--workers", str(WORKERS), "--redis", url,
                        timeout=BOUND + 120)
        assert fuzzed.returncode == 0, fuzzed.stdout[-3000:] + fuzzed.stderr[-2000:]
        assert "(time bound)" in fuzzed.stdout, "it ran until the bound"
        assert "VIOLATED" not in fuzzed.stdout
        # It did fuzz: HypoFuzz registered the target in Redis and reported examples.
        assert re.search(r"TestFuzz_budget::runTest: at least [1-9][\d,]* examples", fuzzed.stdout), fuzzed.stdout[-3000:]
        assert _stored(url) == []
