"""The figures as a person opens them: each SVG loaded in real headless Chromium, its titles and axes read back.

The coverage figure comes from a real ``python -m properties --quick`` run;
the bench figures are drawn from small figures made here (the bench itself
takes minutes), and the test checks that what it gave is what the browser
shows: every scope and total on an axis, every factor between steps.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from properties import figures

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--hide-scrollbars")

pytestmark = pytest.mark.browser


def _browser() -> str:
    found = CHROMIUM if Path(CHROMIUM).is_file() else shutil.which("chromium")
    if not found:
        pytest.fail("headless Chromium is needed to open the figures: apt-get install chromium")
    return found


def _open(svg: Path, shot: "Path | None" = None) -> list[str]:
    """The texts Chromium's DOM holds for ``svg`` (and, with ``shot``, a screenshot of it drawn there)."""
    with tempfile.TemporaryDirectory(prefix="chromium-profile-") as profile:
        url = svg.resolve().as_uri()
        common = [_browser(), *FLAGS, f"--user-data-dir={profile}", "--window-size=1100,1400"]
        dom = subprocess.run([*common, "--dump-dom", url], capture_output=True, text=True, timeout=180)
        if shot is not None:
            drawn = subprocess.run([*common, f"--screenshot={shot}", url], capture_output=True, text=True, timeout=180)
            assert drawn.returncode == 0 and shot.is_file(), drawn.stderr[-500:]
    assert dom.returncode == 0, dom.stderr[-500:]
    root = ElementTree.fromstring(dom.stdout)
    assert root.tag.endswith("svg"), f"Chromium did not load {svg.name} as SVG: {dom.stdout[:200]!r}"
    return [" ".join("".join(element.itertext()).split()) for element in root.iter() if element.tag.endswith("text")]


def _not_blank(shot: Path) -> None:
    """The screenshot has ink: many pixels far from the white page (bars, lines, text)."""
    from matplotlib import image

    pixels = image.imread(shot)[..., :3]
    dark = (pixels.sum(axis=2) < 2.4).sum()
    assert dark > 2000, f"{shot.name}: only {dark} drawn pixels"


def test_the_coverage_figure_of_a_run_shows_every_count_against_its_minimum(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "0"}
    done = subprocess.run([sys.executable, "-m", "properties", "--quick", "--seed", "5", "--quiet", "--out", str(tmp_path)],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    svg = tmp_path / "coverage.svg"
    assert "](coverage.svg)" in (tmp_path / "properties.md").read_text(encoding="utf-8")
    texts = _open(svg, tmp_path / "coverage.png")
    _not_blank(tmp_path / "coverage.png")
    report = json.loads((tmp_path / "properties.json").read_text(encoding="utf-8"))
    assert any(text.startswith(f"Every coverage count against its minimum (seed 5, profile {report['profile']}, mode quick") for text in texts), texts
    for subject in {row["subject"] for row in report["coverage"]}:
        assert subject in texts
    for row in report["coverage"]:
        assert row["name"] in texts, row["name"]
        assert f"{row['count']:,}" in texts, (row["name"], row["count"])
    assert sum(text.startswith("count (log scale)") for text in texts) == len({row["subject"] for row in report["coverage"]})
    assert any(re.match(r"measured on \d+ cores, .+, \d{4}-\d\d-\d\d$", text) for text in texts), texts


def test_the_bench_figures_show_their_titles_axes_and_factors(tmp_path: Path) -> None:
    growth = [{"total": total, "states": states, "seconds": seconds}
              for total, states, seconds in ((3, 900, 0.4), (4, 2_600, 1.3), (5, 7_100, 3.9), (6, 15_000, 8.8))]
    compare = [{"scope": "small c1 t3", "old": 2.0, "new": 0.8, "same": 1.0},
               {"scope": "real limits, counters", "old": 30.0, "new": 6.0, "same": 7.5}]
    bulk = [{"name": "whole driver", "checked": 20_000.0, "bare": 70_000.0},
            {"name": "stepping only", "checked": 26_000.0, "bare": 130_000.0}]
    drawn = {
        "growth": figures.growth(growth, tmp_path / "growth.svg"),
        "compare": figures.explorer_against_baseline(compare, "e84bbbf", tmp_path / "compare.svg"),
        "bulk": figures.bulk_checked(bulk, tmp_path / "bulk.svg"),
    }
    texts = {name: _open(path) for name, path in drawn.items()}

    shown = texts["growth"]
    assert "A proof's cost at consecutive 4 as the total cap grows" in shown
    assert shown.count("total failure cap") == 2 and "states (log scale)" in shown and "CPU seconds (log scale)" in shown
    for row in growth:
        assert str(row["total"]) in shown
    for before, after in zip(growth, growth[1:]):
        assert f"x{after['states'] / before['states']:.1f}" in shown
        assert f"x{after['seconds'] / before['seconds']:.1f}" in shown

    shown = texts["compare"]
    assert "The explorer against e84bbbf, scope by scope" in shown
    assert "scope" in shown and "CPU seconds to the verdict (log scale, median)" in shown
    for row in compare:
        assert row["scope"] in shown and f"{row['old'] / row['new']:.1f}x less" in shown
    assert {"e84bbbf", "now"} <= set(shown)

    shown = texts["bulk"]
    assert "The bulk driver: checked steps against bare steps" in shown
    assert "what is timed" in shown and "steps per second (median)" in shown
    for row in bulk:
        assert row["name"] in shown and f"checked: {row['bare'] / row['checked']:.2f}x the time per step" in shown
