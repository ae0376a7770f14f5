"""The red check: the new tests, run against the earlier behaviour, must fail.

Scratch copies, each with one earlier behaviour put back behind the
production interface. Each behaviour is a module of ``mutations/earlier/``
(``VARIANTS`` pairs it with the definition it replaces): the transform copies
that module, and the reference's module of the earlier rules when it needs
one, into the copy's ``guard/`` (``red_check_earlier.py``,
``red_check_rules.py``; so the copy's guard still imports nothing from
``reference``), and appends to the target file the one statement that rebinds
the definition to what the module builds:

* ``earlier-budget``: ``RunProgressBudget`` over the reference budget rules
  (``mutations/earlier/budget.py``).
* ``earlier-lookup``: ``lookup_found_nothing`` always answers False, i.e.
  every non-zero exit is a failure again (``mutations/earlier/lookup.py``).
* ``earlier-navigation``: ``navigate`` waits for the child the earlier way
  (``mutations/earlier/navigation.py`` over ``reference/navigation.py``).

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

from mutations import content_cache, red_outcomes, scratch

RED_TIMEOUT = 900.0


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


@attrs.frozen
class EarlierBehaviour:
    """One variant: which definition of which ``guard/`` file goes back to its earlier behaviour, and how."""

    name: str
    description: str
    #: The ``guard/`` file whose definition is rebound, and the top-level name rebound there.
    target: str
    rebinds: str
    #: The module of ``mutations/earlier/`` that builds the replacement.
    module: str
    #: The reference's module of the earlier rules the replacement wraps, or "" when it needs none.
    rules: str = ""


VARIANTS = (
    EarlierBehaviour("earlier-budget", "the reference budget behind the production interface (new arguments ignored, "
                     "no correct_fuse admission, pending_correction None)", "guard/budget.py", "RunProgressBudget",
                     "mutations/earlier/budget.py", "reference/budget.py"),
    EarlierBehaviour("earlier-lookup", "lookup_found_nothing always False (every non-zero exit is a failure)",
                     "guard/lookup.py", "lookup_found_nothing", "mutations/earlier/lookup.py"),
    EarlierBehaviour("earlier-navigation", "the reference's blind wait behind guard.navigation.navigate (seed 003)",
                     "guard/navigation.py", "navigate", "mutations/earlier/navigation.py", "reference/navigation.py"),
)
#: Where the transform puts the two modules inside the copy's ``guard/``.
EARLIER_MODULE = "red_check_earlier"
RULES_MODULE = "red_check_rules"


def rebinding(variant: EarlierBehaviour) -> str:
    """The statements appended to ``variant.target``: the definition rebound to the earlier behaviour."""
    imports = f"from guard import {EARLIER_MODULE} as red_check_earlier_behaviour\n"
    rules = "None"
    if variant.rules:
        imports += f"from guard import {RULES_MODULE} as red_check_earlier_rules\n"
        rules = "red_check_earlier_rules"
    return (f"\n\n# ---- red check (scratch copy only): {variant.rebinds} is {variant.module}'s earlier behaviour ----\n"
            f"{imports}\n{variant.rebinds} = red_check_earlier_behaviour.earlier(globals(), {rules})\n")


def put_back(copy: Path, variant: EarlierBehaviour) -> None:
    """Put ``variant``'s earlier behaviour back in the scratch copy ``copy``; RedCheckError when its target is gone."""
    target = copy / variant.target
    if not target.is_file():
        raise RedCheckError(f"{variant.target}: file not found")
    text = target.read_text(encoding="utf-8")
    if not re.search(rf"^(def|class) {re.escape(variant.rebinds)}\b", text, re.MULTILINE):
        raise RedCheckError(f"{variant.target}: def or class {variant.rebinds} not found")
    shutil.copyfile(copy / variant.module, copy / "guard" / f"{EARLIER_MODULE}.py")
    if variant.rules:
        shutil.copyfile(copy / variant.rules, copy / "guard" / f"{RULES_MODULE}.py")
    target.write_text(text + rebinding(variant), encoding="utf-8")


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
REBINDS = {variant.name: (variant.target, variant.rebinds) for variant in VARIANTS}


