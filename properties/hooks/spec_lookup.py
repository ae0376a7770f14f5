"""The harness's own reading of "lookup found nothing" (``shared/spec/classifiers.md``, seed 000).

H8 judges whether a bound exec receipt was made a free empty lookup. Asking
production's ``guard.lookup.lookup_found_nothing`` for the expectation would
let a bug there pass its own test, so this module restates the rule from
classifiers.md ("lookup found nothing"), written apart from ``guard/``: a
small scanner that reads the command as dash would (quotes removed, operators
only outside quotes), then the shape of the command, then the output.

It is an oracle for H8, not a second production classifier: it needs to be
exact on what the spec states, and where the spec is silent it leans to
"not free" (a charged search costs one failure; a wrongly free command could
hide a real one). The choices where the spec is silent:

* The command is printable ASCII, spaces and tabs: classifiers.md's L4
  says odd whitespace and Unicode look-alikes are never accepted, quoted or
  not, so a pattern with any other character is charged like any failure.
* An unquoted ``#`` disqualifies wherever it stands (dash reads a comment
  only at a word's start; refusing it everywhere costs a charged search at
  worst). Glob characters and ``~`` are left alone: they change which files
  are read, never what runs or what is written.
* Inside double quotes a backslash keeps dash's meaning (it quotes ``$``,
  a backtick, ``"`` and ``\\``; elsewhere it is itself).
* A step may pipe into several filters in a row. ``uniq`` in a pipe may
  take options only (a second operand would be a file it writes), and
  ``sort``'s long options starting ``--o`` or ``--c`` (``--output``,
  ``--check``, ``--compress-program``, and their abbreviations) are rejected
  with ``-o``/``-c`` and ``-C`` (the quiet ``--check``). ``git grep``'s
  ``-O`` is rejected inside combined short flags too, and every long option
  that abbreviates ``--open-files-in-pager`` past the ambiguous ``--o``
  (git accepts unique abbreviations).
* An error line is one that starts with a program's name and a colon
  (``sed: ...``, the shell's ``dash: ...``), or ``fatal:``/``error:``/``usage:``, or
  that reports a missing file, a refused permission or a regex that does
  not parse (rg prints some of those without its name); a grep-family line
  whose message starts ``warning:`` or reports that a binary file matches is
  not an error.
"""

from __future__ import annotations

import re
from typing import Any

#: classifiers.md: the programs whose exit status 1 means "found nothing".
SEARCHES = frozenset({"grep", "egrep", "fgrep", "rg", "which"})
#: classifiers.md: what a step's lookup, echo or sed may be piped into.
FILTERS = frozenset({"head", "tail", "cat", "wc", "sort", "uniq"})
#: classifiers.md: the one sed form allowed, ``sed -n 'N,Mp'``.
LINE_RANGE = re.compile(r"[0-9]+,[0-9]+p")
#: Characters that disqualify wherever they stand outside quotes (classifiers.md's disqualifier list).
NEVER_UNQUOTED = frozenset("\\$`(){}<>#")
#: classifiers.md L4: no odd whitespace or look-alike, quoted or not (module notes).
PLAIN_TEXT = re.compile(r"[\x20-\x7e\t]*")
#: Program names whose "name:" lines are error lines (module notes).
SPEAKERS = ("grep", "egrep", "fgrep", "rg", "git", "which", "sed", "echo", "cd", "dash", "sh", *sorted(FILTERS))
ERROR_LINE = re.compile(r"(?:(%s): (.*)|(?:fatal|error|[Uu]sage):.*)" % "|".join(SPEAKERS), re.DOTALL)
#: Error reports that carry no program's name (module notes).
NAMELESS_ERRORS = ("No such file or directory", "Permission denied", "regex parse error")

#: A scanned token: a word's text, or one of the operators ``;``, ``&&``, ``|``.
SEMI, AND, PIPE = ";", "&&", "|"


class Operator(str):
    """An operator token, kept apart from a word with the same text (a quoted ``';'`` is a word)."""


class Refused(Exception):
    """The command is not an empty search (raised by the scanner and the shape checks)."""


def scan(command: str) -> list:
    """The command's words (str) and operators (``Operator``), quotes removed; ``Refused`` on a disqualifier.

    classifiers.md: "Scanning is word by word with quotes removed, as dash would see it", and its list of
    what disqualifies a command (``||``, a lone ``&``, redirections, grouping, substitutions, comments, a
    backslash outside quotes, ``$`` or a backtick inside double quotes, a newline, an unquoted ``$``).
    """
    if PLAIN_TEXT.fullmatch(command) is None:
        raise Refused("a character other than printable ASCII, space or tab")
    tokens: list = []
    word: list[str] = []
    in_word = False
    i, end = 0, len(command)
    while i < end:
        char = command[i]
        if char == "\n":
            raise Refused("a newline")
        if char in " \t":
            if in_word:
                tokens.append("".join(word))
                word, in_word = [], False
        elif char == "'":
            close = command.find("'", i + 1)
            if close < 0:
                raise Refused("an unclosed quote")
            word.append(command[i + 1:close])
            in_word, i = True, close
        elif char == '"':
            i = double_quoted(command, i + 1, word)
            in_word = True
        elif char in NEVER_UNQUOTED:
            raise Refused(f"{char!r} outside quotes")
        elif char in ";&|":
            if in_word:
                tokens.append("".join(word))
                word, in_word = [], False
            pair = command[i:i + 2]
            if pair == "||":
                raise Refused("||")
            if char == "&" and pair != "&&":
                raise Refused("a lone &")
            if pair == "&&":
                tokens.append(Operator(AND))
                i += 1
            else:
                tokens.append(Operator(char))
        else:
            word.append(char)
            in_word = True
        i += 1
    if in_word:
        tokens.append("".join(word))
    return tokens


