"""Reading a JSON file someone else wrote, safely: the one set of rules every harness file format uses.

Trace files (``properties.budget.trace_file``), hook sequence files
(``properties.hooks.trace_file``) and navigation scenario files
(``properties.navigation.scenario``) are all read here, so that a rule lives
once. Everything a file can get wrong raises ``JsonFileError`` (each format's
own error is a subclass), whose one-line message names the file and the field
path (``events[3].tool: expected a string``); the command-line tools print it
and exit 2, never a traceback or a hang.

The rules, in the order they apply:

- the path must be a regular file (``os.stat``: a FIFO, a directory or a
  device is refused before it is opened, and it is opened with
  ``O_NONBLOCK`` so that one swapped in between cannot block either);
- the text must be UTF-8;
- each value is checked for nesting depth (``MAX_DEPTH``) and size
  (``MAX_VALUE_BYTES``) by a bracket scan *before* ``json`` parses it, so
  ``json``'s recursion is never reached and a huge file is refused without
  being held;
- duplicate keys are refused (which one would win is a parser's choice);
- numbers must be finite (no NaN or Infinity, which strict JSON does not
  have) and integers fit in 64 bits (a 5,000-digit integer is refused before
  Python converts it);
- nothing may follow the document.

Then each format checks its fields with ``check_object``: every field typed
(``FieldType``), unknown fields refused, required ones present. Text is kept
as written, lone surrogates included; printing it is the printer's job
(``printable``).

``Reader`` streams one value at a time (the trace reader uses it for files of
any length); ``read_json`` reads a whole small document (a hook sequence or a
scenario: one value, so at most ``MAX_VALUE_BYTES`` characters).
"""

from __future__ import annotations

import codecs
import json
import math
import os
import re
import stat
from pathlib import Path
from typing import Any, Callable, Mapping

import attrs

#: Deepest nesting of one value (an event, its params, the limits, a whole small document).
#: The drivers' deepest params are 3; a scenario or hook sequence file is 3 deep.
MAX_DEPTH = 64
#: Largest text of one value (one trace event, one top-level trace field, or a whole small document).
MAX_VALUE_BYTES = 1 << 20
#: Read size of the streaming reader.
CHUNK_BYTES = 1 << 20
#: Integers must fit in a signed 64-bit word (what hosts and other JSON readers can hold).
MAX_INT = (1 << 63) - 1
#: The root of a document, as field paths name it.
TOP = "(top level)"


class JsonFileError(ValueError):
    """A file that cannot be read; the one-line message names the file and the field."""


def printable(text: Any) -> str:
    """``text`` safe for any terminal and encoder: control characters shown as ``\\xNN``, lone surrogates as ``\\udNNN``."""
    text = str(text)
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return re.sub(r"[\x00-\x1f\x7f]", lambda m: f"\\x{ord(m.group()):02x}", text)


def fail(source: str, where: str, problem: str, error: type[JsonFileError] = JsonFileError) -> JsonFileError:
    """The error naming ``source`` and the field path ``where``, printable on one line."""
    return error(printable(f"{source}: {where}: {problem}"))


def show(value: Any) -> str:
    """A short repr of a value, for messages."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def join(path: str, key: Any) -> str:
    """The path of field ``key`` inside ``path`` (``events[3]`` + ``tool``); the root adds no prefix."""
    return str(key) if path in ("", TOP) else f"{path}.{key}"


# -- field types ---------------------------------------------------------------------------------


@attrs.frozen
class FieldType:
    """A field's type as the schema writes it, and its check."""

    name: str
    check: Callable[[Any], bool]


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, bool, int, float))


def _is_count(value: Any) -> bool:
    return type(value) is int and value >= 0


STRING = FieldType("a string", lambda value: isinstance(value, str))
BOOLEAN = FieldType("true or false", lambda value: isinstance(value, bool))
SCALAR = FieldType("a JSON scalar (string, number, true/false or null)", _is_scalar)
STRING_OR_NULL = FieldType("a string or null", lambda value: value is None or isinstance(value, str))
ANY_JSON = FieldType("any JSON value", lambda value: True)
#: ``type(...) is int``: true and false are not numbers here, although Python's bool is an int.
COUNT = FieldType("a non-negative integer", _is_count)
COUNT_OR_NULL = FieldType("a non-negative integer or null", lambda value: value is None or _is_count(value))
LIST = FieldType("a list", lambda value: isinstance(value, list))
STRING_LIST = FieldType("a list of strings",
                        lambda value: isinstance(value, list) and all(isinstance(item, str) for item in value))


