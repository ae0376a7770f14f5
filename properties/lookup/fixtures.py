"""Seed 000's own chains, restated as receipts: every run judges them first.

The seed's round 2 lost four of its five counted failures to short read-only
chains such as ``sed -n '860,900p' ui.js; echo ===; grep -n "function
showScreen" -A 15 ui.js``, and round 1 to greps for a function in the wrong
file; ``classifiers.md`` adds the ``&&`` chain whose first search decides
the status (``grep nosuch a && grep x b``). The files are the scratch
repository's (``programs.FILE_CONTENTS``), where ``showScreen`` is defined in
``ui.js`` only: the chains that search elsewhere find nothing and exit 1.
"""

from __future__ import annotations

from properties.lookup.events import Receipt

#: (label, command): each label starts with ``seed000`` (the coverage count "the seed's chains").
CHAINS = (
    ("seed000-spark", "sed -n '860,900p' ui.js; echo ===; grep -n \"function showScreen\" -A 15 ui.js"),
    ("seed000-spark-and", "sed -n '860,900p' ui.js && echo === && grep -n \"function showScreen\" -A 15 ui.js"),
    ("seed000-spark-elsewhere", "sed -n '1,40p' ui.js; echo ===; grep -n 'showScreen' app.py"),
    ("seed000-wrong-file", "grep -n \"function showScreen\" app.py"),
    ("seed000-cd", "cd src && grep -n showScreen game.js"),
    ("seed000-first-search-decides", "grep -n nosuchname_zz ui.js && grep -n showScreen ui.js"),
    ("seed000-git-grep", "git grep -n nosuchname_zz -- '*.js'"),
    ("seed000-rg-last", "echo ---; rg -n --no-heading -g '*.py' showScreen"),
    ("seed000-which", "which nosuchprog_zz"),
)


def receipts() -> list[Receipt]:
    return [Receipt.of(command, label=label) for label, command in CHAINS]
