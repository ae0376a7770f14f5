"""Layer 1: ``mutmut run`` over ``guard/``, judged from mutmut's own result files.

mutmut exits 0 when mutants survive, so its exit status only tells us whether
the run itself worked (stats, clean run, forced failure). The verdicts come
from ``mutants/<path>.meta`` (``exit_code_by_key``), mapped with mutmut's own
table. ``mutants/`` is kept between runs (git ignores it): mutmut re-tests only
functions whose source changed, which makes a rerun after a one-function edit
cheap.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path
from typing import Any, Callable

import attrs

from mutations import content_cache, scratch
from mutations.equivalents import Equivalent
from properties import progress

MUTMUT_VERSION = "3.8.1"
SOURCE = "guard"
#: Folders mutmut copies beside the mutated sources (``also_copy`` in pyproject.toml, plus its own tests/).
COPIED = ("tests", "reference", "properties", "mutations")
KILLERS = "mutations-killers.tsv"

KILLED = "killed"
SURVIVED = "survived"
EQUIVALENT = "equivalent"
NO_TESTS = "no tests"
TIMEOUT = "timeout"
SUSPICIOUS = "suspicious"
NOT_CHECKED = "not checked"
TYPE_CHECK = "caught by type check"
SEGFAULT = "segfault"
SKIPPED = "skipped"
INTERRUPTED = "interrupted"

#: mutmut 3.8.1's exit code table (``mutmut/stats.py``); anything else is suspicious.
_STATUS_BY_CODE: dict[int | None, str] = {
    1: KILLED, 3: KILLED,
    0: SURVIVED,
    5: NO_TESTS, 33: NO_TESTS,
    36: TIMEOUT, 24: TIMEOUT, -24: TIMEOUT, 152: TIMEOUT, 255: TIMEOUT,
    37: TYPE_CHECK,
    -9: SEGFAULT, -11: SEGFAULT,
    34: SKIPPED,
    2: INTERRUPTED,
    None: NOT_CHECKED,
}

#: Issue 22: a kill by the per-test deadline, confirmed by re-running the killing test alone with a deadline
#: ``scratch.CONFIRM_FACTOR`` times larger: Stryker's ``Timeout``, reported apart from killed.
CONFIRMED_TIMEOUT = "timeout (confirmed)"

#: Verdicts that prove a test noticed the mutant; every other verdict fails the session.
DETECTED = frozenset({KILLED, TYPE_CHECK, CONFIRMED_TIMEOUT})


class MutmutSetupError(Exception):
    """mutmut is missing or the wrong version (user-caused: one line, exit 2)."""


def status_of(exit_code: int | None) -> str:
    return _STATUS_BY_CODE.get(exit_code, SUSPICIOUS)


@attrs.define
class Mutant:
    name: str
    path: str
    exit_code: int | None
    status: str
    diff: str = ""
    one_line: str = ""
    line: int = 1
    start_column: int = 1
    end_line: int = 1
    end_column: int = 1
    replacement: str = ""
    killer: str | None = None
    problem: str | None = None
    #: What judged it: mutmut's runner, or the review's stage 0 (``kill_near``), named in the Stryker report.
    judged_by: str = "mutmut"
    #: A listed equivalent's kill was re-run alone and failed again (``recheck_equivalent_kills``).
    kill_repeated: bool = False


@attrs.define
class MutmutResult:
    mutants: list[Mutant]
    run_ok: bool
    run_message: str
    wall_seconds: float
    tested_this_run: int
    mutmut_rate: str | None
    equivalent_problems: list[str]
    sources: dict[str, str]
    left_out_tests: list[str] = attrs.field(factory=list)
    #: Seconds per mutmut phase (``PHASES``) this run.
    phases: dict[str, float] = attrs.field(factory=dict)

    def count(self, status: str) -> int:
        return sum(1 for mutant in self.mutants if mutant.status == status)

    @property
    def offenders(self) -> list[Mutant]:
        return [mutant for mutant in self.mutants if mutant.status not in DETECTED and mutant.status != EQUIVALENT]

    @property
    def score(self) -> float:
        considered = [mutant for mutant in self.mutants if mutant.status != EQUIVALENT]
        if not considered:
            return 0.0
        return 100.0 * sum(1 for mutant in considered if mutant.status in DETECTED) / len(considered)

    @property
    def failures(self) -> list[str]:
        reasons = []
        if not self.run_ok:
            reasons.append(f"mutmut run failed: {self.run_message}")
        if self.run_ok and not any(mutant.status == KILLED for mutant in self.mutants):
            reasons.append("mutmut killed nothing")
        for mutant in self.offenders:
            reasons.append(f"{mutant.status}: {mutant.name}: {mutant.one_line}")
        reasons.extend(self.equivalent_problems)
        return reasons


def check_mutmut() -> None:
    try:
        version = metadata.version("mutmut")
    except metadata.PackageNotFoundError:
        raise MutmutSetupError(f"mutmut is not installed: pip install mutmut=={MUTMUT_VERSION}") from None
    if version != MUTMUT_VERSION:
        raise MutmutSetupError(f"mutmut {version} is installed, the project pins {MUTMUT_VERSION}: pip install mutmut=={MUTMUT_VERSION}")


def source_files(root: Path) -> list[Path]:
    return sorted(path.relative_to(root) for path in (root / SOURCE).rglob("*.py") if "__pycache__" not in path.parts)


def _sync_copies(root: Path) -> None:
    """Drop files from ``mutants/`` whose originals are gone, so deleted tests or modules cannot linger there.

    mutmut copies ``tests/`` and ``also_copy`` over the old copy without deleting
    anything, and never re-copies a source file that vanished.
    """
    mutants = root / "mutants"
    if not mutants.is_dir():
        return
    for folder in (*COPIED, SOURCE):
        copy = mutants / folder
        if not copy.is_dir():
            continue
        for path in sorted(copy.rglob("*"), reverse=True):
            if "__pycache__" in path.parts:
                continue
            original = root / path.relative_to(mutants)
            if path.is_file() and path.suffix in (".meta", ".spans"):
                original = original.with_suffix("")
            if path.is_file() and not original.exists():
                path.unlink()


TEST_KEYS = "mutations-test-keys.json"
_HARNESS = ("properties", "reference")


def test_keys(root: Path) -> dict[str, str]:
    """One key per test file: its text, conftest.py, and the harness packages it imports (properties/, reference/).

    mutmut re-tests a mutant only when the mutated function changes; it never
    notices an edited test. These keys let the session notice instead.
    """
    harness = {package: content_cache.tree_digest(root, [package], (".py",)) for package in _HARNESS}
    conftest = root / "tests" / "conftest.py"
    shared = conftest.read_bytes() if conftest.is_file() else b""
    keys = {}
    for path in content_cache.files_under(root, ["tests"], (".py",)):
        text = path.read_bytes()
        imported = [harness[package] for package in _HARNESS
                    if re.search(rb"^\s*(from|import)\s+" + package.encode() + rb"\b", text, re.MULTILINE)]
        keys[path.relative_to(root).as_posix()] = content_cache.key(text, shared, *imported)
    return keys


def _invalidate_for_test_changes(root: Path) -> int:
    """Reset cached verdicts that an edited, added or removed test file could change; returns how many.

    Every verdict other than killed is re-tested when any test file changed (a
    new test may kill it); a kill is re-tested when the file of the test that
    killed it changed or is gone, or when its killer is unknown.
    """
    stored = content_cache.Cache.load(root / "mutants" / TEST_KEYS)
    if not stored.found:
        return 0
    previous = stored.stored_keys()
    current = test_keys(root)
    changed = {name for name in previous.keys() | current.keys() if previous.get(name) != current.get(name)}
    if not changed:
        return 0
    killers = _killers(root)
    reset = 0
    for path in source_files(root):
        meta_path = root / "mutants" / f"{path}.meta"
        meta = _load_meta(root, path)
        codes = meta.get("exit_code_by_key", {})
        dirty = False
        for key, code in codes.items():
            if code is None:
                continue
            killer = killers.get(key)
            killer_file = killer.split("::", 1)[0] if killer else None
            if status_of(code) not in DETECTED or killer_file is None or killer_file in changed:
                codes[key] = None
                dirty = True
                reset += 1
        if dirty:
            meta_path.write_text(json.dumps(meta, indent=4), encoding="utf-8")
    return reset


def _store_test_keys(root: Path) -> None:
    keys = content_cache.Cache(root / "mutants" / TEST_KEYS)
    for name, current in test_keys(root).items():
        keys.keep(name, current)
    keys.save()


def _snapshot(root: Path) -> dict[str, tuple]:
    seen: dict[str, tuple] = {}
    for path in source_files(root):
        meta = _load_meta(root, path)
        for key, code in meta.get("exit_code_by_key", {}).items():
            seen[key] = (code, meta.get("durations_by_key", {}).get(key))
    return seen


def _load_meta(root: Path, path: Path) -> dict:
    meta = root / "mutants" / f"{path}.meta"
    try:
        return json.loads(meta.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


#: mutmut's phases, as its spinner titles them, in the order it runs them.
#: mutmut's status line during mutation testing starts with "done/total" (after its spinner).
MUTANTS_DONE = re.compile(r"^\S\s+(\d+)/(\d+)\b")
#: The live progress line of this layer (``properties.progress``).
LABEL = "layer 1: mutmut"

PHASES = (
    ("Generating mutants", "generate"), ("Running stats", "stats"), ("Listing all tests", "list tests"),
    ("Running clean tests", "clean run"), ("Running forced fail test", "forced fail"),
    ("Running mutation testing", "mutants"),
)


def phase_seconds(marks: list[tuple[str, float]], end: float) -> dict[str, float]:
    """Seconds per phase from the moments each phase's title first showed (a phase ends when the next starts)."""
    out: dict[str, float] = {}
    for (name, at), (_next, until) in zip(marks, [*marks[1:], ("end", end)]):
        out[name] = out.get(name, 0.0) + (until - at)
    return out


