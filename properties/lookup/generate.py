"""Generators for the lookup classifier (seed 000): valid chains and hostile variants.

Shared by the lookup subject's drivers, the table, property and
real-program tests, the hook subject's oracle tests and the benchmark.
Everything is driven by a ``Chooser`` so the same grammar runs from a seeded
``random.Random`` (corpora, benchmark) or from Hypothesis's own Random
(properties, with shrinking).

Ground truth comes from the grammar, not from the classifier: a valid chain
is generated as argv lists first and rendered to shell text second (with
random quoting and spacing), so its expected words are known independently
of the scanner under test. Nothing here imports ``guard``.

Hostile cases follow ``classifiers.md`` ("lookup found nothing"): each one
carries one disqualifier the spec names (or one this project's classifier
documents as a stricter choice; those kinds start with ``strict-``).
"""

from __future__ import annotations

import random
from typing import Any, Callable, Protocol, Sequence, TypeVar

import attrs

T = TypeVar("T")

#: Characters dash takes literally outside quotes and that the spec does not single out.
SAFE_BARE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./,:=+@%^]")


class Chooser(Protocol):
    def choice(self, options: Sequence[T]) -> T: ...

    def integer(self, low: int, high: int) -> int: ...


class RandomChooser:
    """Choices from a seeded ``random.Random``."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def choice(self, options: Sequence[T]) -> T:
        # random.choice indexes a sequence as it would its list copy: the same draws, without the copy.
        return self.rng.choice(options if isinstance(options, (list, tuple)) else list(options))

    def integer(self, low: int, high: int) -> int:
        return self.rng.randint(low, high)


def chance(chooser: Chooser, percent: int) -> bool:
    return chooser.integer(1, 100) <= percent


# ------------------------------------------------------------------ chains


@attrs.frozen
class Chain:
    """A command as structure: optional ``cd DIR &&``, steps (pipelines of argv), joiners."""

    cd: str | None
    steps: tuple[tuple[tuple[str, ...], ...], ...]
    joiners: tuple[str, ...]

    def argvs(self) -> list[list[str]]:
        """The argv of every simple command in order, as dash should see them."""
        words = [["cd", self.cd]] if self.cd is not None else []
        return words + [list(argv) for pipeline in self.steps for argv in pipeline]

    def last_lookup(self) -> tuple[str, ...]:
        return self.steps[-1][0]


@attrs.frozen
class Rendered:
    chain: Chain
    command: str


# Pools. Patterns cover quoting hazards that are harmless inside quotes.
PATTERNS = (
    "showScreen", "function showScreen", "drawSprite", "nosuchname_zz", "TODO", "a-b", "x.y",
    "it's", 'say "hi"', "a\\|b", "^import", "end$", "^$", "[0-9]+", "(a|b)", "a;b && c",
    "x || y", "#hash", "~tilde", "{braces}", "$HOME", "`tick`", "a\tb", "", "100%",
    "key=value", "@decorator", "semi;colon", "pipe|pipe", "amp&amp", "<tag>", "!bang", "*star",
)
FILES = ("ui.js", "app.py", "README.md", "src/game.js", "dir with space/notes.txt", "data.bin", "missing.txt")
GREP_OPTIONS = (
    ("-n",), ("-i",), ("-w",), ("-c",), ("-l",), ("-F",), ("-E",), ("-H",), ("-h",), ("-o",), ("-v",),
    ("-in",), ("-nw",), ("-A", "15"), ("-B", "2"), ("-C", "3"), ("-A3",), ("-m", "1"), ("-m1",),
    ("--include=*.js",), ("--color=never",), ("--line-number",), ("-r",), ("-rn",), ("-e", "alt"),
)
RG_OPTIONS = (
    ("-n",), ("-i",), ("-w",), ("-F",), ("-l",), ("-c",), ("--no-heading",), ("-g", "*.js"), ("-t", "js"),
    ("-A", "2"), ("-S",), ("--hidden",), ("-uu",), ("-e", "alt"),
)
GIT_GREP_OPTIONS = (
    ("-n",), ("-i",), ("-w",), ("-l",), ("-c",), ("-F",), ("-E",), ("-I",), ("--full-name",), ("-h",),
    ("-A", "2"), ("--untracked",), ("--cached",), ("-e", "alt"), ("-in",), ("--heading",),
)
WHICH_NAMES = ("grep", "sed", "nosuchprog_zz", "git", "dash")
ECHO_WORDS = ("===", "---", "section 2", "a;b", "it's", "done", "", "-n", "x|y", "$PATH", "#1")
CD_DIRS = ("src", "dir with space", "./src", ".")
FILTERS = (
    ("head", "-5"), ("head", "-n", "3"), ("head", "-n3"), ("head", "-c", "100"), ("head",),
    ("tail", "-n", "+2"), ("tail", "-3"), ("tail", "-n", "4"), ("tail",),
    ("cat", "-n"), ("cat", "-A"), ("cat",),
    ("wc", "-l"), ("wc", "-lw"), ("wc",),
    ("sort", "-u"), ("sort", "-rn"), ("sort", "-k2"), ("sort", "-k", "2"), ("sort", "-t", ":", "-k", "1"),
    ("sort",), ("uniq", "-c"), ("uniq", "-d"), ("uniq",),
)
JOINERS = (";", "&&")


def pattern_words(chooser: Chooser, pattern: str) -> list[str]:
    # A pattern that starts with "-" must come through -e, as any careful caller would write it.
    if pattern.startswith("-") or chance(chooser, 25):
        return ["-e", pattern]
    return [pattern]


def options(chooser: Chooser, pool: Sequence[tuple[str, ...]], most: int) -> list[str]:
    words: list[str] = []
    for _ in range(chooser.integer(0, most)):
        words.extend(chooser.choice(pool))
    return words


def files(chooser: Chooser, least: int, most: int) -> list[str]:
    return [chooser.choice(FILES) for _ in range(chooser.integer(least, most))]


def lookup_argv(chooser: Chooser, rg_allowed: bool) -> tuple[str, ...]:
    names = ["grep", "egrep", "fgrep", "git grep", "which"] + (["rg", "rg"] if rg_allowed else [])
    name = chooser.choice(names)
    pattern = chooser.choice(PATTERNS)
    if name == "which":
        flag = ["-a"] if chance(chooser, 30) else []
        return tuple(["which"] + flag + [chooser.choice(WHICH_NAMES) for _ in range(chooser.integer(1, 2))])
    if name == "git grep":
        words = ["git", "grep"] + options(chooser, GIT_GREP_OPTIONS, 2) + pattern_words(chooser, pattern)
        return tuple(words + (["--"] if chance(chooser, 30) else []) + files(chooser, 0, 2))
    pool = RG_OPTIONS if name == "rg" else GREP_OPTIONS
    return tuple([name] + options(chooser, pool, 3) + pattern_words(chooser, pattern) + files(chooser, 0, 2))


def step_head(chooser: Chooser) -> tuple[str, ...]:
    kind = chooser.choice(("lookup", "lookup", "echo", "sed"))
    if kind == "lookup":
        return lookup_argv(chooser, False)
    return echo_or_sed(chooser, kind)


def echo_or_sed(chooser: Chooser, kind: str) -> tuple[str, ...]:
    if kind == "echo":
        return tuple(["echo"] + [chooser.choice(ECHO_WORDS) for _ in range(chooser.integer(0, 3))])
    first = chooser.integer(1, 999)
    last = chooser.integer(1, 1200)
    return tuple(["sed", "-n", f"{first},{last}p"] + files(chooser, 0, 2))


def step(chooser: Chooser) -> tuple[tuple[str, ...], ...]:
    filters = [chooser.choice(FILTERS) for _ in range(chooser.choice((0, 0, 1, 1, 2)))]
    return tuple([step_head(chooser)] + filters)


def valid_chain(chooser: Chooser, most_steps: int = 4) -> Chain:
    """A chain of the accepted grammar: [cd DIR &&] step (;|&& step)* bare-lookup."""
    count = chooser.integer(0, most_steps - 1)
    steps = [step(chooser) for _ in range(count)] + [(lookup_argv(chooser, True),)]
    joiners = tuple(chooser.choice(JOINERS) for _ in range(count))
    cd = chooser.choice(CD_DIRS) if chance(chooser, 30) else None
    return Chain(cd, tuple(steps), joiners)


#: A pattern no workspace file holds, and the root-level files a directed chain searches (each exists in
#: ``programs.FILE_CONTENTS``, so a plain search of ABSENT in one exits 1, never 2).
ABSENT = "nosuchname_zz"
ABSENT_FILES = ("ui.js", "app.py", "README.md", "src/game.js")
#: The two shapes ``directed_chain`` builds; each reaches a coverage name random chains reach only by chance.
DIRECTED_SHAPES = ("short-circuit", "semicolons")


def absent_search(chooser: Chooser, rg_allowed: bool) -> tuple[str, ...]:
    """A lookup that exits 1 for certain: no option that could change its status (``-v``, ``-c`` with rg).
    rg only where ``lookup_argv`` allows it, as the last lookup (the grammar takes it nowhere else)."""
    name = chooser.choice(("grep", "egrep", "fgrep") + (("rg",) if rg_allowed else ()))
    return (name, chooser.choice(("-n", "-F", "-i", "-w")), ABSENT, chooser.choice(ABSENT_FILES))


def directed_chain(chooser: Chooser, shape: str) -> Chain:
    """A chain of the accepted grammar built to reach one coverage name on every seed.

    ``short-circuit``: ``absent-search && step && ... && lookup`` -- the absent search decides the
    exit of 1 and the steps after it never run ("decided before the last step"; random chains reach it
    only when a random search happens to find nothing and every later joiner is ``&&``, 1-12 times in 80).
    ``semicolons``: ``step ; step ; ... ; absent-search`` ("last lookup alone exits 1"). Neither takes
    ``cd DIR &&``: the searched files are named from the workspace's root.
    """
    count = chooser.integer(0, 2)
    middle = [step(chooser) for _ in range(count)]
    if shape == "short-circuit":
        steps = [(absent_search(chooser, False),)] + middle + [(lookup_argv(chooser, True),)]
        return Chain(None, tuple(steps), ("&&",) * (count + 1))
    if shape == "semicolons":
        return Chain(None, tuple(middle + [(absent_search(chooser, True),)]), (";",) * count)
    raise ValueError(f"unknown directed shape {shape!r}")


# ------------------------------------------------------------------ rendering


def render(chain: Chain, chooser: Chooser) -> Rendered:
    parts: list[str] = []
    if chance(chooser, 20):
        parts.append(blank(chooser))
    if chain.cd is not None:
        parts.append(render_argv(("cd", chain.cd), chooser))
        parts.append(operator("&&", chooser))
    for index, pipeline in enumerate(chain.steps):
        if index:
            parts.append(operator(chain.joiners[index - 1], chooser))
        parts.append(operator("|", chooser).join(render_argv(argv, chooser) for argv in pipeline))
    if chance(chooser, 20):
        parts.append(blank(chooser))
    return Rendered(chain, "".join(parts))


def render_argv(argv: Sequence[str], chooser: Chooser) -> str:
    return blank(chooser).join(render_word(word, chooser) for word in argv)


def blank(chooser: Chooser) -> str:
    return chooser.choice((" ", " ", " ", "  ", "\t", " \t "))


def operator(text: str, chooser: Chooser) -> str:
    return chooser.choice(("", " ", " ", "  ", "\t")) + text + chooser.choice(("", " ", " ", "  ", "\t"))


def render_word(word: str, chooser: Chooser) -> str:
    """The word in random dash quoting: bare, '...', "...", mixed pieces, empty quotes around."""
    if word == "":
        return chooser.choice(("''", '""', "''\"\""))
    pieces = split_word(word, chooser)
    text = "".join(render_piece(piece, chooser) for piece in pieces)
    if chance(chooser, 10):
        text = chooser.choice(("''", '""')) + text
    return text


def split_word(word: str, chooser: Chooser) -> list[str]:
    count = chooser.choice((1, 1, 1, 2, 3))
    cuts = sorted({chooser.integer(1, len(word)) for _ in range(count - 1)} - {len(word)}) if len(word) > 1 else []
    bounds = [0] + cuts + [len(word)]
    return [word[start:end] for start, end in zip(bounds, bounds[1:]) if end > start]


def render_piece(piece: str, chooser: Chooser) -> str:
    styles = []
    if all(char in SAFE_BARE for char in piece):
        styles.append("bare")
    if "'" not in piece:
        styles.append("single")
    if "$" not in piece and "`" not in piece:
        styles.append("double")
    if not styles:
        return "".join(render_piece(char, chooser) for char in piece)
    style = chooser.choice(styles)
    if style == "bare":
        return piece
    if style == "single":
        return "'" + piece + "'"
    return '"' + double_quoted_body(piece, chooser) + '"'


def double_quoted_body(piece: str, chooser: Chooser) -> str:
    out = []
    for index, char in enumerate(piece):
        following = piece[index + 1 : index + 2]
        if char == '"':
            out.append('\\"')
        elif char == "\\" and (following == "" or following in '\\"$`' or chance(chooser, 50)):
            out.append("\\\\")
        else:
            out.append(char)
    return "".join(out)


def random_valid(chooser: Chooser) -> Rendered:
    return render(valid_chain(chooser), chooser)


def hypothesis_chooser(draw: Callable[[Any], Any]) -> Chooser:
    """A chooser backed by Hypothesis's own Random: close to uniform choices that still shrink.

    (Drawing every choice with ``sampled_from``/``integers`` instead skews
    heavily towards the first options and the bounds: quoting hazards further
    down the pools then almost never appear.)
    """
    from hypothesis import strategies as st

    return RandomChooser(draw(st.randoms(use_true_random=False)))


def valid_chains() -> Any:
    """Hypothesis strategy of rendered valid chains."""
    from hypothesis import strategies as st

    return st.composite(lambda draw: random_valid(hypothesis_chooser(draw)))()


# ------------------------------------------------------------------ receipts

#: Output lines that are not errors: file contents, echo markers, GNU grep warnings and binary notices.
VALID_OUTPUT_LINES = (
    "===",
    "  function showScreen(name) {",
    "const speed = 4;",
    "src/game.js:12:  drawSprite();",
    "grep: warning: stray \\ before -",
    "grep: warning: * at start of expression",
    "grep: warning: ? at start of expression",
    "egrep: warning: egrep is obsolescent",
    "fgrep: warning: fgrep is obsolescent",
    "grep: ui.js: binary file matches",
    "grep: ./data.bin: binary file matches",
    "Binary file data.bin matches",
    "",
    "    return;",
)

#: Error lines the seed and rg 13 / git / dash really print.
ERROR_LINES = (
    "grep: x: No such file or directory",
    "grep: src: Is a directory",
    "grep: Unmatched ( or \\(",
    "grep: character class syntax is [[:space:]], not [:space:]",
    "egrep: x: No such file or directory",
    "sed: can't read ui.js: No such file or directory",
    "sed: -e expression #1, char 4: invalid usage of line address 0",
    "fatal: not a git repository (or any of the parent directories): .git",
    "fatal: ambiguous argument 'x': unknown revision or path not in the working tree.",
    "error: unclosed group",
    "regex parse error:",
    "missing.txt: No such file or directory (os error 2)",
    "dash: 1: cd: can't cd to nowhere",
    "sh: 1: cd: can't cd to nowhere",
    "head: invalid number of lines: 'x'",
    "tail: cannot open 'x' for reading: No such file or directory",
    "sort: cannot read: x: No such file or directory",
    "cat: x: No such file or directory",
    "wc: x: No such file or directory",
    "uniq: x: No such file or directory",
    "rg: x: Permission denied",
    "git: 'grpe' is not a git command. See 'git --help'.",
    "usage: git grep [<options>] [-e] <pattern> [<rev>...] [[--] <path>...]",
    "Usage: grep [OPTION]... PATTERNS [FILE]...",
    "/usr/bin/grep: x: No such file or directory",
    "grep: warning: No such file or directory",
)


def valid_output(chooser: Chooser) -> str:
    lines = [chooser.choice(VALID_OUTPUT_LINES) for _ in range(chooser.integer(0, 4))]
    return "\n".join(lines) + ("\n" if lines and chance(chooser, 70) else "")


def with_error_line(output: str, chooser: Chooser) -> str:
    lines = output.splitlines()
    lines.insert(chooser.integer(0, len(lines)), chooser.choice(ERROR_LINES))
    return "\n".join(lines) + chooser.choice(("", "\n", "\r\n"))


# ------------------------------------------------------------------ hostile


@attrs.frozen
class HostileCase:
    kind: str
    command: Any
    exit_code: Any
    output: Any


#: Inserted outside quotes: each is a disqualifier of the spec (kind "unquoted").
UNQUOTED_DISQUALIFIERS = (
    "||", "&", ">", ">>", "<", "2>&1", "2>/dev/null", ">out.txt", "<<EOF", "<<<x", "1>&2", ">|x",
    "(", ")", "{", "}", "( grep x )", "{ grep x; }", "$(id)", "$((1+1))", "`id`", "$HOME", "${HOME}",
    "$x", "$?", "$1", "$", "#", "#comment", "\\", "\\n", "\\;", "\\ ", "\\'",
)
#: Inserted outside quotes: stricter choices of this classifier (kind "strict-unquoted").
STRICT_UNQUOTED = ("!", "~", "~/x", "*", "?", "[a]", "*.js")
#: Inserted inside double quotes (kind "dq").
DOUBLE_QUOTED_DISQUALIFIERS = ("$", "$x", "$(id)", "`id`", "${x}", "\\$", "\\`", "$((1))", "$HOME")
#: New words carrying $ or a backtick inside double quotes.
DOUBLE_QUOTED_WORDS = ('"$HOME"', '"a$(id)b"', '"`id`"', '"\\$x"', '"${PATH}"', '"$1"', "x\"$y\"")
#: Inserted anywhere, quoted or not: odd whitespace and control characters (kind "whitespace").
ODD_WHITESPACE = (
    "\n", "\r", "\r\n", "\v", "\f", "\x00", "\x1b", "\x7f", "\u00a0", "\u2028", "\u2029", "\u3000",
    "\u200b", "\ufeff", "\x85", "\u2009", "\u202f", "\u1680",
)
#: Unicode look-alikes of ASCII characters (kind "lookalike").
LOOKALIKES = {
    "a": "\u0430", "e": "\u0435", "o": "\u043e", "p": "\u0440", "c": "\u0441", "x": "\u0445",
    "i": "\u0456", "g": "\u0261", "r": "\u0433", "s": "\u0455", ";": "\u037e", "|": "\uff5c",
    "&": "\uff06", "-": "\u2010", " ": "\u00a0", "'": "\u2019", '"': "\u201c", ".": "\u2024",
    "n": "\u0578", "h": "\u04bb", "w": "\u0461", "/": "\u2215",
}

SED_DASH_OPERANDS = (
    ("-i",), ("-i.bak",), ("--in-place",), ("--in-place=.bak",), ("-e", "1p"), ("-s",), ("-E",), ("-z",),
    ("-u",), ("--posix",), ("-n",), ("-ni",), ("-in",), ("--expression=1p",), ("-f", "x.sed"), ("--",),
    ("-",), ("-i", "-n"), ("--debug",), ("--separate",),
)
SORT_WRITERS = (
    ("-o", "out.txt"), ("-ro", "x"), ("-ox",), ("-c",), ("-C",), ("-rc",), ("-uc",), ("-nrco", "x"),
    ("--output=x",), ("--output", "x"), ("--check",), ("--check=quiet",), ("-cr",), ("-u", "-o", "y"),
    ("-Cu",), ("-ko",), ("-o",),
)
GIT_PAGER_OPTIONS = (
    ("-O",), ("-Ovim",), ("-Ocat",), ("-nO",), ("-iOless",), ("-nOvim",), ("--open-files-in-pager",),
    ("--open-files-in-pager=vim",), ("--open",), ("--op=sh",), ("--open-files=cat",), ("-O", "vim"),
    ("-wO",), ("-Osh",),
)
RG_PROGRAM_OPTIONS = (
    ("--pre", "cat"), ("--pre=cat",), ("--pre=sh",), ("--pre", "./x.sh"), ("--hostname-bin=x",),
    ("--hostname-bin", "x"), ("--pre=",),
)
FOREIGN_STEPS = (
    ("rm", "-f", "x"), ("touch", "x"), ("tee", "x"), ("xargs", "rm"), ("sh", "-c", "id"), ("bash",),
    ("python3", "-c", "1"), ("find", ".", "-delete"), ("awk", "1"), ("perl", "-e", "1"), ("env", "grep", "x"),
    ("command", "grep", "x"), ("exec", "grep", "x"), ("/usr/bin/grep", "x"), ("sudo", "grep", "x"),
    ("FOO=1", "grep", "x"), ("nice", "grep", "x"), ("timeout", "1", "grep", "x"), ("sed", "-i", "1d", "f"),
    ("sed", "-n", "1p", "f"), ("sed", "-n", "1,2p;w out", "f"), ("sed", "-n", "s/a/b/w out", "f"),
    ("sed", "-n", "1,$p", "f"), ("sed", "1,2p", "f"), ("git", "log"),
    ("git", "-C", "x", "grep", "y"), ("git", "-c", "core.pager=sh", "grep", "y"), ("cd", "x"),
    ("printf", "x"), ("true",), ("false",), ("test", "-f", "x"), ("[", "-f", "x", "]"), ("exit", "1"),
    ("Grep", "x"), ("GREP", "x"), ("sed",),
)
FOREIGN_FILTERS = (
    ("tee", "x"), ("xargs", "rm"), ("sh",), ("uniq", "a", "b"), ("uniq", "-c", "in", "out"),
    ("sort", "--compress-program=sh"), ("grep", "x"), ("sed", "-n", "1,2p"), ("sort", "--out=x"),
    ("sort", "--outp", "x"), ("awk", "1"), ("rg", "x"), ("echo",), ("tr", "a", "b"), ("less",),
)
#: Filter options this classifier rejects beyond the spec (kind "strict-filter"): follow, temp files, stdin "-".
STRICT_FILTERS = (
    ("tail", "-f"), ("tail", "-F", "x"), ("tail", "--follow"), ("uniq", "in"), ("sort", "-T", "/tmp"),
    ("head", "--foo"), ("wc", "--files0-from=x"), ("cat", "-"), ("sort", "--random-source=x"),
    ("head", "-c", "1K"), ("sort", "--rev"), ("tail", "--pid=1"),
)
#: Steps this classifier rejects beyond the spec (kind "strict-step").
STRICT_STEPS = (
    ("which",), ("which", "-a"), ("which", "-s", "x"), ("sed", "-n", "0,2p", "f"), ("sed", "-n", "01,2p", "f"),
    ("grep", "-s", "x", "f"), ("grep", "-rns", "x"), ("grep", "--no-messages", "x"), ("rg", "-z", "x"),
    ("rg", "--search-zip", "x"), ("git", "grep", "--textconv", "x"), ("/bin/grep", "x", "f"),
)


def boundary_states(command: str) -> list[str]:
    """The quoting state before each character boundary of a valid command: none, single, double or escaped."""
    states = []
    state = "none"
    escaped = False
    for char in command:
        states.append("escaped" if escaped else state)
        if escaped:
            escaped = False
        elif state == "none" and char in "'\"":
            state = "single" if char == "'" else "double"
        elif state == "single" and char == "'":
            state = "none"
        elif state == "double" and char == "\\":
            escaped = True
        elif state == "double" and char == '"':
            state = "none"
    states.append(state)
    return states


def insert_at(command: str, index: int, text: str) -> str:
    return command[:index] + text + command[index:]


def positions(command: str, wanted: str) -> list[int]:
    return [index for index, state in enumerate(boundary_states(command)) if state == wanted]


def insert_unquoted(command: str, chooser: Chooser, pool: Sequence[str]) -> str:
    token = chooser.choice(pool)
    padded = chooser.choice((token, " " + token, token + " ", " " + token + " "))
    return insert_at(command, chooser.choice(positions(command, "none")), padded)


def insert_in_double_quotes(command: str, chooser: Chooser) -> str:
    inside = positions(command, "double")
    if inside and chance(chooser, 70):
        return insert_at(command, chooser.choice(inside), chooser.choice(DOUBLE_QUOTED_DISQUALIFIERS))
    word = " " + chooser.choice(DOUBLE_QUOTED_WORDS) + " "
    return insert_at(command, chooser.choice(positions(command, "none")), word)


def insert_anywhere(command: str, chooser: Chooser, pool: Sequence[str]) -> str:
    return insert_at(command, chooser.integer(0, len(command)), chooser.choice(pool))


def swap_lookalike(command: str, chooser: Chooser) -> str:
    candidates = [index for index, char in enumerate(command) if char in LOOKALIKES]
    if not candidates or chance(chooser, 20):
        return insert_anywhere(command, chooser, tuple(LOOKALIKES.values()) + ("\uff47\uff52\uff45\uff50",))
    index = chooser.choice(candidates)
    return command[:index] + LOOKALIKES[command[index]] + command[index + 1 :]


def with_argv_words(argv: tuple[str, ...], words: Sequence[str], chooser: Chooser, first: int) -> tuple[str, ...]:
    index = chooser.integer(first, len(argv))
    return argv[:index] + tuple(words) + argv[index:]


def replace_step(chain: Chain, index: int, pipeline: tuple[tuple[str, ...], ...]) -> Chain:
    steps = chain.steps[:index] + (pipeline,) + chain.steps[index + 1 :]
    return attrs.evolve(chain, steps=steps)


def insert_step(chain: Chain, index: int, pipeline: tuple[tuple[str, ...], ...], chooser: Chooser) -> Chain:
    steps = chain.steps[:index] + (pipeline,) + chain.steps[index:]
    joiners = chain.joiners[:index] + (chooser.choice(JOINERS),) + chain.joiners[index:]
    return Chain(chain.cd, steps, joiners)


def with_sed_dash_operand(chain: Chain, chooser: Chooser) -> Chain:
    sed = ("sed", "-n", f"{chooser.integer(1, 99)},{chooser.integer(1, 99)}p", chooser.choice(FILES))
    chain = insert_step(chain, chooser.integer(0, len(chain.steps) - 1), (sed,), chooser)
    index = next(i for i, pipeline in enumerate(chain.steps) if pipeline[0] == sed)
    pipeline = chain.steps[index]
    hostile = with_argv_words(sed, chooser.choice(SED_DASH_OPERANDS), chooser, 1)
    return replace_step(chain, index, (hostile,) + pipeline[1:])


def with_sort_writer(chain: Chain, chooser: Chooser) -> Chain:
    base = ("sort",) + chooser.choice((("-u",), ("-rn",), ("-k2",), ()))
    sort = with_argv_words(base, chooser.choice(SORT_WRITERS), chooser, 1)
    head = step(chooser)
    pipeline = head[:1] + (sort,) + head[1:] if chance(chooser, 50) else head + (sort,)
    return insert_step(chain, chooser.integer(0, len(chain.steps) - 1), pipeline, chooser)


def with_git_pager(chain: Chain, chooser: Chooser) -> Chain:
    git = ("git", "grep") + chooser.choice((("-n",), (), ("-i", "-w"))) + ("showScreen",)
    hostile = with_argv_words(git, chooser.choice(GIT_PAGER_OPTIONS), chooser, 2)
    if chance(chooser, 50):
        return replace_step(chain, len(chain.steps) - 1, (hostile,))
    return insert_step(chain, chooser.integer(0, len(chain.steps) - 1), (hostile,), chooser)


def with_rg_program(chain: Chain, chooser: Chooser) -> Chain:
    rg = ("rg",) + chooser.choice((("-n",), (), ("-i",))) + ("showScreen",) + chooser.choice(((), ("ui.js",)))
    hostile = with_argv_words(rg, chooser.choice(RG_PROGRAM_OPTIONS), chooser, 1)
    return replace_step(chain, len(chain.steps) - 1, (hostile,))


def with_rg_not_last(chain: Chain, chooser: Chooser) -> Chain:
    rg: tuple[tuple[str, ...], ...] = (("rg", "-n", chooser.choice(PATTERNS)) + tuple(files(chooser, 0, 1)),)
    if chance(chooser, 30):
        rg = rg + (chooser.choice(FILTERS),)
    return insert_step(chain, chooser.integer(0, len(chain.steps) - 1), rg, chooser)


def with_foreign_step(chain: Chain, chooser: Chooser) -> Chain:
    foreign = (chooser.choice(FOREIGN_STEPS),)
    if foreign[0][0] == "cd" and chain.cd is None:
        # A cd step in front of a chain without one would be the allowed prefix, not a foreign step.
        chain = attrs.evolve(chain, cd=chooser.choice(CD_DIRS))
    if chance(chooser, 30):
        return replace_step(chain, len(chain.steps) - 1, foreign)
    return insert_step(chain, chooser.integer(0, len(chain.steps) - 1), foreign, chooser)


def with_foreign_filter(chain: Chain, chooser: Chooser) -> Chain:
    pipeline = step(chooser)
    pipeline = pipeline + (chooser.choice(FOREIGN_FILTERS),)
    return insert_step(chain, chooser.integer(0, len(chain.steps) - 1), pipeline, chooser)


def with_strict_filter(chain: Chain, chooser: Chooser) -> Chain:
    pipeline = step(chooser) + (chooser.choice(STRICT_FILTERS),)
    return insert_step(chain, chooser.integer(0, len(chain.steps) - 1), pipeline, chooser)


def with_strict_step(chain: Chain, chooser: Chooser) -> Chain:
    strict = (chooser.choice(STRICT_STEPS),)
    if chance(chooser, 50):
        return replace_step(chain, len(chain.steps) - 1, strict)
    return insert_step(chain, chooser.integer(0, len(chain.steps) - 1), strict, chooser)


def with_piped_last(chain: Chain, chooser: Chooser) -> Chain:
    last = chain.steps[-1] + (chooser.choice(FILTERS),)
    return replace_step(chain, len(chain.steps) - 1, last)


def with_non_lookup_last(chain: Chain, chooser: Chooser) -> Chain:
    last = echo_or_sed(chooser, chooser.choice(("echo", "sed")))
    return replace_step(chain, len(chain.steps) - 1, (last,))


def with_second_cd(chain: Chain, chooser: Chooser) -> Chain:
    cd = chain.cd or chooser.choice(CD_DIRS)
    return insert_step(Chain(cd, chain.steps, chain.joiners), 0, (("cd", chooser.choice(CD_DIRS)),), chooser)


STRUCTURAL = {
    "sed-dash-operand": with_sed_dash_operand,
    "sort-writer": with_sort_writer,
    "git-pager": with_git_pager,
    "rg-program": with_rg_program,
    "rg-not-last": with_rg_not_last,
    "foreign-step": with_foreign_step,
    "foreign-filter": with_foreign_filter,
    "piped-last": with_piped_last,
    "non-lookup-last": with_non_lookup_last,
    "second-cd": with_second_cd,
    "strict-filter": with_strict_filter,
    "strict-step": with_strict_step,
}

#: Whole-text edits of a rendered valid command: joiners and cd forms the grammar does not have.
TEXT_EDITS = ("or-joiner", "amp-joiner", "leading-op", "trailing-op", "double-semi", "cd-variant", "unterminated")


def text_edit(command: str, chooser: Chooser) -> str:
    edit = chooser.choice(TEXT_EDITS)
    if edit == "leading-op":
        return chooser.choice(("&& ", "; ", "| ", "&&", ";")) + command
    if edit == "trailing-op":
        return command + chooser.choice((" &&", ";", " ; ", " |", "&&", " ||"))
    if edit == "unterminated":
        return command + chooser.choice((" '", ' "', " 'x", ' "x'))
    if edit == "cd-variant":
        prefix = chooser.choice(("cd - && ", "cd && ", "cd -P src && ", "cd a b && ", "cd src; ", "cd src || ",
                                 "cd '' && ", "cd src & ", "cd -- src && ", "cd -L . && "))
        return prefix + command
    return insert_joiner_edit(command, chooser, edit)


def insert_joiner_edit(command: str, chooser: Chooser, edit: str) -> str:
    token = {"or-joiner": " || ", "amp-joiner": " & ", "double-semi": " ;; "}[edit]
    tail = chooser.choice(("grep x f", "which y", "rg z"))
    if chance(chooser, 50):
        return command + token + tail
    return tail + token + command


HOSTILE_KINDS = (
    "unquoted", "strict-unquoted", "dq", "whitespace", "lookalike", "text-edit", "exit", "error-line",
    "bad-type",
) + tuple(STRUCTURAL)

BAD_EXITS = (0, 2, 128, 127, 126, 130, 255, -1, 256, True, False, None, "1", 1.0, b"1", [1], 11)


def hostile_case(chooser: Chooser, kind: str | None = None) -> HostileCase:
    """One hostile receipt: a valid chain with exactly one kind of disqualifier added."""
    kind = kind or chooser.choice(HOSTILE_KINDS)
    chain = valid_chain(chooser)
    if kind in STRUCTURAL:
        command = render(STRUCTURAL[kind](chain, chooser), chooser).command
        return HostileCase(kind, command, 1, valid_output(chooser))
    command = render(chain, chooser).command
    if kind == "exit":
        return HostileCase(kind, command, chooser.choice(BAD_EXITS), valid_output(chooser))
    if kind == "error-line":
        return HostileCase(kind, command, 1, with_error_line(valid_output(chooser), chooser))
    if kind == "bad-type":
        return bad_type_case(command, chooser)
    return HostileCase(kind, edit_command(kind, command, chooser), 1, valid_output(chooser))


def edit_command(kind: str, command: str, chooser: Chooser) -> str:
    if kind == "unquoted":
        return insert_unquoted(command, chooser, UNQUOTED_DISQUALIFIERS)
    if kind == "strict-unquoted":
        return insert_unquoted(command, chooser, STRICT_UNQUOTED)
    if kind == "dq":
        return insert_in_double_quotes(command, chooser)
    if kind == "whitespace":
        return insert_anywhere(command, chooser, ODD_WHITESPACE)
    if kind == "lookalike":
        return swap_lookalike(command, chooser)
    return text_edit(command, chooser)


def bad_type_case(command: str, chooser: Chooser) -> HostileCase:
    form = chooser.choice(("bytes-command", "bytes-output", "none-output", "none-command", "list-command"))
    if form == "bytes-command":
        return HostileCase("bad-type", command.encode(), 1, "")
    if form == "bytes-output":
        return HostileCase("bad-type", command, 1, b"")
    if form == "none-output":
        return HostileCase("bad-type", command, 1, None)
    if form == "none-command":
        return HostileCase("bad-type", None, 1, "")
    return HostileCase("bad-type", command.split(), 1, "")


def hostile_corpus(seed: int, per_kind: int) -> list[HostileCase]:
    """``per_kind`` cases of every hostile kind, from one seeded generator."""
    chooser = RandomChooser(random.Random(seed))
    return [hostile_case(chooser, kind) for kind in HOSTILE_KINDS for _ in range(per_kind)]


def hostile_rounds(chooser: Chooser, per_kind: int) -> list[HostileCase]:
    """``per_kind`` cases of every hostile kind, the kinds taken in turn (a bug is met within one round)."""
    return [hostile_case(chooser, kind) for _ in range(per_kind) for kind in HOSTILE_KINDS]


def valid_corpus(seed: int, size: int) -> list[Rendered]:
    chooser = RandomChooser(random.Random(seed))
    return [random_valid(chooser) for _ in range(size)]


def bench_mix(seed: int, size: int) -> list[tuple[Any, Any, Any]]:
    """Half accepted receipts, half hostile ones, shuffled with the same seed."""
    chooser = RandomChooser(random.Random(seed))
    accepted = [(r.command, 1, valid_output(chooser)) for r in (random_valid(chooser) for _ in range(size // 2))]
    rejected = [(c.command, c.exit_code, c.output) for c in (hostile_case(chooser) for _ in range(size - size // 2))]
    mix = accepted + rejected
    random.Random(seed).shuffle(mix)
    return mix
