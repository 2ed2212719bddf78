"""Hands of three, the draw pile and the discard, passing, and whole games played by the move generator."""

import random
from dataclasses import replace

import pytest

from assistant.decks.alchymia import load_deck
from assistant.engines.alchymia import AlchymiaError, Board, Colour, Game, Integration, PotionCard, Spot, Turn
from assistant.engines.alchymia.moves import can_move, play_out

DECK = load_deck()


def test_a_new_game_deals_three_cards_each():
    game = Game.new(DECK, ["Ada", "Bea", "Cy"], seed=4)
    assert [len(h) for h in game.hands] == [3, 3, 3] and len(game.draw_pile) == 55 - 9
    assert game.table.reserve == (8,) * 5 and all(b.is_empty for bs in game.table.boards for b in bs)
    assert Game.new(DECK, ["Ada", "Bea", "Cy"], seed=4) == game != Game.new(DECK, ["Ada", "Bea", "Cy"], seed=5)


def first_use(game: Game, hand) -> Turn:
    card = hand[0]
    return Turn(card, (Integration(card.potions[0], Spot(game.to_move, 0, "r1c1")),))


def test_playing_discards_the_card_and_draws_back_to_three():
    game = Game.new(DECK, ["Ada", "Bea", "Cy"], seed=1)
    turn = first_use(game, game.hands[0])
    after = game.play(turn)
    assert turn.card not in after.hands[0] and len(after.hands[0]) == 3
    assert after.hands[0][2] == game.draw_pile[0] and after.discard == (turn.card,) and after.to_move == 1
    with pytest.raises(AlchymiaError, match="not in your hand"):
        after.play(first_use(after, game.hands[0][1:]))


def test_swapping_hands_plays_from_the_new_hand():
    game = Game.new(DECK, ["Ada", "Bea", "Cy"], seed=2)
    turn = replace(first_use(game, game.hands[2]), swap_with=2)
    after = game.play(turn)
    assert set(after.hands[2]) == set(game.hands[0]) and turn.card not in after.hands[0]
    assert set(after.hands[0]) - {game.draw_pile[0]} == set(game.hands[2]) - {turn.card}


def test_the_discard_is_turned_over_when_the_draw_pile_runs_out():
    game = Game.new(DECK, ["Ada", "Bea"], seed=3)
    game = replace(game, draw_pile=(), discard=(PotionCard("old1", "G"), PotionCard("old2", "W")))
    turn = first_use(game, game.hands[0])
    after = game.play(turn)
    assert after.hands[0][2].name == "old1"  # the first card played is drawn first: turned over, not shuffled
    assert [c.name for c in after.draw_pile] == ["old2", turn.card.name] and after.discard == ()


def test_passing_only_when_no_potion_can_be_used():
    game = Game.new(DECK, ["Ada", "Bea"], seed=6)
    assert can_move(game)
    with pytest.raises(AlchymiaError, match="passing is only for a player who cannot"):
        game.play(Turn(game.hands[0][0]), passing=True)
    # every red stone is on Bea's boards, Ada's boards are full of green, she and Bea hold only red cards
    full = Board.parse("GGG GGG GG.")
    reds = Board.parse("RRR RRR RR.")
    red = tuple(PotionCard(f"r{i}", "R") for i in range(3))
    table = replace(game.table, boards=((full, full), (reds, Board.empty())), reserve=(0, 8, 8, 8, 0))
    stuck = replace(game, table=table, hands=(red, red))
    assert not can_move(stuck)  # emptying her boards would free no red stone
    after = stuck.play(Turn(red[0]), passing=True)
    assert after.table.boards == table.boards and len(after.hands[0]) == 3 and after.discard[-1] == red[0]


@pytest.mark.parametrize("players, seed", [(5, 11), (2, 12)])
def test_greedy_games_are_played_to_the_end(players, seed):
    game = Game.new(DECK, [f"P{i}" for i in range(players)], seed=seed)
    rng = random.Random(seed)
    for before, turn, passing in play_out(game, rng, max_turns=600):
        game = before.play(turn, passing=passing)
        on_boards = sum(b.count(c) for bs in game.table.boards for b in bs for c in Colour)
        assert on_boards + sum(game.table.reserve) == 40  # stones are never made or lost
        assert sum(len(h) for h in game.hands) + len(game.draw_pile) + len(game.discard) == 55
    assert game.winner is not None and len(game.table.crystals[game.winner]) == 5