GENERATE = """
import os, sys
from mutmut.__main__ import copy_also_copy_files, copy_src_dir, create_mutants, setup_source_paths, store_lines_covered_by_tests
from mutmut.mutation.trampoline import set_mutant_under_test
set_mutant_under_test("mutant_generation")
os.makedirs("mutants", exist_ok=True)
copy_src_dir()
copy_also_copy_files()
setup_source_paths()
store_lines_covered_by_tests()
stats = create_mutants(int(sys.argv[1]))
print(f"generated: {stats.mutated} files mutated, {stats.unmodified} unmodified")
"""


def generate(root: Path, jobs: int) -> tuple[int, str]:
    """mutmut's own mutant generation alone (the first step of ``mutmut run``): fresh mutants for changed
    functions, verdicts kept for the others (mutmut compares each function's hash)."""
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    done = subprocess.run([sys.executable, "-c", GENERATE, str(jobs)], cwd=root, env=env, capture_output=True, text=True,
                          errors="replace")
    return done.returncode, done.stdout + done.stderr


def pending_mutants(root: Path) -> list[str]:
    """Mutants with no verdict: new, in a changed function, or reset because a test changed."""
    return [key for path in source_files(root) for key, code in _load_meta(root, path).get("exit_code_by_key", {}).items()
            if code is None]


def _run_mutmut(root: Path, jobs: int, log: Path, names: list[str] | None = None) -> tuple[int, str, dict[str, float]]:
    env = dict(os.environ)
    # The checkout must not shadow mutants/: mutmut puts mutants/ first on sys.path, PYTHONPATH would come before.
    env.pop("PYTHONPATH", None)
    env["MUTATIONS_KILLERS_FILE"] = str(root / "mutants" / KILLERS)
    env.setdefault("PYTHONHASHSEED", "0")
    command = [sys.executable, "-c", "import sys; from mutmut.__main__ import cli; sys.argv[0] = 'mutmut'; cli()",
               "run", "--max-children", str(jobs), *(names or ())]
    marks: list[tuple[str, float]] = []
    (root / "mutants").mkdir(exist_ok=True)
    output: list[str] = []
    last_status, last_shown = "", 0.0
    with subprocess.Popen(command, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          errors="replace", bufsize=1) as process:
        assert process.stdout is not None
        for line in process.stdout:
            output.append(line)
            # mutmut redraws a status line with carriage returns; keep the console readable.
            shown = line.rsplit("\r", 1)[-1].strip()
            if not shown:
                continue
            for title, phase in PHASES:
                if title in shown and (not marks or marks[-1][0] != phase):
                    marks.append((phase, time.monotonic()))
                    progress.update(LABEL, phase=f"phase: {phase}", force=True)
            if "\u2800" <= shown[0] <= "\u28ff":
                # A spinner redraw: show progress every few seconds, not every redraw.
                last_status = shown
                counted = MUTANTS_DONE.search(shown)
                if counted:
                    progress.update(LABEL, done=int(counted[1]), total=int(counted[2]), unit="mutants", eta=True)
                if time.monotonic() - last_shown < 5.0:
                    continue
                last_shown = time.monotonic()
            sys.stdout.write(f"  mutmut| {shown}\n")
            sys.stdout.flush()
    if last_status:
        sys.stdout.write(f"  mutmut| {last_status}\n")
    text = "".join(output)
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text(text, encoding="utf-8")
    return process.returncode, text, phase_seconds(marks, time.monotonic())