def double_quoted(command: str, i: int, word: list[str]) -> int:
    """Read a double-quoted part starting after its quote into ``word``; the index of its closing quote."""
    while i < len(command):
        char = command[i]
        if char == '"':
            return i
        if char in "$`":
            raise Refused(f"{char!r} inside double quotes")
        if char == "\\" and i + 1 < len(command) and command[i + 1] in '"\\':
            i += 1
            char = command[i]
        word.append(char)
        i += 1
    raise Refused("an unclosed quote")


def split_on(tokens: list, operators: frozenset) -> tuple[list[list], list[str]]:
    """The runs of tokens between the given operators, and the operators between them."""
    parts: list[list] = [[]]
    between: list[str] = []
    for token in tokens:
        if isinstance(token, Operator) and token in operators:
            parts.append([])
            between.append(str(token))
        else:
            parts[-1].append(token)
    return parts, between


def is_search(words: list[str]) -> bool:
    """classifiers.md: grep, egrep, fgrep, rg, ``git grep`` or which, with no option that runs or writes."""
    if words[0] == "git":
        if len(words) < 2 or words[1] != "grep":
            return False
        for word in words[2:]:
            # classifiers.md: ``-O...``/``--open-files-in-pager`` run a pager (module notes: abbreviations, clusters).
            name = word.split("=", 1)[0]
            if (len(name) > 3 and "--open-files-in-pager".startswith(name)) or (word.startswith("-") and not word.startswith("--") and "O" in word):
                raise Refused("git grep would open a pager program")
        return True
    if words[0] not in SEARCHES:
        return False
    if words[0] == "rg":
        for word in words[1:]:
            if word in ("--pre", "--hostname-bin") or word.startswith(("--pre=", "--hostname-bin=")):
                raise Refused("rg would run a program")
    return True


def check_filter(words: list[str]) -> None:
    """classifiers.md: head, tail, cat, wc, sort or uniq, and nothing that writes a file."""
    name = words[0]
    if name not in FILTERS:
        raise Refused(f"{name!r} is not a filter")
    for word in words[1:]:
        if name == "sort" and (
            word.startswith(("--o", "--c")) or (word.startswith("-") and not word.startswith("--") and any(flag in word for flag in "ocC"))
        ):
            raise Refused("sort would write or check a file")
        if name == "uniq" and not word.startswith("-"):
            raise Refused("uniq would write its second operand")


def check_step(commands: list[list], last: bool) -> None:
    """One step: a search, an echo or ``sed -n 'N,Mp'``, piped into filters; the last step a bare search."""
    for words in commands:
        if not words or any(isinstance(word, Operator) for word in words):
            raise Refused("an empty command")
    head, filters = commands[0], commands[1:]
    if last:
        if filters or not is_search(head):
            raise Refused("the last step is not a bare search")
        return
    if head[0] == "rg":
        raise Refused("rg before the last step")
    if head[0] == "sed":
        if len(head) < 3 or head[1] != "-n" or LINE_RANGE.fullmatch(head[2]) is None:
            raise Refused("sed other than -n 'N,Mp'")
        if any(word.startswith("-") for word in head[3:]):
            raise Refused("a sed operand starting with -")
    elif head[0] != "echo" and not is_search(head):
        raise Refused(f"{head[0]!r} is not a lookup step")
    for words in filters:
        check_filter(words)


def has_error_line(output: str) -> bool:
    """classifiers.md: an error line disqualifies; grep's warnings and binary-file notices are not errors."""
    for line in output.splitlines():
        if any(report in line for report in NAMELESS_ERRORS):
            return True
        found = ERROR_LINE.fullmatch(line)
        if found is None:
            continue
        speaker, message = found.group(1), found.group(2)
        if speaker in ("grep", "egrep", "fgrep") and (message.startswith("warning:") or message.endswith("binary file matches")):
            continue
        return True
    return False


def search_found_nothing(command: Any, exit_code: Any, output: Any) -> bool:
    """classifiers.md "lookup found nothing": exit status exactly 1, an accepted command, no error line."""
    # classifiers.md: "Exit status exactly 1" (an int, not True or 1.0).
    if type(exit_code) is not int or exit_code != 1 or not isinstance(command, str) or not isinstance(output, str):
        return False
    try:
        steps, joins = split_on(scan(command), frozenset({SEMI, AND}))
        # classifiers.md: "optionally preceded by one literal `cd DIR &&`".
        if steps[0][:1] == ["cd"]:
            # A DIR that is empty or starts with "-" is an option or nothing, not a literal directory.
            if len(steps[0]) != 2 or not steps[0][1] or steps[0][1].startswith("-") or not joins or joins[0] != AND:
                raise Refused("cd other than one literal `cd DIR &&`")
            steps = steps[1:]
        if not steps:
            raise Refused("no step")
        for position, step in enumerate(steps):
            commands, _ = split_on(step, frozenset({PIPE}))
            check_step(commands, last=position == len(steps) - 1)
    except Refused:
        return False
    return not has_error_line(output)
