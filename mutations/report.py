"""The session's report: Markdown for the pull request, Stryker JSON, and Stryker's own viewer for that JSON.

The JSON follows the mutation-testing-elements report schema (version 2):
``files[path] = {language, source, mutants[{id, mutatorName, replacement,
location{start,end}, status, killedBy, description, statusReason}]}``. mutmut
mutants and catalogue entries are both mutants there (catalogue ids start
with ``catalogue:``, located at the exact range their first edit changes, see
``Entry.spans``); the red check and the timings live in ``config``, the
schema's free-form object.

``mutants.html`` is the viewer a reviewer of Stryker reports already knows:
the ``mutation-testing-elements`` web components (version ``VIEWER_VERSION``,
installed from the npm registry by the nox session, see ``viewer_script``),
inlined with the JSON into one file that opens offline.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from mutations import catalogue_runner, mutmut_layer
from mutations.entry import CatalogueError, Entry, Span
from mutations.equivalents import Equivalent
from mutations.pytest_plugin import left_out

SCHEMA_VERSION = "2"
#: The pinned viewer (npm ``mutation-testing-elements``); noxfile.py installs this version.
VIEWER_PACKAGE = "mutation-testing-elements"
VIEWER_VERSION = "3.9.0"
#: Where the nox session put the viewer's browser bundle.
VIEWER_VARIABLE = "MUTATION_TESTING_ELEMENTS"
THRESHOLDS = {"high": 100, "low": 100}

#: mutmut verdict -> Stryker status.
_STRYKER_BY_STATUS = {
    mutmut_layer.KILLED: "Killed",
    mutmut_layer.TYPE_CHECK: "CompileError",
    mutmut_layer.SURVIVED: "Survived",
    mutmut_layer.EQUIVALENT: "Ignored",
    mutmut_layer.NO_TESTS: "NoCoverage",
    mutmut_layer.TIMEOUT: "Timeout",
    mutmut_layer.CONFIRMED_TIMEOUT: "Timeout",
    mutmut_layer.SUSPICIOUS: "RuntimeError",
    mutmut_layer.SEGFAULT: "RuntimeError",
    mutmut_layer.SKIPPED: "Ignored",
    mutmut_layer.INTERRUPTED: "Pending",
    mutmut_layer.NOT_CHECKED: "Pending",
}

_STRYKER_BY_ENTRY = {
    catalogue_runner.KILLED: "Killed",
    catalogue_runner.SURVIVED: "Survived",
    catalogue_runner.TIMEOUT: "Timeout",
    catalogue_runner.NOT_APPLIED: "RuntimeError",
    catalogue_runner.CRASHED: "RuntimeError",
    catalogue_runner.WRONG_INVARIANT: "Survived",
    catalogue_runner.PROPERTIES_MISSING: "Pending",
}

#: The Stryker statuses, in the order the report shows their counts.
STATUSES = ("Killed", "Survived", "Ignored", "NoCoverage", "Timeout", "RuntimeError", "CompileError", "Pending")


def stryker(root: Path, mutmut: mutmut_layer.MutmutResult | None, catalogue: catalogue_runner.CatalogueResult | None,
            red: list | None, equivalents: list[Equivalent], meta: dict[str, Any]) -> dict[str, Any]:
    files: dict[str, dict[str, Any]] = {}
    tests: dict[str, set[str]] = {}

    def file_entry(path: str) -> dict[str, Any]:
        if path not in files:
            try:
                source = (root / path).read_text(encoding="utf-8")
            except OSError:
                source = ""
            files[path] = {"language": "python", "source": source, "mutants": []}
        return files[path]

    def killer_ids(*killers: str | None) -> list[str]:
        found = []
        for killer in killers:
            if not killer:
                continue
            if killer.startswith("invariant "):
                tests.setdefault("properties (python -m properties --mutants)", set()).add(killer)
            else:
                tests.setdefault(killer.split("::", 1)[0], set()).add(killer)
            found.append(killer)
        return found

    reasons = {entry.name: entry.reason for entry in equivalents}
    if mutmut is not None:
        for path, source in mutmut.sources.items():
            file_entry(path)["source"] = source
        for mutant in mutmut.mutants:
            status = _STRYKER_BY_STATUS.get(mutant.status, "RuntimeError")
            reason = mutant.problem or (reasons.get(mutant.name) if mutant.status == mutmut_layer.EQUIVALENT else None)
            record: dict[str, Any] = {
                "id": mutant.name,
                "mutatorName": "mutmut",
                "replacement": mutant.replacement,
                "location": {"start": {"line": mutant.line, "column": mutant.start_column},
                             "end": {"line": mutant.end_line, "column": max(mutant.end_column, mutant.start_column)}},
                "status": status,
                "description": mutant.one_line,
                "statusReason": reason or f"{mutant.judged_by}: {mutant.status}",
            }
            if status == "Killed" and mutant.killer:
                record["killedBy"] = killer_ids(mutant.killer)
            file_entry(mutant.path)["mutants"].append(record)
    if catalogue is not None:
        for result in catalogue.entries:
            entry: Entry = result.entry
            status = _STRYKER_BY_ENTRY.get(result.status, "RuntimeError")
            spans = _spans(root, entry)
            first = spans[0] if spans else Span(result.line, 1, result.line + 1, 1, "")
            elsewhere = "".join(f"; also line {span.start_line}: -> {' '.join(span.replacement.split()) or '(removed)'}"
                                for span in spans[1:])
            record = {
                "id": f"catalogue:{entry.id}",
                "mutatorName": f"catalogue/{entry.level}",
                "replacement": first.replacement,
                "location": {"start": {"line": first.start_line, "column": first.start_column},
                             "end": {"line": first.end_line, "column": first.end_column}},
                "status": status,
                "description": f"[seed {entry.seed}] {entry.rule}: {entry.one_line_diff()}"
                               + (f" ({len(spans)} changes{elsewhere})" if len(spans) > 1 else "")
                               + ("" if spans else " (its text is not in the file: location unknown)"),
                "statusReason": result.detail if result.status != catalogue_runner.KILLED else
                f"killed by {result.killer}",
            }
            if status == "Killed":
                killers = [f"invariant {result.properties_killer}" if result.properties_killer else None, result.test_killer]
                record["killedBy"] = killer_ids(*killers)
            file_entry(entry.file)["mutants"].append(record)
    return {
        "$schema": "https://git.io/mutation-testing-schema",
        "schemaVersion": SCHEMA_VERSION,
        "thresholds": THRESHOLDS,
        "projectRoot": str(root),
        "files": files,
        "testFiles": {path: {"tests": [{"id": test, "name": test} for test in sorted(ids)]} for path, ids in sorted(tests.items())},
        "framework": {"name": "mutmut + guard rule catalogue", "version": mutmut_layer.MUTMUT_VERSION},
        "config": {
            **meta,
            "redCheck": [
                {"name": variant.name, "description": variant.description, "failing": variant.failing,
                 "errored": variant.errored, "apart": variant.apart, "summary": variant.summary,
                 "problem": variant.problem}
                for variant in (red or [])
            ],
        },
    }


def _spans(root: Path, entry: Entry) -> tuple[Span, ...]:
    """Where ``entry`` changes the unmutated file under ``root``; empty when its text is gone (reported as not applied)."""
    try:
        return entry.spans((root / entry.file).read_text(encoding="utf-8"))
    except (OSError, ValueError, CatalogueError):
        return ()


def counts(report: dict[str, Any]) -> dict[str, int]:
    """Status counts over every mutant in a Stryker report (what the HTML page must show)."""
    result = {status: 0 for status in STATUSES}
    for data in report["files"].values():
        for mutant in data["mutants"]:
            result[mutant["status"]] = result.get(mutant["status"], 0) + 1
    result["total"] = sum(result[status] for status in STATUSES)
    return result


# -- Markdown ---------------------------------------------------------------------


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def markdown(mutmut: mutmut_layer.MutmutResult | None, catalogue: catalogue_runner.CatalogueResult | None,
             red: list | None, meta: dict[str, Any], failures: list[str]) -> str:
    out = ["# Mutation testing: `nox -s mutants`", ""]
    out.append(f"Verdict: **{'FAIL' if failures else 'PASS'}**. Seed {meta.get('seed')}, jobs {meta.get('jobs')}, "
               f"wall time {meta.get('wallSeconds', 0):.0f}s.")
    out.append("")
    layers = meta.get("layerSeconds") or {}
    if layers:
        out.append("## Time per layer")
        out.append("")
        out.append("| layer | seconds (wall) |")
        out.append("|---|---|")
        for name, seconds in layers.items():
            out.append(f"| {name} | {seconds:.1f} |")
        out.append("")
    if failures:
        out.append("## Why it fails")
        out.append("")
        out.extend(f"- {_cell(reason)}" for reason in failures[:200])
        if len(failures) > 200:
            out.append(f"- ... and {len(failures) - 200} more")
        out.append("")
    if mutmut is not None:
        out.append("## Layer 1: mutmut over `guard/`")
        out.append("")
        out.append("| killed | survived | equivalent | timeout | no tests | suspicious | not checked | total | score |")
        out.append("|---|---|---|---|---|---|---|---|---|")
        other = mutmut.count(mutmut_layer.SUSPICIOUS) + mutmut.count(mutmut_layer.SEGFAULT)
        unchecked = mutmut.count(mutmut_layer.NOT_CHECKED) + mutmut.count(mutmut_layer.INTERRUPTED) + mutmut.count(mutmut_layer.SKIPPED)
        out.append(f"| {mutmut.count(mutmut_layer.KILLED) + mutmut.count(mutmut_layer.TYPE_CHECK)} | {mutmut.count(mutmut_layer.SURVIVED)} "
                   f"| {mutmut.count(mutmut_layer.EQUIVALENT)} | {mutmut.count(mutmut_layer.TIMEOUT)} | {mutmut.count(mutmut_layer.NO_TESTS)} "
                   f"| {other} | {unchecked} | {len(mutmut.mutants)} | {mutmut.score:.1f}% |")
        out.append("")
        rate = len(mutmut.mutants) / mutmut.wall_seconds if mutmut.wall_seconds else 0.0
        hung = [mutant for mutant in mutmut.mutants if mutant.status == mutmut_layer.CONFIRMED_TIMEOUT]
        if hung:
            out.append(f"Timeout (confirmed), counted apart from killed: {len(hung)}. The killing test ran past its "
                       "deadline (20x its unmutated duration, at least 3s), and again when re-run alone with a "
                       "200x deadline (at least 60s): " + ", ".join(f"`{mutant.name}`" for mutant in hung) + ".")
            out.append("")
        unconfirmed = [mutant for mutant in mutmut.mutants if mutant.problem and "deadline kill did not repeat" in mutant.problem]
        if unconfirmed:
            out.append(f"Deadline kills that did not repeat alone (now survivors): {len(unconfirmed)}: "
                       + ", ".join(f"`{mutant.name}`" for mutant in unconfirmed) + ".")
            out.append("")
        unrepeated = [mutant for mutant in mutmut.mutants if mutant.problem and mutmut_layer.UNREPEATED_KILL in mutant.problem]
        if unrepeated:
            out.append(f"Kills of listed equivalents that did not repeat when their test was re-run alone (a flaky test: "
                       f"the mutants stay equivalent): {len(unrepeated)}: "
                       + "; ".join(f"`{mutant.name}` ({(mutant.problem or '').split(mutmut_layer.EQUIVALENT_BECAUSE)[0]})"
                                   for mutant in unrepeated) + ".")
            out.append("")
        out.append(f"mutmut run: {'ok' if mutmut.run_ok else mutmut.run_message}; {mutmut.wall_seconds:.0f}s wall, "
                   f"{mutmut.tested_this_run} mutants tested this run, mutmut's rate {mutmut.mutmut_rate or '?'} mutations/s, "
                   f"{rate:.2f} mutants/s over all {len(mutmut.mutants)}.")
        out.append("")
        if mutmut.left_out_tests:
            reasons = left_out()
            out.append(f"Left out of every run under mutation ({len(mutmut.left_out_tests)} tests, the committed list "
                       "`mutations/left_out.toml`): mutmut's stats, clean and per-mutant runs, the catalogue's pytest runs "
                       "and the red check. `nox -s tests` runs them, and the catalogue's property runs drive what they drive.")
            out.append("")
            out.extend(f"- `{test}`: {reasons.get(test, '')}" for test in mutmut.left_out_tests)
            out.append("")
        offenders = mutmut.offenders
        if offenders:
            out.append(f"### Mutants no test noticed ({len(offenders)})")
            out.append("")
            for mutant in offenders[:300]:
                out.append(f"#### `{mutant.name}`: {mutant.status}")
                out.append("")
                out.append("```diff")
                out.append(mutant.diff)
                out.append("```")
                out.append("")
            if len(offenders) > 300:
                out.append(f"... and {len(offenders) - 300} more (see mutants.json)")
                out.append("")
        if mutmut.equivalent_problems:
            out.append("### Equivalents list problems")
            out.append("")
            out.extend(f"- {_cell(problem)}" for problem in mutmut.equivalent_problems)
            out.append("")
    if catalogue is not None:
        out.append("## Layer 2: the rule catalogue")
        out.append("")
        paths = {name: sum(1 for result in catalogue.entries if result.path == name) for name in ("warm", "cold", "cached")}
        out.append(f"Baseline (unmutated copy): {catalogue.baseline}. Warm baseline (unmutated forks): "
                   f"{catalogue.warm_baseline}. Property drivers: "
                   f"{'present' if catalogue.properties_available else 'MISSING'}. {catalogue.wall_seconds:.0f}s wall. "
                   f"Judged warm {paths['warm']}, cold {paths['cold']}, reused from the cache {paths['cached']} "
                   "(`mutations/warm.py`: only kills are taken from the warm path; a warm survivor is judged again cold).")
        out.append("")
        out.append("| id | seed | level | rule | status | declared | observed invariant / first failing test | path | seconds |")
        out.append("|---|---|---|---|---|---|---|---|---|")
        for result in catalogue.entries:
            entry = result.entry
            killers = " / ".join(k for k in (result.properties_killer, result.test_killer) if k) or _cell(result.detail)
            where = result.path + (f": {result.why_cold}" if result.why_cold else "")
            declared = ", ".join(entry.breaks) or "(tests)"
            out.append(f"| `{entry.id}` | {entry.seed} | {entry.level} | {_cell(entry.rule)} | {result.status} | {declared} "
                       f"| {_cell(killers)} | {_cell(where)} | {result.seconds:.1f} |")
        out.append("")
    if red is not None:
        out.append("## Red check: the new tests against the earlier behaviour")
        out.append("")
        for variant in red:
            out.append(f"### {variant.name}: {_cell(variant.verdict())}")
            out.append("")
            out.append(f"{variant.description}. pytest: {variant.summary or 'not run'}.")
            out.append("")
            out.append(f"Failed by assertion, in its own seed's tests ({len(variant.failing)}):")
            out.append("")
            out.extend(f"- `{test}`" for test in variant.failing)
            out.append("")
            if variant.apart:
                out.append(f"Failed otherwise ({len(variant.apart)}; a crash, a structural test or another seed's "
                           "test, not counted as catching anything):")
                out.append("")
                out.extend(f"- `{test}`" for test in variant.apart)
                out.append("")
            if variant.errored:
                out.append(f"Errored ({len(variant.errored)}; not counted as catching anything):")
                out.append("")
                out.extend(f"- `{test}`" for test in variant.errored)
                out.append("")
    return "\n".join(out).rstrip() + "\n"


# -- HTML -------------------------------------------------------------------------


class ViewerError(Exception):
    """The pinned viewer bundle is missing or not the pinned version: one line for the user."""


def viewer_script() -> str:
    """The viewer's browser bundle (``dist/mutation-test-elements.js``), checked to be the pinned version.

    Found through ``$MUTATION_TESTING_ELEMENTS`` (set by ``nox -s mutants`` and
    ``nox -s tests`` after ``npm install``-ing the pinned version into nox's cache).
    """
    named = os.environ.get(VIEWER_VARIABLE)
    if not named:
        raise ViewerError(f"${VIEWER_VARIABLE} is not set: run through nox (it installs {VIEWER_PACKAGE}@{VIEWER_VERSION})")
    bundle = Path(named)
    try:
        manifest = json.loads((bundle.parent.parent / "package.json").read_text(encoding="utf-8"))
        script = bundle.read_text(encoding="utf-8")
    except (OSError, ValueError) as error:
        raise ViewerError(f"{bundle}: cannot read the viewer ({getattr(error, 'strerror', None) or error})") from None
    if manifest.get("name") != VIEWER_PACKAGE or manifest.get("version") != VIEWER_VERSION:
        raise ViewerError(f"{bundle}: {manifest.get('name')}@{manifest.get('version')}, expected {VIEWER_PACKAGE}@{VIEWER_VERSION}")
    if "<script" in script.lower():
        # Inside an inline <script>, "<!--" followed by "<script" changes how the HTML parser ends it.
        raise ViewerError(f"{bundle}: contains '<script', which cannot be inlined safely")
    return script


_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; font-src data:">
<title>guard mutation report</title>
<script>
/* __PACKAGE__ __VERSION__ (Apache-2.0, https://github.com/stryker-mutator/mutation-testing-elements), inlined */
__VIEWER__
</script>
</head>
<body>
<mutation-test-report-app title-postfix="guard/ (mutmut + rule catalogue)">
<noscript>This report needs JavaScript. The same results are in mutants.md and mutants.json.</noscript>
</mutation-test-report-app>
<script type="application/json" id="report-data">__DATA__</script>
<script>
"use strict";
(function () {
  var app = document.querySelector("mutation-test-report-app");
  app.report = JSON.parse(document.getElementById("report-data").textContent);
  // As Stryker's own HTML reporter does: the page follows the viewer's light/dark theme.
  function paint() { document.body.style.backgroundColor = app.themeBackgroundColor || ""; }
  app.addEventListener("theme-changed", paint);
  paint();
})();
</script>
</body>
</html>
"""


def html_page(report: dict[str, Any], script: str) -> str:
    data = json.dumps(report, ensure_ascii=True).replace("</", "<\\/").replace("<!--", "<\\u0021--")
    return (_PAGE.replace("__PACKAGE__", VIEWER_PACKAGE).replace("__VERSION__", VIEWER_VERSION)
            .replace("__DATA__", data).replace("__VIEWER__", script.replace("</script", "<\\/script")))


def write(reports: Path, report: dict[str, Any], text: str) -> None:
    """mutants.json, mutants.md and mutants.html; without the viewer, no page and one line on stderr saying why.

    A run of an hour must not lose its results to a missing viewer, and a stale
    page must not pass for this run's: the old page is removed first.
    """
    reports.mkdir(parents=True, exist_ok=True)
    (reports / "mutants.json").write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    (reports / "mutants.md").write_text(text, encoding="utf-8")
    page = reports / "mutants.html"
    page.unlink(missing_ok=True)
    try:
        page.write_text(html_page(report, viewer_script()), encoding="utf-8")
    except ViewerError as error:
        print(f"mutants.html not written: {error}", file=sys.stderr)
