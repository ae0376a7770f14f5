"""The catalogue's warm path: which edits it takes, and that the swapped code is exactly the mutated text."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

from mutations import catalogue, scratch, warm
from mutations.entry import Entry
from properties import work_bound

ROOT = Path(__file__).resolve().parents[2]

SOURCE = '''
from __future__ import annotations

LIMIT = 3


def over(count: int) -> bool:
    return count > LIMIT


class Base:
    def name(self) -> str:
        return "base"


class Child(Base):
    def name(self) -> str:
        return "child of " + super().name()

    @property
    def size(self) -> int:
        return 1

    @staticmethod
    def twice(value: int) -> int:
        return 2 * value
'''


def _module(source: str, name: str = "warm_sample") -> types.ModuleType:
    module = types.ModuleType(name)
    module.__file__ = f"<{name}>"
    exec(compile(source, module.__file__, "exec"), module.__dict__)
    return module


@pytest.mark.parametrize(
    ("find", "replace", "changed"),
    [
        ("count > LIMIT", "count >= LIMIT", [(None, "over")]),
        ('"child of " + super().name()', '"child"', [("Child", "name")]),
        ("        return 1\n", "        return 2\n", [("Child", "size")]),
        ("2 * value", "3 * value", [("Child", "twice")]),
    ],
)
def test_body_edits_are_patchable_and_named(find: str, replace: str, changed: list) -> None:
    found = warm.changed_functions(SOURCE, SOURCE.replace(find, replace))
    assert [(owner, name) for owner, name, _node in found] == changed


@pytest.mark.parametrize(
    ("find", "replace"),
    [
        ("LIMIT = 3", "LIMIT = 4"),  # a module constant: read at import by others
        ("def over(count: int)", "def over(count: int = 1)"),  # a default: made when the def ran
        ("    @staticmethod\n", "    @classmethod\n"),  # a decorator
        ("class Child(Base):", "class Child(object):"),  # a base
        ("\n\nclass Base:", "\nEXTRA = 1\n\nclass Base:"),  # a statement added
    ],
)
def test_other_edits_go_cold(find: str, replace: str) -> None:
    with pytest.raises(warm.NotPatchable):
        warm.changed_functions(SOURCE, SOURCE.replace(find, replace))


def test_the_swap_reaches_every_holder_of_the_function() -> None:
    module = _module(SOURCE)
    held_over, child = module.over, module.Child()  # as `from sample import over` would hold it
    mutated = (SOURCE.replace("count > LIMIT", "count >= LIMIT").replace('"child of " + super().name()', '"child " + super().name()')
               .replace("        return 1\n", "        return 7\n").replace("2 * value", "3 * value"))
    assert not held_over(3) and child.name() == "child of base" and child.size == 1 and module.Child.twice(2) == 4
    patched = warm.live_patch(module, SOURCE, mutated)
    assert sorted(patched) == ["Child.name", "Child.size", "Child.twice", "over"]
    assert held_over(3) and child.name() == "child base" and child.size == 7 and module.Child.twice(2) == 6


def _functions(namespace: dict, prefix: str = "") -> dict[str, types.CodeType]:
    out = {}
    for name, value in namespace.items():
        if isinstance(value, types.FunctionType) and value.__module__ == namespace.get("__name__", value.__module__):
            out[prefix + name] = value.__code__
        elif isinstance(value, type) and not prefix:
            for inner, member in vars(value).items():
                member = member.fget if isinstance(member, property) else getattr(member, "__func__", member)
                if isinstance(member, types.FunctionType) and member.__qualname__.startswith(value.__qualname__ + "."):
                    out[f"{name}.{inner}"] = member.__code__
    return out


def _fresh(file: str, source: str) -> types.ModuleType:
    """A private instance of a guard module (the imported one stays as it is), compiled as an import compiles it:
    with its loops counted (``properties.work_bound``)."""
    name = file[:-3].replace("/", ".")
    module = types.ModuleType(name)
    module.__file__ = str(ROOT / file)
    module.__package__ = name.rpartition(".")[0]
    sys.modules["_warm_probe"] = module
    try:
        module.__dict__[work_bound.TICK_NAME] = work_bound.tick
        exec(work_bound.compile_counted(source, module.__file__), module.__dict__)
    finally:
        del sys.modules["_warm_probe"]
    return module


PATCHABLE = [entry for entry in catalogue.entries() if warm.patchable(ROOT, entry) is None]


def test_most_catalogue_entries_take_the_warm_path() -> None:
    # Limits, constants and module tables go cold; every body-only rule edit goes warm.
    assert len(PATCHABLE) >= 50, len(PATCHABLE)


@pytest.mark.parametrize("entry", PATCHABLE, ids=lambda entry: entry.id)
def test_the_swapped_code_is_the_code_of_the_mutated_text(entry: Entry) -> None:
    """After the swap, every function runs exactly the bytecode the mutated file compiles to; the rest is untouched."""
    original = (ROOT / entry.file).read_text(encoding="utf-8")
    mutated = entry.applied(original)
    live = _fresh(entry.file, original)
    before = {name: code.co_code for name, code in _functions(vars(live)).items()}
    patched = warm.live_patch(live, original, mutated)
    assert patched
    expected = {name: code.co_code for name, code in _functions(vars(_fresh(entry.file, mutated))).items()}
    now = {name: code.co_code for name, code in _functions(vars(live)).items()}
    assert now == expected
    assert {name for name in now if now[name] != before[name]} <= set(patched)


def test_a_warm_server_kills_a_rule_mutant_and_passes_unmutated(tmp_path: Path) -> None:
    """End to end on a scratch copy: the drivers, in a fork with the edit swapped in, name the invariant it breaks."""
    entry = next(entry for entry in catalogue.entries() if entry.id == "defer-below-fuse")
    copy = scratch.make(ROOT, tmp_path / "server")
    server = warm.Server(copy, None)
    try:
        original = (ROOT / entry.file).read_text(encoding="utf-8")
        killed = server.judge("properties", f"catalogue:{entry.id}", tmp_path, 20261130, 300.0, file=entry.file,
                              original=original, mutated=entry.applied(original))
        assert killed["exit_code"] == 1 and killed["invariant"] == "B5", killed
        assert killed["patched"], killed
        clean = server.judge("properties", "catalogue:baseline", tmp_path, 20261130, 300.0)
        assert clean["exit_code"] == 0, clean
    finally:
        server.close()


PROBE = '''import os
import time


def test_no_bad_mutant():
    assert os.environ.get("MUTANT_UNDER_TEST") != "bad"


def test_a_slow_mutant_hangs():
    if os.environ.get("MUTANT_UNDER_TEST") == "slow":
        time.sleep(120)
'''


def _narrow_copy(tmp_path: Path, probe: str) -> Path:
    """A folder laid out as mutmut's ``mutants/`` copy: one test file, and (linked) this project's packages."""
    folder = tmp_path / "mutants"
    (folder / "tests").mkdir(parents=True)
    for package in ("mutations", "properties"):
        (folder / package).symlink_to(ROOT / package, target_is_directory=True)
    (folder / "tests" / "test_probe.py").write_text(probe, encoding="utf-8")
    return folder


def test_a_server_narrowed_to_some_files_answers_each_fork_as_its_mutant_makes_them(tmp_path: Path) -> None:
    """The review's stage 0 (``mutmut_layer.kill_near``): one collection of the nearby files with mutmut's options,
    one fork per mutant, chosen by ``MUTANT_UNDER_TEST`` alone; ``-x`` only when asked; a run past its timeout is
    killed and the server goes on; a collection that fails is a server that does not start."""
    folder = _narrow_copy(tmp_path, PROBE)
    # The package's plugin records each failing test, as under mutmut's options.
    options = ["-p", "no:cacheprovider", "-q", "-p", "mutations.pytest_plugin"]
    server = warm.Server(folder, None, shared=tmp_path, collect={"args": options, "tests": ["tests/test_probe.py"]})
    try:
        def judge(label: str, tests: list[str], stop: bool = True, timeout: float = 60.0) -> dict:
            return server.judge("pytest", label, tmp_path / "jobs", 0, timeout, tests=tests, args=options,
                                stop_at_first=stop, log=tmp_path / "logs" / f"{label or 'none'}.log")

        (tmp_path / "jobs").mkdir()
        assert judge("", ["tests/test_probe.py"])["exit_code"] == 0
        bad = judge("bad", ["tests/test_probe.py"])
        assert bad["exit_code"] == 1 and bad["failures"] == ["tests/test_probe.py::test_no_bad_mutant"], bad
        assert "1 failed" in (tmp_path / "logs" / "bad.log").read_text(encoding="utf-8")
        # One test by node id, as stage 0 runs its killers again.
        assert judge("bad", ["tests/test_probe.py::test_a_slow_mutant_hangs"], stop=False)["exit_code"] == 0
        assert judge("slow", ["tests/test_probe.py"], timeout=2.0).get("timed_out") is True
        assert judge("bad", ["tests/test_probe.py"])["exit_code"] == 1
    finally:
        server.close()
    broken = _narrow_copy(tmp_path / "broken", "this is not python\n")
    with pytest.raises(warm.ServerError, match="collecting 1 test files"):
        warm.Server(broken, None, shared=tmp_path, collect={"args": options, "tests": ["tests/test_probe.py"]})
