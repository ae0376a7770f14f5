"""The mutation report's HTML page, opened in a real headless browser, shows the counts its JSON holds.

The page renders its totals with JavaScript from the embedded Stryker JSON, so
only a browser can tell whether it works. The expected numbers come from the
inputs this test builds by hand (mapped with the Stryker statuses the schema
defines: Killed, Survived, Ignored for a justified equivalent, NoCoverage,
Timeout, ...), and separately from counting the JSON file that was written.
The latest real report (``reports/mutants.html``), when a ``nox -s mutants``
run left one, is checked the same way.

The rule catalogue and the command line that produce the report are checked
here too: every entry must still apply to the tree (an entry whose text has
drifted must fail loudly, not test nothing), the limits of ``budget.md`` are
each mutated one lower and one higher, and usage errors are one line, exit 2.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

import pytest

from mutations import catalogue, catalogue_runner, mutmut_layer, red_check, report
from mutations.catalogue import BUDGET, CLASSIFIER, CatalogueError, Edit, Entry
from mutations.equivalents import Equivalent
from properties.paths import ROOT

CHROMIUM = "/usr/bin/chromium"
STATUS_IDS = {
    "Killed": "count-killed", "Survived": "count-survived", "Ignored": "count-ignored", "NoCoverage": "count-nocoverage",
    "Timeout": "count-timeout", "RuntimeError": "count-runtimeerror", "CompileError": "count-compileerror",
    "Pending": "count-pending",
}


def _browser() -> str:
    found = CHROMIUM if Path(CHROMIUM).is_file() else shutil.which("chromium")
    if not found:
        pytest.fail("headless Chromium is needed to check the HTML report: apt-get install chromium")
    return found


def render(page: Path) -> str:
    """The DOM after the page's scripts ran, from a fresh profile with every network feature off."""
    with tempfile.TemporaryDirectory(prefix="chromium-profile-") as profile:
        done = subprocess.run(
            [_browser(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={profile}",
             "--dump-dom", page.resolve().as_uri()],
            capture_output=True, text=True, timeout=120,
        )
    assert done.returncode == 0, f"chromium exited {done.returncode}: {done.stderr[-500:]}"
    return done.stdout


def shown(dom: str, element_id: str) -> str:
    found = re.search(rf'id="{element_id}"[^>]*>([^<]*)<', dom)
    assert found, f"the rendered page has no element #{element_id}"
    return found.group(1)


def json_counts(data: dict) -> Counter:
    """Counted here, independently of the report module."""
    return Counter(mutant["status"] for file in data["files"].values() for mutant in file["mutants"])


def _mutant(name: str, status: str, killer: str | None = None) -> mutmut_layer.Mutant:
    return mutmut_layer.Mutant(name=name, path="guard/example.py", exit_code=None, status=status,
                               diff="--- a\n+++ b\n@@ -1,1 +1,1 @@\n-    return a < b\n+    return a <= b",
                               one_line="`return a < b` -> `return a <= b`", line=2, start_column=14,
                               end_line=2, end_column=15, replacement="<=", killer=killer)


def _synthetic(root: Path) -> dict:
    (root / "guard").mkdir()
    (root / "guard" / "example.py").write_text("def smaller(a, b):\n    return a < b\n", encoding="utf-8")
    mutants = [
        _mutant("guard.example.x_smaller__mutmut_1", mutmut_layer.KILLED, "tests/test_example.py::test_a"),
        _mutant("guard.example.x_smaller__mutmut_2", mutmut_layer.KILLED, "tests/test_example.py::test_b"),
        _mutant("guard.example.x_smaller__mutmut_3", mutmut_layer.KILLED),
        _mutant("guard.example.x_smaller__mutmut_4", mutmut_layer.SURVIVED),
        _mutant("guard.example.x_smaller__mutmut_5", mutmut_layer.SURVIVED),
        _mutant("guard.example.x_smaller__mutmut_6", mutmut_layer.EQUIVALENT),
        _mutant("guard.example.x_smaller__mutmut_7", mutmut_layer.NO_TESTS),
        _mutant("guard.example.x_smaller__mutmut_8", mutmut_layer.TIMEOUT),
        _mutant("guard.example.x_smaller__mutmut_9", mutmut_layer.NOT_CHECKED),
    ]
    layer1 = mutmut_layer.MutmutResult(
        mutants=mutants, run_ok=True, run_message="ok", wall_seconds=3.0, tested_this_run=9, mutmut_rate="3.00",
        equivalent_problems=[], sources={"guard/example.py": (root / "guard" / "example.py").read_text()},
    )
    edit = (Edit("    return a < b\n", "    return a <= b\n"),)
    entries = [
        catalogue_runner.EntryResult(Entry("strict-bound", "001", "the bound is inclusive", "guard/example.py", BUDGET, edit),
                                     catalogue_runner.KILLED, "B5", "tests/test_example.py::test_a", "ok", 1.0, 2),
        catalogue_runner.EntryResult(Entry("loose-bound", "000", "the bound is ignored", "guard/example.py", CLASSIFIER, edit),
                                     catalogue_runner.SURVIVED, None, None, "every test passed", 1.0, 2),
    ]
    layer2 = catalogue_runner.CatalogueResult(entries, "ok", True, 2.0)
    red = [red_check.Variant("earlier-budget", "the earlier budget", ["tests/test_example.py::test_a"], "1 failed", None, 1.0)]
    listed = [Equivalent("guard.example.x_smaller__mutmut_6", "`return a < b` -> `return a <= b`", "a == b never reaches it")]
    return report.stryker(root, layer1, layer2, red, listed, {"seed": 7, "jobs": 2, "wallSeconds": 5.0, "verdict": "FAIL"})


def _check_page(page: Path, data: dict) -> dict[str, str]:
    html = page.read_text(encoding="utf-8")
    # Self-contained: nothing to fetch.
    assert not re.search(r"<(link|img|iframe)\b|<script[^>]*\bsrc=|url\(", html, re.IGNORECASE)
    dom = render(page)
    assert 'data-rendered="yes"' in dom, "the page's script did not finish"
    counts = json_counts(data)
    values = {status: shown(dom, element_id) for status, element_id in STATUS_IDS.items()}
    for status, element_id in STATUS_IDS.items():
        assert values[status] == str(counts.get(status, 0)), f"#{element_id} shows {values[status]}, the JSON has {counts.get(status, 0)}"
    assert shown(dom, "count-total") == str(sum(counts.values()))
    mutant_rows = len(re.findall(r'<tr class="[A-Za-z]+" data-status=', dom))
    assert mutant_rows == sum(counts.values()), "every mutant gets one row"
    return values | {"total": shown(dom, "count-total"), "score": shown(dom, "score")}


def test_the_page_shows_the_counts_of_its_json(tmp_path: Path) -> None:
    data = _synthetic(tmp_path)
    reports = tmp_path / "reports"
    report.write(reports, data, "# report\n")
    written = json.loads((reports / "mutants.json").read_text(encoding="utf-8"))
    assert written["schemaVersion"] == "2" and set(written["thresholds"]) == {"high", "low"}
    for file in written["files"].values():
        assert file["language"] == "python" and isinstance(file["source"], str)
        for mutant in file["mutants"]:
            assert {"id", "mutatorName", "location", "status"} <= set(mutant)
            assert {"line", "column"} == set(mutant["location"]["start"]) == set(mutant["location"]["end"])
    values = _check_page(reports / "mutants.html", written)
    # By hand from the inputs: 3 mutmut kills + 1 catalogue kill; 2 + 1 survivors; one listed equivalent.
    assert values["Killed"] == "4"
    assert values["Survived"] == "3"
    assert values["Ignored"] == "1"
    assert values["NoCoverage"] == "1"
    assert values["Timeout"] == "1"
    assert values["Pending"] == "1"
    assert values["total"] == "11"
    # Score: detected over everything that is not a justified equivalent, 4 of 10.
    assert values["score"] == "40.0%"


def test_the_latest_session_report_shows_the_counts_of_its_json(tmp_path: Path) -> None:
    """The page the last ``nox -s mutants`` wrote (or, before any run, a freshly written one)."""
    page, data_file = ROOT / "reports" / "mutants.html", ROOT / "reports" / "mutants.json"
    if not (page.is_file() and data_file.is_file()):
        data = _synthetic(tmp_path)
        report.write(tmp_path / "reports", data, "# report\n")
        page, data_file = tmp_path / "reports" / "mutants.html", tmp_path / "reports" / "mutants.json"
    data = json.loads(data_file.read_text(encoding="utf-8"))
    _check_page(page, data)


# -- the catalogue and the command line ------------------------------------------------

#: The limits table of shared/spec/budget.md (Limits field -> value), restated here rather than read from the code.
SPEC_LIMITS = {
    "consecutive_failures": 4, "total_failures": 12, "rounds_without_progress": 8, "identical_successes": 2,
    "corrected_attempts": 2, "free_empty_lookups": 12, "seen_calls": 256, "successes": 128,
}


@pytest.mark.parametrize("entry", catalogue.entries(), ids=lambda entry: entry.id)
def test_every_catalogue_entry_still_applies(entry: Entry, tmp_path: Path) -> None:
    target = tmp_path / entry.file
    target.parent.mkdir(parents=True)
    shutil.copyfile(ROOT / entry.file, target)
    before = target.read_text(encoding="utf-8")
    entry.apply_to(tmp_path)
    after = target.read_text(encoding="utf-8")
    assert after != before
    compile(after, entry.file, "exec")


def test_an_entry_whose_text_is_gone_fails_loudly(tmp_path: Path) -> None:
    (tmp_path / "guard").mkdir()
    (tmp_path / "guard" / "x.py").write_text("a = 1\na = 1\n", encoding="utf-8")
    missing = Entry("gone", "001", "rule", "guard/x.py", BUDGET, (Edit("b = 2\n", "b = 3\n"),))
    twice = Entry("twice", "001", "rule", "guard/x.py", BUDGET, (Edit("a = 1\n", "a = 2\n"),))
    no_file = Entry("no-file", "001", "rule", "guard/y.py", BUDGET, (Edit("a", "b"),))
    with pytest.raises(CatalogueError, match="not found"):
        missing.apply_to(tmp_path)
    with pytest.raises(CatalogueError, match="found 2 times"):
        twice.apply_to(tmp_path)
    with pytest.raises(CatalogueError, match="file not found"):
        no_file.apply_to(tmp_path)


def test_each_limit_is_mutated_one_lower_and_one_higher() -> None:
    replaced = {edit.replace for entry in catalogue.entries() if entry.file == "guard/limits.py" for edit in entry.edits}
    for name, value in SPEC_LIMITS.items():
        for changed in (value - 1, value + 1):
            assert any(text.strip().startswith(f"{name}: int = attrs.field(default={changed},") for text in replaced), (name, changed)


def test_budget_entries_owe_a_kill_to_the_property_drivers() -> None:
    levels = {entry.id: entry.level for entry in catalogue.entries()}
    assert levels["defer-below-fuse"] == BUDGET and levels["stop-keeps-correction"] == BUDGET
    assert levels["lookup-reverted"] == CLASSIFIER


@pytest.mark.parametrize("arguments", [["--jobs", "0"], ["--seed", "x"], ["--only-catalogue", "--only-mutmut"], ["--nope"]])
def test_usage_errors_are_one_line_and_exit_2(arguments: list[str]) -> None:
    done = subprocess.run([sys.executable, "-m", "mutations", *arguments], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=60)
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
