"""classifiers.md L1-L4: the lookup classifier checked against dash, GNU grep and sed, git and rg 13.

Commands checked: every accepted row of the table tests plus chains generated
from the accepted grammar (Hypothesis for L1-L3, a seeded corpus for L4).

L3 as written ("its last lookup run alone also exits 1") cannot hold for an
``&&`` chain whose earlier lookup finds nothing: dash stops there with status
1 and the last lookup never runs. The check below states what the seed means
("exit 1 still means a search found nothing"): the step that decided the
status, the last step or in an ``&&`` chain the first one that failed, is a
bare lookup that also exits 1 when run alone; when every joiner is ``;`` that
is the last lookup, exactly as L3 says.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import Phase, given, settings

from guard.lookup import lookup_found_nothing, scan_steps, scan_words
from properties.lookup import generate as corpus
from test_lookup_table import ACCEPTED

pytestmark = pytest.mark.real_programs

PROGRAMS = {
    "dash": "dash",
    "grep": "grep",
    "egrep": "grep",
    "fgrep": "grep",
    "sed": "sed",
    "git": "git",
    "rg": "ripgrep",
    "which": "debianutils",
    "head": "coreutils",
    "tail": "coreutils",
    "cat": "coreutils",
    "wc": "coreutils",
    "sort": "coreutils",
    "uniq": "coreutils",
}
SYSTEM_PATH = "/usr/bin:/bin"
DASH = "/usr/bin/dash"
STUBBED = sorted(set(PROGRAMS) - {"dash"})
TIMEOUT = 30
L4_SEED = 20260
#: Real runs cost ~50 ms each: cap the examples and skip shrinking (a failing chain is printed as drawn).
REAL_SETTINGS = settings(max_examples=min(settings.default.max_examples, 100),
                         phases=[Phase.explicit, Phase.reuse, Phase.generate])
L4_PER_KIND = 600

#: The argv recorder: every stubbed program writes its argv, NUL-separated, one file per process. echo and
#: cd are dash builtins, so shell functions (which dash prefers to regular builtins) record them instead.
STUB = '#!/bin/dash\nprintf "%s\\0" "${0##*/}" "$@" > "$ARGV_LOG/p.$$"\n'
BUILTIN_RECORDERS = (
    '_record() { _n=0; while [ -e "$ARGV_LOG/b.$_n" ]; do _n=$((_n+1)); done; '
    'printf "%s\\0" "$@" > "$ARGV_LOG/b.$_n"; }\n'
    'echo() { _record echo "$@"; }\n'
    'cd() { _record cd "$@"; command cd "$@"; }\n'
)

UI_JS = "\n".join(
    ["// canvas game ui", "function showScreen(name) {", "  drawSprite(name);", "}", "const speed = 4; // TODO",
     "import x from 'y'", "say \"hi\" it's a-b x.y 100% key=value @decorator", "end"]
    + [f"line {number}" for number in range(1, 1300)]
) + "\n"
FILE_CONTENTS = {
    "ui.js": UI_JS,
    "app.py": "def main():\n    return 0\n",
    "README.md": "# game\nRun it.\n",
    "src/game.js": "function drawSprite() {}\n",
    "dir with space/notes.txt": "notes\n",
    "data.bin": "showScreen\0binary\n",
}


def require_programs() -> None:
    if not os.access(DASH, os.X_OK):
        pytest.fail(f"install dash at {DASH} (apt-get install dash)")
    for program, package in PROGRAMS.items():
        if shutil.which(program, path=SYSTEM_PATH) is None:
            pytest.fail(f"install {program} (apt-get install {package})")
    version = subprocess.run(["rg", "--version"], capture_output=True, text=True, check=False).stdout
    if not version.startswith("ripgrep 13."):
        pytest.fail("install ripgrep 13 (apt-get install ripgrep; Debian bookworm ships 13.0.0)")


def write_files(root: Path) -> None:
    for name, text in FILE_CONTENTS.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def run_env(home: Path, path: str) -> dict[str, str]:
    return {"PATH": path, "HOME": str(home), "LC_ALL": "C.UTF-8", "GIT_CONFIG_NOSYSTEM": "1"}


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A scratch git repository holding the same files at the top and in every cd target, and a scratch HOME."""
    require_programs()
    base = tmp_path_factory.mktemp("lookup-real")
    root, home = base / "work", base / "home"
    home.mkdir()
    for directory in ("", "src", "dir with space", "game", "my dir"):
        write_files(root / directory)
    env = run_env(home, SYSTEM_PATH)
    for argv in (["git", "init", "-q"], ["git", "add", "-A"],
                 ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "fixture"]):
        subprocess.run(argv, cwd=root, env=env, check=True, capture_output=True)
    return root, home


