"""The symmetry checks the search makes on every edge, so that merging by a symmetry is justified by the run itself.

A proof that merges a state with its mirror image is sound only if the
guard under test has that symmetry; a change under review need not. So for
every permutation of the group the canonical form merges by, the search
checks the initial state (its own image), every alphabet (mapped onto
itself), every transition made (the permuted copy stepped with the permuted
event, by the real code, ends in the permuted successor), every verdict (the
catalogue judges the permuted step alike) and every B13 probe. A failed
check raises ``SymmetryBroken``; the engine then withdraws the claim and
searches the scope again without that symmetry (``properties.engine.search``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Sequence

import attrs

from properties.budget.copies import ALL_COPIES
from properties.engine.symmetry import SymmetryBroken
from properties.budget.events import Event
from properties.catalogue import Violation
from properties.budget.explorer.alphabets import PROBE_EVENT
from properties.budget.explorer.copier import clone
from properties.budget.explorer.keys import CopyKey, P_AT, R_AT, decode_copy, new_key, raw_key, with_seen
from properties.budget.explorer.moves import Move, REPRESENTATIVE, Transition, Verdict
from properties.budget.explorer.symmetry import differs, image_event

if TYPE_CHECKING:
    from properties.budget.explorer.keys import Canon
    from properties.budget.invariants import Snap
    from properties.budget.monitor import Monitor
    from properties.catalogue import Tally
    from properties.engine.symmetry import Permutation


class SymmetryChecks:
    """The checks, as methods of the expander (``Expander`` derives from this): they read its caches and step through them."""

    # The expander's state and methods the checks use (made and documented in ``Expander``): declared here for the
    # type checker only; a bare annotation in a class body creates nothing at run time.
    canon: Canon
    prototypes: list[Any]
    group: tuple[Permutation, ...]
    groups: list[int]
    images: dict[int, tuple[Any, ...]]
    image_bases: dict[tuple[Any, ...], tuple[Any, ...]]
    key_images: list[dict[CopyKey, CopyKey]]
    bare_steps: list[dict[CopyKey, dict[tuple[Any, ...], Transition]]]
    steps: list[dict[CopyKey, dict[tuple[Any, ...], Transition]]]
    rows: dict[int, tuple[Any, ...]]
    pair_images: dict[int, Any]
    pair_values: list[tuple[Any, ...]]
    products: list[list[int]]
    verdicts: dict[tuple[Any, ...], Verdict]
    memo: bool
    stepping: int
    snappers: list[Callable[[Any], Snap]]
    tally: Tally
    scratch: Tally
    edge_monitor: Monitor
    probe_monitor: Monitor

    if TYPE_CHECKING:
        def plan(self, index: int, events: tuple[Event, ...]) -> tuple[tuple[Any, ...], ...]: ...

        def event_flags(self, index: int, event: Event) -> tuple[Any, ...]: ...

        def step_copy(self, index: int, template: Any, event: Event, before: Snap) -> Transition: ...

        def row_of(self, transition: Transition) -> tuple[Any, ...]: ...

        def judge(self, event: Event, moves: Sequence[Move], history: tuple[Any, ...], index: int,
                  before: dict[str, Snap], fresh_ids: dict[str, bool]) -> tuple[list[Violation], tuple[Any, ...], Verdict]: ...

    def initial_break(self) -> SymmetryBroken | None:
        """The initial state must be its own image under every permutation checked, or merging starts unsound."""
        raw = [raw_key(clone(prototype), index > 0, self.canon) for index, prototype in enumerate(self.prototypes)]
        for permutation in self.group:
            for name, key in zip(ALL_COPIES, raw):
                if permutation.key(key) != key:
                    return SymmetryBroken(permutation, "the initial state", f"copy {name} is not its own image")
        return None

    def check_alphabet(self, events: tuple[Event, ...]) -> None:
        """Every permutation maps the alphabet offered from a state onto itself (events compared without labels).

        Keeps, per permutation, where each event's image stands in the
        alphabet (``images``): a permuted step is then made of the alphabet's
        own events, so its transitions and its verdict are the ones the search
        keeps in its caches, and a check whose permuted step the search meets
        anyway costs a look-up.
        """
        def signature(event: Event) -> str:
            return repr(attrs.evolve(event, label=""))

        where = {signature(event): number for number, event in enumerate(events)}
        images = []
        for permutation in self.group:
            row = []
            for number, event in enumerate(events):
                found = where.get(signature(image_event(permutation, event)))
                if found is None:
                    self.stepping = number
                    raise SymmetryBroken(permutation, "the alphabet", f"the image of {event.label or event!r} is not offered")
                row.append(found)
            images.append(tuple(row))
        self.images[id(events)] = tuple(images)

    def check_step(
        self, index: int, key: CopyKey, events: tuple[Event, ...], number: int, transition: Transition, remembered: int = 0,
        bases: dict | None = None,
    ) -> None:
        """The permuted copy stepped with the permuted event ends in the permuted successor, by the real code.

        Checked once per transition made (a transition is a pure function of
        the copy's key, the event and its flags, and every edge is made of
        transitions), so every edge searched is covered. The permuted step is
        looked up in (or added to) the same caches the search steps through:
        it is a step of the state the canonical form merged, which the search
        would otherwise make when it meets that key. Every permutation is an
        involution, so a transition found there was checked when it was made.
        ``key`` is the copy's key as the search holds it (without its memory
        when ids are unordered; ``remembered`` then says whether the
        representative remembers the event's id).

        ``bases`` (``image_bases``) keeps, per group, permuted key and memory
        bit, the decoded budget and its snapshot that every image step from
        that key starts from; ``key_images`` keeps each permuted key. Both
        are pure functions of their keys (a group's copies differ in nothing
        ``decode_copy`` leaves unset), and ``step_copy`` steps a clone, so reusing
        them is exactly decoding afresh (measured on the counters search:
        decoding and permuting were a fifth of the checks' cost).
        """
        if bases is None:
            bases = self.image_bases
        unordered = not self.canon.ordered_ids
        group = self.groups[index]
        images = []
        rows = self.rows
        if id(events) not in self.images:
            # Moves asked for outside ``expand`` (the tests') have not had their alphabet checked yet.
            self.check_alphabet(events)
        for element, (permutation, where) in enumerate(zip(self.group, self.images[id(events)])):
            images_of = self.key_images[element]
            moved = images_of.get(key)
            if moved is None:
                moved = images_of[key] = permutation.key(key)
            moved_number = where[number]
            if moved == key and moved_number == number:
                images.append(transition)
                continue
            if unordered:
                _event, template, _label, representative, mask = self.plan(index, events)[moved_number]
                known = self.bare_steps[group].setdefault(moved, {})
                slot: tuple[Any, ...] = (template, remembered, mask)
                image = known.get(slot)
                if image is None:
                    base = bases.get((group, moved, remembered))
                    if base is None:
                        budget = decode_copy(self.prototypes[index], with_seen(moved, (REPRESENTATIVE,) if remembered else ()))
                        base = bases[(group, moved, remembered)] = (budget, self.snappers[index](budget))
                    image = known[slot] = self.step_copy(index, base[0], representative, base[1])
                expected = permutation.key(with_seen(transition.after, ()))
                got = with_seen(image.after, ())
                same_memory = (REPRESENTATIVE in image.after.seen) == (REPRESENTATIVE in transition.after.seen)
            else:
                moved_event = events[moved_number]
                known = self.steps[group].setdefault(moved, {})
                slot = (id(moved_event), self.event_flags(index, moved_event))
                image = known.get(slot)
                if image is None:
                    base = bases.get((group, moved, 0))
                    if base is None:
                        budget = decode_copy(self.prototypes[index], moved)
                        base = bases[(group, moved, 0)] = (budget, self.snappers[index](budget))
                    image = known[slot] = self.step_copy(index, base[0], moved_event, base[1])
                expected, got, same_memory = permutation.key(transition.after), image.after, True
            if got != expected or not same_memory or image.seen != transition.seen or image.admitted != transition.admitted:
                event = events[number]
                raise SymmetryBroken(
                    permutation, f"copy {ALL_COPIES[index]}'s step",
                    f"{event.label or type(event).__name__} gives {differs(expected, got)} once permuted "
                    f"({events[moved_number].label or type(event).__name__} from the permuted state)",
                )
            images.append(image)
        # Every pair of the orbit gets its images: the image transitions are the search's own from now on, and
        # the image of ``a(t)`` under ``b`` is ``t``'s image under the composition ``a b`` (commuting involutions).
        orbit = [(rows.get(id(transition)) or self.row_of(transition))[0]]
        orbit.extend([(rows.get(id(image)) or self.row_of(image))[0] for image in images])
        pair_images = self.pair_images
        for element, pair in enumerate(orbit):
            if pair_images.get(pair) is None:
                pair_images[pair] = [orbit[other] for other in self.products[element]]

    def check_judge(
        self, events: tuple[Event, ...], number: int, pairs: tuple, step_events: tuple, state_number: int,
        history: tuple, index: int, verdict: "Verdict",
    ) -> None:
        """The catalogue judges the permuted step as it judged the step: nothing violated, the same exercised, the same history.

        Once per verdict: a step judged before is a step checked before. The
        permuted step's verdict is read from the search's memo when it is
        there; otherwise it is judged on a scratch tally (it is not a step of
        the search, and counts nothing) and kept in the memo, where the search
        counts it when it meets that step itself, as it counts any repeat.
        Measured on the counters search: keeping them saves a third of the
        judgements the checks would make otherwise.
        """
        for number_of, permutation in enumerate(self.group):
            moved_number = self.images[id(events)][number_of][number]
            moved_pairs = tuple([self.pair_images[pair][number_of] for pair in pairs])
            if moved_number == number and moved_pairs == pairs:
                continue
            step_key = (step_events[moved_number], state_number, moved_pairs)
            image = self.verdicts.get(step_key) if self.memo else None
            found: list[Violation] = []
            if image is None:
                moves = [new_key(Move, (None, *self.pair_values[pair], pair, 0, 0)) for pair in moved_pairs]
                before = {name: move.before_snap for name, move in zip(ALL_COPIES, moves)}
                fresh_ids = {name: not snap.terminal for name, snap in before.items()}
                tally, monitor = self.tally, self.edge_monitor
                self.tally = monitor.tally = self.scratch
                try:
                    found, _history, image = self.judge(events[moved_number], moves, history, index, before, fresh_ids)
                finally:
                    self.tally = monitor.tally = tally
                # The scratch tally is never read: its counts may pile up, and a violation there raises below.
                if self.memo and not found:
                    self.verdicts[step_key] = image
            if found or image.exercised != verdict.exercised or image.history != verdict.history:
                what = (
                    "breaks " + ", ".join(violation.invariant for violation in found) if found
                    else f"exercises {', '.join(image.exercised) or 'nothing'} (the step: {', '.join(verdict.exercised) or 'nothing'})"
                    if image.exercised != verdict.exercised else "leaves another history"
                )
                event = events[number]
                raise SymmetryBroken(permutation, "the catalogue's judgement", f"the permuted {event.label or type(event).__name__} {what}")

    def check_probe(self, reference: CopyKey, production: CopyKey, found: list[Violation]) -> None:
        """B13, a property of P's state, gives the permuted state the same answer."""
        names = {violation.invariant for violation in found}
        for permutation in self.group:
            moved_p, moved_r = permutation.key(production), permutation.key(reference)
            if moved_p.core == production.core and moved_r == reference:
                continue
            monitor = self.probe_monitor
            tally = monitor.tally
            monitor.tally = self.scratch
            try:
                monitor.budgets = {"R": decode_copy(self.prototypes[R_AT], moved_r), "P": decode_copy(self.prototypes[P_AT], moved_p)}
                image = monitor.step(PROBE_EVENT)
            finally:
                monitor.tally = tally
            self.scratch.violations.clear()
            if {violation.invariant for violation in image} != names:
                raise SymmetryBroken(
                    permutation, "B13's probe of P",
                    f"the permuted state {'breaks ' + ', '.join(v.invariant for v in image) if image else 'holds'}, the state "
                    f"{'breaks ' + ', '.join(sorted(names)) if names else 'holds'}",
                )