#: An error message lists at most this many of a field's choices (a hook kind has about a thousand).
SHOWN_CHOICES = 12


def one_of(*choices: str) -> FieldType:
    """A string from ``choices``; the error names the first ``SHOWN_CHOICES`` of them and how many there are."""
    allowed = frozenset(choices)
    if len(choices) <= SHOWN_CHOICES:
        described = f"one of {', '.join(choices)}"
    else:
        described = f"one of {len(choices):,} names such as {', '.join(choices[:SHOWN_CHOICES])}"
    return FieldType(described, lambda value: isinstance(value, str) and value in allowed)


#: The default of a field that must be present.
REQUIRED = object()


def check_object(raw: Any, fields: Mapping[str, tuple[FieldType, Any]], where: str, source: str,
                 what: str = "", error: type[JsonFileError] = JsonFileError) -> dict[str, Any]:
    """The fields of object ``raw`` that are present, each type-checked; unknown or missing required ones refused.

    ``what`` names the object in the unknown-field message ("a call event"); ``error`` is the format's own error class.
    """
    if not isinstance(raw, dict):
        raise fail(source, where, f"expected an object, got {show(raw)}", error)
    for key in raw:
        if key not in fields:
            owner = f" for {what}" if what else ""
            raise fail(source, join(where, key), f"unknown field{owner} (known: {', '.join(fields)})", error)
    values: dict[str, Any] = {}
    for field, (field_type, default) in fields.items():
        if field not in raw:
            if default is REQUIRED:
                raise fail(source, join(where, field), "missing", error)
            continue
        value = raw[field]
        if not field_type.check(value):
            raise fail(source, join(where, field), f"expected {field_type.name}, got {show(value)}", error)
        values[field] = value
    return values


# -- decoding one value, with its limits checked first ----------------------------------------------


class _Bad:
    """A number the schema refuses, kept as a marker so that the field holding it can be named."""

    def __init__(self, why: str) -> None:
        self.why = why


class _DuplicateKey(Exception):
    pass


def _parse_int(text: str) -> Any:
    digits = len(text.lstrip("-"))
    if digits > 19:
        return _Bad(f"an integer of {digits} digits (at most 64 bits)")
    value = int(text)
    return value if -MAX_INT - 1 <= value <= MAX_INT else _Bad(f"integer {text} outside 64 bits")


def _parse_float(text: str) -> Any:
    value = float(text)
    return value if math.isfinite(value) else _Bad(f"{text[:20]} is not a finite number")


def _parse_constant(text: str) -> Any:
    return _Bad(f"{text} is not JSON (strict JSON has no NaN or Infinity)")


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return out


_DECODER = json.JSONDecoder(parse_int=_parse_int, parse_float=_parse_float, parse_constant=_parse_constant,
                            object_pairs_hook=_pairs)
#: A string token, or one bracket: what the depth scan walks (brackets inside strings are skipped).
_STRUCTURE = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_SCALAR = re.compile(r'[^\s,\]}:]+')
_WHITESPACE = re.compile(r"[ \t\n\r]*")


def _find_bad(value: Any, where: str) -> tuple[str, str] | None:
    """The path and reason of the first refused number inside ``value``."""
    stack = [(value, where)]
    while stack:
        item, path = stack.pop()
        if isinstance(item, _Bad):
            return path, item.why
        if isinstance(item, dict):
            stack.extend((child, join(path, key)) for key, child in reversed(list(item.items())))
        elif isinstance(item, list):
            stack.extend((child, f"{path}[{index}]") for index, child in reversed(list(enumerate(item))))
    return None


