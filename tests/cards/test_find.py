"""The shortcuts taken to find and describe cards quickly change no answer: the first look at a quarter of
the pixels, the mat's pixels left untested, the sampling maps kept between frames (and the part of the frame
they read, remapped as BGRA), the lookup tables, the median and plain range worked out without numpy's
general routines, the quarter turn left untried."""

from __future__ import annotations

import cv2
import numpy as np

from calibration.layout import load_layout
from vision.cards import card_size, features, find
from vision.cards.find import Found, PatchMaps, ZonePatch, find_card
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


def _reference_test(b, g, r):
    """The test of a pixel against the mat, as first written."""
    lum = (b + g + r) / 3
    spread = np.maximum(np.maximum(np.abs(b - lum), np.abs(g - lum)), np.abs(r - lum))
    return (lum > 1.5) | (spread > 0.22 * lum), lum


def test_the_part_of_the_frame_remapped_as_bgra_gives_the_remaps_bytes():
    rng = np.random.default_rng(8)
    colour = rng.integers(0, 256, (240, 320, 3), dtype=np.uint8)
    for frame in (colour, cv2.GaussianBlur(colour, (0, 0), 2), colour[..., 1].copy()):
        # A patch's maps: a little turned and shrunk, reading inside the frame, over each of its edges, or off it.
        for x, y in ((40, 30), (150, 100), (-20, 60), (290, 200), (100, -15), (60, 225), (-400, 50)):
            for scale in (0.5, 1.0, 2.5):
                turn = rng.uniform(-0.3, 0.3)
                u, v = np.meshgrid(np.arange(60, dtype=np.float64), np.arange(45, dtype=np.float64))
                mx = (x + scale * (np.cos(turn) * u - np.sin(turn) * v) + rng.uniform(0, 1)).astype(np.float32)
                my = (y + scale * (np.sin(turn) * u + np.cos(turn) * v) + rng.uniform(0, 1)).astype(np.float32)
                want = cv2.remap(frame, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
                maps = PatchMaps((mx, my), frame.shape)
                assert np.array_equal(maps.sample(frame), want)
                if x >= 0 and y >= 0 and scale <= 1:
                    assert maps.cut  # inside the frame and dense enough: the part is cut out


def test_the_median_the_plain_range_and_the_test_are_numpys():
    rng = np.random.default_rng(9)
    for n in (1, 2, 60, 61, 1164, 4656):
        for px in (rng.integers(0, 256, (3, n), dtype=np.uint8), rng.integers(90, 94, (3, n), dtype=np.uint8)):
            assert np.array_equal(find._medians(px), np.median(px, axis=1).astype(np.float32))
    # The limits compared as a search of each channel's table compares them (float64): a table value of
    # float32(1.149), which is above 1.149, stays out.
    edge = [np.float32(101 / np.float32(1.149)), np.float32(142 / np.float32(1.149))]
    assert any(np.float32(1.149) in find._LEVELS / mat for mat in edge)
    for mat in [np.float32(v) for v in rng.uniform(20, 240, 200)] + edge:
        table = find._LEVELS / np.array([mat, mat + 1, mat + 2], np.float32)[:, None]
        lo = tuple(int(np.searchsorted(table[c], find.PLAIN[0])) for c in range(3))
        hi = tuple(int(np.searchsorted(table[c], find.PLAIN[1], side="right")) - 1 for c in range(3))
        assert find._plain_range(table) == (lo, hi)
    b, g, r = (rng.uniform(0, 3, 5000).astype(np.float32) for _ in range(3))
    for got, want in zip(find._test(b, g, r), _reference_test(b, g, r), strict=True):
        assert np.array_equal(got, want)


def test_a_quarter_turn_left_untried_could_not_have_won():
    card_mm = card_size(POTIONS)
    s = find.PATCH_PX_PER_MM
    box, b, g = (round(card_mm[0] * s), round(card_mm[1] * s)), round(find.BAND_MM * s), round(find.GAP_MM * s)
    tried = 0
    for seed in range(2):
        rng = np.random.default_rng(320 + seed)
        frame, _ = render_frame(POTIONS, random_state(POTIONS, rng, fill=0.8),
                                random_conditions(POTIONS, rng, hand=False, foreign=False), rng)
        location = Locator(POTIONS).locate(frame)
        for zone in (z for z in POTIONS.zones if z.kind == "card"):
            mask, area, *_ = ZonePatch(zone.bounds).look(frame, location.homography, location.lens, dense=True)
            if not area:
                continue
            contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
            rect = cv2.minAreaRect(max(contours, key=cv2.contourArea))
            pair = (rect[2] % 90, rect[2] % 90 + 90)
            caps = find._quarter_caps(rect, pair, *box)
            scores = [find._fit_at(mask.astype(np.float32), rect[0], theta, box, b, g)[0] for theta in pair]
            assert all(score <= cap - 0.005 for score, cap in zip(scores, caps, strict=True))
            tried += min(caps) < max(scores)  # one of the pair left untried
    assert tried >= 3
