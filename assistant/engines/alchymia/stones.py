"""Stones, elements and player boards.

A board is a grid of stone positions named ``r{row}c{col}`` (row 0 at the top), each empty or holding one
stone of five colours. As text, one letter per position and one line per row: ``.`` empty, ``G`` green,
``W`` white, ``B`` blue, ``Y`` yellow, ``R`` red, so that a test reads like the rulebook::

    >>> board = Board.parse('''
    ...     G . .
    ...     . W .
    ...     . . R
    ... ''')
    >>> print(board.rotated())
    ..G
    .W.
    R..
    >>> board.matches(Board.parse("..G .W. R.."))   # a quarter turn of the board
    True
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property


class AlchymiaError(ValueError):
    """An illegal action or an impossible position; the message is the reason a player would be told."""


class Colour(StrEnum):
    """The five stone and potion colours (the values are the labels the camera reads)."""

    GREEN = "green"
    WHITE = "white"
    BLUE = "blue"
    YELLOW = "yellow"
    RED = "red"

    @property
    def letter(self) -> str:
        return self.value[0].upper()

    @classmethod
    def from_letter(cls, letter: str) -> Colour:
        try:
            return _BY_LETTER[letter.upper()]
        except KeyError:
            raise AlchymiaError(f"unknown stone colour {letter!r} (expected one of G W B Y R)") from None

    def __str__(self) -> str:
        return self.value


COLOURS: tuple[Colour, ...] = tuple(Colour)
_BY_LETTER = {c.letter: c for c in COLOURS}
EMPTY_LABEL = "empty"


class Element(StrEnum):
    """The five crystal elements; each gives, with a potion of its colour, one advanced power."""

    EARTH = "earth"
    AIR = "air"
    WATER = "water"
    FIRE = "fire"
    TIME = "time"

    @property
    def colour(self) -> Colour:
        return _ELEMENT_COLOUR[self]

    @property
    def power(self) -> str:
        return _ELEMENT_POWER[self]

    @classmethod
    def of_colour(cls, colour: Colour) -> Element:
        return next(e for e in cls if e.colour is colour)

    def __str__(self) -> str:
        return self.value


ELEMENTS: tuple[Element, ...] = tuple(Element)
_ELEMENT_COLOUR = {Element.EARTH: Colour.GREEN, Element.AIR: Colour.WHITE, Element.WATER: Colour.BLUE,
                   Element.FIRE: Colour.YELLOW, Element.TIME: Colour.RED}
_ELEMENT_POWER = {Element.EARTH: "Attraction", Element.AIR: "Dispersion", Element.WATER: "Purification",
                  Element.FIRE: "Transformation", Element.TIME: "Inversion"}

Cell = Colour | None


def position_name(index: int, cols: int) -> str:
    return f"r{index // cols}c{index % cols}"


@dataclass(frozen=True)
class Board:
    """One player board: ``rows`` x ``cols`` positions, read row by row."""

    rows: int
    cols: int
    cells: tuple[Cell, ...]

    def __post_init__(self) -> None:
        if self.rows < 1 or self.cols < 1 or len(self.cells) != self.rows * self.cols:
            raise AlchymiaError(f"a {self.rows} x {self.cols} board needs {self.rows * self.cols} positions, "
                                f"got {len(self.cells)}")

    @classmethod
    def empty(cls, rows: int = 3, cols: int = 3) -> Board:
        return cls(rows, cols, (None,) * (rows * cols))

    @classmethod
    def parse(cls, text: str) -> Board:
        """One letter per position (``.`` for empty). Rows are lines (spaces inside a line are ignored) or
        are separated by ``/``; a text on a single line without ``/`` has its rows separated by spaces."""
        lines = [line.replace(" ", "") for line in text.replace("/", "\n").split("\n")]
        lines = [line for line in lines if line]
        if len(lines) == 1:
            lines = text.split()
        if not lines:
            raise AlchymiaError("a board needs at least one row")
        widths = {len(line) for line in lines}
        if len(widths) != 1:
            raise AlchymiaError(f"board rows have different lengths: {' / '.join(lines)}")
        cells = tuple(None if ch == "." else Colour.from_letter(ch) for line in lines for ch in line)
        return cls(len(lines), widths.pop(), cells)

    @classmethod
    def from_labels(cls, labels: Mapping[str, str], rows: int = 3, cols: int = 3) -> Board:
        """From camera labels by position name (``{"r0c0": "green", "r0c1": "empty", ...}``)."""
        cells = []
        for i in range(rows * cols):
            name = position_name(i, cols)
            if name not in labels:
                raise AlchymiaError(f"position {name} is missing from the board reading")
            label = labels[name]
            if label == EMPTY_LABEL:
                cells.append(None)
            else:
                try:
                    cells.append(Colour(label))
                except ValueError:
                    raise AlchymiaError(f"position {name}: unknown stone {label!r}") from None
        extra = set(labels) - {position_name(i, cols) for i in range(rows * cols)}
        if extra:
            raise AlchymiaError(f"no position {sorted(extra)[0]} on a {rows} x {cols} board")
        return cls(rows, cols, tuple(cells))

    def labels(self) -> dict[str, str]:
        return {self.name(i): (EMPTY_LABEL if c is None else c.value) for i, c in enumerate(self.cells)}

    def __str__(self) -> str:
        letters = ["." if c is None else c.letter for c in self.cells]
        return "\n".join("".join(letters[r * self.cols:(r + 1) * self.cols]) for r in range(self.rows))

    def line(self) -> str:
        """The board on one line, rows separated by ``/``: ``G../.W./..R``."""
        return str(self).replace("\n", "/")

    # positions ---------------------------------------------------------------------------------------
    def name(self, index: int) -> str:
        return position_name(index, self.cols)

    def index(self, position: str) -> int:
        try:
            row, col = position[1:].split("c")
            r, c = int(row), int(col)
        except ValueError:
            raise AlchymiaError(f"{position!r} is not a position (expected r<row>c<col>)") from None
        if not (position.startswith("r") and 0 <= r < self.rows and 0 <= c < self.cols):
            raise AlchymiaError(f"no position {position} on a {self.rows} x {self.cols} board")
        return r * self.cols + c

    def __getitem__(self, position: str) -> Cell:
        return self.cells[self.index(position)]

    def put(self, position: str, stone: Cell) -> Board:
        i = self.index(position)
        return Board(self.rows, self.cols, (*self.cells[:i], stone, *self.cells[i + 1:]))

    def positions(self) -> Iterator[str]:
        return (self.name(i) for i in range(len(self.cells)))

    def free(self) -> list[str]:
        return [self.name(i) for i, c in enumerate(self.cells) if c is None]

    def stones(self) -> list[tuple[str, Colour]]:
        return [(self.name(i), c) for i, c in enumerate(self.cells) if c is not None]

    def count(self, colour: Colour | None = None) -> int:
        if colour is None:
            return sum(c is not None for c in self.cells)
        return sum(c is colour for c in self.cells)

    def counts(self) -> dict[Colour, int]:
        return {colour: self.count(colour) for colour in COLOURS}

    def cleared(self) -> Board:
        return Board.empty(self.rows, self.cols)

    @property
    def is_empty(self) -> bool:
        return all(c is None for c in self.cells)

    # rotations (players turn their boards; they never flip them) -------------------------------------
    def rotated(self, quarter_turns: int = 1) -> Board:
        """The board turned clockwise by ``quarter_turns`` quarter turns."""
        board = self
        for _ in range(quarter_turns % 4):
            rows, cols, cells = board.rows, board.cols, board.cells
            turned = tuple(cells[(rows - 1 - c) * cols + r] for r in range(cols) for c in range(rows))
            board = Board(cols, rows, turned)
        return board

    def rotations(self) -> tuple[Board, ...]:
        """The distinct boards obtained by turning this one (1, 2 or 4 of them)."""
        return self._rotations

    @cached_property
    def _rotations(self) -> tuple[Board, ...]:
        # (kept: a crystal card's structure is matched against every board after every power use)
        seen: list[Board] = []
        for k in range(4):
            turned = self.rotated(k)
            if turned not in seen:
                seen.append(turned)
        return tuple(seen)

    def matches(self, structure: Board) -> bool:
        """True if this board reproduces ``structure`` exactly under one of the board's four rotations."""
        return any(turned == self for turned in structure.rotations())
