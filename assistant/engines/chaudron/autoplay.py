"""A simple cooperative player, for demos, examples and benchmarks (not a strong one).

Each witch plays the card whose best placement scores highest and keeps the next best; a placement is
scored by the potions it makes, the Cramés it costs and how close the waiting potions come to being
complete. Everything is drawn from the ``random.Random`` given, so a seed replays the same game.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from .cards import Ingredient, Potion
from .concoct import compiled
from .game import Game, hand_size, potion_deck, setup_cauldron
from .grid import EMPTY, Cauldron
from .ingredient import Play, apply, placements

CANDIDATES = 24  # placements tried per card: enough to find the good ones, fast enough for a demo


@dataclass(frozen=True)
class Turn:
    """One event of a simulated game, as a record stores it."""

    kind: str                      # "reveal" or "play"
    card: Ingredient | None
    after: Cauldron
    notes: tuple[str, ...]


def progress(cauldron: Cauldron, potions) -> int:
    """How near the potions are: per group, the most of its cells that one placement finds in the cauldron."""
    masks, total = cauldron.masks, 0
    for potion in potions:
        for group in compiled(potion, cauldron.rows, cauldron.cols):
            total += max(sum((m & masks[code]).bit_count() for code, m in p.reqs) for p in group)
    return total


def score(game: Game, result_cauldron: Cauldron, made: int, burnt: int, potions) -> float:
    return made * 1000 - burnt * 40 + progress(result_cauldron, potions)


def best_play(game: Game, card: Ingredient, rng: random.Random) -> tuple[float, Play]:
    """The best play found for ``card`` on this table, and its score."""
    revealed = [r.potion for r in game.revealed]
    pot = game.cauldron
    options: list[Play] = [Play()]
    if card.add_groups:
        per_group = []
        for g in card.add_groups:
            fits = [p for p in placements(pot, g, True)
                    if not p.outside and not p.omitted and p.cells and p.mask & ~pot.masks[EMPTY] == 0]
            per_group.append(rng.sample(fits, min(len(fits), CANDIDATES)) if fits else [])
        if all(per_group):
            for k in range(max(len(c) for c in per_group)):
                chosen, used = [], 0
                for cands in per_group:
                    p = next((p for p in cands[k:] + cands[:k] if not p.mask & used), None)
                    if p is None:
                        break
                    chosen.append(p)
                    used |= p.mask
                else:
                    options.append(Play(additions=tuple(chosen)))
    best = None
    for play in options:
        try:
            res = apply(pot, card, play, revealed, game.deck)
        except ValueError:
            continue
        value = score(game, res.cauldron, len(res.concocted), res.burnt, revealed)
        if best is None or value > best[0]:
            best = (value, play)
    return best if best is not None else (float("-inf"), Play())


def play_game(potions: list[Potion], pile: list[Ingredient], players: int = 2, seed: int = 1,
              rows: int = 6, cols: int = 6, max_rounds: int = 60) -> tuple[Game, Cauldron, list[Turn]]:
    """Play a whole game: returns the final game, the starting cauldron and every event."""
    rng = random.Random(seed)
    start = setup_cauldron(rng, rows, cols)
    game = Game.new(start, potion_deck(potions, players, rng), players)
    draw = list(pile)
    rng.shuffle(draw)
    discard: list[Ingredient] = []
    kept: list[Ingredient | None] = [None] * players
    turns: list[Turn] = []
    while game.status == "playing" and game.round < max_rounds:
        game, notes = game.reveal()
        turns.append(Turn("reveal", None, game.cauldron, tuple(notes)))
        if game.status != "playing":
            break
        played = []
        for w in range(players):
            hand = [c for c in [kept[w]] if c is not None]
            for _ in range(hand_size(players, game.round == 1)):
                if not draw:  # the rulebook is silent: the discard pile is shuffled into a new one
                    draw, discard = discard, []
                    rng.shuffle(draw)
                if draw:
                    hand.append(draw.pop())
            ranked = sorted(hand, key=lambda c: -best_play(game, c, rng)[0])
            played.append(ranked[0])
            kept[w] = ranked[1] if len(ranked) > 1 else None
            discard += ranked[2:]
        rng.shuffle(played)
        for card in played:
            if game.status != "playing":
                break
            _, play = best_play(game, card, rng)
            game, res = game.play(card, play)
            turns.append(Turn("play", card, game.cauldron, res.steps))
        discard += played
    return game, start, turns