class Reader:
    """A streaming reader over one open file: whitespace, punctuation and one checked value at a time."""

    def __init__(self, fd: int, source: str) -> None:
        self.file = os.fdopen(fd, "rb", buffering=0)
        self.source = source
        self.decoder = codecs.getincrementaldecoder("utf-8")("strict")
        self.buffer = ""
        self.pos = 0
        self.eof = False
        self.consumed = 0  # characters dropped from the front of the buffer
        self.lines = 0  # newlines dropped with them

    def line(self) -> int:
        """The line (from 1) of the current position, for messages."""
        return self.lines + self.buffer.count("\n", 0, self.pos) + 1

    def bad_json(self, where: str, problem: str) -> JsonFileError:
        return fail(self.source, where, f"not JSON at line {self.line()}: {problem}")

    def close(self) -> None:
        self.file.close()

    def fill(self) -> bool:
        """Read one more chunk; False at the end of the file."""
        if self.eof:
            return False
        chunk = self.file.read(CHUNK_BYTES)
        try:
            text = self.decoder.decode(chunk or b"", final=not chunk)
        except UnicodeDecodeError as error:
            raise JsonFileError(printable(f"{self.source}: not UTF-8 text near character {self.consumed + len(self.buffer)}: {error.reason}")) from None
        if not chunk:
            self.eof = True
        if self.pos:
            self.consumed += self.pos
            self.lines += self.buffer.count("\n", 0, self.pos)
            self.buffer = self.buffer[self.pos:]
            self.pos = 0
        self.buffer += text
        return bool(chunk) or bool(text)

    def skip(self) -> str:
        """Skip whitespace; the next character, or "" at the end of the file."""
        while True:
            self.pos = _WHITESPACE.match(self.buffer, self.pos).end()  # type: ignore[union-attr]  # "*": always matches
            if self.pos < len(self.buffer):
                return self.buffer[self.pos]
            if not self.fill():
                return ""

    def expect(self, chars: str, where: str) -> str:
        found = self.skip()
        if not found or found not in chars:
            shown = "the end of the file" if not found else repr(found)
            wanted = " or ".join(repr(c) for c in chars)
            raise self.bad_json(where, f"expected {wanted}, found {shown}")
        self.pos += 1
        return found

    def _end_of_value(self, where: str) -> int:
        """Where the value at ``pos`` ends, reading more as needed; refuses it if too deep or too large."""
        while True:
            buffer, start = self.buffer, self.pos
            first = buffer[start] if start < len(buffer) else ""
            end = None
            if first in ",]}:":
                raise self.bad_json(where, f"expected a value, found {first!r}")
            if first in "[{":
                depth = 0
                last = start
                for match in _STRUCTURE.finditer(buffer, start):
                    if buffer.find('"', last, match.start()) != -1:
                        # A string not closed within the buffer: its brackets are text; read more first.
                        break
                    last = match.end()
                    token = match.group()
                    if token in "[{":
                        depth += 1
                        if depth > MAX_DEPTH:
                            raise fail(self.source, where, f"nested deeper than {MAX_DEPTH} levels")
                    elif token in "]}":
                        depth -= 1
                        if depth == 0:
                            end = match.end()
                            break
            elif first == '"':
                string = _STRING.match(buffer, start)
                end = string.end() if string else None
            else:
                scalar = _SCALAR.match(buffer, start)
                # A number may go on in the next chunk: it ends only before a delimiter or at the end of the file.
                if scalar and (scalar.end() < len(buffer) or self.eof):
                    end = scalar.end()
            if end is not None:
                if end - start > MAX_VALUE_BYTES:
                    raise fail(self.source, where, f"larger than {MAX_VALUE_BYTES:,} characters")
                return end
            if len(buffer) - start > MAX_VALUE_BYTES:
                raise fail(self.source, where, f"larger than {MAX_VALUE_BYTES:,} characters")
            # The read that finds the end of the file returns nothing new, yet ends a number that stood last in
            # the file: look once more before calling the value cut short.
            ended_before = self.eof
            if not self.fill() and ended_before:
                raise self.bad_json(where, "the file ends inside this value")

    def value(self, where: str) -> Any:
        """The next JSON value, checked for depth, size, duplicate keys and refused numbers."""
        if not self.skip():
            raise self.bad_json(where, "the file ends where a value should be")
        end = self._end_of_value(where)
        try:
            value, stop = _DECODER.raw_decode(self.buffer, self.pos)
        except json.JSONDecodeError as error:
            raise self.bad_json(where, f"{error.msg}") from None
        except _DuplicateKey as error:
            raise fail(self.source, where, f"duplicate key {str(error)!r}") from None
        except RecursionError:  # unreachable after the depth scan; kept so that a parser change cannot bring tracebacks back
            raise fail(self.source, where, f"nested deeper than {MAX_DEPTH} levels") from None
        if stop != end:
            raise self.bad_json(where, "unexpected text inside this value")
        self.pos = stop
        bad = _find_bad(value, where)
        if bad is not None:
            raise fail(self.source, bad[0], bad[1])
        return value


