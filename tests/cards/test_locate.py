"""Finding a card by its print (``vision.cards.locate``) where its outline does not give its place: dim light over
a card of the mat's colours, a mat printed with art round the place."""

from __future__ import annotations

import math
from functools import lru_cache

import cv2
import numpy as np
import pytest

from calibration.layout import load_layout
from vision.cards.locate import FINE_PX_PER_MM, families
from vision.cards.store import CardSet
from vision.render.card_photos import enrol_rendered
from vision.render.cards import card_face

from .test_mat import _against_the_mat, _set_frame

S = 2.0  # px/mm, as the card zones' patches are sampled
PATCH_MM = (98.0, 114.0)  # a potion place (80 x 96 mm) and the finder's margin
DECK = 4240  # a test deck


@lru_cache(maxsize=1)
def _potions():
    return enrol_rendered(load_layout("chaudron-potions"), deck=DECK)["chaudron-potions"]


def _card_on_art(name: str, centre, turn_deg: float, level: float, rng) -> tuple[np.ndarray, np.ndarray]:
    """A patch of mat printed with bold strokes and blobs of colour, the card's printed face laid on it at
    ``centre`` (mm) turned by ``turn_deg``, lit at ``level`` of full light with the camera's noise: (patch,
    the card's corners in mm, as ``Found.corners_mm`` orders them)."""
    w, h = round(PATCH_MM[0] * S), round(PATCH_MM[1] * S)
    art = np.empty((h, w, 3), np.float32)
    art[:] = rng.uniform(0.3, 0.9, 3)
    for _ in range(40):  # the mat's illustration, up to the card and under it
        colour = rng.uniform(0, 1, 3).tolist()
        if rng.random() < 0.5:
            ends = [tuple(int(v) for v in rng.integers(0, (w, h))) for _ in range(2)]
            cv2.line(art, *ends, colour, int(rng.integers(2, 9)), cv2.LINE_AA)
        else:
            cv2.circle(art, tuple(int(v) for v in rng.integers(0, (w, h))), int(rng.integers(4, 30)), colour, -1)
    face = card_face(name, (63, 88), S, deck=DECK)
    fw, fh = 63.0, 88.0
    a = math.radians(turn_deg)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    corners = np.array([(-fw / 2, -fh / 2), (fw / 2, -fh / 2), (fw / 2, fh / 2), (-fw / 2, fh / 2)]) @ rot.T + centre
    M = cv2.getAffineTransform(np.float32([(0, 0), (face.shape[1], 0), (face.shape[1], face.shape[0])]),
                               np.float32(corners[:3] * S))
    laid = cv2.warpAffine(face, M, (w, h), flags=cv2.INTER_LINEAR)
    cover = cv2.warpAffine(np.ones(face.shape[:2], np.float32), M, (w, h), flags=cv2.INTER_LINEAR)[..., None]
    lit = (art * (1 - cover) + laid * cover) * level * 255 + rng.normal(0, 3, (h, w, 3))
    return np.clip(lit, 0, 255).astype(np.uint8), corners


@pytest.mark.parametrize("quarter", [0, 1, 2, 3])
def test_a_card_on_a_mat_printed_with_art_is_located_by_its_print_any_way_round(quarter):
    """Dim light (a fifth of full light) over a mat printed with strokes and blobs under and around the card, the
    card off its place's centre and askew: its corners are found within 2 mm (the matcher's warp takes in 4), the
    card either way up."""
    potions = _potions()
    rng = np.random.default_rng([4241, quarter])
    for name in potions.names[:4]:
        centre = np.array(PATCH_MM) / 2 + rng.uniform(-4, 4, 2)
        turn = 90 * quarter + rng.uniform(-12, 12)
        patch, corners = _card_on_art(name, centre, turn, 0.2, rng)
        located = potions.locator.locate(patch, (0.0, 0.0), S)
        assert located is not None, name
        off = min(np.abs(located[0] - corners).max(), np.abs(np.roll(located[0], 2, axis=0) - corners).max())
        assert off < 2.0, (name, turn, off)


def test_a_mat_with_no_card_locates_none():
    """The art alone, where no card lies: no family's face correlates with it enough to be worth cutting."""
    rng = np.random.default_rng(4242)
    patch, _ = _card_on_art(_potions().names[0], (-200.0, -200.0), 0.0, 0.8, rng)  # (the card far off the patch)
    assert _potions().locator.locate(patch, (0.0, 0.0), S) is None


def test_crystals_found_only_in_part_against_the_mat_in_dim_light_are_named(tmp_path):
    """Table 10 of `render --layout alchemists,alchymia-crystals,chaudron-potions --tables 12 --frames-per-table 6
    --boards both --blur --hands 0.5 --deck 1511 --seed 19663` (a dev set), its third frame: dim light over the
    illustrated crystal mat. The air and water crystals differ from the enrolled mat over their art and frame
    lines only, and what stands out of the ring's colour takes in the mat's art: no rectangle fitted on either
    was the card's, and both read `unknown`. Found by their print, both are named."""
    layout = load_layout("alchymia-crystals")
    empty, frame, truth = _set_frame(tmp_path, layout, "illustrated", 10, 2, 19663, 1511, blur=True,
                                     frames_per_table=6)
    assert truth["conditions"]["lighting"] == "dim"
    assert truth["zones"]["crystal-air"] == "air-5" and truth["zones"]["crystal-water"] == "water-5"
    reading = _against_the_mat(layout, empty, frame, enrol_rendered(layout, deck=1511))
    assert reading.zones["crystal-air"].label == "air-5", reading.zones
    assert reading.zones["crystal-water"].label == "water-5", reading.zones
    assert all(reading.zones[zid].label in (want, "unknown") for zid, want in truth["zones"].items()), reading.zones


def test_a_family_enrolled_half_upside_down_is_searched_for_by_one_face():
    """A card may be enrolled either way up. Every other potion's photo turned half a turn: each family's face is
    still its cards' print, each of them correlating with it as when all were enrolled one way up (0.86 on this
    deck); averaged as they lay, the face was two faces at once (0.64)."""
    potions = _potions()
    enrolled = sorted(potions.images.items())
    photos = {n: (img[::-1, ::-1].copy() if k % 2 else img) for k, (n, img) in enumerate(enrolled)}
    half = CardSet("chaudron-potions", potions.card_mm, photos)
    faces = half.locator.templates[FINE_PX_PER_MM]
    for f, members in enumerate(families(half.teller.look_alikes)):
        face = faces[f][0][0]
        for i in members:
            grey = cv2.cvtColor(half.images[half.names[i]], cv2.COLOR_BGR2GRAY).astype(np.float32)
            grey = cv2.resize(grey, face.shape[::-1], interpolation=cv2.INTER_AREA)
            either = max(float(cv2.matchTemplate(g, face, cv2.TM_CCOEFF_NORMED)[0, 0])
                         for g in (grey, np.ascontiguousarray(grey[::-1, ::-1])))
            assert either >= 0.8, (half.names[i], either)