def _killers(root: Path) -> dict[str, str]:
    """The latest first failure recorded for each mutant; the file is compacted to one line per mutant."""
    path = root / "mutants" / KILLERS
    if not path.is_file():
        return {}
    latest: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        key, _, nodeid = line.partition("\t")
        if "__mutmut_" in key and nodeid:
            latest.pop(key, None)
            latest[key] = nodeid
    path.write_text("".join(f"{key}\t{nodeid}\n" for key, nodeid in latest.items()), encoding="utf-8")
    return latest


def _function_lines(source: str) -> dict[tuple[str | None, str], tuple[int, int]]:
    """(class or None, function) -> (def line, end line) for top-level functions and methods."""
    found: dict[tuple[str | None, str], tuple[int, int]] = {}
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found[(None, node.name)] = (node.lineno, node.end_lineno or node.lineno)
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    found[(node.name, item.name)] = (item.lineno, item.end_lineno or item.lineno)
    return found


def _wordy(text: str) -> bool:
    return bool(text) and (text.isalnum() or text == "_")


_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@")


def one_line(diff: str) -> str:
    """`old` -> `new`: the lines a mutant's diff changes, whitespace squeezed onto one line.

    How ``equivalents.toml`` and ``verdict_unreached.toml`` record a mutant's change beside its name: mutmut numbers
    a function's mutants in order, so an edit to the function renumbers them, and only the change itself tells a
    listed mutant from the one that took its number."""
    removed = [line[1:] for line in diff.splitlines() if line.startswith("-") and not line.startswith("---")]
    added = [line[1:] for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++")]
    old, new = " ".join("\n".join(removed).split()), " ".join("\n".join(added).split())
    return f"`{old}` -> `{new or '(removed)'}`"


def _describe(mutant: Mutant, source_lines: list[str], function: tuple[int, int] | None, orig_code: str) -> None:
    """Fill the one-line diff, the replacement and the location of ``mutant`` in the original file."""
    removed: list[tuple[int, str]] = []
    added: list[str] = []
    old_line = 0
    for line in mutant.diff.splitlines():
        hunk = _HUNK.match(line)
        if hunk:
            old_line = int(hunk.group(1))
            continue
        if line.startswith(("---", "+++")):
            continue
        if line.startswith("-"):
            removed.append((old_line, line[1:]))
            old_line += 1
        elif line.startswith("+"):
            added.append(line[1:])
        elif line.startswith(" "):
            old_line += 1
    mutant.one_line = one_line(mutant.diff)
    new_text = "\n".join(added)
    if function is None or not removed:
        mutant.line = mutant.end_line = function[0] if function else 1
        mutant.replacement = new_text.strip()
        return
    code_lines = orig_code.splitlines()
    def_index = next((i for i, text in enumerate(code_lines) if re.match(r"\s*(async\s+)?def\s", text)), 0)
    first_relative, first_text = removed[0]
    at = function[0] + (first_relative - 1 - def_index)
    if not (0 < at <= len(source_lines)) or source_lines[at - 1].strip() != first_text.strip():
        # The index and the file disagree (comments above the def, say): find the text inside the function.
        candidates = [n for n in range(function[0], function[1] + 1) if source_lines[n - 1].strip() == first_text.strip()]
        at = candidates[0] if candidates else function[0]
    file_text = source_lines[at - 1]
    indent = (len(file_text) - len(file_text.lstrip())) - (len(first_text) - len(first_text.lstrip()))
    if len(removed) == 1 and len(added) == 1:
        old, new = first_text, added[0]
        prefix = 0
        while prefix < min(len(old), len(new)) and old[prefix] == new[prefix]:
            prefix += 1
        suffix = 0
        while suffix < min(len(old), len(new)) - prefix and old[-1 - suffix] == new[-1 - suffix]:
            suffix += 1
        # Widen to whole words, so `True` -> `None` reports the word, not the letters that differ.
        while prefix > 0 and _wordy(old[prefix - 1]) and (_wordy(old[prefix:prefix + 1]) or _wordy(new[prefix:prefix + 1])):
            prefix -= 1
        while suffix > 0 and _wordy(old[len(old) - suffix]) and (
            _wordy(old[len(old) - suffix - 1:len(old) - suffix]) or _wordy(new[len(new) - suffix - 1:len(new) - suffix])
        ):
            suffix -= 1
        mutant.line = mutant.end_line = at
        mutant.start_column = prefix + indent + 1
        mutant.end_column = len(old) - suffix + indent + 1
        mutant.replacement = new[prefix:len(new) - suffix]
        return
    mutant.line = at
    mutant.end_line = min(at + len(removed) - 1, len(source_lines))
    mutant.start_column = len(file_text) - len(file_text.lstrip()) + 1
    mutant.end_column = len(source_lines[mutant.end_line - 1]) + 1
    mutant.replacement = new_text.strip()


#: Each mutant's diff, under the text of the two functions it was made from (``write_diffs``).
DIFF_CACHE = "diff-cache.json"


def _function_texts(path: str, name: str, spans: dict, lines: dict) -> str | None:
    """The unmutated copy and the mutant of ``name``'s function, as text read off mutmut's line index (no parsing).

    Read with mutmut's own ``MutantLineSpans`` (relative to the working folder: ``write_diffs`` runs in the
    project), once per file. None when the index is missing or does not name both (mutmut then parses the
    file, and nothing is cached).
    """
    from mutmut.mutation.data import MutantLineSpans
    from mutmut.mutation.diff_apply import generated_function_names

    if path not in spans:
        index = MutantLineSpans.load(path)
        spans[path] = index.span_by_function_name if index is not None else None
        if index is not None:
            try:
                lines[path] = index.mutants_path.read_text(encoding="utf-8").splitlines(keepends=True)
            except OSError:
                spans[path] = None
    found = spans[path]
    if not found:
        return None
    texts = []
    for function in generated_function_names(name):
        span = found.get(function)
        if span is None:
            return None
        texts.append("".join(lines[path][span.start - 1:span.end]))
    return "\0".join([path, *texts])


def write_diffs(root: Path, mutants: list[Mutant], sources: dict[str, str]) -> None:
    """Diffs come from mutmut's own code (what ``mutmut show NAME`` prints), read in this process for speed.

    Reading one costs four libcst parses (14 s for 1,863 mutants, every run).
    A mutant's diff is a function of the text of its two functions (the
    unmutated copy and the mutant, which carries the mutant's name) and the
    path, so each is kept in ``mutants/diff-cache.json`` under the hash of
    that text, read off mutmut's line index without parsing; a rerun parses
    only the mutants whose functions changed.
    """
    previous = Path.cwd()
    os.chdir(root)
    cache = content_cache.Cache.load(root / "mutants" / DIFF_CACHE)
    try:
        import libcst
        from mutmut.mutation.diff_apply import get_diff_for_mutant, read_functions_from_index
        from mutmut.utils.format_utils import orig_function_and_class_names_from_key

        functions_by_path = {path: _function_lines(text) for path, text in sources.items()}
        spans: dict[str, Any] = {}
        lines: dict[str, list[str]] = {}
        for mutant in mutants:
            texts = _function_texts(mutant.path, mutant.name, spans, lines)
            key = content_cache.key(texts) if texts is not None else None
            hit = cache.get(mutant.name, key) if key is not None else None
            if hit is not None and isinstance(hit.get("diff"), str) and isinstance(hit.get("orig"), str):
                mutant.diff, orig_code = hit["diff"], hit["orig"]
            else:
                try:
                    mutant.diff = get_diff_for_mutant(mutant.name, path=mutant.path)
                    pair = read_functions_from_index(mutant.name, mutant.path)
                    orig_code = libcst.Module([pair[0]]).code.strip() if pair else ""
                except Exception as error:  # a stale or unreadable mutant must show up, not crash the report
                    mutant.diff = f"(no diff: {type(error).__name__}: {error})"
                    mutant.one_line = mutant.diff
                    continue
            if key is not None:
                cache.keep(mutant.name, key, {"diff": mutant.diff, "orig": orig_code})
            function_name, class_name = orig_function_and_class_names_from_key(mutant.name)
            function = functions_by_path.get(mutant.path, {}).get((class_name, function_name.rpartition(".")[2]))
            _describe(mutant, sources[mutant.path].splitlines(), function, orig_code)
    finally:
        os.chdir(previous)
    try:
        cache.save()
    except OSError:
        pass  # only a saving: the next run reads the diffs from mutmut again


def judge_equivalents(mutants: list[Mutant], listed: list[Equivalent]) -> list[str]:
    """Mark each listed equivalent that survived ``EQUIVALENT``; return one problem per listing that no longer
    holds (the mutant is gone, its diff changed, or a test kills it), each failing the session."""
    problems = []
    by_name = {mutant.name: mutant for mutant in mutants}
    for entry in listed:
        mutant = by_name.get(entry.name)
        if mutant is None:
            problems.append(f"listed equivalent is gone: {entry.name} ({entry.diff}); remove it from mutations/equivalents.toml")
            continue
        if mutant.one_line != entry.diff:
            mutant.problem = f"listed as equivalent with diff {entry.diff}, but the mutant is now {mutant.one_line}"
            problems.append(f"listed equivalent changed: {entry.name}: listed {entry.diff}, now {mutant.one_line}")
            continue
        if mutant.status == SURVIVED:
            mutant.status = EQUIVALENT
        elif mutant.status in DETECTED:
            by = f" by {mutant.killer}" if mutant.killer else f" (mutmut exit {mutant.exit_code}, no failing test recorded)"
            again = ", again when re-run alone" if mutant.kill_repeated else ""
            mutant.problem = f"listed as equivalent but a test now kills it{by}{again}"
            problems.append(f"listed equivalent is now killed{by}{again}: {entry.name} ({entry.diff}); "
                            "remove it from mutations/equivalents.toml")
    return problems


def run(root: Path, jobs: int, equivalents: list[Equivalent], reports: Path,
        select: "Callable[[str], bool] | None" = None) -> MutmutResult:
    """mutmut over guard/; with ``select`` (the review, ``mutations.review``), only the mutants whose names it
    accepts are tested and reported: mutmut generates every mutant, then is handed just those names."""
    check_mutmut()
    _sync_copies(root)
    reset = _invalidate_for_test_changes(root)
    if reset:
        print(f"  mutations| tests changed since the last run: {reset} cached verdicts will be re-tested", flush=True)
    before = _snapshot(root)
    started = time.monotonic()
    phases: dict[str, float] = {}
    if select is not None:
        code, output = generate(root, jobs)
        phases["generate"] = time.monotonic() - started
        chosen = sorted(key for path in source_files(root) for key in _load_meta(root, path).get("exit_code_by_key", {})
                        if select(key)) if code == 0 else []
        print(f"  mutations| {len(chosen)} mutants in the changed functions: mutmut tests those", flush=True)
        if chosen:
            code, more, named = _run_mutmut(root, jobs, reports / "mutmut-run.log", chosen)
            output += more
            phases.update(named)
    elif not (root / "mutants" / "mutmut-stats.json").is_file():
        # A fresh run: mutmut does everything (generation, stats over every test, a clean run of all of them).
        code, output, phases = _run_mutmut(root, jobs, reports / "mutmut-run.log")
    else:
        # A rerun: generate first, then hand mutmut exactly the mutants without a verdict. Named, mutmut's
        # clean run covers only their tests, not the whole suite; with none, mutmut has nothing to do.
        code, output = generate(root, jobs)
        phases["generate"] = time.monotonic() - started
        pending = pending_mutants(root) if code == 0 else []
        if code == 0 and pending:
            print(f"  mutations| {len(pending)} mutants without a verdict (new, changed or reset): mutmut tests those", flush=True)
            code, more, named = _run_mutmut(root, jobs, reports / "mutmut-run.log", pending)
            output += more
            phases.update({name: phases.get(name, 0.0) + seconds for name, seconds in named.items()})
        elif code == 0:
            print("  mutations| every mutant has its verdict and no test changed: mutmut has nothing to re-test", flush=True)
            (reports / "mutmut-run.log").write_text(output, encoding="utf-8")
    if code == 0:
        _store_test_keys(root)
    wall = time.monotonic() - started
    rate = re.findall(r"([0-9.]+) mutations/second", output)
    run_ok = code == 0
    message = "ok" if run_ok else _failure_message(code, output)
    sources = {str(path): (root / path).read_text(encoding="utf-8") for path in source_files(root)}
    killers = _killers(root)
    mutants: list[Mutant] = []
    tested = 0
    for path in source_files(root):
        meta = _load_meta(root, path)
        durations = meta.get("durations_by_key", {})
        for key, exit_code in meta.get("exit_code_by_key", {}).items():
            if select is not None and not select(key):
                continue
            status = status_of(exit_code)
            mutants.append(Mutant(name=key, path=str(path), exit_code=exit_code, status=status,
                                  killer=killers.get(key) if status == KILLED else None))
            if key not in before or before[key] != (exit_code, durations.get(key)):
                tested += 1
    confirm_hangs(root, mutants)
    write_diffs(root, mutants, sources)
    listed = [e for e in equivalents if select is None or select(e.name)]
    recheck_equivalent_kills(root, mutants, listed)
    problems = judge_equivalents(mutants, listed)
    return MutmutResult(mutants=mutants, run_ok=run_ok, run_message=message, wall_seconds=wall, tested_this_run=tested,
                        mutmut_rate=rate[-1] if rate else None, equivalent_problems=problems, sources=sources,
                        left_out_tests=_left_out_tests(root), phases=phases)


#: One mutant's own pytest run over the nearby tests (``kill_near``) that lasts longer than this is not a kill:
#: that mutant and every later one go on to mutmut, whose per-test deadlines judge hangs.
NEAR_TIMEOUT = 600.0


def _serial_order(name: str) -> tuple[str, int]:
    stem, _, serial = name.rpartition("__mutmut_")
    return stem, int(serial) if serial.isdigit() else 0


def mutmut_pytest_args(root: Path) -> list[str]:
    """``[tool.mutmut] pytest_add_cli_args`` of ``root``'s ``pyproject.toml``: the options mutmut gives each pytest
    run (the ignored files, the left-out marker, this package's plugin); [] when there are none."""
    import tomllib

    try:
        args = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mutmut"]["pytest_add_cli_args"]
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        return []
    return [str(arg) for arg in args] if isinstance(args, list) else []


def _pytest_in_mutants(root: Path, args: list[str], label: str, tests: list[str], killers: Path,
                       priority: Path | None, stop_at_first: bool, timeout: float, log: Path) -> int | None:
    """pytest with mutmut's options ``args`` in mutmut's ``mutants/`` copy of ``root`` with ``label`` as
    ``MUTANT_UNDER_TEST`` ("" for none), the failures recorded in ``killers`` and its output written to ``log``;
    its exit status, None when it ran past ``timeout``."""
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)  # mutants/ must come first on sys.path, as under mutmut
    env.update(MUTANT_UNDER_TEST=label, MUTATIONS_KILLERS_FILE=str(killers), PYTHONHASHSEED="0",
               # No timings: no per-test deadline (a kill here is a failure, never a slow test).
               MUTATIONS_DURATIONS=str(killers.with_suffix(".no-durations")))
    env.pop("MUTATIONS_PRIORITY", None)
    if priority is not None:
        env["MUTATIONS_PRIORITY"] = str(priority)
    command = [sys.executable, "-m", "pytest", *(("-x",) if stop_at_first else ()), "--tb=short",
               *args, *tests]
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("wb") as output:
        try:
            return subprocess.run(command, cwd=root / "mutants", env=env, stdout=output, stderr=subprocess.STDOUT,
                                  timeout=timeout).returncode
        except subprocess.TimeoutExpired:
            return None


