"""Hypothesis properties of ``lookup_found_nothing`` (seed 000).

Valid chains come from the accepted grammar with random quoting and spacing
(``properties.lookup.generate``); their expected words are the generator's own
argv lists, not the scanner's output. Example counts come from the profile
loaded by ``tests/conftest.py``.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, strategies as st

from guard.lookup import lookup_found_nothing, scan_words
from properties.lookup import generate as corpus


@st.composite
def valid_receipts(draw: Any) -> tuple[corpus.Rendered, str]:
    chooser = corpus.hypothesis_chooser(draw)
    return corpus.random_valid(chooser), corpus.valid_output(chooser)


@given(receipt=valid_receipts())
def test_valid_chains_are_accepted(receipt: tuple[corpus.Rendered, str]) -> None:
    rendered, output = receipt
    assert lookup_found_nothing(rendered.command, 1, output) is True


@given(receipt=valid_receipts())
def test_scanner_removes_quotes_as_the_grammar_wrote_them(receipt: tuple[corpus.Rendered, str]) -> None:
    rendered, _ = receipt
    assert scan_words(rendered.command) == rendered.chain.argvs()


@pytest.mark.parametrize("kind", corpus.HOSTILE_KINDS)
@given(data=st.data())
def test_any_disqualifier_anywhere_is_rejected(data: st.DataObject, kind: str) -> None:
    case = corpus.hostile_case(corpus.hypothesis_chooser(data.draw), kind)
    assert lookup_found_nothing(case.command, case.exit_code, case.output) is False, case


@given(
    receipt=valid_receipts(),
    exit_code=st.one_of(
        st.sampled_from([0, 2, 126, 127, 128, 129, 130, 141, 255, -1, 256, 257]),
        st.integers().filter(lambda code: code != 1),
        st.sampled_from([True, False, None, 1.0, "1", b"1", [1], (1,)]),
        st.floats(allow_nan=True),
    ),
)
def test_any_other_exit_status_is_rejected(receipt: tuple[corpus.Rendered, str], exit_code: Any) -> None:
    rendered, output = receipt
    assert lookup_found_nothing(rendered.command, exit_code, output) is False


@given(data=st.data(), receipt=valid_receipts())
def test_an_error_line_anywhere_in_the_output_is_rejected(
    data: st.DataObject, receipt: tuple[corpus.Rendered, str]
) -> None:
    rendered, output = receipt
    noisy = corpus.with_error_line(output, corpus.hypothesis_chooser(data.draw))
    assert lookup_found_nothing(rendered.command, 1, noisy) is False


@given(
    command=st.one_of(st.text(), st.text(alphabet=st.sampled_from(sorted("grep -n'\"\\$`;&|<>(){}#~* \t\nxO")))),
    exit_code=st.one_of(st.integers(-3, 300), st.none(), st.booleans()),
    output=st.one_of(st.text(), st.none(), st.binary()),
)
def test_never_raises_and_answers_a_bool(command: str, exit_code: Any, output: Any) -> None:
    assert lookup_found_nothing(command, exit_code, output) in (True, False)
    words = scan_words(command)
    assert words is None or all(isinstance(word, str) for argv in words for word in argv)
