"""A hand's shadow across the reserve trays: fitted from the hand and the board, and the trays read in the
light it leaves."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision.read import Reader
from vision.render import Hand, lighting_preset
from vision.shadow import fit_hand_shadow

GRID_MM = 4.0


def test_the_shadow_of_a_hand_is_found_where_it_falls():
    rows, cols = 100, 140
    hand = np.zeros((rows, cols), bool)
    hand[60:, 40:52] = True  # an arm in from the bottom edge
    hand[45:60, 36:56] = True  # its palm
    dx, dy = 15, 5  # cells: the shadow falls 60 mm right of the hand and 20 mm below it
    cast = np.zeros((rows, cols), np.float32)
    cast[45 + dy:60 + dy, 36 + dx:56 + dx] = 1.0  # the palm's
    cast[60 + dy:, 40 + dx:52 + dx] = 1.0  # the arm's (it carries on past the board's edge)
    light = 1.0 - 0.35 * cv2.GaussianBlur(cast, (0, 0), 6.0 / GRID_MM)
    light += np.random.default_rng(1).normal(0, 0.02, light.shape).astype(np.float32)
    board = ~hand
    shadow = fit_hand_shadow(hand, light.ravel(), board.ravel(), GRID_MM)
    assert shadow is not None
    assert shadow.offset_mm == pytest.approx((60.0, 20.0), abs=GRID_MM)
    assert shadow.strength == pytest.approx(0.35, abs=0.05)
    assert np.abs(shadow.light - light)[board].max() < 0.12


def test_a_hands_shadow_with_no_hand_to_cast_it_is_not_fitted():
    hand = np.zeros((50, 60), bool)
    assert fit_hand_shadow(hand, np.ones(50 * 60, np.float32), np.ones(50 * 60, bool), GRID_MM) is None


def _render_with_the_light(rendered, light, seed, azimuth, elevation, hand):
    lighting = replace(lighting_preset(light), azimuth_deg=azimuth, elevation_deg=elevation, gradient=0.15)
    return rendered("alchimiste", light, seed, hand=hand, lighting=lighting)


def test_a_tray_in_an_arms_shadow_is_counted_in_the_light_that_reaches_it(rendered):
    # The arm reaches up the board left of the trays; a low lamp on the left lays its shadow across the
    # yellow tray's fourteen cubes. The shadow is fitted from the arm and the board, and the tray counted.
    hand = Hand(entry_mm=(560.0, 700.0), tip_mm=(590.0, 250.0), skin=(214, 164, 128), sleeve=(40, 48, 70),
                height_mm=120.0)
    layout, frame, truth = _render_with_the_light(rendered, "cool", 5, 190.0, 40.0, hand)
    assert "reserve-yellow" not in truth["partly_hidden"]
    reading = Reader(layout).read(frame)
    assert reading.counts["reserve-yellow"].count == truth["counts"]["reserve-yellow"] == 14
    got = {z: reading.counts[z].count for z in truth["counts"]}
    assert all(got[z] in (None, want) for z, want in truth["counts"].items()), (got, truth["counts"])


@pytest.mark.parametrize("light, seed, azimuth, elevation, tip, entry, skin, sleeve, height", [
    ("daylight", 3, 142.0, 40.0, (561.0, 187.0), (556.0, 700.0), (120, 82, 58), (40, 48, 70), 137.0),
    ("warm", 8, 199.0, 42.0, (599.0, 355.0), (439.0, 700.0), (236, 198, 170), None, 150.0),
])
def test_a_shadow_the_board_around_a_tray_barely_shows_is_not_counted_short(rendered, light, seed, azimuth,
                                                                              elevation, tip, entry, skin, sleeve,
                                                                              height):
    # The shadow darkens only a little of the board around the tray (so the tray did not look shadowed)
    # but half its pile: the tops in it were taken for sides and the pile counted one short.
    hand = Hand(entry_mm=entry, tip_mm=tip, skin=skin, sleeve=sleeve, height_mm=height)
    layout, frame, truth = _render_with_the_light(rendered, light, seed, azimuth, elevation, hand)
    reading = Reader(layout).read(frame)
    got = {z: reading.counts[z].count for z in truth["counts"]}
    assert all(got[z] in (None, want) for z, want in truth["counts"].items()), (got, truth["counts"])


@pytest.mark.parametrize("light, seed, azimuth, elevation, tip, entry, skin, height", [
    # Only the fingertips are on the board: the arm's shadow is cast from off it, at an angle the mask
    # carried straight past the edge does not have.
    ("warm", 152, 141.41490278660692, 57.72447934430761, (559.5516732562332, 518.9800388721484),
     (686.0982647821409, 700.0), (236, 198, 170), 148.02991258307287),
    # The arm crosses the board; its shadow reaches the blue tray further than the fit puts it.
    ("cool", 113, 80.3, 42.1, (788.8, 246.2), (490.8, 700.0), (214, 164, 128), 154.7),
])
def test_a_shadow_the_fit_does_not_place_does_not_relight_a_tray(rendered, light, seed, azimuth, elevation, tip,
                                                                   entry, skin, height):
    hand = Hand(entry_mm=entry, tip_mm=tip, skin=skin, sleeve=None, height_mm=height)
    layout, frame, truth = _render_with_the_light(rendered, light, seed, azimuth, elevation, hand)
    reading = Reader(layout).read(frame)
    got = {z: reading.counts[z].count for z in truth["counts"]}
    assert all(got[z] in (None, want) for z, want in truth["counts"].items()), (got, truth["counts"])
