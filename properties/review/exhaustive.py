"""``python -m properties.review.exhaustive``: the product searches of every comparable subject, in one process.

Run by the review from HEAD's checkout with BASE's ``guard/`` folder named
(``--base``): both versions are imported apart (``properties.guard_versions``)
and every scope of every compared subject (``comparable``) is searched
(``properties.review.product.compare_scope``). Writes a JSON summary
(``--json``) and saves each shortest distinguishing trace, one per kind of
difference, in the subject's own file format under ``--out`` with the
review's origin (``scope=`` names the limits), so ``nox -s replay -- FILE``
shows BASE beside HEAD.

``comparable``: a subject's review side names its own product model
(``COMPARABLE``, as the budget's ``review_model``: both guards in this
process), or offers the scope trees ``recorded`` searches (the hook path's
and navigation's: each side writes every run of the verdict's model of the
scope in an interpreter of its own, and the product is searched here over
the two trees). Every
comparable is handed both guards and every scope first (``prepare``), so
that the recorded subjects' sides can run at once, and saves a shortest
trace with the review's origin through its own writer (``save``).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import time
from pathlib import Path
from typing import Any, Sequence

from properties import guard_versions as guards
from properties.review import behaviour, product, recorded

def comparables() -> tuple[str, ...]:
    """The compared subjects whose side offers an exhaustive comparison, in the registry's order."""
    return tuple(subject for subject in behaviour.compared()
                 if hasattr(side := behaviour.side(subject), "COMPARABLE") or hasattr(side, "tree"))


def comparable(subject: str) -> Any:
    """The ``product.Comparable`` of ``subject``: its side's own ``COMPARABLE`` (``module:name``), else the scope
    trees its side records (``recorded.RecordedComparable``)."""
    module = behaviour.side(subject)
    named = getattr(module, "COMPARABLE", "")
    if named:
        place, _colon, name = named.partition(":")
        return getattr(importlib.import_module(place), name)
    return recorded.RecordedComparable(subject)


def run(base_guard: Path, head_guard: Path, out: Path, origin: str, subjects: Sequence[str], scopes: Sequence[str] | None,
        max_states: int, seconds: float) -> dict[str, Any]:
    base, head = guards.load(base_guard, "BASE"), guards.load(head_guard, "HEAD")
    report: dict[str, Any] = {"subjects": {}}
    for subject in subjects:
        chosen = comparable(subject)
        results = []
        # Named scopes are searched by the subjects that have them (the budget names more than it searches).
        wanted = list(chosen.scopes()) if not scopes else [scope for scope in scopes if chosen.knows(scope)]
        chosen.prepare([base, head], wanted)
        for scope in wanted:
            results.append(product.compare_scope(chosen, base, head, scope, max_states=max_states, seconds=seconds))
        traces = []
        for kind, difference in product.shortest_per_kind(results):
            model = chosen.model(head, difference.scope)
            slug = difference.scope.replace(" ", "-")
            path = out / f"review-{subject}-exhaustive-{slug}-{len(difference.events)}steps-{'-'.join(difference.kinds)}.json"
            if not path.exists():
                chosen.save(model, difference.start, difference.events, path,
                            f"{origin} subject={subject} scope={slug} kinds={','.join(difference.kinds)}")
            traces.append({"subject": subject, "observable": kind, "scope": difference.scope, "steps": len(difference.events),
                           "file": str(path), "kinds": list(difference.kinds), "messages": list(difference.messages),
                           "events": [model.describe(event) for event in difference.events]})
        report["subjects"][subject] = {
            "scopes": [{"scope": r.scope, "complete": r.complete, "proved": list(r.proved), "states": r.states,
                        "edges": r.edges, "seconds": round(r.seconds, 2), "searches": r.searches, "cut": r.cut,
                        "problem": r.problem, "differs": sorted({k for d in r.differences for k in d.kinds}),
                        "unreported": list(r.unreported)}
                       for r in results],
            "traces": traces,
        }
    return report


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m properties.review.exhaustive")
    parser.add_argument("--base", type=Path, required=True, help="BASE's guard/ folder")
    parser.add_argument("--head", type=Path, default=Path("guard"), help="HEAD's guard/ folder")
    parser.add_argument("--out", type=Path, required=True, help="where distinguishing traces are saved")
    parser.add_argument("--json", type=Path, required=True, help="the summary written here")
    parser.add_argument("--origin", default="review", help="the saved files' origin (base=, head=, seed=)")
    parser.add_argument("--subject", action="append", choices=comparables())
    parser.add_argument("--scope", action="append", help="a scope by name (default: the subject's every scope)")
    parser.add_argument("--max-states", type=int, default=150_000)
    parser.add_argument("--seconds", type=float, default=1800.0,
                        help="per scope, wall time (a cut search proves nothing); the state cap is the bound meant to bind")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    args.out.mkdir(parents=True, exist_ok=True)
    report = run(args.base, args.head, args.out, args.origin, args.subject or list(comparables()), args.scope,
                 args.max_states, args.seconds)
    report["seconds"] = round(time.perf_counter() - started, 2)
    # Its own CPU and that of the side interpreters it waited for (the recorded subjects' trees).
    report["cpu_seconds"] = round(sum(os.times()[:4]), 2)
    args.json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
