"""The figures people would rather look at than read: SVG files drawn from a run's own numbers.

* ``coverage``: every coverage count of every subject against its minimum
  (``python -m properties`` writes ``<out>/coverage.svg``; written by hand,
  see its docstring);
* ``growth``: a proof's states and CPU seconds at consecutive 4 as the total
  cap grows, with the factor between steps (``nox -s bench``);
* ``explorer_against_baseline``: this explorer against commit ``e84bbbf``'s,
  scope by scope (``nox -s bench``);
* ``bulk_checked``: the bulk driver's checked steps against the bare steps
  (``nox -s bench``).

Text stays text in the SVG (``svg.fonttype = none``), so a browser, a search
and a test read the titles and axes. Under every figure: the machine (cores,
processor) and the date it was measured, so a committed figure says where its
numbers come from. matplotlib draws the bench's figures; it is imported only
here, and only when one of those is drawn.
"""

from __future__ import annotations

import datetime
import html
import math
import os
import platform
from pathlib import Path
from typing import Any, Mapping, Sequence


class FiguresUnavailable(Exception):
    """matplotlib is not installed: the figure is left out with one line saying why."""


def _pyplot() -> Any:
    try:
        import matplotlib
    except ModuleNotFoundError as error:
        raise FiguresUnavailable("matplotlib is not installed (pip install 'guard-harness[figures]', or use nox)") from error
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.fonttype"] = "none"
    # The same bytes for the same numbers: no date or random id inside the file beyond the caption's own.
    matplotlib.rcParams["svg.hashsalt"] = "guard-harness"
    import matplotlib.pyplot as pyplot

    return pyplot


def machine() -> str:
    """Where the numbers were measured: cores and processor, as one line."""
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} cores, {model or platform.processor() or platform.machine()}, {platform.system()}"


def caption(date: "datetime.date | None" = None) -> str:
    return f"measured on {machine()}, {(date or datetime.date.today()).isoformat()}"


def _save(pyplot: Any, figure: Any, path: Path, note: str) -> Path:
    figure.text(0.01, 0.005, note, fontsize=7, color="#555555", ha="left", va="bottom")
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, format="svg", metadata={"Date": None})
    pyplot.close(figure)
    return path


def _plain_log_ticks(scale: Any) -> None:
    """Log-scale ticks as plain numbers (1, 10, 100, 1,000), the in-between ticks unlabelled."""
    from matplotlib.ticker import FuncFormatter, NullFormatter

    scale.set_major_formatter(FuncFormatter(lambda value, _position: f"{value:,.0f}" if value >= 1 else f"{value:g}"))
    scale.set_minor_formatter(NullFormatter())


