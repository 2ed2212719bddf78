"""Potion and ingredient cards, and the rarity table.

A card side is a tuple of blocks; ``groups`` links them (see ``shapes.link``). Cards are plain values:
decks are read from TOML by ``assistant.decks.chaudron``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from .grid import RESOURCES
from .shapes import Block, Group, link

RARITIES = ("common", "rare", "epic", "mythic", "legendary")

# "Tableau des Potions": how many potions of each rarity make the 7-potion deck, by number of witches.
# The rulebook prints five headings (Communes, Rares, Épiques, Mythiques, Légendaires) over four numbers a
# row; the numbers are read as Commune, Rare, Épique, Mythique and no Légendaire, since the text says the
# bottom of the stack holds the Mythiques ("celles en bas les cartes Mythiques"). Every row makes 7.
RARITY_TABLE: dict[int, dict[str, int]] = {
    players: dict(zip(RARITIES, counts, strict=True))
    for players, counts in {
        2: (1, 1, 3, 2, 0),
        3: (2, 2, 2, 1, 0),
        4: (1, 1, 3, 2, 0),
        5: (2, 3, 1, 1, 0),
        6: (1, 2, 3, 1, 0),
        7: (1, 2, 2, 2, 0),
    }.items()
}
POTIONS_TO_MAKE = 7
CRAME_CAP = 5      # "une même carte Ingrédient ne peut jamais vous faire obtenir plus de 5 Cramés"
CRAMES_TO_LOSE = 20
FORCED_STONE_PENALTY = 5  # a philosopher's stone missing from a forced concoction


@dataclass(frozen=True)
class Potion:
    """A potion card: the resources (in blocks) to find together in the cauldron."""

    id: str
    name: str
    rarity: str
    blocks: tuple[Block, ...]

    def __post_init__(self) -> None:
        if self.rarity not in RARITIES:
            raise ValueError(f"rarity: expected one of {', '.join(RARITIES)}, got {self.rarity!r}")
        if not self.blocks:
            raise ValueError("a potion needs at least one block")
        for b in self.blocks:
            if b.optional:
                raise ValueError("a potion's blocks cannot be optional")
            if any(label == "burnt" for _, _, label in b.cells):
                raise ValueError("a potion cannot ask for a Cramé")

    @cached_property
    def groups(self) -> tuple[Group, ...]:
        return link(self.blocks)

    @property
    def size(self) -> int:
        return sum(len(b.cells) for b in self.blocks)

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Ingredient:
    """An ingredient card. Effects happen in this order: remove (``remove_all`` then the ``remove``
    blocks, or the card's "or suffer N Cramés"), add, duplicate, move."""

    id: str
    name: str
    remove: tuple[Block, ...] = ()
    add: tuple[Block, ...] = ()
    remove_all: tuple[str, ...] = ()   # "retirez tous vos X": never burns
    or_suffer: int = 0                 # "ou subissez X Cramés" (0: the card does not offer it)
    duplicate: int = 0                 # how many resources to duplicate
    move: int = 0                      # how many pieces may be moved (each move is optional)
    max_burnt: int = CRAME_CAP         # Cramés this card can cause at most ("sauf si elle le mentionne")
    text: str = ""                     # the card's own words, for people
    extra: dict = field(default_factory=dict, compare=False, hash=False)

    def __post_init__(self) -> None:
        for label in self.remove_all:
            if label not in (*RESOURCES, "burnt"):
                raise ValueError(f"remove_all: {label!r} is not a resource")
        for b in self.add:
            if any(label == "burnt" for _, _, label in b.cells):
                raise ValueError("add: a card adds resources, not Cramés (use or_suffer)")
        for b in self.remove:
            if b.optional:
                raise ValueError("remove: only added blocks can be optional")
        if self.or_suffer and not self.remove:
            raise ValueError("or_suffer: the card offers Cramés instead of removing, so it needs remove blocks")
        for key in ("or_suffer", "duplicate", "move", "max_burnt"):
            if getattr(self, key) < 0:
                raise ValueError(f"{key}: cannot be negative")
        if self.or_suffer > self.max_burnt:
            # A card that names more Cramés than the cap mentions them explicitly.
            object.__setattr__(self, "max_burnt", self.or_suffer)
        if not (self.remove or self.add or self.remove_all or self.duplicate or self.move):
            raise ValueError("the card does nothing")

    @cached_property
    def remove_groups(self) -> tuple[Group, ...]:
        return link(self.remove)

    @cached_property
    def add_groups(self) -> tuple[Group, ...]:
        return link(self.add)

    def __str__(self) -> str:
        return self.name
