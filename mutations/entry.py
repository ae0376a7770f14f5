"""The catalogue's entry model: a named semantic mutation of ``guard/`` as exact textual edits.

Each entry breaks one rule of ``shared/spec/`` in one named way. Edits are
literal find/replace pairs, and each ``find`` must occur exactly once in its
file: an entry whose text has drifted fails loudly instead of silently testing
nothing. The entries themselves live in ``mutations/entries/``, one file per
subject; ``mutations.catalogue`` assembles and checks them.

``level``: the name of the subject of the verdict that must kill the entry
(``python -m properties --mutants`` naming one of the invariants in
``breaks``), or ``CLASSIFIER`` for an entry judged by its tests alone. Every
entry must also be killed by at least one pytest test.
"""

from __future__ import annotations

from pathlib import Path

import attrs

#: The one level that is not a subject: a classifier table's entries, killed by pytest tests alone (no invariant
#: of the verdict restates the table).
CLASSIFIER = "classifier"


class CatalogueError(Exception):
    """An entry cannot be applied: its file or its text is missing or ambiguous."""


@attrs.frozen
class Edit:
    find: str
    replace: str


@attrs.frozen
class Span:
    """Where an entry changes its file: 1-based lines and columns, the end exclusive (Stryker's convention).

    ``replacement`` is exactly what takes the place of that range; together they
    turn the unmutated file into the mutated one.
    """

    start_line: int
    start_column: int
    end_line: int
    end_column: int
    replacement: str


@attrs.frozen
class Entry:
    id: str
    seed: str
    rule: str
    file: str
    level: str
    edits: tuple[Edit, ...]
    #: The invariants the verdict must name as violated for a kill (issue 22): a property-level entry killed by
    #: any other one, by a crash, or only by a unit test does not pass the catalogue. Classifier entries: none.
    breaks: tuple[str, ...] = ()

    def applied(self, text: str) -> str:
        """``text`` with every edit made; CatalogueError when a target is missing or ambiguous."""
        for number, edit in enumerate(self.edits, 1):
            found = text.count(edit.find)
            if found != 1:
                what = "not found" if found == 0 else f"found {found} times"
                raise CatalogueError(f"{self.id}: {self.file}: edit {number}: target text {what}: {edit.find.strip()[:80]!r}")
            text = text.replace(edit.find, edit.replace, 1)
        return text

    def apply_to(self, root: Path) -> str:
        """Apply every edit to ``root/file``; returns a one-line description of the change."""
        path = root / self.file
        if not path.is_file():
            raise CatalogueError(f"{self.id}: {self.file}: file not found")
        path.write_text(self.applied(path.read_text(encoding="utf-8")), encoding="utf-8")
        return self.one_line_diff()

    def spans(self, original: str) -> tuple[Span, ...]:
        """Where each edit changes ``original`` (the unmutated file), in file order.

        Computed from the texts, not from the edit strings: an entry's find text
        repeats context on purpose (to be unique), and drawing all of it would
        mark unchanged code. Each edit is applied alone and compared with the
        original (see ``changed_span``). When an edit cannot be applied alone
        (its text only exists after an earlier edit), the entry gets one span
        covering everything it changes.
        """
        mutated = self.applied(original)
        alone = []
        for edit in self.edits:
            if original.count(edit.find) != 1:
                return (changed_span(original, mutated),)
            at = original.find(edit.find)
            alone.append(changed_span(original, original.replace(edit.find, edit.replace, 1), (at, at + len(edit.find))))
        return tuple(sorted(alone, key=lambda span: (span.start_line, span.start_column)))

    def span(self, original: str) -> Span:
        """The first place the entry changes ``original``: the mutant's location in the report."""
        return self.spans(original)[0]

    def span_in(self, root: Path) -> "Span | None":
        """``span`` of the unmutated ``root/file``; None when the file or an edit's text is missing."""
        try:
            return self.span((root / self.file).read_text(encoding="utf-8"))
        except (OSError, CatalogueError):
            return None

    def one_line_diff(self) -> str:
        parts = [f"{_squash(edit.find)} -> {_squash(edit.replace)}" for edit in self.edits]
        return "; ".join(parts)

    def first_line(self, root: Path) -> int:
        """Line (1-based) of the first edit in the unmutated file, for the report; 1 when unknown."""
        try:
            text = (root / self.file).read_text(encoding="utf-8")
        except OSError:
            return 1
        at = text.find(self.edits[0].find)
        if at < 0:
            return 1
        # Skip the leading whitespace of the find text so the line is that of the code, not of a newline.
        stripped = len(self.edits[0].find) - len(self.edits[0].find.lstrip())
        return text.count("\n", 0, at + stripped) + 1


