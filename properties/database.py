"""The example database the fuzz fleet shares, and the replay of the failures it holds.

HypoFuzz keeps everything in a Hypothesis example database: its corpus, its
progress reports and, under each test's standard key, the shrunk failing
examples it found. Pointing every worker (on any machine) at one database makes
them one fleet; pointing a plain Hypothesis run at the same database, with only
the *reuse* phase, replays exactly those failures without generating anything
new. That is what ``python -m properties.database --database URL`` does for
every fuzz target (``properties.subject.fuzz_targets()``): each stored failure is run
once more through the state machine, and the invariant it violates is named.

A database is named by one string (``--database``, ``--redis``, the
``GUARD_FUZZ_DATABASE`` variable):

* ``redis://host:port/db``: a ``RedisExampleDatabase`` (the ``redis`` package);
* anything else: a directory, a ``DirectoryBasedExampleDatabase``.

Exit status of the replay: 0 when no target holds a failure, 1 when one
replays (the reviewer's red), 2 for a usage error (unreachable Redis, bad URL).
"""

from __future__ import annotations

import json
import os
import re
import sys
import unittest
from datetime import timedelta
from pathlib import Path
from typing import Any, Sequence

import attrs

from properties.cli import OneLineParser, UsageError
from properties.paths import ROOT

#: The environment variable the fuzz targets read to pick their database.
VARIABLE = "GUARD_FUZZ_DATABASE"
#: Where ``nox -s fuzz`` keeps its database when no other is named (beside Hypothesis's own).
DEFAULT_DIRECTORY = ROOT / ".hypothesis" / "fuzz"

_INVARIANT = re.compile(r"VIOLATED ([A-Z]+\d+)\b")
#: HypoFuzz's keys (its database layout, read for the progress summary only).
TEST_KEYS = b"hypofuzz.test_keys"
_REPORTS = b".hypofuzz.reports"


class DatabaseError(Exception):
    """The named database cannot be opened: a one-line reason for the user."""


def is_redis(url: str) -> bool:
    return url.startswith(("redis://", "rediss://", "unix://"))


def open_database(url: str, reading: bool = False) -> Any:
    """The example database ``url`` names (see the module docstring); checks that a Redis answers.

    ``reading``: the caller only replays what is stored (``replay_all``, the review's ``--database``), so a
    directory that does not exist is an error. Hypothesis would open it as an empty database, and a mistyped
    path would then read as "no stored failure replays" for every target: a reviewer's green built on nothing.
    The fuzzer (``reading`` False) creates its directory on first write."""
    if not url:
        raise DatabaseError("empty database name")
    if is_redis(url):
        try:
            import redis
            from hypothesis.extra.redis import RedisExampleDatabase
        except ImportError as error:
            raise DatabaseError(f"{url}: the redis package is not installed ({error.name})") from None
        try:
            client = redis.Redis.from_url(url, socket_connect_timeout=5, socket_timeout=30)
            client.ping()
        except (ValueError, redis.RedisError) as error:
            raise DatabaseError(f"{url}: cannot reach Redis: {error}") from None
        # No expiry: a failure found overnight must still be there when the reviewer looks.
        return RedisExampleDatabase(client, expire_after=timedelta(days=3650))
    from hypothesis.database import DirectoryBasedExampleDatabase

    path = Path(url)
    if path.exists() and not path.is_dir():
        raise DatabaseError(f"{url}: not a directory")
    if reading and not path.exists():
        raise DatabaseError(f"{url}: no such directory (a database to replay is read, never created)")
    return DirectoryBasedExampleDatabase(str(path))


def from_environment() -> "str | None":
    return os.environ.get(VARIABLE) or None


@attrs.frozen
class Replayed:
    """One fuzz target's stored failures, replayed."""

    subject: str
    #: Invariant ids the stored failures violate (empty: nothing stored, or the code no longer fails).
    invariants: tuple[str, ...]
    #: The first lines of the failure Hypothesis reported (falsifying steps and the violation).
    report: str
    #: Something other than a violation went wrong (an exception of the subject's own).
    error: str = ""


