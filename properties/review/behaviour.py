"""Part 2 of the review (its bulk half): the guard at BASE and at HEAD driven by the same seeded work, per subject.

Each subject whose behaviour is compared names a side module in its
``SUBJECT`` (``Subject.review``; ``properties.review_sides`` says what one
holds), found through the registry (``compared``, ``side``): the budget's
(every observable of the production budget per event), the hook path's (what
the host receives per hook event) and navigation's (the outcome per
scenario); a subject that names none is listed as not compared. A side module
names its ``OBSERVABLES``, draws the subject's seeded bulk work (``bulk``: the
very traces, sequences and scenarios ``python -m properties --seed S``
checks), plays one item against one ``guard/`` (``rows_of``: one row of observables per
step; ``run_side`` writes a header line, then one JSON line of rows per item),
and saves, loads and prints one item.

Each side runs in its own interpreter whose ``guard`` package is that side's
(``side_environment``: a folder holding only a ``guard`` link comes first on
``PYTHONPATH``, HEAD's checkout second, so both sides share HEAD's generators
and differ only in ``guard/``).

The comparison runs in two passes, so that what both sides share costs only
a hash. First each side writes one line per item: its number of steps and one
hash of all its rows (``run_summaries``); the main process compares the two
streams item by item (``compare_summaries``), and an item whose lines are
equal is alike on both sides, every step of it. Only the items whose lines
differ are played again, by both sides (``--items``), each now writing its
rows step by step (long values hashed, ``run_side``), and compared step by
step (``add_details``). So a change that keeps behaviour costs one pass
without per-step output, and a change that alters it costs a second pass over
the items it alters. Choice: the first pass's hash is of the rows' JSON text,
stricter than the second pass's equality of decoded values (``true`` and
``1`` differ as text); an item the text calls different and the values call
equal is counted as alike, exactly as one pass of values would count it.

An item *distinguishes* the sides at its first step where an observable
differs; for each observable the review keeps the item whose first difference
comes soonest (shortest prefix, ties to the earlier item) and saves that
prefix (``origin`` names BASE, HEAD, the seed and the item), which ``python
-m properties.review --show FILE`` and ``nox -s replay -- FILE`` show BASE
beside HEAD.

The exhaustive half is ``properties.review.product`` (run by
``properties.review.exhaustive``); its saved traces replay here too, with
the limits their scope names (the budget side's ``rows_of_file``).
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, Iterator, Sequence

import attrs

from properties.review_sides import UNREPORTED
from properties.subject import available, load_one

#: Observable values whose JSON is longer than this many characters are compared by hash in the bulk stream.
DIGEST_ABOVE = 24


def compared() -> tuple[str, ...]:
    """The subjects whose behaviour the review compares (those that name a review side), in the registry's order."""
    return tuple(subject.name for subject in available() if subject.review)


def not_compared() -> tuple[str, ...]:
    """The subjects that name no review side: the review says their behaviour was not compared."""
    return tuple(subject.name for subject in available() if not subject.review)


def value_differs(one: Any, two: Any) -> bool:
    """Whether two sides' values of one observable differ; an unreported value differs from nothing."""
    return one != two and one != UNREPORTED and two != UNREPORTED


def unreported_observables(one: dict[str, Any], two: dict[str, Any], observables: Sequence[str]) -> list[str]:
    """The observables of two rows (one step on each side) that either side leaves unreported."""
    return [name for name in observables if UNREPORTED in (one.get(name), two.get(name))]


def differing_observables(one: dict[str, Any], two: dict[str, Any], observables: Sequence[str]) -> list[str]:
    """The observables of two rows (one step on each side) whose values differ (``value_differs``)."""
    return [name for name in observables if value_differs(one.get(name), two.get(name))]


def side(subject: str) -> ModuleType:
    """The review side module ``subject`` names (``Subject.review``); KeyError for a subject with none. Only that
    subject's declaration is imported (``load_one``): a side process runs under BASE's ``guard/``."""
    module = load_one(subject).review
    if not module:
        raise KeyError(f"the {subject} subject names no review side")
    return importlib.import_module(module)


