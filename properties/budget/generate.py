"""Seeded bulk traces: many long random traces, drawn in bulk with numpy (the bulk driver checks them, ``bulk.py``).

Each *family* is a mixture of event kinds and flags aimed at one corner of
``shared/spec/budget.md`` (deferrals at the fuse, refusal grants, empty
lookups, the total cap at consecutive 3, the rounds cap, the seen-calls and
successes memories). Within a family every trace draws its own feature
weights (swarm testing), so some traces are dense in one flag and free of
another. A run is cut into slices of ``SLICE`` traces; slice ``k`` of a run
with seed ``s`` draws everything from ``numpy.random.default_rng([s, k])``,
one array per random choice for the whole batch, so slices are independent
and can run in any process in any order with the same result. Plain Python
loops then turn rows into events; ``properties.budget.bulk`` hands them to
``Monitor.step``. Nothing here checks an invariant.

Families (``SHARES`` per 100 traces, ``LENGTHS`` in steps): ``mixed``
(everything), ``fuse`` (streaks on one counter, correctable failures,
corrected successes: deferrals and rescues), ``cycles`` (fuse, wait,
passing correction, again: the third charge that could wait),
``refusal`` (global trips with refusal kinds and first calls),
``edges`` (scripted scenes at the refusal rule's edges: a waiting lane
charge landing with a refusal, declined and repeated first calls, stop() or
the rounds cap with a grant pending), ``lookups`` (mostly empty lookups
with successes: the 13th lookup), ``lookup-only`` (only empty lookups and
rounds: B11's round-9 stop), ``idle`` (rounds, identical, pending and
discovery successes: the rounds cap), ``total-cap`` (failures spread over
lanes, then three global ones: the total cap at consecutive 3) and
``memory`` (560-step open runs whose ids and fingerprints return just
around the 256 and 128 memories' edges).

The copies use each budget's *own* default limits: production ``Limits()``
and the reference ``ReferenceLimits()``, while the monitor judges against
``SPEC_LIMITS``, the numbers written in ``budget.md``. That is what lets a
run notice a wrong default in ``guard/limits.py`` (the rule catalogue's
"each limit one lower and one higher"): with one shared value the oracle
would inherit the mistake.
"""

from __future__ import annotations

from typing import Any, Iterator, Sequence

import attrs
import numpy as np

from properties.budget.copies import SPEC_LIMITS
from properties.budget.events import Event, FirstCall, Result, Round, Stop
from properties.names import LANE_VALUES, REFUSAL_KINDS as KINDS


TOOLS = ("read", "exec", "write", "tool_search", "tool_describe", "pixel_ods_skill")
#: A small palette so that identical successes recur; pairs differ only in key order, or only in params. One path
#: is not ASCII: budget.md's fingerprint is canonical JSON, which keeps such text as it is (B1 compares memories).
PARAMS: tuple[Any, ...] = (
    None,
    {"path": "a"},
    {"path": "bé/ü"},
    {"a": 1, "b": 2},
    {"b": 2, "a": 1},
    {"o": {"x": 1, "y": [1, 2]}},
    {"o": {"y": [1, 2], "x": 1}},
    ["list", 1],
)
BAD_IDS: tuple[Any, ...] = ("", None, 5)

ROUND = Round()
STOP = Stop()
REMEDY = FirstCall(remedy=True)
NO_REMEDY = FirstCall(remedy=False)


# -- families ------------------------------------------------------------------


@attrs.frozen
class Mix:
    """Per-step probabilities of a generic family; each trace scales them by its own swarm weights."""

    round: float = 0.15
    first_call: float = 0.03
    stop: float = 0.004
    fail_after_fail: float = 0.6
    fail_after_ok: float = 0.35
    #: Weights of None, workspace, extension, "fake-lane", 7.
    lanes: tuple[float, ...] = (0.4, 0.22, 0.22, 0.1, 0.06)
    sticky_lane: float = 0.6
    correctable: float = 0.4
    corrected: float = 0.4
    refusal: float = 0.3
    empty_lookup: float = 0.15
    pending: float = 0.05
    discovery: float = 0.08
    duplicate: float = 0.06
    bad_id: float = 0.02
    remedy: float = 0.6
    first_call_after_fail: float = 0.2
    #: Probability that a success reuses the palette (identical successes) rather than a fresh fingerprint.
    palette: float = 0.6


