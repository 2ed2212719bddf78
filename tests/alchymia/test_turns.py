"""Whole turns: the start-of-turn options, the potions of the card, crystal completion, expert mode and
the 2-player game."""

from dataclasses import replace

import pytest

from assistant.decks.alchymia import load_deck
from assistant.engines.alchymia import (
    AlchymiaError,
    Attraction,
    Board,
    Colour,
    Dispersion,
    Element,
    Extraction,
    Integration,
    Inversion,
    PotionCard,
    Purification,
    Spot,
    Table,
    Transformation,
    Turn,
)

GREEN, WHITE, BLUE, YELLOW, RED = Colour
DECK = load_deck()
CARD = {c.name: c for stack in DECK.crystals for c in stack}
ANY = {c.element: c for stack in DECK.crystals for c in stack}
EMPTY = "... ... ..."


def table(*boards: str, held=(), expert=False, players=3, tops=None) -> Table:
    t = Table.new([f"P{i}" for i in range(players)], DECK, expert)
    per = len(t.boards[0])
    parsed = [Board.parse(b) for b in boards]
    stacks = t.stacks if tops is None else tuple((CARD[name],) for name in tops)
    reserve = tuple(8 - sum(b.count(c) for b in parsed) for c in Colour)
    return replace(t, boards=tuple(tuple(parsed[p * per:(p + 1) * per]) for p in range(players)), stacks=stacks,
                   reserve=reserve, crystals=(tuple(ANY[e] for e in held),) + ((),) * (players - 1))


def me(position: str, b: int = 0) -> Spot:
    return Spot(0, b, position)


def them(position: str, player: int = 1, b: int = 0) -> Spot:
    return Spot(player, b, position)


def card(letters: str) -> PotionCard:
    return PotionCard("card", letters)


TOPS = ("earth-1", "air-1", "water-1", "fire-1", "time-1")  # G.. .G. ..G / W.W ... .W. / ...


# the card and its potions ------------------------------------------------------------------------------
def test_a_turn_uses_some_potions_of_the_card_and_not_more():
    t = table(EMPTY, EMPTY, EMPTY)
    after, taken = t.play(0, Turn(card("GGY"), (Integration(GREEN, me("r0c1")),)))  # one of three is enough
    assert after.boards[0][0].line() == ".G./.../..." and taken == ()
    with pytest.raises(AlchymiaError, match="use at least one potion"):
        t.play(0, Turn(card("GGY")))
    with pytest.raises(AlchymiaError, match="no more green potion"):
        t.play(0, Turn(card("GY"), (Integration(GREEN, me("r0c1")), Integration(GREEN, me("r0c2")))))
    with pytest.raises(AlchymiaError, match="has no red potion"):
        t.play(0, Turn(card("GY"), (Integration(RED, me("r0c1")),)))


def test_at_least_one_board_must_change():
    t = table("G.. ... ...", EMPTY, EMPTY)
    with pytest.raises(AlchymiaError, match="at least one board must change"):
        t.play(0, Turn(card("GG"), (Extraction(GREEN, me("r0c0")), Integration(GREEN, me("r0c0")))))


def test_the_example_of_the_rulebook():
    """Earth and Fire held, a card of 2 green and 2 yellow potions: Integration, Attraction, Transformation,
    and the second yellow potion left unused."""
    t = table("... ... ...", "R.. ... ...", EMPTY, held=(Element.EARTH, Element.FIRE))
    uses = (Integration(GREEN, me("r0c0")), Attraction(them("r0c0"), me("r0c1")),
            Transformation(me("r0c0"), BLUE))
    after, _ = t.play(0, Turn(card("GGYY"), uses))
    assert after.boards[0][0].line() == "BR./.../..." and after.boards[1][0].is_empty


# start of the turn ------------------------------------------------------------------------------------
def test_emptying_the_board_returns_its_stones_to_the_reserve():
    t = table("GRR ... ...", EMPTY, EMPTY)
    after, _ = t.play(0, Turn(card("Y"), (Integration(YELLOW, me("r1c1")),), empty=(0,)))
    assert after.boards[0][0].line() == ".../.Y./..." and after.reserve == (8, 8, 8, 7, 8)
    with pytest.raises(AlchymiaError, match="already empty"):
        table(EMPTY, EMPTY, EMPTY).play(0, Turn(card("Y"), (Integration(YELLOW, me("r1c1")),), empty=(0,)))
    with pytest.raises(AlchymiaError, match="not both"):
        t.play(0, Turn(card("Y"), (Integration(YELLOW, me("r1c1")),), swap_with=1, empty=(0,)))


def test_swapping_hands_is_with_an_opponent():
    t = table(EMPTY, EMPTY, EMPTY)
    assert t.play(0, Turn(card("Y"), (Integration(YELLOW, me("r1c1")),), swap_with=2))
    with pytest.raises(AlchymiaError, match="swap hands with an opponent"):
        t.play(0, Turn(card("Y"), (Integration(YELLOW, me("r1c1")),), swap_with=0))


