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
    Seal,
    SealKind,
    brew,
    debunk_aspect,
    demonstrate,
    drink_effect,
    drink_reputation,
    exhibit,
    exhibition_reputation,
    producible,
    seal_penalties,
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


def seals(*pairs: str) -> tuple[Seal, ...]:
    """``seals("Ana=gold", "Bo=hedge-blue")``."""
    return tuple(Seal(p.split("=")[0], SealKind(p.split("=")[1])) for p in pairs)


def test_a_successful_debunk_costs_star_seals_and_wrong_hedges_5_points():
    # Rule text, "Réfuter une théorie avec succès": « Les sceaux à étoile font perdre 5 points », « sans étoile
    # et avec une mauvaise couleur font perdre 5 points », « avec la bonne couleur ne sont pas pénalisés ».
    # Apprentice mode: root is R-g-b+, the theory R-G-B- is debunked on blue, the aspect chosen.
    shown = debunk_aspect(GAME, "root", Colour.BLUE, theory=A.parse("R-G-B-"))
    assert shown.debunked and shown.debunked_colour is Colour.BLUE
    on_theory = seals("Ana=gold", "Bo=hedge-blue", "Cy=hedge-red")
    assert seal_penalties(on_theory, shown.debunked_colour) == {"Ana": -5, "Bo": 0, "Cy": -5}
    assert seal_penalties(seals("Di=silver", "Ed=hedge-green"), Colour.BLUE) == {"Di": -5, "Ed": -5}
    # A failed debunk proves no colour wrong, and an unrelated colour spares nothing.
    assert debunk_aspect(GAME, "root", Colour.RED, theory=A.parse("R-G-B-")).debunked_colour is None


def test_in_master_mode_the_debunked_colour_is_the_potions():
    # fern + mushroom is blue-: both theories (B+ each) are debunked on blue; a blue hedge is spared on each.
    demo = demonstrate(GAME, "fern", "mushroom", {"fern": A.parse("r+g-B+"), "mushroom": A.parse("R+G+B+")})
    assert demo.debunked == ("fern", "mushroom") and demo.debunked_colour is Colour.BLUE
    assert demo.reputation == 2  # « Si vous réfutez 2 théories ... Vous gagnez 2 points de réputation. »
    assert seal_penalties(seals("Ana=hedge-blue", "Bo=gold"), demo.debunked_colour) == {"Ana": 0, "Bo": -5}
    conflict = demonstrate(GAME, "fern", "mushroom", {"fern": A.parse("r-g+B-"), "mushroom": A.parse("R-G-B-")})
    assert conflict.conflict and conflict.debunked_colour is None  # a conflict reveals no seal


def test_seal_penalties_take_each_owners_reputation_zone():
    on_theory = seals("Ana=gold", "Bo=silver", "Cy=hedge-red")
    reputations = {"Ana": 14, "Bo": 18, "Cy": 5}
    assert seal_penalties(on_theory, Colour.BLUE, reputations) == {"Ana": -6, "Bo": -7, "Cy": -5}
    assert seal_penalties(on_theory, Colour.BLUE, {"Ana": 17}) == {"Ana": -6, "Bo": -5, "Cy": -5}
    assert seal_penalties(seals("Di=hedge-blue"), Colour.BLUE, {"Di": 25}) == {"Di": 0}  # spared: no loss


def test_seal_penalties_refuse_an_impossible_board_or_no_colour():
    with pytest.raises(AlchemistsError, match="the neutral potion debunks nothing"):
        seal_penalties(seals("Ana=gold"), Potion.parse("neutral").colour)
    with pytest.raises(AlchemistsError, match="two seals of one player"):
        seal_penalties(seals("Ana=gold", "Ana=silver"), Colour.RED)
    with pytest.raises(AlchemistsError, match="4 seals; at most 3"):
        seal_penalties(seals("A=gold", "B=gold", "C=gold", "D=gold"), Colour.RED)
    assert seal_penalties((), Colour.RED) == {}


def test_showing_a_conflict_again_costs_a_point():
    # « Lorsqu'une démonstration concerne déjà deux théories en conflit, vous perdez 1 point de réputation. »
    theories = {"fern": A.parse("r-g+B-"), "mushroom": A.parse("R-G-B-")}
    new = demonstrate(GAME, "fern", "mushroom", theories)
    assert new.conflict and new.success and new.reputation == 2
    again = demonstrate(GAME, "fern", "mushroom", theories, already_in_conflict=True)
    assert again.conflict and not again.success and again.reputation == -1
    assert demonstrate(GAME, "fern", "mushroom", theories, already_in_conflict=True, reputation=15).reputation == -2
    # A debunk is new even between theories said to be in conflict: it still gains 2.
    debunk = demonstrate(GAME, "fern", "mushroom", {"fern": A.parse("r+g-B+"), "mushroom": A.parse("r+G-b-")},
                         already_in_conflict=True)
    assert debunk.debunked == ("fern",) and debunk.reputation == 2
    with pytest.raises(AlchemistsError, match="give the theories of both ingredients"):
        demonstrate(GAME, "fern", "mushroom", {"fern": A.parse("r-g+B-")}, already_in_conflict=True)


@pytest.mark.parametrize(("reputation", "change"), [(None, -1), (5, -1), (13, -1), (14, -2), (18, -3)])
def test_a_failed_debunk_loses_more_in_the_green_and_blue_zones(reputation, change):
    # « Vous perdez 1 point de réputation », deepened by the zone as the reputation table says.
    stands = debunk_aspect(GAME, "root", Colour.RED, theory=A.parse("r-g+B-"), reputation=reputation)
    assert stands.debunked is False and stands.reputation == change
    demo = demonstrate(GAME, "fern", "mushroom", {"fern": A.parse("r-g+B-")}, reputation=reputation)
    assert not demo.success and demo.reputation == change
    # A success gains 2 whatever the zone.
    assert debunk_aspect(GAME, "root", Colour.BLUE, theory=A.parse("R-G-B-"), reputation=reputation).reputation == 2


def test_a_failed_exhibit_and_an_insanity_lose_more_in_the_upper_zones():
    failed = exhibit(GAME, "claw", "scorpion", Potion.parse("red-"), reputation=14)
    assert not failed.success and failed.penalty == -2
    assert exhibit(GAME, "claw", "scorpion", Potion.parse("red-")).penalty == -1
    assert exhibit(GAME, "claw", "scorpion", Potion.parse("red+"), reputation=20).penalty == 0
    insanity = Potion.parse("blue-")
    assert drink_effect(insanity) == "insanity: lose 1 reputation point"
    assert drink_effect(insanity, 18) == "insanity: lose 3 reputation points"
    assert drink_reputation(insanity, 15) == -2 and drink_reputation(Potion.parse("red-"), 18) == 0


def test_exhibition_losses_follow_the_reputation_as_it_moves():
    red_plus, red_minus, blue_plus = map(Potion.parse, ("red+", "red-", "blue+"))
    exhibits = [
        ("Ana", red_plus, True),     # 13 -> 14: first red+, +1, now in the green zone
        ("Ana", blue_plus, False),   # failure at 14: -2
        ("Bo", blue_plus, False),    # 14: -2, down to 12
        ("Bo", red_minus, False),    # failure at 12: -1
    ]
    assert exhibition_reputation(exhibits, {"Ana": 13, "Bo": 14}) == {"Ana": -1, "Bo": -3}
    assert exhibition_reputation(exhibits) == {"Ana": 0, "Bo": -2}  # no reputations: the printed losses
