"""``python -m properties.review`` on real git histories (issue 20).

One temporary repository is built from a copy of this project
(``mutations.scratch.make``) and committed as the base; each scenario is a
branch with one commit on it, reviewed against its parent in a fresh
interpreter whose project root is that repository, as a reviewer would run
it. The verdicts run with ``--quick`` and the behaviour comparison on 2,000
budget traces, 2,000 hook sequences and 1,000 navigation scenarios, so that a
scenario costs two quick verdicts rather than two full ones (the review's own
default is the full verdict and each subject's default bulk work); only the
new-branch scenario runs mutmut, because only it is about survivors.

These tests run the review's own machinery on copies, never the mutant:
they are left out under mutation (``pyproject.toml``'s ``[tool.mutmut]``
``--ignore``, equal to ``mutations.scratch.PYTEST_ARGS``).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import pytest

from mutations import catalogue, scratch
from properties.review import scenarios

ROOT = Path(__file__).resolve().parents[2]
ENTRIES = {entry.id: entry for entry in catalogue.entries()}
SEED = "11"
QUICK = ("--quick", "--traces", "2000", "--sequences", "2000", "--scenarios", "1000", "--seed", SEED)

#: The mutation scenarios' review: quick verdicts, and the behaviour comparison cut to a token (the edited
#: function's behaviour is not what they check; the other scenarios check the comparison and the exhaustive half).
MUTATION = ("--quick", "--traces", "200", "--sequences", "200", "--scenarios", "100", "--no-exhaustive", "--seed", SEED,
            "--jobs", "2")

pytestmark = pytest.mark.slow


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-c", "user.name=review-test", "-c", "user.email=review@test", *args], cwd=repo,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def _committed(copy: Path) -> Path:
    """``copy`` as a new git repository on ``main``, its whole tree committed as the base; the review's outputs
    and caches ignored."""
    (copy / ".gitignore").write_text("__pycache__/\n*.pyc\n/reports/\n/counterexamples/\nmutants/\n.hypothesis/\n",
                                     encoding="utf-8")
    _git(copy, "init", "-q", "-b", "main")
    _git(copy, "add", "-A")
    _git(copy, "commit", "-q", "-m", "base")
    return copy


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    copy = scratch.make(ROOT, tmp_path_factory.mktemp("review"))
    yield _committed(copy)


#: The test modules the mutation scenarios' repository keeps: the budget's own unit tests, which are what reach
#: ``guard.budget.refusal_kind`` (the function both scenarios edit), and the shared set-up. Every file under
#: ``tests/`` that is not Python (the reference pin, the pinned regressions) is kept too: the verdict reads them.
LEAN_TESTS = ("tests/conftest.py", "tests/budget/test_budget_basics.py", "tests/budget/test_budget_refusal.py",
              "tests/budget/test_budget_lookups.py", "tests/budget/test_budget_deferral.py")


@pytest.fixture(scope="module")
def lean_repo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A repository like ``repo`` whose test suite is only ``LEAN_TESTS``, for the two scenarios that run mutmut.

    A survivor is a survivor of the whole suite: the review's last mutation stage runs mutmut's statistics and
    its mutants over every test file of the repository under review, which for this project's own suite was most
    of the 17 minutes one of these tests took (measured 2026-12-07). What those two tests check is the review's handling of survivors (named, with
    their diffs, new against carried over from BASE), not the size of the suite, so their repository carries a
    suite of the budget's unit tests: the mutants of ``refusal_kind``'s untested branch survive it as they survive
    the whole one (no test reaches the branch), and the stages run as they run on the project."""
    copy = scratch.make(ROOT, tmp_path_factory.mktemp("review-lean"))
    kept = {copy / name for name in LEAN_TESTS}
    assert all(path.is_file() for path in kept), sorted(str(path) for path in kept if not path.is_file())
    for path in sorted((copy / "tests").rglob("*"), reverse=True):
        if path.is_file() and path.suffix == ".py" and path not in kept:
            path.unlink()
        elif path.is_dir() and not any(path.iterdir()):
            path.rmdir()
    yield _committed(copy)


