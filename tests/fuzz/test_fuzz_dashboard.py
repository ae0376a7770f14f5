"""``nox -s fuzz -- --dashboard``: HypoFuzz's dashboard, loaded in headless Chromium, lists every fuzz target.

The runner fuzzes the correct code against a throw-away directory database
and serves the dashboard on a free loopback port; the page is a script-driven
app that fills in its test list once the server answers, so the test reloads
it until the list appears (or a deadline passes), then ends the runner with
SIGTERM, which stops HypoFuzz too.

Skipped only under mutation (``MUTANT_UNDER_TEST``): it checks the fuzz runner,
not ``guard/``, and the mutation environments do not install HypoFuzz.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from fuzz_helpers import free_port
from properties import fuzz
from properties.paths import ROOT

pytestmark = [
    pytest.mark.browser, pytest.mark.slow,
    pytest.mark.skipif("MUTANT_UNDER_TEST" in os.environ, reason="checks the fuzz runner, not guard/; not run per mutant"),
]

CHROMIUM = "/usr/bin/chromium"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync")
#: Seconds to wait for the dashboard to list the targets (start-up collects the tests twice on a shared machine).
DEADLINE = 150


def _dom(url: str) -> str:
    with tempfile.TemporaryDirectory(prefix="chromium-profile-") as profile:
        done = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "--virtual-time-budget=5000", "--dump-dom", url],
                              capture_output=True, text=True, timeout=120)
    return done.stdout if done.returncode == 0 else ""


def test_the_dashboard_lists_the_fuzz_targets(tmp_path: Path) -> None:
    if not Path(CHROMIUM).is_file():
        pytest.fail("headless Chromium is needed: apt-get install chromium")
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "0"}
    runner = subprocess.Popen(
        [sys.executable, "-m", "properties.fuzz", "--dashboard", "--port", str(port), "--seconds", str(DEADLINE + 60),
         "--database", str(tmp_path / "db")],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    expected = [f"TestFuzz_{name}::runTest" for name in fuzz.machines()]
    dom = ""
    try:
        deadline = time.monotonic() + DEADLINE
        while time.monotonic() < deadline and runner.poll() is None:
            dom = _dom(f"http://127.0.0.1:{port}/")
            if all(name in dom for name in expected):
                break
            time.sleep(2)
    finally:
        runner.send_signal(signal.SIGTERM)
        output, _ = runner.communicate(timeout=60)
    assert "HypoFuzz" in dom, f"no dashboard page at port {port}; runner said:\n{output[-2000:]}"
    for name in expected:
        assert name in dom, f"{name} not listed on the dashboard"
    assert runner.returncode == 130, output[-2000:]
