"""README's "A subject's files" and "Layout" sections, held to the tree (issue 18: they must be true to it).

The README is what a contributor reads before adding a rule or a subject; a
table that names a file a subject lacks, or a core module nobody documented,
sends them to the wrong place. These tests read the README's own words and
compare them with the folders, so either side drifting fails here:

* every file of the subject-files table is in every subject folder, except the
  ones the README says that subject lacks ("budget has them all but
  ``model.py``"), and each of those is really missing;
* every module of the core (``properties/*.py``) and every subject folder is
  named in the Layout section.
"""

from __future__ import annotations

import re
from pathlib import Path

from properties.subject import available

ROOT = Path(__file__).resolve().parents[2]


def _section(title: str) -> str:
    """The text under the heading ``title`` up to the next heading of any level.

    The README is read here, not at import: a copy of the tests without it (mutmut's ``mutants/``, which leaves
    this file out too) must still collect the rest of the suite."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index(f"\n{title}\n")
    rest = readme[start + len(title) + 2:]
    following = re.search(r"\n#{2,3} ", rest)
    return rest[: following.start()] if following else rest


def _table_files() -> list[str]:
    """The file names of the subject-files table's first column."""
    return re.findall(r"^\| `([a-z_]+\.py)` \|", _section("### A subject's files"), flags=re.MULTILINE)


def _lacking(subject: str) -> set[str]:
    """The files the README's "Where the subjects stand" paragraph says ``subject`` lacks ("has them all but `x`")."""
    words = " ".join(_section("### A subject's files").split())
    found = re.search(rf"\b{subject} has them all but ((?:`[a-z_]+\.py`(?:,? (?:and )?)?)+)", words)
    return set(re.findall(r"`([a-z_]+\.py)`", found.group(1))) if found else set()


def test_the_table_names_the_parts_every_subject_has_except_where_the_readme_says_so() -> None:
    files = _table_files()
    assert len(files) >= 12, files  # the table was found and read, not an empty match
    wrong = []
    for subject in available():
        folder = ROOT / "properties" / subject.name
        lacking = _lacking(subject.name)
        for name in files:
            present = (folder / name).is_file()
            if name in lacking and present:
                wrong.append(f"{subject.name} has {name}, which the README says it lacks")
            elif name not in lacking and not present:
                wrong.append(f"{subject.name} lacks {name}, which the README's table gives every subject")
    assert not wrong, wrong


def test_the_layout_names_every_core_module_and_every_subject_folder() -> None:
    layout = _section("## Layout")
    core = sorted(path.name for path in (ROOT / "properties").glob("*.py") if path.name != "__init__.py")
    subjects = [subject.name for subject in available()]
    missing = [name for name in core if name not in layout]
    missing += [f"{name}/" for name in subjects if not re.search(rf"^\s+{name}/\s", layout, flags=re.MULTILINE)]
    assert not missing, f"README's Layout does not name: {missing}"
