"""Every legality rule, each with the exact reason a player is told; turns, payouts, laps and the end."""

from __future__ import annotations

from dataclasses import replace

import pytest

from assistant.engines.alchimiste import (
    Copy,
    Create,
    Cubes,
    Draw,
    Game,
    IllegalAction,
    Pass,
    Take,
    fame_from_track,
    track_position,
)

MIX = Cubes.of(blue=2, grey=2, orange=1)


@pytest.fixture
def opened(new_game):
    """3 adepts (no opening rule), Abigail's potion in cauldron 10, Merlin to play."""
    return new_game(3).play(Create(10, MIX, 9))


def reason(game, action, player=None):
    with pytest.raises(IllegalAction) as caught:
        game.play(action, player)
    assert game.reason(action, player) == str(caught.value)
    return str(caught.value)


# -- create ---------------------------------------------------------------------------------------------

def test_cauldron_not_empty(opened):
    assert reason(opened, Create(10, Cubes.of(grey=1), 3)) == "cauldron 10 is not empty: it holds Abigail's potion"


def test_no_seal_left(opened):
    adepts = list(opened.adepts)
    adepts[1] = replace(adepts[1], seals=0)
    game = replace(opened, adepts=tuple(adepts))
    assert reason(game, Create(1, Cubes.of(orange=1), 3)) == "Merlin has no seal left to create a potion"


def test_seals_run_out_after_five_creations(new_game):
    game = new_game(5)
    mixes = [Cubes.of(grey=1), Cubes.of(grey=2), Cubes.of(grey=1, blue=1), Cubes.of(grey=2, blue=1),
             Cubes.of(grey=1, blue=2)]
    for i, mix in enumerate(mixes):
        game = game.play(Create(i + 6, mix, i + 1))   # Abigail creates in cauldrons 6..10
        for colour in ("orange", "yellow", "green", "blue"):
            game = game.play(Take(colour))             # the others take
    assert game.adepts[0].seals == 0
    assert reason(game, Create(1, Cubes.of(orange=1), 6)) == "Abigail has no seal left to create a potion"


@pytest.mark.parametrize("mix, n", [(Cubes(), 0), (Cubes.of(grey=2, blue=2, orange=2), 6)])
def test_zero_or_more_than_five_ingredients(opened, mix, n):
    assert reason(opened, Create(1, mix, 3)) == f"a potion takes 1 to 5 ingredients, not {n}"


def test_produced_colour_used(opened):
    # Cauldron 1 produces grey and blue.
    assert reason(opened, Create(1, Cubes.of(orange=1, blue=1), 3)) == \
        "cauldron 1 produces grey and blue, so its potion cannot use blue"


def test_colour_more_than_twice(opened):
    assert reason(opened, Create(1, Cubes.of(orange=3), 3)) == \
        "no ingredient may be used more than twice in a potion, not 3 orange"


def test_mix_already_on_the_compendium(new_game):
    game = new_game(3).play(Create(1, Cubes.of(orange=1), 3))
    assert reason(game, Create(6, Cubes.of(orange=1), 4)) == \
        "the Compendium already has this potion (1 orange) in cauldron 1"
    assert game.reason(Create(6, Cubes.of(orange=2), 4)) is None


def test_tile_already_taken_or_unknown(opened):
    assert reason(opened, Create(1, Cubes.of(orange=1), 9)) == "fame tile 9 has already been taken"
    assert reason(opened, Create(1, Cubes.of(orange=1), 11)) == "there is no fame tile 11 (the tiles are 1 to 10)"


def test_no_such_cauldron(opened):
    assert reason(opened, Create(11, Cubes.of(orange=1), 3)) == \
        "there is no cauldron 11 (the Compendium has 1 to 10)"


# -- copy -----------------------------------------------------------------------------------------------

def test_copying_your_own_potion(opened):
    game = opened.play(Take("grey")).play(Take("grey"))    # back to Abigail
    assert reason(game, Copy(10, MIX, "grey")) == "Abigail cannot copy their own potion (cauldron 10)"


def test_copy_mix_not_exact(opened):
    assert reason(opened, Copy(10, Cubes.of(blue=2, grey=2), "grey")) == \
        "a copy of cauldron 10 pays exactly 2 grey, 2 blue, 1 orange, not 2 grey, 2 blue"


