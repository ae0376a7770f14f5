"""Seed 000: whether an exec receipt is an empty search (a lookup that found nothing).

``lookup_found_nothing(command, exit_code, output)`` is true only when the
exit status is exactly the integer 1, the command is a read-only list of
lookups whose last step is a bare lookup, and the merged output carries no
error line. Everything else is false, including bad input; it never raises.

The command is scanned word by word with quotes removed, as dash would see
it (``scan_words`` exposes the argv of every simple command so that tests
can compare it with what dash really passes). Grammar::

    command  := [ "cd" DIR "&&" ] step { (";" | "&&") step } lookup
    step     := head { "|" filter }
    head     := lookup-but-not-rg | echo | sed -n 'N,Mp' FILE...
    lookup   := grep | egrep | fgrep | rg | git grep | which
    filter   := head | tail | cat | wc | sort | uniq

Choices made where the seed and ``classifiers.md`` are silent (a careful
reviewer of a safety guard prefers a wrong "no" to a wrong "yes"):

* Characters: only printable ASCII, plus space and tab as blanks. Any other
  character anywhere, even inside quotes, rejects the command: newline,
  carriage return, vertical tab, form feed, NUL, non-breaking and other
  Unicode spaces, and every Unicode look-alike (fullwidth ``｜``, Cyrillic
  ``е``). A search for non-ASCII text is therefore charged as before.
* Unquoted characters are allow-listed: letters, digits and ``-_./,:=+@%^]``.
  Everything else unquoted rejects, which covers the disqualifiers of the
  seed (``$``, backslash, backtick, ``#``, ``<``, ``>``, ``(``, ``)``, ``{``,
  ``}``) and also ``~`` (tilde expansion), ``*``, ``?``, ``[`` (pathname
  expansion could turn a file named ``-i`` or ``--pre=sh`` into an option),
  and ``!`` (pipeline negation flips the exit status).
* Inside double quotes ``$`` and backticks reject even when escaped; ``\\\\``
  and ``\\"`` lose their backslash and any other backslash is kept, as in dash.
  Single quotes are fully literal.
* Operators: ``;``, ``&&`` and ``|`` only. ``||``, a lone ``&``, ``;;``, an
  empty step, a leading or trailing operator (a trailing ``;`` too) reject.
* Command names must be the bare names above (``/bin/grep``, ``env grep``,
  ``FOO=1 grep`` reject). ``cd`` takes exactly one non-empty directory that
  does not start with ``-`` and must be followed by ``&&``; only the first
  step may be ``cd``.
* ``which`` takes only ``-a`` and at least one name (``which`` alone exits 1
  without looking anything up).
* grep, egrep, fgrep: ``-s``/``--no-messages`` reject (they hide the error
  lines this classifier relies on), wherever they appear and however quoted.
* rg: any word starting with ``--pre`` (also ``--pre-glob``), ``--hostname-bin``
  or ``--search-zip``, and any single-dash word containing ``z`` (``-z`` runs
  decompressors) rejects. rg 13 does not accept abbreviated long options.
* git grep: a long option that is ``--open-files-in-pager`` or an abbreviation
  of it (git accepts unique prefixes; ``--no-`` forms too), ``--textconv``
  and its abbreviations (it runs configured filters), and any single-dash
  word containing ``O`` reject, wherever they appear.
* sed: exactly ``sed -n 'N,Mp' FILE...`` with N and M from 1 to 9 digits, no
  leading zero (line 0 is a sed error); no operand may start with ``-``.
* Filters take only allow-listed options, and an option's value (attached or
  the next word) must match a fixed pattern; operands may not start with ``-``
  (a lone ``-`` for standard input included).
  sort: no ``-o``, ``-c``, ``-C``, ``-T``, ``--compress-program`` or other long
  options outside a small list (also inside combined flags such as ``-ro``).
  uniq: no operands (a second operand is an output file). tail: no follow.
  Numbers are plain digits (no size suffixes).
* Exit status: ``type(exit_code) is int`` and equal to 1 (``True``, ``1.0``,
  ``"1"``, numpy integers and ``None`` reject). Output must be a ``str``;
  ``None`` and ``bytes`` reject.
* Error line: a line (``str.splitlines``) that starts with a program name
  used here or a shell name followed by ``:`` (``grep:``, ``/usr/bin/sed:``,
  ``dash:``), or with ``fatal``, ``error``, ``warning``, ``usage`` (any case),
  ``illegal option`` or ``regex parse error`` followed by a colon or a blank
  (``error.log:3:...`` from a file name is not one); a line of the form
  ``NAME: N: ...`` (a shell error); or a line containing ``(os error N)`` (rg
  13's unprefixed I/O errors). Exempt are exactly GNU grep's warnings (the
  fixed texts of grep 3.x: stray backslash, ``*``/``?``/``+``/``{...}`` at the
  start of an expression, obsolescent egrep/fgrep, recursive search of stdin,
  deprecated ``GREP_COLOR``, recursive directory loop) and its
  ``grep: FILE: binary file matches`` notices. Printed file contents that
  happen to look like an error line therefore reject too.

Known costs of this strictness: ``grep foo *.js``, searches for non-ASCII
text and chains whose earlier output happens to start with ``error:`` are
charged as before. Repository configuration that git may run on its own
(for example ``core.fsmonitor``) is outside what a command string can show.
"""

