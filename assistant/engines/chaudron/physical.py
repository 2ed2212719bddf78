"""Checking a physical move: the cauldron seen before and after one ingredient card.

The live table calls ``check_move`` after each card: it searches the player's possible choices (where
each block went, where the Cramés went, the order of additions, which resources a potion took) for one
that turns ``before`` into ``after``. The search is pruned by the cells that changed: every partial state
must still be able to reach ``after`` with what the rest of the card can do (a cell can only end as a
Cramé if Cramés may still come, as a bone if bones may still be added, and so on), so placements that
touch cells the camera saw unchanged are cut at once.
"""

from __future__ import annotations

from dataclasses import dataclass

from .cards import Ingredient
from .concoct import may_complete, solutions
from .grid import BURNT, EMPTY, LABELS, STONE, Cauldron, bits, cell_name
from .ingredient import (
    RESOURCE_CODES,
    Context,
    Resolution,
    State,
    burn_targets,
    cascade,
    clear,
    may_overlap,
    move,
    put,
    removal_candidates,
    remove_all,
    resolution,
    suffer,
    write,
)
from .shapes import any_placements

# Phases of a card; capabilities of phase p and later decide what a cell may still become.
REMOVE_ALL, REMOVE, BURN1, ADD, BURN2, DUPLICATE, BURN3, MOVE, END = range(9)
ALL_PIECES = frozenset(range(1, 8))


@dataclass(frozen=True)
class Verdict:
    """The answer to one physical move: legal or not, why not, and (when it could be explained, even with
    Cramés missing) what the card did."""

    legal: bool
    reason: str | None
    resolution: Resolution | None = None

    @property
    def burnt(self) -> int | None:
        """How many Cramés the card should have added."""
        return None if self.resolution is None else self.resolution.burnt


class _Caps:
    """What phases p.. of a card can still do to a cell."""

    def __init__(self, ctx: Context, p: int):
        card = ctx.card
        self.clear: set[int] = set()
        self.fill: set[int] = set()
        self.burn = p <= BURN3 and ctx.cap > 0
        writes = (p <= ADD and ctx.add_groups) or (p <= DUPLICATE and card.duplicate) or (p <= MOVE and card.move)
        if writes:
            self.clear |= ctx.triggers  # a potion may take them
        if p <= REMOVE_ALL:
            self.clear |= {LABELS.index(label) for label in card.remove_all}
        if p <= REMOVE:
            self.clear |= {LABELS.index(label) for g in ctx.remove_groups for label in g.labels}
        if p <= ADD:
            self.fill |= {LABELS.index(label) for g in ctx.add_groups for label in g.labels}
        if p <= DUPLICATE and card.duplicate:
            self.fill |= set(RESOURCE_CODES)
        self.moves = p <= MOVE and card.move > 0
        if self.moves:
            self.clear |= ALL_PIECES
            self.fill |= ALL_PIECES

    def feasible(self, v: int, t: int) -> bool:
        """Can a cell holding ``v`` now still end holding ``t``? (Generous: it only prunes the impossible.)"""
        if v == t:
            return True
        if t == EMPTY:
            return v in self.clear
        if not (t in self.fill or (t == BURNT and self.burn)):
            return False
        if v == EMPTY or v in self.clear:
            return True
        # Over a full cell: an addition or copy replaces a resource (never a Cramé), a Cramé replaces a resource.
        return v != BURNT and ((t in self.fill and t != BURNT) or (t == BURNT and (self.burn or t in self.fill)))