def file_subject(path: Path) -> "str | None":
    """The compared subject whose file ``path`` is (its replay recognizes the schema), or None when it is none of
    theirs or unreadable. ``carries_schema`` opens only a regular file: a FIFO must not block the sniff."""
    for subject in available():
        if subject.review and subject.replay is not None and subject.replay.recognizes(str(path)):
            return subject.name
    return None


def review_origin(path: Path) -> "str | None":
    """The review's origin line of a saved distinguishing item (``review base=... head=...``), else None."""
    subject = file_subject(path)
    if subject is None:
        return None
    try:
        _item, origin = side(subject).load(path)
    except Exception:
        return None
    return origin if origin.startswith("review ") and "base=" in origin else None


def _side_main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m properties.review.behaviour")
    # No choices from the registry: a side process imports its own subject's declaration alone (``side``).
    parser.add_argument("--subject", default="budget")
    parser.add_argument("--seed", type=int)
    parser.add_argument("--count", type=int, help="bulk items played")
    parser.add_argument("--file", type=Path, help="one saved item instead of the seeded bulk work")
    parser.add_argument("--items", type=Path,
                        help="a JSON list of item numbers: only those bulk items, each with its rows step by step")
    parser.add_argument("--tree", metavar="SCOPE",
                        help="every run of one scope of the subject's model (properties.review.recorded)")
    args = parser.parse_args(argv)
    try:
        module = side(args.subject)
    except KeyError as error:
        parser.error(f"--subject: {error.args[0]}")
    if args.tree is not None:
        sys.stdout.write(json.dumps({"limits": module.limits(), "scope": args.tree}) + "\n")
        for node in module.tree(args.tree):
            sys.stdout.write(json.dumps(node, default=str, separators=(",", ":")) + "\n")
    elif args.file is not None:
        if hasattr(module, "rows_of_file"):
            # A side whose saved files carry their own limits (the budget's exhaustive traces) reads them itself.
            sys.stdout.write(json.dumps({"limits": module.limits()}, default=str) + "\n")
            sys.stdout.write(json.dumps(module.rows_of_file(args.file), default=str, separators=(",", ":")) + "\n")
        else:
            item, _origin = module.load(args.file)
            run_side(module, iter([item]), sys.stdout, digest=False)
    elif args.items is not None:
        wanted = read_item_numbers(args.items)
        run_side(module, picked(module.bulk(args.seed, args.count), wanted), sys.stdout, digest=True, numbered=True)
    else:
        run_summaries(module, module.bulk(args.seed, args.count), sys.stdout)
    return 0


def read_item_numbers(path: Path) -> list[int]:
    """The item numbers ``--items`` names: a JSON list of distinct non-negative integers, in increasing order."""
    try:
        numbers = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise SystemExit(f"{path}: cannot read the item numbers: {error}") from None
    if not (isinstance(numbers, list) and all(type(n) is int and n >= 0 for n in numbers)
            and numbers == sorted(set(numbers))):
        raise SystemExit(f"{path}: the item numbers must be a JSON list of increasing non-negative integers")
    return numbers


def picked(items: Iterator[Any], wanted: Sequence[int]) -> Iterator[tuple[int, Any]]:
    """The items numbered ``wanted`` (increasing), with their numbers; the rest of the bulk work is not drawn."""
    if not wanted:
        return
    want = iter(wanted)
    target = next(want)
    for number, item in enumerate(items):
        if number == target:
            yield number, item
            target = next(want, -1)
            if target < 0:
                return


def write_header(module: ModuleType, out: Any) -> None:
    out.write(json.dumps({"limits": module.limits()}, default=str) + "\n")


def run_summaries(module: ModuleType, items: Iterator[Any], out: Any) -> None:
    """The first pass: a header line (the side's limits), then per item ``[steps, hash of its rows]``."""
    write_header(module, out)
    for item in items:
        rows = module.rows_of(item)
        out.write(json.dumps([len(rows), rows_hash(rows)]) + "\n")


