"""A page kept open in headless Chromium, its rendered text read on demand over the DevTools pipe.

Not a test module. ``--dump-dom`` reads a page once, when its virtual time
budget runs out, which is too early for a page that fills itself from a
websocket (HypoFuzz's dashboard); here the page stays open in real time and
``text()`` evaluates ``document.body.innerText`` whenever the test asks.
Chromium's ``--remote-debugging-pipe`` takes DevTools protocol commands on
file descriptor 3 and answers on 4, each message JSON ended by a NUL byte.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync")


class PageError(Exception):
    """Chromium did not answer, or answered with an error."""


class HeadlessPage:
    def __init__(self, url: str, chromium: str = CHROMIUM) -> None:
        if not Path(chromium).is_file():
            raise PageError("headless Chromium is needed: apt-get install chromium")
        self.profile = tempfile.TemporaryDirectory(prefix="chromium-profile-")
        commands_read, self.commands = os.pipe()
        self.answers, answers_write = os.pipe()

        def as_fds_3_and_4() -> None:
            # Either pipe end may itself be 3 or 4: move both out of the way before placing them.
            reading, writing = os.dup(commands_read), os.dup(answers_write)
            os.dup2(reading, 3)
            os.dup2(writing, 4)

        self.process = subprocess.Popen(
            [chromium, *FLAGS, "--remote-debugging-pipe", f"--user-data-dir={self.profile.name}", url],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=as_fds_3_and_4, close_fds=False,
            # Its own process group: Chromium's helpers (zygote, utility processes) end with it on close.
            start_new_session=True,
        )
        os.close(commands_read)
        os.close(answers_write)
        self.buffer = b""
        self.next_id = 0
        self.session: "str | None" = None

    def _send(self, method: str, params: "dict[str, Any] | None" = None, timeout: float = 30.0) -> dict:
        self.next_id += 1
        message: dict[str, Any] = {"id": self.next_id, "method": method, "params": params or {}}
        if self.session is not None and not method.startswith("Target."):
            message["sessionId"] = self.session
        os.write(self.commands, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            while b"\0" in self.buffer:
                raw, self.buffer = self.buffer.split(b"\0", 1)
                answer = json.loads(raw)
                if answer.get("id") == self.next_id:
                    if "error" in answer:
                        raise PageError(f"{method}: {answer['error']}")
                    return answer.get("result", {})
            left = deadline - time.monotonic()
            if left <= 0 or self.process.poll() is not None:
                raise PageError(f"{method}: no answer from Chromium (exit {self.process.poll()})")
            ready, _, _ = select.select([self.answers], [], [], left)
            if ready:
                chunk = os.read(self.answers, 1 << 20)
                if not chunk:
                    raise PageError(f"{method}: Chromium closed the DevTools pipe")
                self.buffer += chunk

    def _attach(self) -> None:
        pages = [target for target in self._send("Target.getTargets")["targetInfos"] if target["type"] == "page"]
        if not pages:
            raise PageError("Chromium has no page open")
        self.session = self._send("Target.attachToTarget", {"targetId": pages[0]["targetId"], "flatten": True})["sessionId"]

    def text(self) -> str:
        """The page's rendered text now."""
        if self.session is None:
            self._attach()
        result = self._send("Runtime.evaluate", {"expression": "document.body ? document.body.innerText : ''",
                                                 "returnByValue": True})
        return str(result.get("result", {}).get("value", ""))

    def reload(self) -> None:
        if self.session is None:
            self._attach()
        self._send("Page.reload")

    def close(self) -> None:
        for descriptor in (self.commands, self.answers):
            try:
                os.close(descriptor)
            except OSError:
                pass
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        # A helper that outlived the browser may still be writing into the profile (CI once failed removing it:
        # "Directory not empty: 'Default'"): end the whole group, then remove the profile, retrying briefly.
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        for attempt in range(10):
            try:
                shutil.rmtree(self.profile.name)
                break
            except FileNotFoundError:
                break
            except OSError:
                if attempt == 9:
                    raise
                time.sleep(0.5)
        self.profile.cleanup()  # nothing left to remove: only detaches its finalizer

    def __enter__(self) -> "HeadlessPage":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