from __future__ import annotations

import re
from typing import Any, Iterator, NamedTuple

# --- characters (seed 000: "scanned word by word with quotes removed, as dash would see it") ---

PRINTABLE = frozenset(chr(code) for code in range(0x20, 0x7F)) | {"\t"}
#: One lexeme at a time; "other" catches every character dash would treat specially outside quotes
#: and every unterminated quote, so the lexemes always cover the whole command.
LEXEME = re.compile(
    r"""(?P<blank>[ \t]+)
    |(?P<operator>&&|\|\||;;|[;&|])
    |(?P<single>'[^']*')
    |(?P<double>"(?:[^"\\]|\\.)*")
    |(?P<bare>[A-Za-z0-9\-_./,:=+@%^\]]+)
    |(?P<other>.)""",
    re.VERBOSE | re.DOTALL,
)
#: Inside double quotes dash drops the backslash only before \ " $ ` and newline ($ and ` reject anyway).
DOUBLE_QUOTE_ESCAPE = re.compile(r'\\([\\"])')
ALLOWED_OPERATORS = frozenset({";", "&&", "|"})
STEP_JOINERS = frozenset({";", "&&"})

# --- programs (seed 000: the lookups, echo, sed -n and the pipe filters) ---

GREP_NAMES = frozenset({"grep", "egrep", "fgrep"})
GREP_ARG_LETTERS = frozenset("ABCDdefmX")
RG_PROGRAM_OPTIONS = ("--pre", "--hostname-bin", "--search-zip")
SED_RANGE = re.compile(r"[1-9][0-9]{0,8},[1-9][0-9]{0,8}p")

# --- error lines (seed 000: "any error line disqualifies the command") ---

PROGRAM_PREFIX = re.compile(
    r"(?:[^\s:]*/)?(?:e?grep|fgrep|rg|git|sed|head|tail|cat|wc|sort|uniq|which|echo|cd|sh|dash|bash):"
)
GENERIC_ERROR = re.compile(r"(?:fatal|error|warning|usage|illegal option|regex parse error)[:\s]", re.IGNORECASE)
SHELL_ERROR = re.compile(r"[^\s:]+: [0-9]+: ")
RG_IO_ERROR = re.compile(r"\(os error [0-9]+\)")
GREP_WARNING = re.compile(
    r"(?:[^\s:]*/)?[ef]?grep: (?:[^\n]+: )?warning: (?:"
    r"stray \\ before (?:unprintable character|white space|\S)"
    r"|[*?+] at start of expression"
    r"|\{\.\.\.\} at start of expression"
    r"|[ef]grep is obsolescent"
    r"|recursive search of stdin"
    r"|recursive directory loop"
    r"|GREP_COLOR='[^']*' is deprecated; use GREP_COLORS='mt=[^']*'"
    r")"
)
GREP_BINARY_NOTICE = re.compile(r"(?:[^\s:]*/)?[ef]?grep: .+: binary file matches|Binary file .+ matches")

