"""The batched expander the engine drives for the budget: every event through every copy, every edge judged."""

from __future__ import annotations

from collections import Counter
from typing import Any, Sequence


from properties import progress
from properties.budget.copies import ALL_COPIES, FEATURE_FLAGS, applier
from properties import work_bound
from properties.engine.symmetry import SymmetryBroken
from properties.budget.events import Event, FirstCall, Result
from properties.budget.invariants import BY_ID, CATALOGUE, Snap
from properties.budget.monitor import Monitor, runaway_message
from properties.catalogue import Tally, Violation
from properties.judge import Judge
from properties.budget.state import snap_production, snap_reference
from properties.budget.explorer.alphabets import ORIGIN, PROBE_EVENT, events_of
from properties.budget.explorer.canonical_form import canonical, child_ids, membership_of
from properties.budget.explorer.checks import SymmetryChecks
from properties.budget.explorer.copier import clone
from properties.budget.explorer.history import ADMISSION_KEYS, FEATURE_KEYS
from properties.budget.explorer.keys import (
    LABEL_OF, Canon, CopyKey, History, P_AT, R_AT, State, decode_copy, new_key, raw_key, with_seen,
)
from properties.budget.explorer.moves import CACHE_BOUNDS, Move, NO_FLAGS, REPRESENTATIVE, SEED_FLAGS, Transition, Verdict, representative_of
from properties.budget.explorer.scopes import Config, new_prototypes
from properties.budget.explorer.symmetry import checked_group, mirrored


EDGE_INVARIANTS = tuple(invariant for invariant in CATALOGUE if invariant.id != "B13")


STATE_INVARIANTS = (BY_ID["B13"],)