def _summary(tail: str) -> str:
    for line in reversed(tail.splitlines()):
        if re.search(r"\d+ (passed|failed|error)", line):
            return line.strip("= ").strip()
    return (tail.splitlines() or ["no output"])[-1]


def _run_variant(root: Path, behaviour: EarlierBehaviour, durations: Path | None, work: Path) -> Variant:
    name, description = behaviour.name, behaviour.description
    parent = Path(tempfile.mkdtemp(prefix=f"red-{name}-", dir=work))
    try:
        copy = scratch.make(root, parent)
        try:
            put_back(copy, behaviour)
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


def variant_key(root: Path, variant: str, context: str) -> str:
    """Everything the variant's outcome depends on: every judging source and ``guard/`` as the variant runs it.

    The variant's own target file counts without the bodies its rebinding
    leaves unreachable (``dead_bodies_left_out``): a rerun after an edit to,
    say, ``RunProgressBudget.failure_ends`` reruns the other two variants, not
    ``earlier-budget``, which never runs that code. ``context`` is
    ``content_cache.judging_sources(root, with_guard=False)``, read once per run.
    """
    target, name = REBINDS[variant]

    def as_run(relative: str, data: bytes) -> bytes:
        if relative != target:
            return data
        return dead_bodies_left_out(data.decode("utf-8", "replace"), name).encode("utf-8")

    return content_cache.key(variant, context, content_cache.tree_digest(root, ["guard"], (".py",), as_run))


def reused_outcomes(cache: content_cache.Cache, keys: dict[str, str]) -> dict[str, Variant]:
    """The stored red outcomes whose variant's key (``variant_key``) is still the same."""
    found = {}
    for name, current in keys.items():
        row = cache.get(name, current)
        try:
            if row is not None:
                found[name] = Variant(name, row["description"], list(row["failing"]), row["summary"], None, 0.0,
                                      list(row["errored"]), list(row.get("apart", [])))
        except (KeyError, TypeError):
            continue
    return found


REUSED = " (reused: nothing it runs changed since it ran)"


def keep_red(cache: content_cache.Cache, keys: dict[str, str], variants: list[Variant]) -> None:
    """Keep every red outcome (a variant with no problem) under its key for the next run; a variant that caught
    nothing is always run again."""
    for variant in variants:
        if variant.problem is None:
            cache.keep(variant.name, keys[variant.name], {
                "description": variant.description, "failing": variant.failing,
                "summary": variant.summary.removesuffix(REUSED), "errored": variant.errored, "apart": variant.apart})


def run(root: Path, jobs: int, durations: Path | None, cache: Path | None = None) -> list[Variant]:
    """Every variant; with ``cache``, a red outcome is reused while not one byte of what the variant runs
    changed: ``guard/`` as the variant has it, the tests, the harness, the reference, the set-up
    (``variant_key``; only red outcomes are kept)."""
    context = content_cache.judging_sources(root, with_guard=False)
    keys = {variant.name: variant_key(root, variant.name, context) for variant in VARIANTS}
    stored = content_cache.Cache.load(cache)
    reused = reused_outcomes(stored, keys)
    work = Path(tempfile.mkdtemp(prefix="guard-red-check-"))
    try:
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            futures = [None if variant.name in reused else pool.submit(_run_variant, root, variant, durations, work)
                       for variant in VARIANTS]
            variants = [reused[variant.name] if future is None else future.result()
                        for variant, future in zip(VARIANTS, futures)]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for variant in variants:
        if variant.name in reused:
            variant.summary += REUSED
    keep_red(stored, keys, variants)
    stored.save()
    return variants


def failures(variants: list[Variant]) -> list[str]:
    return [f"red check {variant.name}: {variant.problem}" for variant in variants if variant.problem]
