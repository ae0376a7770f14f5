"""The red check: the new tests, run against the earlier behaviour, must fail.

Two scratch copies, each with one earlier behaviour put back behind the
production interface:

* ``earlier-budget``: ``guard/budget.py``'s ``RunProgressBudget`` becomes an
  adapter over the reference rules (a verbatim copy of ``reference/budget.py``
  placed inside ``guard/`` of the copy, so the copy's guard still imports
  nothing from ``reference``). The seeds' arguments are accepted and ignored,
  ``correct_fuse`` admits nothing, ``pending_correction`` is always None and
  ``failure_ends`` answers by observing one failure on a copy.
* ``earlier-lookup``: ``lookup_found_nothing`` always answers False, i.e.
  every non-zero exit is a failure again.
* ``earlier-navigation``: ``guard.navigation.navigate`` waits for the child
  the earlier way (a copy of ``reference/navigation.py`` inside the copy's
  ``guard/``), returning its outcome in the production record.

Each copy runs the whole pytest suite (no ``-x``); the failing tests are the
ones that pin down the new behaviour. A copy on which nothing fails means the
suite does not notice that the feature is missing, and fails the session.
Failures and errors are counted apart, as pytest counts them
(``mutations.red_outcomes``): an errored test (a fixture failed, a module did
not import) judged nothing, so it is named but never counted as a catch.
"""

from __future__ import annotations

import ast
import re
import shutil
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import attrs

from mutations import red_outcomes, scratch

RED_TIMEOUT = 900.0

_ADAPTER = '''

# ---- red check: the earlier budget behind the production interface (scratch copy only) ----
import copy as _red_copy
import itertools as _red_itertools

from guard import _earlier_budget as _red_earlier

_RED_PROBES = _red_itertools.count()


class RunProgressBudget(_red_earlier.ReferenceBudget):
    """The reference rules with the production signature: new arguments ignored, nothing deferred or granted."""

    def __init__(self, limits=None, **_ignored):
        # Production Limits carries every field the reference reads, under the same names.
        super().__init__(limits if limits is not None else Limits())
        self.deferred = None
        self.deferrals_used = 0
        self.correction = None
        self.corrected_kinds = set()
        self.free_lookups_used = 0

    def observe_result(self, call_id, tool, params, failed, pending=False, discovery=False, lane=None, **_ignored):
        super().observe_result(call_id, tool, params, failed, pending=pending, discovery=discovery, lane=lane)

    @property
    def pending_correction(self):
        return None

    def correct_fuse(self, remedy):
        return False

    def failure_ends(self, lane=None, correctable=False, empty_lookup=False):
        if self.terminal or self.rounds >= self.limits.rounds_without_progress:
            return True
        probe = _red_copy.deepcopy(self)
        probe.observe_result(f"red-check-probe-{next(_RED_PROBES)}", "red-check-probe", None, True, lane=lane)
        named = _red_earlier.lane_of(lane)
        return probe.terminal or (named is not None and named in probe.exhausted_lanes)
'''

_LOOKUP_REVERT = '''

# ---- red check: the lookup classifier before seed 000 (scratch copy only) ----
def lookup_found_nothing(*_args, **_kwargs):
    """Every non-zero exit is a failure again: no lookup ever counts as having found nothing."""
    return False
'''


_NAVIGATION_ADAPTER = '''

# ---- red check: the earlier navigation behind the production interface (scratch copy only) ----
from guard import _earlier_navigation as _red_navigation


def navigate(request, ports, limits=NavigationLimits()):
    """The earlier blind wait: no observation, no bounds, no synthesis; best-effort teardown."""
    earlier = _red_navigation.navigate(request, ports.clock, ports.spawner, ports.teardown)
    return Outcome(earlier.answer, earlier.truncated, earlier.error, earlier.citations, earlier.finished_at)
'''


class RedCheckError(Exception):
    """The earlier behaviour cannot be put back (its target code is missing)."""


