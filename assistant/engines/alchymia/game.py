"""A whole game with its hidden parts: hands of three potion cards, the draw pile and the discard.

``Game.new`` shuffles the potion cards and each crystal stack with a seed, deals three cards to each
player, and ``play`` applies a turn of the player to move: swap hands (if asked), play the card from the
(new) hand onto the discard, apply the power uses on the table, then draw back to three. When the draw
pile is empty the discard is turned over and becomes the new draw pile: the text says "retourné" (turned
over), not shuffled, so the first card played is drawn first.

A player who can use no potion of any card in his hand, even after swapping hands with any opponent or
emptying his board, may pass: he plays a card without using it and draws (the text is silent; without this
such a player could not move at all).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from .cards import Deck, PotionCard
from .moves import can_move
from .stones import AlchymiaError
from .table import Table, Turn

HAND_SIZE = 3


@dataclass(frozen=True)
class Game:
    table: Table
    hands: tuple[tuple[PotionCard, ...], ...]
    draw_pile: tuple[PotionCard, ...]  # top card first
    discard: tuple[PotionCard, ...]    # first played first, the visible card last
    to_move: int = 0
    turns: int = 0

    @classmethod
    def new(cls, deck: Deck, players: list[str] | tuple[str, ...], seed: int | str = 0,
            expert: bool = False) -> Game:
        rng = random.Random(str(seed))
        potions = list(deck.potions)
        rng.shuffle(potions)
        stacks = []
        for stack in deck.crystals:
            stack = list(stack)
            rng.shuffle(stack)
            stacks.append(tuple(stack))
        table = Table.new(players, replace(deck, crystals=tuple(stacks)), expert)
        n = len(table.players)
        if len(potions) < HAND_SIZE * n:
            raise AlchymiaError(f"the deck has {len(potions)} potion cards, too few to deal {HAND_SIZE} each")
        hands = tuple(tuple(potions[i * HAND_SIZE:(i + 1) * HAND_SIZE]) for i in range(n))
        return cls(table, hands, tuple(potions[HAND_SIZE * n:]), ())

    @property
    def winner(self) -> int | None:
        return self.table.winner

    def play(self, turn: Turn, *, passing: bool = False) -> Game:
        """The game after the player to move plays ``turn``; raises AlchymiaError if it is illegal."""
        player = self.to_move
        hands = list(self.hands)
        if turn.swap_with is not None and 0 <= turn.swap_with < len(hands) and turn.swap_with != player:
            hands[player], hands[turn.swap_with] = hands[turn.swap_with], hands[player]
        if turn.card not in hands[player]:
            raise AlchymiaError(f"the card {turn.card} is not in your hand")
        if passing:
            if can_move(self):
                raise AlchymiaError("you can use a potion: passing is only for a player who cannot")
            turn = replace(turn, uses=(), swap_with=None, empty=())
            hands = list(self.hands)
        table, _ = self.table.play(player, turn, passing=passing)
        hand = list(hands[player])
        hand.remove(turn.card)
        draw, discard = list(self.draw_pile), [*self.discard, turn.card]
        while len(hand) < HAND_SIZE and (draw or discard):
            if not draw:
                draw, discard = discard, []  # the discard turned over: the first card played is on top
            hand.append(draw.pop(0))
        hands[player] = tuple(hand)
        return Game(table, tuple(hands), tuple(draw), tuple(discard), (player + 1) % len(hands), self.turns + 1)
