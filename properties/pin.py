"""The reference's pin: SHA-256 of every file in ``reference/``, kept in ``tests/reference_pin.json``.

``python -m properties.pin`` checks the pin; ``nox -s adopt-reference``
(``--adopt``) is the one deliberate way to accept an edited oracle: it prints
what changed and rewrites the pin. Run it only when a merged production
budget becomes the next reference, and say so in the pull request.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

from properties.paths import ROOT

REFERENCE = ROOT / "reference"
PIN_FILE = ROOT / "tests" / "reference_pin.json"


def digests(folder: Path = REFERENCE) -> dict[str, str]:
    """SHA-256 of each Python file of the oracle, by path relative to the project root."""
    return {
        path.relative_to(folder.parent).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.glob("*.py"))
    }


def pinned(pin_file: Path = PIN_FILE) -> dict[str, str]:
    return json.loads(pin_file.read_text(encoding="utf-8"))


def differences(expected: dict[str, str], actual: dict[str, str]) -> list[str]:
    """One line per file added, removed or changed."""
    lines = []
    for name in sorted(set(expected) | set(actual)):
        if name not in actual:
            lines.append(f"removed: {name}")
        elif name not in expected:
            lines.append(f"added:   {name}")
        elif expected[name] != actual[name]:
            lines.append(f"changed: {name}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="properties.pin", description=__doc__.splitlines()[0])
    parser.add_argument("--adopt", action="store_true", help="accept the current reference/ and rewrite the pin")
    args = parser.parse_args(argv)
    actual = digests()
    try:
        expected = pinned()
    except (OSError, json.JSONDecodeError) as error:
        expected = {}
        print(f"{PIN_FILE}: unreadable pin ({error}); treating as empty")
    changes = differences(expected, actual)
    if not args.adopt:
        for line in changes:
            print(line)
        print("reference pin: " + ("holds" if not changes else "BROKEN (adopt deliberately with nox -s adopt-reference)"))
        return 0 if not changes else 1
    if not changes:
        print("reference unchanged; pin already holds")
        return 0
    for line in changes:
        print(line)
    PIN_FILE.write_text(json.dumps(actual, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    print(f"adopted: {PIN_FILE.relative_to(ROOT)} rewritten; commit it with the reference change")
    return 0


if __name__ == "__main__":
    sys.exit(main())
