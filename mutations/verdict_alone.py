"""``python -m mutations --verdict-alone``: mutmut's mutants of ``guard/`` judged by the property verdict alone.

mutmut's layer says which *test* killed a mutant; this says whether the
verdict (``python -m properties --mutants``) would have, with no unit test at
all: the verdict is what a reviewer relies on for a change nobody wrote a
test for (``shared/spec/mutations.md``).

Decisions the issue leaves open, made here:

* **Which mutants.** mutmut's own, generated into ``mutants/`` exactly as
  ``nox -s mutants`` generates them (``mutmut_layer.generate``). mutants
  listed in ``mutations/equivalents.toml`` are equivalent for every judge and
  are neither sampled nor counted. By default a seeded sample of
  ``DEFAULT_SAMPLE`` of the others, stratified by module: every module gets
  its share of the sample in proportion to its mutants (largest remainders),
  and at least ``MODULE_FLOOR`` (or all it has), so a small module is never
  judged on two mutants. ``--all`` judges every one.
* **How a mutant is run.** In mutmut's ``mutants/`` copy every function is a
  trampoline that reads ``MUTANT_UNDER_TEST`` on each call, so setting that
  variable in a fork of a warm server (``mutations.warm``, which imported the
  project and the drivers once) runs exactly the mutant, also in any
  subprocess the verdict starts: warm is exact here, and nothing is patched.
  Two servers (``--jobs``), one mutant per fork.
* **Which subjects judge a module.** The subjects whose drivers run its code
  (``SUBJECTS_OF``): the budget and its limits by the budget and the hook
  path (which feeds the budget), every classifier and the hook path by the
  hook subject (the shell lookup classifier by the lookup subject too, which
  judges it against the real programs), navigation's modules by navigation. Running a subject that
  never calls the module could only cost time.
* **What counts as a kill.** The verdict failing: an invariant violated (the
  invariant is named), an invariant left vacuous, or a driver crash (the
  mutant made the guard raise). The three are counted apart, and the score
  (killed / non-equivalent) counts all three, since each fails the run a
  reviewer reads; a vacuous-only kill is marked, because it says that
  something stopped happening, not what went wrong. An explorer cut off by
  its time budget is never a kill (``--mutants`` says so). A fork that runs
  past ``TIMEOUT`` seconds is a ``timeout``, not a kill.
* **The unit test that kills a survivor.** mutmut's recorded killer
  (``mutants/mutations-killers.tsv``) when ``nox -s mutants`` already judged
  the mutant; otherwise the tests in ``TESTS_OF`` the module's folders run in
  a fork with the mutant active (``-x``: the first failure). A survivor that
  none of them kills is reported as such: the whole suite's answer is mutmut's
  layer.
* **Before and after.** ``mutations/verdict_alone_before.json`` holds each
  mutant's outcome under the verdict of the commit this work started from
  (recorded with ``--properties-from REV --record-before``: the same
  mutants, the verdict's code taken from REV). The table puts those beside
  this run's, over the mutants both judged.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Iterable

import attrs

from mutations.mutmut_layer import one_line

DEFAULT_SAMPLE = 300
MODULE_FLOOR = 12
#: Seconds one verdict (or one unit-test run) may take on one mutant before it is a ``timeout``.
TIMEOUT = 900.0
BEFORE_FILE = Path(__file__).with_name("verdict_alone_before.json")
#: Mutants the verdict cannot reach, each with the reason (part 3 of issue 24).
UNREACHED_FILE = Path(__file__).with_name("verdict_unreached.toml")

HOOK_PATH = "hooks"
SUBJECTS_OF: dict[str, str] = {
    "guard/budget.py": "budget,hooks",
    "guard/limits.py": "budget,hooks",
    "guard/hooks.py": HOOK_PATH,
    "guard/finalization.py": HOOK_PATH,
    "guard/inspection.py": HOOK_PATH,
    "guard/outcome.py": HOOK_PATH,
    "guard/playground.py": HOOK_PATH,
    # The shell lookup classifier: the hook path runs it on every search receipt, the lookup subject (L1-L4)
    # against the real programs.
    "guard/lookup.py": f"{HOOK_PATH},lookup",
    "guard/navigation.py": "navigation",
    "guard/navigation_evidence.py": "navigation",
    "guard/navigation_limits.py": "navigation",
    "guard/navigation_ports.py": "navigation",
}
TESTS_OF: dict[str, tuple[str, ...]] = {
    "budget,hooks": ("tests/budget", "tests/hooks"),
    HOOK_PATH: ("tests/hooks", "tests/lookup"),
    f"{HOOK_PATH},lookup": ("tests/hooks", "tests/lookup"),
    "navigation": ("tests/navigation",),
}

VIOLATED = "violated"
VACUOUS = "vacuous only"
CRASHED = "crashed"
OTHER_FAIL = "failed otherwise"
SURVIVED = "survived"
TIMED_OUT = "timeout"
ERROR = "harness error"
KILLS = frozenset({VIOLATED, VACUOUS, CRASHED, OTHER_FAIL})


class VerdictAloneError(Exception):
    """Something the user can fix (one line, exit 2): mutmut missing, a bad revision, an unreadable file."""


@attrs.frozen
class Judgement:
    """The verdict's judgement of one mutant."""

    name: str
    module: str
    subjects: str
    outcome: str
    #: The violated invariant, the vacuous ones, or the crash: what the verdict said.
    detail: str
    seconds: float
    unit_killer: str | None = None
    diff: str = ""

    @property
    def killed(self) -> bool:
        return self.outcome in KILLS


