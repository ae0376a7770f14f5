"""Catalogue entries of the navigation subject (``guard/navigation.py``, ``guard/navigation_limits.py``; seed 003).

Each must be killed by the navigation subject's verdict naming one of its
``breaks`` and by at least one pytest test. Each breaks one rule of
``shared/spec/navigation.md`` in one named way.
"""

from __future__ import annotations

from mutations.entry import Edit, Entry

SUBJECT = "navigation"
LIMITS = "guard/navigation_limits.py"
CONTROLLER = "guard/navigation.py"


def _entry(id: str, rule: str, file: str, *edits: tuple[str, str], breaks: tuple[str, ...] = ()) -> Entry:
    return Entry(id=id, seed="003", rule=rule, file=file, level=SUBJECT,
                 edits=tuple(Edit(find, replace) for find, replace in edits), breaks=breaks)


def _limit(id: str, rule: str, field: str, old: int, new: int, breaks: tuple[str, ...] = ()) -> Entry:
    return _entry(id, rule, LIMITS, (f"{field}: int = attrs.field(default={old:_},", f"{field}: int = attrs.field(default={new:_},"),
                  breaks=breaks)


_TEARDOWN = (
    "    try:\n"
    "        ports.teardown.delete(child)\n"
    "        ports.teardown.revoke(request.grant)\n"
    "    except Exception:\n"
)
_COMPLETE = "        text = ports.completion.complete(call, ports.cancel)\n"

ENTRIES = (
    _limit("nav-tool-calls-23", "navigation ends at 23 model-issued tool calls instead of 24", "tool_calls", 24, 23, breaks=('N1',)),
    _limit("nav-tool-calls-25", "navigation ends at 25 model-issued tool calls instead of 24", "tool_calls", 24, 25, breaks=('N1',)),
    _limit("nav-no-progress-2", "two consecutive no-progress results end navigation instead of three", "no_progress", 3, 2, breaks=('N1',)),
    _limit("nav-no-progress-4", "four consecutive no-progress results end navigation instead of three", "no_progress", 3, 4, breaks=('N1',)),
    _entry("nav-deadline-early", "the retrieval deadline falls one second before work - reserve", CONTROLLER,
           ("    retrieval = work - reserve\n", "    retrieval = work - reserve - 1_000\n"), breaks=('N1',)),
    # Issue 25: the deadline can no longer fire when a slice ends exactly on it, so the fake clock waits there
    # for good; the fakes' counted bound makes it N1 ("bounded") violated instead of a hang.
    _entry("nav-deadline-never-fires", "the retrieval deadline fires only after the clock passes it, so a slice "
           "ending exactly on it polls again", CONTROLLER,
           ("        elif clock.now() >= retrieval:\n", "        elif clock.now() > retrieval:\n"), breaks=('N1',)),
    _entry("nav-deadline-late", "the retrieval deadline falls one second after work - reserve", CONTROLLER,
           ("    retrieval = work - reserve\n", "    retrieval = work - reserve + 1_000\n"), breaks=('N1',)),
    _limit("nav-reserve-29s", "the answer reserve is capped at 29 s instead of 30 s", "reserve_ms", 30_000, 29_000, breaks=('N3',)),
    _limit("nav-reserve-31s", "the answer reserve is capped at 31 s instead of 30 s", "reserve_ms", 30_000, 31_000, breaks=('N3',)),
    # N1 too: since issue 24 N1 judges the reply path's reserve, and the verdict meets a wrong divisor there first.
    _limit("nav-reserve-third", "the answer reserve is a third of the remaining work time instead of a quarter",
           "reserve_divisor", 4, 3, breaks=('N3', 'N1')),
    _limit("nav-reserve-fifth", "the answer reserve is a fifth of the remaining work time instead of a quarter",
           "reserve_divisor", 4, 5, breaks=('N3', 'N1')),
    _limit("nav-evidence-over", "32,001 evidence characters are kept instead of 32,000", "evidence_chars", 32_000, 32_001, breaks=('N2',)),
    _limit("nav-evidence-under", "31,999 evidence characters are kept instead of 32,000", "evidence_chars", 32_000, 31_999, breaks=('N2',)),
    _entry("nav-teardown-after-synthesis", "the child is deleted and its grant revoked after synthesis, not before",
           CONTROLLER,
           (_TEARDOWN + "        # Seed 003: a cleanup failure prevents synthesis (else an orphaned child keeps its grant while we answer).\n"
                        "        return end(None, \"cleanup_failed\")\n", ""),
           (_COMPLETE, _COMPLETE + "        ports.teardown.delete(child)\n        ports.teardown.revoke(request.grant)\n"), breaks=('N4',)),
    _entry("nav-retry-after-rejection", "a policy rejection retries the synthesis on another model", CONTROLLER,
           ("    if not ports.policy.allows(model, \"navigation-answer\"):\n        return end(None, \"policy_rejected\")\n",
            "    if not ports.policy.allows(model, \"navigation-answer\"):\n        model = \"fallback-model\"\n"), breaks=('N6',)),
    _entry("nav-synthesis-after-cleanup-failure", "a cleanup failure does not prevent synthesis", CONTROLLER,
           ("        return end(None, \"cleanup_failed\")\n", "        pass\n"), breaks=('N6',)),
    _entry("nav-citation-outside-kept", "a citation outside the selected bucket is kept", CONTROLLER,
           ("    kept = tuple(item for item in citations if item in request.bucket)\n", "    kept = tuple(citations)\n"), breaks=('N10',)),
    _entry("nav-truncated-dropped", "a synthesized answer is not marked truncated", CONTROLLER,
           ("        return Outcome(answer, True, error, citations,", "        return Outcome(answer, False, error, citations,"), breaks=('N5',)),
)