# completing a crystal ----------------------------------------------------------------------------------
def test_completion_under_a_rotation_takes_the_card_and_clears_the_board():
    t = table("..G .G. ...", EMPTY, EMPTY, tops=TOPS)
    after, taken = t.play(0, Turn(card("G"), (Integration(GREEN, me("r2c0")),)))  # ..G .G. G.. : a quarter turn
    assert taken == (CARD["earth-1"],) and after.crystals[0] == (CARD["earth-1"],)
    assert after.boards[0][0].is_empty and after.in_reserve(GREEN) == 8
    assert after.top(Element.EARTH) is None  # the next card of the stack is revealed (here: none left)
    assert after.elements(0) == {Element.EARTH}


def test_no_completion_under_a_reflection():
    structure = Board.parse("GW. ... ..R")
    deck_card = replace(CARD["earth-1"], structure=structure)
    t = replace(table(".W. ... R..", EMPTY, EMPTY, tops=TOPS), stacks=((deck_card,), *table(EMPTY, EMPTY, EMPTY,
                                                                                            tops=TOPS).stacks[1:]))
    mirrored, taken = t.play(0, Turn(card("G"), (Integration(GREEN, me("r0c2")),)))   # .WG ... R.. is a mirror
    assert taken == () and mirrored.boards[0][0].line() == ".WG/.../R.."
    _turned, taken = t.play(0, Turn(card("G"), (Integration(GREEN, me("r2c2")),)))     # .W. ... R.G is not it
    assert taken == ()
    rotated = replace(t, boards=((Board.parse("R.. ... .W."),), *t.boards[1:]))
    _, taken = rotated.play(0, Turn(card("G"), (Integration(GREEN, me("r2c2")),)))   # R.. ... .WG: half a turn
    assert taken == (deck_card,)


def test_a_completion_stops_the_turn_even_with_potions_left():
    t = table("..G .G. ...", EMPTY, EMPTY, tops=TOPS)
    with pytest.raises(AlchymiaError, match="earth crystal was completed by use 1: the turn stopped there"):
        t.play(0, Turn(card("GG"), (Integration(GREEN, me("r2c0")), Integration(GREEN, me("r1c0")))))


def test_only_one_crystal_of_each_element():
    t = table("..G .G. ...", EMPTY, EMPTY, tops=("earth-4", "air-1", "water-1", "fire-1", "time-1"),
              held=(Element.EARTH,))
    t = replace(t, stacks=((CARD["earth-1"],), *t.stacks[1:]))
    after, taken = t.play(0, Turn(card("G"), (Integration(GREEN, me("r2c0")),)))
    assert taken == () and after.boards[0][0].line() == "..G/.G./G.."


def test_an_opponents_board_completed_by_my_power_does_not_count():
    t = table("G.. ... ...", "..G .G. ...", EMPTY, held=(Element.WATER,), tops=TOPS)
    after, taken = t.play(0, Turn(card("B"), (Purification(((me("r0c0"), them("r2c0")),)),)))
    assert taken == () and after.boards[1][0].line() == "..G/.G./G.." and after.crystals[1] == ()


def test_the_first_player_with_five_crystals_wins():
    held = (Element.EARTH, Element.AIR, Element.WATER, Element.FIRE)
    t = table("R.R ... ...", EMPTY, EMPTY, held=held, tops=TOPS)
    after, _ = t.play(0, Turn(card("R"), (Integration(RED, me("r2c0")),)))
    assert after.winner == 0
    with pytest.raises(AlchymiaError, match="the game is over"):
        after.play(1, Turn(card("R"), (Integration(RED, them("r0c0")),)))


# expert mode -------------------------------------------------------------------------------------------
def test_expert_earth_forbids_swapping_hands():
    turn = Turn(card("Y"), (Integration(YELLOW, me("r1c1")),), swap_with=1)
    assert table(EMPTY, EMPTY, EMPTY, held=(Element.EARTH,)).play(0, turn)
    with pytest.raises(AlchymiaError, match="Earth crystal, you may no longer swap hands"):
        table(EMPTY, EMPTY, EMPTY, held=(Element.EARTH,), expert=True).play(0, turn)


def test_expert_air_forbids_emptying_the_board():
    turn = Turn(card("Y"), (Integration(YELLOW, me("r1c1")),), empty=(0,))
    assert table("G.. ... ...", EMPTY, EMPTY, held=(Element.AIR,)).play(0, turn)
    with pytest.raises(AlchymiaError, match="Air crystal, you may no longer empty your board"):
        table("G.. ... ...", EMPTY, EMPTY, held=(Element.AIR,), expert=True).play(0, turn)


def test_expert_water_forbids_extraction():
    turn = Turn(card("G"), (Extraction(GREEN, me("r0c0")),))
    assert table("G.. ... ...", EMPTY, EMPTY, held=(Element.WATER,)).play(0, turn)
    with pytest.raises(AlchymiaError, match="Water crystal, you may no longer use Extraction"):
        table("G.. ... ...", EMPTY, EMPTY, held=(Element.WATER,), expert=True).play(0, turn)


