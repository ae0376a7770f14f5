"""The tests left out under mutation are a committed list (``mutations/left_out.toml``), never a timing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from mutations import pytest_plugin
from mutations.pytest_plugin import LeftOutError, left_out

ROOT = Path(__file__).resolve().parents[2]


def _collected(files: list[str], **env: str) -> set[str]:
    base = {key: value for key, value in os.environ.items() if key not in ("MUTANT_UNDER_TEST", "MUTATIONS_DURATIONS")}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "-p", "mutations.pytest_plugin", *files],
        cwd=ROOT, env={**base, "PYTHONPATH": str(ROOT), **env}, capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return {line.strip() for line in done.stdout.splitlines() if "::" in line}


def test_every_listed_test_exists_and_is_left_out_only_under_mutation() -> None:
    listed = set(left_out())
    assert listed, "the list is read"
    files = sorted({test.split("::", 1)[0] for test in listed})
    plain = _collected(files)
    missing = listed - plain
    assert not missing, f"mutations/left_out.toml names tests that no longer exist: {sorted(missing)}"
    # Under any run mutmut or the catalogue starts, exactly the listed tests go, whatever the timings say.
    for label in ("stats", "", "guard.budget.x_f__mutmut_1", "catalogue:some-entry", "red-check:earlier-budget"):
        under = _collected(files, MUTANT_UNDER_TEST=label)
        assert under == plain - listed, label


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("[[test]]\nid = 'tests/x.py::t'\n", "`why`"),
        ("[[test]]\nid = 'no-colons'\nwhy = 'w'\n", "`id`"),
        ("[[test]]\nid = 'tests/x.py::t'\nwhy = 'w'\n[[test]]\nid = 'tests/x.py::t'\nwhy = 'v'\n", "listed twice"),
        ("test = 3\n", "`test`"),
        ("[[test]\n", "left_out.toml"),
    ],
)
def test_a_malformed_list_is_one_line_naming_the_file_and_field(tmp_path: Path, text: str, field: str) -> None:
    path = tmp_path / "left_out.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(LeftOutError) as raised:
        left_out(path)
    message = str(raised.value)
    assert "\n" not in message and str(path) in message and field in message


def test_a_malformed_list_stops_the_session_with_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    from mutations import __main__ as cli

    broken = tmp_path / "left_out.toml"
    broken.write_text("[[test]]\nid = 'tests/x.py::t'\n", encoding="utf-8")
    monkeypatch.setattr(pytest_plugin, "LEFT_OUT_FILE", broken)
    monkeypatch.setattr(pytest_plugin.left_out, "__defaults__", (broken,))
    with pytest.raises(SystemExit) as raised:
        raise SystemExit(cli.main(["--only-catalogue"]))
    assert raised.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(broken) in err[0] and "`why`" in err[0]


def test_mutmut_and_the_scratch_runs_leave_out_the_same_test_files() -> None:
    """The two lists of test files left out under mutation are kept in two places; they must name the same files.

    mutmut reads its pytest options from pyproject (static TOML), the catalogue
    and the red check from ``mutations.scratch.PYTEST_ARGS``: one cannot import
    the other, so this test holds them equal.
    """
    import tomllib

    from mutations.scratch import PYTEST_ARGS

    root = Path(__file__).resolve().parents[2]
    options = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mutmut"]["pytest_add_cli_args"]
    for_mutmut = {option for option in options if option.startswith("--ignore=")}
    for_scratch = {option for option in PYTEST_ARGS if option.startswith("--ignore=")}
    assert for_mutmut, "pyproject's mutmut options leave no test file out: the report's own tests would run under mutation"
    assert for_mutmut == for_scratch
    for option in for_mutmut:
        assert (root / option.removeprefix("--ignore=")).is_file(), option
