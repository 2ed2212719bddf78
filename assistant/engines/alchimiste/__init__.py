"""Alchimiste (Carlo A. Rossi): the rules engine. Plain data and pure functions, no I/O.

>>> from itertools import combinations
>>> from assistant.engines.alchimiste import COLOURS, Copy, Create, Cubes, Game
>>> produces = list(combinations(COLOURS, 2))        # cauldron 10 produces yellow and green
>>> game = Game.new([("Abigail", "blue"), ("Merlin", "grey")], produces)   # public mode
>>> mix = Cubes.of(blue=2, grey=2, orange=1)
>>> game = game.play(Create(10, mix, 9))
>>> game = game.play(Copy(10, mix, "grey"))
>>> game.scores()
{'Abigail': 9, 'Merlin': 9}
>>> print(game.reason(Create(10, Cubes.of(grey=1), 3)))
cauldron 10 is not empty: it holds Abigail's potion

Modules: ``rules`` (the rulebook's tables), ``cubes`` (counts per colour), ``actions`` (create, copy, take,
draw, pass), ``game`` (the state and every legality rule; its docstring says what is checked in the public
and in the full-information mode), ``endgame`` (the referee's scoring), ``simulate`` (random legal games).
"""

from .actions import Action, Copy, Create, Draw, Pass, Take, describe
from .cubes import Cubes
from .endgame import EndLine, EndPlayer, EndResult, school_places, score_endgame, winners
from .game import Adept, Cauldron, Game, Potion
from .rules import (
                    COLOURS,
                    CUBES_PER_COLOUR,
                    REWARDS,
                    SEALS,
                    SETUP,
                    TILES,
                    TRACK_SPACES,
                    IllegalAction,
                    Setup,
                    fame_from_track,
                    track_position,
)

__all__ = [
    "COLOURS", "CUBES_PER_COLOUR", "REWARDS", "SEALS", "SETUP", "TILES", "TRACK_SPACES", "Action", "Adept",
    "Cauldron", "Copy", "Create", "Cubes", "Draw", "EndLine", "EndPlayer", "EndResult", "Game", "IllegalAction",
    "Pass", "Potion", "Setup", "Take", "describe", "fame_from_track", "school_places", "score_endgame",
    "track_position", "winners",
]