@pytest.fixture(scope="module")
def stubs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A PATH of argv-recording stubs and a scratch directory with every cd target."""
    require_programs()
    base = tmp_path_factory.mktemp("lookup-stubs")
    bin_dir, cwd = base / "bin", base / "cwd"
    bin_dir.mkdir()
    for name in STUBBED:
        (bin_dir / name).write_text(STUB)
        (bin_dir / name).chmod(0o755)
    for directory in ("src", "dir with space", "game", "my dir"):
        (cwd / directory).mkdir(parents=True)
    return bin_dir, cwd


def accepted_table() -> list[str]:
    return [command for command, output in ACCEPTED if lookup_found_nothing(command, 1, output)]


# ---------------------------------------------------------------- L1


def recorded_argvs(command: str, bin_dir: Path, cwd: Path, log: Path) -> list[list[str]]:
    log.mkdir()
    env = run_env(cwd, str(bin_dir)) | {"ARGV_LOG": str(log)}
    done = subprocess.run([DASH, "-c", BUILTIN_RECORDERS + command], cwd=cwd, env=env,
                          stdin=subprocess.DEVNULL, capture_output=True, timeout=TIMEOUT, check=False)
    assert done.returncode == 0, (command, done.stderr)
    calls = [entry.read_bytes().decode().split("\0")[:-1] for entry in sorted(log.iterdir())]
    shutil.rmtree(log)
    return calls


def check_scanner_fidelity(command: str, bin_dir: Path, cwd: Path) -> None:
    words = scan_words(command)
    assert words is not None, command
    calls = recorded_argvs(command, bin_dir, cwd, cwd.parent / "log")
    # Pipeline members run concurrently, so compare as multisets.
    assert sorted(calls) == sorted(words), command


def test_l1_table_chains_scanner_matches_dash(stubs: tuple[Path, Path]) -> None:
    bin_dir, cwd = stubs
    commands = accepted_table()
    assert len(commands) == len(ACCEPTED)
    for command in commands:
        check_scanner_fidelity(command, bin_dir, cwd)


@REAL_SETTINGS
@given(rendered=corpus.valid_chains())
def test_l1_generated_chains_scanner_matches_dash(stubs: tuple[Path, Path], rendered: corpus.Rendered) -> None:
    bin_dir, cwd = stubs
    assert lookup_found_nothing(rendered.command, 1, "")
    check_scanner_fidelity(rendered.command, bin_dir, cwd)


# ---------------------------------------------------------------- L2 and L3


def snapshot(*roots: Path) -> dict[str, tuple[str, str]]:
    """Every path under the roots with its kind and content hash (directories and links included)."""
    seen: dict[str, tuple[str, str]] = {}
    for root in roots:
        for directory, names, files in os.walk(root):
            for name in names + files:
                path = Path(directory) / name
                seen[str(path)] = describe(path)
    return seen


def describe(path: Path) -> tuple[str, str]:
    if path.is_symlink():
        return "link", os.readlink(path)
    if path.is_dir():
        return "dir", oct(path.stat().st_mode)
    return oct(path.stat().st_mode), hashlib.sha256(path.read_bytes()).hexdigest()


def run_real(command: str, root: Path, home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([DASH, "-c", command], cwd=root, env=run_env(home, SYSTEM_PATH),
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, errors="replace",
                          timeout=TIMEOUT, check=False)


def split_cd(command: str) -> tuple[str | None, list[list[list[str]]], list[str]]:
    """The cd directory (or None), then the steps and joiners after it."""
    scanned = scan_steps(command)
    assert scanned is not None, command
    steps, joiners = scanned
    if steps[0][0][0] == "cd":
        return steps[0][0][1], steps[1:], joiners[1:]
    return None, steps, joiners


def alone(pipeline: list[list[str]], cd: str | None) -> str:
    """One step as its own command line, after the same cd."""
    text = " | ".join(shlex.join(argv) for argv in pipeline)
    return text if cd is None else f"cd {shlex.quote(cd)} && {text}"


def deciding_step(command: str, root: Path, home: Path) -> tuple[list[list[str]], int]:
    """Each step run alone in order as dash would: the last step that ran, and the status it left.

    ``a && b ; c``: when ``a`` fails, ``b`` is skipped with ``a``'s status and ``c`` still runs.
    """
    cd, steps, joiners = split_cd(command)
    chosen, status = steps[0], run_real(alone(steps[0], cd), root, home).returncode
    for joiner, pipeline in zip(joiners, steps[1:]):
        if joiner == "&&" and status != 0:
            continue
        chosen, status = pipeline, run_real(alone(pipeline, cd), root, home).returncode
    return chosen, status


def new_tally() -> dict[str, int]:
    return {"runs": 0, "exit 1": 0, "last lookup alone": 0, "decided earlier": 0}


def check_side_effects_and_status(command: str, root: Path, home: Path, tally: dict[str, int]) -> None:
    before = snapshot(root, home)
    done = run_real(command, root, home)
    # L2: no file created, changed or deleted.
    assert snapshot(root, home) == before, command
    tally["runs"] += 1
    if done.returncode != 1:
        return
    tally["exit 1"] += 1
    cd, steps, joiners = split_cd(command)
    step, status = deciding_step(command, root, home)
    # The step-by-step replay agrees with dash on the status of the whole command.
    assert status == 1, command
    # L3 (as the seed means it): the deciding step is a bare lookup that found nothing on its own.
    assert len(step) == 1 and step[0][0] in ("grep", "egrep", "fgrep", "rg", "git", "which"), command
    tally["decided earlier"] += step != steps[-1]
    if "&&" not in joiners:
        # L3 as written: with only `;` joiners, the last lookup alone exits 1.
        assert run_real(alone(steps[-1], cd), root, home).returncode == 1, command
        tally["last lookup alone"] += 1


def test_l2_l3_table_chains(workspace: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    root, home = workspace
    tally = new_tally()
    for command in accepted_table():
        check_side_effects_and_status(command, root, home, tally)
    with capsys.disabled():
        print(f"\nL2/L3 table chains: {tally}")
    # The table holds an && chain stopped by an earlier empty search, the case L3's wording misses.
    assert tally["exit 1"] >= 10 and tally["decided earlier"] >= 1


@REAL_SETTINGS
@given(rendered=corpus.valid_chains())
def test_l2_l3_generated_chains(workspace: tuple[Path, Path], rendered: corpus.Rendered) -> None:
    root, home = workspace
    assert lookup_found_nothing(rendered.command, 1, "")
    check_side_effects_and_status(rendered.command, root, home, new_tally())


def test_l2_l3_seeded_sample(workspace: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    """A fixed seeded sample too, so that the exit-1 branch is exercised a known number of times."""
    root, home = workspace
    seed = 4242
    tally = new_tally()
    for rendered in corpus.valid_corpus(seed, 60):
        assert lookup_found_nothing(rendered.command, 1, "")
        check_side_effects_and_status(rendered.command, root, home, tally)
    with capsys.disabled():
        print(f"\nL2/L3 generated sample (seed {seed}): {tally}")
    assert tally["exit 1"] >= 10 and tally["last lookup alone"] >= 5


# ---------------------------------------------------------------- L4


def test_l4_hostile_corpus_is_never_accepted(capsys: pytest.CaptureFixture[str]) -> None:
    cases = corpus.hostile_corpus(L4_SEED, L4_PER_KIND)
    accepted = [case for case in cases if lookup_found_nothing(case.command, case.exit_code, case.output)]
    with capsys.disabled():
        print(f"\nL4: {len(cases)} hostile receipts tried (seed {L4_SEED}, {len(corpus.HOSTILE_KINDS)} kinds), "
              f"{len(accepted)} accepted")
    assert len(cases) >= 10_000
    assert accepted == []
