"""``nox -s fuzz -- --dashboard`` on a shared Redis: headless Chromium sees every target, behaviours, inputs rising.

The runner fuzzes the correct code with one worker against a throw-away
``redis-server`` and serves HypoFuzz's dashboard on a free loopback port. The
page fills itself from a websocket, so it is kept open in headless Chromium
(``headless_page.py``, in real time) and its rendered text is read again and
again without reloading: every fuzz target must be listed, and a target's row
must show behaviours above 0 and then a larger input count than before. The
later count can only come from a worker's report delivered live through
Redis, which needs ``hypofuzz_fixes.poll_redis_changes``. Then the runner is
ended with SIGTERM, which stops HypoFuzz too.

Skipped only under mutation (``MUTANT_UNDER_TEST``): it checks the fuzz runner,
not ``guard/``, and the mutation environments do not install HypoFuzz.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fuzz_helpers import free_port, needs_fuzz_python, redis_server
from headless_page import CHROMIUM, HeadlessPage, PageError
from properties import fuzz
from properties.paths import ROOT

pytestmark = [
    pytest.mark.browser, pytest.mark.redis, pytest.mark.slow,
    pytest.mark.skipif("MUTANT_UNDER_TEST" in os.environ, reason="checks the fuzz runner, not guard/; not run per mutant"),
]

#: Seconds to wait for the page to show what the test asks (start-up collects the tests twice on a shared machine).
DEADLINE = 180
_NUMBER = re.compile(r"^(\d+(?:\.\d+)?)([kM]?)$")


def row_numbers(text: str, nodeid: str) -> "tuple[float, float] | None":
    """(inputs, behaviours) from the dashboard's row for ``nodeid``: the first two numbers after its name."""
    at = text.find(nodeid)
    if at < 0:
        return None
    numbers = []
    for token in text[at + len(nodeid):].split()[:12]:
        found = _NUMBER.match(token)
        if found:
            numbers.append(float(found.group(1)) * {"": 1, "k": 1e3, "M": 1e6}[found.group(2)])
        if len(numbers) == 2:
            return numbers[0], numbers[1]
    return None


def socket_open(port: int) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=2)


#: The runner on nox's interpreter (the tests' own) and on the 3.12+ one ``nox -s fuzz`` prefers (``sys.monitoring``
#: coverage): a user gets the second wherever the machine has it, so the dashboard is checked on both.
INTERPRETERS = ("tests' python", "fuzz python 3.12+")


@pytest.mark.parametrize("interpreter", INTERPRETERS)
def test_the_dashboard_shows_every_target_and_live_behaviours(tmp_path: Path, interpreter: str) -> None:
    python = sys.executable if interpreter == INTERPRETERS[0] else needs_fuzz_python()
    if not Path(CHROMIUM).is_file():
        pytest.fail("headless Chromium is needed: apt-get install chromium")
    port = free_port()
    # A waiting target's row shows a shortened node id: match its end.
    names = [f"TestFuzz_{name}::runTest" for name in fuzz.machines()]
    with redis_server(tmp_path / "redis") as url:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "0"}
        runner = subprocess.Popen(
            [python, "-m", "properties.fuzz", "--dashboard", "--port", str(port), "--seconds", str(DEADLINE + 60),
             "--redis", url, "--progress", "0"],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
        text, first, later = "", None, None
        try:
            deadline = time.monotonic() + DEADLINE
            # The dashboard serves only once HypoFuzz has collected the tests.
            while time.monotonic() < deadline and runner.poll() is None:
                time.sleep(3)
                try:
                    with socket_open(port):
                        break
                except OSError:
                    continue
            with HeadlessPage(f"http://127.0.0.1:{port}/") as page:
                while time.monotonic() < deadline and runner.poll() is None:
                    time.sleep(3)
                    try:
                        text = page.text()
                    except PageError:
                        continue
                    rows = {name: row_numbers(text, name) for name in names}
                    if first is None:
                        # The first target seen with behaviours; its later reads must show more inputs.
                        first = next(((name, row) for name, row in rows.items() if row and row[1] > 0), None)
                    elif rows[first[0]] and rows[first[0]][0] > first[1][0]:
                        later = rows[first[0]]
                    if later is not None and all(name in text for name in names):
                        break
        finally:
            runner.send_signal(signal.SIGTERM)
            output, _ = runner.communicate(timeout=60)
    for name in names:
        assert name in text, f"{name} not listed on the dashboard; runner said:\n{output[-2000:]}"
    assert first is not None, f"no target showed behaviours above 0:\n{text[-1500:]}\nrunner said:\n{output[-2000:]}"
    assert later is not None, f"{first[0]} stayed at {first[1][0]:g} inputs on the open page:\n{text[-1500:]}"
    print(f"dashboard ({interpreter}): {first[0]} {first[1][0]:g} -> {later[0]:g} inputs, {later[1]:g} behaviours")
    assert runner.returncode == 130, output[-2000:]
