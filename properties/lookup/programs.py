"""The real programs of seed 000 (dash, GNU grep and sed, git, ripgrep 13): where they are, and running them.

``missing()`` names the first program that is not installed as one line with
its Debian package (the verdict prints it and exits 2: a verdict without the
real programs would be no verdict). ``Workspace`` is one scratch folder per
monitor, made once and reused for every command it runs:

* ``work/``: a git repository holding the same files at its top and in every
  ``cd`` target of the generator, with a scratch ``home/`` beside it; the
  real runs (L2, L3) happen there under ``PATH=/usr/bin:/bin``.
* ``stubs/``: the folders the ``cd`` targets name, where the argv runs (L1)
  happen with every program replaced by a recording shell function.

The workspace lives in ``/dev/shm`` where it can (``scratch_parent``).

Running costs processes, so commands go in batches: one ``dash`` script runs
each command of the batch twice through ``dash -c`` (once with the
recorders, once for real), reading the commands from a file (never from the
environment, which the real programs would then see); a second script runs
the steps alone of the commands that exited 1. The files are snapshotted
before and after each script; when something changed, the batch's commands
are run again one at a time, each in a fresh workspace, to find which did it.

Choices where the tests left room:

* The argv recorders are shell functions, not stub executables: dash expands
  a command's words before it looks the name up, so a function receives the
  argv an executable would, and no process is started per program. Each call
  writes its own file, created with ``set -C`` (``O_EXCL``), so the members of
  a pipeline, which run at once, never share one. Anything not stubbed finds
  an empty ``PATH`` and fails the run.
* A snapshot keeps every path's kind, inode, mode, size, and modification and
  change times, never the content (the tests hashed it): the change time moves
  on every write, and no program can set it back, so a file rewritten with
  the same bytes counts as changed; a create and a delete by two commands of
  one batch still change their folder's times.
* Output is stdout and stderr merged, as OpenClaw merges them; it is only
  shown, never judged (L1-L3 judge argv, files and exit statuses).
"""

from __future__ import annotations

import os
import shlex
import shutil
import stat
import subprocess
import tempfile
import weakref
from pathlib import Path
from typing import Any, Sequence

import attrs

#: Program -> the Debian package that ships it.
PROGRAMS = {
    "dash": "dash", "grep": "grep", "egrep": "grep", "fgrep": "grep", "sed": "sed", "git": "git", "rg": "ripgrep",
    "which": "debianutils", "head": "coreutils", "tail": "coreutils", "cat": "coreutils", "wc": "coreutils",
    "sort": "coreutils", "uniq": "coreutils",
}
#: Where the real programs are looked up and run: fixed, so that a user's own ``grep`` never changes the
#: verdict; ``GUARD_LOOKUP_PATH`` points elsewhere (and lets a test take a program away).
PATH_VARIABLE = "GUARD_LOOKUP_PATH"
SYSTEM_PATH = "/usr/bin:/bin"
#: The names the recorders replace: every program above but dash, and dash's own echo and cd.
RECORDED = tuple(sorted(set(PROGRAMS) - {"dash"})) + ("echo", "cd")
#: The folders a generated or fixture ``cd`` may name; each holds the same files.
FOLDERS = ("", "src", "dir with space", "game", "my dir")
#: Seconds one batch may take, plus this much per command (the tests allow 30 s per command).
BATCH_SECONDS = 60.0
COMMAND_SECONDS = 5.0
#: Characters of a real run's output kept for the counterexample.
OUTPUT_KEPT = 2_000

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

RECORDERS = (
    '_record() { _n=0; set -C; until true 2>/dev/null >"$ARGV_LOG.$_n"; do _n=$((_n+1)); done; set +C; '
    'printf "%s\\0" "$@" >|"$ARGV_LOG.$_n"; }\n'
    + "".join(f'{name}() {{ _record {name} "$@"; }}\n' for name in RECORDED if name != "cd")
    + 'cd() { _record cd "$@"; command cd "$@"; }\n'
)


class ProgramsMissing(Exception):
    """A real program is not installed; the message is one line naming its Debian package."""


def search_path() -> str:
    return os.environ.get(PATH_VARIABLE) or SYSTEM_PATH


