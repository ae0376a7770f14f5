"""The mutation report: Stryker's viewer, opened in a real headless browser, shows what its JSON holds.

``mutants.html`` is the ``mutation-testing-elements`` viewer with the report
inlined; it renders with JavaScript into shadow DOM, so only a browser can
tell whether it works. Each browser test loads the page with a probe script
appended (a copy of the page, in a temporary folder) that reads the rendered
file view through the shadow roots, clicks the status filters, and writes what
it saw into the page, which Chromium then dumps. The expected numbers come
from the inputs the tests build by hand and from counting the JSON file that
was written, never from the report module.

The rule catalogue's locations are checked without a browser too: every
entry's span, replaced by its replacement, must give exactly the file the
entry's edits give, and must lie on the code the edit's find text names.

The rule catalogue and the command line that produce the report are checked
here too: every entry must still apply to the tree (an entry whose text has
drifted must fail loudly, not test nothing), the limits of ``budget.md`` are
each mutated one lower and one higher, and usage errors are one line, exit 2.
"""

from __future__ import annotations

import html
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
from mutations.entry import CLASSIFIER, CatalogueError, Edit, Entry, changed_span
from mutations.equivalents import Equivalent
from properties.paths import ROOT

CHROMIUM = "/usr/bin/chromium"
#: Flags for a quiet, offline, throw-away browser.
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync")

#: Appended to a copy of the page: waits for the file view, records its mutant marks, dots and filters, clicks every
#: filter, records again, and writes both into <pre id="probe-result"> for --dump-dom.
PROBE = """
(function () {
  function deep(root, selector, out) {
    root.querySelectorAll(selector).forEach(function (e) { out.push(e); });
    root.querySelectorAll("*").forEach(function (e) { if (e.shadowRoot) { deep(e.shadowRoot, selector, out); } });
    return out;
  }
  function boxes() {
    var found = [];
    deep(document, "mte-state-filter", []).forEach(function (f) { deep(f.shadowRoot || f, "input[type=checkbox]", found); });
    return found;
  }
  function shown(e) { var r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; }
  function snapshot() {
    return {
      // A mark nested in a mark of the same mutant is part of the outer one's text already.
      marks: deep(document, "span.mutant[data-mutant-id]", []).filter(function (m) {
        var outer = m.parentElement && m.parentElement.closest("span.mutant[data-mutant-id]");
        return !(outer && outer.getAttribute("data-mutant-id") === m.getAttribute("data-mutant-id"));
      }).map(function (m) { return {id: m.getAttribute("data-mutant-id"), text: m.textContent}; }),
      dots: deep(document, "svg.mutant-dot", []).filter(shown).map(function (d) {
        return {id: d.getAttribute("data-mutant-id"), cls: d.getAttribute("class")}; }),
      filters: boxes().map(function (c) { return {value: c.value, checked: c.checked, label: c.parentElement.textContent.trim()}; })
    };
  }
  var tries = 0;
  function finish(result) {
    var out = document.createElement("pre");
    out.id = "probe-result";
    out.textContent = JSON.stringify(result);
    document.body.appendChild(out);
  }
  function step() {
    tries += 1;
    if (!boxes().length && tries < 200) { setTimeout(step, 50); return; }
    var before = snapshot();
    boxes().forEach(function (c) { c.click(); });
    setTimeout(function () { finish({before: before, after: snapshot()}); }, 300);
  }
  setTimeout(step, 50);
})();
"""


def _browser() -> str:
    found = CHROMIUM if Path(CHROMIUM).is_file() else shutil.which("chromium")
    if not found:
        pytest.fail("headless Chromium is needed to check the HTML report: apt-get install chromium")
    return found


