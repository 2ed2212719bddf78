"""Rendered decks: cards fall in families that share a frame and palette and differ in art, title and
numbers; a card lies sleeved, bowed or moving as drawn, and still (no glare, no blur) for an enrolment."""

from __future__ import annotations

import numpy as np

from vision.render.cards import card_face
from vision.render.deck import CardStyle, card_look, family_of


def test_numbered_cards_are_one_family_and_a_family_shares_its_frame():
    for deck in (1, 2, 3):
        assert len({family_of(f"fire-{i}", deck) for i in range(1, 6)}) == 1
    names = ["fern", "claw", "mushroom", "flower", "root", "scorpion", "toad", "feather"]
    same = [n for n in names if family_of(n, 7) == family_of("claw", 7)]
    other = next(n for n in names if family_of(n, 7) != family_of("claw", 7))
    faces = {n: card_face(n, (63, 88), 2.0, deck=7) for n in [*same, other]}
    border = np.zeros(faces["claw"].shape[:2], bool)
    border[:4], border[-4:], border[:, :4], border[:, -4:] = True, True, True, True
    for n in same[1:]:
        assert np.abs(faces[n] - faces["claw"])[border].max() < 0.02  # one frame and card stock
        assert np.abs(faces[n] - faces["claw"]).max() > 0.3  # but a card of its own
    assert np.abs(faces[other] - faces["claw"])[border].mean() > np.abs(faces[same[1]] - faces["claw"])[border].mean()
    # The plain faces (no deck) are another drawing, unchanged by decks.
    assert np.abs(card_face("claw", (63, 88), 2.0) - faces["claw"]).mean() > 0.05


def test_cards_lie_sleeved_bowed_and_moving_in_play_and_still_when_enrolled():
    looks = [card_look(CardStyle(deck), "claw", seed) for deck in range(10) for seed in range(20)]
    assert any(k.sleeved for k in looks) and not all(k.sleeved for k in looks)
    assert any(k.glare for k in looks) and any(k.bow for k in looks) and any(k.blur_mm for k in looks)
    still = [card_look(CardStyle(deck, handled=False), "claw", seed) for deck in range(10) for seed in range(20)]
    assert not any(k.glare or k.blur_mm for k in still)


def test_a_card_shows_one_printing_at_every_resolution():
    """An enrolment photo and a table's frame see one card at different resolutions: its print (rules lines,
    strokes' widths) must be the same, or a card of the set reads as a stranger. Drawn anew per resolution,
    the family faces of decks 4236-4239 lost print blocks at another resolution in about one face in five."""
    import cv2

    from vision.cards import fineprint

    lost = 0
    for deck in range(4236, 4240):
        for name in ("green-sip", "mushroom", "air-2", "root-knot", "time-5"):
            for plain in (False, True):
                d = None if plain else deck
                ref = card_face(name, (63, 88), 2.0, deck=d)
                for s in (2.3, 2.7, 3.6):
                    seen = cv2.resize(card_face(name, (63, 88), s, deck=d), (ref.shape[1], ref.shape[0]),
                                      interpolation=cv2.INTER_AREA)
                    a, b = (fineprint.detail((f * 255).astype(np.uint8), 2.0) for f in (ref, seen))
                    lost += fineprint.missing(a, b, 2.0) > 0
    assert lost == 0