class _Search:
    def __init__(self, ctx: Context, after: Cauldron, relax: int):
        self.ctx, self.relax = ctx, relax
        self.after = after.codes
        self.after_masks = after.masks
        caps = [_Caps(ctx, p) for p in range(END + 1)]
        self.table = [[[c.feasible(v, t) for t in range(8)] for v in range(8)] for c in caps]
        # Cells that may end empty after phase p, i.e. that a removal or a potion may take.
        self.clearable = [sum(1 << i for i, t in enumerate(self.after) if tab[EMPTY][t]) for tab in self.table]
        self.dead: set = set()
        self.add_cands = None
        # How many pieces of each kind phases p.. can still create at most (Cramés are counted per state).
        adds = [0] * 8
        for g in ctx.add_groups:
            for b in g.blocks:
                for _, _, label in b.cells:
                    for name in (b.choice if label == "?" else (label,)):
                        adds[LABELS.index(name)] += 1
        dups = ctx.card.duplicate
        self.create = [[(adds[c] if p <= ADD else 0) + (dups if p <= DUPLICATE and c in RESOURCE_CODES else 0)
                        for c in range(8)] for p in range(END + 1)]
        self.after_counts = [m.bit_count() for m in self.after_masks]

    # -- pruning
    def ok(self, st: State, p: int) -> bool:
        diff = 0
        for a, b in zip(st.masks, self.after_masks, strict=True):
            diff |= a ^ b
        tab = self.table[p]
        after, cells = self.after, st.cells
        if not all(tab[cells[i]][after[i]] for i in bits(diff)):
            return False
        # Counts: pieces seen after that are not there yet must still be creatable (moves create nothing).
        create = self.create[p]
        for code in range(1, 8):
            need = self.after_counts[code] - st.masks[code].bit_count()
            if need > 0:
                room = st.owed + self.ctx.cap - st.suffered if code == BURNT and p <= BURN3 else create[code]
                if need > room:
                    return False
        return True

    def chooser(self, p: int):
        allowed = self.clearable[p]

        def choose(st: State, pi: int, groups):
            seen = set()
            for used, wildcard in solutions(st.masks, groups, bool(st.masks[STONE]), allowed):
                removed = used & ~wildcard
                if removed not in seen:
                    seen.add(removed)
                    yield used, wildcard
        return choose

    # -- driver
    def run(self, st: State) -> State | None:
        return self.phase(REMOVE_ALL, st)

    def phase(self, p: int, st: State) -> State | None:
        if st.won or p == END:
            return st if st.cells == self.after else None
        if not self.ok(st, p):
            return None
        key = (p, st.key())
        if key in self.dead:
            return None
        for nxt in self.steps(p, st):
            found = self.phase(p + 1, nxt)
            if found is not None:
                return found
        self.dead.add(key)
        return None

    def steps(self, p: int, st: State):
        if p == REMOVE_ALL:
            return iter([remove_all(self.ctx, st)])
        if p == REMOVE:
            return self.removals(st)
        if p in (BURN1, BURN2, BURN3):
            return self.burns(st, p)
        if p == ADD:
            return self.additions(st)
        if p == DUPLICATE:
            return self.duplicates(st, self.ctx.card.duplicate)
        return self.moves(st, self.ctx.card.move)

    # -- 1. removal
    def removals(self, st: State):
        ctx = self.ctx
        groups = ctx.remove_groups
        if not groups:
            yield st
            return
        clearable = self.clearable[BURN1]
        cands = []
        for g in groups:
            seen = {}
            for pl in any_placements(g, ctx.rows, ctx.cols, False):
                taken, missing = removal_candidates(st.masks, pl)
                if taken & ~clearable == 0:
                    seen.setdefault((taken, min(missing, ctx.cap)), None)
            cands.append(list(seen))
        if ctx.card.or_suffer:
            yield suffer(ctx, st._replace(log=(*st.log, ("or_suffer", ctx.card.or_suffer))), ctx.card.or_suffer,
                         "the card's 'or suffer'")
            cands = [[c for c in cs if c[1] == 0] for cs in cands]
        combos: dict = {}

        def rec(k: int, used: int, parts: tuple):
            if k == len(cands):
                combos.setdefault((used, sum(m for _, m in parts)), parts)
                return
            for taken, missing in cands[k]:
                if not taken & used:
                    rec(k + 1, used | taken, (*parts, (taken, missing)))

        rec(0, 0, ())
        # Fewest Cramés first: the likeliest explanation is found first.
        for (used, missing), parts in sorted(combos.items(), key=lambda kv: (kv[0][1], -kv[0][0].bit_count())):
            nxt = clear(st, used)
            log = nxt.log + tuple(("remove", g, taken, miss) for g, (taken, miss) in enumerate(parts))
            yield suffer(ctx, nxt._replace(log=log), missing, "resources missing for the removal")

    # -- Cramés placed at the end of a step
    def burns(self, st: State, p: int):
        owed = st.owed
        st = st._replace(owed=0)
        if not owed:
            yield st
            return
        tab = self.table[p + 1]
        after = self.after

        def rec(st: State, k: int, low: int, on_empty: bool):
            if k == 0:
                yield st
                return
            targets = burn_targets(st)
            if not targets:
                yield from rec(st._replace(log=(*st.log, ("lost-burn",))), k - 1, low, on_empty)
                return
            empty_now = bool(st.masks[EMPTY])
            if on_empty and not empty_now:
                low = 0  # the empty cells ran out: now over resources, again in reading order
            for i in bits(targets >> low << low):
                if tab[BURNT][after[i]]:
                    nxt = put(st, i, BURNT)._replace(log=(*st.log, ("burn", i)))
                    yield from rec(nxt, k - 1, i + 1, empty_now)
            if st.missing < self.relax:
                yield from rec(st._replace(missing=st.missing + 1, log=(*st.log, ("burn-missing",))), k - 1, low,
                               on_empty)

        yield from rec(st, owed, 0, True)

    # -- 2. addition
    def additions(self, st: State):
        ctx = self.ctx
        groups = ctx.add_groups
        if not groups:
            yield st
            return
        tab, after = self.table[ADD], self.after
        if self.add_cands is None:
            self.add_cands = []
            for g in groups:
                seen = {}
                for pl in any_placements(g, ctx.rows, ctx.cols, True):
                    if all(tab[code][after[i]] for i, code in pl.cells):
                        seen.setdefault((pl.cells, min(pl.outside, ctx.cap)), pl)
                self.add_cands.append(list(seen.values()))
        # With one group the room test is exact here; with several, a group's room also depends on where the
        # others go (see ``may_overlap``), so only Cramés are cut here and the room is checked per combination.
        alone = len(groups) == 1
        cands = [[pl for pl in cs if (may_overlap(ctx, st, pl) if alone else not pl.mask & st.masks[BURNT])]
                 for cs in self.add_cands]
        # Fewest resources that must vanish again (taken by a potion), then fewest Cramés, first.
        for cs in cands:
            cs.sort(key=lambda pl: (sum(after[i] != code for i, code in pl.cells),
                                    pl.outside + (pl.mask & ~st.masks[EMPTY]).bit_count()))
        empty = st.masks[EMPTY]

        def rec(k: int, used: int, chosen: tuple):
            if k == len(cands):
                if alone or all(may_overlap(ctx, st, pl, used & ~pl.mask) for pl in chosen):
                    yield chosen
                return
            for pl in cands[k]:
                if not pl.mask & used:
                    yield from rec(k + 1, used | pl.mask, (*chosen, pl))

        for chosen in rec(0, 0, ()):
            if not self.may_vanish(st, chosen, empty):
                continue
            nxt, writes = st, []
            for g, pl in enumerate(chosen):
                nxt = nxt._replace(log=(*nxt.log, ("place", g, pl)))
                nxt = suffer(ctx, nxt, pl.outside, f"{pl.outside} off the cauldron (addition block {g + 1})")
                writes += pl.cells
            # Resources that go on an empty cell and cannot complete a potion commute with everything.
            rest = []
            for i, code in sorted(writes):
                if code not in ctx.triggers and nxt.cells[i] == EMPTY:
                    nxt = write(ctx, nxt, i, code, "add")
                else:
                    rest.append((i, code))
            yield from self.write_in_order(nxt, tuple(rest))

    def may_vanish(self, st: State, chosen, empty: int) -> bool:
        """Added resources that the camera does not see must have gone into a potion. When every resource
        goes on an empty cell, the cauldron with all of them in holds every state on the way, so some waiting
        potion must be concoctable in it."""
        vanish = next((i for pl in chosen for i, _ in pl.cells if self.after[i] == EMPTY), None)
        if vanish is None or any(pl.mask & ~empty for pl in chosen) or self.ctx.card.duplicate or self.ctx.card.move:
            return True
        masks = list(st.masks)
        for pl in chosen:
            masks[EMPTY] &= ~pl.mask
            for code, m in pl.reqs:
                masks[code] |= m
        ctx = self.ctx
        # Potions revealed on the way (when one is made and none is left) may take it too.
        waiting = (*st.revealed, *range(st.next_up, len(ctx.potions)))
        return any(may_complete(masks, ctx.potions[pi], ctx.rows, ctx.cols, vanish) for pi in waiting)

    def write_in_order(self, st: State, rest: tuple):
        if st.won or not rest:
            yield st
            return
        if not self.ok(st, ADD):
            return
        key = ("w", st.key(), rest)
        if key in self.dead:
            return
        choose = self.chooser(ADD)
        for j, (i, code) in enumerate(rest):
            for nxt in cascade(self.ctx, write(self.ctx, st, i, code, "add"), choose, i):
                yield from self.write_in_order(nxt, rest[:j] + rest[j + 1:])
        self.dead.add(key)

    # -- 3. duplication
    def duplicates(self, st: State, left: int):
        resources = sum(st.masks[c] for c in RESOURCE_CODES)
        if st.won or not left or not resources:
            yield st
            return
        if not self.ok(st, DUPLICATE):
            return
        key = ("d", st.key(), left)
        if key in self.dead:
            return
        tab, after, choose = self.table[DUPLICATE], self.after, self.chooser(DUPLICATE)
        targets = burn_targets(st)
        for code in RESOURCE_CODES:
            if not st.masks[code]:
                continue
            for j in bits(targets):
                if tab[code][after[j]] and st.masks[code] != 1 << j:
                    for nxt in cascade(self.ctx, write(self.ctx, st, j, code, "duplicate"), choose, j):
                        yield from self.duplicates(nxt, left - 1)
        self.dead.add(key)

    # -- 4. moves
    def moves(self, st: State, left: int):
        yield st
        if st.won or not left or not st.masks[EMPTY]:
            return
        if not self.ok(st, MOVE):
            return
        key = ("m", st.key(), left)
        if key in self.dead:
            return
        tab, after, choose = self.table[MOVE], self.after, self.chooser(MOVE)
        triggers = self.ctx.triggers
        # A move mends at most two cells (where the piece was, where it goes); a potion empties the rest.
        diff = 0
        for a, b in zip(st.masks, self.after_masks, strict=True):
            diff |= a ^ b
        hard = [i for i in bits(diff) if not (after[i] == EMPTY and st.cells[i] in triggers)]
        if len(hard) > 2 * left:
            return
        empty = st.masks[EMPTY]
        for i in bits(~empty & ((1 << len(st.cells)) - 1)):
            if not tab[EMPTY][after[i]] or (left == 1 and after[i] != EMPTY):
                continue
            code = st.cells[i]
            for j in bits(empty):
                if left == 1 and not (after[j] == code or (after[j] == EMPTY and code in triggers)):
                    continue
                if tab[code][after[j]]:
                    for nxt in cascade(self.ctx, move(self.ctx, st, i, j), choose, j):
                        yield from self.moves(nxt, left - 1)
        self.dead.add(key)


