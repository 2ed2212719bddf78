"""The renderer: frames of the right size, truth that follows the state, hands that hide zones."""

from __future__ import annotations

import json

import numpy as np
import pytest

from calibration.layout import load_layout
from vision.render import (
    Conditions,
    StateError,
    calibration_state,
    parse_state,
    random_hand,
    random_state,
    render_frame,
)


def test_frame_size_and_truth_follow_the_state():
    layout = load_layout("chaudron")
    state = {"zones": {"r0c0": "bone", "r5c5": "burnt"}}
    frame, truth = render_frame(layout, state, Conditions(), np.random.default_rng(0))
    assert frame.shape == (960, 1280, 3) and frame.dtype == np.uint8
    assert truth["zones"]["r0c0"] == "bone" and truth["zones"]["r5c5"] == "burnt"
    assert truth["zones"]["r2c2"] == "empty"
    assert sorted(truth["markers_visible"]) == [10, 11, 12, 13]
    json.dumps(truth)  # plain data


def test_same_seed_same_frame_and_pieces_stay_put_between_frames():
    layout = load_layout("alchymia")
    state = random_state(layout, np.random.default_rng(3))
    a, _ = render_frame(layout, state, Conditions(noise=0), np.random.default_rng(1))
    b, _ = render_frame(layout, state, Conditions(noise=0), np.random.default_rng(2))
    assert np.array_equal(a, b)  # placement comes from the conditions, not from the noise generator


def test_a_hand_hides_zones_in_the_truth():
    layout = load_layout("chaudron")
    hand = random_hand(layout, np.random.default_rng(0))
    hand = type(hand)(entry_mm=(-120, 120), tip_mm=(120, 120))
    _, truth = render_frame(layout, random_state(layout, np.random.default_rng(0)), Conditions(hand=hand),
                            np.random.default_rng(0))
    hidden = {z for z, label in truth["zones"].items() if label == "unknown"}
    assert "r2c0" in hidden and "r2c1" in hidden  # on the hand's path from the left edge
    assert "r5c5" not in hidden and "r0c5" not in hidden


def test_calibration_state_follows_the_layout_table():
    layout = load_layout("alchimiste")
    state = calibration_state(layout)
    assert state["zones"]["cauldron-1.ingredient-2"] == "blue"
    assert state["counts"]["reserve-green"] == {"green": 3}


@pytest.mark.parametrize(("state", "message"), [
    ({"zones": {"r9c9": "bone"}}, "zones.r9c9: no such slot zone"),
    ({"zones": {"r0c0": "gold"}}, "zones.r0c0: unknown label 'gold'"),
    ({"colour": 1}, "colour: unknown key"),
])
def test_bad_states_say_what_is_wrong(state, message):
    with pytest.raises(StateError, match=message):
        parse_state(state, load_layout("chaudron"), "s.json")
