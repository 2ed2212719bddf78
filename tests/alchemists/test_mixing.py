"""Alchemicals, potions and mixing follow from the definitions in DESIGN.md."""

from __future__ import annotations

import itertools

import pytest

from assistant.engines.alchemists import (
    ALCHEMICALS,
    COLOURS,
    NEUTRAL,
    POTIONS,
    Alchemical,
    AlchemistsError,
    Potion,
    mix,
)


def reactions(a: Alchemical, b: Alchemical) -> list[Potion]:
    """The rule, restated independently of the engine: a colour reacts on the same sign, different sizes."""
    return [Potion(c, a.sign(c)) for c in COLOURS
            if a.sign(c) == b.sign(c) and a.aspect(c).big != b.aspect(c).big]


def opposites(a: Alchemical, b: Alchemical) -> bool:
    return all(a.sign(c) != b.sign(c) and a.aspect(c).big == b.aspect(c).big for c in COLOURS)


def test_the_eight_alchemicals_are_those_of_the_design():
    assert [str(a) for a in ALCHEMICALS] == ["r-g+B-", "r+g-B+", "r+G-b-", "r-G+b+",
                                             "R-g-b+", "R+g+b-", "R-G-B-", "R+G+B+"]
    assert [Alchemical.parse(str(a)) for a in ALCHEMICALS] == list(ALCHEMICALS)


@pytest.mark.parametrize(("a", "b"), list(itertools.combinations(ALCHEMICALS, 2)), ids=str)
def test_every_pair_gives_exactly_one_result(a, b):
    found = reactions(a, b)
    if opposites(a, b):
        assert found == [] and mix(a, b) == NEUTRAL
    else:
        assert len(found) == 1 and mix(a, b) == found[0]
    assert mix(b, a) == mix(a, b)


def test_the_28_pairs_cover_each_potion_four_times():
    results = [str(mix(a, b)) for a, b in itertools.combinations(ALCHEMICALS, 2)]
    assert len(results) == 28
    assert {p: results.count(str(p)) for p in POTIONS} == dict.fromkeys(POTIONS, 4)


def test_each_alchemical_has_one_opposite_and_a_distinct_sign_pattern():
    for a in ALCHEMICALS:
        assert sum(opposites(a, b) for b in ALCHEMICALS) == 1
    assert len({tuple(a.sign(c) for c in COLOURS) for a in ALCHEMICALS}) == 8


def test_an_ingredient_cannot_be_mixed_with_itself():
    with pytest.raises(AlchemistsError, match="itself"):
        mix(ALCHEMICALS[0], ALCHEMICALS[0])


@pytest.mark.parametrize("text", ["rgb", "r+g+b+", "R+G+B-", "g+r+B+", "r*g+B-", ""])
def test_a_bad_alchemical_name_is_refused(text):
    with pytest.raises(AlchemistsError):
        Alchemical.parse(text)


def test_potion_names_round_trip():
    assert [str(p) for p in POTIONS] == ["red+", "red-", "green+", "green-", "blue+", "blue-", "neutral"]
    assert all(Potion.parse(str(p)) == p for p in POTIONS)
    with pytest.raises(AlchemistsError, match="unknown potion"):
        Potion.parse("purple+")