@attrs.define
class Variant:
    name: str
    description: str
    #: Tests whose body failed: the ones that caught the earlier behaviour.
    failing: list[str]
    summary: str
    problem: str | None
    seconds: float
    #: Tests that errored (a fixture failed, or their module did not import): they judged nothing.
    errored: list[str] = attrs.field(factory=list)
    #: Tests that failed but caught nothing of this variant (issue 22): a crash (a type or attribute error), a
    #: test marked ``structural``, or a test of another seed's folder; each with how it failed.
    apart: list[str] = attrs.field(factory=list)

    def verdict(self) -> str:
        """One line: the problem, or the failures as expected, with the errors counted apart and named."""
        failed = (f"{len(self.failing)} behavioural tests of its seed fail"
                  + (", as expected" if not self.problem else ""))
        apart = f"; {len(self.apart)} other failures counted apart" if self.apart else ""
        errors = f"; {len(self.errored)} errored: {', '.join(self.errored)}" if self.errored else ""
        return (f"{self.problem} ({failed}{apart}{errors})" if self.problem else failed + apart + errors)


def _earlier_budget(copy: Path) -> None:
    budget = copy / "guard" / "budget.py"
    text = budget.read_text(encoding="utf-8")
    if "class RunProgressBudget" not in text or "from guard.limits import Limits" not in text:
        raise RedCheckError("guard/budget.py: RunProgressBudget or its Limits import not found")
    shutil.copyfile(copy / "reference" / "budget.py", copy / "guard" / "_earlier_budget.py")
    budget.write_text(text + _ADAPTER, encoding="utf-8")


def _earlier_lookup(copy: Path) -> None:
    lookup = copy / "guard" / "lookup.py"
    if not lookup.is_file():
        raise RedCheckError("guard/lookup.py: file not found")
    text = lookup.read_text(encoding="utf-8")
    if not re.search(r"^def lookup_found_nothing\(", text, re.MULTILINE):
        raise RedCheckError("guard/lookup.py: def lookup_found_nothing not found")
    lookup.write_text(text + _LOOKUP_REVERT, encoding="utf-8")


def _earlier_navigation(copy: Path) -> None:
    navigation = copy / "guard" / "navigation.py"
    if not navigation.is_file() or not re.search(r"^def navigate\(", navigation.read_text(encoding="utf-8"), re.MULTILINE):
        raise RedCheckError("guard/navigation.py: def navigate not found")
    shutil.copyfile(copy / "reference" / "navigation.py", copy / "guard" / "_earlier_navigation.py")
    navigation.write_text(navigation.read_text(encoding="utf-8") + _NAVIGATION_ADAPTER, encoding="utf-8")


VARIANTS = (
    ("earlier-budget", "the reference budget behind the production interface (new arguments ignored, no correct_fuse admission, pending_correction None)", _earlier_budget),
    ("earlier-lookup", "lookup_found_nothing always False (every non-zero exit is a failure)", _earlier_lookup),
    ("earlier-navigation", "the reference's blind wait behind guard.navigation.navigate (seed 003)", _earlier_navigation),
)

#: Per variant: the test folders (and files) of the seeds it takes back (issue 22: a variant is caught only by
#: behavioural tests of its own seed). The budget's deferral and refusal remedy are seeds 001 and 002, judged by
#: the budget's and the hook path's tests; the empty lookup is seed 000 (its classifier's tests, and the budget's
#: and hooks' lookup tests); navigation is seed 003.
OWN_TESTS = {
    "earlier-budget": ("tests/budget/", "tests/hooks/"),
    "earlier-lookup": ("tests/lookup/", "tests/budget/test_budget_lookups.py", "tests/hooks/"),
    "earlier-navigation": ("tests/navigation/",),
}


