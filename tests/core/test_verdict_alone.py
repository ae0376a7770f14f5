"""The verdict-alone layer's pure parts: the stratified sample, mutant names, and how a verdict run is read."""

from __future__ import annotations

import pytest
from pathlib import Path

from mutations import verdict_alone, warm
from mutations.verdict_alone import CRASHED, ERROR, SURVIVED, TIMED_OUT, VACUOUS, VIOLATED, module_of, outcome_of, stratified


def _modules() -> dict[str, list[str]]:
    return {"guard/big.py": [f"guard.big.x_f__mutmut_{n}" for n in range(900)],
            "guard/mid.py": [f"guard.mid.x_g__mutmut_{n}" for n in range(90)],
            "guard/tiny.py": [f"guard.tiny.x_h__mutmut_{n}" for n in range(5)]}


def test_the_sample_is_proportional_with_a_floor_and_repeats_for_its_seed() -> None:
    modules = _modules()
    first = stratified(modules, 300, seed=7)
    by_module = {module: sum(name.startswith(module[:-3].replace("/", ".") + ".") for name in first) for module in modules}
    # 300 of 995: big gets 271 by its share, mid 27; tiny's share (1.5) is raised to all five it has.
    assert by_module == {"guard/big.py": 271, "guard/mid.py": 27, "guard/tiny.py": 5}
    assert len(set(first)) == len(first)
    assert stratified(modules, 300, seed=7) == first
    assert stratified(modules, 300, seed=8) != first


def test_a_sample_as_large_as_the_mutants_is_every_mutant() -> None:
    modules = _modules()
    assert stratified(modules, 5000, seed=1) == sorted(name for names in modules.values() for name in names)


def test_mutmut_names_map_to_their_modules() -> None:
    assert module_of("guard.hooks.x\u01c1ToolLoopGuard\u01c1after_tool_call__mutmut_3") == "guard/hooks.py"
    assert module_of("guard.navigation_evidence.x_classify__mutmut_1") == "guard/navigation_evidence.py"


def test_a_verdict_run_is_read_by_what_failed_it() -> None:
    assert outcome_of({"exit_code": 0}) == (SURVIVED, "")
    assert outcome_of({"timed_out": True})[0] == TIMED_OUT
    assert outcome_of({"exit_code": 1, "invariant": "H8", "verdict_line": "verdict: FAIL (H8 violated)"}) == (VIOLATED, "H8")
    assert outcome_of({"exit_code": 1, "verdict_line": "verdict: FAIL (H5 vacuous; H6 vacuous)"}) == (VACUOUS, "H5, H6")
    crashed = outcome_of({"exit_code": 1, "verdict_line": "verdict: FAIL (H5 vacuous; driver error: hooks bulk: TypeError)"})
    assert crashed[0] == CRASHED and "TypeError" in crashed[1]
    # Raised by the guard itself before any driver ran (a validator refusing the default limits): the verdict
    # fails on that tree, so it is a kill; raised by the harness, it stays a harness error.
    refused = outcome_of({"crashed": "ValueError: tool_calls must be a positive integer, got 24",
                          "raised_in": "guard.navigation_limits"})
    assert refused[0] == CRASHED and "guard.navigation_limits" in refused[1]
    assert outcome_of({"crashed": "KeyError: 'x'", "raised_in": "properties.navigation.generate"})[0] == ERROR


def test_a_crash_is_placed_in_the_module_whose_code_raised_it() -> None:
    namespace: dict = {"__name__": "guard.limits_probe"}
    exec(compile("def refuse():\n    raise ValueError('no')\n", "/elsewhere/guard/limits_probe.py", "exec"), namespace)

    def call() -> None:  # a harness frame above the guard's
        namespace["refuse"]()

    with pytest.raises(ValueError) as caught:
        call()
    assert warm.raised_in(caught.value) == "guard.limits_probe"


