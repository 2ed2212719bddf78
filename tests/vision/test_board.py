"""The enrolled empty board (``calibrate board``) and the reader that compares every frame with it: the
command and its errors, the calibration file's round trip, and readings of rendered tables (plain and
illustrated boards, the randomised renderer) against their truth on seeds never looked at while developing."""

from __future__ import annotations

import dataclasses
import json

import cv2
import numpy as np
import pytest

from assistant.cli import main
from calibration.layout import load_layout
from calibration.store import load_calibration, merge_into
from vision.board import BoardEnrolError, enrol_board
from vision.board_read import COVERED, PAPER_LEVEL, _plain_ratio
from vision.colour import bgr_to_lab, rgb_to_lab
from vision.learn import learn_colours
from vision.read import Reader
from vision.reading import ZoneReading
from vision.render import empty_state
from vision.render.artwork import BOARD_COLOURS
from vision.render.state import calibration_state, random_state
from vision.render.table import random_table, table_frame

# Seeds drawn for these tests and never used while developing the reader (development used tables of seeds
# 1 and 11); the frames are read as the README's commands read them.
TABLE_SEEDS = {"plain": 4101, "illustrated": 4102}
WRONG_AT_MOST = {"plain": 0.02, "illustrated": 0.05}
LIGHTS = ("warm", "cool", "dim", "daylight", "mixed")


@pytest.fixture(scope="module")
def tables():
    """board kind -> (layout, empty board, calibration frame, [(frame, truth)] under the five lightings)."""
    layout = load_layout("chaudron")
    out = {}
    for kind, seed in TABLE_SEEDS.items():
        rng = np.random.default_rng(seed)
        table = random_table(layout, rng, kind)
        empty, _ = table_frame(table, layout, rng, table.calibration_lighting, state=empty_state(layout))
        calibration, _ = table_frame(table, layout, rng, table.calibration_lighting, state=calibration_state(layout))
        frames = [table_frame(table, layout, rng, light, hand=(i == 2)) for i, light in enumerate(LIGHTS)]
        out[kind] = (layout, empty, calibration, frames)
    return out


def _calibrated(layout, empty, calibration_frame, path):
    merge_into(path, layout.name, board=enrol_board(empty, layout))
    learnt = learn_colours(calibration_frame, layout, load_calibration(path, layout.name))
    merge_into(path, layout.name, colours=learnt.colours, top_area_mm2=learnt.top_area_mm2,
               tops_unlearnt=learnt.tops_unlearnt, pieces=learnt.pieces)
    return load_calibration(path, layout.name)


def _enrolled_table(name: str, kind: str, seed: int, tmp_path):
    """(layout, table, its generator, a reader) for a fresh table of ``seed``, its empty board enrolled and its
    calibration frame learnt as `calibrate board` and `calibrate colours` do."""
    layout = load_layout(name)
    rng = np.random.default_rng(seed)
    table = random_table(layout, rng, kind)
    empty, _ = table_frame(table, layout, rng, table.calibration_lighting, state=empty_state(layout))
    calibration, _ = table_frame(table, layout, rng, table.calibration_lighting, state=calibration_state(layout))
    return layout, table, rng, Reader(layout, _calibrated(layout, empty, calibration, tmp_path / f"{name}-{kind}.json"))


@pytest.mark.parametrize("kind", ["plain", "illustrated"])
def test_an_enrolled_board_is_read_right_under_every_light(tables, kind, tmp_path):
    layout, empty, calibration_frame, frames = tables[kind]
    cal = _calibrated(layout, empty, calibration_frame, tmp_path / "cal.json")
    assert cal.board is not None and set(cal.pieces) >= {"bone", "root", "fluid", "fire", "poison", "burnt"}
    reader = Reader(layout, cal)
    wrong, zones, confident_under_hand = [], 0, []
    for frame, truth in frames:
        reader.locator.invalidate()
        reading = reader.read(frame)
        assert reading.board_found
        for zid, want in truth["zones"].items():
            got = reading.zones[zid]
            zones += 1
            if want == "unknown":
                if got.label != "unknown" and got.confidence >= 0.5:
                    confident_under_hand.append((zid, got))
            elif got.label not in (want, "unknown") and zid not in truth.get("partly_hidden", []):
                wrong.append((truth["conditions"]["lighting"]["name"] if isinstance(
                    truth["conditions"]["lighting"], dict) else truth["conditions"]["lighting"], zid, want, got))
    # Measured on these seeds: 0 of 180 zones wrong (plain), 3 of 180 (illustrated; 6 before the learned place
    # model). On fresh tables of seed 2024 the reader without the enrolled board read 6 % (plain) and 21 %
    # (illustrated) of zones wrong.
    assert len(wrong) <= WRONG_AT_MOST[kind] * zones, wrong
    assert not confident_under_hand



# Fresh seeds drawn for this test (2026-11-26) and never used while developing: the larger layouts too.
OTHER_TABLES = (("alchimiste", "plain", 4111), ("alchimiste", "illustrated", 4112), ("alchymia", "plain", 4113),
                ("alchymia", "illustrated", 4114))


def test_the_other_layouts_enrolled_are_read_right_under_every_light(tmp_path):
    """A table of each kind of the Alchimiste and Alchymia layouts, calibrated as `calibrate board` and
    `calibrate colours` do, then read under the five lightings (a hand in the dim frame). Measured when written:
    0 zones wrong of 650, 650, 45 and 45; 307 of the 1 390 unread (a reader that read everything `unknown`
    would be wrong nowhere, so the share read is held too)."""
    unread = zones = 0
    for name, kind, seed in OTHER_TABLES:
        layout, table, rng, reader = _enrolled_table(name, kind, seed, tmp_path)
        wrong, confident_under_hand = [], []
        for i, light in enumerate(LIGHTS):
            frame, truth = table_frame(table, layout, rng, light, hand=(i == 2))
            reader.locator.invalidate()
            reading = reader.read(frame)
            assert reading.board_found, (name, kind, light)
            for zid, want in truth["zones"].items():
                got = reading.zones[zid]
                zones += 1
                if want == "unknown":
                    if got.label != "unknown" and got.confidence >= 0.5:
                        confident_under_hand.append((light, zid, got))
                elif got.label == "unknown":
                    unread += 1
                elif got.label != want and zid not in truth.get("partly_hidden", []):
                    wrong.append((light, zid, want, got))
        assert not wrong, (name, kind, wrong)
        assert not confident_under_hand, (name, kind, confident_under_hand)
    assert unread <= 0.35 * zones, (unread, zones)

