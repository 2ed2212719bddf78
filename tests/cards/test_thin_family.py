"""A card enrolled alone of its family (its look-alikes never enrolled): a card of that family never enrolled
shares its frame, palette, title band and rules box, and must still read unknown; the card itself is named.
Deck 804's scorpion is of a family of one picture: its strangers differ in their title's letters, digits
and a small mark only, which the 1.5 mm cells blur alike (the matcher before the fine print check took 11
of 24 such views for it)."""

from __future__ import annotations

import functools

import cv2
import numpy as np
import pytest

from vision.cards.store import CardSet
from vision.render.cards import FOREIGN_PREFIX
from vision.render.deck import deck_face, family_of

INGREDIENTS = ["fern", "claw", "mushroom", "flower", "root", "scorpion", "toad", "feather"]
LONE = {659: "root", 804: "scorpion"}  # of the eight ingredients, the one alone in its family in each deck
CASES = [(deck, n) for deck, lone in LONE.items() for n in (f"{FOREIGN_PREFIX}{k}-card-left" for k in range(40))
         if family_of(n, deck) == family_of(lone, deck)]


def strangers(deck: int) -> list[str]:
    return [n for d, n in CASES if d == deck][:4]


def seen(name: str, seed: int, deck: int) -> np.ndarray:
    """The card as cut from a frame: upright at 2 px/mm, a little soft, noisy."""
    face = deck_face(name, deck, (63.0, 88.0), 4.0)
    img = cv2.GaussianBlur(cv2.resize(face, (126, 176), interpolation=cv2.INTER_AREA) * 200 + 10, (0, 0), 0.7)
    img += np.random.default_rng(seed).normal(0, 2, img.shape).astype(np.float32)
    return np.clip(img, 0, 255).astype(np.uint8)


@functools.cache
def ingredients(deck: int) -> CardSet:
    """The eight ingredients of ``deck`` enrolled, once per deck for the module's tests."""
    return CardSet("alchemists-ingredients", (63, 88), {n: seen(n, k, deck) for k, n in enumerate(INGREDIENTS)})


@pytest.mark.parametrize("deck", LONE)
def test_the_lone_card_has_no_look_alike_enrolled(deck):
    assert [family_of(n, deck) for n in INGREDIENTS].count(family_of(LONE[deck], deck)) == 1
    assert len(strangers(deck)) == 4
    assert not any(LONE[deck] in pair[:2] for pair in ingredients(deck).pairs())


@pytest.mark.parametrize("deck", LONE)
def test_the_lone_card_is_named(deck):
    assert ingredients(deck).match(seen(LONE[deck], 99, deck)).name == LONE[deck]


@pytest.mark.parametrize(("deck", "stranger"), [(d, n) for d in LONE for n in strangers(d)])
def test_a_card_of_its_family_never_enrolled_is_unknown(deck, stranger):
    match = ingredients(deck).match(seen(stranger, 100, deck))
    assert match.best == LONE[deck]  # it looks most like the lone card, as a stranger of its family would...
    assert match.name is None  # ...and is not taken for it
