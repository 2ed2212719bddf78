"""Concoction: finding a potion's resources in the cauldron, and the forced concoction.

A potion is concocted as soon as all its groups can be laid on matching resources at once, on distinct
cells. A philosopher's stone may stand for any one resource of the potion (once per potion) and then
stays in the cauldron; a stone the potion itself asks for is removed. Among several ways, the engine
prefers one that leaves the stones where they are (no wildcard when none is needed).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from .cards import FORCED_STONE_PENALTY, Potion
from .grid import STONE, Cauldron, bits
from .shapes import any_placements, inside_placements


@dataclass(frozen=True)
class Concoction:
    """How a potion is (or was) concocted: the cells emptied, the stone used as a wildcard (it stays),
    and, for a forced concoction, the resources missing and the Cramés they cost."""

    potion: Potion
    removed: tuple[tuple[int, int], ...]
    wildcard: tuple[int, int] | None = None
    missing: int = 0
    burnt: int = 0


@lru_cache(maxsize=4096)
def compiled(potion: Potion, rows: int, cols: int):
    """Per group, every placement entirely inside the cauldron."""
    return tuple(inside_placements(g, rows, cols) for g in potion.groups)


@lru_cache(maxsize=4096)
def by_cell(potion: Potion, rows: int, cols: int):
    """Per group, per cell, the placements covering that cell."""
    out = []
    for placements in compiled(potion, rows, cols):
        index: dict[int, list] = {}
        for p in placements:
            for i in bits(p.mask):
                index.setdefault(i, []).append(p)
        out.append(index)
    return tuple(out)


def may_complete(masks, potion: Potion, rows: int, cols: int, cell: int) -> bool:
    """Whether a match of ``potion`` could use ``cell`` (a quick test after one resource went in: a potion
    that was not concoctable before can only have become so through that cell)."""
    wild = bool(masks[STONE])
    return any(_candidates(masks, index.get(cell, ()), wild, -1) for index in by_cell(potion, rows, cols))


def _candidates(masks, placements, wild: bool, allowed: int):
    """Placements of one group that match the cauldron: ``(cells, wildcard cell mask)``."""
    stone = masks[STONE]
    reach = allowed | stone
    out = []
    for p in placements:
        if p.mask & ~reach:
            continue
        used = 0
        for code, m in p.reqs:
            miss = m & ~masks[code]
            if miss:
                # Only a stone standing for a resource that is not a stone, and only one.
                if code == STONE or not wild or miss & ~stone or used or miss & (miss - 1):
                    break
                used = miss
        else:
            if (p.mask & ~used) & ~allowed == 0:
                out.append((p.mask, used))
    return out


def solutions(masks, groups, wild: bool, allowed: int = -1):
    """Every way to lay all groups at once: yields ``(cells mask, wildcard mask)``, with at most one
    wildcard in all. ``allowed`` limits the cells that may be emptied (the search prunes with it)."""
    cands = [_candidates(masks, placements, wild, allowed) for placements in groups]
    if not all(cands):
        return
    cands.sort(key=len)
    last = len(cands)

    def rec(k: int, used: int, wildcard: int):
        if k == last:
            yield used, wildcard
            return
        for mask, w in cands[k]:
            if mask & used or (w and wildcard):
                continue
            yield from rec(k + 1, used | mask, wildcard | w)

    yield from rec(0, 0, 0)


def find(masks, groups, allowed: int = -1):
    """The preferred way to concoct, or None: without a wildcard if possible."""
    for wild in (False, True):
        if wild and not masks[STONE]:
            break
        for used, wildcard in solutions(masks, groups, wild, allowed):
            return used, wildcard
    return None


def _cells(mask: int, cols: int) -> tuple[tuple[int, int], ...]:
    return tuple(divmod(i, cols) for i in bits(mask))


def concoctable(cauldron: Cauldron, potion: Potion) -> Concoction | None:
    """How ``potion`` can be concocted in ``cauldron`` right now (the cells to empty), or None.

    >>> from .cards import Potion
    >>> from .shapes import Block
    >>> pot = Cauldron.parse("B R .\\n. . .\\n. . S")
    >>> concoctable(pot, Potion("p", "Dawn", "common", (Block.parse("BR"),))).removed
    ((0, 0), (0, 1))
    """
    found = find(cauldron.masks, compiled(potion, cauldron.rows, cauldron.cols))
    if found is None:
        return None
    used, wildcard = found
    return Concoction(potion, _cells(used & ~wildcard, cauldron.cols),
                      _cells(wildcard, cauldron.cols)[0] if wildcard else None)


def concoct(cauldron: Cauldron, potion: Potion) -> tuple[Cauldron, Concoction] | None:
    """Concoct ``potion`` if it can be: the cauldron after, and how."""
    how = concoctable(cauldron, potion)
    if how is None:
        return None
    return cauldron.with_cells(dict.fromkeys(how.removed, "empty")), how


# -- forced concoction ------------------------------------------------------------------------------------

@lru_cache(maxsize=4096)
def _forced_compiled(potion: Potion, rows: int, cols: int):
    out = []
    for g in potion.groups:
        placements = []
        for p in any_placements(g, rows, cols, False):
            stones_outside = sum(1 for _, _, code in p.shape if code == STONE) - sum(
                1 for _, code in p.cells if code == STONE)
            placements.append((p, stones_outside))
        out.append(tuple(placements))
    return tuple(out)


def _forced_candidates(masks, placements):
    """Per placement of one group: ``(taken, wildcard, matched, burnt)``; the best per (taken, wildcard)."""
    stone = masks[STONE]
    best: dict[tuple[int, int], tuple[int, int, int, int]] = {}
    for p, stones_outside in placements:
        taken = 0
        burnt = p.outside + stones_outside * (FORCED_STONE_PENALTY - 1)
        spare = 0  # missing cells sitting on a stone: one of them may take the stone as a wildcard
        for code, m in p.reqs:
            hit = m & masks[code]
            taken |= hit
            miss = m & ~hit
            if miss:
                per = FORCED_STONE_PENALTY if code == STONE else 1
                burnt += per * miss.bit_count()
                if code != STONE:
                    spare |= miss & stone
        options = [(taken, 0, taken.bit_count(), burnt)]
        options += [(taken | 1 << i, 1 << i, taken.bit_count() + 1, burnt - 1) for i in bits(spare)]
        for t, w, matched, cost in options:
            key = (t, w)
            if key not in best or best[key][3] > cost:
                best[key] = (t, w, matched, cost)
    return sorted(best.values(), key=lambda c: (-c[2], c[3], c[1]))


def forced_options(masks, potion: Potion, rows: int, cols: int):
    """Every best forced concoction: as many resources taken as possible, then as few Cramés as possible.
    Returns ``(matched, burnt, [(taken mask, wildcard mask), ...])``; wildcard-free ways come first."""
    cands = [_forced_candidates(masks, pl) for pl in _forced_compiled(potion, rows, cols)]
    cands.sort(key=len)
    top = [c[0][2] for c in cands]  # the best each group can do alone: the bound
    bound_after = [sum(top[k:]) for k in range(len(cands) + 1)]
    best = [(-1, 0), []]

    def rec(k: int, used: int, wildcard: int, matched: int, burnt: int):
        if matched + bound_after[k] < best[0][0]:
            return
        if k == len(cands):
            score = (matched, -burnt)
            if score > best[0]:
                best[0], best[1] = score, []
            if score == best[0]:
                best[1].append((used, wildcard))
            return
        for t, w, m, cost in cands[k]:
            if t & used or (w and wildcard):
                continue
            rec(k + 1, used | t, wildcard | w, matched + m, burnt + cost)

    rec(0, 0, 0, 0, 0)
    (matched, burnt), ways = best[0], best[1]
    ways.sort(key=lambda way: (way[1] != 0, way))
    return matched, -burnt, list(dict.fromkeys(ways))


def forced(cauldron: Cauldron, potion: Potion) -> Concoction:
    """The forced concoction (a fourth timer cube): take as many of the potion's resources as possible; each
    missing resource costs 1 Cramé, each missing philosopher's stone 5. The Cramés are for the caller to
    place (see ``Game``); this says which cells to empty and how many."""
    matched, burnt, ways = forced_options(cauldron.masks, potion, cauldron.rows, cauldron.cols)
    used, wildcard = ways[0]
    return Concoction(potion, _cells(used & ~wildcard, cauldron.cols),
                      _cells(wildcard, cauldron.cols)[0] if wildcard else None,
                      missing=potion.size - matched, burnt=burnt)