FAMILIES: dict[str, Mix] = {
    "mixed": Mix(),
    "fuse": Mix(round=0.08, first_call=0.01, fail_after_fail=0.75, fail_after_ok=0.5, sticky_lane=0.85,
                correctable=0.7, corrected=0.65, refusal=0.05, empty_lookup=0.03, palette=0.2,
                first_call_after_fail=0.02),
    "refusal": Mix(round=0.06, first_call=0.02, fail_after_fail=0.8, fail_after_ok=0.45,
                   lanes=(0.85, 0.05, 0.05, 0.03, 0.02), sticky_lane=0.3, correctable=0.25, corrected=0.3,
                   refusal=0.8, empty_lookup=0.03, first_call_after_fail=0.45, remedy=0.75, palette=0.2),
    "lookups": Mix(round=0.12, first_call=0.01, fail_after_fail=0.75, fail_after_ok=0.7, correctable=0.15,
                   refusal=0.05, empty_lookup=0.85, palette=0.05, first_call_after_fail=0.02),
    "idle": Mix(round=0.45, first_call=0.01, fail_after_fail=0.3, fail_after_ok=0.15, correctable=0.2,
                refusal=0.1, empty_lookup=0.2, pending=0.15, discovery=0.2, palette=0.85,
                first_call_after_fail=0.05),
}

#: Traces per family for every 100 traces of a batch, and each family's length in steps.
SHARES = {"edges": 4, "cycles": 8, "memory": 1, "total-cap": 6, "lookup-only": 6, "lookups": 10, "refusal": 12, "fuse": 18, "idle": 10, "mixed": 25}
LENGTHS = {"mixed": 90, "fuse": 90, "cycles": 40, "refusal": 80, "edges": 80, "lookups": 90, "lookup-only": 40, "idle": 70, "total-cap": 40, "memory": 560}


def _swarm(rng: np.random.Generator, count: int, mix: Mix) -> dict[str, np.ndarray]:
    """Per-trace probabilities: each feature is scaled by a factor in [0, 2) and switched off one time in five."""
    out: dict[str, np.ndarray] = {}
    for field in attrs.fields(Mix):
        value = getattr(mix, field.name)
        if field.name == "lanes":
            weights = rng.dirichlet(np.asarray(value) * 4.0 + 0.05, size=count)
            out["lanes"] = np.cumsum(weights, axis=1)
            continue
        scale = rng.uniform(0.0, 2.0, size=count) * (rng.random(count) >= 0.2)
        if field.name in ("fail_after_fail", "fail_after_ok", "sticky_lane", "remedy", "palette"):
            scale = rng.uniform(0.6, 1.4, size=count)
        out[field.name] = np.clip(value * scale, 0.0, 0.97)
    return out