def missing() -> str:
    """One line naming the first program that is missing (and its Debian package), or "" when all are here."""
    path = search_path()
    for program, package in PROGRAMS.items():
        if shutil.which(program, path=path) is None:
            return f"lookup: {program} is not installed in {path} (apt-get install {package})"
    rg = shutil.which("rg", path=path)
    try:
        version = subprocess.run([str(rg), "--version"], capture_output=True, text=True, check=False, timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"lookup: {rg} --version failed: {error} (apt-get install ripgrep)"
    if not version.startswith("ripgrep 13."):
        first = (version.splitlines() or ["no version"])[0]
        return f"lookup: the seed targets ripgrep 13, found {first} (apt-get install ripgrep; Debian bookworm ships 13.0.0)"
    return ""


@attrs.frozen
class Observation:
    """What the real programs did with one command: dash's argv (L1), the files (L2), the exit statuses (L3)."""

    #: Every argv dash passed to a program, sorted: a pipeline's members run at once and record in no fixed
    #: order, so the list is kept (and compared) as a multiset; the argv run's exit status and what it printed.
    argv: tuple[tuple[str, ...], ...]
    argv_status: "int | None"
    argv_errors: str
    #: The real run: its exit status, its output (stdout and stderr merged, cut; a pipeline's members write
    #: at once, so its lines may come in another order on another run: shown, never judged), and the paths it
    #: created, changed or deleted (relative to the scratch folder).
    status: "int | None"
    output: str
    changed: tuple[str, ...] = ()
    #: The steps that can decide the status, each run alone (only when the real run exited 1): the joiner before
    #: it ("-" for the first one run), its text and its exit status (None: skipped after a failed ``&&`` step).
    alone: tuple[tuple[str, str, "int | None"], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"argv": [list(argv) for argv in self.argv], "argv_status": self.argv_status,
                "argv_errors": self.argv_errors, "status": self.status, "output": self.output,
                "changed": list(self.changed), "alone": [list(step) for step in self.alone]}


Snapshot = dict[str, tuple[Any, ...]]


def snapshot(*roots: Path) -> Snapshot:
    """Every path under the roots (the roots too), described by ``describe``."""
    seen: Snapshot = {}
    for root in roots:
        seen[str(root)] = describe(root)
        for directory, names, files in os.walk(root):
            for name in names + files:
                path = os.path.join(directory, name)
                seen[path] = describe(Path(path))
    return seen


def describe(path: Path) -> tuple[Any, ...]:
    """What a write, a create or a delete changes: the inode's change time moves on any of them (and on a
    mode or time reset, which a program cannot take back), the folder's on a create or delete inside it."""
    info = path.lstat()
    kind = "link" if stat.S_ISLNK(info.st_mode) else "dir" if stat.S_ISDIR(info.st_mode) else "file"
    return (kind, info.st_ino, info.st_mode, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


def differences(before: Snapshot, after: Snapshot, base: Path) -> tuple[str, ...]:
    """The paths created, changed or deleted, relative to ``base``."""
    names = sorted(name for name in set(before) | set(after) if before.get(name) != after.get(name))
    return tuple(os.path.relpath(name, base) for name in names)


def environment(home: Path) -> dict[str, str]:
    """The real runs' whole environment: nothing of the harness's leaks into the programs."""
    return {"PATH": search_path(), "HOME": str(home), "LC_ALL": "C.UTF-8", "GIT_CONFIG_NOSYSTEM": "1"}


@attrs.frozen
class Part:
    """One step of a command, as it is run alone: the joiner before it, its command line, and its argv."""

    joiner: str
    text: str
    pipeline: tuple[tuple[str, ...], ...]

    @property
    def bare_lookup(self) -> bool:
        """A lookup with no pipe after it (the only kind of step whose exit 1 means "found nothing")."""
        return len(self.pipeline) == 1 and bool(self.pipeline[0]) and self.pipeline[0][0] in LOOKUPS


#: The program names of a lookup step (``git`` for ``git grep``: the grammar allows no other git command).
LOOKUPS = frozenset({"grep", "egrep", "fgrep", "rg", "git", "which"})


def steps_alone(command: str) -> "list[Part] | None":
    """The steps of ``command`` that can decide its exit status, each as its own command line after the same
    ``cd``; the first one's joiner is ``"-"``.

    A step after ``;`` always runs, so the step that sets the status is one of those from the last ``;`` on;
    the steps before it are left out (with only ``;`` joiners that is the last step alone, as L3 says it).
    The steps are the classifier's own split (``guard.lookup.scan_steps``), as the tests split them; L1
    checks separately that its words are dash's. None when the classifier cannot split the command."""
    from guard.lookup import scan_steps

    scanned = scan_steps(command)
    if scanned is None:
        return None
    steps, joiners = scanned
    cd = None
    if steps and steps[0] and steps[0][0] and steps[0][0][0] == "cd":
        cd, steps, joiners = steps[0][0][1], steps[1:], joiners[1:]
    start = max((index + 1 for index, joiner in enumerate(joiners) if joiner == ";"), default=0)
    parts = []
    for index in range(start, len(steps)):
        pipeline = tuple(tuple(argv) for argv in steps[index])
        text = " | ".join(shlex.join(argv) for argv in pipeline)
        parts.append(Part("-" if index == start else joiners[index - 1],
                          text if cd is None else f"cd {shlex.quote(cd)} && {text}", pipeline))
    return parts


def scratch_parent() -> "str | None":
    """Where workspaces go: ``/dev/shm`` (memory) when it is a writable folder, else the system's temporary
    folder. A batch makes and removes hundreds of small files; on a disk mounted with ``discard`` each
    removal costs about a millisecond, more than the programs themselves."""
    shm = "/dev/shm"
    return shm if os.path.isdir(shm) and os.access(shm, os.W_OK | os.X_OK) else None


class Workspace:
    """A scratch folder for one monitor's real runs, made on first use and removed when the monitor goes."""

    def __init__(self) -> None:
        problem = missing()
        if problem:
            raise ProgramsMissing(problem)
        self.base = Path(tempfile.mkdtemp(prefix="lookup-real-", dir=scratch_parent()))
        self.finalizer = weakref.finalize(self, shutil.rmtree, str(self.base), True)
        self.work, self.home = self.base / "work", self.base / "home"
        self.stubs, self.runs = self.base / "stubs", self.base / "runs"
        self.empty = self.base / "empty-path"
        for folder in (self.stubs, self.empty):
            folder.mkdir()
        for name in FOLDERS:
            (self.stubs / name).mkdir(exist_ok=True)
        self.fresh()

    def close(self) -> None:
        self.finalizer()

    def fresh(self) -> None:
        """(Re)make the git repository and the scratch home the real runs use."""
        for folder in (self.work, self.home):
            shutil.rmtree(folder, ignore_errors=True)
        self.home.mkdir()
        for subfolder in FOLDERS:
            for name, text in FILE_CONTENTS.items():
                path = self.work / subfolder / name
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text)
        env = environment(self.home)
        for argv in (["git", "init", "-q"], ["git", "add", "-A"],
                     ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "fixture"]):
            subprocess.run(argv, cwd=self.work, env=env, check=True, capture_output=True, timeout=60)
        self.clean = snapshot(self.work, self.home)

    def observe(self, commands: Sequence[str]) -> list[Observation]:
        """Run every command (a batch) for its argv and for real, then the deciding steps alone of each that
        exited 1 (``steps_alone``)."""
        if not commands:
            return []
        runs = self.prepare()
        changed = self.run_script(self.script(runs, commands, "real", argv=True), runs, len(commands), "real")
        statuses = read_statuses(runs / "real-status", len(commands))
        argv_statuses = read_statuses(runs / "argv-status", len(commands))
        errors = read_sections(runs / "argv-errors", len(commands))
        alone: list[list[Part]] = [(steps_alone(command) or []) if status == 1 else []
                                   for command, status in zip(commands, statuses)]
        lines = [f"{part.joiner} {part.text}" for parts in alone for part in parts]
        if lines:
            changed = self.run_script(self.script(runs, lines, "alone", argv=False), runs, len(lines), "alone") or changed
        alone_statuses = read_statuses(runs / "alone-status", len(lines))
        blamed = self.blame(commands) if changed else {}
        if changed and not blamed:
            # Something changed a file, and no command did it again alone: never lose it, blame the batch.
            blamed = {index: ("(a file changed during this batch; no command changed one again when run alone)",)
                      for index in range(len(commands))}
        observations, cursor = [], 0
        for index, parts in enumerate(alone):
            mine = tuple((part.joiner, part.text, alone_statuses[cursor + offset]) for offset, part in enumerate(parts))
            cursor += len(parts)
            observations.append(Observation(
                argv=read_argvs(runs / "argv", index), argv_status=argv_statuses[index], argv_errors=errors[index],
                status=statuses[index], output=read_text(runs / f"out.{index}", OUTPUT_KEPT),
                changed=blamed.get(index, ()), alone=mine,
            ))
        return observations

    def prepare(self) -> Path:
        """An empty folder for one batch's records (the previous batch's are removed)."""
        shutil.rmtree(self.runs, ignore_errors=True)
        (self.runs / "argv").mkdir(parents=True)
        return self.runs

    def script(self, runs: Path, lines: Sequence[str], tag: str, *, argv: bool) -> str:
        """The dash script of one batch: each of ``lines`` through ``dash -c``, one ``i status`` line per run in
        ``<tag>-status``.

        With ``argv`` each line is a command, run first under the recorders (their files ``argv/<i>.<n>``, the
        run's status in ``argv-status``, its errors in ``argv-errors`` after a ``@@ <i>`` line), then for real
        (output in ``out.<i>``). Without, each line is a joiner and a step (``steps_alone``); a step after
        ``&&`` is skipped when the step before it failed, as dash would skip it. Few files, because creating
        and removing them costs more than the programs on a disk that discards on delete."""
        (runs / f"{tag}-lines").write_text("".join(line + "\n" for line in lines), encoding="utf-8",
                                           errors="surrogateescape")
        q = shlex.quote
        at = q(str(runs))
        dash = q(shutil.which("dash", path=search_path()) or "dash")
        body = [f"recorders={q(RECORDERS)}", "i=0", "s=0", "while IFS= read -r c; do"]
        if argv:
            body += [f"  cd {q(str(self.stubs))}",
                     f"  echo @@ $i >>{at}/argv-errors",
                     f'  ARGV_LOG={at}/argv/$i PATH={q(str(self.empty))} HOME={q(str(self.stubs))} '
                     f'{dash} -c "$recorders$c" </dev/null >/dev/null 2>>{at}/argv-errors',
                     f'  echo "$i $?" >>{at}/argv-status',
                     f"  cd {q(str(self.work))}",
                     f'  {dash} -c "$c" </dev/null >{at}/out.$i 2>&1']
        else:
            body += ['  j=${c%% *}; c=${c#* }',
                     '  if [ "$j" = "&&" ] && [ "$s" -ne 0 ]; then i=$((i+1)); continue; fi',
                     f"  cd {q(str(self.work))}",
                     f'  {dash} -c "$c" </dev/null >/dev/null 2>&1']
        body += [f'  s=$?; echo "$i $s" >>{at}/{tag}-status',
                 "  i=$((i+1))",
                 f"done <{at}/{tag}-lines", ""]
        return "\n".join(body)

    def run_script(self, script: str, runs: Path, count: int, tag: str) -> bool:
        """Run one batch script; whether any file of the scratch repository or home changed (then made anew)."""
        dash = shutil.which("dash", path=search_path()) or "dash"
        timeout = BATCH_SECONDS + COMMAND_SECONDS * count
        try:
            subprocess.run([dash, "-c", script], cwd=self.work, env=environment(self.home), stdin=subprocess.DEVNULL,
                           capture_output=True, timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            first = (read_text(runs / f"{tag}-lines", 200).splitlines() or [""])[0]
            raise RuntimeError(f"lookup: {count} commands did not finish within {timeout:.0f} s (first: {first!r})") from None
        if snapshot(self.work, self.home) == self.clean:
            return False
        self.fresh()
        return True

    def blame(self, commands: Sequence[str]) -> dict[int, tuple[str, ...]]:
        """Which commands of a batch changed a file: each run alone (and its steps) in a fresh workspace."""
        found: dict[int, tuple[str, ...]] = {}
        env = environment(self.home)
        dash = shutil.which("dash", path=search_path()) or "dash"
        for index, command in enumerate(commands):
            texts = [command] + [part.text for part in steps_alone(command) or []]
            for text in texts:
                subprocess.run([dash, "-c", text], cwd=self.work, env=env, stdin=subprocess.DEVNULL,
                               capture_output=True, timeout=BATCH_SECONDS, check=False)
            after = snapshot(self.work, self.home)
            if after != self.clean:
                found[index] = differences(self.clean, after, self.base)
                self.fresh()
        return found


def read_statuses(path: Path, count: int) -> "list[int | None]":
    """The ``i status`` lines a script wrote, by ``i``; None where there is none (a step dash skipped)."""
    found: "list[int | None]" = [None] * count
    try:
        text = path.read_text()
    except OSError:
        return found
    for line in text.splitlines():
        index, _, status = line.partition(" ")
        if index.isdigit() and int(index) < count and status.lstrip("-").isdigit():
            found[int(index)] = int(status)
    return found


def read_sections(path: Path, count: int) -> list[str]:
    """The text after each ``@@ <i>`` line of a file, by ``i`` (at most 300 characters each)."""
    found = [""] * count
    current = None
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return found
    for line in text.splitlines(keepends=True):
        head = line.split()
        if len(head) == 2 and head[0] == "@@" and head[1].isdigit() and int(head[1]) < count:
            current = int(head[1])
        elif current is not None and len(found[current]) < 300:
            found[current] += line
    return found


def read_text(path: Path, limit: int) -> str:
    try:
        with open(path, "rb") as handle:
            data = handle.read(limit + 1)
    except OSError:
        return ""
    text = data[:limit].decode("utf-8", "replace")
    return text + ("..." if len(data) > limit else "")


def read_argvs(folder: Path, index: int) -> tuple[tuple[str, ...], ...]:
    """The argv files the recorders wrote for command ``index`` (``<index>.<n>``), sorted."""
    prefix = f"{index}."
    try:
        names = [name for name in os.listdir(folder) if name.startswith(prefix) and name[len(prefix):].isdigit()]
    except OSError:
        return ()
    return tuple(sorted(tuple(part.decode("utf-8", "surrogateescape") for part in (folder / name).read_bytes().split(b"\0")[:-1])
                        for name in names))