def rows_hash(rows: list[dict[str, Any]]) -> str:
    """One hash of an item's rows: of their JSON text, keys sorted, so two sides' equal rows hash alike."""
    text = json.dumps(rows, default=str, separators=(",", ":"), sort_keys=True)
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def run_side(module: ModuleType, items: Iterator[Any], out: Any, digest: bool, numbered: bool = False) -> None:
    """A header line (the side's limits), then one JSON line of rows per item (``[number, rows]`` when
    ``numbered``: the items are then ``(number, item)`` pairs).

    ``digest``: each observable's value is replaced by a short hash of its JSON. The bulk comparison only asks
    whether two values are equal, and a hook step's full rows (the copies the host receives) run to kilobytes;
    the saved distinguishing items are replayed in full (``--file``) for their tables."""
    write_header(module, out)
    for entry in items:
        number, item = entry if numbered else (None, entry)
        rows = module.rows_of(item)
        if digest:
            rows = [{name: _digest(value) for name, value in row.items()} for row in rows]
        out.write(json.dumps([number, rows] if numbered else rows, default=str, separators=(",", ":")) + "\n")


def _digest(value: Any) -> Any:
    """A value whose JSON is short stays itself (a hash would be longer); a longer one becomes its hash. The rule
    depends on the value alone, so two sides' values are equal after it exactly when they were before."""
    text = json.dumps(value, default=str, separators=(",", ":"), sort_keys=True)
    if len(text) <= DIGEST_ABOVE:
        return value
    return "#" + hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


# -- both sides --------------------------------------------------------------------------------------------


def side_environment(head: Path, guard: Path, overlay: Path) -> dict[str, str]:
    """An environment whose ``guard`` is ``guard`` and whose everything else is HEAD's checkout."""
    overlay.mkdir(parents=True, exist_ok=True)
    link = overlay / "guard"
    if link.is_symlink() or link.exists():
        link.unlink()
    link.symlink_to(guard.resolve(), target_is_directory=True)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join((str(overlay), str(head)))
    env["PYTHONHASHSEED"] = "0"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def start_side(env: dict[str, str], cwd: Path, arguments: Sequence[str], output: Path) -> subprocess.Popen[bytes]:
    with output.open("wb") as handle:  # the child holds its own copy of the descriptor
        return subprocess.Popen([sys.executable, "-m", "properties.review.behaviour", *arguments], cwd=cwd, env=env,
                                stdout=handle, stderr=subprocess.PIPE)


@attrs.define
class Difference:
    observable: str
    trace: int
    step: int


@attrs.define
class Comparison:
    """One subject's bulk work on both sides: how much of it, and how much differs, by observable."""

    subject: str = "budget"
    observables: tuple[str, ...] = ()
    traces: int = 0
    steps: int = 0
    traces_differing: int = 0
    steps_differing: int = 0
    #: Per observable: traces and steps where it differs.
    by_observable: dict[str, dict[str, int]] = attrs.field(factory=dict)
    #: Per observable, the trace whose first difference in it comes soonest.
    shortest: dict[str, Difference] = attrs.field(factory=dict)
    base_limits: dict[str, Any] = attrs.field(factory=dict)
    head_limits: dict[str, Any] = attrs.field(factory=dict)
    #: Observables a side's guard left unreported on some step (``UNREPORTED``), so compared on none of them.
    unreported: list[str] = attrs.field(factory=list)

    @property
    def changed(self) -> bool:
        return self.traces_differing > 0

    @property
    def unit(self) -> str:
        return str(side(self.subject).UNIT)


def new_comparison(subject: str, base_header: str, head_header: str) -> Comparison:
    observables = tuple(side(subject).OBSERVABLES)
    result = Comparison(subject=subject, observables=observables,
                        by_observable={name: {"traces": 0, "steps": 0} for name in observables})
    result.base_limits = json.loads(base_header)["limits"]
    result.head_limits = json.loads(head_header)["limits"]
    return result


def compare_summaries(base_lines: Iterator[str], head_lines: Iterator[str],
                      subject: str = "budget") -> tuple[Comparison, list[int]]:
    """The first pass: every item whose summaries agree is counted as alike (its steps and no difference); the
    numbers of the others, in order, are returned for the second pass (``add_details``)."""
    result = new_comparison(subject, next(base_lines), next(head_lines))
    differing: list[int] = []
    for number, (left, right) in enumerate(zip(base_lines, head_lines, strict=True)):
        if left == right:
            steps, _hash = json.loads(left)
            result.traces += 1
            result.steps += steps
        else:
            differing.append(number)
    return result, differing


