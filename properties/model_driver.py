"""The core's ``model`` driver: every scope a subject models, searched to its fixpoint by the engine, in one row each.

A subject that declares ``Subject.models`` gets this driver (``properties.subject``
adds it, named ``MODEL_DRIVER``), one task per subject in its own process like
any other driver. It asks the subject for the models of the run's scopes
(``quick`` under ``--quick`` and ``--mutants``, ``thorough`` under the
thorough profile, else ``default``) and hands each to
``properties.engine.search.search``. Nothing here names a subject.

What the verdict gets from it:

* one row per scope in the report's table of configurations (states, edges,
  depth, fixpoint or not, seconds, the symmetries checked, the verdict);
* every judged step counted as checked for the subject's catalogue, and the
  invariants each step exercised as exercised (the models judge the whole
  catalogue through the one judge); no coverage counts, which measure the
  generated drivers' reach;
* a violation: its line, the shortest trace found (breadth first) described
  event by event, and the file the model saved, which
  ``python -m properties.replay FILE`` replays;
* a scope that did not finish is reported ``INCOMPLETE`` with the reason:
  it fails a default run, since no proof is not a pass, and never counts as
  a kill under ``--mutants``;
* a reduction the engine found false (a broken symmetry, a key that forgets
  something that matters) is named on the row with its saved traces; the
  engine has then searched the scope again without it, and that search, which
  assumes nothing, is the scope's verdict (the budget explorer's rule too).
"""

from __future__ import annotations

import time
from typing import Any

from properties import progress
from properties.catalogue import Tally, Violation
from properties.subject import DriverRequest, DriverResult, load

#: Each scope's limits: past them a search is cut short, reported incomplete, never proved.
MAX_STATES = 200_000
SECONDS = {"quick": 60.0, "default": 300.0, "thorough": 1_800.0}


def scopes_for(request: DriverRequest) -> str:
    """The set of scopes a run proves: quick for a smoke or mutant run, thorough under that profile, else default."""
    if request.mode in ("quick", "mutants"):
        return "quick"
    return "thorough" if request.profile == "thorough" else "default"


class Counted:
    """A model whose every judged step is counted into a tally (checked for ``ids``, exercised as it said)."""

    def __init__(self, model: Any, tally: Tally, ids: tuple[str, ...]) -> None:
        self._model = model
        self.tally = tally
        self.ids = ids

    def __getattr__(self, name: str) -> Any:
        return getattr(self._model, name)

    def step(self, state: Any, event: Any) -> Any:
        edge = self._model.step(state, event)
        self.tally.checked_steps[self.ids] += 1
        self.tally.exercised.update(edge.held)
        self.tally.steps += 1
        return edge


def configuration(subject: str, model: Any, result: Any) -> dict[str, Any]:
    """The report's row of one searched scope (the budget explorer's row keys, plus what only the engine says)."""
    return {
        "subject": subject, "name": result.name,
        # A model may say what its scope is in a few words (its limits and bounds); the report's column reads them.
        "limits": str(getattr(model, "scope", "")),
        "states": result.states, "edges": result.edges, "depth": result.depth, "complete": result.complete,
        "seconds": round(result.seconds, 3), "max_depth": result.max_depth,
        "symmetries": list(result.symmetries), "symmetries_checked": True,
        "symmetry_broken": [broken.line() for broken in result.broken],
        "merge_broken": result.merge_broken.line() if result.merge_broken is not None else "",
        "merged_pairs": result.merge_pairs, "verdict": result.verdict(), "proved": result.proved,
    }


def counterexample_text(subject: str, model: Any, result: Any) -> str:
    violation: Violation = result.violation
    lines = [f"COUNTEREXAMPLE from {subject} model {result.name} (a shortest trace, {len(result.path)} events): {violation}"]
    lines.extend(f"  {number:>3}  {model.describe(event)}" for number, event in enumerate(result.path))
    if result.saved is not None:
        lines.append(f"  saved: {result.saved} (replay: python -m properties.replay {result.saved})")
    return "\n".join(lines)


def run_models(subject_name: str, request: DriverRequest) -> DriverResult:
    """Search every model of ``subject_name``'s scopes for this run (see the module docstring)."""
    # Imported here: the engine is needed only in the process that runs this driver.
    from properties.engine.search import search

    subject = load(subject_name)
    assert subject.models is not None
    scopes = scopes_for(request)
    models = tuple(subject.models(scopes))
    tally = Tally()
    started = time.perf_counter()
    rows = []
    unfinished = []
    text = path = ""
    for number, model in enumerate(models):
        progress.update(done=number, total=len(models), unit="scopes")
        result = search(Counted(model, tally, subject.ids), max_states=MAX_STATES, seconds=SECONDS[scopes],
                        out_dir=request.out)
        rows.append(configuration(subject.name, model, result))
        if result.violation is not None:
            tally.violations.extend(result.violations)
            text, path = counterexample_text(subject.name, model, result), str(result.saved or "")
            break
        if not result.proved:
            unfinished.append(f"{result.name}: {result.verdict()}")
    elapsed = time.perf_counter() - started
    details: dict[str, Any] = {"scopes": len(rows), "states": sum(row["states"] for row in rows),
                               "edges": sum(row["edges"] for row in rows)}
    out = DriverResult(f"{subject.name} model (exhaustive, {scopes})", tally, elapsed, details=details,
                       configurations=rows)
    if unfinished:
        out.status = "not proved"
        out.incomplete = f"{subject.name} model: {'; '.join(unfinished)}"
    if text:
        out.counterexample_text, out.counterexample_path = text, path
    return out
