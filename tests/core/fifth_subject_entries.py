"""The fifth subject's catalogue entries file, copied to ``mutations/entries/counter.py`` by its test.

Not a test module (no ``test_`` prefix): ``tests/core/test_fifth_subject.py``
adds it to a copy of the project beside ``properties/counter/``, the second
and last file a new subject needs.
"""

from __future__ import annotations

from mutations.entry import Edit, Entry

SUBJECT = "counter"

ENTRIES = (
    Entry(id="counter-up-past-cap", seed="none", rule="``up`` counts one past the cap", file="properties/counter/counter.py",
          level=SUBJECT, edits=(Edit("        if self.value < self.cap or", "        if self.value <= self.cap or"),),
          breaks=("C1",)),
)
