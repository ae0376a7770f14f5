"""The hostile corpus: trace files a careless or malicious author could hand to ``python -m properties.replay``.

Every file is generated here (none is checked in), replayed in its own
subprocess with a timeout, and must be refused the same way: exit status 2,
nothing on stdout, exactly one line on stderr naming the file (and, where
the problem is inside the document, the field), no traceback, no hang. A file
accepted with a wrong type would exit 0 or 1 and fail the test as a silent
accept. The count is printed (``pytest -s`` shows it; ``-rA`` too).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from properties.paths import ROOT
from properties.trace import MAX_DEPTH, MAX_VALUE_BYTES, SCHEMA, load_trace, read_trace

pytestmark = [
    pytest.mark.slow,
    # Under mutation the corpus would run once per mutant of guard/, which it does not test.
    pytest.mark.skipif("MUTANT_UNDER_TEST" in os.environ, reason="checks the trace reader, not guard/"),
]

TIMEOUT = 60.0
RESULT = {"event": "result", "call_id": "c1", "tool": "exec", "failed": True}
FLAGS = ("failed", "pending", "discovery", "correctable", "corrected", "empty_lookup")


def doc(events=None, **top) -> dict:
    out = {"schema": SCHEMA, **top}
    out["events"] = [{"event": "round"}] if events is None else events
    return out


def text(value) -> str:
    return json.dumps(value)


def corpus() -> list[tuple[str, bytes | str, str]]:
    """(file name, content, text the error line must contain): content "" with a special name is made below."""
    rows: list[tuple[str, bytes | str, str]] = []

    def add(name: str, content, field: str) -> None:
        rows.append((name, content, field))

    # -- not a trace document at all
    add("empty", "", "(top level)")
    add("whitespace", "  \n\t ", "(top level)")
    add("null", "null", "(top level)")
    add("list", "[]", "(top level)")
    add("number", "42", "(top level)")
    add("string", '"trace"', "(top level)")
    add("open-brace", "{", "")
    add("truncated", text(doc())[:-5], "")
    add("trailing-garbage", text(doc()) + " xyz", "(end)")
    add("two-documents", text(doc()) + text(doc()), "(end)")
    add("trailing-comma", '{"schema": "guard-trace/1", "events": [{"event": "round"},]}', "events[1]")
    add("bad-utf8", b'{"schema": "guard-trace/1", "name": "\xff\xfe", "events": [{"event": "round"}]}', "UTF-8")
    add("utf16", text(doc()).encode("utf-16"), "")
    add("empty-object", "{}", "schema")
    add("single-quotes", "{'schema': 'guard-trace/1'}", "")
    add("key-not-string", '{5: 1}', "(top level)")
    # -- the top level
    add("schema-missing", text({"events": [{"event": "round"}]}), "schema")
    add("schema-wrong", text(doc(schema="guard-trace/0")), "schema")
    add("schema-number", text(doc(schema=1)), "schema")
    add("schema-after-events", '{"events": [{"event": "round"}], "schema": "guard-trace/1"}', "schema")
    for value in (5, None, [], {}, True):
        add(f"name-{type(value).__name__}", text(doc(name=value)), "name")
        add(f"origin-{type(value).__name__}", text(doc(origin=value)), "origin")
    for value in ("nope", 3, None, "hooks", "navigation"):
        add(f"subject-{value}", text(doc(subject=value)), "subject")
    for value in ("b5", "B", 5, "B5; rm -rf", None):
        add(f"invariant-{value!s:.6}", text(doc(invariant=value)), "invariant")
    for value in (-1, "3", 2.5, True, None):
        add(f"step-{value}", text(doc(step=value)), "step")
    add("unknown-top-field", text(doc(extra=1)), "extra")
    add("duplicate-top-key", '{"schema": "guard-trace/1", "name": "a", "name": "b", "events": [{"event": "round"}]}', "name")
    add("field-after-events", '{"schema": "guard-trace/1", "events": [{"event": "round"}], "name": "late"}', "name")
    add("events-missing", text({"schema": SCHEMA}), "events")
    for value in (None, {}, "round", 3):
        add(f"events-{type(value).__name__}", text({"schema": SCHEMA, "events": value}), "events")
    add("events-empty", text(doc(events=[])), "events")
    # -- limits
    add("limits-list", text(doc(limits=[4])), "limits")
    add("limits-unknown", text(doc(limits={"speed": 3})), "limits.speed")
    for value in (0, -4, True, 2.0, "4", None, 10**7, [4]):
        add(f"limits-{value!s:.8}", text(doc(limits={"consecutive_failures": value})), "limits.consecutive_failures")
    add("limits-huge-int", '{"schema": "guard-trace/1", "limits": {"total_failures": ' + "9" * 5000 + '}, "events": [{"event": "round"}]}',
        "limits.total_failures")
    # -- events of every kind
    for value in (1, "round", None, [], True):
        add(f"event-not-object-{type(value).__name__}", text(doc(events=[value])), "events[0]")
    add("event-kind-missing", text(doc(events=[{"label": "x"}])), "events[0].event")
    add("event-kind-unknown", text(doc(events=[{"event": "explode"}])), "events[0].event")
    add("event-kind-number", text(doc(events=[{"event": 1}])), "events[0].event")
    add("event-kind-list", text(doc(events=[{"event": ["round"]}])), "events[0].event")
    for kind in ("round", "stop", "first_call", "result"):
        base = dict(RESULT) if kind == "result" else {"event": kind}
        add(f"{kind}-unknown-field", text(doc(events=[{**base, "colour": "red"}])), "events[0].colour")
        for value in (1, None, [], {}):
            add(f"{kind}-label-{type(value).__name__}", text(doc(events=[{**base, "label": value}])), "events[0].label")
    add("result-without-call-id", text(doc(events=[{"event": "result"}])), "events[0].call_id")
    for value in ([1], {"id": 1}):
        add(f"call-id-{type(value).__name__}", text(doc(events=[{**RESULT, "call_id": value}])), "events[0].call_id")
    for value in (7, None, ["exec"], {"name": "exec"}, True, 1.5):
        add(f"tool-{type(value).__name__}-{value!s:.5}", text(doc(events=[{"event": "round"}, {**RESULT, "tool": value}])),
            "events[1].tool")
    for flag in FLAGS:
        for value in (1, "true", None, [True]):
            add(f"{flag}-{type(value).__name__}", text(doc(events=[{**RESULT, flag: value}])), f"events[0].{flag}")
    for value in (["workspace"], {"lane": "workspace"}):
        add(f"lane-{type(value).__name__}", text(doc(events=[{**RESULT, "lane": value}])), "events[0].lane")
    for value in (3, True, ["kind"]):
        add(f"refusal-{type(value).__name__}", text(doc(events=[{**RESULT, "correctable_refusal": value}])),
            "events[0].correctable_refusal")
    for value in (1, "yes", None):
        add(f"remedy-{type(value).__name__}", text(doc(events=[{"event": "first_call", "remedy": value}])), "events[0].remedy")
    add("duplicate-event-key", '{"schema": "guard-trace/1", "events": [{"event": "result", "call_id": "a", "failed": false, "failed": true}]}',
        "events[0]")
    # -- numbers strict JSON does not have, or that do not fit
    head = '{"schema": "guard-trace/1", "events": [{"event": "round"}, '
    for name, literal in (("nan", "NaN"), ("infinity", "Infinity"), ("minus-infinity", "-Infinity"), ("overflow", "1e999")):
        add(f"params-{name}", head + '{"event": "result", "call_id": "c", "params": {"x": [1, ' + literal + ']}}]}',
            "events[1].params.x[1]")
        add(f"call-id-{name}", head + '{"event": "result", "call_id": ' + literal + "}]}", "events[1].call_id")
        add(f"lane-{name}", head + '{"event": "result", "call_id": "c", "lane": ' + literal + "}]}", "events[1].lane")
    add("params-5000-digits", head + '{"event": "result", "call_id": "c", "params": ' + "7" * 5000 + "}]}", "events[1].params")
    add("call-id-2-to-64", head + '{"event": "result", "call_id": ' + str(2**64) + "}]}", "events[1].call_id")
    add("lane-minus-2-to-70", head + '{"event": "result", "call_id": "c", "lane": -' + str(2**70) + "}]}", "events[1].lane")
    # -- depth and size, refused before json parses them
    for depth in (MAX_DEPTH + 1, 10_000, 100_000):
        add(f"params-lists-{depth}-deep", head + '{"event": "result", "call_id": "c", "params": ' + "[" * depth + "]" * depth + "}]}",
            "events[1]")
        add(f"params-objects-{depth}-deep", head + '{"event": "result", "call_id": "c", "params": ' + '{"a":' * depth + "1" + "}" * depth + "}]}",
            "events[1]")
    add("events-nested-10000", '{"schema": "guard-trace/1", "events": ' + "[" * 10_000 + "]" * 10_000 + "}", "events")
    add("limits-nested-10000", '{"schema": "guard-trace/1", "limits": ' + '{"a":' * 10_000 + "1" + "}" * 10_000 + ', "events": []}',
        "limits")
    add("unclosed-deep", '{"schema": "guard-trace/1", "events": [' + "[" * 50_000, "events[0]")
    add("event-too-large", head + '{"event": "result", "call_id": "c", "params": "' + "x" * (MAX_VALUE_BYTES + 10) + '"}]}',
        "events[1]")
    add("name-too-large", '{"schema": "guard-trace/1", "name": "' + "n" * (MAX_VALUE_BYTES + 10) + '", "events": []}', "name")
    add("unterminated-string", head + '{"event": "result", "call_id": "c' + "x" * 5000, "events[1]")
    return rows


SPECIAL = ("fifo", "directory", "dev-null", "socket", "symlink-to-fifo", "missing")


def materialize(folder: Path) -> list[tuple[Path, str]]:
    files: list[tuple[Path, str]] = []
    for name, content, field in corpus():
        path = folder / f"{name}.json"
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        files.append((path, field))
    fifo = folder / "fifo.json"
    os.mkfifo(fifo)
    files.append((fifo, "FIFO"))
    directory = folder / "directory.json"
    directory.mkdir()
    files.append((directory, "directory"))
    files.append((Path("/dev/null"), "device"))
    sock_path = folder / "socket.json"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(sock_path))
    files.append((sock_path, "socket"))
    link = folder / "symlink-to-fifo.json"
    link.symlink_to(fifo)
    files.append((link, "FIFO"))
    files.append((folder / "missing.json", "not found"))
    return files


def replay_one(path: Path) -> subprocess.CompletedProcess | None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    try:
        return subprocess.run([sys.executable, "-m", "properties.replay", str(path)], cwd=ROOT, env=env,
                              capture_output=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return None


def test_hostile_corpus_is_refused_cleanly(tmp_path: Path) -> None:
    files = materialize(tmp_path)
    names = [path.name for path, _ in files]
    assert len(set(names)) == len(names), "corpus names must be unique"
    assert len(files) >= 100
    with ThreadPoolExecutor(max_workers=4) as pool:
        done = list(pool.map(lambda item: replay_one(item[0]), files))
    hangs, tracebacks, accepted, wrong = [], [], [], []
    for (path, field), result in zip(files, done):
        if result is None:
            hangs.append(path.name)
            continue
        err = result.stderr.decode("utf-8", "replace")
        if "Traceback" in err:
            tracebacks.append(f"{path.name}: {err.strip().splitlines()[-1]}")
        elif result.returncode in (0, 1):
            accepted.append(path.name)
        elif result.returncode != 2 or result.stdout or len(err.splitlines()) != 1 or str(path) not in err or field not in err:
            wrong.append(f"{path.name}: exit {result.returncode}, stderr {err!r:.200}, expected {field!r}")
    print(f"hostile corpus: {len(files)} files, {len(hangs)} hangs, {len(tracebacks)} tracebacks, "
          f"{len(accepted)} silent accepts, {len(wrong)} other failures")
    assert not hangs, hangs
    assert not tracebacks, tracebacks
    assert not accepted, accepted
    assert not wrong, wrong


def test_in_process_reader_refuses_the_same_files(tmp_path: Path) -> None:
    """``load_trace`` raises ``TraceError`` (never another exception) for every regular file of the corpus."""
    from properties.trace import TraceError

    for name, content, field in corpus():
        path = tmp_path / f"{name}.json"
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        with pytest.raises(TraceError) as raised:
            load_trace(path)
        assert field in str(raised.value), (name, str(raised.value))


def test_lone_surrogates_are_kept_and_printed_escaped(tmp_path: Path) -> None:
    """Text that cannot be encoded is not an error of the file: it is replayed and printed as an escape."""
    path = tmp_path / "surrogate.json"
    path.write_text(text(doc(name="odd\ud800name", events=[{**RESULT, "call_id": "c\udfff", "label": "l\ud800", "tool": "t\ud800"}])),
                    encoding="utf-8")
    trace = load_trace(path)
    assert trace.name == "odd\ud800name"
    result = replay_one(path)
    assert result is not None and result.returncode == 0, result
    out = result.stdout.decode("utf-8")
    assert "odd\\ud800name" in out and "l\\ud800" in out
    assert "Traceback" not in result.stderr.decode("utf-8", "replace")


def test_a_fifo_is_refused_without_opening_it(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    from properties.trace import TraceError

    with pytest.raises(TraceError, match="FIFO"):
        read_trace(fifo)
