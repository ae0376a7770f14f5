"""The index of planted-bug probes: which test shows which invariant violated.

An invariant that no bug can break passes every run, so each invariant of
every subject has a *probe*: a test that plants the smallest bug the invariant
exists to catch (in-process, by a subclass or a monkeypatch, never by editing
``guard/``), drives a short trace through the subject's real monitor with only
that invariant selected, and asserts that it is reported violated, and that
the same trace passes on the unplanted guard.

A probe module declares its probes explicitly: a module-level
``PROBED = Probes()`` and ``@PROBED("B3")`` on each probe test.
``tests/core/test_every_invariant_has_a_probe.py`` reads every subject's
catalogue (``properties.subject.available()``) and every probe module's
``PROBED``, and fails naming each invariant that has no probe.
"""

from __future__ import annotations

from typing import Callable, TypeVar

import attrs

Test = TypeVar("Test", bound=Callable[..., object])


@attrs.define
class Probes:
    """Invariant id -> the names of the test functions of one module that probe it."""

    by_invariant: dict[str, list[str]] = attrs.field(factory=dict)

    def __call__(self, *invariant_ids: str) -> Callable[[Test], Test]:
        """Mark a test as the probe of ``invariant_ids`` (a parametrized test may probe several)."""
        if not invariant_ids:
            raise ValueError("a probe names at least one invariant")

        def mark(test: Test) -> Test:
            for invariant_id in invariant_ids:
                self.by_invariant.setdefault(invariant_id, []).append(test.__name__)
            return test

        return mark
