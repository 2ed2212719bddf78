"""Each answer the app gives at the table: test, drink, sell, debunk (both modes), exhibition."""

from __future__ import annotations

import pytest

from assistant.engines.alchemists import Alchemical as A
from assistant.engines.alchemists import (
    AlchemistsError,
    Assignment,
    Colour,
    Potion,
    Quality,
    brew,
    debunk_aspect,
    demonstrate,
    drink_effect,
    exhibit,
    exhibition_reputation,
    producible,
    sell,
)

# A game chosen by hand: fern r-g+B-, claw r+g-B+ (fern's opposite), mushroom r+G-b-, flower r-G+b+,
# root R-g-b+, scorpion R+g+b-, toad R-G-B-, feather R+G+B+.
GAME = Assignment.from_index(0)


def test_brew_gives_the_potion_of_the_two_alchemicals():
    assert str(brew(GAME, "fern", "claw")) == "neutral"
    assert str(brew(GAME, "fern", "mushroom")) == "blue-"
    assert str(brew(GAME, "claw", "scorpion")) == "red+"
    assert brew(GAME, "toad", "root") == brew(GAME, "root", "toad") == Potion.parse("green-")
    with pytest.raises(AlchemistsError, match="cannot mix toad with itself"):
        brew(GAME, "toad", "toad")
    with pytest.raises(AlchemistsError, match="unknown ingredient 'newt'"):
        brew(GAME, "newt", "toad")


def test_drinking_only_negative_potions_has_an_effect():
    assert "reputation" in drink_effect(Potion.parse("blue-"))
    assert "paralys" in drink_effect(Potion.parse("green-"))
    assert "hospital" in drink_effect(Potion.parse("red-"))
    assert all(drink_effect(Potion.parse(p)) is None for p in ("red+", "green+", "blue+", "neutral"))


@pytest.mark.parametrize(("first", "second", "reached"), [
    ("claw", "scorpion", "perfect"),   # red+ for a red+ wanted
    ("claw", "feather", "perfect"),    # red+ as well
    ("claw", "root", "good"),          # blue+: the right sign, another colour
    ("fern", "claw", "neutral"),
    ("fern", "mushroom", "bad"),       # blue-: the wrong sign
])
def test_a_sale_tells_the_quality_class_reached(first, second, reached):
    sale = sell(brew(GAME, first, second), Potion.parse("red+"), Quality.PERFECT)
    assert str(sale.reached) == reached
    assert not hasattr(sale, "potion")  # the potion itself is never told


def test_a_kept_promise_is_paid_its_price_less_the_discount():
    good = brew(GAME, "claw", "root")  # blue+, for a red+ wanted: "good"
    assert sell(good, Potion.parse("red+"), Quality.GOOD).coins == 3
    assert sell(good, Potion.parse("red+"), Quality.NEUTRAL, discount=1).coins == 1
    assert sell(good, Potion.parse("red+"), Quality.BAD).coins == 1
    broken = sell(good, Potion.parse("red+"), Quality.PERFECT)
    assert not broken.kept and broken.coins == 0 and broken.reputation == 0
    assert sell(good, Potion.parse("red+"), Quality.GOOD, reputation=20).coins == 4   # blue zone: +1
    assert sell(good, Potion.parse("red+"), Quality.GOOD, reputation=3).coins == 2    # red zone: -1


def test_neutral_and_bad_potions_cost_a_reputation_point_even_when_promised():
    assert sell(Potion.parse("neutral"), Potion.parse("red+"), Quality.NEUTRAL).reputation == -1
    bad = sell(Potion.parse("blue-"), Potion.parse("red+"), Quality.BAD)
    assert bad.kept and bad.coins == 1 and bad.reputation == -1


def test_a_promise_that_would_pay_nothing_cannot_be_made():
    with pytest.raises(AlchemistsError, match="would pay nothing"):
        sell(Potion.parse("red+"), Potion.parse("red+"), Quality.NEUTRAL, discount=2)
    with pytest.raises(AlchemistsError, match="discount"):
        sell(Potion.parse("red+"), Potion.parse("red+"), Quality.PERFECT, discount=4)
    with pytest.raises(AlchemistsError, match="never wants the neutral"):
        sell(Potion.parse("red+"), Potion.parse("neutral"), Quality.BAD)


