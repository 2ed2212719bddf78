"""A card enrolled alone of its family (its look-alikes never enrolled): a card of that family never enrolled
shares its frame, palette, title band and rules box, and must still read unknown; the card itself is named."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.cards.store import CardSet
from vision.render.cards import FOREIGN_PREFIX
from vision.render.deck import deck_face, family_of

DECK = 659  # of the eight ingredients, root alone falls in its family
INGREDIENTS = ["fern", "claw", "mushroom", "flower", "root", "scorpion", "toad", "feather"]
LONE = "root"
STRANGERS = [n for n in (f"{FOREIGN_PREFIX}{k}-card-left" for k in range(40))
             if family_of(n, DECK) == family_of(LONE, DECK)][:4]


def seen(name: str, seed: int) -> np.ndarray:
    """The card as cut from a frame: upright at 2 px/mm, a little soft, noisy."""
    face = deck_face(name, DECK, (63.0, 88.0), 4.0)
    img = cv2.GaussianBlur(cv2.resize(face, (126, 176), interpolation=cv2.INTER_AREA) * 200 + 10, (0, 0), 0.7)
    img += np.random.default_rng(seed).normal(0, 2, img.shape).astype(np.float32)
    return np.clip(img, 0, 255).astype(np.uint8)


@pytest.fixture(scope="module")
def ingredients() -> CardSet:
    return CardSet("alchemists-ingredients", (63, 88), {n: seen(n, k) for k, n in enumerate(INGREDIENTS)})


def test_the_lone_card_has_no_look_alike_enrolled(ingredients):
    assert [family_of(n, DECK) for n in INGREDIENTS].count(family_of(LONE, DECK)) == 1
    assert len(STRANGERS) == 4
    assert not any(LONE in pair[:2] for pair in ingredients.pairs())


def test_the_lone_card_is_named(ingredients):
    assert ingredients.match(seen(LONE, 99)).name == LONE


@pytest.mark.parametrize("stranger", STRANGERS)
def test_a_card_of_its_family_never_enrolled_is_unknown(ingredients, stranger):
    match = ingredients.match(seen(stranger, 100))
    assert match.best == LONE  # it looks most like the lone card, as a stranger of its family would...
    assert match.name is None  # ...and is not taken for it