def kill_near(root: Path, jobs: int, select: Callable[[str], bool], tests: list[str], reports: Path,
              timeout: float = NEAR_TIMEOUT) -> MutmutResult:
    """The review's cheapest stage (``mutations.review.mutate_changed``): each mutant ``select`` accepts, tested by
    one pytest run over ``tests`` (the nearby test files, in the order given) in mutmut's ``mutants/`` copy,
    stopping at the first failure, without mutmut's statistics.

    mutmut's statistics run every test once to learn which reach each function; for a change to one function that
    is most of the review's mutation time, while a mutant of that function usually fails one of the first tests
    that reach it. So here a kill is direct evidence instead: a test failed with the mutant active (mutmut's own
    trampolines, chosen by ``MUTANT_UNDER_TEST``), and that same test, run again with no mutant active, passes.
    Tests that killed earlier mutants run first for later ones (``MUTATIONS_PRIORITY``). A mutant that passes
    every test given is ``survived`` (of these tests only: the caller has the whole suite judge it). Such a
    run costs every test, about what mutmut's statistics over them cost, so only the first is taken: the stage
    stops at its next mutant that it does not kill (a second that passes, one that ran past ``timeout`` or
    failed in collection); that mutant and every later one are left ``not checked``, for mutmut to test exactly
    as before, and so is a mutant whose killer fails without a mutant too. A kill here is therefore never
    weaker than mutmut's: only the cost of finding it changes.

    Each run is forked from one collection of ``tests`` (the catalogue's warm server, ``mutations.warm``, given
    only these files and mutmut's options: pytest's start-up and the files' collection are paid once, not once
    per mutant, as mutmut runs its own mutants), or run cold when that collection fails or its server stops
    answering. A fork inherits what the test modules computed when they were imported with no mutant active
    (mutmut's own forks do too); that can hide a kill, never make one, since each killer is run again with no
    mutant and a mutant this stage does not kill goes on to mutmut.

    Returns every selected mutant, killed (with its killer), survived or not checked, with mutmut's diffs; each
    mutant's pytest output is kept in ``reports/logs/``."""
    check_mutmut()
    _sync_copies(root)
    started = time.monotonic()
    code, output = generate(root, jobs)
    phases = {"generate": time.monotonic() - started}
    reports.mkdir(parents=True, exist_ok=True)
    (reports / "generate.log").write_text(output, encoding="utf-8")
    sources = {str(path): (root / path).read_text(encoding="utf-8") for path in source_files(root)}
    if code != 0:
        return MutmutResult(mutants=[], run_ok=False, run_message=_failure_message(code, output),
                            wall_seconds=time.monotonic() - started, tested_this_run=0, mutmut_rate=None,
                            equivalent_problems=[], sources=sources, left_out_tests=_left_out_tests(root), phases=phases)
    path_of = {key: str(path) for path in source_files(root) for key in _load_meta(root, path).get("exit_code_by_key", {})}
    chosen = sorted((key for key in path_of if select(key)), key=_serial_order)
    args = mutmut_pytest_args(root)
    # Every run of this stage forks from one collection of ``tests`` (the catalogue's warm server,
    # ``mutations.warm``, narrowed to these files and mutmut's options), or runs cold when that server cannot
    # collect them or stops answering: the same pytest either way.
    from mutations import warm
    from properties.paths import shared_dir

    step = time.monotonic()
    server: warm.Server | None = None
    try:
        server = warm.Server(root / "mutants", None, startup_timeout=timeout, shared=shared_dir(),
                             collect={"args": args, "tests": tests})
    except (warm.ServerError, OSError) as error:
        print(f"  mutations| stage 0: no warm collection ({error}): one cold pytest per mutant", flush=True)
    phases["one collection, forked per run"] = time.monotonic() - step
    folders = reports / "warm"

    def pytest_in_mutants(label: str, run_tests: list[str], record: Path, priority: Path | None, stop_at_first: bool,
                          log: Path) -> int | None:
        nonlocal server
        if server is not None:
            folder = folders / (label or "no-mutant")
            folder.mkdir(parents=True, exist_ok=True)
            first = [line for line in priority.read_text(encoding="utf-8").splitlines() if line] \
                if priority is not None and priority.is_file() else []
            try:
                outcome = server.judge("pytest", label, folder, 0, timeout, priority=first, tests=run_tests, args=args,
                                       stop_at_first=stop_at_first, log=log,
                                       durations=record.with_suffix(".no-durations"))
            except warm.ServerError as error:
                outcome = {"crashed": str(error)}
            if outcome.get("timed_out"):
                return None
            if "crashed" not in outcome and "exit_code" in outcome:
                # The child's failures, in the plugin's own record format, where the cold run would leave them.
                record.write_text("".join(f"{label}\t{test}\n" for test in outcome.get("failures", [])),
                                  encoding="utf-8")
                code = outcome["exit_code"]
                return code if code is None or type(code) is int else None
            print(f"  mutations| stage 0: the warm server failed ({outcome.get('crashed', outcome)}): cold pytest "
                  "from here", flush=True)
            server.close()
            server = None
        return _pytest_in_mutants(root, args, label, run_tests, record, priority, stop_at_first, timeout, log)

    try:
        return _kill_near_runs(root, chosen, path_of, tests, reports, timeout, started, phases, sources,
                               pytest_in_mutants)
    finally:
        if server is not None:
            server.close()


