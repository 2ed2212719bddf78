"""Random legal games, for the property tests and the benchmark. Deterministic for a given ``random.Random``.

The game is played in full-information mode (the simulator deals the screens and draws from the bag with the
odds of a real bag); ``public_action`` strips what a public record would not know, so the same game can be
replayed in public mode.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from .actions import Action, Draw
from .cubes import Cubes
from .game import Game
from .rules import COLOURS, SCREEN_AT_START, SETUP


def deal(n: int, rng: random.Random) -> list[Cubes]:
    """The 12 cubes each of ``n`` adepts draws from a freshly filled bag."""
    bag = [c for c in COLOURS for _ in range(SETUP[n].bag)]
    rng.shuffle(bag)
    return [Cubes.listing(bag[i * SCREEN_AT_START:(i + 1) * SCREEN_AT_START]) for i in range(n)]


def draw(bag: Cubes, count: int, rng: random.Random) -> Cubes:
    """``count`` cubes out of ``bag``, each cube equally likely."""
    return Cubes.listing(rng.sample(bag.colours(), count))


def random_action(game: Game, rng: random.Random) -> Action:
    """A random legal action: first a kind of action (create, copy, take, draw, pass) among those possible,
    then one of that kind, so that the ~2,500 possible creations do not drown the takes."""
    kinds: dict[type, list[Action]] = {}
    for action in game.legal_actions():
        kinds.setdefault(type(action), []).append(action)
    kind = rng.choice(sorted(kinds, key=lambda k: k.__name__))
    if kind is Draw and game.full:
        bag = game.bag_contents
        assert bag is not None
        return Draw(min(2, game.bag), draw(bag, min(2, game.bag), rng))
    return rng.choice(kinds[kind])


def random_game(players: Sequence[tuple[str, str]], produces: Sequence[Sequence[str]], rng: random.Random,
                max_actions: int = 10_000) -> tuple[Game, list[tuple[Game, Action]]]:
    """Play a random full-information game to its end (or ``max_actions``); returns the last state and every
    (state before, action) pair."""
    game = Game.new(players, produces, deal(len(players), rng))
    history = []
    while not game.over and len(history) < max_actions:
        action = random_action(game, rng)
        history.append((game, action))
        game = game.play(action)
    return game, history


def public_action(action: Action) -> Action:
    """The action as a public record has it: a draw's colours are secret."""
    if isinstance(action, Draw):
        return Draw(action.count)
    return action