def chromium(url: str, *extra: str) -> str:
    """Chromium's stdout for ``url`` after the page's scripts ran, from a fresh profile with every network feature off."""
    with tempfile.TemporaryDirectory(prefix="chromium-profile-") as profile:
        done = subprocess.run([_browser(), *FLAGS, f"--user-data-dir={profile}", "--virtual-time-budget=15000", *extra, url],
                              capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, f"chromium exited {done.returncode}: {done.stderr[-500:]}"
    return done.stdout


def probe(page: Path, view: str) -> dict:
    """What the viewer shows at ``#view`` (see PROBE): marks, visible dots and filters, before and after the filter clicks."""
    probed = page.with_name("probed-" + page.name)
    probed.write_text(page.read_text(encoding="utf-8").replace("</body>", f"<script>{PROBE}</script>\n</body>"), encoding="utf-8")
    dom = chromium(probed.resolve().as_uri() + "#" + view, "--window-size=1400,1400", "--dump-dom")
    found = re.search(r'<pre id="probe-result">(.*?)</pre>', dom, re.DOTALL)
    assert found, "the viewer never showed a file view with status filters"
    return json.loads(html.unescape(found.group(1)))


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
        catalogue_runner.EntryResult(Entry("strict-bound", "001", "the bound is inclusive", "guard/example.py", "budget", edit),
                                     catalogue_runner.KILLED, "B5", "tests/test_example.py::test_a", "ok", 1.0, 2),
        catalogue_runner.EntryResult(Entry("loose-bound", "000", "the bound is ignored", "guard/example.py", CLASSIFIER, edit),
                                     catalogue_runner.SURVIVED, None, None, "every test passed", 1.0, 2),
    ]
    layer2 = catalogue_runner.CatalogueResult(entries, "ok", True, 2.0)
    red = [red_check.Variant("earlier-budget", "the earlier budget", ["tests/test_example.py::test_a"], "1 failed", None, 1.0)]
    listed = [Equivalent("guard.example.x_smaller__mutmut_6", "`return a < b` -> `return a <= b`", "a == b never reaches it")]
    return report.stryker(root, layer1, layer2, red, listed, {"seed": 7, "jobs": 2, "wallSeconds": 5.0, "verdict": "FAIL"})


def _offset(text: str, line: int, column: int) -> int:
    """Character offset of a 1-based (line, column), computed here from the text."""
    lines = text.splitlines(keepends=True)
    return sum(len(part) for part in lines[: line - 1]) + column - 1


def _located_text(source: str, location: dict) -> str:
    start, end = location["start"], location["end"]
    return source[_offset(source, start["line"], start["column"]):_offset(source, end["line"], end["column"])]


def _squeezed(text: str) -> str:
    return "".join(text.split())


def _marked(seen: dict) -> dict[str, str]:
    """Mutant id -> the code the viewer marks for it (its spans' text, joined)."""
    out: dict[str, str] = {}
    for mark in seen["marks"]:
        out[mark["id"]] = out.get(mark["id"], "") + mark["text"]
    return out


def _check_filters(seen: dict, statuses: dict[str, str]) -> None:
    """Each filter's count is its status's count; the dots shown follow the ticked filters, before and after clicking."""
    counts = Counter(statuses.values())
    for box in seen["before"]["filters"]:
        assert box["label"].endswith(f"({counts[box['value']]})"), box
    assert seen["before"]["filters"], "the file view has status filters"
    filtered = {box["value"] for box in seen["before"]["filters"]}
    for moment in ("before", "after"):
        ticked = {box["value"] for box in seen[moment]["filters"] if box["checked"]}
        # A status without a filter (Pending: not run yet) is always shown.
        expected = sorted(name for name, status in statuses.items() if status in ticked or status not in filtered)
        assert sorted(dot["id"] for dot in seen[moment]["dots"]) == expected, f"dots shown {moment} the clicks"
    before = {box["value"]: box["checked"] for box in seen["before"]["filters"]}
    after = {box["value"]: box["checked"] for box in seen["after"]["filters"]}
    assert after == {status: not ticked for status, ticked in before.items()}, "every click toggled its filter"


