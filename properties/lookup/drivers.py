"""The lookup subject's two drivers: seeded bulk receipts, and the Hypothesis state machine.

The bulk driver judges, in this order: the hostile corpus (L4; pure, so a
mutant that accepts a disqualifier is met within a round of its kinds and a
``--mutants`` run stops there), the seed's own chains (``fixtures``), then
seeded chains of the accepted grammar and the directed chains that reach the
rarer coverage names on every seed (``generate.directed_chain``), in batches
of ``BATCH`` (L1-L3: one run of the real programs per batch,
``programs.Workspace``). Everything is
drawn from ``random.Random`` streams seeded by the request's seed (the
hostile corpus and the chains each from its own), so the same seed judges
the same receipts.

Sizes: a chain costs about 12 ms of CPU (its argv run, its real run, and
for an exit of 1 its deciding steps alone), nearly all of it in the real
programs; a hostile receipt about 0.25 ms to draw and judge. In the default
run this driver spent about 1.5 s of CPU and the state machine about 1.3 s
(two cores shared with other jobs, load 15-25), together 2.5-3.4 s more
than a run without the subject, and every coverage minimum was met. A failure
is one receipt and is not shrunk: cutting a hostile receipt could leave a
valid chain, and a valid chain has at most four steps.
"""

from __future__ import annotations

import random
import time
from typing import Any

import attrs

from properties import progress
from properties.catalogue import Tally, Violation
from properties.lookup import fixtures, generate
from properties.lookup.events import Receipt
from properties.lookup.invariants import BY_ID
from properties.lookup.monitor import new_monitor
from properties.subject import DriverRequest, DriverResult


@attrs.frozen
class Sizes:
    #: Seeded chains of the accepted grammar run for real, besides the seed's own.
    chains: int
    #: Hostile receipts of each kind (``generate.HOSTILE_KINDS``, 21 kinds).
    hostile_per_kind: int
    #: Directed chains of each shape (``generate.DIRECTED_SHAPES``): the coverage minimums that random
    #: chains reach only by chance are met on every seed (a CI run draws a fresh seed; seed 3555001728's
    #: 80 random chains were decided before their last step 3 times, under the minimum of 4). The
    #: ``--mutants`` run has none: it looks for a violation, not for coverage, and its sizes stay as measured.
    directed: int = 0


SIZES = {"default": Sizes(80, 100, 12), "quick": Sizes(12, 20, 2), "mutants": Sizes(30, 60)}
#: State machine examples per mode (None: the profile's own count, under ``--profile thorough``).
EXAMPLES = {"default": 25, "quick": 6, "mutants": 12}
BATCH = 30


def only_ids(request: DriverRequest) -> "tuple[str, ...] | None":
    """The lookup invariants the request checks (None: all); other subjects' ids are ignored."""
    if request.only is None:
        return None
    return tuple(item for item in request.only if item in BY_ID)


def hostile_receipts(seed: int, per_kind: int) -> list[Receipt]:
    chooser = generate.RandomChooser(random.Random(f"lookup-hostile-{seed}"))
    return [Receipt.of(case.command, case.exit_code, case.output, kind=case.kind)
            for case in generate.hostile_rounds(chooser, per_kind)]


def valid_receipts(seed: int, count: int) -> list[Receipt]:
    chooser = generate.RandomChooser(random.Random(f"lookup-chains-{seed}"))
    return [Receipt.of(generate.random_valid(chooser).command, label=f"bulk-{seed}-{index}") for index in range(count)]


def directed_receipts(seed: int, per_shape: int) -> list[Receipt]:
    chooser = generate.RandomChooser(random.Random(f"lookup-directed-{seed}"))
    return [Receipt.of(generate.render(generate.directed_chain(chooser, shape), chooser).command,
                       label=f"directed-{shape}-{seed}-{index}")
            for index in range(per_shape) for shape in generate.DIRECTED_SHAPES]