def check_move(before: Cauldron, after: Cauldron, card: Ingredient, revealed=(), upcoming=None) -> Verdict:
    """Is ``after`` a cauldron that ``card`` allows from ``before``, with the ``revealed`` potions waiting
    (oldest first) and, if known, the whole face-down potion deck ``upcoming`` (top first)?

    A legal move comes with its ``Resolution`` (placements, Cramés the card caused, potions concocted). An
    illegal one comes with the reason: Cramés missing (with the resolution that needs them), a cell the
    card cannot explain, or no placement that fits.
    """
    if (before.rows, before.cols) != (after.rows, after.cols):
        return Verdict(False, f"the cauldron was {before.rows} x {before.cols} and is now {after.rows} x "
                              f"{after.cols}")
    ctx = Context(before.rows, before.cols, card, revealed, upcoming)
    start = ctx.start(before)
    found = _Search(ctx, after, 0).run(start)
    if found is not None:
        return Verdict(True, None, resolution(ctx, found))
    reason = _impossible_cell(ctx, before, after) or _too_many_burnt(ctx, before, after)
    if reason:
        return Verdict(False, reason)
    # Could it be explained with Cramés left off the cauldron? Find the fewest missing.
    found = _Search(ctx, after, ctx.cap).run(start) if ctx.cap else None
    if found is None:
        return Verdict(False, _no_fit(ctx, before, after))
    for relax in range(1, found.missing):
        fewer = _Search(ctx, after, relax).run(start)
        if fewer is not None:
            found = fewer
            break
    res = resolution(ctx, found)
    n = res.missing_burnt
    return Verdict(False, f"{n} Cramé{'s' if n > 1 else ''} missing: {card.name} causes {res.burnt} "
                          f"Cramé{'s' if res.burnt != 1 else ''} here", res)


def _impossible_cell(ctx: Context, before: Cauldron, after: Cauldron) -> str | None:
    caps = _Caps(ctx, REMOVE_ALL)
    for i, (v, t) in enumerate(zip(before.codes, after.codes, strict=True)):
        if not caps.feasible(v, t):
            return f"{cell_name(i, ctx.cols)}: {LABELS[v]} became {LABELS[t]}, which {ctx.card.name} cannot do"
    return None


def _too_many_burnt(ctx: Context, before: Cauldron, after: Cauldron) -> str | None:
    new = (after.masks[BURNT] & ~before.masks[BURNT]).bit_count()
    if new > ctx.cap:
        return f"{new} new Cramés, but {ctx.card.name} can cause at most {ctx.cap}"
    return None


def _no_fit(ctx: Context, before: Cauldron, after: Cauldron) -> str:
    changes = [f"{cell_name(i, ctx.cols)} {LABELS[v]}->{LABELS[t]}"
               for i, (v, t) in enumerate(zip(before.codes, after.codes, strict=True)) if v != t]
    seen = ", ".join(changes) if changes else "no change"
    return f"no way of playing {ctx.card.name} gives this cauldron (seen: {seen})"
