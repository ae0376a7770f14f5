"""The counter's row of ``nox -s bench``: checked steps per second of its bulk driver."""

from __future__ import annotations

import argparse
from typing import Callable

from properties.counter.drivers import run_bulk_driver
from properties.subject import DriverRequest


def run(args: argparse.Namespace, add: Callable[[str, str, str], None]) -> tuple[list[tuple[str, str]], bool]:
    result = run_bulk_driver(DriverRequest(seed=args.seed, mode="quick", profile="dev"))
    add("counter bulk (steps/s)", f"{result.tally.steps / max(result.seconds, 1e-9):,.0f}", "the fifth subject")
    return [], True
