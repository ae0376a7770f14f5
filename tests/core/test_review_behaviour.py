"""The review's bulk behaviour comparison in two passes (``properties.review.behaviour``): summaries of every
item first, rows step by step only for the items whose summaries differ.

Each side runs in its own interpreter over a real ``guard/``: HEAD's is this
project's, BASE's a copy, either left as it is or with one rule changed. The
two-pass result must be the one a single pass over every item's rows gives,
field by field; and where nothing differs, the second pass must not run.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import attrs
import pytest

from properties.review import behaviour, scenarios
from properties.review.__main__ import both_sides, compare_behaviour

ROOT = Path(__file__).resolve().parents[2]
SEED = 5

# The review's own machinery on copies, never the mutant: under mutation this copy's guard/ would be mutmut's
# rewrite, in which the rule edited below is no longer one line.
pytestmark = pytest.mark.skipif("MUTANT_UNDER_TEST" in os.environ,
                                reason="compares copies of guard/, never judges the mutant")

# A stricter seed-002 rule (one remedy per run, not one per refusal kind): it alters some traces, not all. The
# review scenarios' own edit of guard/budget.py (``properties.review.scenarios.STRICTER``).
_FILE, *_RULE = scenarios.STRICTER.edits[0]
assert _FILE == "guard/budget.py"
RULE = (_RULE[0], _RULE[1])


def _base(tmp_path: Path, edit: "tuple[str, str] | None") -> Path:
    base = tmp_path / "base"
    shutil.copytree(ROOT / "guard", base / "guard", ignore=shutil.ignore_patterns("__pycache__"))
    if edit is not None:
        budget = base / "guard" / "budget.py"
        text = budget.read_text(encoding="utf-8")
        assert text.count(edit[0]) == 1
        budget.write_text(text.replace(*edit), encoding="utf-8")
    return base


def _one_pass(base: Path, work: Path, subject: str, count: int, items: int) -> behaviour.Comparison:
    """Every item's rows on both sides, compared step by step: what the review did before it had two passes.

    ``items``: how many items ``count`` makes (the budget's generator rounds each family's share down)."""
    numbers = work / "all.json"
    numbers.write_text(json.dumps(list(range(items))), encoding="utf-8")
    arguments = ["--subject", subject, "--seed", str(SEED), "--count", str(count), "--items", str(numbers)]
    base_rows, head_rows = both_sides(ROOT, base, work, subject, arguments, "every")
    with base_rows.open(encoding="utf-8") as left, head_rows.open(encoding="utf-8") as right:
        header_left, header_right = next(left), next(right)
        result = behaviour.new_comparison(subject, header_left, header_right)
        behaviour.add_details(result, iter([header_left, *left]), iter([header_right, *right]), range(items))
    return result


@pytest.mark.parametrize("subject, count", [("budget", 400), ("hooks", 300)])
def test_two_passes_count_what_one_pass_over_every_row_counts(tmp_path: Path, subject: str, count: int) -> None:
    base = _base(tmp_path, RULE)
    work = tmp_path / "work"
    work.mkdir()
    comparisons, _items = compare_behaviour(ROOT, base, work, SEED, {subject: count})
    two = comparisons[subject]
    one = _one_pass(base, work, subject, count, len(list(behaviour.side(subject).bulk(SEED, count))))
    assert attrs.asdict(two) == attrs.asdict(one)
    if subject == "budget":
        # The rule shows on some traces and not on others, so both passes had work.
        assert 0 < two.traces_differing < two.traces
        assert two.shortest["pending_correction"].step >= 2
        assert (work / "budget-differing.json").is_file()


def test_alike_sides_take_one_pass_and_count_every_step(tmp_path: Path) -> None:
    base = _base(tmp_path, None)
    work = tmp_path / "work"
    work.mkdir()
    comparisons, items = compare_behaviour(ROOT, base, work, SEED, {"budget": 300, "navigation": 200})
    for subject, comparison in comparisons.items():
        assert comparison.traces_differing == 0 and comparison.steps_differing == 0 and not comparison.shortest
        assert comparison.steps >= comparison.traces > 0
        assert not (work / f"{subject}-differing.json").exists()
        assert not (work / f"{subject}-rows-base.jsonl").exists()
        assert items[subject] == []
    one = _one_pass(base, work, "budget", 300, len(list(behaviour.side("budget").bulk(SEED, 300))))
    assert (comparisons["budget"].traces, comparisons["budget"].steps) == (one.traces, one.steps)


def test_the_item_numbers_file_is_checked_and_named(tmp_path: Path) -> None:
    bad = tmp_path / "numbers.json"
    for text in ("[3, 1]", "[1, 1]", "[-1]", '["a"]', "{}", "[1,"):
        bad.write_text(text, encoding="utf-8")
        with pytest.raises(SystemExit) as raised:
            behaviour.read_item_numbers(bad)
        assert str(bad) in str(raised.value)
    assert list(behaviour.picked(iter("abcdef"), [1, 4])) == [(1, "b"), (4, "e")]
    assert list(behaviour.picked(iter("abc"), [])) == []


def test_navigation_results_are_compared_and_a_field_base_lacks_is_shown_not_compared(tmp_path: Path) -> None:
    # BASE names the two zero-token results the other way round: only how results were told apart changes,
    # which the outcome's `results` alone reports.
    base = tmp_path / "base"
    shutil.copytree(ROOT / "guard", base / "guard", ignore=shutil.ignore_patterns("__pycache__"))
    evidence = base / "guard" / "navigation_evidence.py"
    text = evidence.read_text(encoding="utf-8")
    told = '"zero-token manifest" if message.manifest else "zero-token counter"'
    assert text.count(told) == 1
    evidence.write_text(text.replace(told, '"zero-token counter" if message.manifest else "zero-token manifest"'),
                        encoding="utf-8")
    work = tmp_path / "work"
    work.mkdir()
    comparisons, _items = compare_behaviour(ROOT, base, work, SEED, {"navigation": 300})
    navigation = comparisons["navigation"]
    assert navigation.traces_differing > 0
    assert {name for name, counts in navigation.by_observable.items() if counts["traces"]} == {"results"}

    # An older BASE whose outcome has no `results`: the observable is shown as unreported and never differs.
    head_row = {"stop": None, "results": [[["t2", "empty", "empty content"]], False]}
    base_row = {"stop": None, "results": behaviour.UNREPORTED}
    result = behaviour.new_comparison("navigation", "{\"limits\": {}}", "{\"limits\": {}}")
    behaviour.add_item(result, 0, [base_row], [head_row])
    assert result.traces_differing == 0 and not result.shortest
    behaviour.add_item(result, 1, [{**head_row, "stop": "tool_calls"}], [head_row])
    assert result.traces_differing == 1 and set(result.shortest) == {"stop"}
    assert result.unreported == ["results"]


@pytest.mark.parametrize(("name", "words"), [("missing.json", "file not found"), ("folder", "not a regular file"),
                                             ("other.json", "not a file of a compared subject: budget (guard-trace/1), "
                                                            "hooks (guard-hook-sequence/1)")])
def test_show_names_what_is_wrong_with_the_file_in_one_line(name: str, words: str, tmp_path: Path) -> None:
    """``--show FILE`` reads no git state before the file: a missing file, a folder and a file of no subject are
    each one line naming the file, exit 2 (a missing file was once called 'not a budget trace ...'); a file of no subject is told the formats of
    the compared subjects."""
    (tmp_path / "folder").mkdir()
    (tmp_path / "other.json").write_text('{"nothing": 1}', encoding="utf-8")
    path = tmp_path / name
    done = subprocess.run([sys.executable, "-m", "properties.review", "--show", str(path)], cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and not done.stdout, (done.returncode, done.stdout)
    assert done.stderr.strip().count("\n") == 0 and str(path) in done.stderr and words in done.stderr, done.stderr