def changed_span(original: str, mutated: str, near: "tuple[int, int] | None" = None) -> Span:
    """The smallest range of ``original`` that, replaced, gives ``mutated``; drawn where a reader expects it.

    The longest common prefix and suffix bound the change. A pure deletion or
    insertion can sit at several offsets with the same result (deleting one of
    two equal lines); it is moved to the start of a line when one of those
    offsets is, so whole lines are marked whole, else to the start of a word.
    A pure insertion has an empty range, which a viewer cannot mark: inserted
    lines take in the code of the line they follow (or precede, when only that
    one is in ``near``, the edit's find text), letters inside a line the
    word they join (else the code before them on their line), and the
    replacement carries that text too.
    """
    limit = min(len(original), len(mutated))
    prefix = 0
    while prefix < limit and original[prefix] == mutated[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and original[-1 - suffix] == mutated[-1 - suffix]:
        suffix += 1
    start, removed, added = prefix, len(original) - suffix - prefix, len(mutated) - suffix - prefix
    if removed == 0 or added == 0:
        moved = original if added == 0 else mutated
        length = removed or added
        candidates = [start]
        while candidates[-1] > 0 and moved[candidates[-1] - 1] == moved[candidates[-1] + length - 1]:
            candidates.append(candidates[-1] - 1)
        at_line = [offset for offset in candidates if offset == 0 or moved[offset - 1] == "\n"]
        at_word = [offset for offset in candidates if not _word(moved[offset - 1]) and _word(moved[offset])]
        start = (at_line or at_word or candidates)[0]
    end = start + removed
    replacement = mutated[start:start + added]
    if removed and added:
        # Whole words: `True` -> `False`, not `Tru` -> `Fals`.
        while start > 0 and _word(original[start - 1]) and _word(original[start]):
            start -= 1
            replacement = original[start] + replacement
        while end < len(original) and _word(original[end - 1]) and _word(original[end]):
            replacement += original[end]
            end += 1
    if removed == 0 and start > 0 and original[start - 1] == "\n" and replacement.endswith("\n"):
        # Whole lines inserted: drawn with the line they follow, or the line they precede when that one is the code
        # the edit names (``near``); never as a range ending at column 1 of a line, which the viewer extends into
        # that line's code.
        line_end = original.find("\n", start)
        line_end = len(original) if line_end < 0 else line_end
        previous = original.rfind("\n", 0, start - 1) + 1
        follows_in_near = near is not None and near[0] <= previous < near[1]
        precedes_in_near = near is not None and near[0] <= start < near[1] and line_end > start
        if precedes_in_near and not follows_in_near:
            replacement += original[start:line_end]
            end = line_end
        else:
            start -= 1
            end = start
            replacement = "\n" + replacement[:-1]
    elif removed == 0 and start > 0 and original[start - 1] != "\n":
        # Inserted inside a line: mark the word(s) it joins (`is_lookup` -> `is_last_lookup`).
        while start > 0 and _word(original[start - 1]):
            start -= 1
            replacement = original[start] + replacement
        while end < len(original) and _word(original[end]):
            replacement += original[end]
            end += 1
    if start == end:
        # Still empty: take in the code before it on its line, else (a blank line, the file's start) the rest of it.
        line_start = original.rfind("\n", 0, start) + 1
        while line_start < start and original[line_start] in " \t":
            line_start += 1
        if line_start < start:
            replacement = original[line_start:start] + replacement
            start = line_start
        else:
            line_end = original.find("\n", end)
            line_end = len(original) if line_end < 0 else line_end
            if line_end == end:
                raise CatalogueError("an insertion at an empty line has no code to mark")
            replacement += original[end:line_end]
            end = line_end
    start_line, start_column = _position(original, start)
    end_line, end_column = _position(original, end)
    return Span(start_line, start_column, end_line, end_column, replacement)


def _word(character: str) -> bool:
    return character.isalnum() or character == "_"


def _position(text: str, offset: int) -> tuple[int, int]:
    """1-based (line, column) of ``offset`` in ``text``."""
    line_start = text.rfind("\n", 0, offset) + 1
    return text.count("\n", 0, offset) + 1, offset - line_start + 1


def _squash(text: str) -> str:
    return " ".join(text.split()) or "(nothing)"


def entry(id: str, seed: str, rule: str, file: str, level: str, *edits: Edit, breaks: tuple[str, ...] = ()) -> Entry:
    """An entry with its edits given one after another (what every entries file writes)."""
    return Entry(id=id, seed=seed, rule=rule, file=file, level=level, edits=tuple(edits), breaks=breaks)