def _generic(rng: np.random.Generator, count: int, length: int, mix: Mix, family: str) -> Iterator[list[Event]]:
    weights = _swarm(rng, count, mix)
    # One array per random choice, drawn at once for the whole batch.
    u = rng.random((count, length, 14))
    lane_cdf = weights.pop("lanes")
    lane_index = np.minimum((rng.random((count, length, 1)) * lane_cdf[:, None, -1:] > lane_cdf[:, None, :]).sum(axis=2), 4)
    palette_index = rng.integers(0, len(PARAMS), size=(count, length))
    tool_index = rng.integers(0, 3, size=(count, length))
    discovery_tool = rng.integers(3, len(TOOLS), size=(count, length))
    back = rng.geometric(0.15, size=(count, length))
    kind_pick = rng.integers(0, len(KINDS), size=(count, length))
    bad_pick = rng.integers(0, len(BAD_IDS), size=(count, length))
    for t in range(count):
        w = {name: float(value[t]) for name, value in weights.items()}
        # Python floats and ints from here on: a numpy bool is not ``True`` to the budget's ``is True`` tests.
        rows, lanes, palette, tools = u[t].tolist(), lane_index[t].tolist(), palette_index[t].tolist(), tool_index[t].tolist()
        discovery_tools, backs, kinds, bads = discovery_tool[t].tolist(), back[t].tolist(), kind_pick[t].tolist(), bad_pick[t].tolist()
        events: list[Event] = []
        failed_last = False
        lane: Any = None
        fresh = 0
        for s in range(length):
            # One uniform roll per decision of this step, by what it decides (the columns of ``u``).
            (kind_roll, fail_roll, lane_roll, bad_id_roll, duplicate_roll, correctable_roll, corrected_roll,
             refusal_roll, lookup_roll, discovery_roll, pending_roll, palette_roll, remedy_roll, after_fail_roll) = rows[s]
            if failed_last and after_fail_roll < w["first_call_after_fail"]:
                events.append(REMEDY if remedy_roll < w["remedy"] else NO_REMEDY)
                failed_last = False
                continue
            if kind_roll < w["round"]:
                events.append(ROUND)
                continue
            if kind_roll < w["round"] + w["first_call"]:
                events.append(REMEDY if remedy_roll < w["remedy"] else NO_REMEDY)
                continue
            if kind_roll < w["round"] + w["first_call"] + w["stop"]:
                events.append(STOP)
                continue
            failed = fail_roll < (w["fail_after_fail"] if failed_last else w["fail_after_ok"])
            if lane_roll >= w["sticky_lane"] or s == 0:
                lane = LANE_VALUES[lanes[s]]
            if bad_id_roll < w["bad_id"]:
                call_id: Any = BAD_IDS[bads[s]]
            elif duplicate_roll < w["duplicate"] and fresh:
                call_id = f"c{max(0, fresh - backs[s])}"
            else:
                call_id = f"c{fresh}"
                fresh += 1
            if failed:
                refusal: Any = KINDS[kinds[s]] if refusal_roll < w["refusal"] else None
                if refusal is None and refusal_roll > 1 - w["refusal"] * 0.1:
                    # Now and then the empty text, which budget.md counts as no kind at all (a non-empty string only);
                    # drawn where no kind would be, so that every trace keeps the length and the kinds it had.
                    refusal = ""
                events.append(Result(
                    call_id, TOOLS[tools[s]], PARAMS[palette[s]], True,
                    lane=lane, correctable=correctable_roll < w["correctable"],
                    # A stray corrected flag on a failure must change nothing.
                    corrected=corrected_roll < w["corrected"] * 0.1,
                    correctable_refusal=refusal, empty_lookup=lookup_roll < w["empty_lookup"],
                ))
            else:
                discovery = discovery_roll < w["discovery"]
                # The same roll picks a discovery tool's name and whether the success is a running process.
                tool = TOOLS[discovery_tools[s]] if discovery and pending_roll < 0.5 else TOOLS[tools[s]]
                params = PARAMS[palette[s]] if palette_roll < w["palette"] else {"n": fresh, "t": t}
                events.append(Result(
                    call_id, tool, params, False, pending=pending_roll < w["pending"],
                    discovery=discovery and tool in ("read", "exec", "write"), lane=lane,
                    correctable=correctable_roll < w["correctable"] * 0.1, corrected=corrected_roll < w["corrected"],
                    empty_lookup=lookup_roll < w["empty_lookup"] * 0.1,
                ))
            failed_last = failed
        yield events