Steps = list[list[list[str]]]


def lookup_found_nothing(command: Any, exit_code: Any, output: Any) -> bool:
    """True only for an empty search: exit 1, an accepted command, and no error line in the output."""
    # seed 000: lookups exit 1 only when nothing matched; 2 and 128 are their errors, True is not a status.
    if type(exit_code) is not int or exit_code != 1:
        return False
    # seed 000: the command comes from the call record as text; anything else is not a shell command.
    if not isinstance(command, str) or not isinstance(output, str):
        return False
    # seed 000: stdout and stderr are merged, and any error line disqualifies the command.
    if has_error_line(output):
        return False
    scanned = scan_steps(command)
    if scanned is None:
        return False
    return accepts_chain(scanned[0], scanned[1])


# ---------------------------------------------------------------- output


def has_error_line(output: str) -> bool:
    """Whether any line of the merged output is an error line (see the module docstring)."""
    for line in output.splitlines():
        if is_error_line(line):
            return True
    return False


def is_error_line(line: str) -> bool:
    # seed 000: GNU grep's warnings and binary-file-matches notices are not errors.
    if GREP_WARNING.fullmatch(line) or GREP_BINARY_NOTICE.fullmatch(line):
        return False
    # seed 000: `grep: x: No such file or directory`, `sed: ...`, `fatal: ...` are error lines.
    if PROGRAM_PREFIX.match(line) or GENERIC_ERROR.match(line):
        return True
    # seed 000: a shell error (`ash: 1: cd: can't cd to x`) is an error line too.
    if SHELL_ERROR.match(line):
        return True
    # seed 000: rg 13 prints some errors without a prefix (`x: No such file or directory (os error 2)`).
    return RG_IO_ERROR.search(line) is not None


# ---------------------------------------------------------------- scanner


def scan_words(command: Any) -> list[list[str]] | None:
    """The argv of every simple command, in order, or None when the scanner rejects the text."""
    scanned = scan_steps(command)
    if scanned is None:
        return None
    return [argv for pipeline in scanned[0] for argv in pipeline]


def scan_steps(command: Any) -> tuple[Steps, list[str]] | None:
    """Steps (each a pipeline of argv lists) and the `;`/`&&` joiners between them, or None."""
    if not isinstance(command, str):
        return None
    tokens = tokenize(command)
    if tokens is None:
        return None
    return group_tokens(tokens)


def tokenize(command: str) -> list[tuple[bool, str]] | None:
    """(is_operator, text) tokens with quotes removed, or None when any lexeme disqualifies the command."""
    # seed 000: newlines, odd whitespace and Unicode look-alikes (quoted or not) are not read the way they look.
    if not PRINTABLE.issuperset(command):
        return None
    tokens: list[tuple[bool, str]] = []
    word: list[str] | None = None
    for lexeme in LEXEME.finditer(command):
        kind, text = lexeme.lastgroup, lexeme.group()
        if kind == "blank" or kind == "operator":
            end_word(tokens, word)
            word = None
            if kind == "operator" and not add_operator(tokens, text):
                return None
            continue
        piece = word_piece(kind, text)
        if piece is None:
            return None
        word = [piece] if word is None else word + [piece]
    end_word(tokens, word)
    return tokens


def end_word(tokens: list[tuple[bool, str]], word: list[str] | None) -> None:
    # seed 000 (words as dash sees them): an empty quoted word ('') is still a word.
    if word is not None:
        tokens.append((False, "".join(word)))


def add_operator(tokens: list[tuple[bool, str]], text: str) -> bool:
    # seed 000: `||`, a lone `&` (background) and `;;` disqualify; only `;`, `&&` and `|` join commands.
    if text not in ALLOWED_OPERATORS:
        return False
    tokens.append((True, text))
    return True


