"""Alchemists (Matúš Kotry): the game master that replaces the companion app, and a deduction aid.

Pure and deterministic: plain values, no I/O. Every illegal action or malformed input raises
``AlchemistsError`` (a ``ValueError``) whose message is the reason a player would be told.

>>> from assistant.engines import alchemists as al
>>> game = al.assignment_from_code(al.code_for_index(0))
>>> al.brew(game, "fern", "claw")
Potion.parse('neutral')
>>> game
Assignment(<secret>)
"""

from .alchemicals import (
    ALCHEMICALS,
    COLOURS,
    INGREDIENTS,
    NEUTRAL,
    POTIONS,
    Alchemical,
    AlchemistsError,
    Aspect,
    Colour,
    Potion,
    mix,
    parse_ingredient,
)
from .codes import (
    GAMES,
    Assignment,
    assignment_from_code,
    code_for_index,
    code_from_assignment,
    game_id,
    index_of_code,
    keyed_index,
)
from .facts import AspectFact, Fact, MixFact, TheoryFact, exhibited, mixed, parse_facts, sold, with_sign
from .master import (
    APPRENTICE,
    MASTER,
    MODES,
    AspectReveal,
    Demonstration,
    Exhibit,
    Quality,
    Sale,
    brew,
    debunk_aspect,
    demonstrate,
    drink_effect,
    drink_reputation,
    exhibit,
    exhibition_reputation,
    producible,
    quality_reached,
    reputation_loss,
    seal_penalties,
    sell,
)
from .reveal import Revelation, Seal, SealKind, Theory, Verdict, grand_reveal, parse_theories, seal_points
from .solver import Deduction, MixSuggestion, deduce, suggest_mix

__all__ = [
    "ALCHEMICALS", "APPRENTICE", "COLOURS", "GAMES", "INGREDIENTS", "MASTER", "MODES", "NEUTRAL", "POTIONS",
    "Alchemical", "AlchemistsError", "Aspect", "AspectFact", "AspectReveal", "Assignment", "Colour",
    "Deduction", "Demonstration", "Exhibit", "Fact", "MixFact", "MixSuggestion", "Potion", "Quality",
    "Revelation", "Sale", "Seal", "SealKind", "Theory", "TheoryFact", "Verdict", "assignment_from_code",
    "brew", "code_for_index", "code_from_assignment", "debunk_aspect", "deduce", "demonstrate",
    "drink_effect", "drink_reputation", "exhibit", "exhibited", "exhibition_reputation", "game_id",
    "grand_reveal", "index_of_code", "keyed_index", "mix", "mixed", "parse_facts", "parse_ingredient",
    "parse_theories", "producible", "quality_reached", "reputation_loss", "seal_penalties", "seal_points", "sell",
    "sold", "suggest_mix", "with_sign",
]
