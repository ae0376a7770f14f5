"""The lookup classifier's side of the behaviour comparison: what ``lookup_found_nothing`` answers, receipt by receipt.

A side feeds each receipt of the verdict's bulk work (``properties.lookup.drivers``:
the hostile corpus, the seed's own chains, the seeded and the directed chains, in
that order and from the same seeded streams, so the review compares the very
receipts ``python -m properties --seed S`` judges) to whichever ``guard/`` its
interpreter imports, and shows per receipt:

* ``found_nothing`` - the classifier's answer, with the arguments the verdict's
  judge hands it (``properties.lookup.invariants.judge``): a hostile receipt's
  own command, exit code and output; a valid chain's command with exit code 1
  and no output (the case the classifier decides; the real programs, which the
  invariants consult, are not run here: they say what the right answer is,
  not what the guard answered);
* ``error`` - an exception the classifier raised.

One receipt is one step. There is no exhaustive comparison: the classifier is
a function of one receipt, with no state to search, and its input space is
text; the seeded corpus is its comparison.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterator

SUBJECT = "lookup"
UNIT = "receipts"
OBSERVABLES = ("found_nothing", "error")
OPTION = "--receipts"
MINIMUM_COUNT = 0
OPTION_HELP = "lookup classifier receipts compared (0: the classifier is not compared)"


def _default_count() -> int:
    from properties.lookup.drivers import SIZES, receipt_counts

    return sum(receipt_counts(SIZES["default"]))


#: Compared under ``--receipts``; the default is the verdict's own corpus (``drivers.SIZES["default"]``), and any
#: other count is spread as the verdict spreads ``--traces`` (``drivers.sized``). 0: the classifier is not compared.
DEFAULT_COUNT = _default_count()


def bulk(seed: int, count: int) -> Iterator[Any]:
    """The verdict's receipts for ``seed``, in its order: its default corpus at ``DEFAULT_COUNT``, else the sizes
    ``--traces count`` would give it; never more than ``count``."""
    from properties.lookup.drivers import SIZES, bulk_receipts, sized

    hostile, chains = bulk_receipts(seed, SIZES["default"] if count == DEFAULT_COUNT else sized("default", count))
    yield from (hostile + chains)[:count]


def steps_of(receipt: Any) -> list[Any]:
    return [receipt]


def prefix(receipt: Any, _steps: int) -> Any:
    return receipt


def limits() -> dict[str, Any]:
    return {}


def rows_of(receipt: Any) -> list[dict[str, Any]]:
    """One row: the classifier's answer on this receipt, as the verdict's judge asks it."""
    from guard.lookup import lookup_found_nothing

    try:
        answer = lookup_found_nothing(*receipt.asked())
    except Exception as error:  # noqa: BLE001 - a version that raises differs from one that answers
        return [{"error": f"{type(error).__name__}: {str(error)[:200]}"}]
    return [{"found_nothing": bool(answer)}]


def save(receipt: Any, path: Path, origin: str, _limits: "dict[str, Any] | None" = None) -> Path:
    """One receipt as a lookup trace file (``guard-lookup-trace/1``), with the review's origin."""
    from properties.lookup.trace_file import LookupTrace, dumps

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(dumps(LookupTrace(name=path.stem, events=(receipt,), origin=origin)), encoding="utf-8")
    return path


def load(path: Path) -> tuple[Any, str]:
    from properties.lookup.trace_file import load as load_trace

    trace = load_trace(path)
    if len(trace.events) != 1:
        from properties.lookup.trace_file import LookupTraceError

        raise LookupTraceError(f"{path}: events: a review item is one receipt, this file holds {len(trace.events)}")
    return trace.events[0], trace.origin


def describe(receipt: Any) -> str:
    command = receipt.arguments()[0]
    text = command if isinstance(command, str) else repr(command)
    return f"{receipt.kind} {text[:60]!r}" + ("" if receipt.valid else f" exit {receipt.exit_code!r}")


def show(_name: str, value: Any) -> str:
    return str(value)
