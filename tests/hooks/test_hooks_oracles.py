"""The hook oracles that run none of the code they judge (issue 22): their tables, and bugs planted in production.

Each table's expected values are read from ``shared/spec/classifiers.md`` and
``hooks.md``, not from ``guard/``. Each planted bug replaces a production
function everywhere it is bound (every module that imported it), as an edit of
its source would: before the oracles were the harness's own, the harness asked
the same function for its expectation and the bug agreed with itself.
"""

from __future__ import annotations

import sys
from typing import Any, Callable

import pytest

import guard.budget
import guard.finalization
import guard.lookup
import guard.playground
from properties.catalogue import Tally
from properties.hooks.earlier_stop import EarlierStop, Refusal, refusal_problem
from properties.hooks.events import Call, HookSequence, ModelCall
from properties.hooks.monitor import HookMonitor
from properties.hooks.shapes import STOP_HEAD
from properties.hooks.spec_lookup import search_found_nothing
from properties.hooks.spec_playground import write_binds_new_project
from properties.lookup.generate import hostile_corpus, valid_corpus


class Routing:
    """Plain routing facts, as classifiers.md lists them (not production's ``RoutingState``)."""

    def __init__(self, **changes: Any) -> None:
        self.initialized, self.first_project_file, self.binding = True, False, None
        self.preserved, self.routing_failure = False, False
        self.__dict__.update(changes)


FRESH = Routing()


@pytest.mark.parametrize("tool, params, routing, root, read, expected", [
    # classifiers.md: the form the refusals ask for, direct and wrapped in tool_call.
    ("write", {"path": "Playground/photo-renamer/rename_photos.py"}, FRESH, None, (), True),
    ("tool_call", {"id": "write", "args": {"path": "Playground/photo-renamer/rename_photos.py"}}, FRESH, None, (), True),
    ("tool_call", {"id": "openclaw:core:write", "args": {"path": "Playground/a/b.py"}}, FRESH, None, (), True),
    ("write", {"path": "/workspace/Playground/a/b.py"}, FRESH, None, (), True),
    ("write", {"path": "./Playground/a/b.py"}, FRESH, None, (), True),
    ("write", {"path": "Playground\\a\\b.py"}, FRESH, None, (), True),
    ("write", {"path": "/srv/ws/Playground/a/b.py"}, FRESH, "/srv/ws", (), True),
    # classifiers.md: not a write, or not this form.
    ("read", {"path": "Playground/a/b.py"}, FRESH, None, (), False),
    ("tool_call", {"id": "read", "args": {"path": "Playground/a/b.py"}}, FRESH, None, (), False),
    ("write", {"path": "playground/a/b.py"}, FRESH, None, (), False),
    ("write", {"path": "Playground/b.py"}, FRESH, None, (), False),
    ("write", {"path": "main.py"}, FRESH, None, (), False),
    ("write", {"path": "Playground/App/b.py"}, FRESH, None, (), False),
    ("write", {"path": "Playground/new-project/b.py"}, FRESH, None, (), False),
    ("write", {"path": "Playground/a/../b.py"}, FRESH, None, (), False),
    ("write", {"path": "Playground/a./b.py"}, FRESH, None, (), False),
    ("write", {"path": "Playground/a/CON"}, FRESH, None, (), False),
    ("write", {"path": "Playground/a/lpt1.txt"}, FRESH, None, (), False),
    ("write", {"path": "Playground/" + "/".join(["d"] * 11) + "/f"}, FRESH, None, (), False),
    ("write", {"path": "Playground/a/" + "x" * 65}, FRESH, None, (), False),
    ("write", {"path": "/srv/ws/Playground/a/b.py"}, FRESH, None, (), False),
    # classifiers.md: a file read earlier, as given or in its relative form; a routing state that is not fresh.
    ("write", {"path": "Playground/a/b.py"}, FRESH, None, ("Playground/a/b.py",), False),
    ("write", {"path": "/workspace/Playground/a/b.py"}, FRESH, None, ("Playground/a/b.py",), False),
    ("write", {"path": "Playground/a/b.py"}, Routing(binding="Playground/x"), None, (), False),
    ("write", {"path": "Playground/a/b.py"}, Routing(first_project_file=True), None, (), False),
    ("write", {"path": "Playground/a/b.py"}, Routing(initialized=False), None, (), False),
    ("write", {"path": "Playground/a/b.py"}, Routing(preserved=True), None, (), False),
    ("write", {"path": "Playground/a/b.py"}, Routing(routing_failure=True), None, (), False),
    ("write", {"path": "Playground/a/b.py"}, None, None, (), False),
])
def test_binds_a_new_project_as_classifiers_md_states_it(tool, params, routing, root, read, expected) -> None:
    assert write_binds_new_project(tool, params, routing, root, read) is expected