def word_piece(kind: str | None, text: str) -> str | None:
    """The text one lexeme adds to the current word, quotes removed; None when it disqualifies."""
    if kind == "bare":
        return text
    if kind == "single":
        # seed 000 (as dash sees it): single quotes are literal; $, ` and backslashes inside are plain text.
        return text[1:-1]
    if kind == "double":
        return double_quoted(text[1:-1])
    # seed 000: unquoted $, backslash, backtick, #, redirection, grouping and unterminated quotes disqualify.
    return None


def double_quoted(body: str) -> str | None:
    # seed 000: `$` or a backtick inside double quotes disqualifies, escaped or not.
    if "$" in body or "`" in body:
        return None
    return DOUBLE_QUOTE_ESCAPE.sub(r"\1", body)


def group_tokens(tokens: list[tuple[bool, str]]) -> tuple[Steps, list[str]] | None:
    """Group tokens into steps of pipelines; None for an empty command, pipeline element or step."""
    steps: Steps = []
    joiners: list[str] = []
    pipeline: list[list[str]] = []
    argv: list[str] = []
    for is_operator, text in tokens:
        if not is_operator:
            argv.append(text)
            continue
        # seed 000: an operator with nothing before it (`&& grep`, `| head`) is not a list of steps.
        if not argv:
            return None
        pipeline.append(argv)
        argv = []
        if text in STEP_JOINERS:
            steps.append(pipeline)
            joiners.append(text)
            pipeline = []
    # seed 000 is silent on a trailing `;`; a trailing operator of any kind is rejected to stay strict.
    if not argv:
        return None
    pipeline.append(argv)
    steps.append(pipeline)
    return steps, joiners


# ---------------------------------------------------------------- grammar


def accepts_chain(steps: Steps, joiners: list[str]) -> bool:
    """Whether the scanned steps form `[cd DIR &&] step (;|&& step)* lookup`."""
    if is_cd_step(steps[0]):
        # seed 000: at most one literal `cd DIR &&`, only in front, and only before `&&`.
        if not joiners or joiners[0] != "&&":
            return False
        steps = steps[1:]
    last = steps[-1]
    # seed 000: the last step is a bare lookup (no pipe after it); rg is allowed only there.
    if len(last) != 1 or not is_last_lookup(last[0]):
        return False
    for pipeline in steps[:-1]:
        if not is_step(pipeline):
            return False
    return True


def is_cd_step(pipeline: list[list[str]]) -> bool:
    argv = pipeline[0]
    # seed 000: one literal directory; `cd -` prints and `cd -P` is an option, so a leading dash rejects.
    return len(pipeline) == 1 and argv[0] == "cd" and len(argv) == 2 and argv[1][:1] not in ("", "-")


def is_step(pipeline: list[list[str]]) -> bool:
    # seed 000: a step is a lookup (not rg), echo or sed -n 'N,Mp', optionally piped into filters.
    if not is_step_head(pipeline[0]):
        return False
    for argv in pipeline[1:]:
        if not is_filter(argv):
            return False
    return True


def is_step_head(argv: list[str]) -> bool:
    # seed 000: echo cannot exit 1, so it cannot fake an empty search.
    if argv[0] == "echo":
        return True
    return is_lookup(argv) or is_sed_range(argv)


def is_last_lookup(argv: list[str]) -> bool:
    # seed 000: rg 13 prints some errors without a prefix, so it may only be the last step.
    if argv[0] == "rg":
        return rg_args_ok(argv[1:])
    return is_lookup(argv)


def is_lookup(argv: list[str]) -> bool:
    """grep, egrep, fgrep, git grep or which with acceptable arguments (rg is only a last lookup)."""
    if argv[0] in GREP_NAMES:
        return grep_args_ok(argv[1:])
    # seed 000: only `git grep`; other git commands are not lookups.
    if argv[0] == "git" and argv[1:2] == ["grep"]:
        return git_grep_args_ok(argv[2:])
    if argv[0] == "which":
        return which_args_ok(argv[1:])
    return False


def grep_args_ok(args: list[str]) -> bool:
    for arg in args:
        # seed 000 (error lines must stay visible): --no-messages, abbreviated down to --no-m, hides them.
        if arg.startswith("--no-m"):
            return False
        if is_short_cluster(arg) and grep_cluster_silences(arg):
            return False
    return True


