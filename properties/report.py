"""The verdict of one ``python -m properties`` run over its subjects: console text, Markdown and JSON.

One table invariant by invariant over every subject that ran (subject, id,
seeds, status, checked, exercised), then each subject's coverage counts
against its minimums, then each driver's time, steps and throughput (and the
explorer's states and edges per configuration). Catalogue and minimums come
from the subjects (``properties.subject``); each subject keeps its own tally,
so coverage names never mix between subjects. The JSON file carries the same
numbers for tools; the Markdown file is what a reviewer pastes into a pull
request.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping, Sequence

import attrs

from properties.catalogue import Tally
from properties.subject import Subject, all_invariants

SCHEMA = "guard-properties-report/2"
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
    subject: str = ""

    @property
    def throughput(self) -> float:
        return self.steps / self.seconds if self.seconds > 0 else 0.0


@attrs.define
class Verdict:
    ok: bool
    reasons: list[str]


def vacuity_explained(subject: Subject, tally: Tally) -> str:
    """Issue 24 part 4: what a vacuous invariant's line adds: the subject's coverage counts that fell to zero and,
    for a subject whose monitor follows a reference, where production parted from it on the shortest trace.

    Every coverage count at zero is named (not only those "related" to the invariant: the catalogue does not
    tie counts to invariants, and a count at zero is worth reading whichever invariant went vacuous). The
    comparison is the subject's own declaration (``Subject.partings``); a subject without one says nothing more.
    """
    zero = [name for name, minimum in subject.coverage_minimums.items() if minimum > 0 and tally.coverage[name] == 0]
    parts = ["; coverage at zero: " + (", ".join(zero) if zero else "none")]
    compared = subject.partings
    if compared is not None and compared.ways:
        met = [f"{what} on {tally.partings[what][0]:,} {subject.unit} (shortest: {tally.partings[what][1]} {compared.size}, "
               f"{tally.partings[what][2]})" for what in compared.ways if what in tally.partings]
        never = [what for what in compared.ways if what not in tally.partings]
        parts.append("; against the reference: " + ("; ".join(met) if met else "production never parted from it"))
        if never:
            parts.append(f"; never {' nor '.join(never)} on any of {tally.traces:,} {subject.unit}")
        same = tally.partings.get(compared.same) if compared.same else None
        if same is not None:
            parts.append(f"; the shortest {subject.unit[:-1] if subject.unit.endswith('s') else subject.unit} that "
                         f"{compared.same_phrase}: {same[1]} {compared.size}, {same[2]}")
    return "".join(parts)


def judge(
    subjects: Sequence[Subject], tallies: Mapping[str, Tally], selected: Sequence[str], check_coverage: bool,
    driver_errors: Sequence[str] = (),
) -> Verdict:
    """Fail on any violation, any vacuous selected invariant, an unmet coverage minimum (when asked) or a driver error."""
    reasons = []
    chosen = set(selected)
    for subject in subjects:
        tally = tallies.get(subject.name, Tally())
        for invariant_id in subject.ids:
            if invariant_id in chosen:
                status = tally.status(invariant_id)
                if status != "held":
                    reasons.append(f"{invariant_id} {status}")
    if check_coverage:
        for subject in subjects:
            tally = tallies.get(subject.name, Tally())
            for name, minimum in subject.coverage_minimums.items():
                if tally.coverage[name] < minimum:
                    reasons.append(f"coverage: {subject.name} {name} {tally.coverage[name]} < {minimum}")
    reasons.extend(f"driver error: {error}" for error in driver_errors)
    return Verdict(ok=not reasons, reasons=reasons)


def build(
    *, seed: int, profile: str, mode: str, subjects: Sequence[Subject], tallies: Mapping[str, Tally],
    selected: Sequence[str], drivers: Sequence[DriverRow], verdict: Verdict, wall_seconds: float, check_coverage: bool,
    statistics: dict[str, int] | None = None, counterexamples: Sequence[str] = (), selection: Sequence[str] = (),
    coverage_note: str = "",
    cpu_seconds: float | None = None,
) -> dict[str, Any]:
    """Everything the report shows, as plain data (the JSON file's content).

    ``selection``: the command-line options that chose subjects and invariants (repeated in the replay line);
    ``coverage_note``: why coverage minimums are not required in this run, or "";
    ``cpu_seconds``: the run's CPU time, its waited-for workers included (None: not measured).
    """
    chosen = set(selected)
    invariants = []
    coverage = []
    summary = []
    steps = traces = 0
    for subject in subjects:
        tally = tallies.get(subject.name, Tally())
        steps += tally.steps
        traces += tally.traces
        summary.append({"subject": subject.name, "title": subject.title, "seeds": subject.seeds, "steps": tally.steps,
                        "traces": tally.traces, "unit": subject.unit})
        for invariant in subject.catalogue:
            row: dict[str, Any] = {"subject": subject.name, "id": invariant.id, "title": invariant.title, "seeds": invariant.seeds}
            if invariant.id in chosen:
                row.update(status=tally.status(invariant.id), checked=tally.checked[invariant.id], exercised=tally.exercised[invariant.id])
            else:
                row.update(status="not selected", checked=0, exercised=0)
            row["violations"] = [str(v) for v in tally.violations if v.invariant == invariant.id][:3]
            invariants.append(row)
        for name, minimum in subject.coverage_minimums.items():
            count = tally.coverage[name]
            coverage.append({"subject": subject.name, "name": name, "count": count, "minimum": minimum,
                             "met": count >= minimum, "required": check_coverage})
    return {
        "schema": SCHEMA,
        "seed": seed,
        "profile": profile,
        "mode": mode,
        "ok": verdict.ok,
        "reasons": verdict.reasons,
        "wall_seconds": round(wall_seconds, 3),
        # The process's own CPU and that of the workers it waited for: what a run costs on shared cores.
        "cpu_seconds": None if cpu_seconds is None else round(cpu_seconds, 3),
        "steps": steps,
        "traces": traces,
        "subjects": summary,
        "invariants": invariants,
        "coverage": coverage,
        "statistics": dict(statistics or {}),
        "drivers": [
            {
                "subject": d.subject, "name": d.name, "status": d.status, "seconds": round(d.seconds, 3), "steps": d.steps,
                "traces": d.traces, "steps_per_second": round(d.throughput, 1), "details": d.details,
                "configurations": d.configurations,
            }
            for d in drivers
        ],
        "counterexamples": list(counterexamples),
        "selection": list(selection),
        "coverage_note": coverage_note,
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
    lines.append(h("Subjects"))
    # Each table's rows are tuples of its own width: typed as any rows, not as the first table's.
    rows: list[tuple[Any, ...]] = [(s["subject"], s["seeds"], f"{s['steps']:,}", f"{s['traces']:,}", s["unit"], s["title"])
                                   for s in data["subjects"]]
    lines.extend(_table(("subject", "seeds", "steps", "traces", "counted as", "what it judges"), rows, markdown))
    lines.append("")
    lines.append(h("Invariants"))
    rows = [
        (r["subject"], r["id"], r["seeds"], r["status"], f"{r['checked']:,}", f"{r['exercised']:,}", r["title"])
        for r in data["invariants"]
    ]
    lines.extend(_table(("subject", "id", "seeds", "status", "checked", "exercised", "statement"), rows, markdown))
    for r in data["invariants"]:
        for text in r["violations"]:
            lines.append(f"VIOLATED {r['id']} {text}")
    lines.append("")
    note = data.get("coverage_note") or "not required in this mode"
    required = bool(data["coverage"]) and data["coverage"][0]["required"]
    lines.append(h("Coverage (minimums for the default run)" + ("" if required else f"; {note}")))
    rows = [(c["subject"], c["name"], f"{c['count']:,}", c["minimum"], "met" if c["met"] else "UNMET") for c in data["coverage"]]
    lines.extend(_table(("subject", "count", "reached", "minimum", ""), rows, markdown))
    if data["statistics"]:
        lines.append("")
        lines.append(h("Bulk statistics (as the seeds reported them)"))
        lines.extend(_table(("statistic", "value"), [(k, f"{v:,}") for k, v in data["statistics"].items()], markdown))
    lines.append("")
    lines.append(h("Drivers"))
    rows = [
        (d["subject"], d["name"], d["status"], f"{d['seconds']:.2f}", f"{d['steps']:,}", f"{d['traces']:,}", f"{d['steps_per_second']:,.0f}",
         ", ".join(f"{k} {v:,}" if isinstance(v, int) else f"{k} {v}" for k, v in d["details"].items()))
        for d in data["drivers"]
    ]
    lines.extend(_table(("subject", "driver", "status", "seconds", "steps", "traces", "steps/s", "details"), rows, markdown))
    # Every subject's exhaustive proofs in one table: the budget's explorer and the core's model driver.
    configs = [(c.get("subject") or d["subject"], c) for d in data["drivers"] for c in d["configurations"]]
    if configs:
        lines.append("")
        lines.append(h("Configurations (exhaustive proofs)"))
        rows = [
            (subject, c["name"], c["limits"], f"{c['states']:,}", f"{c['edges']:,}", c["depth"],
             "fixpoint" if c["complete"] else "bounded", f"{c['seconds']:.2f}",
             f"{c['states'] / c['seconds'] if c['seconds'] else 0:,.0f}", _symmetries(c))
            for subject, c in configs
        ]
        lines.extend(_table(
            ("subject", "configuration", "limits", "states", "edges", "depth", "reach", "seconds", "states/s", "symmetries"),
            rows, markdown,
        ))
        for subject in dict.fromkeys(subject for subject, _c in configs):
            lines.extend(_proved(subject, [c for owner, c in configs if owner == subject]))
        lines.extend(line for subject, c in configs for line in (f"{subject} {c['name']}: {text}" for text in c.get("symmetry_broken", ())))
        lines.extend(f"{subject} {c['name']}: {c['merge_broken']}" for subject, c in configs if c.get("merge_broken"))
    for path in data["counterexamples"]:
        lines.append(f"counterexample: {path}")
    if markdown and data.get("figures"):
        lines.append("")
        lines.append(h("Figures"))
        lines.extend(f"![{title}]({name})" for name, title in data["figures"])
    lines.append("")
    if data["ok"]:
        lines.append("verdict: PASS")
    else:
        lines.append("verdict: FAIL (" + "; ".join(data["reasons"]) + ")")
    lines.append(
        f"replay this run: python -m properties --seed {data['seed']} --profile {data['profile']}"
        + ("" if data["mode"] == "default" else f" --{data['mode']}")
        + "".join(f" {part}" for part in data.get("selection", ()))
    )
    return "\n".join(lines)


def _symmetries(config: dict[str, Any]) -> str:
    """What a search merged by: the symmetries it checked, and any it found broken (then searched again without)."""
    merged = ", ".join(config.get("symmetries", ())) or "none"
    if config.get("symmetry_broken"):
        return f"{merged} (symmetry broken: searched again)"
    return merged + (" checked" if config.get("symmetries") and config.get("symmetries_checked", True) else "")


def _again(config: dict[str, Any]) -> str:
    return " (searched again without a broken symmetry)" if config.get("symmetry_broken") else ""


def _proved(subject: str, configs: list[dict[str, Any]]) -> list[str]:
    """What a subject's searches proved: the scopes brought to their fixpoint (the largest named), the depths searched.

    A scope whose search found a violation or a broken reduction reached no proof, whatever its reach."""
    lines = []
    complete = [c for c in configs if c["complete"] and c.get("proved", True)]
    if complete:
        largest = max(complete, key=lambda c: c["states"])
        lines.append(
            f"{subject} proved to the fixpoint: {', '.join(c['name'] + _again(c) for c in complete)}; largest {largest['name']} "
            f"({largest['limits']}): {largest['states']:,} states, {largest['edges']:,} edges, {largest['seconds']:.1f} s"
        )
    for c in configs:
        if not c["complete"] and c.get("max_depth") is not None and c["depth"] >= c["max_depth"]:
            lines.append(f"{subject} searched {c['name']} to depth {c['depth']}: every trace of up to {c['depth']} events")
    return lines


def write(data: dict[str, Any], out_dir: Path) -> tuple[Path, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    markdown = out_dir / "properties.md"
    markdown.write_text(render(data, markdown=True) + "\n", encoding="utf-8")
    as_json = out_dir / "properties.json"
    as_json.write_text(json.dumps(data, indent=2, sort_keys=False) + "\n", encoding="utf-8")
    return markdown, as_json


def statement(invariant_id: str) -> str:
    return all_invariants()[invariant_id].statement
