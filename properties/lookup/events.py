"""The one event of a lookup trace: a receipt the classifier judges, as a trace file writes it.

A ``Receipt`` is what ``lookup_found_nothing(command, exit_code, output)``
receives, and where it came from (``kind``): ``"valid"`` for a chain of the
accepted grammar (the seeded corpus, the state machine, the seed's own
chains), which the real programs then run; any other kind is one of
``generate.HOSTILE_KINDS``, a receipt the classifier must refuse and which is
never run.

The three receipt fields are kept in their JSON form so that the trace file
holds exactly what the record holds: the hostile corpus also feeds the
classifier a ``bytes`` command or output, which JSON cannot hold, so a bytes
value is written ``{"bytes": "<hex>"}`` and decoded by ``decoded``. Any
other object is passed on as it is (a hostile receipt may carry one).

``observed`` is what the real programs did when the receipt was judged
(``programs.Observation.to_json``), kept so that a saved counterexample shows
it; replay runs the programs again and never judges by it.
"""

from __future__ import annotations

from typing import Any

import attrs

VALID = "valid"


def encoded(value: Any) -> Any:
    """A receipt value in its JSON form (bytes as ``{"bytes": hex}``; lists and tuples as lists)."""
    if isinstance(value, (bytes, bytearray)):
        return {"bytes": bytes(value).hex()}
    if isinstance(value, (list, tuple)):
        return [encoded(item) for item in value]
    return value


def decoded(value: Any) -> Any:
    """The value ``encoded`` wrote: ``{"bytes": hex}`` back to bytes, anything else unchanged."""
    if isinstance(value, dict) and set(value) == {"bytes"} and isinstance(value["bytes"], str):
        try:
            return bytes.fromhex(value["bytes"])
        except ValueError:
            return value
    if isinstance(value, list):
        return [decoded(item) for item in value]
    return value


@attrs.frozen
class Receipt:
    """One exec receipt for the classifier, and where it came from."""

    command: Any
    exit_code: Any = 1
    output: Any = ""
    kind: str = VALID
    observed: Any = None
    label: str = ""

    @classmethod
    def of(cls, command: Any, exit_code: Any = 1, output: Any = "", kind: str = VALID, label: str = "") -> "Receipt":
        return cls(encoded(command), encoded(exit_code), encoded(output), kind, None, label)

    @property
    def valid(self) -> bool:
        """A chain of the accepted grammar: the classifier must accept it, and the real programs run it."""
        return self.kind == VALID

    def arguments(self) -> tuple[Any, Any, Any]:
        """(command, exit_code, output) as the classifier receives them."""
        return decoded(self.command), decoded(self.exit_code), decoded(self.output)

    def asked(self) -> tuple[Any, Any, Any]:
        """What the classifier is asked about this receipt: a valid chain's command with exit code 1 and no output
        (the case it decides; the real programs say what the right answer is), any other receipt as drawn. The
        verdict's judge and the review's side both ask this."""
        command, exit_code, output = self.arguments()
        return (command, 1, "") if self.valid else (command, exit_code, output)