def _lookup_only(rng: np.random.Generator, count: int, length: int) -> Iterator[list[Event]]:
    """Only empty lookups and model rounds: B11's lookup-only run that must stop at round 9."""
    is_round = rng.random((count, length)) < rng.uniform(0.35, 0.75, size=(count, 1))
    lanes = rng.integers(0, len(LANE_VALUES), size=(count, length))
    for t in range(count):
        yield [
            ROUND if is_round[t, s] else Result(f"l{s}", "exec", {"q": int(lanes[t, s])}, True, lane=LANE_VALUES[lanes[t, s]], empty_lookup=True)
            for s in range(length)
        ]


def _total_cap(rng: np.random.Generator, count: int, length: int) -> Iterator[list[Event]]:
    """Failures spread over lanes (with lane resets), then three global failures and one more: the total cap at consecutive 3."""
    early = rng.integers(5, 10, size=count)
    lane_pick = rng.integers(1, 3, size=(count, length))
    reset = rng.random((count, length)) < 0.35
    tail_lane = rng.integers(0, 3, size=(count, length))
    correctable = rng.random((count, length)) < rng.uniform(0.0, 0.5, size=(count, 1))
    rounds = rng.random((count, length)) < 0.1
    for t in range(count):
        events: list[Event] = []
        n = 0
        failures = 0
        lane_counts = {"workspace": 0, "extension": 0}
        s = 0
        while failures < early[t] and s < length:
            lane = LANE_VALUES[lane_pick[t, s]]
            if rounds[t, s]:
                events.append(ROUND)
            elif reset[t, s] or lane_counts[lane] >= 2:
                events.append(Result(f"t{n}", "write", {"n": n}, False, lane=lane))
                lane_counts[lane] = 0
                n += 1
            else:
                events.append(Result(f"t{n}", "exec", None, True, lane=lane, correctable=bool(correctable[t, s])))
                lane_counts[lane] += 1
                failures += 1
                n += 1
            s += 1
        for _ in range(3):
            events.append(Result(f"t{n}", "exec", None, True))
            n += 1
        while len(events) < length:
            lane = LANE_VALUES[tail_lane[t, len(events) % length]]
            events.append(Result(f"t{n}", "exec", None, True, lane=lane, correctable=bool(correctable[t, len(events) % length])))
            n += 1
        yield events


def _memory(rng: np.random.Generator, count: int, length: int) -> Iterator[list[Event]]:
    """Long open runs whose ids and fingerprints come back just around the edges of the 256 and 128 memories.

    Every new fingerprint is seen twice at once, so a third sighting resets the rounds only if the
    memory forgot it; every returning id or fingerprint follows a model round, so that whether the
    receipt was counted shows in the rounds (or, for a returning failed id, in the total). The
    generator keeps the order in which the reference's memories hold ids and fingerprints (an
    evicted one that returns is remembered anew, as the newest), so that "n newer entries" below
    is exact for the reference and a memory one entry shorter or longer disagrees with it.
    """
    u = rng.random((count, length, 4)).tolist()
    id_back = rng.integers(254, 259, size=(count, length)).tolist()
    print_back = rng.integers(127, 132, size=(count, length)).tolist()
    seen_cap, success_cap = SPEC_LIMITS.seen_calls, SPEC_LIMITS.successes
    for t in range(count):
        events: list[Event] = []
        ids: list[str] = []
        prints: list[Any] = []
        made = 0
        since_progress = 0
        failures = 0

        def fresh_id() -> str:
            nonlocal made
            made += 1
            ids.append(f"m{made}")
            return ids[-1]

        def succeed_twice(call_id: str) -> None:
            params = {"n": len(events), "t": t}
            prints.append(params)
            events.append(Result(call_id, "read", params, False))
            events.append(Result(fresh_id(), "read", params, False))

        for s in range(length):
            if len(events) >= length:
                break
            round_roll, return_id_roll, failure_roll, return_print_roll = u[t][s]
            if round_roll < 0.2 and since_progress < 6:
                events.append(ROUND)
                since_progress += 1
                continue
            since_progress = 0
            if return_id_roll < 0.15 and len(ids) > seen_cap + 4:
                back = id_back[t][s]
                call_id = ids[-back]
                if back - 1 >= seen_cap:
                    # The reference forgot it and will record it again as its newest id.
                    ids.remove(call_id)
                    ids.append(call_id)
                events.append(ROUND)
                if failure_roll < 0.4 and failures < 9:
                    events.append(Result(call_id, "exec", None, True))
                    failures += 1
                    succeed_twice(fresh_id())
                else:
                    succeed_twice(call_id)
                continue
            if return_print_roll < 0.2 and len(prints) > success_cap + 4:
                back = print_back[t][s]
                params = prints[-back]
                if back - 1 >= success_cap:
                    prints.remove(params)
                    prints.append(params)
                events.append(ROUND)
                events.append(Result(fresh_id(), "read", params, False))
                continue
            succeed_twice(fresh_id())
        yield events


