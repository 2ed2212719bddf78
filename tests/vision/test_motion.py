"""The motion measure the stabiliser gates on."""

from __future__ import annotations

import numpy as np

from vision.motion import motion_score


def test_still_frames_score_zero_and_a_moving_hand_scores_high():
    rng = np.random.default_rng(0)
    frame = rng.integers(0, 255, (960, 1280, 3), dtype=np.uint8)
    noisy = np.clip(frame.astype(int) + rng.normal(0, 3, frame.shape), 0, 255).astype(np.uint8)
    assert motion_score(frame, noisy) < 0.01
    moved = frame.copy()
    moved[200:600, 300:700] = (180, 150, 120)  # a hand came in
    assert motion_score(frame, moved) > 0.05


def test_a_global_change_of_light_is_not_motion():
    frame = np.full((960, 1280, 3), 120, np.uint8)
    frame[::40] = 200
    brighter = np.clip(frame.astype(int) + 25, 0, 255).astype(np.uint8)
    assert motion_score(frame, brighter) < 0.01