@pytest.mark.parametrize("command, code, output, expected", [
    # classifiers.md: the seed's Spark-run chain, and plain searches that found nothing.
    ("sed -n '860,900p' ui.js; echo ===; grep -n \"function showScreen\" -A 15 ui.js", 1, "", True),
    ("grep -n foo a.js", 1, "", True),
    ("cd src && grep -rn foo .", 1, "", True),
    ("git grep -n foo", 1, "", True),
    ("which nosuch", 1, "", True),
    ("grep -c x a | head -3; rg foo", 1, "", True),
    ("grep x a && grep 'a;b' c", 1, "", True),
    ("grep 'a$b' f", 1, "", True),
    ("grep foo f", 1, "grep: warning: stray \\ before -", True),
    # classifiers.md: exit status exactly 1.
    ("grep -n foo a.js", 2, "", False),
    ("grep -n foo a.js", 0, "", False),
    ("grep -n foo a.js", True, "", False),
    ("grep -n foo a.js", 1.0, "", False),
    # classifiers.md: only lookups, echo and sed -n 'N,Mp'; the last step a bare lookup; rg only last.
    ("make 3", 1, "", False),
    ("grep x a | wc -l", 1, "", False),
    ("rg x; grep y a", 1, "", False),
    ("grep x a; echo done", 1, "", False),
    ("cd a; grep x b", 1, "", False),
    ("cd a && cd b && grep x c", 1, "", False),
    ("sed -n '1,2p' -i f; grep x f", 1, "", False),
    ("sed -n 'w out' f; grep x f", 1, "", False),
    # classifiers.md: the disqualifiers.
    ("grep x a || true", 1, "", False),
    ("grep x a & grep y b", 1, "", False),
    ("grep x a > out", 1, "", False),
    ("(grep x a)", 1, "", False),
    ("grep $(echo x) a", 1, "", False),
    ("grep \"a$b\" f", 1, "", False),
    ("grep x a # note", 1, "", False),
    ("grep x\\ y a", 1, "", False),
    ("grep $PAT a", 1, "", False),
    ("grep x a\ngrep y b", 1, "", False),
    ("grep 'x a", 1, "", False),
    # classifiers.md: options that run programs or write files, however quoted.
    ("rg --pre=cat x", 1, "", False),
    ("rg '--pre' cat x", 1, "", False),
    ("rg --hostname-bin=h x", 1, "", False),
    ("git grep -Ovim x", 1, "", False),
    ("git grep --open-files-in-pager x", 1, "", False),
    ("grep x a | sort -o out; grep y b", 1, "", False),
    ("grep x a | sort -uo out; grep y b", 1, "", False),
    ("grep x a | sort -c; grep y b", 1, "", False),
    # classifiers.md: an error line disqualifies.
    ("grep x nosuch", 1, "grep: nosuch: No such file or directory", False),
    ("sed -n '1,2p' f; grep x f", 1, "sed: can't read f: No such file or directory", False),
    ("git grep x", 1, "fatal: not a git repository", False),
    (None, 1, "", False),
])
def test_lookup_found_nothing_as_classifiers_md_states_it(command, code, output, expected) -> None:
    assert search_found_nothing(command, code, output) is expected


def test_the_lookup_oracle_agrees_with_the_corpus_grammar() -> None:
    """The lookup corpus's ground truth comes from its grammar (never from a classifier): every valid chain is
    free at exit 1 with clean output, and no hostile case of a kind the spec names is (the ``strict-`` kinds
    are production's own stricter choices, which the oracle does not restate)."""
    valid = valid_corpus(5, 400)
    assert all(search_found_nothing(rendered.command, 1, "") for rendered in valid)
    hostile = [case for case in hostile_corpus(5, 20) if not case.kind.startswith("strict-")]
    accepted = [case for case in hostile if search_found_nothing(case.command, case.exit_code, case.output)]
    assert len(hostile) > 300 and accepted == []


def test_the_earlier_stop_shows_the_instruction_then_the_stop_once() -> None:
    """hooks.md "After the fuse" and seed 002's calls 7 and 8, over the reference budget's own fuse."""
    earlier = EarlierStop(strict_stop=False)
    for index in range(3):
        earlier.receipt(f"f{index}", "exec", {"n": index}, True)
        assert earlier.boundary() is None
    earlier.receipt("f3", "exec", {"n": 3}, True)
    assert earlier.stopped
    assert earlier.boundary() == Refusal("instruction", aborts=False)
    assert earlier.boundary() == Refusal("stop", aborts=True)
    assert earlier.boundary() == Refusal("stop", aborts=False) and earlier.aborted


def test_a_strict_or_cancelled_run_shows_no_instruction() -> None:
    strict = EarlierStop(strict_stop=True)
    for index in range(4):
        strict.receipt(f"f{index}", "exec", {}, True)
    assert strict.boundary() == Refusal("stop", aborts=True)
    cancelled = EarlierStop(strict_stop=False)
    cancelled.owner_cancel()
    assert cancelled.boundary() == Refusal("stop", aborts=True)


