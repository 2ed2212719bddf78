"""Blocks and rigid groups: the shapes drawn on potion and ingredient cards.

A *block* is the set of resources drawn on one background colour. Blocks drawn touching each other on
the card (side by side or only at a corner) are linked into one rigid *group* (the rulebook's "Règle
d'adjacence"): a group is placed as a whole, turned or flipped into any of its 8 orientations, always
on the grid's axes. A block may offer a choice of resource (its ``?`` cells), and then one choice holds
for all of its cells. A block drawn on a blue background is *optional* when adding: it may be left out.

>>> block = Block.parse("BB\\n.R")
>>> [group.size for group in link([block, Block.parse("f", at=(3, 3))])]
[3, 1]
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from .grid import CODE, LABELS, LETTER_CODE, LETTERS, parse_rows

CHOICE = "?"
# The 8 orientations of the square's symmetry group, as (row, col) -> (row', col').
_TRANSFORMS = (
    lambda r, c: (r, c), lambda r, c: (c, -r), lambda r, c: (-r, -c), lambda r, c: (-c, r),
    lambda r, c: (r, -c), lambda r, c: (-c, -r), lambda r, c: (-r, c), lambda r, c: (c, r),
)


@dataclass(frozen=True)
class Block:
    """Resources on one background colour: ``cells`` are ``(row, col, label)`` on the card's drawing,
    where label ``"?"`` is the block's ``choice``, the same resource for every ``?`` cell."""

    cells: tuple[tuple[int, int, str], ...]
    choice: tuple[str, ...] = ()
    optional: bool = False

    def __post_init__(self) -> None:
        if not self.cells:
            raise ValueError("a block needs at least one cell")
        if len({(r, c) for r, c, _ in self.cells}) != len(self.cells):
            raise ValueError("a block has two cells at the same place")
        wants_choice = any(label == CHOICE for _, _, label in self.cells)
        if wants_choice and len(self.choice) < 1:
            raise ValueError("a block with '?' cells needs a choice of resources")
        if self.choice and not wants_choice:
            raise ValueError("a block with a choice needs '?' cells")
        for label in self.choice:
            if label not in LABELS[1:7]:
                raise ValueError(f"{label!r} cannot be a block's choice (choose among bone, root, fluid, fire, "
                                 f"poison, stone)")
        for _, _, label in self.cells:
            if label != CHOICE and label not in LABELS[1:]:
                raise ValueError(f"{label!r} cannot be drawn in a block")

    @classmethod
    def parse(cls, text: str, at: tuple[int, int] = (0, 0), choice=(), optional: bool = False) -> Block:
        """A block from its drawing (cauldron letters, ``?`` for the choice, ``.`` for no cell), placed with
        its top-left corner at ``at`` on the card."""
        rows = parse_rows(text, extra=CHOICE)
        cells = tuple((at[0] + r, at[1] + c, ch if ch == CHOICE else LABELS[LETTER_CODE[ch]])
                      for r, row in enumerate(rows) for c, ch in enumerate(row) if ch != ".")
        return cls(cells, tuple(choice), optional)

    def drawing(self) -> str:
        """The block's text form, relative to its own top-left corner."""
        r0 = min(r for r, _, _ in self.cells)
        c0 = min(c for _, c, _ in self.cells)
        return draw({(r - r0, c - c0): label for r, c, label in self.cells})

    @property
    def at(self) -> tuple[int, int]:
        return (min(r for r, _, _ in self.cells), min(c for _, c, _ in self.cells))


def draw(cells: dict[tuple[int, int], str]) -> str:
    h = max(r for r, _ in cells) + 1
    w = max(c for _, c in cells) + 1
    return "\n".join("".join(_letter(cells.get((r, c))) for c in range(w)) for r in range(h))


def _letter(label: str | None) -> str:
    if label is None:
        return "."
    return CHOICE if label == CHOICE else LETTERS[CODE[label]]


@dataclass(frozen=True)
class Group:
    """Blocks linked into one rigid shape (cells in card coordinates)."""

    blocks: tuple[Block, ...]

    @property
    def size(self) -> int:
        return sum(len(b.cells) for b in self.blocks)

    @property
    def labels(self) -> frozenset[str]:
        """Every resource this group may hold."""
        out = set()
        for b in self.blocks:
            out.update(label for _, _, label in b.cells if label != CHOICE)
            out.update(b.choice)
        return frozenset(out)

    def variants(self, allow_omit: bool):
        """Every concrete shape: ``(((row, col, code), ...), omitted_cells)``, one per choice of the blocks'
        resources and, when ``allow_omit``, per subset of optional blocks left out."""
        per_block = []
        for b in self.blocks:
            options = []
            for pick in (b.choice or (None,)):
                options.append(tuple((r, c, CODE[pick if label == CHOICE else label]) for r, c, label in b.cells))
            if allow_omit and b.optional:
                options.append(None)
            per_block.append(options)
        for combo in itertools.product(*per_block):
            kept = [cells for cells in combo if cells is not None]
            if kept:  # leaving out every block is the same as an empty placement, handled by the caller
                omitted = sum(len(b.cells) for b, cells in zip(self.blocks, combo, strict=True) if cells is None)
                yield tuple(cell for cells in kept for cell in cells), omitted


