"""The changes issue 20 asks the review to be shown on, as data: each one commit of exact edits on this tree.

``tests/core/test_review.py`` commits each on a branch of a scratch repository
and checks what the review says of it; ``python -m properties.bench
--review-scenarios`` commits each on a worktree of HEAD and times the
review with its defaults, one scenario at a time, beside one default run
(the issue's note asks for each scenario's wall time, measured alone). One
list, so that the changes timed are the changes tested.

An edit is (file, exact old text, new text); the old text must occur exactly
once in the file (``apply`` refuses otherwise, naming the file), so a
scenario that no longer fits the tree fails loudly instead of reviewing a
different change.
"""

from __future__ import annotations

from pathlib import Path

import attrs

#: Where the refactor's new test goes (before this test of the same file).
_ANCHOR = "def test_a_lane_refusal_is_never_granted_even_at_the_global_fuse() -> None:\n"
_REFUSAL_TESTS = "tests/budget/test_budget_refusal.py"
_UNTESTED_BRANCH = (
    "guard/budget.py",
    '    if isinstance(value, str) and value:\n        return value\n',
    '    if value == "any-kind":\n        return "anything"\n    if isinstance(value, str) and value:\n        return value\n',
)


@attrs.frozen
class Scenario:
    """One change to review against its parent commit."""

    #: Short name (a branch name in the tests, a row name in the bench).
    name: str
    #: What the change is, as the issue names it.
    title: str
    #: The commit's message.
    message: str
    edits: tuple[tuple[str, str, str], ...]
    #: The review's exit status with its defaults (issue 20 part 5).
    exit: int
    #: A scenario committed first, as the reviewed commit's parent (the carried-over survivor's BASE).
    before: "Scenario | None" = None


def apply(root: Path, edits: tuple[tuple[str, str, str], ...]) -> None:
    """Make ``edits`` in the tree at ``root``; ValueError naming the file when an old text is not there exactly once."""
    for file, find, replace in edits:
        path = root / file
        text = path.read_text(encoding="utf-8")
        if text.count(find) != 1:
            raise ValueError(f"{file}: the scenario's old text occurs {text.count(find)} times, not once")
        path.write_text(text.replace(find, replace), encoding="utf-8")


#: A refactor that keeps behaviour (``lane_of`` in one expression), with a new test that holds on both sides.
REFACTOR = Scenario(
    "refactor", "a refactor of a guard function that keeps its behaviour", "lane_of in one expression", (
        ("guard/budget.py", '    if isinstance(lane, str) and lane in LANES:\n        return lane\n    return None\n',
         '    return lane if isinstance(lane, str) and lane in LANES else None\n'),
        (_REFUSAL_TESTS, _ANCHOR,
         "def test_lane_of_keeps_only_lane_names() -> None:\n    from guard.budget import lane_of\n\n"
         "    assert lane_of(\"workspace\") == \"workspace\" and lane_of(7) is None\n\n\n" + _ANCHOR),
    ), exit=0)

#: The catalogue entry the stricter rule makes unkillable: with one remedy per run, no kind is granted after
#: project-path, so planting a grant of first-write after it changes nothing. The rule's author retires it.
_SUBSUMED_ENTRY = (
    '    Entry(\n        "first-write-granted-at-cap-after-project-path", "002",\n'
    '        "first-write is granted at the total cap once project-path alone was granted (one kind only)",\n'
    '        BUDGET_PY, SUBJECT,\n        (\n            Edit(\n'
    '                "            and self.failures < limits.total_failures\\n",\n'
    '                "            and (self.failures < limits.total_failures\\n"\n'
    "                '                 or (kind == \"playground-first-write\" and self.corrected_kinds == "
    "{\"playground-project-path\"}))\\n',\n"
    '            ),\n        ),\n        breaks=("B8",),\n    ),\n'
)

