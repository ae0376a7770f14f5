"""Catalogue entries of the lookup classifier (``guard/lookup.py``, seed 000; ``shared/spec/classifiers.md``).

Level ``lookup``: each must be killed by the lookup subject's verdict (L1-L4
judged against the real programs) naming its declared invariant, and by the
classifier's table or real-program tests.
"""

from __future__ import annotations

from mutations.entry import Edit, entry

SUBJECT = "lookup"
LOOKUP_PY = "guard/lookup.py"

CLASSIFIER_TABLE = [
    entry(
        "lookup-reverted", "000", "the lookup classifier reverted: every non-zero exit is a failure",
        LOOKUP_PY, SUBJECT,
        Edit("    if type(exit_code) is not int or exit_code != 1:\n        return False\n", "    return False\n"),
        breaks=("L1",)
    ),
    entry(
        "lookup-accepts-or", "000", "`||` is accepted as a joiner between steps",
        LOOKUP_PY, SUBJECT,
        Edit('ALLOWED_OPERATORS = frozenset({";", "&&", "|"})\n', 'ALLOWED_OPERATORS = frozenset({";", "&&", "|", "||"})\n'),
        Edit('STEP_JOINERS = frozenset({";", "&&"})\n', 'STEP_JOINERS = frozenset({";", "&&", "||"})\n'),
        breaks=("L4",)
    ),
    entry(
        "lookup-accepts-redirection", "000", "an unquoted redirection (`>`, `<`) is accepted as part of a word",
        LOOKUP_PY, SUBJECT,
        Edit(r"    |(?P<bare>[A-Za-z0-9\-_./,:=+@%^\]]+)", r"    |(?P<bare>[A-Za-z0-9\-_./,:=+@%^\]<>]+)"),
        breaks=("L4",)
    ),
    entry(
        "lookup-accepts-substitution", "000", "a command substitution inside double quotes is accepted",
        LOOKUP_PY, SUBJECT,
        Edit('    if "$" in body or "`" in body:\n        return None\n', ""),
        breaks=("L4",)
    ),
    entry(
        "lookup-rg-before-last", "000", "rg is accepted before the last step",
        LOOKUP_PY, SUBJECT,
        Edit("    return is_lookup(argv) or is_sed_range(argv)\n", "    return is_last_lookup(argv) or is_sed_range(argv)\n"),
        breaks=("L4",)
    ),
    entry(
        "lookup-accepts-sort-o", "000", "`sort -o FILE` (writes a file) is accepted as a filter",
        LOOKUP_PY, SUBJECT,
        Edit('frozenset("bdfgiMhnRrsuVz"), {"k": SORT_KEY,', 'frozenset("bdfgiMhnRrsuVzo"), {"k": SORT_KEY,'),
        breaks=("L4",)
    ),
    entry(
        "lookup-sed-dash-operand", "000", "a sed operand that starts with `-` is accepted",
        LOOKUP_PY, SUBJECT,
        Edit('    for operand in argv[3:]:\n        if operand.startswith("-"):\n            return False\n    return True\n',
           "    return True\n"),
        breaks=("L4",)
    ),
    entry(
        "lookup-accepts-exit-2", "000", "exit status 2 (an error) counts as found nothing",
        LOOKUP_PY, SUBJECT,
        Edit("    if type(exit_code) is not int or exit_code != 1:\n", "    if type(exit_code) is not int or exit_code not in (1, 2):\n"),
        breaks=("L4",)
    ),
    entry(
        "lookup-ignores-error-lines", "000", "error lines in the output are ignored",
        LOOKUP_PY, SUBJECT,
        Edit("    if has_error_line(output):\n        return False\n", ""),
        breaks=("L4",)
    ),
]

ENTRIES = tuple(CLASSIFIER_TABLE)