def link(blocks) -> tuple[Group, ...]:
    """Group the blocks of one card side: blocks whose cells touch (8-neighbourhood) are linked, and
    linking is transitive. Groups keep the order of their first block."""
    blocks = list(blocks)
    parent = list(range(len(blocks)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    where = {}
    for i, b in enumerate(blocks):
        for r, c, _ in b.cells:
            if (r, c) in where:
                raise ValueError(f"two blocks are drawn on the same card cell ({r}, {c})")
            where[r, c] = i
    for (r, c), i in where.items():
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                j = where.get((r + dr, c + dc))
                if j is not None:
                    parent[find(i)] = find(j)
    groups: dict[int, list[Block]] = {}
    for i, b in enumerate(blocks):
        groups.setdefault(find(i), []).append(b)
    return tuple(Group(tuple(bs)) for bs in groups.values())


def orientations(cells) -> tuple[tuple[tuple[int, int, int], ...], ...]:
    """The distinct orientations of a shape (turned and flipped), each normalised to a top-left corner at
    (0, 0) and sorted."""
    seen = []
    for t in _TRANSFORMS:
        moved = [(*t(r, c), code) for r, c, code in cells]
        r0 = min(r for r, _, _ in moved)
        c0 = min(c for _, c, _ in moved)
        shape = tuple(sorted((r - r0, c - c0, code) for r, c, code in moved))
        if shape not in seen:
            seen.append(shape)
    return tuple(seen)


class Placement(NamedTuple):
    """One way to lay a group on the cauldron: ``cells`` are ``(index, code)`` inside the cauldron,
    ``outside`` how many cells fall off the edge, ``omitted`` how many optional cells were left out."""

    cells: tuple[tuple[int, int], ...]
    outside: int
    omitted: int
    mask: int                            # the cells inside, as bits
    reqs: tuple[tuple[int, int], ...]    # (code, mask) for each code the placement holds
    shape: tuple = ()                    # the concrete shape placed (for the "no room left" test)

    def labels(self) -> dict[int, str]:
        return {i: LABELS[code] for i, code in self.cells}


def _placement(cells, outside: int, omitted: int, shape: tuple = ()) -> Placement:
    mask = 0
    by_code: dict[int, int] = {}
    for i, code in cells:
        mask |= 1 << i
        by_code[code] = by_code.get(code, 0) | 1 << i
    return Placement(tuple(sorted(cells)), outside, omitted, mask, tuple(sorted(by_code.items())), shape)


@lru_cache(maxsize=8192)
def inside_placements(group: Group, rows: int, cols: int) -> tuple[Placement, ...]:
    """Every placement of the whole group entirely inside a ``rows`` x ``cols`` cauldron (potions)."""
    out = {}
    for shape, _ in group.variants(allow_omit=False):
        for o in orientations(shape):
            h = max(r for r, _, _ in o) + 1
            w = max(c for _, c, _ in o) + 1
            for dr in range(rows - h + 1):
                for dc in range(cols - w + 1):
                    cells = tuple(((r + dr) * cols + c + dc, code) for r, c, code in o)
                    p = _placement(cells, 0, 0)
                    out.setdefault((p.cells, 0), p)
    return tuple(out.values())


@lru_cache(maxsize=8192)
def any_placements(group: Group, rows: int, cols: int, allow_omit: bool) -> tuple[Placement, ...]:
    """Every placement, including those hanging off the edge, plus the one entirely outside (and, when
    ``allow_omit``, the ones leaving optional blocks out). Placements with the same cells are one."""
    out = {}
    for shape, omitted in group.variants(allow_omit):
        n = len(shape)
        whole_outside = _placement((), n, omitted, shape)
        out.setdefault(((), n, omitted), whole_outside)
        for o in orientations(shape):
            h = max(r for r, _, _ in o) + 1
            w = max(c for _, c, _ in o) + 1
            for dr in range(-h + 1, rows):
                for dc in range(-w + 1, cols):
                    cells = tuple(((r + dr) * cols + c + dc, code) for r, c, code in o
                                  if 0 <= r + dr < rows and 0 <= c + dc < cols)
                    p = _placement(cells, n - len(cells), omitted, shape)
                    out.setdefault((p.cells, p.outside, omitted), p)
    if allow_omit and all(b.optional for b in group.blocks):
        out.setdefault(((), 0, group.size), _placement((), 0, group.size))
    return tuple(out.values())


@lru_cache(maxsize=65536)
def fits_empty(group_cells: tuple[tuple[int, int, int], ...], empty_mask: int, rows: int, cols: int) -> bool:
    """Whether a concrete shape has a placement entirely on empty cells inside the cauldron."""
    return any(p.mask & ~empty_mask == 0 for p in _shape_inside(group_cells, rows, cols))


@lru_cache(maxsize=8192)
def _shape_inside(shape, rows: int, cols: int) -> tuple[Placement, ...]:
    out = []
    for o in orientations(shape):
        h = max(r for r, _, _ in o) + 1
        w = max(c for _, c, _ in o) + 1
        for dr in range(rows - h + 1):
            for dc in range(cols - w + 1):
                out.append(_placement(tuple(((r + dr) * cols + c + dc, code) for r, c, code in o), 0, 0))
    return tuple(out)