def test_the_page_is_the_pinned_viewer_and_self_contained(tmp_path: Path) -> None:
    data = _synthetic(tmp_path)
    report.write(tmp_path / "reports", data, "# report\n")
    page = (tmp_path / "reports" / "mutants.html").read_text(encoding="utf-8")
    assert "<mutation-test-report-app" in page and f"mutation-testing-elements {report.VIEWER_VERSION}" in page
    # Nothing to fetch: no external script, stylesheet, frame or image, and a policy that forbids any request.
    assert not re.search(r"<(link|img|iframe)\b|<script[^>]*\bsrc=", page, re.IGNORECASE)
    assert "default-src 'none'" in page
    # The nox session installs the version report.py pins.
    noxfile = (ROOT / "noxfile.py").read_text(encoding="utf-8")
    assert f'"mutation-testing-elements", "{report.VIEWER_VERSION}"' in noxfile


def test_the_viewer_shows_the_mutants_of_its_json(tmp_path: Path) -> None:
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
    # By hand from the inputs: 3 mutmut kills + 1 catalogue kill; 2 + 1 survivors; one listed equivalent.
    counts = json_counts(written)
    assert counts == Counter({"Killed": 4, "Survived": 3, "Ignored": 1, "NoCoverage": 1, "Timeout": 1, "Pending": 1})
    seen = probe(reports / "mutants.html", "mutant/example.py")
    file = written["files"]["guard/example.py"]
    statuses = {mutant["id"]: mutant["status"] for mutant in file["mutants"]}
    marked = _marked(seen["before"])
    assert set(marked) == set(statuses), "every mutant is marked in the source"
    for mutant in file["mutants"]:
        assert _squeezed(marked[mutant["id"]]) == _squeezed(_located_text(file["source"], mutant["location"])), mutant["id"]
    _check_filters(seen, statuses)


def _apart(ranges: dict[str, tuple[int, int]]) -> list[list[str]]:
    """Mutant ids in groups whose ranges neither overlap nor touch (the viewer splits touching marks ambiguously)."""
    groups: list[list[str]] = []
    for name, (start, end) in sorted(ranges.items(), key=lambda item: item[1]):
        for group in groups:
            if all(end < ranges[other][0] or ranges[other][1] < start for other in group):
                group.append(name)
                break
        else:
            groups.append([name])
    return groups


def test_budget_source_view_marks_every_catalogue_entry_where_it_changes(tmp_path: Path) -> None:
    """The real guard/budget.py and its catalogue entries, every third one survived; a screenshot for a person."""
    entries = [entry for entry in catalogue.entries() if entry.file == "guard/budget.py"]
    assert len(entries) >= 10
    survived = {entry.id for index, entry in enumerate(entries) if index % 3 == 0}
    results = {
        entry.id: catalogue_runner.EntryResult(entry, catalogue_runner.SURVIVED if entry.id in survived else catalogue_runner.KILLED,
                                               None if entry.id in survived else "B1",
                                               None if entry.id in survived else "tests/t.py::test_a", "ok", 1.0,
                                               entry.first_line(ROOT))
        for entry in entries
    }

    def page(names: list[str], folder: str) -> tuple[Path, dict]:
        chosen = [results[name] for name in names]
        data = report.stryker(ROOT, None, catalogue_runner.CatalogueResult(chosen, "ok", True, 1.0), [], [], {"seed": 0})
        report.write(tmp_path / folder, data, "# report\n")
        return tmp_path / folder / "mutants.html", data

    whole, data = page(list(results), "all")
    source = (ROOT / "guard" / "budget.py").read_text(encoding="utf-8")
    mutants = data["files"]["guard/budget.py"]["mutants"]
    statuses = {mutant["id"]: mutant["status"] for mutant in mutants}
    assert statuses == {f"catalogue:{name}": "Survived" if name in survived else "Killed" for name in results}
    seen = probe(whole, "mutant/budget.py")
    assert set(_marked(seen["before"])) == set(statuses), "every entry is marked in the source view"
    _check_filters(seen, statuses)

    # Each mark covers exactly the code its location names: checked on pages where no two ranges touch.
    ranges = {}
    for mutant in mutants:
        start, end = mutant["location"]["start"], mutant["location"]["end"]
        ranges[mutant["id"]] = (_offset(source, start["line"], start["column"]), _offset(source, end["line"], end["column"]))
        assert _located_text(source, mutant["location"]).strip(), f"{mutant['id']}: an empty range cannot be marked"
    for number, group in enumerate(_apart(ranges)):
        part, _ = page([name.removeprefix("catalogue:") for name in group], f"group-{number}")
        marked = _marked(probe(part, "mutant/budget.py")["before"])
        for mutant in mutants:
            if mutant["id"] in group:
                assert _squeezed(marked[mutant["id"]]) == _squeezed(_located_text(source, mutant["location"])), mutant["id"]

    # Tall enough to include the marked rules (lines 120-300), for a person to look at.
    shot = tmp_path / "budget.png"
    chromium(whole.resolve().as_uri() + "#mutant/budget.py", "--window-size=1100,6500", f"--screenshot={shot}")
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000, "a rendered page, not a blank one"
    print(f"screenshot: {shot}")