def _kill_near_runs(root: Path, chosen: list[str], path_of: dict[str, str], tests: list[str], reports: Path,
                    timeout: float, started: float, phases: dict[str, float], sources: dict[str, str],
                    pytest_in_mutants: Callable[[str, list[str], Path, Path | None, bool, Path], int | None]
                    ) -> MutmutResult:
    """``kill_near``'s runs: each chosen mutant, then the killers again with no mutant (see ``kill_near``)."""
    killers: dict[str, str] = {}
    priority = reports / "near-priority.txt"
    priority.write_text("", encoding="utf-8")
    step = time.monotonic()
    passed: list[str] = []
    for number, name in enumerate(chosen, 1):
        record = reports / "near-failures.tsv"
        record.unlink(missing_ok=True)
        exit_code = pytest_in_mutants(name, tests, record, priority, True, reports / "logs" / f"{name}.log")
        failed = [line.partition("\t")[2] for line in record.read_text(encoding="utf-8").splitlines()] \
            if record.is_file() else []
        first = failed[0] if failed else ""
        if exit_code == 0 and not passed:
            # One mutant that passes every nearby test is a survivor of them (mutmut's run over them would say the
            # same): it goes straight to the whole suite. A second one ends the stage (see the docstring).
            passed.append(name)
            print(f"  mutations| {name} passed every nearby test: the whole suite judges it", flush=True)
            continue
        if exit_code != 1 or not first or first.startswith("collection error"):
            why = {0: "passed every nearby test too", None: f"ran past {timeout:.0f} s"}.get(exit_code,
                                                                                            f"pytest exit {exit_code}")
            print(f"  mutations| {name} {why}: it and {len(chosen) - number} later mutants go on to mutmut", flush=True)
            break
        if first not in killers.values():
            with priority.open("a", encoding="utf-8") as handle:
                handle.write(first + "\n")
        killers[name] = first
        progress.update(LABEL, done=number, total=len(chosen), unit="mutants", phase="phase: stage 0, one pytest per mutant")
    phases["mutants"] = time.monotonic() - step
    step = time.monotonic()
    distinct = sorted(set(killers.values()))
    if distinct:
        # Each killer once more with no mutant active: a test that fails anyway proves nothing about a mutant.
        record = reports / "near-clean-failures.tsv"
        record.unlink(missing_ok=True)
        pytest_in_mutants("", distinct, record, None, False, reports / "logs" / "killers-without-a-mutant.log")
        red = set(scratch.read_failures(record))
        if red:
            print(f"  mutations| {len(red)} killers fail without a mutant too ({', '.join(sorted(red)[:3])}): "
                  "their mutants go on to mutmut", flush=True)
            killers = {name: test for name, test in killers.items() if test not in red}
    phases["killers again without a mutant"] = time.monotonic() - step
    def verdict(name: str) -> tuple[int | None, str]:
        return (1, KILLED) if name in killers else (0, SURVIVED) if name in passed else (None, NOT_CHECKED)

    mutants = [Mutant(name=name, path=path_of[name], exit_code=verdict(name)[0], status=verdict(name)[1],
                      killer=killers.get(name), judged_by="review stage 0 (one pytest run over the nearby tests)")
               for name in chosen]
    write_diffs(root, mutants, sources)
    return MutmutResult(mutants=mutants, run_ok=True, run_message="ok", wall_seconds=time.monotonic() - started,
                        tested_this_run=len(killers) + len(passed), mutmut_rate=None, equivalent_problems=[], sources=sources,
                        left_out_tests=_left_out_tests(root), phases=phases)


