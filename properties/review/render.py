"""Part 5 of the review: ``review.md`` (summary of at most 15 lines, then details), ``review.json`` and the
change's mutants as Stryker JSON (``review-mutants.json``, the schema ``nox -s mutants`` writes).

Every file written here is read back by ``read``: JSON by ``json``, the
Markdown is only for people.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from properties.review import behaviour

SCHEMA = "guard-review-report/1"
SUMMARY_LINES = 15
#: An invariant whose exercised count fell below this share of BASE's is flagged.
FALL = 0.5
#: What the exhaustive half does not cover (its scopes bound the runs; the bulk work goes beyond them).
NOT_BUILT = ("the exhaustive comparison covers every run of its scopes only (the budget's three smallest, the "
             "hook path's and navigation's default verdict scopes, each of a bounded length): beyond them 'no "
             "behaviour change' means none on the seeded bulk work, not a proof; a subject whose side offers "
             "no exhaustive comparison (the lookup classifier) is compared on its bulk receipts alone")
#: Why nothing was compared when ``guard/`` is one tree at both sides ({tree}: its id).
SAME_GUARD = ("guard/ is the same tree at BASE and HEAD ({tree}): every side of every comparison runs HEAD's harness "
              "with that side's guard/, so no trace of any subject can differ; nothing was compared")
NOT_RUN = ("the exhaustive comparison was not run (--no-exhaustive): 'no behaviour change' means none on the seeded "
           "bulk work of each subject, not a proof")


def unreported_note(row: dict[str, Any]) -> str:
    """The observables a scope or a bulk comparison compared on neither side because one side's guard does not
    report them ("" when there are none)."""
    unreported = row.get("unreported") or []
    return f"not reported by one side's guard, so not compared: {', '.join(unreported)}" if unreported else ""


def proof_line(proofs: "dict[str, Any] | None") -> str:
    """The exhaustive half in one clause: proved equal to the fixpoint in which scopes, or where it differs."""
    if proofs is None:
        return "exhaustive comparison not run"
    parts = []
    for subject, result in proofs["subjects"].items():
        rows = result["scopes"]
        differs = sorted({kind for row in rows for kind in row["differs"]})
        proved = [row["scope"] for row in rows if row["complete"] and not row["differs"]]
        cut = [row["scope"] for row in rows if not row["complete"]]
        if differs:
            parts.append(f"{subject} differs exhaustively in {', '.join(differs)}")
        elif proved and not cut:
            parts.append(f"{subject}: no behaviour change, equality proved to the fixpoint in scopes {', '.join(proved)}")
        else:
            parts.append(f"{subject}: no difference found, but not proved (cut short in {', '.join(cut)})")
    return "; ".join(parts)


def _invariants(verdicts: dict[str, Any]) -> list[dict[str, Any]]:
    rows: dict[str, dict[str, Any]] = {}
    for side in ("base", "head"):
        report = verdicts.get(side) or {}
        for row in report.get("invariants", []):
            entry = rows.setdefault(row["id"], {"id": row["id"], "subject": row["subject"], "title": row.get("title", "")})
            entry[side] = {"status": row["status"], "exercised": row["exercised"], "checked": row["checked"],
                           "violations": row.get("violations", [])}
    out = []
    for entry in rows.values():
        base, head = entry.get("base"), entry.get("head")
        flags = []
        if head is None:
            flags.append("gone at HEAD")
        elif head["status"] not in ("held",):
            flags.append(f"{head['status']} at HEAD")
        if base is not None and head is not None:
            if head["exercised"] == 0 and base["exercised"] > 0:
                flags.append("exercised fell to zero")
            elif base["exercised"] and head["exercised"] < FALL * base["exercised"]:
                flags.append("exercised fell by more than half")
        entry["flags"] = flags
        out.append(entry)
    return out


def _coverage(verdicts: dict[str, Any]) -> list[dict[str, Any]]:
    rows: dict[tuple[str, str], dict[str, Any]] = {}
    for side in ("base", "head"):
        for row in (verdicts.get(side) or {}).get("coverage", []):
            entry = rows.setdefault((row["subject"], row["name"]), {"subject": row["subject"], "name": row["name"],
                                                                    "minimum": row["minimum"]})
            entry[side] = {"count": row["count"], "met": row["met"], "required": row["required"]}
    return list(rows.values())


def _explorer(verdicts: dict[str, Any]) -> list[dict[str, Any]]:
    rows: dict[str, dict[str, Any]] = {}
    for side in ("base", "head"):
        for driver in (verdicts.get(side) or {}).get("drivers", []):
            for config in driver.get("configurations", []):
                entry = rows.setdefault(config["name"], {"scope": config["name"], "limits": config.get("limits", "")})
                entry[side] = {"states": config["states"], "complete": config["complete"]}
    return list(rows.values())


def build(*, base: str, head: str, seed: int, quick: bool, changed: list[Any], drifted: list[str], reference_changed: bool,
          adopted: bool, comparisons: dict[str, Any], saved: list[dict[str, Any]], verdicts: dict[str, Any], head_log: str,
          sides: Any, mutmut: Any, catalogue: Any, mutation_note: str, timings: dict[str, float], wall: float,
          cpu: "dict[str, float] | None" = None,
          counts: dict[str, int], fleet: "dict[str, Any] | None" = None,
          proofs: "dict[str, Any] | None" = None, twins: Any = None, same_guard: "str | None" = None) -> dict[str, Any]:
    """The review's report as data (``review.json``); ``same_guard``: the tree id of a ``guard/`` that is the same
    at both sides, so that the behaviour was not compared (``SAME_GUARD``)."""
    invariants = _invariants(verdicts)
    head_report = verdicts.get("head")
    failures: list[str] = []
    broken = []
    if head_report is None:
        failures.append("HEAD's verdict wrote no report")
    else:
        for row in invariants:
            if "head" in row and row["head"]["status"] != "held":
                broken.append({"id": row["id"], "status": row["head"]["status"], "violations": row["head"]["violations"]})
        if not head_report.get("ok"):
            failures.append("HEAD's verdict fails: " + "; ".join(head_report.get("reasons", [])))
    counterexamples = [] if head_report is None else list(head_report.get("counterexamples", []))
    violated_lines = [line for line in head_log.splitlines() if line.startswith(("VIOLATED ", "CRASHED "))]
    if fleet is not None:
        if fleet["status"] == 1:
            failures.append("the fleet's stored failures replay at HEAD: "
                            + "; ".join(line for line in fleet["lines"] if not line.startswith("ok ")))
        elif fleet["status"] != 0:
            failures.append(f"the fleet's database {fleet['database']} could not be replayed: {fleet['problem']}")
    if reference_changed and not adopted:
        failures.insert(0, "reference/ changed without adoption (tests/reference_pin.json does not match; "
                           "nox -s adopt-reference)")
    survivors: list[Any] = []
    untested: list[Any] = []
    # A survivor whose twin at BASE (``mutations.review.against_base``: same unit, same one-line diff) survived
    # there too is carried over, not new: the change did not weaken the tests, so it does not fail the review.
    carried: list[Any] = []
    if mutmut is not None:
        from mutations.mutmut_layer import NOT_CHECKED
        from mutations.review import ABSENT, survived

        untested = [mutant for mutant in mutmut.mutants if mutant.status == NOT_CHECKED]
        for mutant in mutmut.mutants:
            # A mutant mutmut never ran is not a survivor (``survived``): it is reported once, below, as untested.
            if survived(mutant.status):
                row = {"name": mutant.name, "status": mutant.status, "path": mutant.path, "line": mutant.line,
                       "diff": mutant.diff, "one_line": mutant.one_line,
                       "at_base": ABSENT if twins is None else twins.at_base.get(mutant.name, ABSENT),
                       "base_twin": None if twins is None else twins.twins.get(mutant.name)}
                (carried if twins is not None and twins.carried(mutant.name) else survivors).append(row)
        if twins is not None and twins.problem:
            failures.append(f"survivors could not be matched against BASE ({twins.problem}); each counts as new")
        if not mutmut.run_ok:
            failures.append(f"mutmut on the change failed: {mutmut.run_message}")
        if untested:
            failures.append(f"{len(untested)} mutants of the change were never tested"
                            + (" (mutmut failed before them)" if not mutmut.run_ok else ""))
        failures.extend(mutmut.equivalent_problems)
    entries = []
    if catalogue is not None:
        for result in catalogue.entries:
            entries.append({"id": result.entry.id, "status": result.status, "killer": result.killer, "detail": result.detail,
                            "breaks": list(result.entry.breaks)})
            if result.status != "killed":
                survivors.append({"name": f"catalogue:{result.entry.id}", "status": result.status, "path": result.entry.file,
                                  "line": result.line, "diff": result.entry.one_line_diff(), "one_line": result.entry.rule})
    if survivors:
        failures.append(f"{len(survivors)} mutants of the change survive with no justified equivalence")
    non_distinguishing = sides.pass_on_both
    exhaustive_changed = proofs is not None and any(row["differs"] for result in proofs["subjects"].values()
                                                    for row in result["scopes"])
    changed_behaviour = exhaustive_changed or any(comparison.changed for comparison in comparisons.values())
    tests_note = ""
    if changed_behaviour and sides.tests and not sides.fail_on_base:
        tests_note = "the behaviour changed, yet no changed test fails on BASE's guard"
    elif changed_behaviour and not sides.tests:
        tests_note = "the behaviour changed, and the change adds or edits no test"
    reference_line = ("reference/: changed, adopted (the pin matches)" if reference_changed and adopted else
                      "reference/: CHANGED WITHOUT ADOPTION" if reference_changed else "reference/: unchanged")
    names = [c.qualified + ("" if c.kind == "edited" else f" ({c.kind})") for c in changed]
    verdict = "FAIL" if failures else "PASS"
    summary = [
        f"# Review: {verdict}  ({base[:12]} -> {head[:12]}, seed {seed}{', quick verdicts' if quick else ''})",
        "",
        f"- {reference_line}",
        f"- changed rules ({len(changed)}): " + (", ".join(names[:8]) + (f", and {len(names) - 8} more" if len(names) > 8 else "")
                                                  if names else "none"),
        "- behaviour: " + (SAME_GUARD.format(tree=same_guard[:12]) if same_guard else
                           _behaviour_line(comparisons, [item for item in saved if item.get("trace") != "exhaustive"],
                                           proofs is not None)),
        "- behaviour, exhaustively: " + ("not needed (guard/ is the same tree at both sides)" if same_guard else
                                         proof_line(proofs)
                                         + _shortest_exhaustive([item for item in saved if item.get("trace") == "exhaustive"])),
        "- broken invariants at HEAD: " + (", ".join(f"{b['id']} ({b['status']})" for b in broken) or "none"),
        "- the fuzz fleet's stored failures at HEAD: " + (
            "not replayed (no --database)" if fleet is None else
            f"none replay ({fleet['database']})" if fleet["status"] == 0 else
            f"REPLAY ({fleet['database']}): " + "; ".join(line for line in fleet["lines"] if not line.startswith("ok "))
            if fleet["status"] == 1 else f"could not be read: {fleet['problem']}"),
        "- new survivors: " + (mutation_note if mutation_note else
                               f"unknown, {len(untested)} mutants untested: mutmut failed ({mutmut.run_message[:300]})"
                               if mutmut is not None and not mutmut.run_ok else
                               (", ".join(s["name"] for s in survivors[:5]) + (" ..." if len(survivors) > 5 else "")
                                if survivors else "none")
                               + (f"; {len(carried)} carried over from BASE" if carried else "")),
        "- changed tests that do not tell BASE from HEAD: " + (
            f"not asked ({len(sides.tests)} changed tests; with guard/ the same at both sides none can)" if same_guard else
            (", ".join(non_distinguishing[:4]) + (" ..." if len(non_distinguishing) > 4 else "") or "none")
            + (f"; {tests_note}" if tests_note else "")),
    ]
    if failures:
        summary.append("- fails because: " + "; ".join(failures)[:400])
    summary = summary[:SUMMARY_LINES]
    return {
        "schema": SCHEMA, "verdict": verdict, "base": base, "head": head, "seed": seed, "quick": quick,
        "failures": failures, "summary": summary,
        "changed_functions": [c.to_json() for c in changed], "catalogue_drifted": drifted,
        "reference_changed": reference_changed, "reference_adopted": adopted,
        "behaviour_changed": changed_behaviour,
        "behaviour": {
            subject: {"unit": comparison.unit, "traces": comparison.traces, "steps": comparison.steps,
                      "traces_differing": comparison.traces_differing, "steps_differing": comparison.steps_differing,
                      "by_observable": comparison.by_observable, "base_limits": comparison.base_limits,
                      "head_limits": comparison.head_limits, "unreported": list(comparison.unreported)}
            for subject, comparison in comparisons.items()},
        "same_guard": same_guard,
        "behaviour_not_built": SAME_GUARD.format(tree=same_guard[:12]) if same_guard else
        NOT_BUILT if proofs is not None else NOT_RUN,
        "exhaustive": None if proofs is None else {subject: result["scopes"] for subject, result in proofs["subjects"].items()},
        "exhaustive_summary": "not needed: guard/ is the same tree at both sides" if same_guard else proof_line(proofs),
        "exhaustive_seconds": None if proofs is None else proofs.get("seconds"),
        "exhaustive_cpu_seconds": None if proofs is None else proofs.get("cpu_seconds"),
        "distinguishing_traces": [{key: value for key, value in item.items() if key != "events"} for item in saved],
        "invariants": invariants, "broken_invariants": broken, "counterexamples": counterexamples,
        "violated_lines": violated_lines,
        "coverage": _coverage(verdicts), "explorer": _explorer(verdicts),
        "verdict_reasons": {side: (verdicts.get(side) or {}).get("reasons") for side in ("base", "head")},
        "fleet": fleet,
        "new_survivors": survivors, "carried_survivors": carried,
        "survivors_at_base_seconds": None if twins is None else round(twins.seconds, 1),
        "catalogue_entries_run": entries, "mutation_note": mutation_note,
        "mutants_tested": 0 if mutmut is None else len(mutmut.mutants),
        "changed_test_files": sides.files, "changed_tests": sides.tests, "tests_failing_on_base": sides.fail_on_base,
        "non_distinguishing_tests": non_distinguishing, "tests_note": tests_note, "tests_problem": sides.problem,
        "timings": {name: round(value, 1) for name, value in timings.items()}, "wall_seconds": round(wall, 1),
        "cpu_seconds": {name: round(value, 1) for name, value in (cpu or {}).items()},
        "counts_requested": counts,
        # Each compared subject's count option and its default, so the replay line names the counts that differ.
        "count_options": {subject: [str(side.OPTION), int(side.DEFAULT_COUNT)]
                          for subject, side in ((name, behaviour.side(name)) for name in counts)},
        "not_compared": list(behaviour.not_compared()),
    }


def _shortest(saved: list[dict[str, Any]]) -> dict[str, Any]:
    return min(saved, key=lambda item: item["steps"])


def _shortest_exhaustive(saved: list[dict[str, Any]]) -> str:
    if not saved:
        return ""
    shortest = _shortest(saved)
    return f"; shortest {shortest['steps']} steps ({shortest['observable']}, {shortest['scope']}): `{shortest['file']}`"


def _behaviour_line(comparisons: dict[str, Any], saved: list[dict[str, Any]], exhaustive: bool = False) -> str:
    """One summary line: per subject, changed on how much of its bulk work, or unchanged; the shortest file."""
    parts = []
    for subject, comparison in comparisons.items():
        if comparison.changed:
            parts.append(f"{subject} CHANGED on {comparison.traces_differing:,} of {comparison.traces:,} {comparison.unit}")
        else:
            parts.append(f"{subject} no change on {comparison.traces:,} {comparison.unit}")
    text = "; ".join(parts) or "not compared"
    if saved:
        shortest = _shortest(saved)
        text += f"; shortest distinguishing {shortest['subject']} item {shortest['steps']} steps: `{shortest['file']}`"
    if not any(comparison.changed for comparison in comparisons.values()):
        text += " (the bulk work; see the exhaustive line for proofs)" if exhaustive else \
            " (not a proof: the exhaustive comparison was not run)"
    return text


def _table(header: list[str], rows: list[list[Any]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(cell).replace("|", "/").replace("\n", " ") for cell in row) + " |" for row in rows]
    return lines


def markdown(data: dict[str, Any]) -> str:
    lines = list(data["summary"]) + ["", "## The change, by rule", ""]
    rows = [[c["qualified"], c["kind"], ", ".join(c["seeds"]) or "-",
             "; ".join(f"{e['id']} (breaks {', '.join(e['breaks']) or 'tests only'}"
                       f"{'' if e['applies_at_head'] else '; its text is gone at HEAD'})" for e in c["catalogue_entries"]) or "-"]
            for c in data["changed_functions"]]
    lines += _table(["unit", "change", "seeds (rule comments)", "catalogue entries in it"], rows) if rows else ["No unit of guard/ or reference/ changed."]
    if data["catalogue_drifted"]:
        lines += ["", "Catalogue entries whose text no longer applies at HEAD: " + ", ".join(data["catalogue_drifted"])]
    lines += ["", "## How the behaviour changed, exhaustively (BASE and HEAD in one product model)", "",
              f"{data['exhaustive_summary']}."]
    if not data.get("same_guard"):
        lines += ["", f"Not covered: {data['behaviour_not_built']}."]
    for subject, rows in (data.get("exhaustive") or {}).items():
        lines += ["", f"### {subject}: every trace of the explorer's small scopes, one shortest trace per kind of difference", ""]
        lines += _table(["scope", "pairs", "edges", "searches", "reached", "proved equal", "differs in", "seconds"],
                        [[r["scope"], f"{r['states']:,}", f"{r['edges']:,}", r["searches"],
                          "fixpoint" if r["complete"] else f"cut short ({r['cut'] or r['problem']})",
                          (", ".join(r["proved"]) or "-") + (f" ({unreported_note(r)})" if r.get("unreported") else ""), ", ".join(r["differs"]) or "-",
                          r["seconds"]] for r in rows])
    lines += ["", "## How the behaviour changed (seeded bulk work, BASE beside HEAD)"]
    if data.get("same_guard"):
        # Nothing was compared, and the section says why rather than stand empty.
        lines += ["", data["behaviour_not_built"] + "."]
    if data.get("not_compared"):
        lines += ["", "Not compared (no review side in the subject's folder): " + ", ".join(data["not_compared"]) + "."]
    for subject, b in data["behaviour"].items():
        lines += ["", f"### {subject}: {b['traces']:,} {b['unit']}, {b['steps']:,} steps; {b['traces_differing']:,} "
                      f"{b['unit']} and {b['steps_differing']:,} steps differ", ""]
        lines += _table(["observable", f"{b['unit']} differing", "steps differing"],
                        [[name, f"{v['traces']:,}", f"{v['steps']:,}"] for name, v in b["by_observable"].items()])
        if b.get("unreported"):
            lines += ["", unreported_note(b).capitalize()]
        if b["base_limits"] != b["head_limits"]:
            lines += ["", f"Default limits differ: BASE {b['base_limits']}, HEAD {b['head_limits']}"]
    for item in data["distinguishing_traces"]:
        where = f"scope {item['scope']}, exhaustive" if item.get("trace") == "exhaustive" else f"item {item['trace']}"
        lines += ["", f"### {item['subject']} {item['observable']}: {where}, {item['steps']} steps, "
                      f"`{item['file']}`", "",
                  f"Replay: `nox -s replay -- {item['file']}` (BASE beside HEAD after the file's own replay); "
                  f"`nox -s review -- --show {item['file']}` (BASE beside HEAD only).", ""]
        lines += item.get("table", [])
    lines += ["", "## The verdict on both sides", ""]
    rows = [[r["id"], r["subject"], *(f"{r[s]['status']} / {r[s]['exercised']:,}" if s in r else "-" for s in ("base", "head")),
             ", ".join(r["flags"]) or ""] for r in data["invariants"]]
    lines += _table(["invariant", "subject", "BASE status / exercised", "HEAD status / exercised", "flag"], rows)
    for broken in data["broken_invariants"]:
        for text in broken["violations"]:
            lines.append(f"\nVIOLATED {broken['id']} at HEAD: {text}")
    for line in data["violated_lines"]:
        lines.append(f"\n`{line}`")
    for path in data["counterexamples"]:
        lines.append(f"\ncounterexample: `{path}`")
    lines += ["", "Coverage minimums" + (" (not required of quick verdicts):" if data["quick"] else ":"), ""]
    lines += _table(["subject", "count", "minimum", "BASE", "HEAD"],
                    [[c["subject"], c["name"], c["minimum"], *(f"{c[s]['count']:,}{'' if c[s]['met'] else ' UNMET'}" if s in c else "-"
                                                               for s in ("base", "head"))] for c in data["coverage"]])
    if data["explorer"]:
        lines += ["", "Explorer states per scope:", ""]
        lines += _table(["scope", "limits", "BASE states", "HEAD states"],
                        [[e["scope"], e["limits"], *(f"{e[s]['states']:,}{'' if e[s]['complete'] else ' (bounded)'}" if s in e else "-"
                                                     for s in ("base", "head"))] for e in data["explorer"]])
    fleet = data.get("fleet")
    lines += ["", "## The fuzz fleet's stored failures at HEAD", ""]
    if fleet is None:
        lines.append("Not replayed: no `--database` (or `GUARD_FUZZ_DATABASE`) was named.")
    else:
        lines.append(f"`python -m properties.database --database {fleet['database']}` at HEAD, exit {fleet['status']}:")
        lines += [""] + [f"- {line}" for line in fleet["lines"]] + ([f"- {fleet['problem']}"] if fleet["problem"] else [])
    lines += ["", "## Mutation of the change", ""]
    if data["mutation_note"]:
        lines.append(data["mutation_note"])
    else:
        lines.append(f"{data['mutants_tested']} mutmut mutants in the changed functions; catalogue entries run: "
                     + (", ".join(f"{e['id']} {e['status']}" + (f" by {e['killer']}" if e["killer"] else "")
                                  for e in data["catalogue_entries_run"]) or "none"))
    for survivor in data["new_survivors"]:
        lines += ["", f"New survivor `{survivor['name']}` ({survivor['status']}, {survivor['path']}:{survivor['line']}; "
                      f"at BASE: {survivor.get('at_base') or 'absent'}):", "",
                  "```diff", survivor["diff"].rstrip(), "```"]
    carried = data.get("carried_survivors") or []
    if carried:
        lines += ["", f"Carried over from BASE ({len(carried)}; the same mutation of the same function survived BASE's "
                      "tests too, so the change did not create it):", ""]
        lines += [f"- `{s['name']}` {s['one_line']} (BASE's twin `{s['base_twin']}`: {s['at_base']})" for s in carried]
    lines += ["", "Tests the change added or edited: " + (", ".join(data["changed_tests"]) or "none")]
    if data["changed_tests"] and data.get("same_guard"):
        lines.append("- not run against BASE's guard: guard/ is the same tree at both sides, so none can tell them apart")
    elif data["changed_tests"]:
        lines += [f"- fail on BASE's guard: {', '.join(data['tests_failing_on_base']) or 'none'}",
                  f"- pass on both sides (do not tell BASE from HEAD): {', '.join(data['non_distinguishing_tests']) or 'none'}"]
    if data["tests_note"]:
        lines.append(f"- {data['tests_note']}")
    if data["tests_problem"]:
        lines.append(f"- problem: {data['tests_problem']}")
    lines += ["", "Wall time: " + ", ".join(f"{k} {v:.0f} s" for k, v in data["timings"].items())
              + f"; total {data['wall_seconds']:.0f} s",
              "CPU time: " + (", ".join(f"{k} {v:.0f} s" for k, v in data.get("cpu_seconds", {}).items()) or "not measured")
              + (f"; total {sum(data['cpu_seconds'].values()):.0f} s" if data.get("cpu_seconds") else ""),
              f"Replay: `nox -s review -- {data['base'][:12]} --seed {data['seed']}"
              f"{' --quick' if data['quick'] else ''}"
              + "".join(f" {option} {data['counts_requested'][subject]}"
                        for subject, (option, default) in data.get("count_options", {}).items()
                        if data["counts_requested"].get(subject, default) != default) + "`"]
    return "\n".join(lines) + "\n"


def write(data: dict[str, Any], out: Path, stryker: dict[str, Any] | None) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written = [out / "review.md", out / "review.json"]
    written[0].write_text(markdown(data), encoding="utf-8")
    written[1].write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    if stryker is not None:
        path = out / "review-mutants.json"
        path.write_text(json.dumps(stryker, indent=2) + "\n", encoding="utf-8")
        written.append(path)
    return written


def read(out: Path) -> dict[str, Any]:
    return json.loads((out / "review.json").read_text(encoding="utf-8"))
