"""The catalogue's cache reuses a kill only while nothing that could change the verdict has changed."""

from __future__ import annotations

import shutil
from pathlib import Path

from mutations import catalogue_runner, content_cache
from mutations.catalogue import entries
from properties.paths import ROOT


def _copy(tmp_path: Path) -> Path:
    copy = tmp_path / "project"
    for name in ("guard", "reference", "properties", "mutations", "tests"):
        shutil.copytree(ROOT / name, copy / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "noxfile.py"):
        if (ROOT / name).is_file():  # mutmut's mutants/ copy has no noxfile.py
            shutil.copy(ROOT / name, copy / name)
    return copy


def _keys(root: Path) -> dict[str, str]:
    context = content_cache.judging_sources(root)
    return {entry.id: catalogue_runner.entry_key(entry, 1, context) for entry in entries()}


def test_keys_are_distinct_and_stable(tmp_path: Path) -> None:
    copy = _copy(tmp_path)
    first = _keys(copy)
    assert len(set(first.values())) == len(first)
    assert _keys(copy) == first


def test_editing_any_guard_function_invalidates_every_entry(tmp_path: Path) -> None:
    # A helper the mutated function calls can turn its kill into a survivor, so no kill outlives an edit to
    # guard/, even one in another function or file (issue 22).
    copy = _copy(tmp_path)
    before = _keys(copy)
    budget = copy / "guard" / "budget.py"
    source = budget.read_text()
    marker = '        """Whether a correctable failure on ``counter`` may wait'
    assert marker in source
    budget.write_text(source.replace(marker, "        # edited\n" + marker, 1))
    after = _keys(copy)
    assert all(before[name] != after[name] for name in before)


def test_declaring_another_invariant_invalidates_that_entry(tmp_path: Path) -> None:
    import attrs

    copy = _copy(tmp_path)
    context = content_cache.judging_sources(copy)
    entry = next(entry for entry in entries() if entry.breaks)
    changed = attrs.evolve(entry, breaks=(*entry.breaks, "B1") if "B1" not in entry.breaks else entry.breaks[1:] or ("B2",))
    assert catalogue_runner.entry_key(entry, 1, context) != catalogue_runner.entry_key(changed, 1, context)


def test_any_change_to_a_judging_source_invalidates_everything(tmp_path: Path) -> None:
    copy = _copy(tmp_path)
    before = _keys(copy)
    test_file = copy / "tests" / "budget" / "test_budget_deferral.py"
    test_file.write_text(test_file.read_text() + "\n# edited\n")
    after = _keys(copy)
    assert all(before[name] != after[name] for name in before)
