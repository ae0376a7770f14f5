"""One pytest collection, forked once per mutant: the review's stage 0 without pytest's start-up per mutant.

The review's cheapest mutation stage (``mutmut_layer.kill_near``) runs pytest
once per mutant over the test files near the change, stopping at the first
failure. Started cold, each of those runs pays the interpreter, the imports
of the test files and their collection (measured 2.7-3.4 s for the 17 files
that import ``guard.budget``) before its first test; the test that kills a
mutant often takes a tenth of that. This server pays it once: it collects
the files in its own process (no mutant active), then for each request forks
a child that sets the mutant, runs ``pytest.main`` over the same files and
exits with pytest's status (0.2-0.3 s for the same runs, forked).

That is mutmut's own way of running a mutant (it forks a warm process and
calls ``pytest.main`` again in it), and it has mutmut's one difference from a
cold run: whatever a test module computes when it is imported was computed
with no mutant active. A kill found here is still a test that failed with the
mutant active; ``kill_near`` then runs each killer again with no mutant (in a
fork of the same server) and keeps only kills whose test passes there, so a
fork's inherited state cannot make a kill, only hide one, and a mutant this
stage does not kill goes on to mutmut exactly as before.

Protocol (``python -m mutations.warm_pytest``, run in mutmut's ``mutants/``
folder): the first argument is a JSON object ``{"args": [...], "tests":
[...], "log": PATH}`` (mutmut's pytest options, the test files, where the
collection's output goes). The server answers one line ``{"ready": true}``
once collected, or ``{"ready": false, "code": N}`` and exits. Then each line
on stdin is a request ``{"label", "tests", "killers", "priority",
"stop_at_first", "timeout", "log"}`` (as ``mutmut_layer``'s cold runs take
them) and each answer a line ``{"code": N}``, ``null`` for a run killed past
its timeout. End of input ends the server.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from typing import Any

#: How often the server looks whether a forked run has ended (seconds).
POLL = 0.02


def _redirect(path: str) -> None:
    """Send this process's stdout and stderr (file descriptors 1 and 2) to ``path``."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)


def _child(request: dict[str, Any], args: list[str]) -> None:
    """The forked run: the mutant set as a cold run sets it, pytest once, exit with its status (never returns)."""
    code = 3
    try:
        _redirect(str(request["log"]))
        os.environ.update(MUTANT_UNDER_TEST=str(request["label"]), MUTATIONS_KILLERS_FILE=str(request["killers"]),
                          MUTATIONS_DURATIONS=str(request["killers"]) + ".no-durations")
        os.environ.pop("MUTATIONS_PRIORITY", None)
        if request.get("priority"):
            os.environ["MUTATIONS_PRIORITY"] = str(request["priority"])
        import pytest

        options = ["-x"] if request.get("stop_at_first") else []
        code = int(pytest.main([*options, "--tb=short", *args, *[str(t) for t in request["tests"]]]))
    except BaseException:  # noqa: BLE001 - a crashed child must exit with a status, never return into the server
        code = 3
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def _run(request: dict[str, Any], args: list[str]) -> int | None:
    """Fork one run and wait for it; None when it ran past ``request["timeout"]`` (then it is killed)."""
    pid = os.fork()
    if pid == 0:
        _child(request, args)
    deadline = time.monotonic() + float(request["timeout"])
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return None
        time.sleep(POLL)


def main(argv: list[str]) -> int:
    setup = json.loads(argv[0])
    args = [str(arg) for arg in setup["args"]]
    answer = os.fdopen(os.dup(1), "w", buffering=1)
    _redirect(str(setup["log"]))
    import pytest

    os.environ["MUTANT_UNDER_TEST"] = ""
    collected = int(pytest.main(["--collect-only", *args, *[str(t) for t in setup["tests"]]]))
    sys.stdout.flush()
    if collected != 0:
        answer.write(json.dumps({"ready": False, "code": collected}) + "\n")
        return 1
    answer.write(json.dumps({"ready": True}) + "\n")
    for line in sys.stdin:
        if not line.strip():
            continue
        answer.write(json.dumps({"code": _run(json.loads(line), args)}) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
