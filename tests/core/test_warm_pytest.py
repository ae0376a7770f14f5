"""The review's stage 0 forks its pytest runs from one collection (``mutations.warm_pytest``): what each fork
answers is what a cold pytest run over the same files would, a run past its timeout is killed, and a
collection that fails is reported, so the caller runs cold."""

from __future__ import annotations

import time
from pathlib import Path

from mutations.mutmut_layer import WarmPytest

ROOT = Path(__file__).resolve().parents[2]

PROBE = '''import os
import time


def test_no_bad_mutant():
    assert os.environ.get("MUTANT_UNDER_TEST") != "bad"


def test_a_slow_mutant_hangs():
    if os.environ.get("MUTANT_UNDER_TEST") == "slow":
        time.sleep(120)
'''


def _copy(tmp_path: Path, probe: str) -> Path:
    """A scratch project whose ``mutants/`` folder holds one test file and (linked) this package's mutations/."""
    (tmp_path / "mutants" / "tests").mkdir(parents=True)
    (tmp_path / "mutants" / "mutations").symlink_to(ROOT / "mutations", target_is_directory=True)
    (tmp_path / "mutants" / "tests" / "test_probe.py").write_text(probe, encoding="utf-8")
    return tmp_path


def test_each_fork_answers_as_its_mutant_makes_the_tests_answer(tmp_path: Path) -> None:
    root = _copy(tmp_path, PROBE)
    server = WarmPytest(root, ["-p", "no:cacheprovider", "-q"], ["tests/test_probe.py"], tmp_path / "collect.log", 60)
    try:
        assert server.ready
        logs = tmp_path / "logs"
        assert server.run("", ["tests/test_probe.py"], tmp_path / "k.tsv", None, True, 60, logs / "none.log") == 0
        assert server.run("bad", ["tests/test_probe.py"], tmp_path / "k.tsv", None, True, 60, logs / "bad.log") == 1
        assert "1 failed" in (logs / "bad.log").read_text(encoding="utf-8")
        # One test by node id, as the killers are run again without a mutant.
        assert server.run("bad", ["tests/test_probe.py::test_a_slow_mutant_hangs"], tmp_path / "k.tsv", None, False, 60,
                          logs / "one.log") == 0
        started = time.monotonic()
        assert server.run("slow", ["tests/test_probe.py"], tmp_path / "k.tsv", None, True, 2, logs / "slow.log") is None
        assert time.monotonic() - started < 30
        # The server outlives a killed run.
        assert server.run("bad", ["tests/test_probe.py"], tmp_path / "k.tsv", None, True, 60, logs / "again.log") == 1
    finally:
        server.close()
    assert server.run("", ["tests/test_probe.py"], tmp_path / "k.tsv", None, True, 60, tmp_path / "x.log") == WarmPytest.GONE


def test_a_collection_that_fails_is_not_ready(tmp_path: Path) -> None:
    root = _copy(tmp_path, "this is not python\n")
    server = WarmPytest(root, ["-p", "no:cacheprovider", "-q"], ["tests/test_probe.py"], tmp_path / "collect.log", 60)
    assert not server.ready
    assert "error" in (tmp_path / "collect.log").read_text(encoding="utf-8").lower()
