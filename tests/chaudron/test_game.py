"""The round: potion deck by the rarity table, hands, timer cubes and forced concoction, win and loss."""

import random

import pytest

from assistant.engines.chaudron import (
    RARITY_TABLE,
    Block,
    Cauldron,
    Game,
    IllegalMove,
    Ingredient,
    Play,
    Potion,
    hand_size,
    place,
    potion_deck,
)
from assistant.engines.chaudron.game import setup_cauldron

B = Block.parse


def potion(pid: str, shape: str, rarity: str = "common") -> Potion:
    return Potion(pid, pid.title(), rarity, (B(shape),))


def test_rarity_table_makes_seven_and_has_no_legendary():
    assert sorted(RARITY_TABLE) == [2, 3, 4, 5, 6, 7]
    for counts in RARITY_TABLE.values():
        assert sum(counts.values()) == 7 and counts["legendary"] == 0
    assert RARITY_TABLE[5] == {"common": 2, "rare": 3, "epic": 1, "mythic": 1, "legendary": 0}


def test_potion_deck_is_stacked_commons_on_top():
    pool = [potion(f"{r}{i}", "B", r) for r in ("common", "rare", "epic", "mythic") for i in range(3)]
    deck = potion_deck(pool, 2, random.Random(4))
    assert [p.rarity for p in deck] == ["common", "rare", "epic", "epic", "epic", "mythic", "mythic"]
    with pytest.raises(ValueError, match="need 3 rare"):
        potion_deck([p for p in pool if p.rarity != "rare"][:8] + pool[3:5], 5, random.Random(1))


def test_hand_sizes():
    assert hand_size(2, True) == 6 and hand_size(2, False) == 5
    assert hand_size(4, True) == 4 and hand_size(7, False) == 3
    with pytest.raises(ValueError):
        hand_size(8, False)


def test_setup_throws_eight_resources():
    c = setup_cauldron(random.Random(2))
    assert (c.count("bone"), c.count("root"), c.count("fluid"), c.count("fire"), c.count("poison")) == (2, 2, 2, 1, 1)


def test_timer_cubes_and_forced_concoction_on_the_fourth():
    hard = potion("hard", "BRF")
    other = potion("other", "ff")
    game = Game.new(Cauldron.parse("B..\n...\n..."), [hard, other, potion("x", "PP"), potion("y", "PP")], 3)
    cubes = []
    for _ in range(3):
        game, _ = game.reveal()
        cubes.append([r.cubes for r in game.revealed])
    assert cubes == [[1], [2, 1], [3, 2, 1]]
    game, notes = game.reveal()  # the fourth cube on "hard": forced, the bone taken, 2 missing, 2 Cramés
    assert [p.id for p in game.made] == ["hard"]
    assert game.cauldron.count("bone") == 0 and game.burnt == 2
    assert [(r.potion.id, r.cubes) for r in game.revealed] == [("other", 3), ("x", 2), ("y", 1)]
    assert any("forced concoction of Hard" in n for n in notes)


def test_revealed_potion_already_in_the_cauldron_is_made_at_once():
    game = Game.new(Cauldron.parse("BR.\n...\n..."), [potion("dawn", "BR"), potion("next", "FF")], 2)
    game, _notes = game.reveal()
    assert [p.id for p in game.made] == ["dawn"]
    assert [r.potion.id for r in game.revealed] == ["next"]  # none left: the next one comes at once
    assert str(game.cauldron) == "...\n...\n..."


def _endgame(burnt_rows: str, deck_left: int):
    """A game whose last waiting potion is "BR", with Cramés already in the cauldron."""
    pots = [potion("last", "BR")] + [potion(f"p{i}", "PP") for i in range(deck_left)]
    game = Game.new(Cauldron.parse(burnt_rows), pots, 2)
    game, _ = game.reveal()
    return game


FULL19 = "XXXXXX\nXXXXXX\nXXXXXX\nX.....\n......\nB....."


def test_twenty_cramés_lose():
    game = _endgame(FULL19, deck_left=1)
    c = Ingredient("c", "Burn", remove=(B("f"),))
    game, res = game.play(c)
    assert res.burnt == 1 and game.burnt == 20 and game.status == "lost"
    with pytest.raises(IllegalMove, match="game is over"):
        game.play(c)


def test_the_card_that_makes_the_last_potion_wins_even_past_twenty():
    game = _endgame(FULL19, deck_left=0)
    c = Ingredient("c", "Root and ash", remove=(B("f"),), add=(B("R"),))
    before = game.cauldron
    play = Play(additions=(place(before, c.add_groups[0], "......\n......\n......\n......\n......\n.R...."),))
    game, res = game.play(c, play)
    assert game.burnt == 20 and res.won and game.status == "won"


def test_but_not_if_another_potion_is_still_to_make():
    game = _endgame(FULL19, deck_left=1)
    c = Ingredient("c", "Root and ash", remove=(B("f"),), add=(B("R"),))
    play = Play(additions=(place(game.cauldron, c.add_groups[0], "......\n......\n......\n......\n......\n.R...."),))
    game, _res = game.play(c, play)
    assert [p.id for p in game.made] == ["last"] and game.status == "lost"


def test_play_seen_refuses_and_keeps_the_game():
    game = _endgame("......\n......\n......\n......\n......\n......", deck_left=1)
    c = Ingredient("c", "Fluids", add=(B("FF"),))
    same, verdict = game.play_seen(c, Cauldron.parse("F.....\n......\nF.....\n......\n......\n......"))
    assert not verdict.legal and same is game
    moved, verdict = game.play_seen(c, Cauldron.parse("FF....\n......\n......\n......\n......\n......"))
    assert verdict.legal and moved.cauldron.count("fluid") == 2