def grep_cluster_silences(arg: str) -> bool:
    """Whether a grep short-option cluster holds -s before any letter that takes the rest as its value."""
    for letter in arg[1:]:
        if letter == "s":
            return True
        if letter in GREP_ARG_LETTERS:
            return False
    return False


def rg_args_ok(args: list[str]) -> bool:
    for arg in args:
        # seed 000: rg --pre / --pre=... / --hostname-bin run programs, however quoted.
        if arg.startswith(RG_PROGRAM_OPTIONS):
            return False
        # seed 000 (options that run programs): -z runs decompressors; reject any cluster that might hold it.
        if is_short_cluster(arg) and "z" in arg:
            return False
    return True


def git_grep_args_ok(args: list[str]) -> bool:
    for arg in args:
        # seed 000: git grep -O... opens files in a pager program, also inside combined flags.
        if is_short_cluster(arg) and "O" in arg:
            return False
        if arg.startswith("--") and git_long_option_runs_program(arg[2:]):
            return False
    return True


def git_long_option_runs_program(body: str) -> bool:
    """Whether `--body` names --open-files-in-pager or --textconv, abbreviated or as `--no-`."""
    name = body.partition("=")[0].removeprefix("no-")
    # seed 000: git accepts unique prefixes, so --open, --op=vim and --o all reach the pager option.
    if is_abbreviation(name, "open-files-in-pager"):
        return True
    # seed 000 (options that run programs): --textconv runs configured filters; exact --text is just -a.
    return name != "text" and is_abbreviation(name, "textconv")


def is_abbreviation(name: str, option: str) -> bool:
    return name != "" and option.startswith(name)


def which_args_ok(args: list[str]) -> bool:
    names = [arg for arg in args if arg != "-a"]
    # seed 000 (exit 1 means nothing found): `which` with no name exits 1 without looking anything up.
    if not names:
        return False
    for name in names:
        if name.startswith("-"):
            return False
    return True


def is_sed_range(argv: list[str]) -> bool:
    # seed 000: exactly sed -n 'N,Mp'; any other operand starting with - (-i, -e, --in-place) rejects.
    if argv[0] != "sed" or argv[1:2] != ["-n"] or len(argv) < 3:
        return False
    if not SED_RANGE.fullmatch(argv[2]):
        return False
    for operand in argv[3:]:
        if operand.startswith("-"):
            return False
    return True


def is_short_cluster(arg: str) -> bool:
    # seed 000 (options however quoted): a lone "-" counts too; it holds no letter, so no check misreads it.
    return arg.startswith("-") and not arg.startswith("--")


# ---------------------------------------------------------------- filters


class FilterSpec(NamedTuple):
    """The options one pipe filter may take: flag letters, valued letters, whole words, long options."""

    flags: frozenset[str]
    valued: dict[str, re.Pattern[str]]
    whole: frozenset[str]
    whole_patterns: tuple[re.Pattern[str], ...]
    long_values: dict[str, re.Pattern[str]]
    operands: bool


def is_filter(argv: list[str]) -> bool:
    spec = FILTER_SPECS.get(argv[0])
    # seed 000: the only filters are head, tail, cat, wc, sort and uniq.
    if spec is None:
        return False
    words = iter(argv[1:])
    for arg in words:
        if not filter_word_ok(arg, words, spec):
            return False
    return True


def filter_word_ok(arg: str, words: Iterator[str], spec: FilterSpec) -> bool:
    """Whether one option or operand is allowed; a valued option takes its value from ``words``."""
    if not arg.startswith("-"):
        # seed 000 (uniq): a second operand is an output file, so uniq takes no operands at all.
        return spec.operands
    # seed 000 (strict reading): a lone "-" (standard input) is an operand that starts with -.
    if arg == "-":
        return False
    if arg in spec.whole or any(pattern.fullmatch(arg) for pattern in spec.whole_patterns):
        return True
    if arg.startswith("--"):
        return long_option_ok(arg, spec)
    return cluster_ok(arg[1:], words, spec)