# -- opening a file -----------------------------------------------------------------------------------


def open_regular(path: str | Path) -> int:
    """A read-only descriptor of a regular file; anything else is refused before it can block."""
    source = str(path)
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise JsonFileError(f"{printable(source)}: file not found") from None
    except OSError as error:
        raise JsonFileError(f"{printable(source)}: cannot read: {error.strerror}") from None
    if not stat.S_ISREG(info.st_mode):
        kind = ("a directory" if stat.S_ISDIR(info.st_mode) else "a FIFO" if stat.S_ISFIFO(info.st_mode)
                else "a device" if stat.S_ISCHR(info.st_mode) or stat.S_ISBLK(info.st_mode)
                else "a socket" if stat.S_ISSOCK(info.st_mode) else "not a regular file")
        raise JsonFileError(f"{printable(source)}: not a regular file ({kind})")
    try:
        # O_NONBLOCK: if the path became a FIFO since the stat, opening it must not wait for a writer.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as error:
        raise JsonFileError(f"{printable(source)}: cannot read: {error.strerror}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise JsonFileError(f"{printable(source)}: not a regular file")
    return fd


# -- a whole small document ---------------------------------------------------------------------------


def read_json(path: str | Path, error: type[JsonFileError] = JsonFileError) -> Any:
    """The one JSON document in ``path``, every rule above checked; ``error`` (a ``JsonFileError``) otherwise.

    The whole document is one value, so it is at most ``MAX_VALUE_BYTES`` characters and ``MAX_DEPTH``
    deep: the formats read this way (hook sequences, navigation scenarios) are kilobytes.
    """
    source = str(path)
    try:
        reader = Reader(open_regular(path), source)
    except JsonFileError as problem:
        raise error(str(problem)) from None
    try:
        value = reader.value(TOP)
        if reader.skip():
            raise reader.bad_json("(end)", "text after the document")
        return value
    except JsonFileError as problem:
        if type(problem) is error:
            raise
        raise error(str(problem)) from None
    finally:
        reader.close()


def sniff_schema(path: "str | Path") -> "str | None":
    """The string a regular file's top-level ``"schema"`` (or ``"format"``) holds when it is the document's first
    field (as in every file the harness writes); None otherwise, or when the file cannot be read. Only the first field is read, so a
    ``"schema"`` key inside some value is never taken for the file's. As for ``carries_schema``, a sniff: the
    file's own reader still checks it whole."""
    head = _head(path)
    found = _SCHEMA_FIELD.match(head) if head is not None else None
    return found.group(1) if found else None


def _head(path: "str | Path") -> "str | None":
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read(200)
    except OSError:
        return None


#: A document's leading format field: "schema" in most files, "format" in navigation scenarios.
_SCHEMA_FIELD = re.compile(r'\A\s*\{\s*"(?:schema|format)"\s*:\s*"([^"\\]{0,80})"')


def carries_schema(path: "str | Path", schema: str) -> bool:
    """Whether the regular file ``path`` names ``schema`` in its first 200 characters (how replay picks a subject).

    Only a regular file is opened: a FIFO or a device named on the command line must not block the sniff.
    A file this says no to is still read by a subject's own reader, which names what is wrong with it."""
    head = _head(path)
    return head is not None and f'"{schema}"' in head