def test_the_earlier_stop_counts_rounds_with_the_reference() -> None:
    """budget.md: the 9th model round without progress stops the run."""
    earlier = EarlierStop(strict_stop=False)
    for _ in range(8):
        earlier.model_call()
    assert not earlier.stopped
    earlier.model_call()
    assert earlier.stopped


def test_refusal_problems_name_each_departure() -> None:
    stop = STOP_HEAD + " Saved files and previously verified publications were preserved. The full request was not completed; continue from the preserved work."
    assert refusal_problem(None, False, None, None) is None
    assert refusal_problem(None, True, "Not run: write the first project file", None) is None
    assert refusal_problem(None, True, stop, None) is not None
    assert refusal_problem(Refusal("instruction", False), False, None, None) is not None
    assert refusal_problem(Refusal("instruction", False), True, stop, None) is not None
    assert refusal_problem(Refusal("instruction", False), True, "Stop calling tools now.", None) is None
    assert refusal_problem(Refusal("instruction", False), True, "Other words", "Stop calling tools now.") is not None
    assert refusal_problem(Refusal("stop", True), True, "Stop calling tools now.", None) is not None
    assert refusal_problem(Refusal("stop", True), True, stop, None) is None


# -- bugs planted in production ---------------------------------------------------


def plant(monkeypatch, original: Callable, replacement: Callable) -> int:
    """Bind ``replacement`` wherever ``original`` is bound in a loaded module (as a source edit would); how many."""
    planted = 0
    for module in list(sys.modules.values()):
        for name, value in list(getattr(module, "__dict__", {}).items()):
            if value is original:
                monkeypatch.setattr(module, name, replacement)
                planted += 1
    return planted


def violated(sequence: HookSequence) -> list[str]:
    return [violation.invariant for violation in HookMonitor(Tally()).check(sequence)]


def gates_then(*after: Any) -> HookSequence:
    """Three gated execs after ``read_remedy`` trip the fuse with the first-write kind; then ``after``."""
    events = (Call(0, "read_remedy"), Call(1, "gate"), Call(2, "gate"), Call(3, "gate"), ModelCall(), *after)
    return HookSequence(playground=True, events=events)


def test_a_binds_new_project_that_forgets_the_files_read_is_h5(monkeypatch) -> None:
    """The remedy's path (``Playground/project-0/main.py``) was read before the trip: the router preserves it."""
    original = guard.playground.binds_new_project

    def forgets_reads(tool, params, state, root=None, read_paths=()):
        return original(tool, params, state, root, ())

    sequence = gates_then(Call(6, "remedy"), Call(7, "exec_fail"))
    assert violated(sequence) == []
    assert plant(monkeypatch, original, forgets_reads) >= 2
    assert "H5" in violated(sequence)


def test_a_binds_new_project_that_takes_any_write_is_h5(monkeypatch) -> None:
    original = guard.playground.binds_new_project

    def any_write(tool, params, state, root=None, read_paths=()):
        return guard.playground.write_path(tool, params) is not None and state.fresh()

    sequence = gates_then(Call(5, "bad_write"), Call(6, "exec_fail"))
    assert violated(sequence) == []
    assert plant(monkeypatch, original, any_write) >= 2
    assert "H5" in violated(sequence)


def test_a_lookup_classifier_that_ignores_the_command_is_h8(monkeypatch) -> None:
    """A failing build's receipt claims a search (``lying_lookup``): exit 1, no output, but ``make`` ran."""
    original = guard.lookup.lookup_found_nothing

    def ignores_command(command, exit_code, output):
        return type(exit_code) is int and exit_code == 1 and not output

    sequence = HookSequence(playground=False, events=(Call(0, "lying_lookup"), Call(1, "lookup")))
    assert violated(sequence) == []
    assert plant(monkeypatch, original, ignores_command) >= 1
    assert "H8" in violated(sequence)


def test_a_rounds_cap_one_round_late_is_h3(monkeypatch) -> None:
    """The production budget stops at the 10th idle round: the reference's stops at the 9th (budget.md)."""
    original = guard.budget.RunProgressBudget.begin_model_round

    def late(self):
        self.rounds += 1
        if self.rounds > self.limits.rounds_without_progress + 1:
            self.terminal = True
            self.correction = None
        return self.terminal

    sequence = HookSequence(playground=False, events=(ModelCall(),) * 10)
    assert violated(sequence) == []
    monkeypatch.setattr(guard.budget.RunProgressBudget, "begin_model_round", late)
    assert original is not late
    assert "H3" in violated(sequence)


def test_an_instruction_that_never_ends_is_h3(monkeypatch) -> None:
    """The finalization phase never leaves ``pending``: every boundary shows the instruction, nothing aborts."""
    def stays_pending(self):
        return self.phase == guard.finalization.PENDING

    sequence = HookSequence(playground=False, events=tuple(Call(index, "fetch_fail") for index in range(6)))
    assert violated(sequence) == []
    monkeypatch.setattr(guard.finalization.Finalization, "deliver", stays_pending)
    assert "H3" in violated(sequence)
