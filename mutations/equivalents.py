"""The committed list of justified equivalent mutmut mutants (``mutations/equivalents.toml``).

Each entry names a mutant, pins its diff in one line (so a renumbered mutant
cannot silently inherit someone else's justification) and says why no test
can tell it apart from the original.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import attrs

EQUIVALENTS_FILE = Path(__file__).with_name("equivalents.toml")


class EquivalentsError(Exception):
    """The equivalents file is malformed (a user-caused error: one line, exit 2)."""


@attrs.frozen
class Equivalent:
    name: str
    diff: str
    reason: str


def load(path: Path = EQUIVALENTS_FILE) -> list[Equivalent]:
    if not path.is_file():
        return []
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise EquivalentsError(f"{path.name}: not valid TOML: {error}") from None
    entries = data.get("equivalent", [])
    if not isinstance(entries, list):
        raise EquivalentsError(f"{path.name}: equivalent: must be an array of tables ([[equivalent]])")
    unknown = set(data) - {"equivalent"}
    if unknown:
        raise EquivalentsError(f"{path.name}: {sorted(unknown)[0]}: unknown key (only [[equivalent]] tables)")
    result: list[Equivalent] = []
    seen: set[str] = set()
    for index, entry in enumerate(entries):
        where = f"{path.name}: equivalent[{index}]"
        if not isinstance(entry, dict):
            raise EquivalentsError(f"{where}: must be a table")
        for field in ("name", "diff", "reason"):
            value = entry.get(field)
            if not isinstance(value, str) or not value.strip():
                raise EquivalentsError(f"{where}.{field}: missing or empty")
        extra = set(entry) - {"name", "diff", "reason"}
        if extra:
            raise EquivalentsError(f"{where}.{sorted(extra)[0]}: unknown field")
        if entry["name"] in seen:
            raise EquivalentsError(f"{where}.name: {entry['name']} is listed twice")
        seen.add(entry["name"])
        result.append(Equivalent(entry["name"], entry["diff"], entry["reason"]))
    return result
