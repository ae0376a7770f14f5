"""Table tests for ``lookup_found_nothing`` (seed 000, classifiers.md "lookup found nothing").

Every expected verdict is read off the seed and the spec text, not off the
code. Rows marked ``strict:`` are rejections the spec does not name but the
module docstring of ``guard/lookup.py`` documents as the careful choice.
"""

from __future__ import annotations

import pytest

from guard.lookup import lookup_found_nothing, scan_words

SPARK = "sed -n '860,900p' ui.js; echo ===; grep -n \"function showScreen\" -A 15 ui.js"

#: (command, output) pairs that exit 1 and must count as an empty search.
ACCEPTED: list[tuple[str, str]] = [
    # The seed's Spark-run chains and single lookups.
    (SPARK, ""),
    (SPARK, "  // screens\n  function drawHud() {\n===\n"),
    ("sed -n '1,40p' ui.js; echo ===; grep -n 'showScreen' game.js", "const a = 1;\n===\n"),
    ("sed -n '860,900p' ui.js && echo === && grep -n \"function showScreen\" -A 15 ui.js", "===\n"),
    ("grep -n \"function showScreen\" ui.js", ""),
    ("grep -rn showScreen src/", ""),
    ("egrep -n 'showScreen|hideScreen' ui.js", ""),
    ("fgrep -n 'a.b' ui.js", ""),
    ("rg -n showScreen", ""),
    ("rg -n --no-heading -g '*.js' showScreen src", ""),
    ("git grep -n foo", ""),
    ("git grep -n \"function showScreen\" -- '*.js'", ""),
    ("git grep -e foo --or -e bar", ""),
    ("which foo", ""),
    ("which -a node npm", ""),
    # One literal cd in front.
    ("cd game && grep -n showScreen ui.js", ""),
    ("cd \"my dir\" && git grep -n foo", ""),
    ("cd src && rg showScreen", ""),
    # Chains of lookups, echo and sed -n, with pipes into the filters.
    ("grep -n foo ui.js | head -20; grep -n bar ui.js", "12:foo()\n"),
    ("sed -n '1,40p' ui.js | cat -n; grep -c foo ui.js", "     1\tline\n0\n"),
    ("grep -rl foo . | sort | uniq -c; rg foo", "      1 ./a.js\n"),
    ("echo 'a;b' | wc -l; grep x f", "1\n"),
    ("grep -n foo a.js && grep -n foo b.js", ""),
    ("grep -n nosuchname_zz ui.js && grep -n showScreen ui.js", ""),
    # `a && b ; c`: a failed search skips b only; c still runs and sets the status.
    ("grep -n foo missing.txt && echo x; grep -n nosuchname_zz ui.js", ""),
    ("which node && grep -rn require src", "/usr/bin/node\n"),
    ("grep -h x a | sort -rn | tail -n +2 | head -n 5; grep -w y b", ""),
    ("grep x a | sort -t: -k2; grep y b", ""),
    ("grep x a | sort -u -k 2,2n | uniq -d; grep y b", ""),
    ("git grep -l foo | wc -l; git grep -n bar", "0\n"),
    ("echo ---; which python3; echo ---; grep -n main app.py", "---\n/usr/bin/python3\n---\n"),
    # Scanner edge cases that dash reads as plain words.
    ("gr'e'p -n foo ui.js", ""),
    ("\"grep\" -n foo ui.js", ""),
    ("grep -n '' empty.txt", ""),
    ("grep\t-n\tfoo\tui.js", ""),
    ("  grep -n foo ui.js  ", ""),
    ("grep x f;grep y g", ""),
    ("grep x f&&grep y g", ""),
    ("grep -n 'end$' ui.js", ""),
    ("grep -n '`x`' ui.js", ""),
    ("grep -n '$HOME' ui.js", ""),
    ("grep -n 'a || b; c & d > e' ui.js", ""),
    ("grep -n \"a\\|b\" ui.js", ""),
    ("grep -n \"say \\\"hi\\\"\" ui.js", ""),
    ("grep -n \"it's\" ui.js", ""),
    ("grep -e '-O' ui.js", ""),
    ("grep -e '-i' ui.js", ""),
    ("grep --include='*.js' -rn foo .", ""),
    ("grep -n a^b%c@d+e,f:g=h]i ui.js", ""),
    ("grep -c foo errors.js warnings.js usage.md; grep -n bar ui.js", "errors.js:0\nwarnings.js:0\nusage.md:0\n"),
    ("grep -n foo -", ""),
    ("grep --basic-regexp foo ui.js", ""),
    ("git grep -n foo -- src", ""),
    ("git grep --text -n foo", ""),
    ("sed -n '1,5p'; grep x f", ""),
    ("grep -c foo ui.js | cat -n README.md; grep bar ui.js", ""),
    ("grep x f | head --lines=5; grep y g", ""),
    ("grep x f | head -n -5 | tail -n +2; grep y g", ""),
    ("grep x f | sort --field-separator== -k2; grep y g", ""),
    # Output that is not an error: GNU grep warnings and binary-file notices.
    ("grep -n 'a\\-b' ui.js", "grep: warning: stray \\ before -\n"),
    ("grep -E '*a' ui.js", "grep: warning: * at start of expression\n"),
    ("grep foo bin.dat; grep bar ui.js", "grep: bin.dat: binary file matches\n"),
    ("egrep foo ui.js", "egrep: warning: egrep is obsolescent\n"),
    ("grep -r foo .; grep bar ui.js", "Binary file ./data.bin matches\n"),
]