def bulk_receipts(seed: int, sizes: Sizes) -> tuple[list[Receipt], list[Receipt]]:
    """The bulk work of ``seed``, in the order it is judged: the hostile corpus, then the chains (the seed's own,
    the seeded ones, the directed ones). The review's side compares these very receipts."""
    chains = fixtures.receipts() + valid_receipts(seed, sizes.chains) + directed_receipts(seed, sizes.directed)
    return hostile_receipts(seed, sizes.hostile_per_kind), chains


def receipt_counts(sizes: Sizes) -> tuple[int, int]:
    """How many chains and hostile receipts ``bulk_receipts`` draws with ``sizes``, without drawing them."""
    chains = sizes.chains + len(fixtures.CHAINS) + sizes.directed * len(generate.DIRECTED_SHAPES)
    return chains, len(generate.HOSTILE_KINDS) * sizes.hostile_per_kind


def run_bulk(seed: int, sizes: Sizes, tally: Tally, *, only: "tuple[str, ...] | None" = None,
             stop_at_first: bool = False) -> "tuple[list[Any], Violation] | None":
    """Judge the hostile corpus, the seed's chains and the seeded chains; the first failure as ([receipt], violation)."""
    monitor = new_monitor(tally, only)
    hostile, chains = bulk_receipts(seed, sizes)
    total = len(hostile) + len(chains)
    failure = None
    try:
        batches = [hostile[start:start + 500] for start in range(0, len(hostile), 500)]
        batches += [chains[start:start + BATCH] for start in range(0, len(chains), BATCH)]
        done = 0
        for batch in batches:
            progress.update(done=done, total=total, unit="receipts", eta=True)
            for receipt, found, judged in zip(batch, monitor.step_all(batch), monitor.batch):
                if found and failure is None:
                    seen = judged.observation.to_json() if judged.observation is not None else None
                    failure = ([attrs.evolve(receipt, observed=seen)], found[0])
            done += len(batch)
            if failure is not None and stop_at_first:
                break
    finally:
        monitor.close()
    return failure


def sized(mode: str, receipts: "int | None") -> Sizes:
    """The mode's sizes, or about ``receipts`` receipts (``--traces``) in the mode's proportion of chains to
    hostile receipts: a receipt is what this subject counts, and a chain costs about 60 hostile receipts.
    The directed chains stay the mode's: they are there for coverage, not for volume."""
    sizes = SIZES.get(mode, SIZES["default"])
    if receipts is None:
        return sizes
    hostile = len(generate.HOSTILE_KINDS) * sizes.hostile_per_kind
    chains = max(1, round(receipts * sizes.chains / (sizes.chains + hostile)))
    return Sizes(chains, max(1, -(-(receipts - chains) // len(generate.HOSTILE_KINDS))), sizes.directed)


def run_bulk_driver(request: DriverRequest) -> DriverResult:
    tally = Tally()
    sizes = sized(request.mode, request.size)
    started = time.perf_counter()
    failure = run_bulk(request.seed, sizes, tally, only=only_ids(request), stop_at_first=request.stop_at_first)
    seconds = time.perf_counter() - started
    chains, hostile = receipt_counts(sizes)
    return DriverResult("bulk (random-seeded)", tally, seconds, failure=failure,
                        details={"seed": request.seed, "chains": chains, "hostile": hostile},
                        statistics={"lookup hostile receipts tried": tally.coverage["hostile receipts"]})


def run_stateful_driver(request: DriverRequest) -> DriverResult:
    from properties.lookup.stateful import run_stateful

    tally = Tally()
    if request.size is not None and request.mode != "default":
        examples: "int | None" = request.size
    elif request.profile == "thorough" and request.mode == "default":
        examples = None
    else:
        examples = EXAMPLES.get(request.mode, EXAMPLES["default"])
    result = run_stateful(request.seed, request.profile, tally, examples=examples, only=only_ids(request),
                          shrink=not request.stop_at_first)
    return DriverResult("stateful (hypothesis)", tally, result.seconds,
                        details={"seed": request.seed, "examples": result.examples}, failure=result.failure,
                        error=result.error)