@pytest.mark.parametrize("element, letter, forced", [(Element.FIRE, "Y", "Transformation"),
                                                    (Element.TIME, "R", "Inversion")])
def test_expert_fire_and_time_force_their_power_on_their_potions(element, letter, forced):
    colour = Colour.from_letter(letter)
    turn = Turn(card(letter), (Integration(colour, me("r1c1")),))
    assert table("G.. ... ...", EMPTY, EMPTY, held=(element,)).play(0, turn)
    expert = table("G.. ... ...", "W.. ... ...", EMPTY, held=(element,), expert=True)
    with pytest.raises(AlchymiaError, match=f"must use {colour} potions for {forced}"):
        expert.play(0, turn)
    use = Transformation(me("r0c0"), BLUE) if forced == "Transformation" else Inversion(me("r0c0"), them("r0c0"))
    after, _ = expert.play(0, Turn(card(letter), (use,)))
    assert after.boards[0][0] != expert.boards[0][0]


def test_expert_restrictions_do_not_touch_other_players():
    t = table("G.. ... ...", EMPTY, EMPTY, held=(Element.WATER,), expert=True)
    assert t.play(1, Turn(card("G"), (Integration(GREEN, them("r0c0")),)))
    t = replace(t, boards=(t.boards[0], (Board.parse("G.. ... ..."),), t.boards[2]))
    assert t.play(1, Turn(card("G"), (Extraction(GREEN, them("r0c0")),)))


# the 2-player game -------------------------------------------------------------------------------------
def two(*boards: str, held=(), tops=TOPS) -> Table:
    return table(*boards, held=held, players=2, tops=tops)


def test_two_players_have_two_boards_each_and_use_both():
    t = two(EMPTY, EMPTY, EMPTY, EMPTY)
    assert [len(b) for b in t.boards] == [2, 2]
    after, _ = t.play(0, Turn(card("GY"), (Integration(GREEN, me("r0c0", 0)), Integration(YELLOW, me("r0c0", 1)))))
    assert after.boards[0][0].line() == "G../.../..." and after.boards[0][1].line() == "Y../.../..."


def test_two_players_no_attraction_purification_inversion_between_ones_own_boards():
    held = (Element.EARTH, Element.WATER, Element.TIME)
    t = two("G.. ... ...", "Y.. ... ...", "R.. ... ...", EMPTY, held=held)
    for use in (Attraction(me("r0c0", 1), me("r1c1", 0)), Purification(((me("r0c0", 0), me("r1c1", 1)),)),
                Inversion(me("r0c0", 0), me("r0c0", 1))):
        with pytest.raises(AlchymiaError, match="not between your own boards"):
            t.apply(0, use)
    assert t.apply(0, Attraction(them("r0c0", 1, 0), me("r1c1", 1))).boards[0][1].line() == "Y../.R./..."
    assert t.apply(0, Inversion(me("r0c0", 1), them("r0c0", 1, 0))).boards[1][0].line() == "Y../.../..."


def test_two_players_dispersion_works_across_both_boards():
    t = two("G.. ... ...", "Y.. ... ...", EMPTY, EMPTY, held=(Element.AIR,))
    after = t.apply(0, Dispersion(((me("r0c0", 0), me("r2c2", 1)), (me("r0c0", 1), me("r1c1", 0)))))
    assert after.boards[0][0].line() == ".../.Y./..." and after.boards[0][1].line() == ".../.../..G"


def test_two_players_each_crystal_is_made_once_and_boards_complete_separately():
    t = two("..G .G. ...", "R.R ... ...", EMPTY, EMPTY)
    after, taken = t.play(0, Turn(card("G"), (Integration(GREEN, me("r2c0", 0)),)))
    assert taken == (CARD["earth-1"],) and after.boards[0][0].is_empty
    assert after.boards[0][1].line() == "R.R/.../..."  # only the completed board is cleared
    after = replace(after, stacks=((CARD["earth-2"],), *after.stacks[1:]),
                    boards=((Board.parse("GG. ... ..."), after.boards[0][1]), after.boards[1]))
    again, taken = after.play(0, Turn(card("YR"), (Integration(YELLOW, me("r2c1", 0)),)))
    assert taken == () and again.boards[0][0].line() == "GG./.../.Y."  # earth-2, but Earth is held already
    _, taken = after.play(0, Turn(card("R"), (Integration(RED, me("r2c0", 1)),)))
    assert taken == (CARD["time-1"],)


def test_two_players_may_empty_one_board_or_both():
    t = two("G.. ... ...", "Y.. ... ...", EMPTY, EMPTY)
    one, _ = t.play(0, Turn(card("R"), (Integration(RED, me("r1c1", 0)),), empty=(1,)))
    assert one.boards[0][0].line() == "G../.R./..." and one.boards[0][1].is_empty
    both, _ = t.play(0, Turn(card("R"), (Integration(RED, me("r1c1", 0)),), empty=(0, 1)))
    assert both.boards[0][0].line() == ".../.R./..." and both.boards[0][1].is_empty