def split_catches(variant: str, failed: list[tuple[str, str]]) -> tuple[list[str], list[str]]:
    """(behavioural catches of ``variant``: assertion failures in its own seeds' tests, everything else failed
    with how it failed)."""
    own = OWN_TESTS[variant]
    caught, apart = [], []
    for nodeid, kind in failed:
        if kind == red_outcomes.ASSERTION and nodeid.startswith(own):
            caught.append(nodeid)
        else:
            why = kind if kind != red_outcomes.ASSERTION else "another seed's test"
            apart.append(f"{nodeid} ({why or 'unknown'})")
    return caught, apart


#: Per variant: the file of ``guard/`` its transform appends to, and the top-level definition it rebinds there.
REBINDS = {
    "earlier-budget": ("guard/budget.py", "RunProgressBudget"),
    "earlier-lookup": ("guard/lookup.py", "lookup_found_nothing"),
    "earlier-navigation": ("guard/navigation.py", "navigate"),
}


def _summary(tail: str) -> str:
    for line in reversed(tail.splitlines()):
        if re.search(r"\d+ (passed|failed|error)", line):
            return line.strip("= ").strip()
    return (tail.splitlines() or ["no output"])[-1]


def _run_variant(root: Path, name: str, description: str, apply, durations: Path | None, work: Path) -> Variant:
    parent = Path(tempfile.mkdtemp(prefix=f"red-{name}-", dir=work))
    try:
        copy = scratch.make(root, parent)
        try:
            apply(copy)
        except RedCheckError as error:
            return Variant(name, description, [], "", str(error), 0.0)
        outcomes = parent / "red-outcomes.tsv"
        outcome = scratch.run_pytest(copy, f"red-check:{name}", durations, stop_at_first=False, timeout=RED_TIMEOUT,
                                     # A module that no longer imports is an error to name, not a reason to run nothing.
                                     extra=("-p", "mutations.red_outcomes", f"--red-outcomes={outcomes}",
                                            "--continue-on-collection-errors"))
        failed, errored = red_outcomes.read(outcomes)
        caught, apart = split_catches(name, failed)
        problem = None
        if outcome.exit_code is None:
            problem = f"pytest timed out after {RED_TIMEOUT:.0f}s"
        elif not caught:
            # An error is not a catch: the test never ran its check against the earlier behaviour; nor is a crash,
            # a structural test, or another seed's test.
            problem = ("no behavioural test of its own seed fails against the earlier behaviour"
                       + (f" ({len(apart)} other failures, {len(errored)} errors)" if apart or errored else ""))
        return Variant(name, description, caught, _summary(outcome.output_tail), problem, outcome.seconds, errored, apart)
    finally:
        shutil.rmtree(parent, ignore_errors=True)


def dead_bodies_left_out(text: str, name: str) -> str:
    """``text`` without the bodies of the functions a variant's rebinding of ``name`` leaves unreachable.

    Each transform appends a new top-level definition of ``name`` to the
    module, so once the module has run the name is bound to it: the original
    definition's functions (the function itself, or a class's methods) can
    never be called again, and no edit to their bodies can change what the
    variant's tests see. Only the bodies are left out: decorators, signatures
    (default values run at definition), bases and every other statement of a
    class body run at import and stay. The whole text is kept when the
    original could have been taken hold of before the rebinding: a later
    top-level statement that names ``name`` as it runs (a later function's
    body runs only when called, after the rebinding, so only its decorators,
    defaults and annotations count), or a later import (which may import this
    module half-run); and when the file does not parse.
    """
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return text
    found = [(position, node) for position, node in enumerate(tree.body)
             if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name]
    if len(found) != 1:
        return text
    position, node = found[0]
    for later in tree.body[position + 1:]:
        if isinstance(later, (ast.Import, ast.ImportFrom)):
            return text
        # A later function's body runs only when called, after the rebinding; what its def runs is checked.
        ran = ([*later.decorator_list, later.args, *([later.returns] if later.returns else [])]
               if isinstance(later, (ast.FunctionDef, ast.AsyncFunctionDef)) else [later])
        if any(isinstance(item, ast.Name) and item.id == name for part in ran for item in ast.walk(part)):
            return text
    functions = [node] if not isinstance(node, ast.ClassDef) else [
        item for item in node.body if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))]
    lines = text.splitlines(keepends=True)
    for function in sorted(functions, key=lambda item: item.lineno, reverse=True):
        first = function.body[0].lineno
        if first == function.lineno:  # a one-line body shares the signature's line: keep the line
            continue
        lines[first - 1:function.end_lineno] = ["    ...  # dead once the red check rebinds " + name + "\n"]
    return "".join(lines)


