"""The hostile corpus: trace files a careless or malicious author could hand to ``python -m properties.replay``.

Every file is generated here (none is checked in), replayed in its own
subprocess with a timeout, and must be refused the same way: exit status 2,
nothing on stdout, exactly one line on stderr naming the file (and, where
the problem is inside the document, the field), no traceback, no hang. A file
accepted with a wrong type would exit 0 or 1 and fail the test as a silent
accept. The count is printed (``pytest -s`` shows it; ``-rA`` too).

The hook sequence files (``python -m properties.replay --hooks FILE``) and
navigation scenario files (``python -m properties.replay FILE``) get their
own generated corpora below, under the same rules (``hook_corpus``,
``scenario_corpus``). Against the readers they replaced (a plain
``json.loads``) the hook corpus found 2 hangs, 8 tracebacks and 12 silent
accepts.
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
from properties.budget.trace_file import MAX_DEPTH, MAX_VALUE_BYTES, SCHEMA, load_trace, read_trace

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
    files = _write(folder, corpus())
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



def judge_corpus(label: str, files: list, run) -> None:
    """Run every (file, field) through ``run`` (a subprocess result, or None for a hang) and require each refusal
    to be exit 2, one line on stderr naming the file and the field, nothing on stdout; print the counts."""
    with ThreadPoolExecutor(max_workers=4) as pool:
        done = list(pool.map(lambda item: run(item[0]), files))
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
    print(f"{label}: {len(files)} files, {len(hangs)} hangs, {len(tracebacks)} tracebacks, "
          f"{len(accepted)} silent accepts, {len(wrong)} other failures")
    assert not hangs, hangs
    assert not tracebacks, tracebacks
    assert not accepted, accepted
    assert not wrong, wrong

def test_hostile_corpus_is_refused_cleanly(tmp_path: Path) -> None:
    files = materialize(tmp_path)
    names = [path.name for path, _ in files]
    assert len(set(names)) == len(names), "corpus names must be unique"
    assert len(files) >= 100
    judge_corpus("hostile corpus", files, replay_one)


def test_in_process_reader_refuses_the_same_files(tmp_path: Path) -> None:
    """``load_trace`` raises ``TraceError`` (never another exception) for every regular file of the corpus."""
    from properties.budget.trace_file import TraceError

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
    from properties.budget.trace_file import TraceError

    with pytest.raises(TraceError, match="FIFO"):
        read_trace(fifo)


@pytest.mark.parametrize("subject", ["hooks", "navigation", "lookup"])
def test_a_file_naming_another_subject_without_its_schema_says_which_schema(subject: str, tmp_path: Path) -> None:
    """Replay picks a subject by the schema alone, so such a file reaches the budget's reader; its one line must
    name the schema the file lacks (the registry's), not send the user to the command they just ran."""
    from properties.subject import load

    replay = load(subject).replay
    assert replay is not None
    path = tmp_path / f"{subject}.json"
    path.write_text(json.dumps({"subject": subject, "events": [{"event": "stop"}]}), encoding="utf-8")
    result = replay_one(path)
    assert result is not None
    err = result.stderr.decode("utf-8", "replace").strip()
    assert result.returncode == 2 and not result.stdout, (result.returncode, result.stdout)
    assert err.splitlines() == [err] and str(path) in err and "subject" in err, err
    assert f'"schema": "{replay.schema}"' in err, err


# -- the other subjects' file formats: hook sequences and navigation scenarios ------------------------------
#
# Both are read by ``properties.safe_json`` as trace files are, then typed field by field. Each corpus starts
# from a valid document (accepted: checked below, so a refusal is the hostile change's doing) and breaks one thing.

HOOK_SCHEMA = "guard-hook-sequence/1"
SCENARIO_FORMAT = "navigation-scenario/1"


def _hook_base() -> dict:
    from properties.hooks.shapes import CALL_KINDS

    return {"schema": HOOK_SCHEMA, "name": "h", "invariant": "H5", "playground": True, "strict_stop": False,
            "events": [{"event": "model_call"},
                       {"event": "call", "index": 0, "kind": CALL_KINDS[0], "binding": "bound", "record": True,
                        "order": "after", "capped": True},
                       {"event": "cancel"}, {"event": "router_off"}]}


def _scenario_base() -> dict:
    # "format" first: the replay CLI recognises a scenario by it in the file's first 200 characters.
    return {"format": SCENARIO_FORMAT, "name": "n", "timeout_ms": 60_000, "delegation_timeout_ms": 120_000,
            "messages": [{"at": 1_000, "id": "m1", "role": "assistant", "tool_calls": 1},
                         {"at": 2_000, "id": "m2", "role": "tool", "text": "found", "source_tokens": 40, "source": "s1"},
                         {"at": 3_000, "id": "m3", "role": "assistant", "text": "done"}],
            "bucket": ["s1"], "cancel_at": None, "note": ""}


def _json_level(base: dict, lead: str, field: str, item: str) -> list[tuple[str, bytes | str, str]]:
    """Hostile JSON, whatever the schema: ``lead`` opens the document (its first field), ``field`` is a numeric
    top-level field, ``item`` the list whose first element is an object."""
    rows: list[tuple[str, bytes | str, str]] = []
    good = text(base)
    rows.append(("truncated", good[:-5], "not JSON"))
    rows.append(("open-brace-only", lead.rstrip(", "), "not JSON"))
    rows.append(("trailing-garbage", good + " xyz", "(end)"))
    rows.append(("two-documents", good + good, "(end)"))
    rows.append(("trailing-comma", lead + '"name": "x",}', "not JSON"))
    rows.append(("bad-utf8", (lead + '"name": "').encode() + b"\xff\xfe" + b'"}', "UTF-8"))
    rows.append(("duplicate-top-key", lead + '"name": "a", "name": "b"}', "duplicate key 'name'"))
    inner = json.dumps(base[item][0])[:-1] + ', "zz": 1, "zz": 2}'
    rows.append(("duplicate-inner-key", lead + f'"{item}": [{inner}]}}', "duplicate key 'zz'"))
    for name, literal in (("nan", "NaN"), ("infinity", "Infinity"), ("minus-infinity", "-Infinity"), ("overflow", "1e999"),
                          ("5000-digits", "7" * 5000), ("2-to-64", str(2**64)), ("minus-2-to-70", f"-{2**70}")):
        rows.append((f"{field}-{name}", text({**base, field: 0}).replace(f'"{field}": 0', f'"{field}": {literal}', 1), field))
    for depth in (MAX_DEPTH + 1, 10_000, 100_000):
        rows.append((f"lists-{depth}-deep", lead + f'"{field}": ' + "[" * depth + "]" * depth + "}", "nested deeper"))
        rows.append((f"objects-{depth}-deep", lead + f'"{field}": ' + '{"a":' * depth + "1" + "}" * depth + "}",
                     "nested deeper"))
    rows.append(("unclosed-deep", lead + f'"{item}": ' + "[" * 50_000, "nested deeper"))
    rows.append(("too-large", lead + '"name": "' + "n" * (MAX_VALUE_BYTES + 10) + '"}', "larger than"))
    rows.append(("unterminated-string", lead + '"name": "' + "x" * 5000, "not JSON"))
    return rows


def hook_corpus() -> list[tuple[str, bytes | str, str]]:
    """Hostile hook sequence files: (file name, content, text the error line must contain)."""
    base = _hook_base()
    rows = [(f"json-{name}", content, want)
            for name, content, want in _json_level(base, '{"schema": "guard-hook-sequence/1", ', "playground", "events")]
    rows += [("empty", "", "(top level)"), ("null", "null", "(top level)"), ("list", "[]", "(top level)"),
             ("utf16", text(base).encode("utf-16"), "UTF-8"), ("single-quotes", "{'schema': 'x'}", "not JSON"),
             ("a-budget-trace", text(doc()), "schema"), ("schema-missing", text({k: v for k, v in base.items() if k != "schema"}), "schema"),
             ("events-missing", text({k: v for k, v in base.items() if k != "events"}), "events"),
             ("unknown-top-field", text({**base, "strictstop": True}), "strictstop")]
    top = {"schema": ["guard-hook-sequence/0", 1, None], "name": [5, None, ["h"]], "invariant": [5, "h5", "H5; rm"],
           "playground": [1, "true", None], "strict_stop": [0, "false", None], "events": [None, {}, "model_call", 3]}
    for key, wrong in top.items():
        for value in wrong:
            rows.append((f"top-{key}-{type(value).__name__}-{str(value)[:6]}", text({**base, key: value}), key))
    call = base["events"][1]
    events = {"index": [-1, 1.5, True, "0", None, 2**63], "kind": [None, 3, "no-such-kind"],
              "binding": [None, 1, "unbound"], "record": [1, "yes", None], "order": ["before", 0, None],
              "capped": [0, "no", None], "colour": ["red"]}
    for key, wrong in events.items():
        for value in wrong:
            changed = {**call, key: value}
            rows.append((f"call-{key}-{type(value).__name__}-{str(value)[:6]}",
                         text({**base, "events": [{"event": "model_call"}, changed]}), f"events[1].{key}"))
    rows += [("call-index-missing", text({**base, "events": [{k: v for k, v in call.items() if k != "index"}]}), "events[0].index"),
             ("call-kind-missing", text({**base, "events": [{k: v for k, v in call.items() if k != "kind"}]}), "events[0].kind"),
             ("event-kind-missing", text({**base, "events": [{"index": 0}]}), "events[0].event"),
             ("event-kind-unknown", text({**base, "events": [{"event": "explode"}]}), "events[0].event"),
             ("event-kind-number", text({**base, "events": [{"event": 1}]}), "events[0].event"),
             ("simple-event-with-field", text({**base, "events": [{"event": "cancel", "index": 0}]}), "events[0].index")]
    for value in (1, "cancel", None, [], True):
        rows.append((f"event-not-object-{type(value).__name__}", text({**base, "events": [value]}), "events[0]"))
    return rows


def scenario_corpus() -> list[tuple[str, bytes | str, str]]:
    """Hostile navigation scenario files; each names its format first, so the replay CLI hands it to the scenario reader."""
    base = _scenario_base()
    lead = '{"format": "navigation-scenario/1", '
    rows = [(f"json-{name}", content, want) for name, content, want in _json_level(base, lead, "timeout_ms", "messages")]
    rows += [("list", '["navigation-scenario/1"]', "(top level)"), ("string", '"navigation-scenario/1"', "(top level)"),
             ("format-wrong", text(base).replace(SCENARIO_FORMAT, "navigation-scenario/0", 1)
              .replace('"name": "n"', '"name": "navigation-scenario/1"'), "format"),
             ("format-missing", '{"name": "navigation-scenario/1", "timeout_ms": 1, "delegation_timeout_ms": 1, "messages": []}',
              "format"),
             ("unknown-top-field", text({**base, "cancelat": 5}), "cancelat")]
    for key in ("name", "timeout_ms", "delegation_timeout_ms", "messages"):
        rows.append((f"missing-{key}", text({k: v for k, v in base.items() if k != key}), key))
    counts = [-1, 1.5, True, "60", None]
    top = {"name": [5, None, ["n"]], "timeout_ms": counts, "delegation_timeout_ms": counts, "teardown_ms": counts,
           "completion_ms": counts, "grant_tokens": counts, "output_tokens": counts, "cancel_at": [-1, 2.5, False, "3"],
           "bucket": ["s1", [1], {"s1": 1}, None], "model": [7, None], "summary_thinking": [1, "yes", None],
           "delete_fails": [0, None], "revoke_fails": ["true"], "policy_rejects": [1], "completion_reply": [{"answer": "x"}, None],
           "note": [1], "messages": [None, {}, "m1"]}
    for key, wrong in top.items():
        for value in wrong:
            rows.append((f"top-{key}-{type(value).__name__}-{str(value)[:6]}", text({**base, key: value}), key))
    message = base["messages"][1]
    fields = {"at": [-1, 1.5, True, "1000", None], "id": [1, None], "role": ["system", None, 1], "text": [None, 3],
              "tool_calls": [-1, True, "1"], "is_error": [1, "no"], "source_tokens": [-5, 4.5, "40"],
              "manifest": [0, None], "source": [None, 1], "tool": [False], "colour": ["red"]}
    for key, wrong in fields.items():
        for value in wrong:
            changed = {**message, key: value}
            rows.append((f"message-{key}-{type(value).__name__}-{str(value)[:6]}",
                         text({**base, "messages": [base["messages"][0], changed]}), f"messages[1].{key}"))
    for key in ("at", "id", "role"):
        rows.append((f"message-missing-{key}", text({**base, "messages": [{k: v for k, v in message.items() if k != key}]}),
                     f"messages[0].{key}"))
    for value in (1, "m1", None, [], True):
        rows.append((f"message-not-object-{type(value).__name__}", text({**base, "messages": [value]}), "messages[0]"))
    return rows


FORMATS = {
    # format name -> (corpus, the valid base, CLI arguments before the file, in-process loader)
    "hooks": (hook_corpus, _hook_base, ["--hooks"]),
    "navigation": (scenario_corpus, _scenario_base, []),
}


def _loader(fmt: str):
    if fmt == "hooks":
        from properties.hooks.trace_file import load
    else:
        from properties.navigation.trace_file import load
    return load


def run_cli(args: list[str], path: Path) -> subprocess.CompletedProcess | None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    try:
        return subprocess.run([sys.executable, "-m", "properties.replay", *args, str(path)], cwd=ROOT, env=env,
                              capture_output=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return None


def _write(folder: Path, rows) -> list[tuple[Path, str]]:
    files = []
    for name, content, field in rows:
        path = folder / f"{name}.json"
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        files.append((path, field))
    return files


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_the_valid_base_document_is_accepted(fmt: str, tmp_path: Path) -> None:
    """Each hostile file changes one thing in this document, so it must itself replay (exit 0 or 1)."""
    corpus_of, base, args = FORMATS[fmt]
    path = tmp_path / "base.json"
    path.write_text(text(base()), encoding="utf-8")
    result = run_cli(args, path)
    assert result is not None and result.returncode in (0, 1), result
    assert "Traceback" not in result.stderr.decode("utf-8", "replace")
    _loader(fmt)(path)


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_hostile_files_of_every_format_are_refused_cleanly(fmt: str, tmp_path: Path) -> None:
    corpus_of, _base, args = FORMATS[fmt]
    rows = corpus_of()
    names = [name for name, _, _ in rows]
    assert len(set(names)) == len(names), [name for name in names if names.count(name) > 1]
    files = _write(tmp_path, rows)
    if fmt == "navigation":
        from properties.navigation.replay import is_scenario_file

        # Otherwise the file would test the trace reader again, not the scenario reader.
        assert all(is_scenario_file(path) for path, _ in files), [p.name for p, _ in files if not is_scenario_file(p)]
    special = tmp_path / "special"
    special.mkdir()
    files += [(path, field) for path, field in materialize_special(special)]
    assert len(files) >= 40
    judge_corpus(f"hostile {fmt} corpus", files, lambda path: run_cli(args, path))


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_in_process_loaders_refuse_the_same_files(fmt: str, tmp_path: Path) -> None:
    """Each loader raises its one-line error (a ``TraceError``; ``ScenarioError`` is one) and never another exception."""
    from properties.budget.trace_file import TraceError

    load = _loader(fmt)
    corpus_of = FORMATS[fmt][0]
    for path, field in _write(tmp_path, corpus_of()):
        with pytest.raises(TraceError) as raised:
            load(path)
        message = str(raised.value)
        assert field in message and str(path) in message and "\n" not in message, (path.name, message)


def materialize_special(folder: Path) -> list[tuple[Path, str]]:
    """Paths that are not regular files, and one that does not exist."""
    fifo = folder / "fifo.json"
    os.mkfifo(fifo)
    directory = folder / "directory.json"
    directory.mkdir()
    sock_path = folder / "socket.json"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(sock_path))
    link = folder / "symlink-to-fifo.json"
    link.symlink_to(fifo)
    return [(fifo, "FIFO"), (directory, "directory"), (Path("/dev/null"), "device"), (sock_path, "socket"),
            (link, "FIFO"), (folder / "missing.json", "not found")]