# -- where catalogue entries are drawn --------------------------------------------------


@pytest.mark.parametrize("entry", catalogue.entries(), ids=lambda entry: entry.id)
def test_every_catalogue_entry_is_located_where_it_changes(entry: Entry) -> None:
    original = (ROOT / entry.file).read_text(encoding="utf-8")
    mutated = original
    for edit in entry.edits:
        mutated = mutated.replace(edit.find, edit.replace, 1)
    spans = entry.spans(original)
    assert spans
    rebuilt = original
    finds = [(original.find(edit.find), original.find(edit.find) + len(edit.find)) for edit in entry.edits
             if original.find(edit.find) >= 0]
    for span in reversed(spans):  # from the end, so earlier offsets stay valid
        start = _offset(original, span.start_line, span.start_column)
        end = _offset(original, span.end_line, span.end_column)
        assert start < end, "a range a viewer can mark"
        assert any(start < stop and first < end for first, stop in finds), "on the code an edit names"
        rebuilt = rebuilt[:start] + span.replacement + rebuilt[end:]
    assert rebuilt == mutated, "the ranges and replacements make exactly the mutated file"


@pytest.mark.parametrize(("before", "after", "expected"), [
    # A word replaced: the whole word, not the differing letters.
    ("a = True\n", "a = False\n", ((1, 5), (1, 9), "False")),
    # One of two equal lines deleted: a whole line, from its first column.
    ("x\nx\ny\n", "x\ny\n", ((2, 1), (3, 1), "")),
    # A line inserted: marked on the line it follows, which the replacement repeats.
    ("if a:\n    return\n", "if a:\n    log()\n    return\n", ((1, 1), (1, 6), "if a:\n    log()")),
    # Text inserted between two symbols: the code before it on its line.
    ('f({"a"})\n', 'f({"a", "b"})\n', ((1, 1), (1, 7), 'f({"a", "b"')),
    # Letters inserted inside a word: that word.
    ("f(is_lookup(x))\n", "f(is_last_lookup(x))\n", ((1, 3), (1, 12), "is_last_lookup")),
    # A condition dropped from the middle of a line.
    ("if a and b:\n", "if a:\n", ((1, 5), (1, 11), "")),
])
def test_changed_span_by_hand(before: str, after: str, expected: tuple) -> None:
    (start, end, replacement) = expected
    span = changed_span(before, after)
    assert ((span.start_line, span.start_column), (span.end_line, span.end_column), span.replacement) == (start, end, replacement)

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
    missing = Entry("gone", "001", "rule", "guard/x.py", "budget", (Edit("b = 2\n", "b = 3\n"),))
    twice = Entry("twice", "001", "rule", "guard/x.py", "budget", (Edit("a = 1\n", "a = 2\n"),))
    no_file = Entry("no-file", "001", "rule", "guard/y.py", "budget", (Edit("a", "b"),))
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
    assert levels["defer-below-fuse"] == "budget" and levels["stop-keeps-correction"] == "budget"
    assert levels["lookup-reverted"] == "lookup" and levels["inspection-page-errors-correctable"] == CLASSIFIER


