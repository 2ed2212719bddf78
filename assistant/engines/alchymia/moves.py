"""The move generator: which powers a potion can be used with, random legal uses and turns, and a greedy
player that heads for the crystals (used for random games in the tests, the demo and the benchmark).

Dispersion and Purification have far too many outcomes to list (every rearrangement of a board), so the
generator draws them at random; the other powers are listed exhaustively by ``uses``.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import TYPE_CHECKING

from .powers import (
    ATTRACTION,
    DISPERSION,
    EXTRACTION,
    INTEGRATION,
    INVERSION,
    PURIFICATION,
    TRANSFORMATION,
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
from .stones import COLOURS, AlchymiaError, Colour, Element
from .table import Table, Turn

if TYPE_CHECKING:
    from .game import Game


def own_spots(table: Table, player: int) -> list[Spot]:
    return [Spot(player, b, name) for b, board in enumerate(table.boards[player]) for name in board.positions()]


def other_spots(table: Table, player: int) -> list[Spot]:
    return [s for p in range(len(table.players)) if p != player for s in own_spots(table, p)]


def _split(table: Table, spots: list[Spot]) -> tuple[list[Spot], list[Spot]]:
    free = [s for s in spots if table.cell(s) is None]
    full = [s for s in spots if table.cell(s) is not None]
    return free, full


def uses(table: Table, player: int, colour: Colour, power: str) -> Iterator[Use]:
    """Every use of a ``colour`` potion with ``power`` (not Dispersion or Purification: see ``random_use``)."""
    own_free, own_full = _split(table, own_spots(table, player))
    if power == INTEGRATION and table.in_reserve(colour):
        yield from (Integration(colour, s) for s in own_free)
    elif power == EXTRACTION:
        yield from (Extraction(colour, s) for s in own_full if table.cell(s) is colour)
    elif power == ATTRACTION:
        _, other_full = _split(table, other_spots(table, player))
        yield from (Attraction(a, b) for a in other_full for b in own_free)
    elif power == TRANSFORMATION:
        yield from (Transformation(s, c) for s in own_full for c in COLOURS
                    if c is not table.cell(s) and table.in_reserve(c))
    elif power == INVERSION:
        _, other_full = _split(table, other_spots(table, player))
        yield from (Inversion(a, b) for a in own_full for b in other_full if table.cell(a) is not table.cell(b))


def has_use(table: Table, player: int, colour: Colour) -> bool:
    """Whether a potion of ``colour`` has at least one use for ``player`` right now."""
    for power in powers_for(colour, table.elements(player), table.expert):
        if power in (DISPERSION, PURIFICATION):
            if _can_move_stones(table, player, power):
                return True
        elif next(uses(table, player, colour, power), None) is not None:
            return True
    return False


def _can_move_stones(table: Table, player: int, power: str) -> bool:
    own_free, own_full = _split(table, own_spots(table, player))
    if power == PURIFICATION:
        return bool(own_full) and bool(_split(table, other_spots(table, player))[0])
    return bool(own_full) and (bool(own_free) or len({table.cell(s) for s in own_full}) > 1)


def random_use(table: Table, player: int, colour: Colour, rng: random.Random) -> Use | None:
    """A random legal use of a ``colour`` potion (a random power among those with a use), or None."""
    powers = list(powers_for(colour, table.elements(player), table.expert))
    rng.shuffle(powers)
    for power in powers:
        if power == DISPERSION:
            use = _random_dispersion(table, player, rng)
        elif power == PURIFICATION:
            use = _random_purification(table, player, rng)
        else:
            options = list(uses(table, player, colour, power))
            use = rng.choice(options) if options else None
        if use is not None:
            return use
    return None


def _some(items: list, rng: random.Random) -> list:
    """A random non-empty selection, small ones more likely (one stone half the time)."""
    k = 1
    while k < len(items) and rng.random() < 0.5:
        k += 1
    return rng.sample(items, k)


def _random_dispersion(table: Table, player: int, rng: random.Random) -> Dispersion | None:
    if not _can_move_stones(table, player, DISPERSION):
        return None
    own_free, own_full = _split(table, own_spots(table, player))
    for _ in range(20):
        lifted = _some(own_full, rng)
        places = rng.sample(own_free + lifted, len(lifted))
        moves = tuple((a, b) for a, b in zip(lifted, places, strict=True) if a != b)
        if any(table.cell(a) is not table.cell(b) for a, b in moves):
            return Dispersion(moves)
    return None


def _random_purification(table: Table, player: int, rng: random.Random) -> Purification | None:
    if not _can_move_stones(table, player, PURIFICATION):
        return None
    _, own_full = _split(table, own_spots(table, player))
    other_free, _ = _split(table, other_spots(table, player))
    sent = _some(own_full, rng)[:len(other_free)]
    return Purification(tuple(zip(sent, rng.sample(other_free, len(sent)), strict=True)))


# whole turns -------------------------------------------------------------------------------------------
def _options(game: Game) -> list[tuple[int | None, tuple[int, ...]]]:
    """The start-of-turn options (swap_with, boards emptied) open to the player to move."""
    table, player = game.table, game.to_move
    held = table.elements(player)
    options: list[tuple[int | None, tuple[int, ...]]] = [(None, ())]
    if not (table.expert and Element.EARTH in held):
        options += [(p, ()) for p in range(len(table.players)) if p != player]
    if not (table.expert and Element.AIR in held):
        full = [b for b, board in enumerate(table.boards[player]) if not board.is_empty]
        options += [(None, (b,)) for b in full]
        if len(full) > 1:
            options.append((None, tuple(full)))
    return options


def can_move(game: Game) -> bool:
    """Whether the player to move has any legal turn (some option, some card, some potion with a use)."""
    player = game.to_move
    for swap, empty in _options(game):
        table = game.table.emptied(player, empty) if empty else game.table
        hand = game.hands[swap] if swap is not None else game.hands[player]
        if any(has_use(table, player, c) for card in hand for c in set(card.potions)):
            return True
    return False


def random_turn(game: Game, rng: random.Random, *, tries: int = 200) -> tuple[Turn, bool]:
    """A random legal turn for the player to move, and whether it is a pass."""
    player = game.to_move
    options = _options(game)
    for _ in range(tries):
        swap, empty = options[0] if rng.random() < 0.8 else rng.choice(options)
        hand = game.hands[swap] if swap is not None else game.hands[player]
        card = rng.choice(hand)
        table = game.table.emptied(player, empty) if empty else game.table
        potions = list(card.potions)
        rng.shuffle(potions)
        chosen: list[Use] = []
        for colour in potions[:rng.randint(1, len(potions))]:
            use = random_use(table, player, colour, rng)
            if use is None:
                continue
            chosen.append(use)
            table = table.apply(player, use)
            if table.completions(player):
                break
        turn = Turn(card, tuple(chosen), swap, empty)
        try:
            game.table.play(player, turn)
        except AlchymiaError:
            continue
        return turn, False
    if not can_move(game):
        return Turn(rng.choice(game.hands[player])), True
    raise AlchymiaError("no random turn found")  # not reached in practice: a use always changes a board


def distance(table: Table, player: int) -> int:
    """How many positions of the player's best board differ from the nearest crystal he may still take."""
    best = 99
    for board in table.boards[player]:
        for card in table.targets(player):
            for turned in card.structure.rotations():
                if turned.rows == board.rows:
                    best = min(best, sum(a != b for a, b in zip(board.cells, turned.cells, strict=True)))
    return best


def greedy_turn(game: Game, rng: random.Random, *, samples: int = 24) -> tuple[Turn, bool]:
    """The best of ``samples`` random turns: a crystal taken first, then the board nearest a crystal."""
    player = game.to_move
    best: tuple[float, Turn, bool] | None = None
    for _ in range(samples):
        turn, passing = random_turn(game, rng)
        if passing:
            return turn, True
        table, taken = game.table.play(player, turn)
        score = -100.0 * len(taken) + distance(table, player) + rng.random() / 2
        if best is None or score < best[0]:
            best = (score, turn, False)
    assert best is not None
    return best[1], best[2]


def play_out(game: Game, rng: random.Random, *, max_turns: int = 2000, greedy: bool = True):
    """Yield (game before, turn, passing) for every turn of a game played to its end (or ``max_turns``)."""
    for _ in range(max_turns):
        if game.winner is not None:
            return
        turn, passing = greedy_turn(game, rng) if greedy else random_turn(game, rng)
        yield game, turn, passing
        game = game.play(turn, passing=passing)