#: The line of ``[tool.mutmut]`` that names the tests mutmut's statistics run (``restrict_tests`` rewrites it).
_SELECTION = re.compile(r"^pytest_add_cli_args_test_selection\s*=.*$", re.MULTILINE)


def restrict_tests(root: Path, tests: list[str]) -> str:
    """Make mutmut on the scratch copy ``root`` run only ``tests`` (paths relative to it): its statistics, clean run
    and mutants then see no other test. Rewrites ``[tool.mutmut] pytest_add_cli_args_test_selection`` in the copy's
    ``pyproject.toml`` and reads it back; "" when done, else why not (nothing was changed then)."""
    import tomllib

    path = root / "pyproject.toml"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        return f"{path}: {error.strerror}"
    if len(_SELECTION.findall(text)) != 1:
        return f"{path}: no single pytest_add_cli_args_test_selection line to rewrite"
    line = "pytest_add_cli_args_test_selection = " + json.dumps(list(tests))
    changed = _SELECTION.sub(lambda _match: line, text)
    try:
        read = tomllib.loads(changed).get("tool", {}).get("mutmut", {}).get("pytest_add_cli_args_test_selection")
    except tomllib.TOMLDecodeError as error:
        return f"{path}: the rewritten selection does not parse: {error}"
    if read != list(tests):
        return f"{path}: the rewritten selection reads back as {read!r}"
    path.write_text(changed, encoding="utf-8")
    return ""


