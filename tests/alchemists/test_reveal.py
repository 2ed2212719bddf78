"""The grand reveal: victory points for right and wrong theories, with every kind of seal."""

from __future__ import annotations

import pytest

from assistant.engines.alchemists import Alchemical as A
from assistant.engines.alchemists import (
    AlchemistsError,
    Assignment,
    Seal,
    SealKind,
    Theory,
    grand_reveal,
    parse_theories,
)

GAME = Assignment.from_index(0)  # fern is r-g+B-
KINDS = ["gold", "silver", "hedge-red", "hedge-green", "hedge-blue"]


def points_for(theory: str) -> dict[str, int]:
    """The points of each seal kind on a theory of fern (a theory holds at most three seals: one at a time)."""
    return {kind: grand_reveal(GAME, [Theory("fern", A.parse(theory), (Seal("Ana", SealKind(kind)),))]).points["Ana"]
            for kind in KINDS}


def test_a_right_theory_pays_the_stars_and_not_the_hedges():
    assert points_for("r-g+B-") == {"gold": 5, "silver": 3, "hedge-red": 0, "hedge-green": 0, "hedge-blue": 0}


def test_a_theory_wrong_on_one_aspect_spares_only_the_hedge_of_that_colour():
    # R+g+b- has the signs of r-g+B- except red.
    assert points_for("R+g+b-") == {"gold": -4, "silver": -4, "hedge-red": 0, "hedge-green": -4,
                                    "hedge-blue": -4}
    # r-G+b+ differs only on blue.
    assert points_for("r-G+b+")["hedge-blue"] == 0 and points_for("r-G+b+")["hedge-red"] == -4


def test_a_theory_wrong_on_two_aspects_spares_no_seal():
    # r+G-b- differs on red and green: a hedge on either colour does not cover the other mistake.
    assert set(points_for("r+G-b-").values()) == {-4}
    assert set(points_for("r+g-B+").values()) == {-4}  # the opposite: wrong on all three


def test_points_add_up_per_player_across_theories():
    theories = parse_theories({"theories": [
        {"ingredient": "fern", "alchemical": "r-g+B-",
         "seals": [{"player": "Ana", "seal": "gold"}, {"player": "Bo", "seal": "silver"}]},
        {"ingredient": "toad", "alchemical": "R+G+B+",   # toad is R-G-B-: wrong everywhere
         "seals": [{"player": "Ana", "seal": "hedge-green"}, {"player": "Cy", "seal": "gold"}]},
        {"ingredient": "root", "alchemical": "R-g-b+", "seals": [{"player": "Bo", "seal": "hedge-red"}]},
    ]})
    revelation = grand_reveal(GAME, theories)
    assert revelation.points == {"Ana": 1, "Bo": 3, "Cy": -4}
    assert [v.correct for v in revelation.verdicts] == [True, False, True]
    assert [str(c) for c in revelation.verdicts[1].wrong] == ["red", "green", "blue"]


@pytest.mark.parametrize(("theories", "message"), [
    ({"theories": [{"ingredient": "fern", "alchemical": "r-g+B-"},
                   {"ingredient": "fern", "alchemical": "R+G+B+"}]}, "two theories about fern"),
    ({"theories": [{"ingredient": "fern", "alchemical": "r-g+B-"},
                   {"ingredient": "toad", "alchemical": "r-g+B-"}]}, "two theories name r-g\\+B-"),
    ({"theories": [{"ingredient": "fern", "alchemical": "r-g+B-", "seals": [
        {"player": "Ana", "seal": "gold"}, {"player": "Ana", "seal": "silver"}]}]}, "two seals of one player"),
    ({"theories": [{"ingredient": "fern", "alchemical": "r-g+B-", "seals": [
        {"player": p, "seal": "gold"} for p in "ABCD"]}]}, "at most 3"),
    ({"theories": [{"ingredient": "fern", "alchemical": "r-g+B-", "seals": [
        {"player": "Ana", "seal": "bronze"}]}]}, "theories\\[0\\]: unknown seal 'bronze'"),
    ({"theories": [{"ingredient": "fern"}]}, "theories\\[0\\]: alchemical: missing"),
    ({"theory": []}, "expected a list of theories"),
])
def test_a_malformed_theory_board_is_refused_with_its_place(theories, message):
    with pytest.raises(AlchemistsError, match=message):
        parse_theories(theories, "T.json")
