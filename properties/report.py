"""The verdict of one ``python -m properties`` run: console text, Markdown and JSON.

One table invariant by invariant (id, seeds, status, checked, exercised),
then the coverage counts against their minimums, then each driver's time,
steps and throughput (and the explorer's states and edges per configuration).
The JSON file carries the same numbers for tools; the Markdown file is what a
reviewer pastes into a pull request.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

import attrs

from properties.budget.invariants import BY_ID, CATALOGUE, COVERAGE_MINIMUMS, Tally

SCHEMA = "guard-properties-report/1"
NUMERIC = {"checked", "exercised", "reached", "minimum", "value", "seconds", "steps", "traces", "steps/s", "states", "edges", "depth", "states/s"}


@attrs.define
class DriverRow:
    """What one driver did: its own tally's steps and traces, its wall time, and driver-specific details."""

    name: str
    seconds: float
    steps: int
    traces: int
    status: str = "ran"
    details: dict[str, Any] = attrs.field(factory=dict)
    #: Per-configuration rows (the explorer): name, limits, states, edges, depth, complete, seconds.
    configurations: list[dict[str, Any]] = attrs.field(factory=list)

    @property
    def throughput(self) -> float:
        return self.steps / self.seconds if self.seconds > 0 else 0.0


@attrs.define
class Verdict:
    ok: bool
    reasons: list[str]


def judge(tally: Tally, selected: Sequence[str], check_coverage: bool, driver_errors: Sequence[str] = ()) -> Verdict:
    """Fail on any violation, any vacuous selected invariant, an unmet coverage minimum (when asked) or a driver error."""
    reasons = []
    for invariant_id in selected:
        status = tally.status(invariant_id)
        if status != "held":
            reasons.append(f"{invariant_id} {status}")
    if check_coverage:
        for name, minimum in COVERAGE_MINIMUMS.items():
            if tally.coverage[name] < minimum:
                reasons.append(f"coverage: {name} {tally.coverage[name]} < {minimum}")
    reasons.extend(f"driver error: {error}" for error in driver_errors)
    return Verdict(ok=not reasons, reasons=reasons)


def build(
    *, seed: int, profile: str, mode: str, tally: Tally, selected: Sequence[str], drivers: Sequence[DriverRow],
    verdict: Verdict, wall_seconds: float, check_coverage: bool, statistics: dict[str, int] | None = None,
    counterexamples: Sequence[str] = (),
) -> dict[str, Any]:
    """Everything the report shows, as plain data (the JSON file's content)."""
    invariants = []
    for invariant in CATALOGUE:
        row: dict[str, Any] = {"id": invariant.id, "title": invariant.title, "seeds": invariant.seeds}
        if invariant.id in selected:
            row.update(status=tally.status(invariant.id), checked=tally.checked[invariant.id], exercised=tally.exercised[invariant.id])
        else:
            row.update(status="not selected", checked=0, exercised=0)
        row["violations"] = [str(v) for v in tally.violations if v.invariant == invariant.id][:3]
        invariants.append(row)
    return {
        "schema": SCHEMA,
        "seed": seed,
        "profile": profile,
        "mode": mode,
        "ok": verdict.ok,
        "reasons": verdict.reasons,
        "wall_seconds": round(wall_seconds, 3),
        "steps": tally.steps,
        "traces": tally.traces,
        "invariants": invariants,
        "coverage": [
            {"name": name, "count": tally.coverage[name], "minimum": minimum, "met": tally.coverage[name] >= minimum, "required": check_coverage}
            for name, minimum in COVERAGE_MINIMUMS.items()
        ],
        "statistics": dict(statistics or {}),
        "drivers": [
            {
                "name": d.name, "status": d.status, "seconds": round(d.seconds, 3), "steps": d.steps, "traces": d.traces,
                "steps_per_second": round(d.throughput, 1), "details": d.details, "configurations": d.configurations,
            }
            for d in drivers
        ],
        "counterexamples": list(counterexamples),
    }


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]], markdown: bool) -> list[str]:
    cells = [[str(c) for c in row] for row in rows]
    if markdown:
        out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
        out.extend("| " + " | ".join(row) + " |" for row in cells)
        return out
    widths = [max(len(h), *(len(row[i]) for row in cells)) if cells else len(h) for i, h in enumerate(header)]
    line = "  ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip()
    out = [line, "-" * len(line)]
    numeric = [i for i, name in enumerate(header) if name in NUMERIC]
    out.extend("  ".join(c.rjust(w) if i in numeric else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths))).rstrip() for row in cells)
    return out