def test_the_board_round_trips_through_the_calibration_file(tables, tmp_path):
    layout, empty, _, _ = tables["illustrated"]
    board = enrol_board(empty, layout)
    merge_into(tmp_path / "cal.json", layout.name, board=board)
    again = load_calibration(tmp_path / "cal.json", layout.name).board
    assert again.px_per_mm == board.px_per_mm and np.array_equal(again.image, board.image)


def test_calibrate_board_command(tables, tmp_path, capsys):
    _, empty, calibration_frame, frames = tables["illustrated"]
    for name, image in (("empty.png", empty), ("cal.png", calibration_frame), ("frame.png", frames[0][0])):
        cv2.imwrite(str(tmp_path / name), image)
    cal = tmp_path / "cal.json"
    # Read before the board is enrolled, the user is told once, on stderr (stdout keeps its one JSON object).
    assert main(["read", str(tmp_path / "frame.png"), "--layout", "chaudron", "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["board_found"]
    assert err.count("no empty board enrolled") == 1 and "calibrate board EMPTY.png --layout chaudron" in err
    assert main(["calibrate", "board", str(tmp_path / "empty.png"), "--layout", "chaudron", "--out", str(cal)]) == 0
    assert "empty board enrolled" in capsys.readouterr().out
    assert main(["calibrate", "colours", str(tmp_path / "cal.png"), "--layout", "chaudron", "--out", str(cal)]) == 0
    assert "against the enrolled board" in capsys.readouterr().out
    assert main(["read", str(tmp_path / "frame.png"), "--layout", "chaudron", "--calibration", str(cal),
                 "--json"]) == 0
    out, err = capsys.readouterr()
    assert "no empty board enrolled" not in err
    reading = json.loads(out)
    truth = frames[0][1]["zones"]
    right = sum(reading["zones"][z]["label"] == want for z, want in truth.items())
    wrong = [z for z, want in truth.items() if reading["zones"][z]["label"] not in (want, "unknown")]
    assert not wrong and right >= 0.8 * len(truth)  # (measured: 32 of 36 right, the others unknown)


def test_a_board_enrolled_overexposed_is_warned_of_and_read_without_a_wrong_place(tmp_path, capsys):
    """A table whose empty board the renderer drew under a lamp that saturates a third of it (test seed 4202,
    Chaudron, plain): `calibrate board` says so (dimming the lamp and enrolling again is the remedy), and the
    frames are still read without a wrong place. (Measured when written: 57 of 180 places unread under the five
    lights, against 0 to 2 on tables enrolled in even light.)"""
    layout = load_layout("chaudron")
    rng = np.random.default_rng(4202)
    table = random_table(layout, rng, "plain")
    empty, _ = table_frame(table, layout, rng, table.calibration_lighting, state=empty_state(layout))
    calibration, _ = table_frame(table, layout, rng, table.calibration_lighting, state=calibration_state(layout))
    cv2.imwrite(str(tmp_path / "empty.png"), empty)
    cal = tmp_path / "cal.json"
    assert main(["calibrate", "board", str(tmp_path / "empty.png"), "--layout", "chaudron", "--out", str(cal)]) == 0
    assert "of the board is overexposed in this photo" in capsys.readouterr().out
    learnt = learn_colours(calibration, layout, load_calibration(cal, layout.name))
    merge_into(cal, layout.name, colours=learnt.colours, top_area_mm2=learnt.top_area_mm2,
               tops_unlearnt=learnt.tops_unlearnt, pieces=learnt.pieces)
    reader = Reader(layout, load_calibration(cal, layout.name))
    wrong = []
    for light in LIGHTS:
        frame, truth = table_frame(table, layout, rng, light)
        reader.locator.invalidate()
        reading = reader.read(frame)
        wrong += [(light, zid, want, reading.zones[zid].label) for zid, want in truth["zones"].items()
                  if reading.zones[zid].label not in (want, "unknown")]
    assert not wrong


def test_pieces_set_down_off_their_calibration_places_are_learnt_in_their_own_colours(tmp_path):
    """Players set the calibration frame's pieces down far off their places (test seeds 4247-4250, pieces off
    by up to nine tenths of half a slot): a piece lies partly beyond its place and its neighbour's spills into
    it. Each piece is learnt in its own colour all the same: within 30 ΔE of the colour it was drawn in (measured
    when written: 24 at most; before, five of these pieces further, up to 83, and on the dev tables of seeds
    19732-19735 a black disc as pale as the bone cube beside it, a yellow cube as the board beside its place)."""
    off = []
    for seed, name, kind in ((4247, "chaudron", "plain"), (4248, "alchimiste", "illustrated"),
                             (4249, "chaudron", "illustrated"), (4250, "alchimiste", "plain")):
        layout = load_layout(name)
        rng = np.random.default_rng(seed)
        table = dataclasses.replace(random_table(layout, rng, kind), set_down=0.9)
        empty, _ = table_frame(table, layout, rng, table.calibration_lighting, state=empty_state(layout))
        calibration, _ = table_frame(table, layout, rng, table.calibration_lighting,
                                     state=calibration_state(layout))
        cal = _calibrated(layout, empty, calibration, tmp_path / f"{seed}.json")
        for label, piece in cal.pieces.items():
            drawn = bgr_to_lab(np.array([[table.pieces.colours[label][::-1]]], np.float32) / 255.0)[0, 0]
            off.append((round(float(np.linalg.norm(np.array(piece.lab) - drawn)), 1), seed, label))
    assert len(off) > 30 and max(off)[0] <= 30, sorted(off)[-5:]


def test_a_calibration_piece_is_the_part_of_its_place_in_its_own_colour_and_a_clipped_top_tells_none():
    """What differs within a calibration place's reach: a small cyan gem (a tenth of it), the pale bone cube
    beside it spilling over (most of it) and the gem's darker sides. The gem is learnt in its own colour, not the
    bone's (a median of everything, or of its brighter half, is the bone); and a gem whose lit top is at the
    sensor's ceiling tells no colour (NaN: the layout's stands in)."""
    from vision.board_read import learnt_top

    rng = np.random.default_rng(4251)
    gem, sides, bone = (np.array(c, float) for c in ((75.0, -30.0, -20.0), (45.0, -22.0, -15.0), (88.0, 3.0, 15.0)))
    lab = np.concatenate([gem + rng.normal(0, 2, (40, 3)), sides + rng.normal(0, 2, (40, 3)),
                          bone + rng.normal(0, 2, (320, 3))])
    brightness = np.concatenate([np.full(40, 0.0), np.full(40, -0.5), np.full(320, 0.1)])
    declared = np.array([70.0, -35.0, -25.0])  # the layout's cyan, not quite the gem's
    clipped = np.zeros(len(lab), bool)
    learnt = learnt_top(lab, brightness, declared, clipped)
    assert np.linalg.norm(learnt - gem) < 4 and np.linalg.norm(np.median(lab, axis=0) - bone) < 4
    clipped[:40] = True  # the gem's lit top at the ceiling
    assert np.isnan(learnt_top(lab, brightness, declared, clipped)).all()


# A wide lens over the large mat (the pose of fresh seed 19545's t013, k1 -0.237 of the focal length).
WIDE_LENS = {"height_mm": 586, "target_mm": (423, 278), "tilt_deg": 0.9, "tilt_towards_deg": 106, "yaw_deg": -42.6,
             "fill": 0.67, "k1": -0.237, "k2": 0.026}


def _wide_lens_frames(seed: int, *states):
    """(layout, frames of ``states`` in turn, then a frame of a random state with its truth) under WIDE_LENS."""
    from tests.vision.conftest import mild
    from vision.render import Pose, render_frame

    layout = load_layout("alchimiste")
    rng = np.random.default_rng(seed)
    conditions = mild("daylight", 3, pose=Pose(**WIDE_LENS))
    frames = [render_frame(layout, state(layout), conditions, rng)[0] for state in states]
    return layout, frames, render_frame(layout, random_state(layout, rng), conditions, rng)


def _read_with_two_markers_under_a_sleeve(layout, calibration, frame, truth):
    """The frame read with two of its markers covered (three left: too few to estimate a lens): its wrong places
    and how many it left unread."""
    from vision.locate import detect_markers

    frame = frame.copy()
    markers = detect_markers(frame)
    for mid in sorted(markers)[:2]:
        corners = np.asarray(markers[mid]).reshape(-1, 2)
        (x0, y0), (x1, y1) = corners.min(axis=0).astype(int) - 6, corners.max(axis=0).astype(int) + 6
        frame[y0:y1, x0:x1] = (60, 50, 40)
    assert len(detect_markers(frame)) <= 3
    reading = Reader(layout, calibration).read(frame)
    assert reading.board_found
    wrong = [(z, want, reading.zones[z].label) for z, want in truth["zones"].items()
             if reading.zones[z].label not in (want, "unknown")]
    return wrong, sum(reading.zones[z].label == "unknown" for z in truth["zones"])


def test_the_lens_estimated_at_enrolment_holds_for_frames_that_show_fewer_markers(tmp_path):
    """Under the wide lens (pieces of test seed 4203) the empty board shows five markers, enough to estimate the
    lens, which `calibrate board` keeps. A frame whose two markers lie under a sleeve shows three, too few to
    estimate it again. Measured when written: 0 of 130 places wrong through the enrolment's lens, 12 wrong when
    each frame had only its own markers to go by."""
    layout, (empty, calibration), (frame, truth) = _wide_lens_frames(4203, empty_state, calibration_state)
    cal = _calibrated(layout, empty, calibration, tmp_path / "cal.json")
    assert cal.camera is None and cal.board.lens is not None  # (estimated, and stored with the board)
    wrong, unread = _read_with_two_markers_under_a_sleeve(layout, cal, frame, truth)
    assert not wrong and unread <= 0.1 * len(truth["zones"]), (wrong, unread)


# A wide lens low over the large mat, its left markers lost in the dark of its rim (the pose of dev seed
# 19734's t006: k1 -0.249 of the focal length).
RIM_LENS = {"height_mm": 557, "target_mm": (446, 264), "tilt_deg": 2.8, "tilt_towards_deg": 159.4, "yaw_deg": -39.7,
            "fill": 0.82, "k1": -0.249, "k2": -0.026}


def test_four_markers_bent_by_a_wide_lens_tell_the_lens(tmp_path, capsys):
    """The empty board shows four markers (its two left ones lie in the dark rim), too few to estimate the lens
    from as a rule, and no plain homography fits them within its tolerance: before, `calibrate board` refused
    the board ("only 2 of the 6 markers show clearly"), and dev seed 19734's t006, read without it, had 62 of
    520 places wrong. The lens under which one homography fits all four is taken: the board enrols, with a
    warning that two markers were not in view, and the places the markers seen surround read right (test seed
    4246). Beyond them the lens is extrapolated, and a place may be read where its neighbour lies (here the
    corner place of the track held its neighbour's seal): the warning says so."""
    from tests.vision.conftest import mild
    from vision.render import Pose, render_frame

    layout = load_layout("alchimiste")
    rng = np.random.default_rng(4246)
    conditions = mild("daylight", 0, pose=Pose(**RIM_LENS))
    empty, calibration = (render_frame(layout, state(layout), conditions, rng)[0]
                          for state in (empty_state, calibration_state))
    frame, truth = render_frame(layout, random_state(layout, rng), conditions, rng)
    assert sorted(Reader(layout).locator.locate(empty).markers) == [1, 2, 4, 5]
    cv2.imwrite(str(tmp_path / "empty.png"), empty)
    assert main(["calibrate", "board", str(tmp_path / "empty.png"), "--layout", "alchimiste",
                 "--out", str(tmp_path / "cal.json")]) == 0
    assert "markers 0, 3 of the 6 not in view" in capsys.readouterr().out
    learnt = learn_colours(calibration, layout, load_calibration(tmp_path / "cal.json", layout.name))
    merge_into(tmp_path / "cal.json", layout.name, colours=learnt.colours, top_area_mm2=learnt.top_area_mm2,
               tops_unlearnt=learnt.tops_unlearnt, pieces=learnt.pieces)
    cal = load_calibration(tmp_path / "cal.json", layout.name)
    assert cal.board.lens is not None
    reading = Reader(layout, cal).read(frame)
    seen_from = min(m.corners()[0][0] for m in layout.markers if m.id in (1, 4))
    surrounded = [z.id for z in layout.zones if z.kind == "slot" and z.bounds[0] >= seen_from]
    wrong = [(z, truth["zones"][z], reading.zones[z].label) for z in surrounded
             if reading.zones[z].label not in (truth["zones"][z], "unknown")]
    unread = sum(reading.zones[z].label == "unknown" for z in surrounded)
    assert len(surrounded) > 40 and not wrong and unread <= 0.1 * len(surrounded), (wrong, unread)
    # The annotated picture (`read --annotate`) outlines each place where the lens puts it on the frame, not where
    # the homography alone would (tens of pixels off at the board's far side).
    from vision.annotate import annotate

    drawn = np.any(annotate(frame, layout, reading) != frame, axis=2)
    places = [z for z in layout.zones if z.kind == "slot"]

    def outlined(points):
        xy = np.rint(points).astype(int)
        inside = (xy[:, 0] >= 0) & (xy[:, 0] < frame.shape[1]) & (xy[:, 1] >= 0) & (xy[:, 1] < frame.shape[0])
        return drawn[xy[inside, 1], xy[inside, 0]].mean()

    corners = np.array([[z.bounds[0], z.bounds[1]] for z in places], np.float64)
    ideal = cv2.perspectiveTransform(corners.reshape(-1, 1, 2), reading.homography).reshape(-1, 2)
    assert np.linalg.norm(reading.to_frame(corners) - ideal, axis=1).max() > 20
    assert outlined(reading.to_frame(corners)) > 0.9 > 0.5 > outlined(ideal)


def _markers_hidden(frame: np.ndarray, layout, homography, ids) -> np.ndarray:
    """``frame`` with the markers ``ids`` painted over in the board's colour beside them (out of sight)."""
    out = frame.copy()
    centre = np.array(layout.size, np.float64) / 2
    for m in layout.markers:
        if m.id not in ids:
            continue
        corners = np.array(m.corners(), np.float64)
        grown = (corners - m.center) * 1.6 + m.center
        inward = np.array(m.center) + 40 * (centre - m.center) / np.linalg.norm(centre - m.center)
        quad, beside = (cv2.perspectiveTransform(p.reshape(-1, 1, 2), np.asarray(homography)).reshape(-1, 2)
                        for p in (grown, inward.reshape(1, 2)))
        colour = out[int(beside[0, 1]), int(beside[0, 0])].tolist()
        cv2.fillConvexPoly(out, np.rint(quad).astype(np.int32), colour)
    return out


def test_places_and_trays_beyond_the_markers_the_board_was_enrolled_by_are_not_read(tmp_path, capsys):
    """The empty board and the calibration frame with the two right markers out of sight (test seed 4265, an
    ordinary lens: the four left fit one homography, so no lens is estimated). The enrolled image beyond them
    is the fit's extrapolation, which a strong lens puts a slot off (dev seed 19779's t012: 45 places read
    where their neighbours lay, in every frame): `calibrate board` warns, the markers seen are stored with the
    board, and the places and trays beyond them read unknown, the trays with the reason; the places the
    markers surround read as ever. Enrolled with every marker, nothing is left unread so."""
    from tests.vision.conftest import mild
    from vision.render import render_frame

    layout = load_layout("alchimiste")
    rng = np.random.default_rng(4265)
    conditions = mild("daylight", 1)
    (empty, empty_truth), (calibration, cal_truth) = (render_frame(layout, state(layout), conditions, rng)
                                                      for state in (empty_state, calibration_state))
    frame, truth = render_frame(layout, random_state(layout, rng), conditions, rng)
    cv2.imwrite(str(tmp_path / "empty.png"), _markers_hidden(empty, layout, empty_truth["homography"], (2, 5)))
    assert main(["calibrate", "board", str(tmp_path / "empty.png"), "--layout", "alchimiste",
                 "--out", str(tmp_path / "cal.json")]) == 0
    assert "markers 2, 5 of the 6 not in view" in capsys.readouterr().out
    hidden = _markers_hidden(calibration, layout, cal_truth["homography"], (2, 5))
    learnt = learn_colours(hidden, layout, load_calibration(tmp_path / "cal.json", layout.name))
    merge_into(tmp_path / "cal.json", layout.name, colours=learnt.colours, top_area_mm2=learnt.top_area_mm2,
               tops_unlearnt=learnt.tops_unlearnt, pieces=learnt.pieces)
    cal = load_calibration(tmp_path / "cal.json", layout.name)
    assert cal.board.lens is None and cal.board.markers == (0, 1, 3, 4)
    reading = Reader(layout, cal).read(frame)
    beyond = max(c[0] for m in layout.markers if m.id in (1, 4) for c in m.corners())
    places = [z for z in layout.zones if z.kind == "slot"]
    outside = [z.id for z in places if z.center[0] > beyond]
    inside = [z.id for z in places if z.center[0] < beyond - 10]
    assert len(outside) > 20 and all(reading.zones[z] == ZoneReading("unknown", 1.0) for z in outside)
    trays = [z.id for z in layout.zones if z.kind == "count"]
    assert trays and all(reading.counts[z].count is None and "markers 2, 5 of the 6 not in view" in
                         reading.counts[z].reason and "enrol again" in reading.counts[z].reason for z in trays)
    read = [z for z in inside if reading.zones[z].label != "unknown"]
    assert len(read) >= 0.8 * len(inside)
    assert all(reading.zones[z].label == truth["zones"][z] for z in read)
    whole = _calibrated(layout, empty, calibration, tmp_path / "whole.json")
    assert whole.board.markers == (0, 1, 2, 3, 4, 5) and not Reader(layout, whole).board_reader.estimated


def test_the_lens_estimated_from_the_calibration_frame_holds_for_frames_that_show_fewer_markers(tmp_path):
    """The same lens on a plain board read without enrolment (`calibrate colours` alone, as a plain board allows;
    pieces of test seed 4204): the calibration frame's markers give the lens, which is kept. Measured when
    written: 0 of 130 places wrong in a frame showing three markers, 18 wrong (and 21 unread) when it had only
    its own markers to go by."""
    layout, (calibration,), (frame, truth) = _wide_lens_frames(4204, calibration_state)
    cv2.imwrite(str(tmp_path / "set-out.png"), calibration)
    cal = tmp_path / "cal.json"
    assert main(["calibrate", "colours", str(tmp_path / "set-out.png"), "--layout", "alchimiste", "--out",
                 str(cal)]) == 0
    stored = load_calibration(cal, layout.name)
    # (the plain board learnt from the same frame since session 68; the lens is still the frame's markers')
    assert stored.board is not None and stored.board.learnt and stored.board.lens is not None
    assert stored.camera is None and stored.estimated_lens is not None
    wrong, unread = _read_with_two_markers_under_a_sleeve(layout, stored, frame, truth)
    assert not wrong and unread <= 0.1 * len(truth["zones"]), (wrong, unread)


@pytest.mark.parametrize("lens", [{"matrix": "three by three"}, [1, 2], {"matrix": [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
                                                                        "distortion": [0.1], "image_size": [640, 480]}])
@pytest.mark.parametrize("where", ["board.lens", "estimated_lens"])
def test_a_malformed_estimated_lens_is_one_line_naming_it(tables, tmp_path, capsys, lens, where):
    layout, empty, _, frames = tables["plain"]
    cal = tmp_path / "cal.json"
    merge_into(cal, layout.name, board=enrol_board(empty, layout))
    data = json.loads(cal.read_text())
    if where == "board.lens":
        data["board"]["lens"] = lens
    else:
        data["estimated_lens"] = lens
    cal.write_text(json.dumps(data))
    cv2.imwrite(str(tmp_path / "frame.png"), frames[0][0])
    assert main(["read", str(tmp_path / "frame.png"), "--layout", "chaudron", "--calibration", str(cal)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and where in err and "Traceback" not in err


@pytest.mark.parametrize("markers", ["0 1 2", [0, "one"], [True, 1], {"0": 1}])
def test_malformed_enrolment_markers_are_one_line_naming_them(tables, tmp_path, capsys, markers):
    layout, empty, _, frames = tables["plain"]
    cal = tmp_path / "cal.json"
    merge_into(cal, layout.name, board=enrol_board(empty, layout))
    data = json.loads(cal.read_text())
    assert data["board"]["markers"] == sorted(m.id for m in layout.markers)  # (every marker seen, and stored)
    data["board"]["markers"] = markers
    cal.write_text(json.dumps(data))
    cv2.imwrite(str(tmp_path / "frame.png"), frames[0][0])
    assert main(["read", str(tmp_path / "frame.png"), "--layout", "chaudron", "--calibration", str(cal)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "board.markers" in err and "Traceback" not in err


def test_a_board_enrolled_in_even_light_gets_no_warning(tables, tmp_path, capsys):
    _, empty, _, _ = tables["plain"]
    cv2.imwrite(str(tmp_path / "empty.png"), empty)
    assert main(["calibrate", "board", str(tmp_path / "empty.png"), "--layout", "chaudron", "--out",
                 str(tmp_path / "cal.json")]) == 0
    assert "overexposed" not in capsys.readouterr().out


@pytest.mark.parametrize("case", ["wrong layout", "no board", "card layout", "not an image"])
def test_calibrate_board_refuses_with_one_line(tables, tmp_path, capsys, case):
    _, empty, _, _ = tables["plain"]
    path = tmp_path / "empty.png"
    layout = {"wrong layout": "alchymia", "card layout": "alchemists"}.get(case, "chaudron")
    if case == "no board":
        cv2.imwrite(str(path), np.full((480, 640, 3), 128, np.uint8))
    elif case == "not an image":
        path.write_bytes(b"not a PNG at all")
    else:
        cv2.imwrite(str(path), empty)
    out = tmp_path / "cal.json"
    assert main(["calibrate", "board", str(path), "--layout", layout, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not out.exists()


def test_enrol_board_names_the_frame_when_the_board_is_not_there():
    with pytest.raises(BoardEnrolError, match=r"somewhere\.png: the chaudron board was not found"):
        enrol_board(np.zeros((480, 640, 3), np.uint8), load_layout("chaudron"), source="somewhere.png")


def test_the_empty_board_itself_reads_empty(tables, tmp_path):
    layout, empty, calibration_frame, _ = tables["plain"]
    reading = Reader(layout, _calibrated(layout, empty, calibration_frame, tmp_path / "cal.json")).read(empty)
    assert {z.label for z in reading.zones.values()} == {"empty"}


def test_calibrate_board_refuses_a_board_whose_place_is_not_sure(tables, tmp_path, capsys):
    layout, empty, _, _ = tables["plain"]
    location = Reader(layout).locator.locate(empty)
    hidden = empty.copy()
    corners = np.array(layout.markers[0].corners(), np.float32).reshape(-1, 1, 2)
    quad = cv2.perspectiveTransform(corners, location.homography).reshape(-1, 2)
    cv2.fillConvexPoly(hidden, np.round(quad).astype(np.int32), (128, 128, 128))  # a cup over one marker
    path = tmp_path / "empty.png"
    cv2.imwrite(str(path), hidden)
    assert main(["calibrate", "board", str(path), "--layout", "chaudron", "--out", str(tmp_path / "cal.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "markers show clearly" in err
    assert not (tmp_path / "cal.json").exists()


def test_a_trays_own_print_is_never_counted_as_cubes(tmp_path):
    """Empty trays on an illustrated Alchimiste board (seed 4104, drawn for this test) under every light: the
    trays' artwork is the enrolled board, so nothing there is a cube. (Counted by colour alone, the print read
    as 4 to 7 cubes in one tray under four of the five lights.)"""
    layout = load_layout("alchimiste")
    rng = np.random.default_rng(4104)
    table = random_table(layout, rng, "illustrated")
    empty, _ = table_frame(table, layout, rng, table.calibration_lighting, state=empty_state(layout))
    calibration, _ = table_frame(table, layout, rng, table.calibration_lighting, state=calibration_state(layout))
    reader = Reader(layout, _calibrated(layout, empty, calibration, tmp_path / "cal.json"))
    for light in LIGHTS:
        frame, _ = table_frame(table, layout, rng, light, state=empty_state(layout))
        reader.locator.invalidate()
        counts = {zid: c.count for zid, c in reader.read(frame).counts.items()}
        assert set(counts.values()) <= {0, None}, (light, counts)


def test_a_pale_hand_over_a_pale_board_in_dim_light_is_not_read_through(tmp_path):
    """Table 18 of `render --layout alchimiste,alchymia,chaudron --set S --tables 24 --frames-per-table 8 --seed
    9500 --blur`, its frame f003: a pale hand (skin 225, 194, 167) from the top edge over the cream board in dim
    light, its colour the board's in that light, only brighter. Only the sleeve differed from the board: the
    places under the palm and fingers read `empty` at 0.99 and more (9 of them). From the arm, the hand's mask
    now grows over what is brighter than the light can make the board: 12 of the 15 places under the hand are
    under it. Two places under fingertips beyond it still read `empty` with the place model retrained in session
    42 (one with the model before it): neither the mask nor the model sees a hand there."""
    layout = load_layout("alchimiste")
    rng = np.random.default_rng([9500, 18])
    table = dataclasses.replace(random_table(layout, rng, "plain"), piles=None)  # (the frame as drawn then)

    def at(state):
        rng.bit_generator.state = {"bit_generator": "PCG64", "state": {"state": state[0], "inc": state[1]},
                                   "has_uint32": state[2], "uinteger": state[3]}

    at((194934614275011860025933632069914169864, 153149504345023648298778067984562051823, 1, 2090311323))
    empty, _ = table_frame(table, layout, rng, table.calibration_lighting, state=empty_state(layout))
    calibration, _ = table_frame(table, layout, rng, table.calibration_lighting, state=calibration_state(layout))
    at((9786507196827626830379132401136931516, 153149504345023648298778067984562051823, 0, 14100759))
    frame, truth = table_frame(table, layout, rng, "dim", hand=True)
    under = [zid for zid, want in truth["zones"].items() if want == "unknown"]
    assert len(under) == 15 and tuple(truth["conditions"]["hand_mm"]["skin"]) == (225, 194, 167)
    reader = Reader(layout, _calibrated(layout, empty, calibration, tmp_path / "cal.json"))
    cover = reader.board_reader.compared(frame, reader.locator.locate(frame))[3]
    assert sum(cover[zid] >= COVERED for zid in under) >= 12, sorted(cover[zid] for zid in under)
    reading = reader.read(frame)
    confident = [(zid, reading.zones[zid]) for zid in under
                 if reading.zones[zid].label != "unknown" and reading.zones[zid].confidence >= 0.5]
    assert len(confident) <= 2, confident


def _plain_measures(board, canonical, diff) -> dict[str, np.ndarray]:
    """What ``BoardReader.measure`` finds, summed pixel by pixel over boolean masks of the whole canonical image
    (the plain way, before the owned pixels were gathered once)."""
    n = len(board.slot_ids)
    owner, ring = board.owner.ravel(), board.ring
    inside, solid, core = owner >= 0, diff.solid.ravel(), diff.core.ravel()
    place, inner = inside & (ring < 2), inside & (ring == 0)
    bright = diff.brightness.ravel()

    def sums(mask, values=None):
        return np.bincount(owner[mask], weights=None if values is None else values[mask], minlength=n)

    def mean(mask, values):
        return sums(mask, values) / np.maximum(sums(mask), 1)

    mm2 = 1.0 / board.geometry.px_per_mm ** 2  # (of a pixel)
    out = {f"area_{name}": sums(inside & solid & (ring == k)) * mm2 for k, name in enumerate(("in", "body", "ring"))}
    out["core"] = sums(place & core) * mm2
    for name in ("chroma", "lifted", "edges"):
        out[name] = mean(place, getattr(diff, name).ravel())
        out[f"{name}_in"] = mean(inner, getattr(diff, name).ravel())
    out["contrast_in"] = mean(inner, np.abs(diff.lifted.ravel()))
    out["shade_in"] = mean(inner, bright)
    out["dark"] = mean(place & solid, (bright < np.log(0.5)).astype(float))
    lit_n = sums(inside & ~solid)
    out["light"] = np.where(lit_n >= 8, sums(inside & ~solid, bright) / np.maximum(lit_n, 1), 0.0)
    lifted = diff.lifted.ravel()
    unlike = diff.chroma.ravel() + np.maximum(lifted, 0) + 0.5 * np.maximum(-lifted, 0)
    mean_u = mean(inside & core, unlike)
    top = np.flatnonzero(inside & core & (unlike >= mean_u[np.maximum(owner, 0)]))
    # (the light taken out as the trays' is: its plain ratio of levels)
    gain = _plain_ratio(board._smooth_board.reshape(-1, 3)[top], diff.log_gain.reshape(-1, 3)[top])
    bgr = canonical.reshape(-1, 3)[top].astype(np.float32) / gain
    bgr *= np.exp(-np.minimum(out["light"], 0.0)[owner[top]])[:, None].astype(np.float32)
    lab = bgr_to_lab(np.clip(bgr * board.white_scale / 255.0, 0, 1))
    to = np.maximum(np.bincount(owner[top], minlength=n), 1)
    out["lab"] = np.stack([np.bincount(owner[top], weights=lab[:, c], minlength=n) / to for c in range(3)], axis=1)
    log_gain = np.log(np.exp(diff.log_gain.reshape(-1, 3)))
    out["level"] = mean(inner, (log_gain[:, 0] + log_gain[:, 1] + log_gain[:, 2]) / np.float32(3))
    return out


def test_the_place_measures_are_the_plain_sums_over_the_image(tables, tmp_path):
    # A read gathers the owned pixels once and sums over what the enrolment fixed at load: the very sums (the
    # same pixels in the same order), on a hand's frame and a lit one of an illustrated board.
    layout, empty, calibration_frame, frames = tables["illustrated"]
    board = Reader(layout, _calibrated(layout, empty, calibration_frame, tmp_path / "cal.json")).board_reader
    for frame, _ in frames[1:3]:
        board.base.locator.invalidate()
        location = board.base.locator.locate(frame)
        canonical, diff, _, _ = board.compared(frame, location)
        measured = board.measure(canonical, diff, np.zeros(len(board.slot_ids)))
        plain = _plain_measures(board, canonical, diff)
        assert measured.area_in.sum() > 0
        for name, want in plain.items():
            assert np.array_equal(getattr(measured, name), want), name


# Fresh seeds drawn for this test (2026-11-26, session 36) and never used while developing.
BESIDE_HAND_TABLES = (("chaudron", "illustrated", 4121), ("alchimiste", "plain", 4122),
                      ("alchymia", "illustrated", 4123))


def test_places_beside_a_hand_in_plain_sight_are_read_and_places_under_it_wait(tmp_path):
    """The hand's mask takes in its shadow and a margin around it, so places in plain sight beside the hand are
    partly under it. A place half under it or more reads `unknown`; less, the place model reads it from what it
    sees (it learnt from such places). Before, a place 5 % under the mask read `unknown`: on the development
    tables two in five of the places the mask touched were in plain sight. Measured when written: 30 of
    the 92 places the mask touched in plain sight read right, none wrong, none under the hand read (before:
    none read)."""
    beside = right = 0
    wrong, confident_under_hand = [], []
    for name, kind, seed in BESIDE_HAND_TABLES:
        layout, table, rng, reader = _enrolled_table(name, kind, seed, tmp_path)
        for light in LIGHTS:
            frame, truth = table_frame(table, layout, rng, light, hand=True)
            reader.locator.invalidate()
            reading = reader.read(frame)
            _, _, _, cover = reader.board_reader.compared(frame, reader.locator.locate(frame))
            for zid, want in truth["zones"].items():
                got = reading.zones[zid]
                if want == "unknown":
                    if got.label != "unknown" and got.confidence >= 0.5:
                        confident_under_hand.append((name, light, zid, got))
                elif zid not in truth.get("partly_hidden", []) and cover[zid] >= 0.05:
                    beside += 1
                    right += got.label == want
                    if got.label not in (want, "unknown"):
                        wrong.append((name, light, zid, want, got))
    assert not confident_under_hand, confident_under_hand
    assert not wrong, wrong
    assert beside >= 20 and right >= 0.2 * beside, (right, beside)


def test_trays_on_an_enrolled_board_are_checked_against_their_area(tmp_path):
    """A tray's count from the squares laid over its tops is held against their area (``vision.count.checked``)
    on the enrolled board as on the plain one: a count the area does not bear out is no count. (Once the check
    moved out of the counter to weigh each tray against its frame, the enrolled board's trays went unchecked:
    fresh seed 13301, trays wrong 51.8 % unchecked, 45.3 % checked.)"""
    layout, table, rng, reader = _enrolled_table("alchimiste", "plain", 4122, tmp_path)
    frame, _ = table_frame(table, layout, rng, "warm")
    counts = reader.read(frame).counts
    assert counts and all(not c.areas for c in counts.values()), counts  # ``areas``: {} once checked


def test_trays_on_a_dark_enrolled_board_are_counted_as_on_a_pale_one(tmp_path):
    """A walnut and a dark blue board (seeds 4131 and 4132, drawn for this test), enrolled: the trays are counted
    in white light, whatever the board's colour. (Counted in the layout's board colour, a dark board brightened
    every cube to white: 15 of 40 trays counted wrong here, up to 18 cubes off, and `calibrate colours` refused
    the walnut board's frame for its tile, brown on brown.)"""
    layout = load_layout("alchimiste")
    exact = wrong = 0
    for seed, colour in ((4131, "walnut"), (4132, "dark blue")):
        rng = np.random.default_rng(seed)
        # (the trays packed, as when the test was written: the players' own piles came after, session 61)
        table = dataclasses.replace(random_table(layout, rng, "plain"), piles=None)
        table = dataclasses.replace(table, artwork=dataclasses.replace(table.artwork, base_rgb=BOARD_COLOURS[colour]))
        empty, _ = table_frame(table, layout, rng, table.calibration_lighting, state=empty_state(layout))
        calibration, _ = table_frame(table, layout, rng, table.calibration_lighting, state=calibration_state(layout))
        reader = Reader(layout, _calibrated(layout, empty, calibration, tmp_path / f"{seed}.json"))
        for light in ("warm", "cool", "mixed", "dim"):
            frame, truth = table_frame(table, layout, rng, light)
            reader.locator.invalidate()
            counts = reader.read(frame).counts
            for zid, want in truth["counts"].items():
                got = counts[zid].count
                exact += got == want
                wrong += got is not None and got != want
    assert exact >= 34 and wrong <= 2, (exact, wrong)


def test_a_tray_whose_cubes_are_not_taken_for_cubes_is_not_counted_0(tmp_path):
    """Cubes the counter does not take for its label (here the grey learnt as magenta; on real tables a colour
    learnt off, a blurred pile) leave the tray unlike the enrolled board beyond the cubes counted: no count and
    the reason, never 0 with confidence (seed 4141, drawn for this test)."""
    layout, table, rng, reader = _enrolled_table("alchimiste", "plain", 4141, tmp_path)
    learnt = load_calibration(tmp_path / "alchimiste-plain.json", layout.name)
    reader = Reader(layout, dataclasses.replace(learnt, colours={**learnt.colours, "grey": (255, 0, 255)}))
    state = random_state(layout, rng)
    state["counts"]["reserve-grey"] = {"grey": 9}
    for light in ("warm", "daylight"):
        frame, _ = table_frame(table, layout, rng, light, state=state)
        reader.locator.invalidate()
        grey = reader.read(frame).counts["reserve-grey"]
        assert grey.count is None and "by hand" in grey.reason, (light, grey)


def test_calibrate_colours_names_a_piece_it_cannot_see_and_learns_the_rest(tmp_path, capsys):
    """A brown tile on a walnut board (seed 4131, drawn for this test) hardly shows on the calibration frame:
    `calibrate colours` learns every other piece, names the tile, and the layout's model stands in for it.
    (It refused the whole frame, and the board was then read with no piece learnt.)"""
    layout = load_layout("alchimiste")
    rng = np.random.default_rng(4131)
    table = dataclasses.replace(random_table(layout, rng, "plain"), piles=None)  # (the trays packed, as then)
    table = dataclasses.replace(table, artwork=dataclasses.replace(table.artwork, base_rgb=BOARD_COLOURS["walnut"]))
    for name, state in (("empty", empty_state(layout)), ("set-out", calibration_state(layout))):
        frame, _ = table_frame(table, layout, rng, table.calibration_lighting, state=state)
        cv2.imwrite(str(tmp_path / f"{name}.png"), frame)
    out = str(tmp_path / "cal.json")
    assert main(["calibrate", "board", str(tmp_path / "empty.png"), "--layout", "alchimiste", "--out", out]) == 0
    assert main(["calibrate", "colours", str(tmp_path / "set-out.png"), "--layout", "alchimiste", "--out", out]) == 0
    printed = capsys.readouterr().out
    assert "not seen against the enrolled board: tile" in printed, printed
    learnt = load_calibration(out, "alchimiste")
    assert "tile" not in learnt.pieces and {"grey", "blue", "orange", "yellow", "green"} <= set(learnt.pieces)


@pytest.mark.parametrize("seed", [4305, 4308])
def test_each_cube_of_a_crowded_calibration_cauldron_is_learnt_as_its_own_colour(tmp_path, seed):
    """On the calibration frame the five cubes of cauldron 1 lie side by side, set down off their centres: a
    neighbour reaches into a cube's place. Each cube is learnt nearer its own colour than any other cube's
    (seeds 4305 and 4308, drawn for this test: the blue cube was learnt as the colour of another, and blue cubes
    were left unread on every frame of the table)."""
    layout = load_layout("alchimiste")
    rng = np.random.default_rng(seed)
    table = random_table(layout, rng, "plain")
    empty, _ = table_frame(table, layout, rng, table.calibration_lighting, state=empty_state(layout))
    calibration, _ = table_frame(table, layout, rng, table.calibration_lighting, state=calibration_state(layout))
    learnt = _calibrated(layout, empty, calibration, tmp_path / "cal.json")
    cubes = ["grey", "blue", "orange", "yellow", "green"]
    true = {c: rgb_to_lab(np.array(table.pieces.colours[c], float) * PAPER_LEVEL / 255.0) for c in cubes}
    for cube in cubes:
        lab = np.array(learnt.pieces[cube].lab)
        nearest = min(cubes, key=lambda other: float(np.linalg.norm(lab - true[other])))
        assert nearest == cube, (cube, lab.round(1), nearest)


def test_places_unsure_against_the_learnt_colours_are_read_against_their_fellows_in_the_frame(tmp_path,
                                                                                            monkeypatch):
    """A Chaudron table (seed 4171, drawn for this test) under the five lightings. Places the calibration's
    colours leave unsure are asked again against the colours this frame shows their pieces in (pieces of the
    same kind read surely elsewhere on the board): measured when written, 111 of 180 places read right and
    none wrong, against 104 when the frame's colours are not used; since the lit top is the part of a piece most
    unlike the board (session 60), 142 against 139 (148 against 145 with the network retrained on those tops):
    the first asking reads most of what the second used to. The place model of session 64 (560 tables) reads two
    bones as burnt in mixed light here (0.994, 0.998) from the calibration's colours alone: asking again must
    add no wrong read to those."""
    from vision import board_read

    layout, table, rng, reader = _enrolled_table("chaudron", "plain", 4171, tmp_path)
    frames = [table_frame(table, layout, rng, light) for light in LIGHTS]

    def tally() -> tuple[int, set]:
        right, wrong = 0, set()
        for k, (frame, truth) in enumerate(frames):
            reader.locator.invalidate()
            reading = reader.read(frame)
            for zid, want in truth["zones"].items():
                got = reading.zones[zid]
                if want == "unknown" or got.label == "unknown" or zid in truth.get("partly_hidden", []):
                    continue
                if got.label == want:
                    right += 1
                else:
                    wrong.add((k, zid, want, got.label))
        return right, wrong

    right, wrong = tally()
    monkeypatch.setattr(board_read, "FRAME_SEEN", 10 ** 9)  # the calibration's colours alone
    alone, wrong_alone = tally()
    assert wrong <= wrong_alone, wrong - wrong_alone
    assert len(wrong_alone) <= 2, wrong_alone
    assert right > alone, (right, alone)


def test_a_place_s_lit_top_is_the_part_of_its_piece_most_unlike_the_board(tmp_path):
    """A Chaudron table (test seed 4254, the third of three drawn in session 60: on the first two both rules took
    nearly every top right) under the five lightings, twice each. Its pieces' shadows, lit by a second light or a
    bright one, are brighter than a dark piece's top: taken as the brighter half of what differs, the lit top
    was the shadow, and 58 of 215 pieces lay nearer another piece's learnt colour than their own (199 of 215
    nearest their own now)."""
    from vision.board_read import colour_distances

    layout, table, rng, reader = _enrolled_table("chaudron", "plain", 4254, tmp_path)
    board = reader.board_reader
    own = pieces = 0
    for light in LIGHTS * 2:
        frame, truth = table_frame(table, layout, rng, light)
        reader.locator.invalidate()
        canonical, diff, _, covered = board.compared(frame, reader.locator.locate(frame))
        cover = board.slot_cover(covered)
        nearest = colour_distances(board.measure(canonical, diff, cover).lab, board._piece_labs).argmin(axis=1)
        for i, zid in enumerate(board.slot_ids):
            want = truth["zones"].get(zid)
            if want in board._labels and cover[i] < COVERED and zid not in truth.get("partly_hidden", []):
                pieces += 1
                own += board._labels[nearest[i]] == want
    assert pieces > 150 and own >= 0.9 * pieces, (own, pieces)


def test_a_near_black_board_enrolled_in_dim_light_does_not_turn_its_pieces_into_others(tmp_path):
    # Dev seed 19766, table 4: a near-black plain board (RGB 30, 28, 36) enrolled and calibrated in dim light, where
    # its levels are near 10. The light a frame shows over it was taken out as the ratio of levels + 4, which over
    # such a board is a fifth short: the lit tops came out too bright and paler (an orange cube (62, 31, 50) in
    # Lab measured (81, 9, 60), nearer the learnt yellow), and f000 and f001 read orange cubes as yellow and pink
    # seals as white at 0.99 and more. The trays already took the light out as a plain ratio; the places now too.
    from itertools import islice

    from vision.evaluate_tables import calibrate_table
    from vision.render.table import write_table

    layout = load_layout("alchimiste")
    paths = list(islice(write_table(tmp_path, layout, "plain", 4, 6, 19766, True), 4))  # to frame f001
    calibration, notes = calibrate_table(paths[0].parent, layout, tmp_path / "cal.json")
    assert calibration is not None, notes
    reader = Reader(layout, calibration)
    swapped, oranges = [], 0
    for path in paths[-2:]:
        truth = json.loads(path.with_suffix(".json").read_text())["zones"]
        reading = reader.read(cv2.imread(str(path)))
        for zid, want in truth.items():
            got = reading.zones[zid].label
            oranges += want == "orange"
            if want not in ("empty", "unknown") and got not in (want, "empty", "unknown"):
                swapped.append((path.name, zid, want, got))
    assert oranges >= 4
    assert not swapped, swapped