def test_tribute_not_an_ingredient_used(opened):
    assert reason(opened, Copy(10, MIX, "yellow")) == \
        "the tribute must be one of the ingredients used (2 grey, 2 blue, 1 orange), not yellow"


def test_copy_an_empty_cauldron(opened):
    assert reason(opened, Copy(3, MIX, "grey")) == "cauldron 3 holds no potion to copy"


# -- take -----------------------------------------------------------------------------------------------

def test_two_from_an_empty_bag(opened):
    game = replace(opened, bag=0)
    assert reason(game, Draw()) == "the bag is empty: take one ingredient from the reserve instead"
    assert game.reason(Take("grey")) is None


def test_the_bag_empties_by_draws(new_game):
    game = new_game(3)            # 3 x 8 = 24 in the bag, 36 drawn at set-up... of 40: 4 left
    assert game.bag == 4
    game = game.play(Draw()).play(Draw())
    assert game.bag == 0 and game.adepts[0].count == 14 and game.adepts[1].count == 14
    assert reason(game, Draw()) == "the bag is empty: take one ingredient from the reserve instead"


def test_taking_a_colour_the_reserve_lacks(opened):
    game = replace(opened, reserve=Cubes.of(grey=3))
    assert reason(game, Take("blue")) == "the reserve has no blue left"


# -- turns and the 2-player opening ------------------------------------------------------------------------

def test_two_player_opening_must_create(new_game):
    game = new_game(2)
    expected = "with 2 players the first action of the game must be creating a potion with a fame tile of 5 or more"
    assert reason(game, Take("grey")) == expected
    assert reason(game, Draw()) == expected


def test_two_player_opening_tile_five_or_more(new_game):
    game = new_game(2)
    assert reason(game, Create(1, Cubes.of(orange=1), 4)) == \
        "with 2 players the first potion of the game needs a fame tile of 5 or more, not 4"
    game = game.play(Create(1, Cubes.of(orange=1), 5))
    assert game.reason(Take("grey")) is None               # only the first action of the game is bound


def test_no_opening_rule_with_three(new_game):
    assert new_game(3).reason(Take("grey")) is None
    assert new_game(3).reason(Create(1, Cubes.of(orange=1), 1)) is None


def test_out_of_turn(opened):
    assert reason(opened, Take("grey"), "Abigail") == "it is Merlin's turn, not Abigail's"
    assert opened.play(Take("grey"), "Merlin").to_play.name == "Morgane"


# -- what the screens can hold ------------------------------------------------------------------------------

def test_full_information_knows_every_screen(new_game):
    screens = [{"grey": 6, "blue": 6}, {"grey": 0, "orange": 6, "yellow": 6}]
    game = new_game(2, screens)
    assert reason(game, Create(10, Cubes.of(orange=1), 9)) == "Abigail has 0 orange behind the screen, 1 are needed"


def test_public_mode_counts_the_cubes_behind_a_screen(new_game):
    game = new_game(3)
    adepts = list(game.adepts)
    adepts[0] = replace(adepts[0], count=3, known=Cubes())
    game = replace(game, adepts=tuple(adepts))
    assert reason(game, Create(10, MIX, 9)) == "Abigail has 3 cubes behind the screen, 5 are needed"


def test_public_mode_knows_how_many_of_a_colour_can_be_unseen(new_game):
    # 3 players: 8 per colour in the bag. Every orange has been seen going out of play, except one.
    game = new_game(3)
    game = replace(game, pool=game.pool - Cubes.of(orange=7), removed=game.removed + Cubes.of(orange=7))
    assert reason(game, Create(1, Cubes.of(orange=2), 3)) == \
        "Abigail cannot have 2 orange behind the screen: at most 1 can be there"
    assert game.reason(Create(1, Cubes.of(orange=1), 3)) is None


def test_seen_cubes_count_as_known(new_game):
    game = new_game(3)
    for _ in range(3):
        game = game.play(Take("orange"))   # everyone takes an orange in view of the table
    assert [a.known for a in game.adepts] == [Cubes.of(orange=1)] * 3
    game = game.play(Create(1, Cubes.of(orange=1), 3))
    assert game.adepts[0].known == Cubes.of(grey=1, blue=1)   # the orange is spent, the production seen