def add_details(result: Comparison, base_lines: Iterator[str], head_lines: Iterator[str],
                numbers: Sequence[int]) -> None:
    """The second pass: the items ``numbers`` (in increasing order), their rows step by step on both sides."""
    next(base_lines), next(head_lines)
    for want, left, right in zip(numbers, base_lines, head_lines, strict=True):
        (base_number, base_rows), (head_number, head_rows) = json.loads(left), json.loads(right)
        if not base_number == head_number == want:
            raise ValueError(f"the sides played items {base_number} and {head_number}, not {want}")
        add_item(result, want, base_rows, head_rows)


def add_item(result: Comparison, number: int, base_rows: list[dict[str, Any]], head_rows: list[dict[str, Any]]) -> None:
    """One item's rows on both sides, compared step by step into ``result``."""
    observables = result.observables
    result.traces += 1
    length = max(len(base_rows), len(head_rows))
    common = min(len(base_rows), len(head_rows))
    result.steps += length
    differs = False
    seen: set[str] = set()
    if length > common:
        # One side cut the trace (stopped for good, or raised) where the other went on: they differed before.
        result.steps_differing += length - common
    for step in range(common):
        one, two = base_rows[step], head_rows[step]
        if one == two:
            continue
        result.unreported += [name for name in unreported_observables(one, two, observables)
                              if name not in result.unreported]
        names = differing_observables(one, two, observables)
        if names:
            differs = True
            result.steps_differing += 1
        for name in names:
            result.by_observable[name]["steps"] += 1
            if name not in seen:
                seen.add(name)
                result.by_observable[name]["traces"] += 1
                best = result.shortest.get(name)
                if best is None or step < best.step:
                    result.shortest[name] = Difference(name, number, step)
    result.traces_differing += int(differs)


def read_rows(path: Path) -> list[dict[str, Any]]:
    """The rows of the one item a side wrote for ``--file``."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return json.loads(lines[1])


def cell(module: ModuleType, row: "dict[str, Any] | None", name: str) -> str:
    """A table cell: ``-`` for a step one side never took or an observable it does not have, else the side's own."""
    if row is None or row.get(name) is None:
        return "-"
    return str(module.show(name, row[name]))


#: Characters shown before and after the first difference of two values whose shortened cells look alike.
CONTEXT = 30


def around_difference(one: Any, two: Any) -> tuple[str, str]:
    """Two values that differ past what their cells show: each one's JSON around the first character that differs."""
    left = json.dumps(one, default=str, separators=(",", ":"))
    right = json.dumps(two, default=str, separators=(",", ":"))
    at = next((i for i, (a, b) in enumerate(zip(left, right)) if a != b), min(len(left), len(right)))
    start = max(0, at - CONTEXT)
    lead = "..." if start else ""
    return lead + left[start:at + 2 * CONTEXT], lead + right[start:at + 2 * CONTEXT]


def step_table(subject: str, events: Sequence[Any], base_rows: list[dict[str, Any]], head_rows: list[dict[str, Any]],
               observables: Sequence[str], keep: int = 12) -> list[str]:
    """A short table of the last ``keep`` steps: the event, then BASE and HEAD for each observable shown."""
    module = side(subject)
    header = ["step", "event"] + [f"{name} {who}" for name in observables for who in ("BASE", "HEAD")]
    rows = []
    start = max(0, len(events) - keep)
    for index in range(start, len(events)):
        one = base_rows[index] if index < len(base_rows) else None
        two = head_rows[index] if index < len(head_rows) else None
        # A difference is marked by the values themselves, never by their shown (shortened) cells.
        differs = observables if (one is None) != (two is None) else \
            differing_observables(one, two, observables) if one is not None and two is not None else []
        cells = [f"{index}{' *' if differs else ''}", module.describe(events[index])]
        for name in observables:
            shown = [cell(module, one, name), cell(module, two, name)]
            if name in differs and shown[0] == shown[1] and one is not None and two is not None:
                shown = list(around_difference(one.get(name), two.get(name)))
            cells += shown
        rows.append(cells)
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    if start:
        lines.append("| ... | " + f"{start} earlier steps not shown" + " |" * (len(header) - 1))
    lines += ["| " + " | ".join(c.replace("|", "/") for c in row) + " |" for row in rows]
    return lines


if __name__ == "__main__":
    sys.exit(_side_main(sys.argv[1:]))