@pytest.mark.parametrize("arguments", [["--jobs", "0"], ["--seed", "x"], ["--only-catalogue", "--only-mutmut"], ["--nope"]])
def test_usage_errors_are_one_line_and_exit_2(arguments: list[str]) -> None:
    done = subprocess.run([sys.executable, "-m", "mutations", *arguments], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=60)
    assert done.returncode == 2
    assert done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


# -- the red check's counts ----------------------------------------------------------------

_SAMPLE_SUITE = '''
import pytest

@pytest.fixture
def broken():
    raise RuntimeError("set-up fails")

def test_passes():
    pass

def test_fails():
    assert 1 == 2

def test_errors(broken):
    pass

def test_fails_too():
    assert False

def test_crashes():
    {}["no such key"]
'''


def test_the_red_check_counts_failures_and_errors_apart(tmp_path: Path) -> None:
    """pytest on a suite written here: 3 failed (2 by assertion, 1 by a KeyError), 1 error, 1 passed; the plugin sees
    the same, and only assertion failures in the variant's own seed's tests count as catches (issue 22)."""
    (tmp_path / "test_sample.py").write_text(_SAMPLE_SUITE, encoding="utf-8")
    (tmp_path / "test_broken_import.py").write_text("import no_such_module_anywhere\n", encoding="utf-8")
    outcomes = tmp_path / "outcomes.tsv"
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "mutations.red_outcomes",
                           f"--red-outcomes={outcomes}", "--continue-on-collection-errors", str(tmp_path)], cwd=tmp_path, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=120)
    assert "3 failed, 1 passed, 2 errors" in done.stdout, done.stdout[-800:]
    from mutations import red_outcomes

    failed, errored = red_outcomes.read(outcomes)
    assert [(test.split("::")[-1], kind) for test, kind in failed] == [
        ("test_fails", "assertion"), ("test_fails_too", "assertion"), ("test_crashes", "KeyError")]
    assert sorted(test.split("/")[-1] for test in errored) == ["test_broken_import.py", "test_sample.py::test_errors"]
    # As if the suite were the navigation tests: the assertions catch earlier-navigation, the KeyError does not.
    as_navigation = [(f"tests/navigation/{test.split('/')[-1]}", kind) for test, kind in failed]
    caught, apart = red_check.split_catches("earlier-navigation", as_navigation)
    assert [test.split("::")[-1] for test in caught] == ["test_fails", "test_fails_too"]
    assert apart == ["tests/navigation/test_sample.py::test_crashes (KeyError)"]
    # The same failures are another seed's tests for earlier-lookup: nothing caught.
    assert red_check.split_catches("earlier-lookup", as_navigation)[0] == []
    variant = red_check.Variant("earlier-x", "x", caught, "3 failed, 1 passed, 2 errors", None, 1.0, errored, apart)
    assert variant.verdict().startswith("2 behavioural tests of its seed fail, as expected; 1 other failures counted apart; 2 errored: ")
    assert "test_sample.py::test_errors" in variant.verdict()
    only_errors = red_check.Variant("earlier-y", "y", [], "2 errors", "no test fails against the earlier behaviour (only errors)",
                                    1.0, errored)
    assert red_check.failures([variant, only_errors]) == ["red check earlier-y: no test fails against the earlier behaviour (only errors)"]