_MANGLED = re.compile(r"^(?P<module>.+?)\.x(?:_|\u01c1)")


def _dotted_module(name: str) -> str:
    found = _MANGLED.match(name)
    return found["module"] if found else name.rpartition(".")[0]


def module_of(name: str) -> str:
    """``guard.hooks.x\u01c1ToolLoopGuard\u01c1after_tool_call__mutmut_3`` -> ``guard/hooks.py`` (mutmut's mangling)."""
    return _dotted_module(name).replace(".", "/") + ".py"


def function_of(name: str) -> str:
    """``guard.hooks.x\u01c1ToolLoopGuard\u01c1_count__mutmut_8`` -> ``guard/hooks.py:ToolLoopGuard._count``."""
    body = name[len(_dotted_module(name)) + 1:].rpartition("__mutmut_")[0]
    if body.startswith("x\u01c1"):
        qualified = ".".join(part for part in body[2:].split("\u01c1") if part)
    else:
        qualified = body.removeprefix("x_")
    return f"{module_of(name)}:{qualified}"


def function_prints(root: Path, names: Iterable[str]) -> dict[str, str]:
    """A hash of each named mutant's function as it is now (its code, comments left out), by ``function_of``.

    mutmut numbers a function's mutants in the order it finds them in that function, so a name means the same
    change only while the function is unchanged: a 'before' outcome is compared under a name only when the
    function it was recorded in is the one judged now (a changed function renumbers its mutants)."""
    import ast
    import hashlib

    wanted = {function_of(name) for name in names}
    prints: dict[str, str] = {}
    for module in sorted({key.partition(":")[0] for key in wanted}):
        try:
            tree = ast.parse((root / module).read_text(encoding="utf-8"))
        except (OSError, SyntaxError):
            continue
        for node in tree.body:
            members = [(node.name, node)] if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) else \
                [(f"{node.name}.{item.name}", item) for item in node.body
                 if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))] if isinstance(node, ast.ClassDef) else []
            for qualified, function in members:
                key = f"{module}:{qualified}"
                if key in wanted:
                    prints[key] = hashlib.blake2b(ast.dump(function).encode("utf-8"), digest_size=8).hexdigest()
    return prints


def listed_mutants(root: Path) -> dict[str, list[str]]:
    """Every mutant mutmut generated, by module path, from its ``mutants/guard/*.py.meta`` files."""
    found: dict[str, list[str]] = {}
    for meta in sorted((root / "mutants" / "guard").glob("*.py.meta")):
        try:
            keys = json.loads(meta.read_text(encoding="utf-8")).get("exit_code_by_key", {})
        except (OSError, ValueError) as error:
            raise VerdictAloneError(f"{meta}: unreadable mutmut meta file ({error}); delete mutants/ and rerun") from None
        if keys:
            found[f"guard/{meta.name.removesuffix('.meta')}"] = sorted(keys)
    return found


