"""Running a subject's Hypothesis state machine as a driver: the settings and the first failure, in one place.

Every subject's ``stateful`` driver runs its machine the same way: the named
profile with the driver's example and step counts, no example database (the
seed alone decides what runs), no deadline, no explicit, reuse or explain
phases, and shrinking only when the verdict needs a minimal counterexample
(mutation runs only need the verdict). A violation is recorded by the machine
itself (its first failure) and surfaces here as the ``AssertionError`` that
stops the run; any other exception inside the guard or the reference is a
finding too, reported as the driver's error rather than a harness crash.
"""

from __future__ import annotations

import time
from typing import Any, Callable

import attrs
from hypothesis import HealthCheck, Phase, settings
from hypothesis import seed as hypothesis_seed
from hypothesis.stateful import run_state_machine_as_test

from properties import profiles  # noqa: F401  (registers the named profiles driver_settings looks up)
from properties import progress


def driver_settings(profile: str, examples: "int | None", steps: int, shrink: bool) -> settings:
    """The settings a stateful driver runs under: ``profile`` with this driver's counts, deterministic by seed."""
    base = settings.get_profile(profile)
    return settings(
        base,
        max_examples=examples if examples is not None else base.max_examples,
        stateful_step_count=steps,
        database=None,
        deadline=None,
        print_blob=False,
        phases=[Phase.generate, Phase.shrink] if shrink else [Phase.generate],
        suppress_health_check=list(HealthCheck),
    )


@attrs.define
class MachineOutcome:
    """What one run of a machine gave: its first recorded failure, or an error, and the time it took."""

    failure: "tuple[list[Any], Any] | None" = None
    error: str = ""
    seconds: float = 0.0


@attrs.define
class StatefulResult:
    """What a subject's ``stateful`` driver ran and found (one shape for every subject)."""

    seed: int
    profile: str
    examples: int
    seconds: float = 0.0
    #: The first failure the machine recorded (its events, its violation), or None.
    failure: "tuple[Any, Any] | None" = None
    error: str = ""
    #: Steps the machine judged (a subject that counts them).
    steps: int = 0
    #: Events the machine reached, by name (a subject that reports them).
    reached: dict[str, int] = attrs.field(factory=dict)


def stateful_result(seed: int, profile: str, chosen: settings, outcome: MachineOutcome, own: Any, tally: Any) -> StatefulResult:
    """The driver's result, with what the machine counted in ``own`` (a tally of its own) merged into ``tally``.

    Shrinking replays failing examples, and each replay records its violation: only the first failure (the
    one reported, minimal when shrinking ran) stays in the tally."""
    result = StatefulResult(seed, profile, chosen.max_examples, outcome.seconds, outcome.failure, outcome.error, own.steps)
    if result.failure is not None:
        own.violations[:] = [result.failure[1]]
    tally.merge(own)
    return result


def _watched(machine: type, examples: int) -> type:
    """``machine`` reporting each finished example to the live progress (``properties.progress``).

    Only the teardown that ends every example is added: rules, invariants and
    the seed are the machine's own, so the same examples run in the same order.
    """
    finished = [0]

    class Watched(machine):
        def teardown(self) -> None:
            try:
                super().teardown()
            finally:
                finished[0] += 1
                # Hypothesis may run a few examples past the target (ones it does not count); the line stops at it.
                progress.update(done=min(finished[0], examples), total=examples, unit="examples", eta=True)

    Watched.__name__ = Watched.__qualname__ = machine.__name__
    return Watched


def run_machine(machine: type, chosen: settings, seed: int, first_failure: Callable[[], Any]) -> MachineOutcome:
    """Run ``machine`` under ``chosen`` with ``seed``; ``first_failure()`` reads the failure the machine recorded."""
    hypothesis_seed(seed)(machine)
    outcome = MachineOutcome()
    started = time.perf_counter()
    try:
        run_state_machine_as_test(_watched(machine, chosen.max_examples) if progress.active() else machine, settings=chosen)
    except AssertionError as error:
        outcome.failure = first_failure()
        if outcome.failure is None:
            outcome.error = (str(error).splitlines() or [type(error).__name__])[0]
    except ExceptionGroup as group:
        # Hypothesis reports each distinct failure it found (told apart by where it was raised: a rule or the
        # teardown) in one group; a group of violations is a violation, and the first one recorded is reported.
        rest = group.split(AssertionError)[1]
        outcome.failure = first_failure() if rest is None else None
        if outcome.failure is None:
            # A crash: named by its first exception that is not a violation (MemoryError, RuntimeError, ...).
            first = _first_leaf(rest) if rest is not None else group
            outcome.error = f"{type(first).__name__}: {first}"
    except Exception as error:  # a crash inside the guard or the reference is a finding, not a harness error
        outcome.error = f"{type(error).__name__}: {error}"
    outcome.seconds = time.perf_counter() - started
    return outcome


def _first_leaf(group: BaseExceptionGroup) -> BaseException:
    """The first exception of a (nested) exception group that is not itself a group."""
    first = group.exceptions[0]
    return _first_leaf(first) if isinstance(first, BaseExceptionGroup) else first