def _cycles(rng: np.random.Generator, count: int, length: int) -> Iterator[list[Event]]:
    """Fuse, wait, resolve, again: three failures on one counter, a correctable fourth, then mostly a passing correction.

    Reaches the third charge that could wait (two rescued before it), which only a run of rescues gets to.
    """
    counters = rng.integers(0, 3, size=(count, length)).tolist()
    u = rng.random((count, length, 6)).tolist()
    kinds = rng.integers(0, len(KINDS), size=(count, length)).tolist()
    other = rng.integers(0, len(LANE_VALUES), size=(count, length)).tolist()
    for t in range(count):
        events: list[Event] = []
        n = 0
        c = 0
        while len(events) < length:
            *early_rolls, refusal_roll, discovery_roll, resolve_roll = u[t][c]
            lane = LANE_VALUES[counters[t][c]]
            for early_roll in early_rolls:
                events.append(Result(f"y{n}", "exec", None, True, lane=lane, correctable=early_roll < 0.3))
                n += 1
            refusal = KINDS[kinds[t][c]] if lane is None and refusal_roll < 0.3 else None
            events.append(Result(f"y{n}", "exec", None, True, lane=lane, correctable=True, correctable_refusal=refusal))
            n += 1
            if discovery_roll < 0.1:
                events.append(Result(f"y{n}", "tool_search", None, False, lane=lane))
                n += 1
                events.append(ROUND)
            fix_lane = lane if lane is not None else LANE_VALUES[other[t][c]]
            if resolve_roll < 0.72:
                events.append(Result(f"y{n}", "inspect", {"c": c}, False, lane=fix_lane, corrected=True))
            elif resolve_roll < 0.82:
                events.append(Result(f"y{n}", "inspect", {"c": c}, False, lane=LANE_VALUES[other[t][c]], corrected=True))
            elif resolve_roll < 0.92:
                events.append(Result(f"y{n}", "read", {"c": c}, False, lane=fix_lane))
            else:
                events.append(REMEDY if refusal else Result(f"y{n}", "exec", None, True, lane=fix_lane))
            n += 1
            c += 1
        yield events


