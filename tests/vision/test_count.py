"""Counting reserve piles: cubes one by one, touching, big piles under dim light."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.layout import load_layout
from vision.count import peel
from vision.pieces import piece_shapes
from vision.read import Reader
from vision.render import Conditions, Pose, _pile, lighting_preset, render_frame


def _squares(cells, side=17, seam=0.0, rng=None):
    """A topness map with a ``side`` px square per (row, col) cell, touching; ``seam``: how dark the line
    between two touching squares is (0: none at all)."""
    img = np.zeros((6 * side + 20, 8 * side + 20), np.float32)
    for r, c in cells:
        y, x = 10 + r * side, 10 + c * side
        img[y:y + side, x:x + side] = 1.0
        if seam:
            img[y, x:x + side] = img[y:y + side, x] = 1 - seam
    if rng is not None:
        img = np.clip(img + rng.normal(0, 0.15, img.shape), 0, 1).astype(np.float32)
    return img


def test_touching_squares_with_no_seam_between_them_count_one_by_one():
    block = [(r, c) for r in range(3) for c in range(6)]  # 18 squares as one blob
    assert len(peel(_squares(block), 17, 2)) == 18
    ragged = [*block[:-1], (3, 0), (3, 1)]  # an L-shaped edge, 19 squares
    assert len(peel(_squares(ragged, seam=0.3, rng=np.random.default_rng(1)), 17, 2)) == 19
    assert peel(np.zeros((40, 40), np.float32), 17, 2) == []


def test_the_renderer_never_stands_two_cubes_in_one_place():
    layout = load_layout("alchimiste")
    zone, shapes = layout.zone("reserve-blue"), piece_shapes(layout)
    for seed in range(400):
        cubes = _pile(zone, {"blue": 18}, shapes, {"blue": (1.0, 0.4, 0.2)}, Conditions(placement_seed=seed))
        centres = np.array([p.center for p in cubes])
        gaps = np.linalg.norm(centres[:, None] - centres[None], axis=-1) + 99 * np.eye(len(centres))
        assert gaps.min() > 15, seed


# Trays of the evaluation sets (`render --layout alchimiste,alchymia,chaudron --seed S`) once counted wrong,
# replayed from the random generator's state at them: (lighting, state, tray).
EVALUATION_TRAYS = {
    # Seed 2026, frame 396: fifteen grey cubes with a run of tops one piece wide between two parts of the
    # pile. The first squares along the run sat half a top off the tops' grid, and left half a top at each
    # end of it, which no square could take: counted 14.
    "a run between two parts of a pile": ("warm", (95767653387399915758277320111997683871,
                                                   253583831573602660626028118101560951819, 1, 3841647272),
                                          "reserve-grey"),
    # Seed 9191, frame 480 (the same, sixteen grey cubes): counted 15.
    "a run under a column": ("warm", (134125012305357574435539520923922051198,
                                      21976972981223717771121867495305190143, 0, 429789078), "reserve-grey"),
    # Seed 2026, frame 366: seventeen grey cubes in dim light, a column of five tops off the grid by half a
    # top: counted 16.
    "a column in dim light": ("dim", (212384575337274389182230278081433432814,
                                      253583831573602660626028118101560951819, 0, 2406508871), "reserve-grey"),
    # Seed 31337, frame 42: eighteen grey cubes in dim light, counted right by their squares, but the lit
    # tops' area 1.8 pieces short (their outline loses pixels in the noise): uncountable.
    "a big pile's area": ("dim", (223167857129921776763830818665813131230,
                                  154037830374290453493919786809450178471, 1, 4192015884), "reserve-grey"),
    # Seed 9191, frame 6: the same with seventeen (area 1.8 short).
    "a big pile's area again": ("dim", (93463887569407887945086035252214131612,
                                        21976972981223717771121867495305190143, 1, 3240407779), "reserve-grey"),
    # Seed 777, frame 177: ten grey cubes along the tray's top edge in daylight from low down shade the ring
    # of board beside the tray, as an arm's shadow would: uncountable, waiting for a shadow to pass.
    "a pile's own shadow beside the tray": ("daylight", (339707353767566164944718914023773606683,
                                                         225602981554823962289316896657083664657, 1, 221138152),
                                            "reserve-grey"),
    # Seed 2026, frame 93: one yellow cube in daylight. Its lit side, evenly lit, outnumbered its top in the
    # brightness histogram bin by bin; taken for the top, it made the blob a top and a half: counted 2.
    "a lone cube's lit side": ("daylight", (66978506378289240820964283907426968250,
                                            253583831573602660626028118101560951819, 1, 2719840456),
                               "reserve-yellow"),
}


@pytest.mark.parametrize("case", list(EVALUATION_TRAYS))
def test_evaluation_trays_once_counted_wrong(replayed, case):
    light, state, tray = EVALUATION_TRAYS[case]
    layout, frame, truth = replayed("alchimiste", light, state)
    counts = Reader(layout).read(frame).counts
    got = {z: c.count for z, c in counts.items()}
    assert got[tray] == truth["counts"][tray]
    assert got == truth["counts"]
    # the referee's reader (a cube on another answered "spread the pile") counts it right or asks
    asked = Reader(layout, spread_stacked=True).read(frame).counts[tray]
    assert asked.count == truth["counts"][tray] or (asked.count is None and asked.reason.startswith("spread the"))


def test_a_big_pile_within_the_area_allowance_is_not_reported_unsure(replayed):
    # Seed 31337, frame 42: eighteen grey cubes, the area 1.8 pieces short, within the 12 % a pile of 18 may be.
    # Its confidence was taken against the 1.5 pieces of a small pile (0.4): a stabiliser asking for 0.5 would
    # have dropped a count it was right to make.
    _light, state, tray = EVALUATION_TRAYS["a big pile's area"]
    layout, frame, truth = replayed("alchimiste", "dim", state)
    count = Reader(layout).read(frame).counts[tray]
    assert count.count == truth["counts"][tray] == 18
    assert abs(count.pieces_area - 18) > 1.5
    assert count.confidence >= 0.5


@pytest.mark.parametrize("seed", [3, 8])
def test_piles_of_seventeen_and_eighteen_count_exactly_under_dim_light(seed):
    layout = load_layout("alchimiste")
    state = {"counts": {"reserve-grey": 17, "reserve-blue": 18, "reserve-orange": 17, "reserve-yellow": 18,
                        "reserve-green": 17}}
    conditions = Conditions(pose=Pose(tilt_deg=6, tilt_towards_deg=40 * seed, yaw_deg=4 - seed, k1=-0.06),
                            lighting=lighting_preset("dim", np.random.default_rng(seed)), placement_seed=seed,
                            noise=4.5)
    frame, truth = render_frame(layout, state, conditions, np.random.default_rng(seed))
    got = {z: c.count for z, c in Reader(layout).read(frame).counts.items()}
    # (seed 8's green pile is now asked to be spread: one of its cubes shows a side 12 px long among sides of
    # about 5 in the noise, taken for a cube on another; never a wrong count)
    assert all(got[z] in (n, None) for z, n in truth["counts"].items()), got
    assert sum(got[z] == n for z, n in truth["counts"].items()) >= 4