def replay(database: Any, subject: str, machine: type) -> Replayed:
    """Run only the stored examples of ``machine`` (Hypothesis's reuse phase) against ``database``, read-only.

    Read-only because a replay on code that no longer fails would otherwise
    demote the fleet's stored failure, and a reviewer's look must not change
    what the fleet found.
    """
    from hypothesis import HealthCheck, Phase, Verbosity, settings
    from hypothesis.database import ReadOnlyDatabase
    from hypothesis.stateful import run_state_machine_as_test

    chosen = settings(
        database=ReadOnlyDatabase(database), phases=[Phase.explicit, Phase.reuse], deadline=None, derandomize=False,
        suppress_health_check=list(HealthCheck), verbosity=Verbosity.normal, print_blob=False,
        # Enough for every stored example; reuse never generates new ones.
        max_examples=10_000,
    )
    try:
        # The database key is a digest of the machine class's source, the same one HypoFuzz stored under.
        run_state_machine_as_test(machine, settings=chosen)
    except AssertionError as error:
        # Hypothesis attaches the falsifying steps to the error as notes.
        text = "\n".join([str(error), *getattr(error, "__notes__", ())])
        found = tuple(dict.fromkeys(_INVARIANT.findall(text)))
        return Replayed(subject, found, _first_lines(text), "" if found else f"AssertionError without an invariant: {text[:200]}")
    except unittest.SkipTest:
        # Hypothesis's answer to "reuse only" when the database holds nothing for this machine.
        return Replayed(subject, (), "")
    except Exception as error:  # a crash of the subject is a finding too: report it, not a traceback
        return Replayed(subject, (), "", f"{type(error).__name__}: {str(error)[:300]}")
    return Replayed(subject, (), "")


def _first_lines(text: str, count: int = 400) -> str:
    lines = text.strip().splitlines()
    return "\n".join(lines[:count] + ([f"... ({len(lines) - count} more lines)"] if len(lines) > count else []))


def progress(database: Any) -> dict[str, dict[str, Any]]:
    """Per fuzz target (pytest node id): examples run and behaviours seen, from HypoFuzz's latest report per worker."""
    out: dict[str, dict[str, Any]] = {}
    for key in database.fetch(TEST_KEYS):
        latest: dict[str, dict[str, Any]] = {}
        for raw in database.fetch(key + _REPORTS):
            try:
                data = json.loads(raw)
            except ValueError:
                continue
            worker = data.get("worker_uuid", "?")
            if worker not in latest or data.get("elapsed_time", 0) >= latest[worker].get("elapsed_time", 0):
                latest[worker] = data
        if not latest:
            continue
        nodeid = next(iter(latest.values())).get("nodeid", key.decode("ascii", "replace"))
        examples = sum(sum(int(v) for v in data.get("status_counts", {}).values()) for data in latest.values())
        behaviors = max(int(data.get("behaviors", 0)) for data in latest.values())
        entry = out.setdefault(nodeid, {"examples": 0, "behaviors": 0, "workers": 0})
        entry["examples"] += examples
        entry["behaviors"] = max(entry["behaviors"], behaviors)
        entry["workers"] += len(latest)
    return out


def replay_all(url: str, subjects: "Sequence[str] | None" = None) -> list[Replayed]:
    from properties.subject import fuzz_targets

    database = open_database(url, reading=True)
    return [replay(database, name, machine) for name, machine in fuzz_targets().items()
            if subjects is None or name in subjects]


def render(results: list[Replayed], url: str) -> str:
    lines = [f"replay of stored failures from {url}"]
    for result in results:
        if result.invariants:
            lines.append(f"VIOLATED {', '.join(result.invariants)} ({result.subject}, replayed from the database)")
            lines.extend("    " + line for line in result.report.splitlines())
        elif result.error:
            lines.append(f"ERROR {result.subject}: {result.error}")
        else:
            lines.append(f"ok {result.subject}: no stored failure replays")
    return "\n".join(lines)


def main(argv: "Sequence[str] | None" = None) -> int:
    parser = OneLineParser(prog="python -m properties.database", description=__doc__.splitlines()[0])
    parser.add_argument("--database", required=True, metavar="URL", help="redis://host:port/db or a directory")
    parser.add_argument("--subject", action="append", metavar="NAME", help="replay only this subject (repeatable)")
    try:
        args = parser.parse_args(argv)
    except UsageError as error:
        print(f"python -m properties.database: {error}", file=sys.stderr)
        return 2
    try:
        from properties.subject import fuzz_targets

        known = fuzz_targets()
        for name in args.subject or ():
            if name not in known:
                raise DatabaseError(f"--subject {name}: no fuzz target; choose from {', '.join(known)}")
        results = replay_all(args.database, args.subject)
    except DatabaseError as error:
        print(f"python -m properties.database: --database {error}", file=sys.stderr)
        return 2
    print(render(results, args.database), flush=True)
    return 1 if any(result.invariants or result.error for result in results) else 0


if __name__ == "__main__":
    sys.exit(main())
