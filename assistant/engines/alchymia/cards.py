"""Potion cards and crystal cards.

A potion card carries 1 to 4 coloured potions (``PotionCard("p12", "GGYY")``); a crystal card carries an
element and the atomic structure a player must reproduce on his board to win it. A deck is the five
crystal stacks (in stack order, the first card on top) and the potion cards; the publisher's cards are not
reproduced here, decks are read from data files (``assistant.decks.alchymia``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from .stones import ELEMENTS, AlchymiaError, Board, Colour, Element


@dataclass(frozen=True)
class PotionCard:
    """A potion card: its name and its potions, 1 to 4 colours (repeats allowed)."""

    name: str
    potions: tuple[Colour, ...]

    def __init__(self, name: str, potions: str | tuple[Colour, ...] | list[Colour]):
        if isinstance(potions, str):
            potions = tuple(Colour.from_letter(ch) for ch in potions.replace(" ", ""))
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "potions", tuple(Colour(p) for p in potions))
        if not 1 <= len(self.potions) <= 4:
            raise AlchymiaError(f"potion card {name}: a card carries 1 to 4 potions, not {len(self.potions)}")

    @property
    def letters(self) -> str:
        return "".join(p.letter for p in self.potions)

    def counts(self) -> Counter[Colour]:
        return Counter(self.potions)

    def __str__(self) -> str:
        return f"{self.name} ({self.letters})"


@dataclass(frozen=True)
class CrystalCard:
    """A crystal card: the structure to reproduce (empty positions included) and the element it gives."""

    name: str
    element: Element
    structure: Board

    def __post_init__(self) -> None:
        if self.structure.is_empty:
            raise AlchymiaError(f"crystal card {self.name}: the structure has no stone")

    def __str__(self) -> str:
        return f"{self.name} ({self.element}: {self.structure.line()})"


@dataclass(frozen=True)
class Deck:
    """The cards of a game: five crystal stacks by element (first card on top) and the potion cards."""

    rows: int
    cols: int
    crystals: tuple[tuple[CrystalCard, ...], ...]  # one stack per element, in ELEMENTS order
    potions: tuple[PotionCard, ...]

    def __post_init__(self) -> None:
        if len(self.crystals) != len(ELEMENTS):
            raise AlchymiaError("a deck needs one crystal stack per element")
        for element, stack in zip(ELEMENTS, self.crystals, strict=True):
            for card in stack:
                if card.element is not element:
                    raise AlchymiaError(f"crystal card {card.name} is {card.element}, not in the {element} stack")
                s = card.structure
                if (s.rows, s.cols) != (self.rows, self.cols):
                    raise AlchymiaError(f"crystal card {card.name}: a {s.rows} x {s.cols} structure for a "
                                        f"{self.rows} x {self.cols} board")
        names = [c.name for stack in self.crystals for c in stack] + [p.name for p in self.potions]
        twice = sorted(n for n, k in Counter(names).items() if k > 1)
        if twice:
            raise AlchymiaError(f"card name {twice[0]} is used twice")

    def stack(self, element: Element) -> tuple[CrystalCard, ...]:
        return self.crystals[ELEMENTS.index(element)]
