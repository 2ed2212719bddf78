"""Reading rendered frames: every default layout under every lighting, counts, hands, foreign objects."""

from __future__ import annotations

import numpy as np
import pytest

from calibration.layout import load_layout
from vision.read import Reader
from vision.render import LIGHTINGS, Conditions, Hand, Pose, lighting_preset, render_frame


def _check(reading, truth):
    assert reading.board_found
    wrong = {z: (truth["zones"][z], reading.zones[z].label) for z in truth["zones"]
             if reading.zones[z].label != truth["zones"][z]
             and not (z in truth["partly_hidden"] and reading.zones[z].label == "unknown")}
    assert wrong == {}
    return reading


@pytest.mark.parametrize("light", LIGHTINGS)
# Alchemists' places are card zones, read against enrolled cards (vision/cards and its tests), not colours.
@pytest.mark.parametrize("name", ["alchimiste", "alchymia", "chaudron"])
def test_every_layout_reads_right_under_every_lighting(rendered, name, light):
    layout, frame, truth = rendered(name, light, LIGHTINGS.index(light))
    reading = _check(Reader(layout).read(frame), truth)
    for zid, want in truth["counts"].items():
        # (null: asked to be spread, vision/stacked.py; alchimiste-daylight's grey pile of 10 since)
        assert reading.counts[zid].count is None or abs(reading.counts[zid].count - want) <= 1, zid


def test_reserve_counts_touching_cubes(rendered):
    layout, frame, truth = rendered("alchimiste", "daylight", 5)
    reading = Reader(layout).read(frame)
    got = {z: c.count for z, c in reading.counts.items()}
    exact = sum(got[z] == n for z, n in truth["counts"].items())
    assert exact >= 4, (got, truth["counts"])
    assert any(n >= 8 for n in truth["counts"].values())  # piles, not just single cubes


def test_zones_under_a_hand_are_unknown_never_a_confident_label(rendered):
    hand = Hand(entry_mm=(-120.0, 150.0), tip_mm=(120.0, 110.0), skin=(214, 164, 128), sleeve=(40, 48, 70))
    layout, frame, truth = rendered("chaudron", "warm", 1, hand=hand)
    hidden = [z for z, label in truth["zones"].items() if label == "unknown"]
    assert len(hidden) >= 4
    reading = Reader(layout).read(frame)
    assert all(reading.zones[z].label == "unknown" for z in hidden)
    # Elsewhere: the right label, or "unknown" near the hand (unread, the stabiliser waits), never a wrong one.
    wrong = {z: (want, reading.zones[z].label) for z, want in truth["zones"].items()
             if reading.zones[z].label not in (want, "unknown")}
    assert wrong == {}
    unread = [z for z, want in truth["zones"].items() if want != "unknown" and reading.zones[z].label == "unknown"
              and z not in truth["partly_hidden"]]
    assert len(unread) <= 3, unread


def test_a_foreign_object_reads_unknown(rendered):
    layout, frame, truth = rendered("alchymia", "cool", 2, foreign=("r1c1",))
    assert truth["zones"]["r1c1"] == "unknown"
    reading = _check(Reader(layout).read(frame), truth)
    assert reading.zones["r1c1"].label == "unknown"


def test_reading_json_is_the_design_shape(rendered):
    layout, frame, _ = rendered("chaudron", "daylight", 3)
    out = Reader(layout).read(frame).to_dict()
    assert list(out) == ["layout", "board_found", "homography", "zones", "counts"]
    assert np.array(out["homography"]).shape == (3, 3)
    assert set(out["zones"]["r0c0"]) == {"label", "confidence"}
    assert 0 <= out["zones"]["r0c0"]["confidence"] <= 1


def test_dim_chaudron_reads_its_empty_cells_as_empty_not_bone(rendered):
    # Bone cubes are light, low-chroma: in dim light their shaded sides look like the board. Only a lit top
    # shows a piece, so an empty beige cell stays empty however noisy the frame.
    layout, frame, truth = rendered("chaudron", "dim", 4, noise=5.0)
    empty = [z for z, label in truth["zones"].items() if label == "empty"]
    assert len(empty) >= 12
    reading = _check(Reader(layout).read(frame), truth)
    assert all(reading.zones[z].label == "empty" for z in empty)
    assert any(label == "bone" for label in truth["zones"].values())