def _edges(rng: np.random.Generator, count: int, length: int) -> Iterator[list[Event]]:
    """Short scripted scenes at the refusal rule's edges, in random order and with random lanes and kinds."""
    scene_pick = rng.integers(0, 5, size=(count, 4)).tolist()
    lane_pick = rng.integers(1, 3, size=(count, 4)).tolist()
    kind_pick = rng.integers(0, len(KINDS), size=(count, 4)).tolist()
    flip = rng.random((count, 4, 4)).tolist()
    for t in range(count):
        events: list[Event] = []
        n = 0

        def fail(lane: Any = None, **flags: Any) -> None:
            nonlocal n
            events.append(Result(f"e{n}", "exec", None, True, lane=lane, **flags))
            n += 1

        for k in range(4):
            a = LANE_VALUES[lane_pick[t][k]]
            b = "extension" if a == "workspace" else "workspace"
            kind = KINDS[kind_pick[t][k]]
            other_kind = KINDS[1 - kind_pick[t][k]]
            # The first roll also decides whether the scene ends with a success in its lane.
            decline_roll, first_correctable_roll, second_correctable_roll, third_correctable_roll = flip[t][k]
            scene = scene_pick[t][k]
            if scene == 0:
                # A waiting lane charge lands with a global refusal and exhausts the second lane: no grant.
                for _ in range(4):
                    fail(a)
                for _ in range(3):
                    fail(b)
                fail(b, correctable=True)
                fail(None, correctable_refusal=kind)
                events.append(REMEDY)
            elif scene == 1:
                # Trip, decline, then a remedy: the declined first call spent the grant.
                for _ in range(4):
                    fail(None, correctable_refusal=kind)
                events.append(NO_REMEDY if decline_roll < 0.8 else STOP)
                events.append(REMEDY)
                fail(None, correctable_refusal=other_kind)
                events.append(REMEDY)
            elif scene == 2:
                # Trip, admitted, then failures straight away: each stops the run at once.
                for _ in range(4):
                    fail(None, correctable=first_correctable_roll < 0.5, correctable_refusal=kind)
                events.append(REMEDY)
                fail(None, correctable=second_correctable_roll < 0.5, correctable_refusal=other_kind)
                events.append(REMEDY)
                fail(None, correctable=third_correctable_roll < 0.5, correctable_refusal=kind)
                events.append(REMEDY)
            elif scene == 3:
                # Stopped by another guard with a grant pending, then a remedy.
                for _ in range(4):
                    fail(None, correctable_refusal=kind)
                events.append(STOP)
                events.append(REMEDY)
            else:
                # Rounds run out while a grant is pending.
                for _ in range(4):
                    fail(None, correctable_refusal=kind)
                events.extend([ROUND] * 9)
                events.append(REMEDY)
            if decline_roll < 0.5:
                events.append(Result(f"e{n}", "write", {"n": n}, False, lane=a))
                n += 1
        yield events[:length]


#: Traces per slice. Each slice has its own generator (seeded by the run's seed and the slice number) and a
#: share of every family, so that a short run already sees every family and slices can run in any process.
SLICE = 300


def slice_counts(traces: int) -> list[int]:
    return [min(SLICE, traces - start) for start in range(0, traces, SLICE)]


def _family_counts(size: int, families: Sequence[str] | None) -> dict[str, int]:
    chosen = [name for name in SHARES if families is None or name in families]
    total_share = sum(SHARES[name] for name in chosen)
    counts = {name: max(1, size * SHARES[name] // total_share) for name in chosen}
    if "memory" in counts and len(chosen) > 1:
        # Long and slow (every step fingerprints a success in seven copies); one a slice reaches both memories' edges.
        counts["memory"] = 1
    return counts


def slice_traces(seed: int, number: int, size: int, families: Sequence[str] | None = None) -> Iterator[tuple[str, list[Event]]]:
    """The traces of slice ``number`` of a run with ``seed``: deterministic, independent of other slices."""
    rng = np.random.default_rng([seed, number])
    for name, n in _family_counts(size, families).items():
        length = LENGTHS[name]
        if name in FAMILIES:
            batch = _generic(rng, n, length, FAMILIES[name], name)
        elif name == "lookup-only":
            batch = _lookup_only(rng, n, length)
        elif name == "total-cap":
            batch = _total_cap(rng, n, length)
        elif name == "cycles":
            batch = _cycles(rng, n, length)
        elif name == "edges":
            batch = _edges(rng, n, length)
        else:
            batch = _memory(rng, n, length)
        for events in batch:
            yield name, events


def traces_for(seed: int, count: int, families: Sequence[str] | None = None) -> Iterator[tuple[str, list[Event]]]:
    """About ``count`` traces (every family gets at least one a slice), slice after slice."""
    for number, size in enumerate(slice_counts(count)):
        yield from slice_traces(seed, number, size, families)


def materialize(seed: int, traces: int, families: Sequence[str] | None = None) -> list[list[Event]]:
    """The events of a batch, built once (for the benchmark's stepping-only comparison)."""
    return [events for _family, events in traces_for(seed, traces, families)]
