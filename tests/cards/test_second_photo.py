"""A card's second photo (``calibrate cards --second``) helps whichever way up the card was laid for it."""

from __future__ import annotations

import cv2
import numpy as np

from calibration.layout import load_layout
from vision.cards.store import CardSet
from vision.render.card_photos import enrol_rendered

CRYSTALS = load_layout("alchymia-crystals")
DECK = 1664  # drawn for this test (session 60): its crystals come in families of look-alikes
CARD = "time-3"


def _views(photo: np.ndarray) -> list[np.ndarray]:
    """The card as the table's camera may show it: sharp, soft, dimmer, either way up."""
    soft = cv2.GaussianBlur(photo, (0, 0), 1.5)
    dim = np.clip(photo.astype(np.float32) * 0.6 + 10, 0, 255).astype(np.uint8)
    return [v for im in (photo, soft, dim) for v in (im, np.ascontiguousarray(im[::-1, ::-1]))]


def test_a_second_photo_laid_the_other_way_up_reads_its_card_as_one_laid_the_same_way():
    """The teller draws a card's own cells (its title, numbers, art) in its first photo's frame and compares a view
    with whichever photo lies nearest. A second photo laid half a turn from the first put those cells half a turn
    off the print: the card, seen just as in its second photo, was told from its look-alikes at evidence -0.09 and
    read unknown (deck 1658), and a look-alike under a glare streak was named as it (bench seed 19748). The second
    photo is enrolled here both ways up: one of them lies opposite the first."""
    first = enrol_rendered(CRYSTALS, seed=4258, deck=DECK)["alchymia-crystals"]
    second = enrol_rendered(CRYSTALS, seed=4259, deck=DECK)["alchymia-crystals"].images[CARD]
    assert first.teller.look_alikes[first.names.index(CARD)], "the card must have look-alikes to tell apart"
    for way in (second, np.ascontiguousarray(second[::-1, ::-1])):
        card_set = CardSet(first.name, first.card_mm, first.images, more={CARD: [way]})
        for view in _views(second):
            found = card_set.match(view)
            assert found.name == CARD, (found, [f.name for f in map(card_set.match, _views(first.images[CARD]))])
