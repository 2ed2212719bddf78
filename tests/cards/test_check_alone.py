"""``calibrate cards`` names a card that its own photo does not show as the table will, even when it has no
look-alike (no pair to say so): a card alone of its family is held to all its fine print, and a photo taken
too dim would leave it ``unknown`` at every reading."""

from __future__ import annotations

import cv2
import numpy as np

from tests.cards.test_thin_family import INGREDIENTS
from vision.cards.check import unread
from vision.cards.store import CardSet
from vision.render.cards import card_face


def photo(name: str, seed: int, contrast: float) -> np.ndarray:
    """The default face of ``name`` as enrolled: upright at 2 px/mm, its print spread over ``contrast`` grey
    levels (200: a well lit photo; 30: a photo taken in the dark), a little soft, noisy."""
    face = cv2.resize(card_face(name, (63, 88), 4.0), (126, 176), interpolation=cv2.INTER_AREA)
    img = cv2.GaussianBlur(face * contrast + 10, (0, 0), 0.7)
    img += np.random.default_rng(seed).normal(0, 2, img.shape).astype(np.float32)
    return np.clip(img, 0, 255).astype(np.uint8)


def test_well_lit_photos_are_read_back():
    card_set = CardSet("alchemists-ingredients", (63, 88), {n: photo(n, k, 200) for k, n in enumerate(INGREDIENTS)})
    assert not card_set.pairs() and unread(card_set) == []


def test_photos_taken_in_the_dark_are_named_by_the_check(cli, tmp_path):
    cards = tmp_path / "cards"
    CardSet("alchemists-ingredients", (63, 88),
            {n: photo(n, k, 30) for k, n in enumerate(INGREDIENTS[:3])}).save(cards / "alchemists-ingredients")
    code, out, err = cli("calibrate", "cards", "--layout", "alchemists", "--out", str(cards), "--check")
    assert code == 0, err
    assert "0 look-alike pairs" in out
    for name in INGREDIENTS[:3]:
        assert f"  {name}: not named from its own photo as the table may see it" in out
