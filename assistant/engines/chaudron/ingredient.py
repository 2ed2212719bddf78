"""Applying an ingredient card to the cauldron, with the player's choices (a ``Play``).

The card's effects, in order:

1. Remove: every resource of each "tous vos X" kind (never a Cramé), then each removal group laid where
   the player wants, taking the matching resources; each missing one costs 1 Cramé. A philosopher's
   stone is never a wildcard here. A card offering "ou subissez N Cramés" is either removed in full, or
   (by choice, or because it cannot be removed in full) costs its N Cramés and removes nothing.
2. Add: each group laid where the player wants; a cell off the cauldron costs 1 Cramé and adds nothing; a
   cell holding a resource is replaced and costs 1 Cramé, which the rulebook allows only when there is no
   room left, so a group may overlap resources only if it has no placement entirely on the cells left
   empty by the card's other groups. A Cramé is never covered: the rulebook replaces "d'autres Ressources
   déjà existantes", and a Cramé is not a resource (the group goes elsewhere, or off the edge). Blue
   (optional) blocks may be left out. Resources go in one at a time and a potion that becomes
   concoctable is concocted at once, which may free cells for the rest.
3. Duplicate: copy a resource of the cauldron to an empty cell (no adjacency), or over a resource when
   there is no empty cell, for 1 Cramé.
4. Move: up to N pieces (resources or Cramés) to empty cells; each move is optional.

Cramés suffered in a step are placed when that step ends, each on an empty cell, or over a resource when
none is empty (no further Cramé). A card causes at most ``card.max_burnt`` Cramés (5 unless it says so).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from .cards import Ingredient, Potion
from .concoct import Concoction, compiled, find, may_complete
from .grid import BURNT, CODE, EMPTY, LABELS, STONE, Cauldron, IllegalMove, bits, cell_name
from .shapes import Placement, any_placements, fits_empty

RESOURCE_CODES = tuple(range(1, 7))
Cell = tuple[int, int]


class State(NamedTuple):
    """The cauldron in the middle of resolving one card (internal to the engine)."""

    cells: tuple[int, ...]
    masks: tuple[int, ...]
    suffered: int            # Cramés this card has caused so far (capped)
    owed: int                # of those, not yet placed on the cauldron
    revealed: tuple[int, ...]  # indices into Context.potions, oldest first
    next_up: int             # index into Context.potions of the next potion to reveal
    made: tuple[int, ...]    # potions concocted during this card
    won: bool
    missing: int             # Cramés due but not on the cauldron (only the relaxed search counts these)
    log: tuple[tuple, ...]

    def key(self) -> tuple:
        return (self.cells, self.suffered, self.owed, self.revealed, self.next_up, self.missing)


class Context:
    """What stays fixed while one card is resolved."""

    def __init__(self, rows: int, cols: int, card: Ingredient, revealed, upcoming):
        self.rows, self.cols, self.card = rows, cols, card
        self.cap = card.max_burnt
        self.potions: tuple[Potion, ...] = tuple(revealed) + tuple(upcoming or ())
        self.deck_known = upcoming is not None   # only then can the last potion be recognised
        self.first_revealed = tuple(range(len(revealed)))
        self.compiled = [compiled(p, rows, cols) for p in self.potions]
        # Codes whose arrival can complete a potion (a stone may be a wildcard for any of them).
        self.triggers = frozenset(code for p in self.potions for g in p.groups
                                  for shape, _ in g.variants(False) for _, _, code in shape)
        if self.triggers:
            self.triggers |= {STONE}
        self.remove_groups = card.remove_groups
        self.add_groups = card.add_groups

    def start(self, cauldron: Cauldron) -> State:
        # Normally no waiting potion is concoctable before a card (it would have been concocted): then only
        # potions using the cell that just changed need a look.
        self.settled = all(find(cauldron.masks, self.compiled[pi]) is None for pi in self.first_revealed)
        return State(cauldron.codes, cauldron.masks, 0, 0, self.first_revealed, len(self.first_revealed), (),
                     False, 0, ())


def put(st: State, i: int, code: int) -> State:
    old = st.cells[i]
    masks = list(st.masks)
    masks[old] &= ~(1 << i)
    masks[code] |= 1 << i
    return st._replace(cells=(*st.cells[:i], code, *st.cells[i + 1:]), masks=tuple(masks))


def clear(st: State, mask: int) -> State:
    cells = list(st.cells)
    masks = list(st.masks)
    for i in bits(mask):
        masks[cells[i]] &= ~(1 << i)
        cells[i] = EMPTY
    masks[EMPTY] |= mask
    return st._replace(cells=tuple(cells), masks=tuple(masks))


def suffer(ctx: Context, st: State, n: int, why: str) -> State:
    n = min(n, ctx.cap - st.suffered)
    if n <= 0:
        return st
    return st._replace(suffered=st.suffered + n, owed=st.owed + n, log=(*st.log, ("suffer", n, why)))


def burn_targets(st: State) -> int:
    """Where a Cramé may go now: an empty cell, or over a resource when none is empty."""
    if st.masks[EMPTY]:
        return st.masks[EMPTY]
    return sum(st.masks[c] for c in RESOURCE_CODES)


def write(ctx: Context, st: State, i: int, code: int, verb: str) -> State:
    """Put a resource on cell ``i``: over a full cell it replaces it for 1 Cramé."""
    replaced = st.cells[i]
    if replaced != EMPTY:
        st = suffer(ctx, st, 1, f"{LABELS[code]} over {LABELS[replaced]} at {cell_name(i, ctx.cols)}")
    st = put(st, i, code)
    return st._replace(log=(*st.log, (verb, i, code, replaced)))


def cascade(ctx: Context, st: State, choose, cell: int | None = None):
    """Concoct whatever has become concoctable, oldest revealed potion first; ``choose(st, potion index,
    groups)`` gives the ways to take it (the search tries several). ``cell`` is the cell that just
    changed, when nothing was concoctable before. Yields the states after."""
    if st.won:
        yield st
        return
    if not ctx.settled:
        cell = None
    for pi in st.revealed:
        groups = ctx.compiled[pi]
        if cell is not None and not may_complete(st.masks, ctx.potions[pi], ctx.rows, ctx.cols, cell):
            continue
        if find(st.masks, groups) is None:
            continue
        for used, wildcard in choose(st, pi, groups):
            nxt = clear(st, used & ~wildcard)
            revealed = tuple(p for p in st.revealed if p != pi)
            log = (*nxt.log, ("concoct", pi, used & ~wildcard, wildcard))
            next_up = st.next_up
            if not revealed and next_up < len(ctx.potions):
                revealed, next_up = (next_up,), next_up + 1
                log = (*log, ("reveal", next_up - 1))
            won = ctx.deck_known and not revealed
            nxt = nxt._replace(revealed=revealed, next_up=next_up, made=(*st.made, pi), won=won, log=log)
            yield from cascade(ctx, nxt, choose)
        return
    yield st


def preferred(st: State, pi: int, groups):
    return [find(st.masks, groups)]


# -- the player's choices ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Play:
    """The choices a player makes for one ingredient card; anything left out takes the engine's default
    (removals and additions with the fewest Cramés, the first free cells in reading order).

    ``removals`` and ``additions`` hold one placement per group of the card (see ``placements``);
    ``burnt`` the cells (row, col) for the Cramés, in the order they are placed; ``duplicates`` and
    ``moves`` are ``(from cell, to cell)`` pairs; ``order`` the order in which added cells go in."""

    suffer: bool = False
    removals: tuple[Placement, ...] | None = None
    additions: tuple[Placement, ...] | None = None
    order: tuple[Cell, ...] | None = None
    burnt: tuple[Cell, ...] = ()
    duplicates: tuple[tuple[Cell, Cell], ...] | None = None
    moves: tuple[tuple[Cell, Cell], ...] = ()


def placements(cauldron: Cauldron, group, adding: bool) -> tuple[Placement, ...]:
    """Every placement of a card group on this cauldron (including hanging off the edge)."""
    return any_placements(group, cauldron.rows, cauldron.cols, adding)


def place(cauldron: Cauldron, group, drawing: str, outside: int = 0, adding: bool = True) -> Placement:
    """The placement of ``group`` whose cells inside the cauldron are those drawn (a grid of the cauldron's
    size with the group's letters and ``.`` elsewhere), with ``outside`` cells off the edge."""
    drawn = Cauldron.parse(drawing)
    if (drawn.rows, drawn.cols) != (cauldron.rows, cauldron.cols):
        raise ValueError(f"the drawing is {drawn.rows} x {drawn.cols}, the cauldron {cauldron.rows} x {cauldron.cols}")
    cells = tuple((i, code) for i, code in enumerate(drawn.codes) if code != EMPTY)
    for p in placements(cauldron, group, adding):
        if p.cells == cells and p.outside == outside:
            return p
    raise IllegalMove("the drawn cells are not a placement of that group")


@dataclass(frozen=True)
class Resolution:
    """What one ingredient card did: the cauldron after, the Cramés it caused, the potions concocted (and
    revealed) on the way, whether that made the last potion, and the steps for people."""

    cauldron: Cauldron
    burnt: int
    concocted: tuple[Concoction, ...]
    revealed: tuple[Potion, ...]
    won: bool
    steps: tuple[str, ...]
    missing_burnt: int = 0
    still_revealed: tuple[int, ...] = ()  # indices into revealed + upcoming of the potions still waiting
    next_up: int = 0                      # index into revealed + upcoming of the next potion to reveal


def resolution(ctx: Context, st: State) -> Resolution:
    cols = ctx.cols

    def cells(mask: int) -> tuple[Cell, ...]:
        return tuple(divmod(i, cols) for i in bits(mask))

    concocted, revealed, steps = [], [], []
    for event in st.log:
        kind = event[0]
        if kind == "concoct":
            _, pi, removed, wildcard = event
            concocted.append(Concoction(ctx.potions[pi], cells(removed), cells(wildcard)[0] if wildcard else None))
        elif kind == "reveal":
            revealed.append(ctx.potions[event[1]])
        steps.append(describe(ctx, event))
    return Resolution(Cauldron.from_codes(ctx.rows, cols, st.cells), st.suffered, tuple(concocted),
                      tuple(revealed), st.won, tuple(steps), st.missing, st.revealed, st.next_up)


def describe(ctx: Context, event: tuple) -> str:
    cols = ctx.cols

    def names(mask: int) -> str:
        return " ".join(cell_name(i, cols) for i in bits(mask)) or "nothing"

    kind = event[0]
    if kind == "remove_all":
        return f"removed every {event[1]}: {names(event[2])}"
    if kind == "remove":
        _, g, taken, missing = event
        return f"removal block {g + 1}: took {names(taken)}" + (f", {missing} missing" if missing else "")
    if kind == "or_suffer":
        return f"took the card's {event[1]} Cramés instead of removing"
    if kind == "suffer":
        return f"{event[1]} Cramé{'s' if event[1] > 1 else ''}: {event[2]}"
    if kind == "burn":
        return f"Cramé placed on {cell_name(event[1], cols)}"
    if kind == "burn-missing":
        return "a Cramé due that is not on the cauldron"
    if kind == "lost-burn":
        return "a Cramé with nowhere to go (the cauldron is all Cramés)"
    if kind in ("add", "duplicate"):
        _, i, code, replaced = event
        over = f" over {LABELS[replaced]}" if replaced != EMPTY else ""
        return f"{'added' if kind == 'add' else 'duplicated'} {LABELS[code]} at {cell_name(i, cols)}{over}"
    if kind == "place":
        _, g, p = event
        if p.omitted and not p.cells and not p.outside:
            return f"addition block {g + 1}: left out"
        where = " ".join(f"{cell_name(i, cols)}={LABELS[c]}" for i, c in p.cells) or "nowhere"
        extra = [f"{p.outside} off the cauldron"] if p.outside else []
        extra += [f"{p.omitted} optional left out"] if p.omitted else []
        return f"addition block {g + 1}: {where}" + (f" ({', '.join(extra)})" if extra else "")
    if kind == "move":
        _, a, b, code = event
        return f"moved {LABELS[code]} from {cell_name(a, cols)} to {cell_name(b, cols)}"
    if kind == "concoct":
        _, pi, removed, wildcard = event
        wild = f", stone at {cell_name(next(bits(wildcard)), cols)} as a wildcard" if wildcard else ""
        return f"concocted {ctx.potions[pi].name}: emptied {names(removed)}{wild}"
    if kind == "reveal":
        return f"revealed {ctx.potions[event[1]].name}"
    return str(event)


# -- applying a play ---------------------------------------------------------------------------------------

def removal_candidates(masks, placement: Placement) -> tuple[int, int]:
    """(cells taken, resources missing) for one removal placement; stones are never wildcards here."""
    taken = 0
    for code, m in placement.reqs:
        taken |= m & masks[code]
    return taken, placement.outside + placement.mask.bit_count() - taken.bit_count()


def remove_all(ctx: Context, st: State) -> State:
    for label in ctx.card.remove_all:
        mask = st.masks[CODE[label]]
        st = clear(st, mask)
        st = st._replace(log=(*st.log, ("remove_all", label, mask)))
    return st


def may_overlap(ctx: Context, st: State, p: Placement, claimed: int = 0) -> bool:
    """A group never goes over a Cramé, and goes over resources only when it has no room on the empty
    cells that the card's other groups (``claimed``) leave ("il ne vous reste plus assez de place")."""
    empty = st.masks[EMPTY]
    if p.mask & st.masks[BURNT]:
        return False
    return p.mask & ~empty == 0 or not fits_empty(p.shape, empty & ~claimed, ctx.rows, ctx.cols)


def apply(cauldron: Cauldron, card: Ingredient, play: Play | None = None, revealed=(), upcoming=None) -> Resolution:
    """Apply ``card`` with the player's ``play`` to ``cauldron``, with ``revealed`` potions waiting (oldest
    first) and, when the whole deck is known, ``upcoming`` (the face-down potions, top first: a potion is
    revealed from it when none is left, and making the last one wins). Raises IllegalMove."""
    play = play or Play()
    ctx = Context(cauldron.rows, cauldron.cols, card, revealed, upcoming)
    st = remove_all(ctx, ctx.start(cauldron))
    burnt = [r * ctx.cols + c for r, c in play.burnt]

    # 1. Remove.
    groups = ctx.remove_groups
    if play.suffer and not card.or_suffer:
        raise IllegalMove(f"{card.name} does not offer to suffer Cramés instead")
    chosen = None
    if groups and not play.suffer:
        if play.removals is None:
            chosen = [min(placements(cauldron, g, False), key=lambda p: removal_candidates(st.masks, p)[1])
                      for g in groups]
            if card.or_suffer and not _full_removal(st.masks, chosen):
                chosen = None  # cannot remove it all: the card's Cramés instead
        else:
            chosen = list(play.removals)
            if len(chosen) != len(groups):
                raise IllegalMove(f"{card.name} has {len(groups)} removal block(s), {len(chosen)} placed")
            for g, p in zip(groups, chosen, strict=True):
                if p not in placements(cauldron, g, False):
                    raise IllegalMove("a removal placement is not one of that block's")
            if card.or_suffer and not _full_removal(st.masks, chosen):
                raise IllegalMove(f"{card.name}: the resources to remove are not all there; the card's "
                                  f"{card.or_suffer} Cramés must be taken instead")
    if groups and chosen is None:
        st = suffer(ctx, st._replace(log=(*st.log, ("or_suffer", card.or_suffer))), card.or_suffer,
                    "the card's 'or suffer'")
    elif groups:
        used = 0
        for g, p in enumerate(chosen):
            taken, missing = removal_candidates(st.masks, p)
            if taken & used:
                raise IllegalMove("two removal blocks take the same cell")
            used |= taken
            st = clear(st, taken)._replace(log=(*st.log, ("remove", g, taken, missing)))
            st = suffer(ctx, st, missing, f"{missing} resource(s) missing for removal block {g + 1}")
    st = _burn(ctx, st, burnt)

    # 2. Add.
    groups = ctx.add_groups
    if groups:
        if play.additions is not None:
            chosen = list(play.additions)
        else:
            chosen, taken = [], 0
            for g in groups:
                chosen.append(min(placements(cauldron, g, True),
                                  key=lambda p, taken=taken: (p.mask & taken != 0,
                                                              *_addition_cost(ctx, st, p, taken))))
                taken |= chosen[-1].mask
        if len(chosen) != len(groups):
            raise IllegalMove(f"{card.name} has {len(groups)} addition block(s), {len(chosen)} placed")
        used, writes = 0, []
        for g, (group, p) in enumerate(zip(groups, chosen, strict=True)):
            if p not in placements(cauldron, group, True):
                raise IllegalMove("an addition placement is not one of that block's")
            if p.mask & used:
                raise IllegalMove("two addition blocks of one card go on the same cell")
            if p.mask & st.masks[BURNT]:
                raise IllegalMove(f"addition block {g + 1} goes over a Cramé: an addition replaces only resources")
            others = 0
            for k, q in enumerate(chosen):
                if k != g:
                    others |= q.mask
            if not may_overlap(ctx, st, p, others):
                raise IllegalMove(f"addition block {g + 1} goes over full cells although it fits on empty ones")
            used |= p.mask
            writes += p.cells
            st = st._replace(log=(*st.log, ("place", g, p)))
            st = suffer(ctx, st, p.outside, f"{p.outside} off the cauldron (addition block {g + 1})")
        if play.order is not None:
            rank = {r * ctx.cols + c: k for k, (r, c) in enumerate(play.order)}
            if set(rank) != {i for i, _ in writes}:
                raise IllegalMove("the order of addition must list exactly the cells added")
            writes.sort(key=lambda w: rank[w[0]])
        else:
            writes.sort()
        for i, code in writes:
            st = next(cascade(ctx, write(ctx, st, i, code, "add"), preferred, i))
            if st.won:
                return resolution(ctx, st)
        st = _burn(ctx, st, burnt)

    # 3. Duplicate.
    if card.duplicate:
        dups = play.duplicates
        if dups is None:
            dups = []
            for _ in range(card.duplicate):
                src = next(bits(sum(st.masks[c] for c in RESOURCE_CODES)), None)
                if src is None:
                    break
                dups.append((divmod(src, ctx.cols), divmod(next(bits(burn_targets(st))), ctx.cols)))
                st = _duplicate(ctx, st, *dups[-1])
                if st.won:
                    return resolution(ctx, st)
        else:
            if len(dups) > card.duplicate:
                raise IllegalMove(f"{card.name} duplicates {card.duplicate} resource(s), {len(dups)} given")
            for d in dups:
                st = _duplicate(ctx, st, *d)
                if st.won:
                    return resolution(ctx, st)
            if len(dups) < card.duplicate and any(st.masks[c] for c in RESOURCE_CODES):
                raise IllegalMove(f"{card.name} duplicates {card.duplicate} resource(s), {len(dups)} given")
        st = _burn(ctx, st, burnt)

    # 4. Move.
    if len(play.moves) > card.move:
        raise IllegalMove(f"{card.name} allows {card.move} move(s), {len(play.moves)} made")
    for (a, b) in play.moves:
        i, j = a[0] * ctx.cols + a[1], b[0] * ctx.cols + b[1]
        if st.cells[i] == EMPTY:
            raise IllegalMove(f"nothing to move at {cell_name(i, ctx.cols)}")
        if st.cells[j] != EMPTY:
            raise IllegalMove(f"{cell_name(j, ctx.cols)} is not empty: a piece moves only to an empty cell")
        st = move(ctx, st, i, j)
        st = next(cascade(ctx, st, preferred, j))
        if st.won:
            break
    if burnt:
        raise IllegalMove(f"{len(burnt)} Cramé cell(s) given beyond the Cramés the card causes")
    return resolution(ctx, st)


def move(ctx: Context, st: State, i: int, j: int) -> State:
    code = st.cells[i]
    st = put(put(st, i, EMPTY), j, code)
    return st._replace(log=(*st.log, ("move", i, j, code)))


def _full_removal(masks, chosen) -> bool:
    used = 0
    for p in chosen:
        taken, missing = removal_candidates(masks, p)
        if missing or taken & used:
            return False
        used |= taken
    return True


def _addition_cost(ctx: Context, st: State, p: Placement, claimed: int = 0) -> tuple:
    over = (p.mask & ~st.masks[EMPTY]).bit_count()
    illegal = not may_overlap(ctx, st, p, claimed)
    return (illegal, p.outside + over, p.omitted)


def _duplicate(ctx: Context, st: State, src: Cell, dst: Cell) -> State:
    i, j = src[0] * ctx.cols + src[1], dst[0] * ctx.cols + dst[1]
    code = st.cells[i]
    if code not in RESOURCE_CODES:
        raise IllegalMove(f"{cell_name(i, ctx.cols)} holds no resource to duplicate")
    if not burn_targets(st) >> j & 1 or i == j:
        raise IllegalMove(f"{cell_name(j, ctx.cols)} is not free: a copy goes on an empty cell, or over a "
                          f"resource only when no cell is empty")
    return next(cascade(ctx, write(ctx, st, j, code, "duplicate"), preferred, j))


def _burn(ctx: Context, st: State, wanted: list[int]) -> State:
    """Place the Cramés owed: on the cells the player gave, else the first free ones."""
    for _ in range(st.owed):
        targets = burn_targets(st)
        if not targets:
            st = st._replace(log=(*st.log, ("lost-burn",)))
            continue
        i = wanted.pop(0) if wanted else next(bits(targets))
        if not targets >> i & 1:
            raise IllegalMove(f"a Cramé cannot go on {cell_name(i, ctx.cols)}: it goes on an empty cell, or over "
                              f"a resource only when no cell is empty")
        st = put(st, i, BURNT)._replace(log=(*st.log, ("burn", i)))
    return st._replace(owed=0)