#: (command, exit_code, output, why) rows that must NOT count as an empty search.
REJECTED: list[tuple[object, object, object, str]] = [
    # Exit status exactly 1.
    ("grep -n foo ui.js", 0, "", "exit 0 is a match"),
    ("grep -n foo ui.js", 2, "", "exit 2 is a grep error"),
    ("git grep -n foo", 128, "", "exit 128 is a git error"),
    ("grep -n foo ui.js", True, "", "True is not an exit status"),
    ("grep -n foo ui.js", None, "", "missing exit status"),
    ("grep -n foo ui.js", "1", "", "a string is not an exit status"),
    ("grep -n foo ui.js", 1.0, "", "a float is not an exit status"),
    ("grep -n foo ui.js", 127, "", "command not found"),
    ("grep -n foo ui.js", -1, "", "negative status"),
    # Error lines in the merged output.
    ("grep -n foo x", 1, "grep: x: No such file or directory\n", "grep error line"),
    (SPARK, 1, "sed: can't read ui.js: No such file or directory\n===\n", "sed error line"),
    ("git grep -n foo", 1, "fatal: not a git repository (or any of the parent directories): .git\n", "fatal line"),
    ("grep a x; grep b y", 1, "ok\ngrep: x: Permission denied\n", "error line among others"),
    ("rg foo nonexist", 1, "nonexist: No such file or directory (os error 2)\n", "rg 13 unprefixed error"),
    ("rg 'x(' ui.js", 1, "regex parse error:\n    x(\n     ^\nerror: unclosed group\n", "rg regex error"),
    ("cd nowhere && grep x f", 1, "dash: 1: cd: can't cd to nowhere\n", "dash error line"),
    ("grep '[:space:]' f", 1, "grep: character class syntax is [[:space:]], not [:space:]\n", "grep error, not warning"),
    ("grep foo warning", 1, "grep: warning: No such file or directory\n", "an error about a file named warning"),
    ("grep x f | head -n x; grep y g", 1, "head: invalid number of lines: 'x'\n", "filter error line"),
    ("cd nowhere && grep x f", 1, "ash: 1: cd: can't cd to nowhere\n", "shell error line, any shell"),
    ("rg -g '[' x", 1, "error parsing glob '[': unclosed character class; missing ']'\n", "rg glob error"),
    ("which -x foo", 1, "Illegal option -x\nUsage: /usr/bin/which [-as] args\n", "which usage error"),
    ("git grep -n foo", 1, "error: unknown switch `y'\n", "git error line"),
    # Operators and shell syntax.
    ("grep x f || grep y g", 1, "", "||"),
    ("grep x f & grep y g", 1, "", "lone &"),
    ("grep x f &", 1, "", "trailing lone &"),
    ("grep x f > out.txt", 1, "", "redirection >"),
    ("grep x f >> out.txt", 1, "", "redirection >>"),
    ("grep x < f", 1, "", "redirection <"),
    ("grep x f 2>&1", 1, "", "redirection 2>&1"),
    ("grep x f 2>/dev/null", 1, "", "redirection 2>"),
    ("grep \"$(id)\" f", 1, "", "command substitution in double quotes"),
    ("grep $(id) f", 1, "", "command substitution"),
    ("grep `id` f", 1, "", "backtick substitution"),
    ("grep \"`id`\" f", 1, "", "backtick in double quotes"),
    ("grep $((1+1)) f", 1, "", "arithmetic substitution"),
    ("grep x $HOME", 1, "", "unquoted $"),
    ("grep \"$x\" f", 1, "", "$ inside double quotes"),
    ("grep \"\\$x\" f", 1, "", "escaped $ inside double quotes"),
    ("grep x f #comment", 1, "", "comment"),
    ("grep \\x f", 1, "", "backslash outside quotes"),
    ("grep x f\\;rm y", 1, "", "escaped semicolon"),
    ("grep x f\nrm y", 1, "", "newline"),
    ("grep x f\n", 1, "", "trailing newline"),
    ("(grep x f)", 1, "", "subshell grouping"),
    ("{ grep x f; }", 1, "", "brace grouping"),
    ("grep x f; (grep y g)", 1, "", "grouping in a later step"),
    ("grep 'x f", 1, "", "unterminated single quote"),
    ("grep \"x f", 1, "", "unterminated double quote"),
    ("&& grep x f", 1, "", "&& at start"),
    ("grep x f &&", 1, "", "&& at end"),
    ("grep x f;; grep y g", 1, "", ";;"),
    ("; grep x f", 1, "", "; at start"),
    ("grep x f | | head", 1, "", "empty pipeline element"),
    ("grep x f;", 1, "", "strict: trailing ;"),
    ("", 1, "", "empty command"),
    ("   ", 1, "", "blank command"),
    # Unicode look-alikes and odd whitespace.
    ("\uff47rep x f", 1, "", "fullwidth g"),
    ("gr\u0435p x f", 1, "", "Cyrillic e"),
    ("grep x f\uff1b grep y g", 1, "", "fullwidth semicolon"),
    ("grep\u00a0x f", 1, "", "non-breaking space"),
    ("grep x\u200b f", 1, "", "zero-width space"),
    ("grep x f\r", 1, "", "carriage return"),
    ("grep\vx f", 1, "", "vertical tab"),
    ("grep '\u0445' f", 1, "", "strict: look-alike inside quotes"),
    ("grep x f \u2028 grep y", 1, "", "line separator"),
    # rg only last.
    ("rg foo; grep bar ui.js", 1, "", "rg not last"),
    ("rg foo | head; grep x f", 1, "", "rg piped, not last"),
    ("rg foo && which x", 1, "", "rg before which"),
    # sed: only -n 'N,Mp', no other operand starting with -.
    ("sed '-i' -n '1,2p' ui.js; grep x ui.js", 1, "", "quoted -i to sed"),
    ("sed \"-i\" -n '1,2p' ui.js; grep x ui.js", 1, "", "double-quoted -i to sed"),
    ("sed -'i' -n '1,2p' ui.js; grep x ui.js", 1, "", "partly quoted -i to sed"),
    ("sed -n '1,2p' ui.js -i; grep x ui.js", 1, "", "-i after the file"),
    ("sed -n -i '1,2p' ui.js; grep x ui.js", 1, "", "-i after -n"),
    ("sed -ni '1,2p' ui.js; grep x ui.js", 1, "", "combined -ni"),
    ("sed --in-place -n '1,2p' ui.js; grep x", 1, "", "--in-place"),
    ("sed -n -e '1,2p' ui.js; grep x", 1, "", "-e"),
    ("sed -n -n '1,2p' ui.js; grep x", 1, "", "a second -n"),
    ("sed -n '1,2p' -- ui.js; grep x", 1, "", "-- operand"),
    ("sed -n '1p' ui.js; grep x", 1, "", "not N,Mp"),
    ("sed -n '1,$p' ui.js; grep x", 1, "", "not integers"),
    ("sed '1,2p' ui.js; grep x", 1, "", "no -n"),
    ("sed -n '1,2p;w out' ui.js; grep x", 1, "", "sed writes"),
    ("sed -n '0,5p' ui.js; grep x", 1, "", "strict: line 0 is a sed error"),
    # sort -o / -c, also combined.
    ("grep x f | sort -o out; grep y g", 1, "", "sort -o"),
    ("grep x f | sort -ro x; grep y g", 1, "", "sort -ro"),
    ("grep x f | sort -c; grep y g", 1, "", "sort -c"),
    ("grep x f | sort -rc; grep y g", 1, "", "sort -rc"),
    ("grep x f | sort -C && grep y g", 1, "", "sort -C"),
    ("grep x f | sort --output=x; grep y g", 1, "", "sort --output"),
    ("grep x f | sort '-o' x; grep y g", 1, "", "quoted sort -o"),
    ("grep x f | sort -k2 -ox; grep y g", 1, "", "sort -ox after -k2"),
    ("grep x f | sort --compress-program=sh; grep y g", 1, "", "sort runs a program"),
    ("grep x f | uniq - out.txt; grep y g", 1, "", "uniq writes its second operand"),
    ("grep x f | uniq in out; grep y g", 1, "", "uniq output operand"),
    ("grep x f | tail -f; grep y g", 1, "", "strict: tail -f"),
    ("grep x f | tail -5 -f; grep y g", 1, "", "strict: tail -f after a count"),
    ("grep x f | tail -n 5 -f; grep y g", 1, "", "strict: tail -f after -n 5"),
    ("grep x f | sort a.txt -o out; grep y g", 1, "", "sort -o after an operand"),
    ("grep x f | sort --key=2 -o x; grep y g", 1, "", "sort -o after --key"),
    ("grep x f | sort -u -o x; grep y g", 1, "", "sort -o after -u"),
    ("grep x f | cat -; grep y g", 1, "", "strict: lone - operand"),
    ("grep x f | head -n5x; grep y g", 1, "", "strict: not a count"),
    ("grep x f | head -n x; grep y g", 1, "", "strict: not a count, separate"),
    ("grep x f | head -n; grep y g", 1, "", "strict: missing count"),
    ("grep x f | sort --out=x; grep y g", 1, "", "abbreviated sort --output"),
    ("grep x f | tee out; grep y g", 1, "", "tee is not a filter"),
    ("grep x f | xargs rm; grep y g", 1, "", "xargs is not a filter"),
    # git grep -O / --open-files-in-pager.
    ("git grep -O'cmd' foo", 1, "", "git grep -O'cmd'"),
    ("git grep -Ovim foo", 1, "", "git grep -Ovim"),
    ("git grep -nO foo", 1, "", "-O inside combined flags"),
    ("git grep \"-O\" foo", 1, "", "quoted -O"),
    ("git grep --open-files-in-pager=x foo", 1, "", "--open-files-in-pager=x"),
    ("git grep --open-files-in-pager foo", 1, "", "--open-files-in-pager"),
    ("git grep --open foo", 1, "", "abbreviated --open-files-in-pager"),
    ("git grep '--op=vim' foo", 1, "", "quoted abbreviation"),
    ("git grep --textconv foo", 1, "", "strict: textconv runs filters"),
    ("git grep --textc foo", 1, "", "strict: abbreviated textconv"),
    ("git grep --no-textconv foo", 1, "", "strict: negated textconv"),
    ("git grep --no-open-files-in-pager foo", 1, "", "strict: negated pager option"),
    ("git grep --open=x=y foo", 1, "", "abbreviation with = in the value"),
    ("git grep --o foo", 1, "", "shortest abbreviation"),
    ("git log -S foo", 1, "", "not git grep"),
    ("git -c core.pager=sh grep foo", 1, "", "git options before grep"),
    # rg --pre / --hostname-bin.
    ("rg --pre x foo", 1, "", "rg --pre"),
    ("rg '--pre=x' foo", 1, "", "quoted rg --pre=x"),
    ("rg --pre=cat foo ui.js", 1, "", "rg --pre=cat"),
    ("rg \"--pre\" cat foo", 1, "", "double-quoted --pre"),
    ("rg --hostname-bin=x foo", 1, "", "rg --hostname-bin"),
    ("rg -z foo", 1, "", "strict: rg -z runs decompressors"),
    ("rg --search-zip foo", 1, "", "strict: rg --search-zip runs decompressors"),
    # The shape of the chain.
    ("grep x f | head", 1, "", "last step piped"),
    ("grep x f; echo done", 1, "", "last step echo"),
    ("grep x f; sed -n '1,2p' f", 1, "", "last step sed"),
    ("cd x; grep y", 1, "", "cd joined by ;"),
    ("cd - && grep y", 1, "", "cd -"),
    ("cd -P && grep y", 1, "", "cd with an option, no directory"),
    ("cd a && cd b && grep y", 1, "", "two cd"),
    ("grep y f && cd a && grep z", 1, "", "cd not in front"),
    ("cd a b && grep y", 1, "", "cd with two operands"),
    ("cd && grep y", 1, "", "cd without a directory"),
    ("cd x", 1, "", "cd alone"),
    ("cd '' && grep y", 1, "", "cd to an empty name"),
    ("rm -f x; grep y f", 1, "", "rm"),
    ("touch x && grep y f", 1, "", "touch"),
    ("ls x", 1, "", "ls is not a lookup"),
    ("cat missing.txt", 1, "", "cat alone is not a lookup"),
    ("test -f x", 1, "", "test exits 1 by design"),
    ("false", 1, "", "false"),
    ("find . -name x", 1, "", "find is not a lookup"),
    ("/usr/bin/grep x f", 1, "", "strict: a path, not the bare name"),
    ("env grep x f", 1, "", "env"),
    ("FOO=1 grep x f", 1, "", "assignment prefix"),
    ("sudo grep x f", 1, "", "sudo"),
    ("echo x | grep y", 1, "", "a pipe into a lookup"),
    ("! grep x f", 1, "", "strict: negation"),
    ("grep x ~/f", 1, "", "strict: tilde expansion"),
    ("grep x *.js", 1, "", "strict: pathname expansion"),
    ("grep -s x f", 1, "", "strict: -s hides errors"),
    ("grep -rns x .", 1, "", "strict: -s in combined flags"),
    ("which", 1, "", "strict: which without a name"),
    ("which -a", 1, "", "strict: which -a without a name"),
    ("which -s foo", 1, "", "strict: which options other than -a"),
    ("grep --no-messages x f", 1, "", "strict: --no-messages hides errors"),
    ("grep --no-m x f", 1, "", "strict: abbreviated --no-messages"),
    ("sed -n; grep x f", 1, "", "sed -n without a range"),
    # Bad input.
    (b"grep x f", 1, "", "bytes command"),
    (None, 1, "", "no command"),
    (["grep", "x"], 1, "", "argv list, not a command"),
    ("grep x f", 1, b"", "bytes output"),
    ("grep x f", 1, None, "no output"),
]