def ignored_tests(root: Path) -> set[str]:
    """The test paths ``[tool.mutmut] pytest_add_cli_args`` leaves out (its ``--ignore=`` options), as written."""
    return {arg.removeprefix("--ignore=") for arg in mutmut_pytest_args(root) if arg.startswith("--ignore=")}


def combine(first: MutmutResult, final: set[str], second: MutmutResult | None, equivalents: list[Equivalent],
            select: Callable[[str], bool], label: str = "nearby tests") -> MutmutResult:
    """One result of two runs over the same mutants (the review's two stages, ``mutations.review``): the verdicts
    ``final`` of ``first`` and every verdict of ``second`` (the rest of ``first``'s mutants, tested again), in
    ``first``'s order; the listed equivalents judged once, over the whole, as ``run`` judges them.

    ``first`` ran with no equivalents listed, and so must ``second``: judging them here, once, is what makes a
    listed equivalent that a first-stage test killed a problem, as it would be in one run. ``first``'s phases are
    named with ``label`` ("stats (nearby tests)"); "" keeps mutmut's names (a single stage)."""
    later = {mutant.name: mutant for mutant in second.mutants} if second is not None else {}
    mutants = [mutant if mutant.name in final else later[mutant.name] for mutant in first.mutants
               if mutant.name in final or mutant.name in later]
    mutants.extend(mutant for name, mutant in later.items() if name not in {m.name for m in first.mutants})
    problems = judge_equivalents(mutants, [entry for entry in equivalents if select(entry.name)])
    last = second if second is not None else first
    phases = {f"{name} ({label})" if label else name: seconds for name, seconds in first.phases.items()}
    if second is not None:
        phases.update(second.phases)
    return MutmutResult(
        mutants=mutants, run_ok=last.run_ok, run_message=last.run_message,
        wall_seconds=first.wall_seconds + (second.wall_seconds if second is not None else 0.0),
        tested_this_run=first.tested_this_run + (second.tested_this_run if second is not None else 0),
        mutmut_rate=last.mutmut_rate or first.mutmut_rate, equivalent_problems=problems, sources=last.sources,
        left_out_tests=last.left_out_tests, phases=phases)


def described(root: Path, jobs: int, select: Callable[[str], bool]) -> tuple[str, list[Mutant]]:
    """mutmut's generation on ``root`` and the mutants whose names ``select`` accepts, each with its diff and
    one-line description but none tested; ("", mutants), or (why generation failed, []).

    The review (``mutations.review.against_base``) reads BASE's mutants this way to find, for each survivor of
    the change, the same mutation of the same function at BASE before it pays for testing any of them."""
    check_mutmut()
    code, output = generate(root, jobs)
    if code != 0:
        return _failure_message(code, output), []
    sources = {str(path): (root / path).read_text(encoding="utf-8") for path in source_files(root)}
    mutants = [Mutant(name=key, path=str(path), exit_code=None, status=NOT_CHECKED)
               for path in source_files(root) for key in _load_meta(root, path).get("exit_code_by_key", {})
               if select(key)]
    write_diffs(root, mutants, sources)
    return "", mutants


def confirm_hangs(root: Path, mutants: list[Mutant]) -> None:
    """Re-judge every kill by the per-test deadline (issue 22): a wall-clock deadline on a loaded machine can
    fail a slow but finite mutant, so such a kill counts only after its test, run alone on that mutant with a
    deadline ``scratch.CONFIRM_FACTOR`` times larger (at least ``scratch.CONFIRM_FLOOR`` s), runs past it again: then it is a
    confirmed timeout. A test that now fails otherwise makes it killed by that failure; one that passes makes
    the mutant a survivor. The common runaway, a loop in guard/, never gets here: its loop bound
    (``properties.work_bound``) fails the test by count, the same on any machine."""
    for mutant in mutants:
        if mutant.status != KILLED or not (mutant.killer or "").endswith(scratch.DEADLINE_MARK):
            continue
        test = mutant.killer.removesuffix(scratch.DEADLINE_MARK)  # type: ignore[union-attr]
        print(f"  mutations| confirming the hang of {mutant.name} ({test}) with a {scratch.CONFIRM_FACTOR:.0f}x deadline",
              flush=True)
        outcome, failure = rerun_alone(root, mutant.name, test)
        if outcome == "deadline":
            mutant.status, mutant.killer = CONFIRMED_TIMEOUT, mutant.killer
        elif outcome == "failed":
            mutant.killer = failure
        else:
            mutant.status, mutant.killer = SURVIVED, None
            mutant.problem = f"its deadline kill did not repeat: {test} passed with a {scratch.CONFIRM_FACTOR:.0f}x deadline"