def test_apprentice_debunk_reveals_the_sign_of_one_aspect():
    shown = debunk_aspect(GAME, "root", Colour.BLUE)  # root is R-g-b+
    assert shown.sign == 1 and shown.debunked is None and shown.reputation == 0
    wrong = debunk_aspect(GAME, "root", Colour.BLUE, theory=A.parse("R-G-B-"))
    assert wrong.debunked and wrong.reputation == 2
    # Same sign, other size: the app shows signs only, so this colour does not debunk it.
    stands = debunk_aspect(GAME, "root", Colour.RED, theory=A.parse("r-g+B-"))
    assert stands.debunked is False and stands.reputation == -1


def test_each_alchemical_can_give_four_potions():
    for alchemical in map(A.parse, ("r-g+B-", "R+G+B+")):
        assert producible(alchemical) == {Potion.parse("neutral")} | {
            Potion(c, alchemical.sign(c)) for c in Colour}


def test_master_demonstration_debunks_a_theory_that_cannot_give_the_potion():
    # fern + mushroom is blue-; a theory of fern with B+ can never give blue-.
    demo = demonstrate(GAME, "fern", "mushroom", {"fern": A.parse("r+g-B+")})
    assert str(demo.potion) == "blue-" and demo.debunked == ("fern",) and demo.success and demo.reputation == 2
    both = demonstrate(GAME, "fern", "mushroom", {"fern": A.parse("r+g-B+"), "mushroom": A.parse("R+G+B+")})
    assert both.debunked == ("fern", "mushroom")


def test_master_demonstration_finds_a_conflict_between_two_theories():
    # Both theories can give blue- alone, but together they give red-: one of them is wrong.
    theories = {"fern": A.parse("r-g+B-"), "mushroom": A.parse("R-G-B-")}
    demo = demonstrate(GAME, "fern", "mushroom", theories)
    assert demo.debunked == () and demo.conflict and demo.reputation == 2


def test_master_demonstration_fails_when_the_theories_hold():
    demo = demonstrate(GAME, "fern", "mushroom", {"fern": A.parse("r-g+B-"), "mushroom": A.parse("r+G-b-")})
    assert not demo.success and demo.reputation == -1
    with pytest.raises(AlchemistsError, match="says nothing about toad"):
        demonstrate(GAME, "fern", "mushroom", {"toad": A.parse("r-g+B-")})


def test_exhibition_compares_the_promise_with_the_result():
    assert exhibit(GAME, "claw", "scorpion", Potion.parse("red+")).success
    assert not exhibit(GAME, "claw", "scorpion", Potion.parse("red-")).success
    with pytest.raises(AlchemistsError, match="neutral"):
        exhibit(GAME, "fern", "claw", Potion.parse("neutral"))


def test_exhibition_reputation_first_success_failures_and_both_signs():
    red_plus, red_minus, blue_plus = map(Potion.parse, ("red+", "red-", "blue+"))
    points = exhibition_reputation([
        ("Ana", red_plus, True),     # first to show red+: +1
        ("Bo", red_plus, True),      # second: nothing
        ("Bo", blue_plus, False),    # failure: -1
        ("Ana", red_minus, True),    # first red-: +1, and both signs of red: +2
    ])
    assert points == {"Ana": 4, "Bo": -1}
    with pytest.raises(AlchemistsError, match="cannot exhibit red\\+ twice"):
        exhibition_reputation([("Ana", red_plus, False), ("Ana", red_plus, True)])


@pytest.mark.parametrize(("reputation", "change"), [(None, -1), (3, -1), (13, -1), (14, -2), (17, -2), (18, -3),
                                                      (25, -3)])
def test_a_reputation_loss_costs_one_more_in_the_green_zone_and_two_more_in_the_blue(reputation, change):
    # Rule text, "La réputation des joueurs": Verte (14 à 17) "-1 point supplémentaire / perte de réputation";
    # Bleue (à partir de 18) "-2 points supplémentaires / perte de réputation".
    neutral = sell(Potion.parse("neutral"), Potion.parse("red+"), Quality.NEUTRAL, reputation=reputation)
    bad = sell(Potion.parse("blue-"), Potion.parse("red+"), Quality.NEUTRAL, reputation=reputation)
    assert neutral.reputation == bad.reputation == change
    assert sell(Potion.parse("red+"), Potion.parse("red+"), Quality.PERFECT, reputation=reputation).reputation == 0