#: Seed 002 promises a remedy once per refusal kind; once per run is stricter and keeps every promise. The unit
#: test of the old rule is rewritten for the new one, as the change's author would.
STRICTER = Scenario(
    "stricter", "a stricter rule that keeps every promise (one remedy per run)", "one remedy per run, not per kind", (
        ("guard/budget.py", "            and kind not in self.corrected_kinds\n", "            and not self.corrected_kinds\n"),
        (_REFUSAL_TESTS,
         "    assert budget.pending_correction == PROJECT_PATH\n    assert budget.correct_fuse(True) is True\n"
         "    assert not budget.terminal\n    refuse(budget, PROJECT_PATH)\n"
         "    assert budget.terminal and budget.pending_correction is None\n",
         "    assert budget.pending_correction is None\n"),
        # Two admissions in one streak no longer happen: the harness's own test of B9's count plants its double
        # charge on a wait and one admission instead (it breaks B9 under either rule).
        ("tests/budget/test_b9_reference_fuse.py", '    assert "B9" in violated(two_admissions())\n',
         '    assert "B9" in violated(waited_then_admitted())\n'),
        # The harness's own tests that built two grants in one run follow it too: the history test admits once
        # and stops at the second kind, and the refusal-kind symmetry plant keeps the one granted correction of
        # the kind the canonical form drops.
        ("tests/budget/test_step_record.py",
         "    # P admits both remedies. Pr has no empty-lookup or correctable flag, so the lookup and the correctable\n"
         "    # failure are its third and fourth failures: it stops at the fuse before the refusals and admits none.\n"
         "    assert last[1] == {\"P\": 2, \"Pr\": 0}\n"
         "    # P's streak ends at the success; Pr's four failures reached the fuse and, stopped, it never resets.\n"
         "    assert any(values[3][\"P\"] > 0 for values in seen) and last[3] == {\"P\": 0, \"Pr\": 4}\n"
         "    assert any(values[2][\"P\"] == 2 for values in seen) and last[2] == {\"P\": 0, \"Pr\": 0}\n",
         "    # P admits the first remedy and stops at the second kind (one remedy per run). Pr stops at the fuse\n"
         "    # before the refusals and admits none.\n"
         "    assert last[1] == {\"P\": 1, \"Pr\": 0}\n"
         "    # Both stopped at the fuse with four in a row, and a stopped run never resets.\n"
         "    assert last[3] == {\"P\": 4, \"Pr\": 4}\n"
         "    assert any(values[2][\"P\"] == 1 for values in seen) and last[2] == {\"P\": 1, \"Pr\": 0}\n"),
        ("tests/budget/test_explorer.py",
         '    """Seed 002 broken for one kind: once both kinds were granted, the first-write correction survives its first call."""\n',
         '    """Seed 002 broken for one kind: the project-path correction, the run\'s one grant, survives its first call."""\n'),
        ("tests/budget/test_explorer.py",
         "        if held == FIRST_WRITE and len(self.corrected_kinds) == 2:\n",
         "        if held == \"playground-project-path\" and self.corrected_kinds == {held}:\n"),
        # The rule catalogue follows the rule: same-kind-twice plants on the new condition, and the entry the new
        # rule subsumes is retired (else the review would rightly name it a survivor nothing can kill).
        ("mutations/entries/budget.py", 'Edit("            and kind not in self.corrected_kinds\\n", "")',
         'Edit("            and not self.corrected_kinds\\n", "")'),
        ("mutations/entries/budget.py", _SUBSUMED_ENTRY, ""),
    ), exit=0)

#: The rule catalogue's ``same-kind-twice`` plant (seed 002, B8): the grant forgets the kinds already corrected.
#: ``tests/core/test_review_scenarios.py`` checks that it is still the catalogue's edit.
RULE_BUG = Scenario(
    "bug", "a rule bug (the catalogue's same-kind-twice)", "the remedy may run again",
    (("guard/budget.py", "            and kind not in self.corrected_kinds\n", ""),), exit=1)

#: A branch no test reaches: a refusal kind nobody sends.
UNTESTED = Scenario("untested", "a new branch that no test reaches", "a refusal kind nobody sends", (_UNTESTED_BRANCH,),
                    exit=1)

#: An edit of the oracle nobody adopted (the pin does not match).
REFERENCE = Scenario(
    "reference", "an edit to reference/ without adoption", "edit the oracle",
    (("reference/budget.py", "from __future__ import annotations\n",
      "from __future__ import annotations\n\n# an edit nobody adopted\n"),), exit=1)

#: BASE already has the untested branch; HEAD only rewrites the same function's docstring, so every mutant moves
#: down a line and the survivors are BASE's own, carried over.
CARRIED = Scenario(
    "carried", "a survivor BASE had too, carried over", "refusal_kind: a longer docstring", (
        ("guard/budget.py", '    """A correctable refusal kind counts only as a non-empty string."""\n',
         '    """A correctable refusal kind counts only as a non-empty string.\n\n    Reworded only: the code is BASE\'s."""\n'),
    ), exit=0, before=UNTESTED)

#: Issue 20's five scenarios, then the carried-over survivor, in the order the bench times them.
ALL = (REFACTOR, STRICTER, RULE_BUG, UNTESTED, REFERENCE, CARRIED)
BY_NAME = {scenario.name: scenario for scenario in ALL}


# -- timing: ``python -m properties.review.scenarios`` (``nox -s bench -- --review-scenarios``) ------------------


def _git(tree: Path, *args: str) -> None:
    import subprocess

    done = subprocess.run(["git", "-c", "user.name=bench", "-c", "user.email=bench@localhost", *args], cwd=tree,
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"git {args[0]}: {done.stderr.strip()[-200:]}")