# -- payouts, laps, pass ------------------------------------------------------------------------------------

def test_reserve_exhausted_partial_payout(opened):
    game = replace(opened, reserve=Cubes.of(grey=4, yellow=0, green=3, blue=1))
    after = game.play(Copy(10, MIX, "grey"))
    assert after.adepts[1].known - game.adepts[1].known == Cubes.of(green=1)   # no yellow left to receive
    assert after.reserve == Cubes.of(grey=4, green=2, blue=1)
    game = replace(opened, reserve=Cubes.of(grey=4))
    after = game.play(Copy(10, MIX, "grey"))
    assert after.adepts[1].count == 12 - 5 and after.reserve == game.reserve


def test_fame_track_laps():
    assert track_position(57) == (7, 1) and track_position(50) == (0, 1) and track_position(49) == (49, 0)
    assert track_position(112) == (12, 2)
    assert fame_from_track(12, 2) == 112
    with pytest.raises(IllegalAction, match="spaces 0 to 49"):
        fame_from_track(50, 0)


def test_fame_keeps_counting_past_fifty(opened):
    adepts = list(opened.adepts)
    adepts[1] = replace(adepts[1], fame=45)
    game = replace(opened, adepts=tuple(adepts)).play(Copy(10, MIX, "grey"))
    assert game.adepts[1].fame == 54 and track_position(54) == (4, 1)


def test_pass_only_when_nothing_can_be_taken(opened):
    assert reason(opened, Pass()) == "Merlin can still take ingredients and must play an action"
    game = replace(opened, reserve=Cubes(), bag=0)
    assert game.reason(Pass()) is None
    assert list(game.legal_actions())[-1] == Pass()


def test_pass_refused_in_full_information_when_a_potion_is_possible(new_game):
    screens = [{"grey": 4, "blue": 4, "orange": 4}, {"yellow": 4, "green": 4, "grey": 4},
               {"blue": 4, "orange": 4, "yellow": 4}]
    game = new_game(3, screens).play(Take("yellow"))
    game = replace(game, reserve=Cubes(), bag=0)
    assert reason(game, Pass()) == "Merlin can still create or copy a potion and must play it"


# -- the end -------------------------------------------------------------------------------------------------

def test_the_game_ends_only_at_the_end_of_a_round(opened):
    # Abigail has played; Merlin, then Morgane finishes round 1.
    game = replace(opened, reserve=Cubes.of(orange=1, yellow=5, green=5))
    game = game.play(Take("orange"))                 # grey, blue, orange exhausted, but in the middle of a round
    assert not game.over and game.to_play.name == "Morgane"
    game = game.play(Take("yellow"))
    assert game.over and game.round == 1 and game.exhausted == ("grey", "blue", "orange")
    assert reason(game, Take("green")) == "the game is over (it ended with round 1)"
    assert list(game.legal_actions()) == []


def test_two_exhausted_colours_do_not_end_the_game(opened):
    game = replace(opened, reserve=Cubes.of(orange=1, yellow=5, green=5, blue=1))
    for action in (Take("orange"), Take("yellow"), Take("yellow")):
        game = game.play(action)
    assert not game.over and game.round == 2


def test_setup_table_for_every_player_count(new_game):
    for n, (bag, reserve, removed) in {2: (6, 10, 16), 3: (8, 12, 12), 4: (12, 16, 4), 5: (14, 18, 0)}.items():
        game = new_game(n)
        assert game.reserve == Cubes.each(reserve) and game.removed == Cubes.each(removed)
        assert game.bag == 5 * bag - 12 * n and all(a.count == 12 and a.seals == 5 for a in game.adepts)
        assert game.tiles == tuple(range(1, 11))


@pytest.mark.parametrize("n", [1, 6])
def test_player_count_outside_two_to_five(new_game, produces, n):
    with pytest.raises(IllegalAction, match=f"Alchimiste is played by 2 to 5 adepts, not {n}"):
        Game.new([(f"P{i}", "grey") for i in range(n)], produces)


def test_a_full_information_deal_must_come_from_the_bag(new_game):
    with pytest.raises(IllegalAction, match="the screens hold 12 grey, 12 blue but the bag held 6 of each"):
        new_game(2, [{"grey": 6, "blue": 6}, {"grey": 6, "blue": 6}])
