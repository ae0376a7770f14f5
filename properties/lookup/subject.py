"""The lookup subject (seed 000): invariants L1-L4 over the shell lookup classifier, judged against real programs.

Rule: ``guard/lookup.py`` (``lookup_found_nothing``); spec:
``shared/spec/classifiers.md`` ("lookup found nothing"); invariants:
``properties/lookup/invariants.py``; monitor: ``monitor.py``; the real
programs and their scratch workspace: ``programs.py``; generators:
``generate.py``; the seed's own chains: ``fixtures.py``; drivers: seeded bulk
receipts and a Hypothesis state machine (``drivers.py``, ``stateful.py``);
trace files: ``trace_file.py``; throughput: ``bench.py``; mutations:
``mutations/entries/lookup.py`` (level ``lookup``); replay and pinning:
``replay.py``.

A lookup trace is a list of receipts; its one event kind is ``receipt``.
The subject needs dash, GNU grep and sed, git and ripgrep 13 (``requires``:
the verdict names the missing one and its Debian package, and exits 2).
"""

from __future__ import annotations

from typing import Any, Sequence

from properties.catalogue import Invariant, Tally, Violation
from properties.lookup import programs, trace_file
from properties.lookup.events import Receipt
from properties.lookup.invariants import BY_ID, CATALOGUE, COVERAGE_MINIMUMS
from properties.lookup.monitor import new_monitor
from properties.lookup.trace_file import SCHEMA, LookupTraceError
from properties.safe_json import carries_schema
from properties.subject import Bench, Driver, Lazy, Pin, Replay, Subject


def monitor(tally: Tally, only: "Sequence[Invariant] | None" = None) -> Any:
    """The lookup monitor (replay and regressions judge a file with it); one line, exit 2, without the programs."""
    problem = programs.missing()
    if problem:
        raise LookupTraceError(problem)
    return new_monitor(tally, only)


def replay(argv: list[str]) -> int:
    from properties.lookup.replay import replay as run

    return run(argv)


def pin(source: Any, folder: Any, invariant: "str | None") -> Any:
    from properties.lookup.replay import pin as run

    return run(source, folder, invariant)


def check_pinned(path: Any) -> tuple[str, bool]:
    from properties.lookup.replay import check_pinned as run

    return run(path)


def state_machine() -> type:
    from properties.lookup.stateful import standalone

    return standalone()


def counterexample(driver: str, events: list[Any], violation: Violation) -> tuple[str, str]:
    """Save the failing receipt, with what the real programs did, as a lookup trace and say how to replay it."""
    from properties.counterexample import DEFAULT_DIR

    receipt: Receipt = events[-1]
    path = trace_file.save(receipt, violation, f"lookup-{driver.replace(' ', '-')}, {violation.invariant}", DEFAULT_DIR)
    command, exit_code, output = receipt.arguments()
    invariant = BY_ID[violation.invariant]
    lines = [f"COUNTEREXAMPLE from lookup {driver}: {violation}",
             f"  {invariant.id} [{invariant.seeds}] {invariant.statement.splitlines()[0]}",
             f"  receipt ({receipt.kind}): command {command!r}" + ("" if receipt.valid else f", exit {exit_code!r}, output {output!r}")]
    seen = receipt.observed
    if isinstance(seen, dict):
        lines.append(f"  dash with recorders: exit {seen.get('argv_status')}, argv {seen.get('argv')}")
        lines.append(f"  real run: exit {seen.get('status')}, output {str(seen.get('output', ''))[:300]!r}, "
                     f"changed {seen.get('changed') or 'nothing'}")
        for joiner, text, status in seen.get("alone") or []:
            lines.append(f"  alone ({joiner}): `{text}` exit {'skipped' if status is None else status}")
    lines.append(f"  saved: {path} (replay: nox -s replay -- {path})")
    return "\n".join(lines), str(path)


SUBJECT = Subject(
    name="lookup",
    title="the shell lookup classifier against the real programs",
    seeds="000",
    catalogue=CATALOGUE,
    coverage_minimums=COVERAGE_MINIMUMS,
    drivers=(
        Driver("bulk", Lazy("properties.lookup.drivers", "run_bulk_driver"), cost=1, sized=True),
        Driver("stateful", Lazy("properties.lookup.drivers", "run_stateful_driver"), cost=2),
    ),
    events={"receipt": Receipt},
    monitor=monitor,
    state_machine=state_machine,
    counterexample=counterexample,
    requires=programs.missing,
    unit="receipts",
    order=40,
    replay=Replay(SCHEMA, lambda path: carries_schema(path, SCHEMA), replay),
    pin=Pin(pin, check_pinned),
    bench=Bench(Lazy("properties.lookup.bench", "run")),
)