def main(argv: "list[str] | None" = None) -> int:
    """Each scenario reviewed with the review's defaults, one at a time, beside one default run first.

    Each scenario is committed on a detached worktree of HEAD (its ``before`` first, when it has one) and
    reviewed against its parent (``python -m properties.review HEAD~1 --seed S --quiet``); the worktree is reset
    to HEAD between scenarios. Prints one row per scenario (wall, CPU, exit and the exit the scenario expects, the
    ratio to the default run) and keeps each ``review.md`` under ``--out`` as ``review-<name>.md``. Stopped by
    Ctrl-C, SIGTERM or ``--timeout``, it stops the running review's whole process group and removes its worktree."""
    import argparse
    import os
    import shutil
    import subprocess
    import sys
    import tempfile

    from properties.paths import ROOT, shared_dir
    from properties.process_group import exit_on_sigterm, timed

    parser = argparse.ArgumentParser(prog="python -m properties.review.scenarios",
                                     description="Each scenario reviewed with the review's defaults, one at a time, "
                                                 "beside one default run.")
    parser.add_argument("--seed", type=int, default=20240601, help="the seed of every run (default: the bench's)")
    parser.add_argument("--only", action="append", choices=sorted(BY_NAME), help="only this scenario (repeatable)")
    parser.add_argument("--out", type=Path, default=ROOT / "reports" / "bench", help="where each review.md is kept")
    parser.add_argument("--timeout", type=float, default=3600.0, help="seconds one review may take")
    args = parser.parse_args(argv)
    if args.seed < 0:
        print(f"python -m properties.review.scenarios: --seed: {args.seed} is negative", file=sys.stderr)
        return 2
    chosen = [scenario for scenario in ALL if not args.only or scenario.name in args.only]
    print(f"review scenarios: seed {args.seed}, {len(chosen)} scenario(s), {os.cpu_count()} CPUs, one at a time", flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    rows = []
    exit_on_sigterm()
    with tempfile.TemporaryDirectory(prefix="properties-review-scenarios-") as scratch:
        tree = Path(scratch) / "tree"
        added = subprocess.run(["git", "worktree", "add", "--detach", str(tree), "HEAD"], cwd=ROOT,
                               capture_output=True, text=True)
        if added.returncode != 0:
            print(f"python -m properties.review.scenarios: no worktree of HEAD: {added.stderr.strip()[-200:]}",
                  file=sys.stderr)
            return 2
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=tree, capture_output=True, text=True).stdout.strip()
        env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONHASHSEED": "0", "GUARD_SHARED": str(shared_dir())}
        try:
            run_wall, run_cpu, run_exit = timed(
                [sys.executable, "-m", "properties", "--seed", str(args.seed), "--quiet", "--out",
                 str(Path(scratch) / "reports-run")], tree, env, args.timeout)
            print(f"  default run: {run_wall:.1f} s wall, {run_cpu:.1f} CPU s, exit {run_exit}", flush=True)
            for scenario in chosen:
                _git(tree, "reset", "-q", "--hard", head)
                for step in (scenario.before, scenario):
                    if step is not None:
                        apply(tree, step.edits)
                        _git(tree, "commit", "-q", "-am", step.message)
                out = Path(scratch) / f"reports-{scenario.name}"
                wall, cpu, code = timed(
                    [sys.executable, "-m", "properties.review", "HEAD~1", "--seed", str(args.seed), "--quiet",
                     "--out", str(out)], tree, env, args.timeout)
                if (out / "review.md").is_file():
                    shutil.copyfile(out / "review.md", args.out / f"review-{scenario.name}.md")
                rows.append((scenario, wall, cpu, code))
                print(f"  {scenario.name:<10} {wall:7.1f} s wall {cpu:7.1f} CPU s  exit {code} (expected "
                      f"{scenario.exit})  {wall / run_wall:5.2f}x the default run  {scenario.title}", flush=True)
        except subprocess.TimeoutExpired as error:
            print(f"python -m properties.review.scenarios: cut off after {error.timeout:.0f} s", file=sys.stderr)
            return 1
        except (RuntimeError, ValueError) as error:
            # A scenario that no longer fits HEAD (ValueError names the file) or a git step that failed.
            print(f"python -m properties.review.scenarios: {error}", file=sys.stderr)
            return 2
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, capture_output=True)
            subprocess.run(["git", "worktree", "prune"], cwd=ROOT, capture_output=True)
    lines = [f"# review scenarios: seed {args.seed}, HEAD {head[:7]}", "",
             f"default run: {run_wall:.1f} s wall, {run_cpu:.1f} CPU s", "",
             "| scenario | exit (expected) | review wall | CPU | ratio (wall) |", "|---|---:|---:|---:|---:|"]
    lines += [f"| {s.title} | {code} ({s.exit}) | {wall:.1f} s | {cpu:.1f} s | {wall / run_wall:.2f}x |"
              for s, wall, cpu, code in rows]
    (args.out / "review-scenarios.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"written: {args.out / 'review-scenarios.md'}")
    return 0 if all(code == s.exit for s, _wall, _cpu, code in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