# Frames of the evaluation sets (`render --layout alchimiste,alchymia,chaudron --seed S`) that once read a
# place wrong, replayed from the random generator's state at them: (layout, lighting, state, place, label).
EVALUATION_FRAMES = {
    # Seed 31337, frame 59: a bone cube's lit top seen a little dimmer than its colour comes near the board
    # in a glare, so no single cell of it shows the cube; a whole top of such cells does. Counted as no
    # evidence at all, the place read "empty" with full confidence.
    "dim bone top": ("chaudron", "daylight", (219423446655409492994252852917157994261,
                                              154037830374290453493919786809450178471, 1, 3003564816),
                     "r5c3", "bone"),
    # Seed 2026, frame 66: dim light from low down, an orange cube among cubes whose shadows cover the board
    # around it. Read in the light of that shadow (its colours raised by half), its lit top looked yellow;
    # read as lit as well, the surer reading stands.
    "neighbours' shadows": ("alchimiste", "dim", (315834384856569215826938202349893943224,
                                                  253583831573602660626028118101560951819, 0, 3292170888),
                            "cauldron-5.ingredient-4", "orange"),
    # Seed 4242, frame 162: a purple seal in dim light. Half its cells are as dark as a pink seal's shaded
    # ones and voted pink; only purple shows a lit top.
    "purple seal": ("alchimiste", "dim", (28704075100594452013022869707433236298,
                                          216271877656180965791076501620498529857, 0, 3153446901),
                    "track-37", "seal-purple"),
    # Seed 777, frame 266: in warm light beside a hand, a few cells of an empty place had a bone cube's
    # colour, enough for the smallest piece a Chaudron place holds (a stone) but not for a cube, which shows
    # more of its colour. It read "bone".
    "pale cells by a hand": ("chaudron", "warm", (82010980345350518885905798960406932603,
                                                  225602981554823962289316896657083664657, 1, 887464030),
                             "r1c4", "empty"),
}


@pytest.mark.parametrize("case", list(EVALUATION_FRAMES))
def test_evaluation_frames_that_once_read_a_place_wrong(replayed, case):
    name, light, state, place, label = EVALUATION_FRAMES[case]
    layout, frame, truth = replayed(name, light, state)
    assert truth["zones"][place] == label
    reading = Reader(layout).read(frame)
    assert reading.zones[place].label == label
    partly = set(truth["partly_hidden"])
    assert all(reading.zones[z].label == want or (z in partly and reading.zones[z].label == "unknown")
               for z, want in truth["zones"].items())


def test_a_pile_of_eighteen_touching_cubes_counts_eighteen():
    layout = load_layout("alchimiste")
    state = {"counts": {"reserve-blue": 18, "reserve-orange": 17, "reserve-green": 1}}
    rng = np.random.default_rng(5)
    conditions = Conditions(pose=Pose(tilt_deg=5, tilt_towards_deg=60, yaw_deg=-2, k1=-0.08),
                            lighting=lighting_preset("warm"), placement_seed=11)
    frame, truth = render_frame(layout, state, conditions, rng)
    reading = Reader(layout).read(frame)
    got = {z: c.count for z, c in reading.counts.items()}
    assert got == truth["counts"] == {"reserve-grey": 0, "reserve-blue": 18, "reserve-orange": 17,
                                      "reserve-yellow": 0, "reserve-green": 1}


def test_one_calibration_keeps_big_piles_exact():
    # Three cubes a tray measure one cube's top only to a few percent: the calibration must not let that
    # throw a pile of 18 off.
    from vision.learn import learn_colours
    from vision.render.dataset import calibration_frame

    layout = load_layout("alchimiste")
    cal_frame, _ = calibration_frame(layout, seed=3)
    calibration = learn_colours(cal_frame, layout)
    assert set(calibration.colours) >= {"grey", "blue", "orange", "yellow", "green"}
    state = {"counts": {"reserve-blue": 18, "reserve-orange": 17, "reserve-green": 1}}
    conditions = Conditions(pose=Pose(tilt_deg=5, tilt_towards_deg=60, yaw_deg=-2, k1=-0.08),
                            lighting=lighting_preset("dim"), placement_seed=11, noise=4)
    frame, truth = render_frame(layout, state, conditions, np.random.default_rng(5))
    got = {z: c.count for z, c in Reader(layout, calibration).read(frame).counts.items()}
    assert got == truth["counts"]