def render(data: dict[str, Any], markdown: bool = False) -> str:
    h = (lambda text: f"## {text}") if markdown else (lambda text: f"{text}:")
    lines = []
    verdict = "PASS" if data["ok"] else "FAIL"
    title = f"properties: {verdict}  seed {data['seed']}  profile {data['profile']}  mode {data['mode']}  " \
            f"{data['steps']:,} steps, {data['traces']:,} traces, {data['wall_seconds']:.1f} s wall"
    lines.append(f"# {title}" if markdown else title)
    lines.append("")
    lines.append(h("Invariants"))
    rows = [
        (r["id"], r["seeds"], r["status"], f"{r['checked']:,}", f"{r['exercised']:,}", r["title"])
        for r in data["invariants"]
    ]
    lines.extend(_table(("id", "seeds", "status", "checked", "exercised", "statement"), rows, markdown))
    for r in data["invariants"]:
        for text in r["violations"]:
            lines.append(f"VIOLATED {r['id']} {text}")
    lines.append("")
    lines.append(h("Coverage (minimums for the default run)" + ("" if data["coverage"] and data["coverage"][0]["required"] else "; not required in this mode")))
    rows = [(c["name"], f"{c['count']:,}", c["minimum"], "met" if c["met"] else "UNMET") for c in data["coverage"]]
    lines.extend(_table(("count", "reached", "minimum", ""), rows, markdown))
    if data["statistics"]:
        lines.append("")
        lines.append(h("Bulk statistics (as the seeds reported them)"))
        lines.extend(_table(("statistic", "value"), [(k, f"{v:,}") for k, v in data["statistics"].items()], markdown))
    lines.append("")
    lines.append(h("Drivers"))
    rows = [
        (d["name"], d["status"], f"{d['seconds']:.2f}", f"{d['steps']:,}", f"{d['traces']:,}", f"{d['steps_per_second']:,.0f}",
         ", ".join(f"{k} {v:,}" if isinstance(v, int) else f"{k} {v}" for k, v in d["details"].items()))
        for d in data["drivers"]
    ]
    lines.extend(_table(("driver", "status", "seconds", "steps", "traces", "steps/s", "details"), rows, markdown))
    configs = [(d["name"], c) for d in data["drivers"] for c in d["configurations"]]
    if configs:
        lines.append("")
        lines.append(h("Explorer configurations"))
        rows = [
            (c["name"], c["limits"], f"{c['states']:,}", f"{c['edges']:,}", c["depth"], "fixpoint" if c["complete"] else "bounded",
             f"{c['seconds']:.2f}", f"{c['states'] / c['seconds'] if c['seconds'] else 0:,.0f}")
            for _d, c in configs
        ]
        lines.extend(_table(("configuration", "limits", "states", "edges", "depth", "reach", "seconds", "states/s"), rows, markdown))
    for path in data["counterexamples"]:
        lines.append(f"counterexample: {path}")
    lines.append("")
    if data["ok"]:
        lines.append("verdict: PASS")
    else:
        lines.append("verdict: FAIL (" + "; ".join(data["reasons"]) + ")")
    lines.append(f"replay this run: python -m properties --seed {data['seed']} --profile {data['profile']}" + ("" if data["mode"] == "default" else f" --{data['mode']}"))
    return "\n".join(lines)


def write(data: dict[str, Any], out_dir: Path) -> tuple[Path, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    markdown = out_dir / "properties.md"
    markdown.write_text(render(data, markdown=True) + "\n", encoding="utf-8")
    as_json = out_dir / "properties.json"
    as_json.write_text(json.dumps(data, indent=2, sort_keys=False) + "\n", encoding="utf-8")
    return markdown, as_json


def statement(invariant_id: str) -> str:
    return BY_ID[invariant_id].statement