def test_a_module_filter_keeps_only_the_named_modules_by_path_or_dotted_name() -> None:
    every = {"guard/hooks.py": ["h1", "h2"], "guard/navigation.py": ["n1"], "guard/budget.py": ["b1"]}
    assert verdict_alone.select_modules(every, None) == every
    assert verdict_alone.select_modules(every, ["guard/navigation.py", "guard.hooks"]) == {
        "guard/navigation.py": ["n1"], "guard/hooks.py": ["h1", "h2"]}


def test_a_module_without_mutants_is_one_line_naming_the_known_ones() -> None:
    with pytest.raises(verdict_alone.VerdictAloneError, match=r"--module guard/ports.py: no mutants .*guard/hooks.py"):
        verdict_alone.select_modules({"guard/hooks.py": ["h1"]}, ["guard/ports.py"])


def test_the_module_runs_on_its_own_and_refuses_a_misspelt_module_in_one_line() -> None:
    import subprocess
    import sys

    from properties.paths import ROOT

    done = subprocess.run([sys.executable, "-m", "mutations.verdict_alone", "--module", "guard/nosuch.py", "--quiet"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1] == (
        "python -m mutations --verdict-alone: --module guard/nosuch.py: not a module of guard/ "
        "(give guard/NAME.py or guard.NAME)")


def test_every_subject_judges_the_guard_modules_it_imports() -> None:
    """A subject whose drivers import a guard module judges that module's mutants (``SUBJECTS_OF``): the lookup
    subject, added after the map was written, judged none of ``guard/lookup.py``'s until this test."""
    import ast

    root = Path(__file__).resolve().parents[2]
    missing = []
    for folder in sorted(path for path in (root / "properties").iterdir() if (path / "subject.py").is_file()):
        imported = set()
        # The recorded sessions are replayed by ``nox -s replay`` (``fixtures.py``, ``replay.py``), not by the verdict.
        for source in (path for path in folder.glob("*.py") if path.name not in ("fixtures.py", "replay.py")):
            for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("guard."):
                    imported.add(node.module)
                elif isinstance(node, ast.Import):
                    imported.update(alias.name for alias in node.names if alias.name.startswith("guard."))
        for module in sorted(imported):
            path = module.replace(".", "/") + ".py"
            if path in verdict_alone.SUBJECTS_OF and folder.name not in verdict_alone.SUBJECTS_OF[path].split(","):
                missing.append(f"{folder.name} imports {module}")
    assert missing == []


_RENUMBERED_DIFF = """--- guard/navigation.py
+++ guard/navigation.py
@@ -1,3 +1,3 @@
 def f():
-    if not ports.policy.allows(model, "navigation-answer"):
+    if not ports.policy.allows(model, None):
         pass
"""


def test_an_unreached_entry_excuses_only_the_change_it_names(tmp_path: Path) -> None:
    # mutmut numbers a function's mutants in order: an edit renumbers them, and an entry whose number now names
    # another change must not excuse it (the navigation entries moved when ``_finish`` gained two arguments).
    listed = tmp_path / "unreached.toml"
    listed.write_text('[[unreached]]\nname = "guard.navigation.x__finish__mutmut_59"\n'
                      'diff = "`if not ports.policy.allows(model, \\"navigation-answer\\"):` -> '
                      '`if not ports.policy.allows(model, None):`"\nreason = "no purpose word in the spec"\n',
                      encoding="utf-8")
    unreached = verdict_alone.load_unreached(listed)
    judged = verdict_alone.Judgement("guard.navigation.x__finish__mutmut_59", "guard/navigation.py", "navigation",
                                     SURVIVED, "", 1.0, "tests/navigation/t.py::test", _RENUMBERED_DIFF)
    assert verdict_alone.listed_unreached(judged, unreached) is unreached[judged.name]
    moved = verdict_alone.Judgement(judged.name, judged.module, judged.subjects, SURVIVED, "", 1.0, judged.unit_killer,
                                    _RENUMBERED_DIFF.replace("None", '"XXnavigation-answerXX"'))
    assert verdict_alone.listed_unreached(moved, unreached) is None
    assert "for another change" in verdict_alone.markdown(
        verdict_alone.Run(seed=1, sample=None, judged=(moved,), equivalents=0, total=1, seconds=1.0,
                          properties_from=None), {}, unreached)


def test_an_unreached_entry_without_its_change_is_one_line_naming_the_field(tmp_path: Path) -> None:
    listed = tmp_path / "unreached.toml"
    listed.write_text('[[unreached]]\nname = "guard.navigation.x__finish__mutmut_59"\nreason = "why"\n', encoding="utf-8")
    with pytest.raises(verdict_alone.VerdictAloneError, match=r"unreached.toml: unreached\[0\]\.diff: needs a string"):
        verdict_alone.load_unreached(listed)


def test_a_renumbered_equivalent_stops_the_run_naming_its_entry(monkeypatch) -> None:
    from mutations.equivalents import Equivalent

    entry = Equivalent("guard.navigation.x__finish__mutmut_59", "`tools=(),` -> `(removed)`", "the attrs default")
    monkeypatch.setattr(verdict_alone, "diff_of", lambda root, name, module: _RENUMBERED_DIFF)
    every = {"guard/navigation.py": [entry.name]}
    with pytest.raises(verdict_alone.VerdictAloneError, match=r"equivalents.toml: .*mutmut_59: diff: listed `tools"):
        verdict_alone.check_equivalents(Path("."), [entry], every)
    monkeypatch.setattr(verdict_alone, "diff_of", lambda root, name, module: "-    tools=(),\n")
    verdict_alone.check_equivalents(Path("."), [entry], every)
    with pytest.raises(verdict_alone.VerdictAloneError, match=r"no such mutant in guard/navigation.py"):
        verdict_alone.check_equivalents(Path("."), [entry], {"guard/navigation.py": []})
    # A module not judged in this run is not read at all.
    verdict_alone.check_equivalents(Path("."), [entry], {"guard/hooks.py": []})


def test_a_before_outcome_is_read_only_while_its_function_is_unchanged(tmp_path: Path) -> None:
    module = tmp_path / "guard" / "rules.py"
    module.parent.mkdir()
    module.write_text("def keep(x):\n    return x > 1\n\n\nclass Box:\n    def open(self):\n        return 1\n",
                      encoding="utf-8")
    names = ["guard.rules.x_keep__mutmut_1", "guard.rules.x_keep__mutmut_2", "guard.rules.x\u01c1Box\u01c1open__mutmut_1"]
    assert verdict_alone.function_of(names[2]) == "guard/rules.py:Box.open"

    def run(*judged: str) -> verdict_alone.Run:
        return verdict_alone.Run(seed=1, sample=None, equivalents=0, total=len(judged), seconds=0.0, properties_from="abc",
                                 judged=tuple(verdict_alone.Judgement(n, "guard/rules.py", "budget", VIOLATED, "", 0.1)
                                              for n in judged))

    before = tmp_path / "before.json"
    verdict_alone.record_before(run(*names), tmp_path, before)
    data = verdict_alone.load_before(before)
    assert set(verdict_alone.same_function_outcomes(data, tmp_path, names)) == set(names)
    # keep() changes, so its mutants are renumbered: their recorded outcomes no longer count; open()'s still do.
    module.write_text(module.read_text(encoding="utf-8").replace("x > 1", "x > 1 and x < 9"), encoding="utf-8")
    assert set(verdict_alone.same_function_outcomes(data, tmp_path, names)) == {names[2]}
    # Recording one of keep()'s names again drops its other, stale name rather than reading it under the new print.
    verdict_alone.record_before(run(names[0]), tmp_path, before)
    data = verdict_alone.load_before(before)
    assert set(data["outcomes"]) == {names[0], names[2]}
    assert set(verdict_alone.same_function_outcomes(data, tmp_path, names)) == {names[0], names[2]}
    # An outcome recorded before prints were kept is read by name in the table, and judged again when recording.
    legacy = {"outcomes": {names[1]: VIOLATED}}
    assert verdict_alone.same_function_outcomes(legacy, tmp_path, names) == {names[1]: VIOLATED}
    assert verdict_alone.same_function_outcomes(legacy, tmp_path, names, legacy=False) == {}
