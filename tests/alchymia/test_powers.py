"""Each power, as the rulebook describes it, and the reasons a use is refused."""

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
    Purification,
    Spot,
    Table,
    Transformation,
)

GREEN, WHITE, BLUE, YELLOW, RED = Colour
DECK = load_deck()
CARD = {c.element: c for stack in DECK.crystals for c in stack}


def table(*boards: str, held=(), reserve=(8, 8, 8, 8, 8), expert=False, players=3) -> Table:
    t = Table.new([f"P{i}" for i in range(players)], DECK, expert)
    per = len(t.boards[0])
    parsed = [Board.parse(b) for b in boards]
    return replace(t, boards=tuple(tuple(parsed[p * per:(p + 1) * per]) for p in range(players)), reserve=reserve,
                   crystals=(tuple(CARD[e] for e in held),) + ((),) * (players - 1))


def board(t: Table, player: int = 0, b: int = 0) -> str:
    return t.boards[player][b].line()


def me(position: str, b: int = 0) -> Spot:
    return Spot(0, b, position)


def them(position: str, player: int = 1, b: int = 0) -> Spot:
    return Spot(player, b, position)


EMPTY = "... ... ..."


def test_integration_takes_a_stone_of_the_potion_colour_from_the_reserve():
    t = table(EMPTY, EMPTY, EMPTY).apply(0, Integration(GREEN, me("r0c0")))
    assert board(t) == "G../.../..." and t.in_reserve(GREEN) == 7
    with pytest.raises(AlchymiaError, match="r0c0 is not free"):
        t.apply(0, Integration(RED, me("r0c0")))
    with pytest.raises(AlchymiaError, match="not on your board"):
        t.apply(0, Integration(RED, them("r0c0")))


def test_integration_stops_when_the_reserve_runs_out():
    t = table(EMPTY, EMPTY, EMPTY, reserve=(1, 8, 8, 8, 8)).apply(0, Integration(GREEN, me("r0c0")))
    with pytest.raises(AlchymiaError, match="the reserve has no green stone left"):
        t.apply(0, Integration(GREEN, me("r0c1")))
    back = t.apply(0, Extraction(GREEN, me("r0c0")))  # an Extraction refills it
    assert back.in_reserve(GREEN) == 1 and back.apply(0, Integration(GREEN, me("r2c2"))).in_reserve(GREEN) == 0


def test_extraction_returns_a_stone_of_the_potion_colour():
    t = table("GR. ... ...", EMPTY, EMPTY)
    assert board(t.apply(0, Extraction(RED, me("r0c1")))) == "G../.../..."
    with pytest.raises(AlchymiaError, match="no red stone on P0 r0c0"):
        t.apply(0, Extraction(RED, me("r0c0")))


def test_attraction_takes_any_stone_from_an_opponent():
    t = table("G.. ... ...", ".Y. ... ...", EMPTY, held=[Element.EARTH])
    after = t.apply(0, Attraction(them("r0c1"), me("r2c2")))
    assert board(after) == "G../.../..Y" and board(after, 1) == ".../.../..."
    with pytest.raises(AlchymiaError, match="needs the Earth crystal"):
        table("G.. ... ...", ".Y. ... ...", EMPTY).apply(0, Attraction(them("r0c1"), me("r2c2")))
    with pytest.raises(AlchymiaError, match="no stone on P1 r0c0"):
        t.apply(0, Attraction(them("r0c0"), me("r2c2")))
    with pytest.raises(AlchymiaError, match="not between your own boards"):
        t.apply(0, Attraction(me("r0c0"), me("r2c2")))


def test_dispersion_moves_stones_of_ones_board_anywhere_on_it():
    t = table("GR. ... ...", EMPTY, EMPTY, held=[Element.AIR])
    swap = t.apply(0, Dispersion(((me("r0c0"), me("r0c1")), (me("r0c1"), me("r0c0")))))
    assert board(swap) == "RG./.../..."
    spread = t.apply(0, Dispersion(((me("r0c0"), me("r2c2")),)))
    assert board(spread) == ".R./.../..G"
    with pytest.raises(AlchymiaError, match="every stone went back"):
        t.apply(0, Dispersion(((me("r0c0"), me("r0c0")),)))
    with pytest.raises(AlchymiaError, match="not on your board"):
        t.apply(0, Dispersion(((me("r0c0"), them("r0c0")),)))


def test_transformation_replaces_one_stone_from_the_reserve():
    t = table("G.. ... ...", EMPTY, EMPTY, held=[Element.FIRE], reserve=(0, 8, 8, 8, 0))
    after = t.apply(0, Transformation(me("r0c0"), BLUE))
    assert board(after) == "B../.../..." and after.in_reserve(GREEN) == 1 and after.in_reserve(BLUE) == 7
    with pytest.raises(AlchymiaError, match="already green"):
        t.apply(0, Transformation(me("r0c0"), GREEN))
    with pytest.raises(AlchymiaError, match="no red stone left"):
        t.apply(0, Transformation(me("r0c0"), RED))


def test_purification_sends_stones_to_any_opponents():
    t = table("GR. ... ...", "Y.. ... ...", EMPTY, held=[Element.WATER])
    after = t.apply(0, Purification(((me("r0c0"), them("r1c1")), (me("r0c1"), them("r2c2", player=2)))))
    assert board(after) == ".../.../..." and board(after, 1) == "Y../.G./..." and board(after, 2) == ".../.../..R"
    with pytest.raises(AlchymiaError, match="P1 r0c0 is not free"):
        t.apply(0, Purification(((me("r0c0"), them("r0c0")),)))


def test_inversion_exchanges_a_stone_with_an_opponent():
    t = table("GR. ... ...", "Y.B ... ...", EMPTY, held=[Element.TIME])
    after = t.apply(0, Inversion(me("r0c1"), them("r0c2")))
    assert board(after) == "GB./.../..." and board(after, 1) == "Y.R/.../..."
    with pytest.raises(AlchymiaError, match="both stones are green"):
        table("G.. ... ...", "G.. ... ...", EMPTY, held=[Element.TIME]).apply(0, Inversion(me("r0c0"), them("r0c0")))
    with pytest.raises(AlchymiaError, match="no stone on P1 r0c1"):
        t.apply(0, Inversion(me("r0c1"), them("r0c1")))
