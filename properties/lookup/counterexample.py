"""A lookup counterexample: the failing receipt, with what the real programs did, saved as a lookup trace."""

from __future__ import annotations

from typing import Any

from properties.catalogue import Violation
from properties.counterexample import DEFAULT_DIR
from properties.lookup import trace_file
from properties.lookup.events import Receipt
from properties.lookup.invariants import BY_ID


def counterexample(driver: str, events: list[Any], violation: Violation) -> tuple[str, str]:
    """Save the failing receipt, with what the real programs did, as a lookup trace and say how to replay it."""
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
