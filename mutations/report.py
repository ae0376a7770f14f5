"""The session's report: Markdown for the pull request, Stryker JSON, and the HTML page that JSON renders.

The JSON follows the mutation-testing-elements report schema (version 2):
``files[path] = {language, source, mutants[{id, mutatorName, replacement,
location{start,end}, status, killedBy, description, statusReason}]}``. mutmut
mutants and catalogue entries are both mutants there (catalogue ids start
with ``catalogue:``); the red check and the timings live in ``config``, the
schema's free-form object. The HTML page embeds that JSON and renders it
with plain JavaScript: no network, no external files.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mutations import catalogue_runner, mutmut_layer
from mutations.catalogue import Entry
from mutations.equivalents import Equivalent
from mutations.pytest_plugin import slow_test_seconds

SCHEMA_VERSION = "2"
THRESHOLDS = {"high": 100, "low": 100}

#: mutmut verdict -> Stryker status.
_STRYKER_BY_STATUS = {
    mutmut_layer.KILLED: "Killed",
    mutmut_layer.TYPE_CHECK: "CompileError",
    mutmut_layer.SURVIVED: "Survived",
    mutmut_layer.EQUIVALENT: "Ignored",
    mutmut_layer.NO_TESTS: "NoCoverage",
    mutmut_layer.TIMEOUT: "Timeout",
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
                "statusReason": reason or f"mutmut: {mutant.status}",
            }
            if status == "Killed" and mutant.killer:
                record["killedBy"] = killer_ids(mutant.killer)
            file_entry(mutant.path)["mutants"].append(record)
    if catalogue is not None:
        for result in catalogue.entries:
            entry: Entry = result.entry
            status = _STRYKER_BY_ENTRY.get(result.status, "RuntimeError")
            record = {
                "id": f"catalogue:{entry.id}",
                "mutatorName": f"catalogue/{entry.level}",
                "replacement": " / ".join(" ".join(edit.replace.split()) for edit in entry.edits) or "(removed)",
                "location": {"start": {"line": result.line, "column": 1}, "end": {"line": result.line, "column": 2}},
                "status": status,
                "description": f"[seed {entry.seed}] {entry.rule}: {entry.one_line_diff()}",
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
                 "summary": variant.summary, "problem": variant.problem}
                for variant in (red or [])
            ],
        },
    }


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
        hung = sum(1 for mutant in mutmut.mutants if mutant.killer and mutant.killer.endswith("[deadline]"))
        if hung:
            out.append(f"Kills by a hang: {hung}. The killing test ran past its deadline (20x its unmutated duration, "
                       "at least 3s) and `mutations.pytest_plugin` failed it, instead of leaving a mutmut timeout.")
            out.append("")
        out.append(f"mutmut run: {'ok' if mutmut.run_ok else mutmut.run_message}; {mutmut.wall_seconds:.0f}s wall, "
                   f"{mutmut.tested_this_run} mutants tested this run, mutmut's rate {mutmut.mutmut_rate or '?'} mutations/s, "
                   f"{rate:.2f} mutants/s over all {len(mutmut.mutants)}.")
        out.append("")
        if mutmut.slow_tests:
            out.append(f"Left out of every run under mutation (slower than {slow_test_seconds():g}s in mutmut's stats pass): "
                       "mutmut's clean and per-mutant runs, the catalogue's pytest runs and the red check. mutmut's stats "
                       "pass still runs and times them, and `nox -s tests` runs them: "
                       + ", ".join(f"`{test}`" for test in mutmut.slow_tests))
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
        out.append(f"Baseline (unmutated copy): {catalogue.baseline}. Property drivers: "
                   f"{'present' if catalogue.properties_available else 'MISSING'}. {catalogue.wall_seconds:.0f}s wall.")
        out.append("")
        out.append("| id | seed | level | rule | status | killed by (invariant / first test) |")
        out.append("|---|---|---|---|---|---|")
        for result in catalogue.entries:
            entry = result.entry
            killers = " / ".join(k for k in (result.properties_killer, result.test_killer) if k) or _cell(result.detail)
            out.append(f"| `{entry.id}` | {entry.seed} | {entry.level} | {_cell(entry.rule)} | {result.status} | {_cell(killers)} |")
        out.append("")
    if red is not None:
        out.append("## Red check: the new tests against the earlier behaviour")
        out.append("")
        for variant in red:
            verdict = variant.problem or f"{len(variant.failing)} tests fail, as expected"
            out.append(f"### {variant.name}: {_cell(verdict)}")
            out.append("")
            out.append(f"{variant.description}. pytest: {variant.summary or 'not run'}.")
            out.append("")
            out.extend(f"- `{test}`" for test in variant.failing)
            out.append("")
    return "\n".join(out).rstrip() + "\n"


# -- HTML -------------------------------------------------------------------------

_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<title>guard mutation report</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.6em; }
table { border-collapse: collapse; margin: .5em 0; }
td, th { border: 1px solid #ccc; padding: 2px 8px; text-align: left; vertical-align: top; }
.totals td { text-align: right; font-variant-numeric: tabular-nums; }
.Killed { background: #d7f5d7; } .Survived { background: #ffd6d6; } .Ignored { background: #eee; }
.NoCoverage { background: #ffe9c2; } .Timeout { background: #fff3b0; } .RuntimeError, .CompileError { background: #f3d6ff; }
.Pending { background: #dde7ff; }
pre.source { font: 12px/1.35 ui-monospace, monospace; background: #fafafa; border: 1px solid #ddd; padding: 4px; overflow-x: auto; }
pre.source span.mutated { background: #fff1a8; }
code, .diff { font: 12px ui-monospace, monospace; }
details { margin: .4em 0; }
</style>
</head>
<body>
<h1>Mutation report: <code>guard/</code></h1>
<p id="verdict"></p>
<table class="totals" id="totals">
<tr><th>total</th><th>killed</th><th>survived</th><th>equivalent (ignored)</th><th>no coverage</th><th>timeout</th><th>runtime error</th><th>compile error</th><th>pending</th><th>score</th></tr>
<tr><td id="count-total"></td><td id="count-killed"></td><td id="count-survived"></td><td id="count-ignored"></td><td id="count-nocoverage"></td><td id="count-timeout"></td><td id="count-runtimeerror"></td><td id="count-compileerror"></td><td id="count-pending"></td><td id="score"></td></tr>
</table>
<p id="composition"></p>
<div id="red-check"></div>
<h2>Files</h2>
<div id="files"></div>
<script type="application/json" id="report-data">__DATA__</script>
<script>
"use strict";
(function () {
  var report = JSON.parse(document.getElementById("report-data").textContent);
  var statuses = ["Killed", "Survived", "Ignored", "NoCoverage", "Timeout", "RuntimeError", "CompileError", "Pending"];
  var counts = {};
  statuses.forEach(function (s) { counts[s] = 0; });
  var paths = Object.keys(report.files).sort();
  paths.forEach(function (path) {
    report.files[path].mutants.forEach(function (m) { counts[m.status] = (counts[m.status] || 0) + 1; });
  });
  var total = 0;
  statuses.forEach(function (s) { total += counts[s]; });
  function put(id, text) { document.getElementById(id).textContent = String(text); }
  put("count-total", total);
  statuses.forEach(function (s) { put("count-" + s.toLowerCase(), counts[s]); });
  var considered = total - counts.Ignored;
  var detected = counts.Killed + counts.CompileError;
  put("score", considered ? (100 * detected / considered).toFixed(1) + "%" : "n/a");
  var catalogueCount = 0;
  paths.forEach(function (path) {
    report.files[path].mutants.forEach(function (m) { if (m.id.indexOf("catalogue:") === 0) { catalogueCount += 1; } });
  });
  put("composition", "Counts include " + (total - catalogueCount) + " mutmut mutants and " + catalogueCount +
      " rule-catalogue entries (ids starting with catalogue:). Open a file to see its mutants and source.");
  var config = report.config || {};
  put("verdict", "Verdict: " + (config.verdict || "?") + " (seed " + config.seed + ", wall time " + Math.round(config.wallSeconds || 0) + "s)");

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    (children || []).forEach(function (c) { node.appendChild(typeof c === "string" ? document.createTextNode(c) : c); });
    return node;
  }

  var red = document.getElementById("red-check");
  if ((config.redCheck || []).length) {
    red.appendChild(el("h2", {}, ["Red check: the new tests against the earlier behaviour"]));
    config.redCheck.forEach(function (v) {
      var items = v.failing.map(function (t) { return el("li", {}, [el("code", {}, [t])]); });
      red.appendChild(el("details", {"class": "red", "data-variant": v.name}, [
        el("summary", {}, [v.name + ": " + (v.problem || (v.failing.length + " tests fail, as expected")) + " (" + v.summary + ")"]),
        el("p", {}, [v.description]), el("ul", {}, items)]));
    });
  }

  var container = document.getElementById("files");
  paths.forEach(function (path) {
    var file = report.files[path];
    var mutants = file.mutants.slice().sort(function (a, b) { return a.location.start.line - b.location.start.line; });
    var byLine = {};
    mutants.forEach(function (m) { byLine[m.location.start.line] = true; });
    var fileCounts = {};
    mutants.forEach(function (m) { fileCounts[m.status] = (fileCounts[m.status] || 0) + 1; });
    var summary = statuses.filter(function (s) { return fileCounts[s]; }).map(function (s) { return s + " " + fileCounts[s]; }).join(", ");
    var section = el("details", {"class": "file", "data-path": path}, [el("summary", {}, [path + " \\u2014 " + mutants.length + " mutants" + (summary ? " (" + summary + ")" : "")])]);
    var rows = [el("tr", {}, [el("th", {}, ["line"]), el("th", {}, ["status"]), el("th", {}, ["mutant"]), el("th", {}, ["change"]), el("th", {}, ["killed by / reason"])])];
    mutants.forEach(function (m) {
      rows.push(el("tr", {"class": m.status, "data-status": m.status}, [
        el("td", {}, [String(m.location.start.line)]), el("td", {}, [m.status]), el("td", {}, [el("code", {}, [m.id])]),
        el("td", {"class": "diff"}, [m.description || m.replacement || ""]),
        el("td", {}, [(m.killedBy || []).join(", ") || m.statusReason || ""])]));
    });
    section.appendChild(el("table", {"class": "mutants"}, rows));
    var pre = el("pre", {"class": "source"}, []);
    file.source.split("\\n").forEach(function (text, index) {
      var number = String(index + 1);
      var line = el("span", byLine[index + 1] ? {"class": "mutated"} : {}, [("    " + number).slice(-4) + "  " + text + "\\n"]);
      pre.appendChild(line);
    });
    section.appendChild(pre);
    container.appendChild(section);
  });
  document.body.setAttribute("data-rendered", "yes");
})();
</script>
</body>
</html>
"""


def html_page(report: dict[str, Any]) -> str:
    data = json.dumps(report, ensure_ascii=True).replace("</", "<\\/")
    return _PAGE.replace("__DATA__", data)


def write(reports: Path, report: dict[str, Any], text: str) -> None:
    reports.mkdir(parents=True, exist_ok=True)
    (reports / "mutants.json").write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    (reports / "mutants.html").write_text(html_page(report), encoding="utf-8")
    (reports / "mutants.md").write_text(text, encoding="utf-8")
