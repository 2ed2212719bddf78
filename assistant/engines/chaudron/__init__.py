"""Le Chaudron Magique (Alexys Dussier): the shared cauldron, blocks, potions, ingredient cards, Cramés.

A pure rules engine: plain values and functions, no I/O. The cauldron has a text form that reads like
the rulebook's pictures (``.`` empty, ``B`` bone, ``R`` root, ``F`` fluid, ``f`` fire, ``P`` poison,
``S`` philosopher's stone, ``X`` Cramé)::

    >>> from assistant.engines.chaudron import Block, Cauldron, Ingredient, check_move
    >>> card = Ingredient("i1", "Bone dust", add=(Block.parse("BB"),))
    >>> before = Cauldron.parse("...\\n...\\n...")
    >>> check_move(before, Cauldron.parse("...\\n.B.\\n.B."), card).legal
    True
    >>> check_move(before, Cauldron.parse("B..\\n...\\n..B"), card).reason
    'no way of playing Bone dust gives this cauldron (seen: r0c0 empty->bone, r2c2 empty->bone)'

Modules: ``grid`` (the cauldron), ``shapes`` (blocks, groups, orientations), ``cards`` (potions,
ingredients, rarity table), ``concoct`` (concoction and forced concoction), ``ingredient`` (applying a
card), ``physical`` (checking a move seen by the camera), ``game`` (the round, timers, win and loss),
``autoplay`` (a simple player for demos and benchmarks).
"""

from .cards import (
    CRAME_CAP,
    CRAMES_TO_LOSE,
    POTIONS_TO_MAKE,
    RARITIES,
    RARITY_TABLE,
    Ingredient,
    Potion,
)
from .concoct import Concoction, concoct, concoctable, forced
from .game import Game, Revealed, hand_size, potion_deck, rarity_counts, rarity_mismatch, setup_cauldron
from .grid import LABELS, LETTERS, RESOURCES, Cauldron, IllegalMove
from .ingredient import Play, Resolution, apply, place, placements
from .physical import Verdict, check_move
from .shapes import Block, Group, Placement, link

__all__ = [
    "CRAMES_TO_LOSE", "CRAME_CAP", "LABELS", "LETTERS", "POTIONS_TO_MAKE", "RARITIES", "RARITY_TABLE", "RESOURCES",
    "Block", "Cauldron", "Concoction", "Game", "Group", "IllegalMove", "Ingredient", "Placement", "Play", "Potion",
    "Resolution", "Revealed", "Verdict", "apply", "check_move", "concoct", "concoctable", "forced", "hand_size",
    "link", "place", "placements", "potion_deck", "rarity_counts", "rarity_mismatch", "setup_cauldron",
]