def long_option_ok(arg: str, spec: FilterSpec) -> bool:
    name, equals, value = arg.partition("=")
    pattern = spec.long_values.get(name)
    # seed 000 (sort -o however spelled): only exact long names with a value; --out (for --output) stays out.
    return equals == "=" and pattern is not None and pattern.fullmatch(value) is not None


def cluster_ok(letters: str, words: Iterator[str], spec: FilterSpec) -> bool:
    for position, letter in enumerate(letters):
        if letter in spec.flags:
            continue
        pattern = spec.valued.get(letter)
        # seed 000: sort -o/-c (also inside combined flags like -ro) are simply not in the allow-list.
        if pattern is None:
            return False
        value = letters[position + 1 :] or next(words, None)
        return value is not None and pattern.fullmatch(value) is not None
    return True


HEAD_COUNT = re.compile(r"-?[0-9]{1,9}")
TAIL_COUNT = re.compile(r"[+-]?[0-9]{1,9}")
PLAIN_COUNT = re.compile(r"[0-9]{1,9}")
OBSOLETE_COUNT = re.compile(r"-[0-9]{1,9}")
SORT_KEY = re.compile(r"[1-9][0-9]{0,8}(?:\.[0-9]{1,9})?[bdfgiMhnRrV]*(?:,[1-9][0-9]{0,8}(?:\.[0-9]{1,9})?[bdfgiMhnRrV]*)?")
SORT_SEPARATOR = re.compile(r"[^-]")
SORT_BUFFER = re.compile(r"[0-9]{1,9}[%bKMGT]?")

FILTER_SPECS = {
    "head": FilterSpec(
        frozenset("qv"), {"n": HEAD_COUNT, "c": HEAD_COUNT},
        frozenset({"--quiet", "--silent", "--verbose"}), (OBSOLETE_COUNT,),
        {"--lines": HEAD_COUNT, "--bytes": HEAD_COUNT}, True,
    ),
    # seed 000 (a lookup chain ends by itself): no -f/-F/--follow/--pid/--retry for tail.
    "tail": FilterSpec(
        frozenset("qv"), {"n": TAIL_COUNT, "c": TAIL_COUNT},
        frozenset({"--quiet", "--silent", "--verbose"}), (OBSOLETE_COUNT,),
        {"--lines": TAIL_COUNT, "--bytes": TAIL_COUNT}, True,
    ),
    "cat": FilterSpec(
        frozenset("AbeEnstTuv"), {},
        frozenset({"--show-all", "--number-nonblank", "--show-ends", "--number", "--squeeze-blank",
                   "--show-tabs", "--show-nonprinting"}), (),
        {}, True,
    ),
    "wc": FilterSpec(
        frozenset("clmLw"), {},
        frozenset({"--bytes", "--chars", "--lines", "--words", "--max-line-length"}), (),
        {}, True,
    ),
    # seed 000: sort -o writes a file and -c/-C exit 1 on unsorted input; -T writes temporary files.
    "sort": FilterSpec(
        frozenset("bdfgiMhnRrsuVz"), {"k": SORT_KEY, "t": SORT_SEPARATOR, "S": SORT_BUFFER},
        frozenset({"--reverse", "--numeric-sort", "--unique", "--ignore-case", "--human-numeric-sort",
                   "--general-numeric-sort", "--version-sort", "--stable", "--dictionary-order",
                   "--ignore-leading-blanks", "--month-sort", "--zero-terminated", "--ignore-nonprinting"}), (),
        {"--key": SORT_KEY, "--field-separator": SORT_SEPARATOR}, True,
    ),
    "uniq": FilterSpec(
        frozenset("cdDiuz"), {"f": PLAIN_COUNT, "s": PLAIN_COUNT, "w": PLAIN_COUNT},
        frozenset({"--count", "--repeated", "--unique", "--ignore-case", "--zero-terminated"}), (),
        {"--skip-fields": PLAIN_COUNT, "--skip-chars": PLAIN_COUNT, "--check-chars": PLAIN_COUNT}, False,
    ),
}