#: The marker of a listed equivalent whose kill under mutmut did not repeat alone (the report lists them).
UNREPEATED_KILL = "its kill under mutmut did not repeat alone"
EQUIVALENT_BECAUSE = "; listed equivalent: "


def recheck_equivalent_kills(root: Path, mutants: list[Mutant], listed: list[Equivalent]) -> None:
    """Re-run, alone, the test that killed a mutant listed as equivalent (mutmut exit ``1`` or ``3``).

    A listed equivalent is reviewed reasoning that no test can tell the mutant apart; a kill of one is either
    a test that now can (the entry must go) or a failure that has nothing to do with the mutant: a test that is
    flaky, or disturbed by the parallel mutant beside it in mutmut's forks (seen once in CI, stop 42, and not
    reproduced in 36 runs of the same tests under load). Each such kill is therefore re-run once, in mutmut's
    ``mutants/`` copy with only that mutant active: the killing test alone, or, when mutmut recorded no failing
    test, every test its statistics saw reach the function, stopping at the first failure. A failure again keeps
    the kill (and ``judge_equivalents`` fails the session naming the test); a pass makes the mutant a survivor
    again, so its listing holds, and the unrepeated kill is printed and listed in the report with its test: a
    flaky test is named, never hidden."""
    names = {entry.name: entry for entry in listed}
    for mutant in mutants:
        entry = names.get(mutant.name)
        if entry is None or mutant.status not in DETECTED or mutant.one_line != entry.diff:
            continue
        killer = (mutant.killer or "").removesuffix(scratch.DEADLINE_MARK).removesuffix(" [deadline, confirmed]")
        tests = [killer] if killer and not killer.startswith("collection error") else _tests_reaching(root, mutant.name)
        if not tests:
            continue
        print(f"  mutations| re-running the kill of listed equivalent {mutant.name} alone "
              f"({killer or f'mutmut exit {mutant.exit_code}'})", flush=True)
        with tempfile.TemporaryDirectory(prefix="guard-equivalent-") as folder:
            record = Path(folder) / "killers.tsv"
            code = _pytest_in_mutants(root, mutmut_pytest_args(root), mutant.name, tests, record, None, True,
                                      NEAR_TIMEOUT, root / "reports" / "logs" / f"equivalent-{mutant.name}.log")
            failed = record.read_text(encoding="utf-8").splitlines() if record.is_file() else []
        if code == 0:
            print(f"  mutations| the kill did not repeat: {mutant.name} passes {', '.join(tests[:3])}"
                  f"{' ...' if len(tests) > 3 else ''} alone; a flaky kill, kept listed", flush=True)
            mutant.status = SURVIVED
            mutant.problem = (f"{UNREPEATED_KILL}: killed by {killer or f'mutmut exit {mutant.exit_code}'}, which passed "
                              f"when re-run alone{EQUIVALENT_BECAUSE}{entry.reason}")
            mutant.killer = None
        else:
            mutant.kill_repeated = True
            if failed:
                mutant.killer = failed[0].partition("\t")[2] or mutant.killer


def _tests_reaching(root: Path, name: str) -> list[str]:
    """The tests mutmut's statistics saw reach the function of mutant ``name``, fastest first ([] if unknown)."""
    try:
        stats = json.loads((root / "mutants" / "mutmut-stats.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    tests = stats.get("tests_by_mangled_function_name", {}).get(name.rpartition("__mutmut_")[0], [])
    durations = stats.get("duration_by_test", {})
    return sorted((str(test) for test in tests), key=lambda test: (durations.get(test, 0.0), test))


def rerun_alone(root: Path, mutant: str, test: str) -> tuple[str, str]:
    """Run ``test`` alone in mutmut's ``mutants/`` copy with ``mutant`` active: ("deadline" | "failed" | "passed",
    what failed)."""
    with tempfile.TemporaryDirectory(prefix="guard-confirm-") as folder:
        killers = Path(folder) / "killers.tsv"
        env = dict(os.environ)
        env.pop("PYTHONPATH", None)
        env.update(MUTANT_UNDER_TEST=mutant, MUTATIONS_KILLERS_FILE=str(killers), PYTHONHASHSEED="0",
                   MUTATIONS_DEADLINE_FACTOR=str(scratch.CONFIRM_FACTOR), MUTATIONS_MIN_DEADLINE=str(scratch.CONFIRM_FLOOR))
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
                               "mutations.pytest_plugin", test], cwd=root / "mutants", env=env, capture_output=True,
                              text=True, errors="replace", timeout=3600)
        recorded = killers.read_text(encoding="utf-8").splitlines() if killers.is_file() else []
    failure = recorded[0].partition("\t")[2] if recorded else ""
    if done.returncode == 0:
        return "passed", ""
    if failure.endswith(scratch.DEADLINE_MARK):
        return "deadline", failure
    return "failed", failure or f"pytest exit {done.returncode}"


def _left_out_tests(root: Path) -> list[str]:
    """The tests every run under mutation leaves out: the committed list (``mutations/left_out.toml``)."""
    from mutations.pytest_plugin import left_out

    return sorted(left_out())


def _failure_message(code: int, output: str) -> str:
    lines = [line.rsplit("\r", 1)[-1].strip() for line in output.splitlines()]
    meaningful = [line for line in lines if line and not line.startswith(("⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"))]
    # A red suite without any mutant (mutmut's statistics or clean run): name the tests that failed, from
    # pytest's own summary lines, so the reader knows it is the tree's tests and not a mutant.
    failing = [line.split()[1] for line in meaningful if line.startswith(("FAILED ", "ERROR ")) and len(line.split()) > 1]
    named = f" (failing without any mutant: {', '.join(failing[:3])}{' ...' if len(failing) > 3 else ''})" if failing else ""
    for marker in ("Failed to run clean test", "failed to collect stats", "Stopping early", "FAILED: Unable to force", "Traceback"):
        for line in meaningful:
            if marker in line:
                return f"exit {code}: {line}{named}"
    return f"exit {code}: {meaningful[-1] if meaningful else 'no output'}"


def show(mutant: Mutant) -> str:
    """What ``mutmut show NAME`` prints for this mutant."""
    return f"# {mutant.name}: {mutant.status}\n{mutant.diff}"