@pytest.mark.parametrize(("command", "output"), ACCEPTED)
def test_accepted(command: str, output: str) -> None:
    assert lookup_found_nothing(command, 1, output) is True


@pytest.mark.parametrize(("command", "exit_code", "output", "why"), REJECTED, ids=[row[3] for row in REJECTED])
def test_rejected(command: object, exit_code: object, output: object, why: str) -> None:
    assert lookup_found_nothing(command, exit_code, output) is False


def test_table_counts(capsys: pytest.CaptureFixture[str]) -> None:
    with capsys.disabled():
        print(f"\nlookup table: {len(ACCEPTED)} accepted, {len(REJECTED)} rejected")
    assert len(ACCEPTED) >= 40 and len(REJECTED) >= 100


def test_spark_chain_words() -> None:
    # The words dash passes for the seed's chain, read off the command by hand.
    assert scan_words(SPARK) == [
        ["sed", "-n", "860,900p", "ui.js"],
        ["echo", "==="],
        ["grep", "-n", "function showScreen", "-A", "15", "ui.js"],
    ]


@pytest.mark.parametrize(
    ("command", "words"),
    [
        ("gr'e'p ''x\"\" '' f", [["grep", "x", "", "f"]]),
        ("grep \"a\\\\b\" \"a\\b\" \"a\\\"b\"", [["grep", "a\\b", "a\\b", 'a"b']]),
        ("cd 'my dir'&&grep x|head -3;echo", [["cd", "my dir"], ["grep", "x"], ["head", "-3"], ["echo"]]),
        ("grep\t'a\tb' f", [["grep", "a\tb", "f"]]),
        ("grep x f;", None),
        ("grep x f || y", None),
        ("grep $x", None),
    ],
)
def test_scanner_words(command: str, words: list[list[str]] | None) -> None:
    assert scan_words(command) == words


def test_the_same_command_with_other_exit_codes_is_rejected() -> None:
    for code in (0, 2, 3, 126, 127, 128, 129, 130, 141, 255):
        assert lookup_found_nothing(SPARK, code, "") is False
    assert lookup_found_nothing(SPARK, 1, "") is True
