"""Power uses: each potion used in a turn moves stones with one power.

Base powers (any player): Integration (a stone of the potion's colour from the reserve onto a free position
of one's board) and Extraction (a stone of the potion's colour from one's board back to the reserve).
Advanced powers, one per crystal element held, with a potion of that element's colour:

- Earth + green, Attraction: one stone of any colour from an opponent's board onto a free position of one's
  own board;
- Air + white, Dispersion: one or more stones of one's board lifted and put back on positions of one's
  choice (in the 2-player game, across both of one's boards as if they were one);
- Fire + yellow, Transformation: one stone of one's board back to the reserve, replaced at the same position
  by a stone of another colour from the reserve;
- Water + blue, Purification: one or more stones of one's board onto free positions of any opponents' boards;
- Time + red, Inversion: one stone of one's board exchanged with one stone of an opponent's board, each
  taking the other's position.

Decision (the text is silent): a use must change the boards. A Transformation into the same colour, an
Inversion of two stones of one colour, or a Dispersion that puts every stone back where it was changes
nothing a player (or the camera) could see, so it is refused rather than counted as a use.

Expert mode: holding Water forbids Extraction; holding Fire, yellow potions give only Transformation;
holding Time, red potions give only Inversion (the Earth and Air restrictions concern the start of a turn).
"""

from __future__ import annotations

from dataclasses import dataclass

from .stones import AlchymiaError, Colour, Element

INTEGRATION, EXTRACTION = "Integration", "Extraction"
ATTRACTION, DISPERSION, PURIFICATION = "Attraction", "Dispersion", "Purification"
TRANSFORMATION, INVERSION = "Transformation", "Inversion"
ADVANCED = {Colour.GREEN: ATTRACTION, Colour.WHITE: DISPERSION, Colour.BLUE: PURIFICATION,
            Colour.YELLOW: TRANSFORMATION, Colour.RED: INVERSION}


def powers_for(colour: Colour, elements: frozenset[Element], expert: bool = False) -> tuple[str, ...]:
    """The powers a potion of ``colour`` gives to a player holding crystals of ``elements``."""
    element = Element.of_colour(colour)
    if expert and element in elements and element in (Element.FIRE, Element.TIME):
        return (ADVANCED[colour],)  # the expert Fire and Time crystals force their power on the potion
    powers = [INTEGRATION]
    if not (expert and Element.WATER in elements):
        powers.append(EXTRACTION)
    if element in elements:
        powers.append(ADVANCED[colour])
    return tuple(powers)


@dataclass(frozen=True, order=True)
class Spot:
    """A stone position on the table: the player who owns the board, which of his boards, the position."""

    player: int
    board: int
    position: str

    def __str__(self) -> str:
        return f"{self.player}.{self.board}.{self.position}"

    @classmethod
    def parse(cls, text: str) -> Spot:
        """``"1.0.r2c1"``: player 1 (from 0), his board 0, position r2c1."""
        try:
            player, board, position = text.split(".")
            return cls(int(player), int(board), position)
        except ValueError:
            raise AlchymiaError(f"{text!r} is not a position (expected PLAYER.BOARD.rRcC, e.g. 1.0.r2c1)") from None


@dataclass(frozen=True)
class Integration:
    colour: Colour
    to: Spot
    power = INTEGRATION

    @property
    def potion(self) -> Colour:
        return self.colour


@dataclass(frozen=True)
class Extraction:
    colour: Colour
    source: Spot
    power = EXTRACTION

    @property
    def potion(self) -> Colour:
        return self.colour


@dataclass(frozen=True)
class Attraction:
    source: Spot  # on an opponent's board
    to: Spot      # a free position of one's own board
    power = ATTRACTION
    potion = Colour.GREEN


@dataclass(frozen=True)
class Dispersion:
    moves: tuple[tuple[Spot, Spot], ...]  # (from, to) on one's own boards; all lifted, then all put down
    power = DISPERSION
    potion = Colour.WHITE


@dataclass(frozen=True)
class Transformation:
    at: Spot
    colour: Colour  # the new stone, taken from the reserve
    power = TRANSFORMATION
    potion = Colour.YELLOW


@dataclass(frozen=True)
class Purification:
    moves: tuple[tuple[Spot, Spot], ...]  # (from one's own board, to a free position of an opponent's board)
    power = PURIFICATION
    potion = Colour.BLUE


@dataclass(frozen=True)
class Inversion:
    own: Spot    # on one's own board
    other: Spot  # on an opponent's board
    power = INVERSION
    potion = Colour.RED


Use = Integration | Extraction | Attraction | Dispersion | Transformation | Purification | Inversion
