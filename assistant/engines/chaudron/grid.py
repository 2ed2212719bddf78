"""The cauldron: a grid of cells, each empty or holding one piece, with a text form that reads like the
rulebook's pictures.

Letters: ``.`` empty, ``B`` bone powder, ``R`` twisted root, ``F`` viscous fluid, ``f`` fire crystal,
``P`` poison seed, ``S`` philosopher's stone, ``X`` Cramé. Cells are numbered in reading order
(``index = row * cols + col``) and named like the layout's zones, ``r{row}c{col}``.

>>> pot = Cauldron.parse('''
... B . .
... . R X
... ''')
>>> pot[1, 1], pot.count("burnt")
('root', 1)
>>> print(pot)
B..
.RX
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

LABELS = ("empty", "bone", "root", "fluid", "fire", "poison", "stone", "burnt")
EMPTY, BONE, ROOT, FLUID, FIRE, POISON, STONE, BURNT = range(8)  # codes, the index of each label
RESOURCES = LABELS[1:7]  # the Cramé is a piece but not a resource
LETTERS = ".BRFfPSX"
CODE = {label: code for code, label in enumerate(LABELS)}
LETTER_CODE = {letter: code for code, letter in enumerate(LETTERS)}


class IllegalMove(ValueError):
    """An action the rules do not allow; the message is the reason a player would be told."""


def cell_name(index: int, cols: int) -> str:
    return f"r{index // cols}c{index % cols}"


def parse_rows(text: str, extra: str = "") -> list[str]:
    """Split a drawn grid into rows of letters (blank lines and spaces ignored); ``extra`` are letters
    allowed besides the cauldron's own (``?`` for block choices on cards)."""
    rows = ["".join(line.split()) for line in text.splitlines()]
    rows = [row for row in rows if row]
    for row in rows:
        for ch in row:
            if ch not in LETTER_CODE and ch not in extra:
                known = LETTERS + extra
                raise ValueError(f"unknown letter {ch!r} in a drawn grid (known: {' '.join(known)})")
    return rows


@dataclass(frozen=True)
class Cauldron:
    """The shared cauldron: ``rows`` x ``cols`` cells in reading order, each a label of ``LABELS``."""

    rows: int
    cols: int
    cells: tuple[str, ...]

    def __post_init__(self) -> None:
        if self.rows < 1 or self.cols < 1 or len(self.cells) != self.rows * self.cols:
            raise ValueError(f"a {self.rows} x {self.cols} cauldron needs {self.rows * self.cols} cells, "
                             f"got {len(self.cells)}")
        for label in self.cells:
            if label not in CODE:
                raise ValueError(f"unknown cell content {label!r} (known: {', '.join(LABELS)})")

    @classmethod
    def empty(cls, rows: int = 6, cols: int = 6) -> Cauldron:
        return cls(rows, cols, ("empty",) * (rows * cols))

    @classmethod
    def parse(cls, text: str) -> Cauldron:
        rows = parse_rows(text)
        if not rows:
            raise ValueError("a drawn cauldron needs at least one row")
        if len({len(r) for r in rows}) != 1:
            raise ValueError(f"the rows of a drawn cauldron differ in length: {[len(r) for r in rows]}")
        return cls(len(rows), len(rows[0]), tuple(LABELS[LETTER_CODE[ch]] for row in rows for ch in row))

    @classmethod
    def from_codes(cls, rows: int, cols: int, codes) -> Cauldron:
        return cls(rows, cols, tuple(LABELS[c] for c in codes))

    def __str__(self) -> str:
        return "\n".join("".join(LETTERS[CODE[label]] for label in self.cells[r * self.cols:(r + 1) * self.cols])
                         for r in range(self.rows))

    def __getitem__(self, where: tuple[int, int]) -> str:
        r, c = where
        if not (0 <= r < self.rows and 0 <= c < self.cols):
            raise IndexError(f"no cell r{r}c{c} in a {self.rows} x {self.cols} cauldron")
        return self.cells[r * self.cols + c]

    @cached_property
    def codes(self) -> tuple[int, ...]:
        return tuple(CODE[label] for label in self.cells)

    @cached_property
    def masks(self) -> tuple[int, ...]:
        """One bit mask per label code: bit ``i`` set when cell ``i`` holds that label."""
        return masks_of(self.codes)

    def count(self, label: str) -> int:
        return self.masks[CODE[label]].bit_count()

    @property
    def burnt(self) -> int:
        """How many Cramés the cauldron holds."""
        return self.masks[BURNT].bit_count()

    def name(self, index: int) -> str:
        return cell_name(index, self.cols)

    def with_cells(self, changes: dict[tuple[int, int], str]) -> Cauldron:
        cells = list(self.cells)
        for (r, c), label in changes.items():
            self[r, c]  # bounds check
            cells[r * self.cols + c] = label
        return Cauldron(self.rows, self.cols, tuple(cells))


def masks_of(codes) -> tuple[int, ...]:
    masks = [0] * 8
    for i, code in enumerate(codes):
        masks[code] |= 1 << i
    return tuple(masks)


def bits(mask: int):
    """The indices of the set bits of ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low