def module_floor(size: int, modules: int) -> int:
    """The fewest mutants a module gets in a sample of ``size``: ``MODULE_FLOOR``, less when the sample is small."""
    return max(1, min(MODULE_FLOOR, size // max(1, modules)))


def stratified(by_module: dict[str, list[str]], size: int, seed: int) -> list[str]:
    """``size`` names drawn with ``random.Random(seed)``, each module's share in proportion to its count.

    Largest remainders decide the rounding; a module gets at least
    ``MODULE_FLOOR`` (or all it has; fewer for a sample too small to give
    every module that many) even when that takes the sample past ``size``.
    """
    total = sum(len(names) for names in by_module.values())
    if size >= total:
        return sorted(name for names in by_module.values() for name in names)
    exact = {module: size * len(names) / total for module, names in by_module.items()}
    shares = {module: int(value) for module, value in exact.items()}
    for module in sorted(exact, key=lambda m: (exact[m] - shares[m], m), reverse=True)[: size - sum(shares.values())]:
        shares[module] += 1
    floor = module_floor(size, len(by_module))
    rng = random.Random(seed)
    chosen: list[str] = []
    for module in sorted(by_module):
        names = by_module[module]
        count = min(len(names), max(shares[module], floor))
        chosen.extend(rng.sample(names, count))
    return sorted(chosen)


def outcome_of(answer: dict[str, Any]) -> tuple[str, str]:
    """(outcome, detail) of one warm verdict run."""
    if answer.get("timed_out"):
        return TIMED_OUT, f"past {TIMEOUT:.0f} s"
    if str(answer.get("raised_in", "")).startswith("guard."):
        # The mutated guard raised before the verdict judged anything (say a validator that refuses the default
        # limits at import): ``python -m properties`` on that tree fails, so the verdict alone catches it.
        return CRASHED, f"the guard raised before any driver ran: {answer['crashed']} ({answer['raised_in']})"[:200]
    if "crashed" in answer or "not_patchable" in answer:
        return ERROR, str(answer.get("crashed") or answer.get("not_patchable"))
    if answer.get("exit_code") == 0:
        return SURVIVED, ""
    line = answer.get("verdict_line", "")
    reasons = [part.strip() for part in re.sub(r"^verdict: FAIL \(|\)$", "", line).split(";") if part.strip()]
    violated = [reason.split()[0] for reason in reasons if reason.endswith(" violated")]
    if answer.get("invariant") or violated:
        return VIOLATED, answer.get("invariant") or violated[0]
    if any(reason.startswith("driver error") for reason in reasons) or "CRASHED" in answer.get("output_tail", ""):
        crash = next((reason for reason in reasons if reason.startswith("driver error")), "a driver crashed")
        return CRASHED, crash[:200]
    vacuous = [reason.split()[0] for reason in reasons if reason.endswith(" vacuous")]
    if vacuous and len(vacuous) == len(reasons):
        return VACUOUS, ", ".join(vacuous)
    return OTHER_FAIL, (line or answer.get("output_tail", ""))[-200:]


def _known_killers(root: Path) -> dict[str, str]:
    """The unit test that mutmut's layer recorded as each mutant's killer, where its verdict is a kill."""
    killers_file = root / "mutants" / "mutations-killers.tsv"
    if not killers_file.is_file():
        return {}
    killed: set[str] = set()
    for meta in (root / "mutants" / "guard").glob("*.py.meta"):
        try:
            codes = json.loads(meta.read_text(encoding="utf-8")).get("exit_code_by_key", {})
        except (OSError, ValueError):
            continue
        killed.update(key for key, code in codes.items() if code in (1, 3))
    found: dict[str, str] = {}
    for line in killers_file.read_text(encoding="utf-8", errors="replace").splitlines():
        key, _, test = line.partition("\t")
        if key in killed and test:
            found[key] = test
    return found


def diff_of(root: Path, name: str, module: str) -> str:
    """mutmut's own diff of the mutant (what ``mutmut show NAME`` prints), read in the project folder."""
    import os

    from mutmut.mutation.diff_apply import get_diff_for_mutant

    previous = Path.cwd()
    os.chdir(root)
    try:
        return get_diff_for_mutant(name, path=module)
    except Exception as error:  # a stale mutant shows up in the report rather than stopping it
        return f"(no diff: {type(error).__name__}: {error})"
    finally:
        os.chdir(previous)


@attrs.frozen
class Unreached:
    """One entry of ``UNREACHED_FILE``: a mutant left to the unit tests, its change, and why."""

    name: str
    #: The mutant's change as ``mutmut_layer.one_line`` writes it: an edit to the function renumbers its mutants,
    #: and an entry whose number now names another change must not excuse that one.
    diff: str
    reason: str


def check_equivalents(root: Path, entries: Iterable[Any], every: dict[str, list[str]]) -> None:
    """Each listed equivalent of the modules judged still names the change it was listed for.

    The mutmut layer checks the same before it trusts the list; the verdict alone leaves the listed equivalents
    out of its counts, so a renumbered entry would silently drop a real mutant from the denominator."""
    for entry in entries:
        module = module_of(entry.name)
        if module not in every:
            continue
        if entry.name not in every[module]:
            raise VerdictAloneError(f"mutations/equivalents.toml: {entry.name}: no such mutant in {module} any more")
        now = one_line(diff_of(root, entry.name, module))
        if now != entry.diff:
            raise VerdictAloneError(f"mutations/equivalents.toml: {entry.name}: diff: listed {entry.diff}, the mutant "
                                    f"is now {now} (mutmut renumbers a function's mutants when it is edited)")


@attrs.frozen
class Run:
    """One ``--verdict-alone`` run: what it judged, how, and how long it took."""

    seed: int
    sample: int | None  # None: --all
    judged: tuple[Judgement, ...]
    equivalents: int
    total: int
    seconds: float
    properties_from: str | None = None


def _copy_with_properties(root: Path, revision: str, parent: Path) -> Path:
    """A copy of ``mutants/`` whose ``properties/`` is ``revision``'s (the verdict as it was then)."""
    copy = parent / "mutants"
    shutil.copytree(root / "mutants", copy, symlinks=True)
    shutil.rmtree(copy / "properties")
    archive = subprocess.run(["git", "archive", "--format=tar", revision, "properties"], cwd=root, capture_output=True)
    if archive.returncode != 0:
        raise VerdictAloneError(f"--properties-from {revision}: git archive failed: "
                                f"{archive.stderr.decode(errors='replace').strip()[:200]}")
    unpacked = subprocess.run(["tar", "-x", "-C", str(copy)], input=archive.stdout, capture_output=True)
    if unpacked.returncode != 0:
        raise VerdictAloneError(f"--properties-from {revision}: could not unpack properties/")
    return copy


def judge(root: Path, names: list[str], seed: int, jobs: int, copy: Path, *, find_unit_killers: bool = True,
          say: Any = print) -> list[Judgement]:
    """Judge each mutant with the verdict alone, in forks of ``jobs`` warm servers on ``copy`` (a ``mutants/``)."""
    from mutations import warm
    from properties import progress
    from properties.paths import shared_dir

    known = _known_killers(root) if find_unit_killers else {}
    servers: list[warm.Server] = []
    pool_lock = threading.Lock()
    free: list[warm.Server] = []
    scratch = Path(tempfile.mkdtemp(prefix="verdict-alone-"))
    try:
        for _ in range(max(1, jobs)):
            server = warm.Server(copy, copy / "mutmut-stats.json", shared=shared_dir().resolve())
            servers.append(server)
            free.append(server)
        # The baseline runs the subjects that will judge these mutants (all of them for a whole sample; only
        # navigation's for --module guard/navigation.py): a subject no mutant is judged by would only cost time.
        judging = {s for name in names for s in SUBJECTS_OF.get(module_of(name), "budget,hooks,navigation").split(",")} \
            or {"budget", "hooks", "navigation"}
        baseline = servers[0].judge("properties", "", scratch / "baseline", seed, TIMEOUT,
                                    subjects=",".join(sorted(judging)))
        if baseline.get("exit_code") != 0:
            raise VerdictAloneError(f"the verdict fails on the unmutated guard ({outcome_of(baseline)[1] or baseline}); "
                                    "no mutant can be judged")
        say(f"  verdict-alone| baseline ({', '.join(sorted(judging))}, no mutant): PASS in {baseline.get('wall', 0):.1f} s")
        done = [0]

        def one(index_name: tuple[int, str]) -> Judgement:
            index, name = index_name
            module = module_of(name)
            subjects = SUBJECTS_OF.get(module, "budget,hooks,navigation")
            with pool_lock:
                server = free.pop()
            try:
                folder = scratch / f"m{index}"
                answer = server.judge("properties", name, folder, seed, TIMEOUT, subjects=subjects,
                                      first=subjects.split(",")[0])
                outcome, detail = outcome_of(answer)
                killer = None
                if outcome not in KILLS:
                    killer = known.get(name)
                    if killer is None and find_unit_killers:
                        tests = server.judge("pytest", name, folder, seed, TIMEOUT,
                                             tests=list(TESTS_OF.get(subjects, ("tests",))))
                        if tests.get("exit_code") not in (0, None) and tests.get("failures"):
                            killer = tests["failures"][0]
                        elif tests.get("timed_out"):
                            killer = "(the unit tests ran past the timeout)"
            finally:
                with pool_lock:
                    free.append(server)
                    done[0] += 1
                    progress.update("verdict alone", done=done[0], total=len(names), unit="mutants", eta=True)
            return Judgement(name=name, module=module, subjects=subjects, outcome=outcome, detail=detail,
                             seconds=float(answer.get("wall", 0.0)), unit_killer=killer)

        with progress.line("verdict alone"), ThreadPoolExecutor(max_workers=len(servers)) as pool:
            judged = list(pool.map(one, enumerate(names)))
    finally:
        for server in servers:
            server.close()
        shutil.rmtree(scratch, ignore_errors=True)
    return [attrs.evolve(j, diff=diff_of(root, j.name, j.module)) if not j.killed else j for j in judged]


def select_modules(every: dict[str, list[str]], modules: Iterable[str] | None) -> dict[str, list[str]]:
    """The part of ``every`` (module path -> mutants) that ``modules`` names; all of it for None.

    A module is named by its path (``guard/hooks.py``) or its dotted name
    (``guard.hooks``); a name that matches no module with mutants is a user
    error, so a typo never reads as a module with nothing to judge."""
    if modules is None:
        return every
    chosen: dict[str, list[str]] = {}
    for given in modules:
        path = given if given.endswith(".py") else given.replace(".", "/") + ".py"
        if path not in every:
            raise VerdictAloneError(f"--module {given}: no mutants in that module (known: {', '.join(sorted(every))})")
        chosen[path] = every[path]
    return chosen


def run(root: Path, *, seed: int, sample: int | None, jobs: int, properties_from: str | None = None,
        record: bool = False, say: Any = print, modules: Iterable[str] | None = None) -> Run:
    """Generate mutmut's mutants, draw the sample, judge it; ``sample`` None judges every one.

    ``modules`` restricts both the sample and the counts to those guard modules."""
    from mutations import equivalents, mutmut_layer

    mutmut_layer.check_mutmut()
    for given in modules or ():
        # Before mutmut regenerates anything: a misspelt module is one line, not a minute of generation later.
        path = given if given.endswith(".py") else given.replace(".", "/") + ".py"
        if not path.startswith("guard/") or not (root / path).is_file():
            raise VerdictAloneError(f"--module {given}: not a module of guard/ (give guard/NAME.py or guard.NAME)")
    started = time.monotonic()
    code, output = mutmut_layer.generate(root, jobs)
    if code != 0:
        raise VerdictAloneError(f"mutmut could not generate the mutants: {output.strip().splitlines()[-1:]}")
    entries = equivalents.load()
    listed = {entry.name for entry in entries}
    every = select_modules(listed_mutants(root), modules)
    check_equivalents(root, entries, every)
    by_module = {module: [n for n in names if n not in listed] for module, names in every.items()}
    total = sum(len(names) for names in by_module.values())
    names = stratified(by_module, sample, seed) if sample is not None else sorted(n for v in by_module.values() for n in v)
    if properties_from is not None and record:
        # Recording 'before': the mutants already recorded keep their outcome (the verdict of REV does not change).
        # A name recorded in a function that has changed since (or before prints were kept) is judged again.
        known = same_function_outcomes(load_before(), root, names, legacy=False)
        say(f"  verdict-alone| {sum(1 for n in names if n in known)} of the sample already recorded as 'before'")
        names = [n for n in names if n not in known]
    say(f"  verdict-alone| {total} non-equivalent mutants ({len(listed)} listed equivalents left out); judging "
        + (f"a sample of {len(names)} (seed {seed}, stratified by module, at least "
           f"{module_floor(sample, len(by_module))} a module)" if sample is not None else "every one (--all)")
        + f" with {jobs} warm servers")
    with tempfile.TemporaryDirectory(prefix="verdict-alone-copy-") as parent:
        copy = _copy_with_properties(root, properties_from, Path(parent)) if properties_from else root / "mutants"
        judged = judge(root, names, seed, jobs, copy, find_unit_killers=properties_from is None, say=say)
    return Run(seed=seed, sample=sample, judged=tuple(judged), equivalents=len(listed), total=total,
               seconds=time.monotonic() - started, properties_from=properties_from)


# -- the report --------------------------------------------------------------------------------


def load_before(path: Path = BEFORE_FILE) -> dict[str, Any]:
    """The recorded 'before' outcomes: {"commit", "seed", "outcomes": {mutant: outcome}}; empty when absent."""
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as error:
        raise VerdictAloneError(f"{path}: not JSON ({error})") from None
    if not isinstance(data, dict) or not isinstance(data.get("outcomes"), dict):
        raise VerdictAloneError(f"{path}: field 'outcomes' missing or not an object")
    if not isinstance(data.get("functions", {}), dict):
        raise VerdictAloneError(f"{path}: field 'functions' not an object")
    return data


def same_function_outcomes(before: dict[str, Any], root: Path, names: Iterable[str], legacy: bool = True) -> dict[str, str]:
    """The recorded outcomes of ``names`` whose function is unchanged since they were recorded (``function_prints``).

    ``legacy``: whether an outcome recorded before function prints were kept (no print for its function) still
    counts, by name alone, as the table has always read it."""
    outcomes, prints = before.get("outcomes", {}), before.get("functions", {})
    wanted = [name for name in names if name in outcomes]
    now = function_prints(root, wanted)
    kept = {}
    for name in wanted:
        recorded = prints.get(function_of(name))
        if (recorded is None and legacy) or (recorded is not None and recorded == now.get(function_of(name))):
            kept[name] = outcomes[name]
    return kept


def comparable_before(before: dict[str, Any], root: Path, result: Run) -> dict[str, Any]:
    """``before`` with only the outcomes the table may put beside this run's (``same_function_outcomes``)."""
    if not before:
        return before
    return {**before, "outcomes": same_function_outcomes(before, root, [j.name for j in result.judged])}


def record_before(result: Run, root: Path, path: Path = BEFORE_FILE) -> None:
    """Merge this run's outcomes into the 'before' file (a run made with ``--properties-from``), with a print of
    each judged mutant's function (``function_prints``), so a renumbered mutant is never read under an old name."""
    data = load_before(path) or {"outcomes": {}}
    data["commit"] = result.properties_from
    data["seed"] = result.seed
    judged = {j.name for j in result.judged}
    now = function_prints(root, judged)
    # A function judged now whose recorded print differs (or was never kept): its other names were numbered in
    # another version of it, so their outcomes go rather than being read under the new print.
    old = data.get("functions", {})
    stale = {key for key, value in now.items() if old.get(key) != value}
    kept = {name: outcome for name, outcome in data["outcomes"].items() if function_of(name) not in stale}
    data["outcomes"] = dict(sorted({**kept, **{j.name: j.outcome for j in result.judged}}.items()))
    data["functions"] = dict(sorted({**old, **now}.items()))
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


def _score(outcomes: Iterable[str]) -> tuple[int, int]:
    values = list(outcomes)
    return sum(1 for o in values if o in KILLS), len(values)


def _cell(killed: int, count: int) -> str:
    return f"{killed}/{count} ({100.0 * killed / count:.1f}%)" if count else "-"


def table(result: Run, before: dict[str, Any], group: str) -> list[str]:
    """Rows of the per-module (``group="module"``) or per-subject scores, before beside after."""
    old = before.get("outcomes", {})
    groups: dict[str, list[Judgement]] = {}
    for judged in result.judged:
        groups.setdefault(getattr(judged, "module" if group == "module" else "subjects"), []).append(judged)
    head = f"| {group} | mutants judged | before ({before.get('commit', 'not recorded')}) | after | vacuous-only kills | crashes |"
    lines = [head, "|---|---|---|---|---|---|"]
    every: list[Judgement] = []
    for key in sorted(groups):
        rows = groups[key]
        every += rows
        then = [old[j.name] for j in rows if j.name in old]
        lines.append(f"| {key} | {len(rows)} | {_cell(*_score(then))} | {_cell(*_score(j.outcome for j in rows))} | "
                     f"{sum(1 for j in rows if j.outcome == VACUOUS)} | {sum(1 for j in rows if j.outcome == CRASHED)} |")
    then = [old[j.name] for j in every if j.name in old]
    lines.append(f"| **all** | {len(every)} | {_cell(*_score(then))} | {_cell(*_score(j.outcome for j in every))} | "
                 f"{sum(1 for j in every if j.outcome == VACUOUS)} | {sum(1 for j in every if j.outcome == CRASHED)} |")
    return lines


def listed_unreached(judged: Judgement, unreached: dict[str, Unreached]) -> "Unreached | None":
    """The entry excusing this survivor, if one names it with its current change."""
    entry = unreached.get(judged.name)
    return entry if entry is not None and entry.diff == one_line(judged.diff) else None


def unreached_note(judged: Judgement, unreached: dict[str, Unreached]) -> "str | None":
    """What the unreached list says of this survivor: its reason, that it names another change, or None."""
    entry, excused = unreached.get(judged.name), listed_unreached(judged, unreached)
    if excused is not None:
        return f"listed as out of the verdict's reach: {excused.reason}"
    if entry is not None:
        return f"listed in {UNREACHED_FILE.name} for another change, {entry.diff}: not excused"
    return None


def markdown(result: Run, before: dict[str, Any], unreached: dict[str, Unreached]) -> str:
    scope = f"a seeded sample of {len(result.judged)} (seed {result.seed}, stratified by module)" if result.sample else "every mutant"
    lines = [
        "# The verdict alone: mutmut's mutants of guard/ judged by `python -m properties --mutants` only",
        "",
        f"{result.total} non-equivalent mutants ({result.equivalents} listed equivalents left out); judged: {scope}; "
        f"{result.seconds:.1f} s wall." + (f" Verdict code from {result.properties_from}." if result.properties_from else ""),
        "A kill is the verdict failing: an invariant violated, left vacuous (counted, and shown apart), or a driver crash.",
        "",
        "## By guard module", "", *table(result, before, "module"), "",
        "## By subject (the subjects that judged the module)", "", *table(result, before, "subjects"), "",
        "## Verdict survivors", "",
    ]
    survivors = [j for j in result.judged if not j.killed]
    if not survivors:
        lines.append("none")
    for judged in survivors:
        note = unreached_note(judged, unreached)
        lines += [f"### {judged.name} ({judged.outcome})", "",
                  f"unit test that kills it: {judged.unit_killer or 'none in ' + ', '.join(TESTS_OF.get(judged.subjects, ()))}",
                  *([note] if note else []), "", "```diff", judged.diff, "```", ""]
    vacuous = [j for j in result.judged if j.outcome == VACUOUS]
    if vacuous:
        lines += ["## Kills by vacuity alone (the verdict saw something stop happening, no invariant broke)", ""]
        lines += [f"- {j.name}: {j.detail}" for j in vacuous]
    return "\n".join(lines) + "\n"


def load_unreached(path: Path = UNREACHED_FILE) -> dict[str, Unreached]:
    """Mutants left to the unit tests alone, by name: their change and why the verdict cannot reach them."""
    if not path.is_file():
        return {}
    import tomllib

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise VerdictAloneError(f"{path}: not TOML ({error})") from None
    found = {}
    for index, entry in enumerate(data.get("unreached", [])):
        if not isinstance(entry, dict):
            raise VerdictAloneError(f"{path}: unreached[{index}]: not a table")
        for field in ("name", "diff", "reason"):
            if not isinstance(entry.get(field), str):
                raise VerdictAloneError(f"{path}: unreached[{index}].{field}: needs a string")
        found[entry["name"]] = Unreached(entry["name"], entry["diff"], entry["reason"])
    return found


def write(result: Run, reports: Path, before: dict[str, Any], unreached: dict[str, Unreached]) -> Path:
    reports.mkdir(parents=True, exist_ok=True)
    (reports / "verdict-alone.md").write_text(markdown(result, before, unreached), encoding="utf-8")
    data = attrs.asdict(result)
    (reports / "verdict-alone.json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return reports / "verdict-alone.md"


def main(root: Path, reports: Path, *, seed: int, sample: int | None, jobs: int, properties_from: str | None,
         record: bool, modules: Iterable[str] | None = None) -> int:
    """The ``--verdict-alone`` session. Exit 1 when a survivor some unit test kills is not listed in
    ``UNREACHED_FILE`` (part 3 of issue 24), 0 otherwise; 2 for a user error (one line)."""
    try:
        load_before()
        unreached = load_unreached()
        result = run(root, seed=seed, sample=sample, jobs=jobs, properties_from=properties_from, record=record,
                     modules=modules)
        if record:
            record_before(result, root)
        # Read after the run: a 'before' recorded while this run was judging still makes the table.
        before = comparable_before(load_before(), root, result)
    except VerdictAloneError as error:
        sys.stderr.write(f"python -m mutations --verdict-alone: {error}\n")
        return 2
    report = write(result, reports, before, unreached)
    print()
    print("verdict alone, by guard module:")
    print("\n".join(table(result, before, "module")))
    print()
    print("verdict alone, by subject:")
    print("\n".join(table(result, before, "subjects")))
    offenders = [j for j in result.judged if not j.killed and j.unit_killer and listed_unreached(j, unreached) is None]
    for judged in [j for j in result.judged if not j.killed]:
        print(f"survivor {judged.name} [{judged.outcome}] {one_line(judged.diff)}; unit killer: {judged.unit_killer or 'none'}")
        note = unreached_note(judged, unreached)
        if note is not None and listed_unreached(judged, unreached) is None:
            print(f"  {note}")
    print(f"verdict alone: {len(result.judged)} mutants judged in {result.seconds:.1f} s wall; report {report}")
    if properties_from is None and offenders:
        print(f"FAIL: {len(offenders)} mutants a unit test kills and the verdict does not, not listed in {UNREACHED_FILE.name}")
        return 1
    return 0



def add_options(group: Any) -> None:
    """The session's own options, on ``python -m mutations``'s parser and on this module's."""
    from properties.cli import whole_number

    group.add_argument("--all", action="store_true", help="with --verdict-alone: every mutant, not a sample")
    group.add_argument("--sample", type=whole_number(1), default=None, metavar="N",
                       help=f"with --verdict-alone: the sample's size (default {DEFAULT_SAMPLE})")
    group.add_argument("--module", action="append", default=None, metavar="PATH",
                       help="with --verdict-alone: only this guard module's mutants (guard/hooks.py or guard.hooks; "
                            "repeat for more); the sample is drawn from those alone")
    group.add_argument("--properties-from", metavar="REV", default=None,
                       help="with --verdict-alone: the verdict's code (properties/) from git revision REV")
    group.add_argument("--record-before", action="store_true",
                       help="with --verdict-alone --properties-from REV: keep the outcomes as the table's 'before'")


#: The default seed of ``python -m mutations`` too, so both commands draw the same sample.
DEFAULT_SEED = 20261130


def cli(argv: list[str]) -> int:
    """``python -m mutations.verdict_alone``: the same session as ``python -m mutations --verdict-alone``."""
    from properties import progress
    from properties.cli import OneLineParser, UsageError, whole_number
    from properties.paths import ROOT

    parser = OneLineParser(prog="python -m mutations.verdict_alone", description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=whole_number(1, 64), default=2, metavar="N", help="warm servers (default 2)")
    parser.add_argument("--seed", type=whole_number(0, 2**32 - 1), default=DEFAULT_SEED, metavar="N",
                        help=f"the sample's and the drivers' seed (default {DEFAULT_SEED}); printed")
    parser.add_argument("--quiet", action="store_true", help="no live progress on stderr")
    add_options(parser)
    try:
        args = parser.parse_args(argv)
        if args.record_before and not args.properties_from:
            parser.error("--record-before needs --properties-from REV")
    except UsageError as error:
        sys.stderr.write(f"python -m mutations.verdict_alone: {error}\n")
        return 2
    sample = None if args.all else (args.sample or DEFAULT_SAMPLE)
    print(f"verdict alone: seed {args.seed}, jobs {args.jobs}, root {ROOT}", flush=True)
    with progress.shown(args.quiet, title="verdict alone"):
        return main(ROOT, ROOT / "reports", seed=args.seed, sample=sample, jobs=args.jobs,
                    properties_from=args.properties_from, record=args.record_before, modules=args.module)


if __name__ == "__main__":
    raise SystemExit(cli(sys.argv[1:]))
