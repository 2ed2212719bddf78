"""The evidence between two look-alikes heard in fine print too (``Teller.fine_evidence``), on cards cut from
rendered frames of dev deck 1002 (seed 15000; ``data/potions-1002``: each card's enrolment photo, and cards
as the table's camera saw them).

Two families of potions, each of one picture: cards that differ only in their title, digits and a small
mark. In dim or cool light the 1.5 mm cells leave `tempest` too little evidence against `root-knot`; its
fine print says it. And cards of a family never enrolled, whose titles' letters correlate with
`twin-essence`'s through the band they sit on, lie nearer a look-alike than it in fine print: unknown
(the matcher before took all three for `twin-essence`)."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from tests.cards.photos import card_photo
from vision.cards import fineprint
from vision.cards.store import CardSet

SHARED_ART = ["dawn-tonic", "elixir-of-life", "green-sip", "smoulder", "twin-essence"]
STORM = ["ember-tea", "mist-draught", "root-knot", "sage-stone", "serpent-oil", "tempest"]


def image(name: str) -> np.ndarray:
    return card_photo("potions-1002", name)


@functools.cache
def enrolled(names: tuple[str, ...]) -> CardSet:
    return CardSet("chaudron-potions", (63, 88), {n: image(n) for n in names})


@pytest.mark.parametrize("view", ["seen-tempest-a", "seen-tempest-b"])
def test_a_look_alike_in_dim_light_is_named_by_its_fine_print(view):
    match = enrolled(tuple(STORM)).match(image(view))
    assert match.name == "tempest"


@pytest.mark.parametrize("view", ["stranger-a", "stranger-b", "stranger-c"])
def test_a_card_of_the_family_never_enrolled_is_unknown(view):
    match = enrolled(tuple(SHARED_ART)).match(image(view))
    assert match.best == "twin-essence"  # it looks most like it...
    assert match.name is None  # ...and is not taken for it


@pytest.mark.parametrize(("view", "name"), [("seen-dawn-tonic", "dawn-tonic"), ("seen-twin-essence", "twin-essence"),
                                            ("seen-green-sip", "green-sip")])
def test_the_cards_of_the_family_are_still_named(view, name):
    assert enrolled(tuple(SHARED_ART)).match(image(view)).name == name


def test_the_few_blocks_compared_directly_are_the_blocks_compared_all_at_once():
    ref = fineprint.detail(image("tempest"), 2.0)
    query = fineprint.detail(image("seen-tempest-a"), 2.0)
    _, every = fineprint.correlations(ref, query, 2.0)
    some = np.zeros(every.shape, bool)
    some[::3, 1::2] = True
    direct = fineprint.best_correlation(fineprint.patches(ref, 2.0, some), fineprint.shifted_patches(query, 2.0, some))
    assert np.allclose(direct, every[some], atol=1e-4)