class Expander(SymmetryChecks):
    """Expands states: every event of the alphabet through every copy, every edge judged by the catalogue.

    Each copy is stepped by its real budget (``guard`` or ``reference``) once
    per (copy key, alphabet) and the moves reused (``Move``); the monitor then
    judges every edge from the copies' snapshots exactly as ``Monitor.step``
    does after delivering an event (``judge``; a unit test holds the two
    equal). It keeps its own set of states already seen (so that it returns
    only children new to it) and of P-states already probed for B13. The
    search runs one in process, or one per forked worker process, each
    expanding a contiguous slice of every breadth-first level.
    """

    def __init__(self, config: Config, canon: Canon, memo: bool = True) -> None:
        self.config = config
        self.canon = canon
        #: The number of the event whose move is being made (named when that step runs past its bound).
        self.stepping = 0
        #: Judge each distinct step once (see ``expand``); off, every edge is judged afresh.
        self.memo = memo
        #: States known before the level being expanded, for the live progress (``_explore`` sets it); None: this
        #: expander does not report (a forked one: the search's own process reports for the level).
        self.known: "int | None" = 0
        #: (event, history, every copy's move pair) -> Verdict, for the edges judged so far.
        self.verdicts: dict[tuple, Verdict] = {}
        self.pairs: dict[tuple, int] = {}
        self.prototypes = new_prototypes(config)
        self.appliers = [applier(name) for name in ALL_COPIES]
        self.snappers = [snap_reference] + [snap_production] * (len(ALL_COPIES) - 1)
        self.tally = Tally()
        #: Probe steps check B13 only; their coverage and step counts are not trace steps.
        self.probe_tally = Tally()
        oracle = config.oracle
        self.edge_monitor = Monitor(
            limits=oracle, tally=self.tally, budgets=dict(zip(ALL_COPIES, self.prototypes)),
            invariants=EDGE_INVARIANTS, failure_ends_probes="off",
        )
        #: The one judge (``properties.judge``) of every edge.
        self.edge_judge = Judge(EDGE_INVARIANTS)
        self.check_ids = self.edge_judge.ids
        self.probe_monitor = Monitor(
            limits=oracle, tally=self.probe_tally, budgets={"R": self.prototypes[R_AT], "P": self.prototypes[P_AT]},
            invariants=STATE_INVARIANTS, failure_ends_probes="all",
        )
        self.seen: set[State] = set()
        #: One object per distinct copy key and history in the states kept.
        self.interned: dict[Any, Any] = {}
        #: (raw copy keys, history) of every child canonicalized so far (most edges meet one again).
        self.raw_seen: set[tuple] = set()
        self.probed: set[tuple] = set()
        #: Per copy: (copy key, alphabet) -> the moves of that copy for every event of the alphabet.
        self.moves: list[dict[tuple, tuple[Move, ...]]] = [{} for _ in ALL_COPIES]
        #: Copies of one budget type and limits share their transitions: the group of each copy.
        kinds = [(type(prototype), prototype.limits) for prototype in self.prototypes]
        self.groups = [kinds.index(kind) for kind in kinds]
        #: Per group, without eviction: copy key less its memory -> (template, id remembered, flags) -> transition.
        self.bare_steps: list[dict[CopyKey, dict[tuple, Transition]]] = [{} for _ in ALL_COPIES]
        #: Per group: copy key -> (event by identity, flags) -> transition (the alphabets live as long as the module).
        self.steps: list[dict[CopyKey, dict[tuple, Transition]]] = [{} for _ in ALL_COPIES]
        #: Per copy: event (by identity) -> its flags as that copy receives them.
        self.masks: list[dict[int, tuple]] = [{} for _ in ALL_COPIES]
        #: Per copy: alphabet (by identity) -> ``plan``.
        self.plans: list[dict[int, tuple]] = [{} for _ in ALL_COPIES]
        #: Per copy: transition (by identity) -> (the step's row for it, its pair number, the transition, its key).
        self.rows: dict[int, tuple] = {}
        #: (group, flags, copy key, alphabet or family, membership) -> the moves every copy of that group
        #: receiving those flags makes from that key: copies that move alike share them.
        self.shared: dict[tuple, tuple] = {}
        #: Per copy: alphabet (by identity) -> the flags it receives, as a number (``_flags``).
        self.flag_numbers: list[dict[int, int]] = [{} for _ in ALL_COPIES]
        self.flag_kinds: dict[tuple, int] = {}
        #: Per alphabet (by identity): ``alphabet_labels``; and the families of alphabets met so far.
        self.labels: dict[int, tuple] = {}
        self.history_dicts: dict[History, tuple] = {}
        #: A number per distinct after key and per distinct history: a raw child and a step are looked up by
        #: small integers rather than by hashing nested tuples again at every edge.
        self.key_numbers: dict[CopyKey, int] = {}
        self.history_numbers: dict[tuple, int] = {}
        self.families: dict[tuple, int] = {}
        #: The permutations checked on every edge (``checked_group``): empty when the form merges by none.
        self.group = checked_group(canon)
        #: Element ``a`` (0: the identity, ``n``: ``group[n - 1]``) composed with each permutation, as such a number.
        elements: list[frozenset[Any]] = [frozenset()] + [frozenset(permutation.parts) for permutation in self.group]
        self.products = [[elements.index(element ^ other) for other in elements[1:]] for element in elements]
        #: Pair number -> (its pair, per permutation the pair of the permuted step), made with the transition.
        self.pair_images: dict[int, tuple] = {}
        #: Alphabet (by identity) -> per permutation, where each event's image stands in it (``check_alphabet``).
        self.images: dict[int, tuple] = {}
        #: Pair number -> its (snapshot before, after, memory bit, admission): a judged step's moves, rebuilt.
        self.pair_values: list[tuple] = []
        #: Where the checks' own judgements and probes are counted: they are not steps of the search.
        self.scratch = Tally()
        #: Where ``judge`` counts one step's coverage before the verdict keeps it.
        self.step_coverage: Counter = Counter()
        #: Per group element: copy key -> its image (``check_step``).
        self.key_images: list[dict[CopyKey, CopyKey]] = [{} for _ in self.group]
        #: (group, permuted key, memory bit) -> (decoded budget, its snapshot): where image steps start (``check_step``).
        self.image_bases: dict[tuple, tuple] = {}

    def start(self) -> tuple[list[State], list[Violation]]:
        """The first level (the one initial state) and B13's answer there."""
        raw = [raw_key(clone(prototype), index > 0, self.canon) for index, prototype in enumerate(self.prototypes)]
        key = canonical(raw, self.edge_monitor.history(), self.canon)
        self.seen.add(key)
        return [key], self.probe(raw[R_AT], raw[P_AT], 0)

    def probe(self, reference: CopyKey, production: CopyKey, index: int) -> list[Violation]:
        """B13 is a property of P's state, not of a step: check it once per distinct (mirror-reduced) core of P.

        ``failure_ends`` and observing a failure read P's counters and flags
        only, never its memories, so the answer is a function of P's core and
        is cached on it (the lane mirror of a core has the mirrored answers,
        and B13 probes every lane).
        """
        core = production.core
        if self.canon.symmetry:
            other = mirrored(production).core
            if other < core:
                core = other
        if core in self.probed:
            return []
        self.probed.add(core)
        self.probe_monitor.budgets = {"R": decode_copy(self.prototypes[R_AT], reference), "P": decode_copy(self.prototypes[P_AT], production)}
        self.probe_monitor.index = index
        found = self.probe_monitor.step(PROBE_EVENT)
        if self.group:
            self.check_probe(reference, production, found)
        return found

    def event_flags(self, index: int, event: Event) -> tuple:
        """The seeds' flags of ``event`` as the copy ``index`` receives them (``properties.budget.copies.applier``)."""
        masks = self.masks[index]
        found = masks.get(id(event))
        if found is None:
            flags = FEATURE_FLAGS.get(ALL_COPIES[index], frozenset())
            found = masks[id(event)] = tuple(
                getattr(event, name, default) if name in flags else default for name, default in SEED_FLAGS
            )
        return found

    def copy_moves(self, index: int, key: CopyKey, events: tuple[Event, ...], membership: int = 0) -> tuple[Move, ...]:
        """The moves of a copy in state ``key`` for every event, each made once on the real budget and kept.

        Copies of one budget type with the same limits (every production
        copy) differ only in which of the seeds' flags they receive; the
        same key receiving the same event with the same flags makes the same
        move, so the transitions are shared between them (``event_flags``).
        """
        if not self.canon.ordered_ids:
            return self._moves_unordered(index, key, events, membership)
        group = self.groups[index]
        known = self.steps[group].get(key)
        if known is None:
            known = self.steps[group][key] = {}
        out = []
        template = None
        bases = self.image_bases
        for number, event in enumerate(events):
            slot = (id(event), self.event_flags(index, event))
            transition = known.get(slot)
            if transition is None:
                if template is None:
                    template = decode_copy(self.prototypes[index], key)
                    before = self.snappers[index](template)
                self.stepping = number
                transition = known[slot] = self.step_copy(index, template, event, before)
                if self.group:
                    self.check_step(index, key, events, number, transition, 0, bases)
            out.append(self._move(index, transition, transition.after))
        return tuple(out)

    def _moves_unordered(self, index: int, key: CopyKey, events: tuple[Event, ...], membership: int) -> tuple[Move, ...]:
        """The moves of a copy that never evicts an id (depth <= seen-calls cap): its memory read as one bit.

        Without eviction a budget reads its memory of call ids only to ask
        whether the receipt's id is in it, and it changes it only by adding
        that id. So the copy's move is made on a representative with the same
        counters and success memory, remembering one id ``r`` when the
        event's id is remembered (bit ``label`` of ``membership``: the labels
        this copy remembers, read off ``State.ids``) and none when it is
        fresh, through the real code; the move says whether the copy took the
        id (``Move.added``) and whether it keeps a memory at all
        (``Move.kept``), from which ``child_ids`` makes the child's ids. The
        key carries no memory, so its moves serve every state it appears in
        with the same membership. Transitions are shared between copies as in
        ``copy_moves``.
        """
        group = self.groups[index]
        known = self.bare_steps[group].get(key)
        if known is None:
            known = self.bare_steps[group][key] = {}
        drop_dead = self.canon.drop_dead
        #: The representative budgets, made when first needed: remembering nothing, remembering r.
        bases: list[Any] = [None, None]
        checked = self.image_bases
        out = []
        rows = self.rows
        for number, (_event, template, label, representative, mask) in enumerate(self.plan(index, events)):
            remembered = label is not None and (membership >> label) & 1
            slot = (template, remembered, mask)
            transition = known.get(slot)
            if transition is None:
                self.stepping = number
                budget = bases[remembered]
                if budget is None:
                    budget = bases[remembered] = decode_copy(
                        self.prototypes[index], with_seen(key, (REPRESENTATIVE,) if remembered else ()),
                    )
                transition = known[slot] = self.step_copy(index, budget, representative, self.snappers[index](budget))
                if self.group:
                    self.check_step(index, key, events, number, transition, remembered, checked)
            found = rows.get(id(transition))
            if found is None:
                found = self.row_of(transition)
            after = transition.after
            # Forgotten (``raw_key``) when stopped for good; otherwise the copy keeps its memory and adds
            # the event's id if the representative added r for it.
            kept = 0 if drop_dead and after.terminal and (index == 0 or not after.correction) else 1
            added = 1 if kept and not remembered and REPRESENTATIVE in after.seen else 0
            out.append(new_key(Move, (
                found[1], transition.before_snap, transition.after_snap, transition.seen, transition.admitted,
                found[0], added, kept,
            )))
        return tuple(out)

    def _history_dicts(self, history: History) -> tuple:
        """The monitor's history as its dictionaries, once per distinct history (the monitor never writes into them)."""
        found = self.history_dicts.get(history)
        if found is None:
            found = self.history_dicts[history] = (
                dict(zip(FEATURE_KEYS, history.features)), dict(zip(ADMISSION_KEYS, history.admissions)),
                dict(zip(ADMISSION_KEYS, history.streak)), dict(zip(ADMISSION_KEYS, history.fuse)),
                history.lookups_only,
            )
        return found

    def alphabet_labels(self, events: tuple[Event, ...]) -> tuple[tuple, bool, int, tuple]:
        """Per alphabet: its events' labels (None: no id), whether any id is a repeat, its family, its step keys.

        Without ordered ids a move names no label (``Move.added`` is a bit),
        so alphabets that offer the same templates, each with a fresh or the
        same repeated id, have the same moves from a copy key: they are one
        family. The counters' alphabets differ only in the name of the fresh
        id (``remembered``), so they all are.

        The step keys stand for the events in a verdict's key (``Verdict``):
        no predicate reads an id's name (whether the id was remembered is in
        the moves), so an event made from a template is its template there,
        and a step judged with a fresh ``c3`` is not judged again with ``c4``.
        """
        found = self.labels.get(id(events))
        if found is None:
            labels = tuple(ORIGIN[id(event)][1] if id(event) in ORIGIN else None for event in events)
            fresh = max((label for label in labels if label is not None), default=0)
            shape = tuple(
                (id(event), None) if label is None else (id(ORIGIN[id(event)][0]), "fresh" if label == fresh else label)
                for event, label in zip(events, labels)
            )
            family = self.families.setdefault(shape, len(self.families))
            keys = tuple(id(ORIGIN[id(event)][0]) if label is not None else id(event) for event, label in zip(events, labels))
            found = self.labels[id(events)] = (labels, any(label is not None and label < fresh for label in labels), family, keys)
        return found

    def plan(self, index: int, events: tuple[Event, ...]) -> tuple[tuple, ...]:
        """Per event of an alphabet: (event, its template's id, its id's label, the representative event, flags)."""
        plans = self.plans[index]
        found = plans.get(id(events))
        if found is None:
            rows: list[tuple[Any, ...]] = []
            for event in events:
                origin = ORIGIN.get(id(event))
                if origin is None:
                    rows.append((event, id(event), None, event, self.event_flags(index, event)))
                else:
                    template, label = origin
                    rows.append((event, id(template), label, representative_of(template), self.event_flags(index, event)))
            found = plans[id(events)] = tuple(rows)
        return found

    def step_copy(self, index: int, template: Any, event: Event, before: Snap) -> Transition:
        """Deliver ``event`` to a copy of ``template`` (a budget of the copy ``index``, snapshot ``before``)."""
        budget = clone(template)
        seen = isinstance(event, Result) and event.call_id in budget.seen_call_set
        # Issue 25: one copy's step is bounded by counting (``properties.work_bound``); ``expand`` reports a copy
        # that runs past it as B6 at this edge, where an unbounded step would hang the search.
        saved = work_bound.push(work_bound.STEP_LOOPS, f"copy {ALL_COPIES[index]}'s step")
        try:
            admitted = self.appliers[index](budget, event)
        finally:
            work_bound.pop(saved)
        after = raw_key(budget, index > 0, self.canon, LABEL_OF)
        return Transition(after, before, self.snappers[index](budget), seen, admitted)

    def row_of(self, transition: Transition) -> tuple:
        """(its pair number, its after key without memory, the transition), kept per transition."""
        value = (transition.before_snap, transition.after_snap, transition.seen, transition.admitted)
        pair = self.pairs.setdefault(value, len(self.pairs))
        if pair == len(self.pair_values):
            self.pair_values.append(value)
        after = transition.after
        # The transition is kept with its pair, so that its id stays its own.
        found = self.rows[id(transition)] = (pair, with_seen(after, ()) if after.seen else after, transition)
        return found

    def _move(self, index: int, transition: Transition, after: CopyKey) -> Move:
        known = self.rows.get(id(transition))
        if known is None:
            known = self.row_of(transition)
        # ``Move(...)`` without the named tuple's Python-level constructor: this runs once per copy and event.
        return new_key(Move, (after, transition.before_snap, transition.after_snap, transition.seen, transition.admitted, known[0], 0, 0))

    def _flags(self, index: int, events: tuple[Event, ...]) -> int:
        """The flags copy ``index`` receives on every event of ``events``, as a number: equal numbers, equal moves."""
        found = self.flag_numbers[index].get(id(events))
        if found is None:
            masks = tuple(row[4] for row in self.plan(index, events))
            found = self.flag_numbers[index][id(events)] = self.flag_kinds.setdefault(masks, len(self.flag_kinds))
        return found

    def _entry(self, index: int, copy: CopyKey, events: tuple[Event, ...], tag: int, membership: int) -> tuple:
        """Copy ``index``'s cached moves from ``copy``: (moves, pairs, after keys, added bits, kept bits).

        Made once per group of copies that move alike (same budget type and
        limits, same flags on every event): the copies of one state often
        hold the same key (with the counters' alphabet the copies without a
        seed's flag always do), and only the memory bits name the copy.
        """
        shared_key = (self.groups[index], self._flags(index, events), copy, tag, membership)
        shared = self.shared.get(shared_key)
        if shared is None:
            moves = self.copy_moves(index, copy, events, membership)
            numbers = self.key_numbers
            shared = self.shared[shared_key] = (
                moves, tuple([move.pair for move in moves]), tuple([move.after for move in moves]),
                tuple([move.added for move in moves]), tuple([move.kept for move in moves]),
                tuple([numbers.setdefault(move.after, len(numbers)) for move in moves]),
            )
        moves, pairs, afters, added, kept, numbers = shared
        if not self.canon.ordered_ids:
            bit = 1 << index
            added = tuple([flag * bit for flag in added])
            kept = tuple([flag * bit for flag in kept])
        return moves, pairs, afters, added, kept, numbers

    def judge(
        self, event: Event, moves: Sequence[Move], history: tuple, index: int, before: dict[str, Snap],
        fresh_ids: dict[str, bool],
    ) -> tuple[list[Violation], tuple, Verdict]:
        """Check every edge invariant on one step given by the copies' moves; return the history after it.

        The same work ``Monitor.step`` does once it has delivered the event:
        the history update, the step record, every check, the coverage counts.
        ``before`` (every copy's snapshot) and ``fresh_ids`` (which copies
        count a receipt with a fresh id: the open ones) are the state's own,
        shared by its edges: no check writes to a step's maps.
        """
        monitor = self.edge_monitor
        monitor.restore_history_maps(history)
        after = dict(zip(ALL_COPIES, [move.after_snap for move in moves]))
        rows = tuple([(name, move.before_snap, move.after_snap) for name, move in zip(ALL_COPIES, moves)])
        admitted = NO_FLAGS
        if type(event) is Result:
            call_id = event.call_id
            failed = bool(event.failed)
            if not any(move.seen for move in moves):
                duplicate = NO_FLAGS
                fresh = fresh_ids if call_id != "" else NO_FLAGS
            else:
                duplicate = {name: move.seen for name, move in zip(ALL_COPIES, moves)}
                fresh = {name: not move.seen and not move.before_snap.terminal for name, move in zip(ALL_COPIES, moves)}
        else:
            failed = False
            duplicate = fresh = NO_FLAGS
            if type(event) is FirstCall:
                admitted = {name: move.admitted for name, move in zip(ALL_COPIES, moves)}
        monitor.update_history(event, before, after, admitted)
        step = monitor.step_record(index, event, before, after, duplicate, admitted, fresh, failed, rows, rows[1:], None)
        tally = self.tally
        # The step's coverage is counted on its own (the verdict keeps it), then added to the tally's.
        coverage = tally.coverage
        # One counter, emptied per step, rather than a new one each time (the checks judge as many steps again).
        own = self.step_coverage
        own.clear()
        tally.coverage = own
        held: list[str] = []
        found = self.edge_judge(step, index, tally, monitor.count_coverage, held)
        gained = tuple(own.items())
        tally.coverage = coverage
        if gained:
            coverage.update(dict(gained))
        tally.steps += 1
        history = monitor.history()
        return found, history, Verdict(history, tuple(held), gained)

    #: How often (in states expanded) the caches are measured against their bounds.
    trim_every = 1024

    def _trim(self) -> None:
        """Empty the caches that outgrew their bound (``CACHE_BOUNDS``): they only save work, so nothing else changes.

        The pair numbers are kept: the stored verdicts' keys are made of them.
        """
        if len(self.verdicts) > CACHE_BOUNDS["verdicts"]:
            self._count_repeats()
            self.verdicts.clear()
        if len(self.raw_seen) > CACHE_BOUNDS["raw children"]:
            self.raw_seen.clear()
        if len(self.image_bases) > CACHE_BOUNDS["moves"]:
            self.image_bases.clear()
        if sum(len(cache) for cache in self.moves) > CACHE_BOUNDS["moves"]:
            for caches in (self.moves, self.steps, self.bare_steps, self.key_images):
                for cache in caches:
                    cache.clear()
            self.rows.clear()
            self.shared.clear()
            self.image_bases.clear()

    def _count_repeats(self) -> None:
        """Add the counts of every repeated step (``Verdict``) to the tally, once."""
        tally = self.tally
        for verdict in self.verdicts.values():
            repeats = verdict.repeats
            if not repeats:
                continue
            verdict.repeats = 0
            tally.steps += repeats
            tally.checked_steps[self.check_ids] += repeats
            for invariant_id in verdict.exercised:
                tally.exercised[invariant_id] += repeats
            for name, count in verdict.coverage:
                tally.coverage[name] += count * repeats

    def expand(self, keys: Sequence[State], depth: int) -> tuple[list[tuple[int, int, State]], tuple | None, int]:
        """Children new to this expander as (key index, event index, child); the first violation, if any; the edges.

        A violation is (key index, event index, the step's violations, probe):
        ``probe`` when it is B13's, found at the child that edge reached. The
        edges are those taken, up to and including a violating one.
        """
        children: list[tuple[int, int, State]] = []
        seen = self.seen
        raw_seen = self.raw_seen
        canon = self.canon
        caches = self.moves
        judge = self.judge
        verdicts = self.verdicts
        memo = self.memo
        intern = self.interned.setdefault
        unordered = not canon.ordered_ids
        edges = 0
        for position, key in enumerate(keys):
            if not position % self.trim_every:
                self._trim()
                if self.known is not None and progress.active():
                    progress.update(level=f"level {depth + 1}: {position * 100 // len(keys)}% expanded",
                                    states=self.known + len(children))
            events = events_of(key, self.config)
            edges += len(events)
            tag = id(events)
            if self.group and tag not in self.images:
                try:
                    self.check_alphabet(events)
                except SymmetryBroken as broken:
                    return children, (position, self.stepping, [], False, broken), edges - len(events) + self.stepping + 1
            entries = []
            labels, duplicates, family, step_events = self.alphabet_labels(events)
            if unordered:
                ids = key.ids
                tag = family
            for index, copy in enumerate(key.copies):
                # A copy's moves depend on its memory only through which of the alphabet's repeated ids it
                # remembers; an alphabet without repeated ids (the counters') reads no memory at all.
                membership = membership_of(ids, index) if unordered and duplicates else 0
                found = caches[index].get((copy, tag, membership))
                if found is None:
                    try:
                        found = caches[index][(copy, tag, membership)] = self._entry(index, copy, events, tag, membership)
                    except work_bound.WorkBoundExceeded as error:
                        number = self.stepping
                        runaway = [Violation("B6", depth, runaway_message(error), BY_ID["B6"].title)]
                        return children, (position, number, runaway, False), edges - len(events) + number + 1
                    except SymmetryBroken as broken:
                        number = self.stepping
                        return children, (position, number, [], False, broken), edges - len(events) + number + 1
                entries.append(found)
            columns = list(zip(*entries))
            pair_columns = zip(*columns[1])
            after_columns = list(zip(*columns[2]))
            number_columns = list(zip(*columns[5]))
            history_numbers = self.history_numbers
            if unordered:
                added_masks = list(map(sum, zip(*columns[3])))
                kept_masks = list(map(sum, zip(*columns[4])))
            state_history = key.history
            state_number = history_numbers.setdefault(state_history, len(history_numbers))
            # What judging needs (the moves by event, the history as the monitor keeps it, the snapshots
            # before), made on the state's first step not judged before: often none is.
            move_columns = None
            for number, pairs in enumerate(pair_columns):
                # A step is a pure function of the event, the history and each copy's snapshots (with
                # its memory bit and admission): one judged already is judged again by counting it.
                step_key = (step_events[number], state_number, pairs)
                verdict = verdicts.get(step_key) if memo else None
                if verdict is None:
                    if move_columns is None:
                        move_columns = list(zip(*columns[0]))
                        history = self._history_dicts(state_history)
                        # Every move of a copy starts from the same snapshot: the state's own.
                        before = {name: moves[0].before_snap for name, moves in zip(ALL_COPIES, columns[0])}
                        fresh_ids = {name: not snap.terminal for name, snap in before.items()}
                    violations, after_history, verdict = judge(events[number], move_columns[number], history, depth, before, fresh_ids)
                    if violations:
                        return children, (position, number, violations, False), edges - len(events) + number + 1
                    if self.group:
                        try:
                            self.check_judge(events, number, pairs, step_events, state_number, history, depth, verdict)
                        except SymmetryBroken as broken:
                            return children, (position, number, [], False, broken), edges - len(events) + number + 1
                    if memo:
                        verdicts[step_key] = verdict
                else:
                    verdict.repeats += 1
                    after_history = verdict.history
                raw: tuple[Any, ...]
                if unordered:
                    after_ids = child_ids(ids, labels[number], added_masks[number], kept_masks[number])
                    raw = (number_columns[number], history_numbers.setdefault(after_history, len(history_numbers)), after_ids)
                else:
                    after_ids = None
                    raw = (number_columns[number], history_numbers.setdefault(after_history, len(history_numbers)))
                # A raw child met before was canonicalized then: its canonical state is known already.
                if raw in raw_seen:
                    continue
                raw_seen.add(raw)
                afters = after_columns[number]
                child = canonical(afters, after_history, canon, after_ids)
                if child in seen:
                    continue
                # Kept for the rest of the search: its copies are shared with every other state holding them.
                child = State(
                    tuple([intern(copy, copy) for copy in child.copies]), intern(child.history, child.history),
                    intern(child.ids, child.ids),
                )
                seen.add(child)
                children.append((position, number, child))
                # Numbered as Monitor.step numbers it: the step of the event that reached this state (0-based).
                try:
                    bad = self.probe(afters[R_AT], afters[P_AT], depth)
                except SymmetryBroken as broken:
                    return children, (position, number, [], True, broken), edges - len(events) + number + 1
                if bad:
                    return children, (position, number, bad, True), edges - len(events) + number + 1
        return children, None, edges

    def counts(self) -> Tally:
        """Check counts of this expander: every edge, plus B13 once per probed state (no coverage counts)."""
        self._count_repeats()
        out = Tally()
        out.add_checks(self.tally)
        out.exercised.update(self.tally.exercised)
        out.violations.extend(self.tally.violations)
        out.steps = self.tally.steps
        out.add_checks(self.probe_tally)
        out.exercised["B13"] += self.probe_tally.exercised["B13"]
        out.violations.extend(self.probe_tally.violations)
        return out
