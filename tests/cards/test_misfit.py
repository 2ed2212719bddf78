"""Look-alikes of a family of one picture (the family's art, one small mark and two numbers of each card's
own) seen as the table's camera sees them: the cut a millimetre and more off, the print stretched a little
(a bowed card, the lens), softer and at a lower resolution than the enrolment photo: each is named as
itself (the query is warped onto the nearest card, and told from its look-alikes by correlation where they
differ). Cards of such a family never enrolled: tests/cards/test_thin_family.py."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.cards.store import CardSet
from vision.render.deck import deck_face, family_of

DECK = 804  # the earth crystals: one picture, told apart by a small mark and two numbers
FAMILY = [f"earth-{k}" for k in range(1, 6)]
OTHERS = [f"{e}-{k}" for e in ("air", "water", "fire", "time") for k in range(1, 6)]


def photo(name: str) -> np.ndarray:
    """The enrolment photo: the card upright at 2 px/mm, a little soft."""
    face = deck_face(name, DECK, (63.0, 88.0), 4.0)
    return np.clip(cv2.GaussianBlur(cv2.resize(face, (126, 176), interpolation=cv2.INTER_AREA) * 220 + 15,
                                    (0, 0), 0.6), 0, 255).astype(np.uint8)


def seen(name: str, seed: int) -> np.ndarray:
    """The card as cut at the table: seen at 1.6 px/mm, softer, the cut 1.2 mm off and the print stretched
    by 1.5 %, cut again at 2 px/mm."""
    rng = np.random.default_rng(seed)
    face = deck_face(name, DECK, (63.0, 88.0), 4.0) * 200 + 20
    px = 1.6  # the table's resolution, px/mm
    s, k = px / 4.0, 1.015
    dx, dy = rng.choice([-1, 1], 2) * 1.2 * px
    M = np.float32([[s * k, 0, dx], [0, s * k, dy]])
    small = cv2.warpAffine(cv2.GaussianBlur(face, (0, 0), 1.0), M, (round(63 * px), round(88 * px)),
                           borderMode=cv2.BORDER_REPLICATE)
    small += rng.normal(0, 2, small.shape).astype(np.float32)
    return np.clip(cv2.resize(small, (126, 176), interpolation=cv2.INTER_LINEAR), 0, 255).astype(np.uint8)


@pytest.fixture(scope="module")
def crystals() -> CardSet:
    return CardSet("alchymia-crystals", (63, 88), {n: photo(n) for n in FAMILY + OTHERS})


def test_the_family_shares_one_picture(crystals):
    assert len({family_of(n, DECK) for n in FAMILY}) == 1
    assert {(a, b) for a, b, _ in crystals.pairs()} >= {(a, b) for a in FAMILY for b in FAMILY if a < b}


@pytest.mark.parametrize("name", FAMILY)
def test_each_card_of_the_family_is_named_through_misfit_and_blur(crystals, name):
    for seed in (7, 8):
        assert crystals.match(seen(name, seed)).name == name, seed