def _change(repo: Path, branch: str, edits: "tuple[tuple[str, str, str], ...] | list[tuple[str, str, str]]", message: str,
            start: str = "main") -> None:
    """A branch off ``start`` with one commit making ``edits`` (file, exact old text, new text)."""
    _git(repo, "checkout", "-q", "-B", branch, start)
    scenarios.apply(repo, tuple(edits))
    _git(repo, "commit", "-q", "-am", message)


def _scenario(repo: Path, scenario: scenarios.Scenario, start: str = "main") -> None:
    """``scenario`` (issue 20's, shared with the bench) as a branch of its name off ``start``."""
    _change(repo, scenario.name, scenario.edits, scenario.message, start)


def _env(repo: Path) -> dict[str, str]:
    """The environment a command of the repository under review runs in (no pytest or Hypothesis settings)."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PYTEST_", "HYPOTHESIS_"))}
    env.pop("MUTANT_UNDER_TEST", None)
    env.update(PYTHONPATH=str(repo), PYTHONHASHSEED="0", GUARD_SHARED=str(repo.parent / "shared"))
    return env


def _shown(repo: Path, file: Path) -> subprocess.CompletedProcess:
    """``python -m properties.review --show FILE`` in ``repo``: BASE beside HEAD."""
    return subprocess.run([sys.executable, "-m", "properties.review", "--show", str(file)], cwd=repo, env=_env(repo),
                          capture_output=True, text=True, timeout=600)


def _review(repo: Path, *arguments: str, timeout: float = 1800) -> tuple[subprocess.CompletedProcess, dict | None]:
    done = subprocess.run([sys.executable, "-m", "properties.review", *arguments], cwd=repo, env=_env(repo),
                          capture_output=True, text=True, timeout=timeout)
    assert "Traceback" not in done.stdout + done.stderr, (done.stdout + done.stderr)[-4000:]
    report = repo / "reports" / "review.json"
    data = json.loads(report.read_text(encoding="utf-8")) if report.is_file() and done.returncode != 2 else None
    if report.is_file():
        report.unlink()
    return done, data


def test_a_refactor_that_keeps_behaviour_is_no_behaviour_change(repo: Path, tmp_path: Path) -> None:
    # With a new test that holds on both sides: it cannot tell them apart, and the review names it.
    _scenario(repo, scenarios.REFACTOR)
    # A fleet's database that holds nothing: replayed against HEAD, and said so (issue 21 part 5).
    fleet = tmp_path / "fleet-db"
    fleet.mkdir()
    done, data = _review(repo, "HEAD~1", *QUICK, "--no-mutants", "--database", str(fleet))
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr
    assert data is not None
    assert data["fleet"]["status"] == 0 and "ok budget: no stored failure replays" in data["fleet"]["lines"]
    assert f"none replay ({fleet})" in (repo / "reports" / "review.md").read_text(encoding="utf-8")
    assert [c["qualified"] for c in data["changed_functions"]] == ["guard.budget.lane_of"]
    test = "tests/budget/test_budget_refusal.py::test_lane_of_keeps_only_lane_names"
    assert data["changed_tests"] == [test] and data["non_distinguishing_tests"] == [test]
    assert data["behaviour_changed"] is False
    assert data["distinguishing_traces"] == []
    # About 2,000: the bulk generator rounds each family's share down per slice.
    assert data["behaviour"]["budget"]["traces"] >= 1900 and data["behaviour"]["budget"]["steps"] > 0
    assert data["behaviour"]["hooks"]["traces"] == 2000 and data["behaviour"]["navigation"]["traces"] == 1000
    assert all(subject["traces_differing"] == 0 for subject in data["behaviour"].values())
    markdown = (repo / "reports" / "review.md").read_text(encoding="utf-8")
    assert "no change on" in markdown
    # The exhaustive half: equal to the fixpoint in every scope the review searches, of every subject, and the
    # summary says so.
    for subject in ("budget", "hooks", "navigation"):
        scopes = data["exhaustive"][subject]
        assert scopes and all(row["complete"] and not row["differs"] and row["proved"] for row in scopes), scopes
    assert "no behaviour change, equality proved to the fixpoint in scopes small c1 t2, small c2 t2, small c1 t3" \
        in "\n".join(markdown.splitlines()[:15])
    assert f"seed {SEED}" in done.stdout
    # Its live progress, off a terminal: plain lines on stderr naming the phase, never on stdout (issue 23).
    assert re.search(r"^progress: review: \d/6 phases done, [a-z' ]+, \d+ s$", done.stderr, re.M), done.stderr[-3000:]
    assert "progress:" not in done.stdout


def test_a_change_outside_guard_compares_no_behaviour_and_says_why(repo: Path) -> None:
    # A new test and nothing else: guard/ is the same tree at both sides, so the guard's behaviour cannot differ;
    # the review says so instead of comparing it, and does not run the new test against BASE's identical guard.
    new_test = "def test_lane_of_names_only_lanes() -> None:\n    from guard.budget import lane_of\n\n" \
               "    assert lane_of(\"extension\") == \"extension\" and lane_of(\"global\") is None\n\n\n"
    anchor = "def test_a_lane_refusal_is_never_granted_even_at_the_global_fuse() -> None:\n"
    _change(repo, "outside-guard", [("tests/budget/test_budget_refusal.py", anchor, new_test + anchor)],
            "a test only")
    done, data = _review(repo, "HEAD~1", *QUICK, "--no-mutants")
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr
    assert data is not None
    assert data["same_guard"] and data["changed_functions"] == [] and data["behaviour_changed"] is False
    assert data["behaviour"] == {} and data["exhaustive"] is None and data["distinguishing_traces"] == []
    test = "tests/budget/test_budget_refusal.py::test_lane_of_names_only_lanes"
    assert data["changed_tests"] == [test]
    assert data["tests_failing_on_base"] == [] and data["non_distinguishing_tests"] == []
    assert "guard/ is the same tree at BASE and HEAD" in "\n".join(data["summary"])
    assert "exhaustive comparison" not in data["cpu_seconds"]
    assert "review: guard/ is the same tree at BASE and HEAD" in done.stdout
    # review.md's bulk section says why it holds no comparison instead of standing empty.
    page = (repo / "reports" / "review.md").read_text(encoding="utf-8")
    bulk = page.split("## How the behaviour changed (seeded bulk work, BASE beside HEAD)", 1)[1].split("\n## ", 1)[0]
    assert "guard/ is the same tree at BASE and HEAD" in bulk and "nothing was compared" in bulk, bulk
    # Both verdicts still ran: the harness may have changed, and part 3 is about the promises, not the guard.
    assert {row["id"] for row in data["invariants"] if "base" in row and "head" in row} >= {"B1", "H1", "N1"}


def test_a_stricter_rule_changes_behaviour_within_the_promises(repo: Path) -> None:
    # Seed 002 promises a remedy once per refusal kind; once per run is stricter and keeps every promise.
    # The unit test of the old rule is rewritten for the new one, as the change's author would.
    # The author also moves the harness's own tests and catalogue off two grants in one run, which the rule ends
    # (``properties.review.scenarios.STRICTER``).
    _scenario(repo, scenarios.STRICTER)
    done, data = _review(repo, "HEAD~1", *QUICK, "--no-mutants")
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr
    assert data is not None
    assert data["behaviour_changed"] is True
    test = "tests/budget/test_budget_refusal.py::test_a_second_kind_gets_its_own_single_grant"
    history = "tests/budget/test_step_record.py::test_kept_steps_read_their_own_moment"
    harness = "tests/budget/test_b9_reference_fuse.py::test_a_p_that_charges_twice_past_the_fuse_breaks_b9"
    assert sorted(data["changed_tests"]) == sorted([test, history, harness])
    # The rewritten unit test and the history test (one admission now) fail on BASE's guard; the harness's B9
    # test passes on both (it judges the harness, not the rule), so it is named as not telling the sides apart.
    assert sorted(data["tests_failing_on_base"]) == sorted([test, history])
    assert data["non_distinguishing_tests"] == [harness]
    assert [c["qualified"] for c in data["changed_functions"]] == ["guard.budget.RunProgressBudget._observe_failure"]
    assert "002" in data["changed_functions"][0]["seeds"]
    assert "same-kind-twice" in [entry["id"] for entry in data["changed_functions"][0]["catalogue_entries"]]
    traces = data["distinguishing_traces"]
    assert traces
    # The exhaustive half: a refusal granted, its remedy admitted, the other kind refused: three events, the
    # shortest there is, where BASE grants the second kind and HEAD does not.
    exhaustive = [item for item in traces if item["trace"] == "exhaustive"]
    pending = [item for item in exhaustive if item["observable"] == "pending_correction"]
    assert pending and pending[0]["steps"] == 3 and pending[0]["scope"] == "small c1 t3", exhaustive
    assert pending[0]["descriptions"][1] == "first_call remedy yes", pending[0]
    assert "budget differs exhaustively in" in (repo / "reports" / "review.md").read_text(encoding="utf-8")
    shortest = pending[0]
    file = Path(shortest["file"])
    assert file.is_file()
    env = _env(repo)
    shown = _shown(repo, file)
    assert shown.returncode == 0, shown.stderr
    # The last step of the saved prefix is where the two sides part, and the table marks it.
    assert re.search(rf"^\| {shortest['steps'] - 1} \* \|", shown.stdout, re.M), shown.stdout
    replayed = subprocess.run([sys.executable, "-m", "properties.replay", str(file)], cwd=repo, env=env,
                              capture_output=True, text=True, timeout=600)
    assert replayed.returncode == 0, replayed.stdout[-3000:]


def test_a_hook_change_is_told_apart_on_the_hook_path_alone(repo: Path) -> None:
    # What the host receives when a run stops changes (seed 000's stop text); the budget and navigation do not.
    _change(repo, "stoptext", [("guard/hooks.py", '"previously verified publications were preserved. ',
                                '"previously verified publications were kept. ')], "reword the stop text")
    done, data = _review(repo, "HEAD~1", *QUICK, "--no-mutants")
    assert data is not None, done.stdout[-4000:] + done.stderr
    behaviour = data["behaviour"]
    assert behaviour["hooks"]["traces_differing"] > 0, behaviour["hooks"]
    assert behaviour["hooks"]["by_observable"]["received"]["traces"] > 0
    assert behaviour["budget"]["traces_differing"] == 0 and behaviour["navigation"]["traces_differing"] == 0
    hooks = [item for item in data["distinguishing_traces"] if item["subject"] == "hooks" and item["trace"] != "exhaustive"]
    assert [item["observable"] for item in hooks] == ["received"], hooks
    # The exhaustive half finds it too, on the shortest run of the hook scope that reaches the stop text, and
    # proves the budget and navigation unchanged on theirs.
    proved = data["exhaustive"]
    assert [row["differs"] for row in proved["hooks"]] == [["received"]], proved["hooks"]
    assert all(row["complete"] and not row["differs"] for row in proved["navigation"] + proved["budget"]), proved
    exhaustive = [item for item in data["distinguishing_traces"] if item["subject"] == "hooks" and item["trace"] == "exhaustive"]
    assert [item["observable"] for item in exhaustive] == ["received"], exhaustive
    assert exhaustive[0]["steps"] <= hooks[0]["steps"] and exhaustive[0]["table"], exhaustive
    file = Path(hooks[0]["file"])
    assert json.loads(file.read_text(encoding="utf-8"))["schema"] == "guard-hook-sequence/1"
    env = _env(repo)
    # What `nox -s replay -- FILE` runs: the file's own replay, then BASE beside HEAD with the parting step marked.
    shown = subprocess.run([sys.executable, "-m", "properties.review.replay", str(file)], cwd=repo, env=env,
                           capture_output=True, text=True, timeout=600)
    beside = shown.stdout.split(": BASE beside HEAD", 1)
    assert len(beside) == 2, shown.stdout[-3000:] + shown.stderr
    assert re.search(rf"^\| {hooks[0]['steps'] - 1} \* \|", beside[1], re.M), beside[1]


def test_a_classifier_change_is_told_apart_on_the_lookup_receipts(repo: Path) -> None:
    # The lookup classifier is compared through its review side (properties/lookup/review_side.py, which its
    # SUBJECT names and the review finds through the registry). Accepting `||` as a joiner (the catalogue's
    # lookup-accepts-or) changes its answer on hostile receipts of the verdict's own corpus, and breaks L4.
    entry = ENTRIES["lookup-accepts-or"]
    _change(repo, "accepts-or", [(entry.file, edit.find, edit.replace) for edit in entry.edits], "accept ||")
    done, data = _review(repo, "HEAD~1", *QUICK, "--no-mutants")
    assert done.returncode == 1, done.stdout[-4000:] + done.stderr
    assert data is not None
    lookup = data["behaviour"]["lookup"]
    assert lookup["unit"] == "receipts" and lookup["traces"] > 2000, lookup
    assert lookup["traces_differing"] > 0 and lookup["by_observable"]["found_nothing"]["traces"] > 0, lookup
    assert data["not_compared"] == []
    found = [item for item in data["distinguishing_traces"] if item["subject"] == "lookup"]
    assert [item["observable"] for item in found] == ["found_nothing"] and found[0]["steps"] == 1, found
    file = Path(found[0]["file"])
    assert json.loads(file.read_text(encoding="utf-8"))["schema"] == "guard-lookup-trace/1"
    shown = _shown(repo, file)
    assert shown.returncode == 0, shown.stderr
    assert re.search(r"^\| 0 \* \|", shown.stdout, re.M), shown.stdout
    assert any("L4" in row["id"] and row["head"]["status"] != row["base"]["status"] for row in data["invariants"]
               if "base" in row and "head" in row), data["invariants"]


def test_a_rule_bug_names_the_broken_invariant(repo: Path) -> None:
    # The catalogue's own plant: the grant no longer checks the kinds already corrected (seed 002, B8).
    entry = ENTRIES["same-kind-twice"]
    assert entry.breaks == ("B8",)
    assert scenarios.RULE_BUG.edits == tuple((entry.file, edit.find, edit.replace) for edit in entry.edits)
    _scenario(repo, scenarios.RULE_BUG)
    done, data = _review(repo, "HEAD~1", *QUICK, "--no-mutants")
    assert done.returncode == 1, done.stdout[-4000:] + done.stderr
    assert data is not None
    assert [b["id"] for b in data["broken_invariants"]] == ["B8"]
    assert any(line.startswith("VIOLATED B8") for line in data["violated_lines"])
    assert data["counterexamples"]
    assert "B8" in (repo / "reports" / "review.md").read_text(encoding="utf-8").splitlines()[6]
    # The exhaustive half tells the bug from BASE too: the second grant of one kind is a pending correction.
    assert any("pending_correction" in row["differs"] for row in data["exhaustive"]["budget"]), data["exhaustive"]


def test_an_unadopted_reference_edit_fails_and_comes_first(repo: Path) -> None:
    _scenario(repo, scenarios.REFERENCE)
    done, data = _review(repo, "HEAD~1", *QUICK, "--no-mutants")
    assert done.returncode == 1, done.stdout[-4000:]
    assert data is not None
    assert data["reference_changed"] is True and data["reference_adopted"] is False
    assert data["failures"][0].startswith("reference/ changed without adoption")
    summary = (repo / "reports" / "review.md").read_text(encoding="utf-8").splitlines()
    assert summary[2] == "- reference/: CHANGED WITHOUT ADOPTION"


def test_a_bad_base_and_a_dirty_tree_are_one_line_and_exit_2(repo: Path) -> None:
    _git(repo, "checkout", "-q", "main")
    done, _data = _review(repo, "no-such-commit")
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "does not resolve" in done.stderr
    done, _data = _review(repo, "HEAD", "--database", "/etc/hostname")
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "--database" in done.stderr, done.stderr
    (repo / "guard" / "budget.py").write_text((repo / "guard" / "budget.py").read_text() + "\n", encoding="utf-8")
    try:
        done, _data = _review(repo, "HEAD")
        assert done.returncode == 2
        assert done.stderr.strip().count("\n") == 0 and "dirty" in done.stderr
    finally:
        _git(repo, "checkout", "-q", "--", "guard/budget.py")


def test_a_new_branch_no_test_reaches_has_named_survivors(lean_repo: Path) -> None:
    repo = lean_repo
    _scenario(repo, scenarios.UNTESTED)
    done, data = _review(repo, "HEAD~1", *MUTATION, timeout=5400)
    assert done.returncode == 1, done.stdout[-4000:] + done.stderr
    assert data is not None
    names = [survivor["name"] for survivor in data["new_survivors"]]
    assert names and all("refusal_kind" in name for name in names), names
    assert all(survivor["diff"] for survivor in data["new_survivors"])
    assert (repo / "reports" / "review-mutants.json").is_file()


def test_a_survivor_that_survived_at_base_too_is_carried_over_not_new(lean_repo: Path) -> None:
    """BASE already has the untested branch; HEAD only rewrites the docstring of the same function, two lines now,
    so every mutant moves down a line. The survivors at HEAD are the same mutations BASE's tests let through:
    matched by unit and one-line diff, judged at BASE by BASE's own suite, they are carried over and the review
    passes. (The docstring edit is a real edit of the function: its mutants are generated and tested again.)"""
    repo = lean_repo
    assert scenarios.CARRIED.before is scenarios.UNTESTED
    _change(repo, "untested-before", scenarios.UNTESTED.edits, scenarios.UNTESTED.message)
    _change(repo, "untested-carried", scenarios.CARRIED.edits, scenarios.CARRIED.message, start="untested-before")
    done, data = _review(repo, "HEAD~1", *MUTATION, timeout=5400)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr
    assert data is not None and data["new_survivors"] == [], data and data["new_survivors"]
    carried = data["carried_survivors"]
    assert carried and all("refusal_kind" in row["name"] for row in carried), carried
    assert all(row["at_base"] in ("survived", "no tests") and row["base_twin"] for row in carried), carried
    # Every mutant moved down a line, so a twin pairs by its diff, never by its place.
    assert all(row["one_line"].startswith("`") for row in carried)
    assert "carried over from BASE" in "\n".join(data["summary"])


def test_the_product_model_proves_a_copy_equal_and_finds_a_stricter_rule_on_a_shortest_trace(tmp_path: Path) -> None:
    # No git history: two copies of guard/ imported apart in this process (properties.guard_versions).
    import shutil

    from properties import guard_versions as guards
    from properties.budget import review_model as budget_model
    from properties.review import product

    same, strict = tmp_path / "same" / "guard", tmp_path / "strict" / "guard"
    shutil.copytree(ROOT / "guard", same, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "guard", strict, ignore=shutil.ignore_patterns("__pycache__"))
    budget = strict / "budget.py"
    text = budget.read_text(encoding="utf-8")
    budget.write_text(text.replace("            and kind not in self.corrected_kinds\n",
                                   "            and not self.corrected_kinds\n"), encoding="utf-8")
    head = guards.load(ROOT / "guard", "HEAD")
    assert guards.load(same, "BASE").module("budget").RunProgressBudget is not head.module("budget").RunProgressBudget
    equal = product.compare_scope(budget_model.COMPARABLE, guards.load(same, "BASE"), head, "small c2 t2")
    assert equal.complete and not equal.differences and equal.proved == budget_model.COMPARABLE.observables
    changed = product.compare_scope(budget_model.COMPARABLE, guards.load(strict, "BASE"), head, "small c1 t3",
                                    seconds=20)
    first = changed.differences[0]
    assert "pending_correction" in first.kinds and len(first.events) == 3, first
    assert not changed.proved or changed.complete


def test_the_product_model_finds_a_change_to_failure_ends_alone(tmp_path: Path) -> None:
    """A guard whose ``failure_ends`` alone changed (at the total cap's edge it answers "no" for a correctable
    failure) differs from HEAD in that observable and no other, on the shortest trace: two correctable failures.

    The product asks ``failure_ends`` once per state and probe (``budget_model.observe``): this is the case
    where the same state is asked about an uncorrectable failure too, and must not reuse its answer."""
    import shutil

    from properties import guard_versions as guards
    from properties.budget import review_model as budget_model, review_side as budget_side
    from properties.review import product

    changed_guard = tmp_path / "ends" / "guard"
    shutil.copytree(ROOT / "guard", changed_guard, ignore=shutil.ignore_patterns("__pycache__"))
    budget = changed_guard / "budget.py"
    text = budget.read_text(encoding="utf-8")
    old = "        if self.failures + 1 >= limits.total_failures:\n            return True\n"
    assert text.count(old) == 1
    budget.write_text(text.replace(old, "        if self.failures + 1 >= limits.total_failures:\n"
                                        "            return correctable is not True\n"), encoding="utf-8")
    found = product.compare_scope(budget_model.COMPARABLE, guards.load(changed_guard, "BASE"),
                                  guards.load(ROOT / "guard", "HEAD"), "small c1 t2")
    assert found.complete and found.differences, found
    assert {kind for difference in found.differences for kind in difference.kinds} == {"failure_ends"}
    first = found.differences[0]
    assert [budget_side.describe(event) for event in first.events] == ["result failed C", "result failed C"], first


@pytest.mark.parametrize("subject, planted, scope", [
    # The stopped run's abort forgotten: the host is never told to end the run (hooks.md, seed 002).
    ("hooks", ("hooks.py", "        self.aborted = True\n        return STOP_TEXT", "        return STOP_TEXT"),
     "hooks playground n4"),
    # The no-progress bound one result late (seed 003).
    ("navigation", ("navigation_evidence.py", "self.streak >= self.limits.no_progress",
                    "self.streak > self.limits.no_progress"), "navigation n4"),
])
def test_every_run_of_a_recorded_scope_is_compared_and_a_planted_change_found_on_a_shortest_run(
        tmp_path: Path, subject: str, planted: tuple[str, str, str], scope: str) -> None:
    # Each side writes its tree in an interpreter of its own (properties.review.recorded); no git history needed.
    import shutil

    from properties import guard_versions as guards
    from properties.review import product, recorded

    same, changed = tmp_path / "same" / "guard", tmp_path / "changed" / "guard"
    shutil.copytree(ROOT / "guard", same, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "guard", changed, ignore=shutil.ignore_patterns("__pycache__"))
    file, find, replace = planted
    text = (changed / file).read_text(encoding="utf-8")
    assert text.count(find) == 1
    (changed / file).write_text(text.replace(find, replace), encoding="utf-8")
    comparable = recorded.RecordedComparable(subject)
    head = guards.load(ROOT / "guard", "HEAD")
    comparable.prepare([guards.load(same, "BASE"), guards.load(changed, "CHANGED"), head], [scope])
    equal = product.compare_scope(comparable, guards.load(same, "BASE"), head, scope)
    assert equal.complete and not equal.differences and equal.proved == comparable.observables, equal
    # The whole tree was compared: every run of the verdict's own model of the scope.
    model = comparable.model(head, scope)
    assert equal.states == len(model.nodes) > 1000, (equal.states, len(model.nodes))
    found = product.compare_scope(comparable, guards.load(changed, "CHANGED"), head, scope)
    assert found.complete and found.differences and "stop" in found.differences[0].kinds, found
    first = found.differences[0]
    # Breadth first: no shorter run tells them apart in "stop" (checked against the trees themselves).
    base_model = comparable.model(guards.load(changed, "CHANGED"), scope)
    shorter = [key for key in model.nodes if len(key[1]) < len(first.events) and key[1]
               and (base_model.row(key).get("stop") != model.row(key).get("stop"))]
    assert not shorter, shorter[:3]
    saved = tmp_path / "run.json"
    comparable.save(model, first.start, first.events, saved, "review base=x head=y seed=1")
    item, origin = recorded.behaviour.side(subject).load(saved)
    assert origin == "review base=x head=y seed=1"
    assert len(recorded.behaviour.side(subject).rows_of(item)) >= 1
