"""Alchymia rules engine: stones, crystals, powers, turns, and the checker of physical turns.

Plain data and pure functions in the spirit of python-chess: boards, cards, tables and games are frozen
values; an illegal action raises ``AlchymiaError`` whose message is the reason a player would be told.

>>> from assistant.engines.alchymia import Board, Colour, Integration, Spot, Table, Turn, PotionCard
>>> from assistant.decks.alchymia import load_deck
>>> table = Table.new(["Ada", "Bea", "Cy"], load_deck())
>>> table, taken = table.play(0, Turn(PotionCard("p", "GY"), (Integration(Colour.GREEN, Spot(0, 0, "r1c1")),)))
>>> table.boards[0][0].line(), table.in_reserve(Colour.GREEN)
('.../.G./...', 7)
"""

from .cards import CrystalCard, Deck, PotionCard
from .check import Explanation, check_turn
from .game import Game
from .powers import (
    Attraction,
    Dispersion,
    Extraction,
    Integration,
    Inversion,
    Purification,
    Spot,
    Transformation,
    Use,
    powers_for,
)
from .stones import COLOURS, ELEMENTS, AlchymiaError, Board, Colour, Element
from .table import Table, Turn

__all__ = [
    "COLOURS", "ELEMENTS", "AlchymiaError", "Attraction", "Board", "Colour", "CrystalCard", "Deck", "Dispersion",
    "Element", "Explanation", "Extraction", "Game", "Integration", "Inversion", "PotionCard", "Purification",
    "Spot", "Table", "Transformation", "Turn", "Use", "check_turn", "powers_for",
]