def coverage(rows: Sequence[Mapping[str, Any]], path: Path, heading: str) -> Path:
    """Each subject's coverage counts (bars) against their minimums (a mark), on a log scale; unmet counts in red.

    Written as SVG by hand, not with matplotlib: every default run draws this
    figure after its drivers finish, when nothing else runs, and importing and
    laying out matplotlib there cost 1.1 s (2.5 s with its modules not yet
    compiled; this function takes 0.025 s; 2026-12-03), while the figure is
    plain bars, marks and text. The bench's figures, drawn once per bench run,
    stay with matplotlib. The same numbers give the same bytes.
    """
    subjects = list(dict.fromkeys(row["subject"] for row in rows))
    longest = max((len(str(row["name"])) for row in rows), default=10)
    left, right_margin, width = 24 + 5.6 * longest, 60, 900.0
    plot = max(200.0, width - left - right_margin)
    row_height, top = 18, 44
    parts: list[str] = []

    def text(x: float, y: float, words: str, size: int = 11, anchor: str = "start", colour: str = "#000000",
             weight: str = "normal") -> None:
        parts.append(f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" fill="{colour}" '
                     f'font-weight="{weight}">{html.escape(words, quote=False)}</text>')

    text(width / 2, 22, heading, size=13, anchor="middle")
    y = float(top)
    for subject in subjects:
        mine = [row for row in rows if row["subject"] == subject]
        span = max(max(row["count"] for row in mine), max(row["minimum"] for row in mine), 1) * 2.5
        # Pixels per decade: 1 sits at the axis' left edge, ``span`` at its right.
        unit = plot / math.log10(span)
        text(left, y + 12, subject, size=12, weight="bold")
        y += 20
        height = row_height * len(mine)
        parts.append(f'<rect x="{left:.1f}" y="{y:.1f}" width="{plot:.1f}" height="{height:.1f}" fill="none" stroke="#888888"/>')
        power = 1
        while power <= span:
            x = _log_x(power, left, unit)
            parts.append(f'<line x1="{x:.1f}" y1="{y:.1f}" x2="{x:.1f}" y2="{y + height + 4:.1f}" stroke="#dddddd"/>')
            text(x, y + height + 15, f"{power:,}", size=9, anchor="middle")
            power *= 10
        for place, row in enumerate(mine):
            middle = y + row_height * place + row_height / 2
            met = row["count"] >= row["minimum"]
            end = _log_x(row["count"], left, unit)
            parts.append(f'<rect x="{left:.1f}" y="{middle - 5.5:.1f}" width="{max(end - left, 0.0):.1f}" height="11" '
                         f'fill="{"#4c72b0" if met else "#c44e52"}"/>')
            mark = _log_x(row["minimum"], left, unit)
            parts.append(f'<line x1="{mark:.1f}" y1="{middle - 8:.1f}" x2="{mark:.1f}" y2="{middle + 8:.1f}" stroke="#000000" '
                         f'stroke-width="2"/>')
            text(left - 6, middle + 4, str(row["name"]), size=10, anchor="end")
            text(end + 5, middle + 3.5, f"{row['count']:,}", size=9)
        y += height + 30
        text(left + plot / 2, y, "count (log scale); black mark: the minimum a default run must reach", size=10, anchor="middle")
        y += 24
    # The legend, once, on the first subject's heading line.
    legend_x = left + plot - 150
    parts.append(f'<rect x="{legend_x:.1f}" y="{top + 4:.1f}" width="14" height="9" fill="#4c72b0"/>')
    text(legend_x + 18, top + 12, "count", size=9)
    parts.append(f'<line x1="{legend_x + 70:.1f}" y1="{top + 2:.1f}" x2="{legend_x + 70:.1f}" y2="{top + 15:.1f}" stroke="#000000" '
                 f'stroke-width="2"/>')
    text(legend_x + 76, top + 12, "minimum", size=9)
    text(8, y + 6, caption(), size=9, colour="#555555")
    total = y + 16
    document = (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{total:.0f}" viewBox="0 0 {width:.0f} {total:.0f}" '
        'font-family="DejaVu Sans, Arial, sans-serif">\n'
        f'<rect x="0" y="0" width="{width:.0f}" height="{total:.0f}" fill="#ffffff"/>\n' + "\n".join(parts) + "\n</svg>\n"
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(document, encoding="utf-8")
    return path


def _log_x(value: float, left: float, unit: float) -> float:
    """Where ``value`` sits on a log axis starting at 1 (a count under 1, that is 0, sits at the start)."""
    return left + unit * math.log10(max(value, 1.0))


def growth(rows: Sequence[Mapping[str, Any]], path: Path) -> Path:
    """States and CPU seconds of the proofs at consecutive 4, total cap on the x axis, log scale, factors marked."""
    pyplot = _pyplot()
    totals = [row["total"] for row in rows]
    figure, (states_axis, seconds_axis) = pyplot.subplots(1, 2, figsize=(10, 4.2))
    figure.suptitle("A proof's cost at consecutive 4 as the total cap grows", fontsize=11)
    for axis, key, label, colour in (
        (states_axis, "states", "states (log scale)", "#4c72b0"),
        (seconds_axis, "seconds", "CPU seconds (log scale)", "#dd8452"),
    ):
        values = [row[key] for row in rows]
        axis.plot(totals, values, marker="o", color=colour)
        axis.set_yscale("log")
        _plain_log_ticks(axis.yaxis)
        axis.set_xticks(totals)
        axis.set_xlabel("total failure cap")
        axis.set_ylabel(label)
        axis.set_title(f"{'CPU seconds' if key == 'seconds' else key} per proof", fontsize=10)
        for before, after, x0, x1 in zip(values, values[1:], totals, totals[1:]):
            if before > 0:
                middle = (before * after) ** 0.5
                # A gap in the caps (6 to 8) is several steps at once: said so, not passed off as one step.
                steps = f" ({x1 - x0} steps)" if x1 - x0 > 1 else ""
                axis.annotate(f"x{after / before:.1f}{steps}", ((x0 + x1) / 2, middle), fontsize=8, ha="right", va="bottom")
        axis.grid(True, which="major", alpha=0.3)
    figure.tight_layout(rect=(0, 0.04, 1, 0.95))
    return _save(pyplot, figure, path, caption())


def explorer_against_baseline(rows: Sequence[Mapping[str, Any]], baseline: str, path: Path) -> Path:
    """CPU seconds to each scope's verdict, ``baseline`` beside this explorer (and this one on the baseline's states)."""
    pyplot = _pyplot()
    names = [row["scope"] for row in rows]
    sides = (("old", baseline, "#8c8c8c"), ("new", "now", "#4c72b0"), ("same", "now, the same states as " + baseline, "#55a868"))
    figure, axis = pyplot.subplots(figsize=(10, 4.6))
    width = 0.26
    for offset, (key, label, colour) in enumerate(sides):
        places = [index + (offset - 1) * width for index in range(len(rows))]
        values = [row[key] for row in rows]
        axis.bar(places, values, width=width, label=label, color=colour)
    for index, row in enumerate(rows):
        if row["new"] > 0:
            axis.text(index, max(row["old"], row["new"], row["same"]) * 1.15, f"{row['old'] / row['new']:.1f}x less",
                      ha="center", fontsize=8)
    axis.set_xticks(range(len(rows)), names, fontsize=8)
    axis.set_yscale("log")
    axis.set_ylim(top=max(max(row["old"], row["new"], row["same"]) for row in rows) * 4)
    _plain_log_ticks(axis.yaxis)
    axis.set_xlabel("scope")
    axis.set_ylabel("CPU seconds to the verdict (log scale, median)")
    axis.set_title(f"The explorer against {baseline}, scope by scope", fontsize=11)
    axis.legend(fontsize=8, loc="upper left")
    figure.tight_layout(rect=(0, 0.04, 1, 1))
    return _save(pyplot, figure, path, caption())


def bulk_checked(rows: Sequence[Mapping[str, Any]], path: Path) -> Path:
    """Steps per second checked and bare, for the whole driver and for stepping alone, with the ratio per step."""
    pyplot = _pyplot()
    from matplotlib.ticker import FuncFormatter

    figure, axis = pyplot.subplots(figsize=(8, 4.2))
    width = 0.38
    places = range(len(rows))
    axis.bar([p - width / 2 for p in places], [row["checked"] for row in rows], width=width, label="checked", color="#4c72b0")
    axis.bar([p + width / 2 for p in places], [row["bare"] for row in rows], width=width, label="bare (no snapshots, no checks)",
             color="#8c8c8c")
    for place, row in zip(places, rows):
        axis.text(place, max(row["checked"], row["bare"]) * 1.03, f"checked: {row['bare'] / row['checked']:.2f}x the time per step",
                  ha="center", fontsize=8)
    axis.set_xticks(list(places), [row["name"] for row in rows], fontsize=9)
    axis.set_xlabel("what is timed")
    axis.set_ylabel("steps per second (median)")
    axis.set_title("The bulk driver: checked steps against bare steps", fontsize=11)
    axis.set_ylim(top=max(max(row["checked"], row["bare"]) for row in rows) * 1.25)
    axis.yaxis.set_major_formatter(FuncFormatter(lambda value, _position: f"{value:,.0f}"))
    axis.legend(fontsize=8, loc="upper left")
    figure.tight_layout(rect=(0, 0.04, 1, 1))
    return _save(pyplot, figure, path, caption())
