"""The shortcuts taken to find and describe cards quickly change no answer: the first look at a quarter of
the pixels, the mat's pixels left untested, the sampling maps kept between frames, the lookup tables."""

from __future__ import annotations

import cv2
import numpy as np

from calibration.layout import load_layout
from vision.cards import card_size, features
from vision.cards.find import Found, ZonePatch, find_card
from vision.locate import Locator
from vision.render import random_conditions, random_state, render_frame

POTIONS = load_layout("chaudron-potions")


def _same(a: Found, b: Found) -> bool:
    corners = (a.corners_mm is None and b.corners_mm is None) or np.array_equal(a.corners_mm, b.corners_mm)
    return corners and (a.kind, a.fill, a.band, a.area) == (b.kind, b.fill, b.band, b.area)


def test_the_first_look_and_the_kept_maps_change_no_answer():
    card_mm = card_size(POTIONS)
    kinds = set()
    for seed in range(3):
        rng = np.random.default_rng(300 + seed)
        frame, truth = render_frame(POTIONS, random_state(POTIONS, rng, fill=0.5),
                                    random_conditions(POTIONS, rng, hand=False, foreign=False), rng)
        location = Locator(POTIONS).locate(frame)
        assert location.found
        H, lens = location.homography, location.lens
        for zone in (z for z in POTIONS.zones if z.kind == "card"):
            kept = ZonePatch(zone.bounds)
            first = find_card(frame, H, lens, zone.bounds, card_mm, kept)
            again = find_card(frame, H, lens, zone.bounds, card_mm, kept, first_look=False)  # its maps kept
            alone = find_card(frame, H, lens, zone.bounds, card_mm, first_look=False)
            assert _same(again, alone)
            assert first.kind == alone.kind == ("empty" if truth["zones"][zone.id] == "empty" else "card")
            assert first.kind == "empty" or _same(first, alone)
            kinds.add(first.kind)
    assert kinds == {"empty", "card"}


def test_the_descriptor_of_an_image_is_the_same_from_its_bytes_as_from_its_floats():
    rng = np.random.default_rng(5)
    for card in (rng.integers(0, 256, (176, 126, 3), dtype=np.uint8),
                 cv2.GaussianBlur(rng.integers(20, 240, (176, 126, 3), dtype=np.uint8), (0, 0), 3)):
        assert np.array_equal(features.describe(card), features.describe(card.astype(np.float32)))