def _digest(root: Path, variant: str, context: str) -> str:
    """Everything the variant's outcome depends on: every judging source and ``guard/`` as the variant runs it.

    The variant's own target file counts without the bodies its rebinding
    leaves unreachable (``dead_bodies_left_out``): a rerun after an edit to,
    say, ``RunProgressBudget.failure_ends`` reruns the other two variants, not
    ``earlier-budget``, which never runs that code. ``context`` is
    ``catalogue_runner.context_digest`` (every judging source), read once per run.
    """
    import hashlib

    target, name = REBINDS[variant]
    digest = hashlib.sha256(f"{variant}\0{context}".encode())
    for path in sorted((root / "guard").rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        relative = path.relative_to(root).as_posix()
        data = path.read_bytes()
        if relative == target:
            data = dead_bodies_left_out(data.decode("utf-8", "replace"), name).encode("utf-8")
        digest.update(relative.encode() + b"\0" + data + b"\0")
    return digest.hexdigest()


def _load_cache(path: Path | None, keys: dict[str, str]) -> dict[str, Variant]:
    """The stored red outcomes whose variant's key (``_digest``) is still the same."""
    import json

    if path is None or not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return {name: Variant(name, row["description"], list(row["failing"]), row["summary"], None, 0.0, list(row["errored"]),
                              list(row.get("apart", [])))
                for name, row in data["variants"].items() if name in keys and row.get("key") == keys[name]}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def _store_cache(path: Path | None, keys: dict[str, str], variants: list[Variant]) -> None:
    import json

    if path is None:
        return
    kept = {variant.name: {"key": keys[variant.name], "description": variant.description, "failing": variant.failing,
                           "summary": variant.summary.removesuffix(_REUSED), "errored": variant.errored,
                           "apart": variant.apart}
            for variant in variants if variant.problem is None}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"variants": kept}, indent=1, sort_keys=True) + "\n", encoding="utf-8")


_REUSED = " (reused: nothing it runs changed since it ran)"


def run(root: Path, jobs: int, durations: Path | None, cache: Path | None = None) -> list[Variant]:
    """Every variant; with ``cache``, a red outcome is reused while not one byte of what the variant runs
    changed: ``guard/`` as the variant has it, the tests, the harness, the reference, the set-up
    (``_digest``; only red outcomes are kept)."""
    from mutations.catalogue_runner import context_digest

    context = context_digest(root, with_guard=False)
    keys = {name: _digest(root, name, context) for name, _description, _apply in VARIANTS}
    reused = _load_cache(cache, keys)
    work = Path(tempfile.mkdtemp(prefix="guard-red-check-"))
    try:
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            futures = [None if name in reused else pool.submit(_run_variant, root, name, description, apply, durations, work)
                       for name, description, apply in VARIANTS]
            variants = [reused[name] if future is None else future.result()
                        for (name, _description, _apply), future in zip(VARIANTS, futures)]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for variant in variants:
        if variant.name in reused:
            variant.summary += _REUSED
    _store_cache(cache, keys, variants)
    return variants


def failures(variants: list[Variant]) -> list[str]:
    return [f"red check {variant.name}: {variant.problem}" for variant in variants if variant.problem]
