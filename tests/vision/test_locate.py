"""Finding the board: every visible marker, one hidden, the corners fallback, a bump, no board."""

from __future__ import annotations

import cv2
import numpy as np

from calibration.store import load_calibration
from vision.locate import Locator, detect_markers
from vision.read import Reader


def _hide_marker(frame, truth, layout, marker_id):
    m = next(m for m in layout.markers if m.id == marker_id)
    q = m.size / 6 + 2
    (lf, t), (r, b) = m.corners()[0], m.corners()[2]
    box = np.array([[[lf - q, t - q], [r + q, t - q], [r + q, b + q], [lf - q, b + q]]])
    pts = cv2.perspectiveTransform(box, np.array(truth["homography"]))[0]
    out = frame.copy()
    cv2.fillPoly(out, [np.round(pts).astype(np.int32)], (120, 140, 160))
    return out


def _board_error_px(H, truth, layout):
    w, h = layout.size
    corners = np.array([[[0, 0], [w, 0], [w, h], [0, h]]], float)
    a = cv2.perspectiveTransform(corners, H)[0]
    b = cv2.perspectiveTransform(corners, np.array(truth["homography"]))[0]
    return float(np.max(np.linalg.norm(a - b, axis=1)))


def test_homography_from_all_markers_is_close_to_the_truth(rendered):
    layout, frame, truth = rendered("chaudron", "daylight", 0)
    location = Locator(layout).locate(frame)
    assert location.source == "markers" and sorted(location.markers) == [10, 11, 12, 13]
    # Lens distortion is not modelled without a lens calibration: a few pixels at the board's corners.
    assert _board_error_px(location.homography, truth, layout) < 6


def test_one_hidden_marker_still_finds_the_board_and_reads(rendered):
    layout, frame, truth = rendered("alchymia", "warm", 1)
    hidden = _hide_marker(frame, truth, layout, 21)
    assert 21 not in detect_markers(hidden)
    reader = Reader(layout)
    reading = reader.read(hidden)
    assert reading.board_found and 21 not in reader.locator.location.markers
    assert all(reading.zones[z].label == v for z, v in truth["zones"].items())


def test_a_strongly_bent_lens_with_a_marker_hidden_still_gets_its_distortion(replayed):
    # Frame 252 of the evaluation set of seed 8128 (`render --layout alchimiste,alchymia,chaudron --seed
    # 8128`), replayed: barrel distortion k1 = -0.12 and a hand over the middle marker of the lower edge. One
    # plain homography misses a corner marker by more than its tolerance, so it was dropped, four markers
    # were left, too few to estimate the lens: zones landed 6 mm off (16 mm at worst) and an empty place
    # read the next place's yellow cube.
    layout, frame, truth = replayed("alchimiste", "warm", (
        84352440564345267495763895926577500816, 22996576443545506725097600616024665385, 1, 2383740110))
    assert sorted(truth["markers_visible"]) == [0, 1, 2, 3, 5]
    reader = Reader(layout)
    reading = reader.read(frame)
    assert sorted(reader.locator.location.markers) == [0, 1, 2, 3, 5]
    assert reader.locator.location.lens is not None
    assert reading.zones["cauldron-6.ingredient-2"].label == "empty" == truth["zones"]["cauldron-6.ingredient-2"]


def test_a_wide_lens_over_the_large_mat_is_fitted_and_the_board_can_be_enrolled(rendered):
    # A camera held low with a wide lens (the pose of a rendered table of seed 9213): barrel distortion of
    # -0.55 in the frame's half-diagonal units. The search used to stop at -0.4: one marker was dropped and
    # the position fitted on the rest missed three markers' patterns, so `calibrate board` refused the board.
    from vision.board import enrol_board
    from vision.render import Pose

    pose = Pose(height_mm=669, target_mm=(364, 283), tilt_deg=13, tilt_towards_deg=40, yaw_deg=83, fill=0.85,
                k1=-0.21, k2=-0.012)
    layout, frame, _ = rendered("alchimiste", "daylight", 0, pose=pose)
    location = Locator(layout).locate(frame)
    assert sorted(location.markers) == [0, 1, 2, 3, 4, 5] and location.lens is not None
    assert location.lens.distortion[0] < -0.4
    enrol_board(frame, layout)  # raises BoardEnrolError when markers do not show where the board seems to lie


def test_markers_too_small_for_the_whole_frame_are_found_where_the_others_put_them(rendered):
    # The pose of a rendered table of seed 9300 (t024): the large mat far off and askew under a wide lens, its
    # markers 15-23 px wide. Over the whole frame the detector finds three of six; `calibrate board` refused
    # the board ("only 2 of the 6 markers show clearly") and the table was read without it.
    from vision.board import enrol_board
    from vision.render import Pose

    pose = Pose(height_mm=663, target_mm=(421, 312), tilt_deg=13.5, tilt_towards_deg=23.5, yaw_deg=-44.6,
                fill=0.68, k1=-0.186, k2=-0.017)
    layout, frame, truth = rendered("alchimiste", "daylight", 1, pose=pose)
    assert len(detect_markers(frame)) <= 3
    location = Locator(layout).locate(frame)
    assert len(location.markers) >= 5 and location.lens is not None
    assert _board_error_px(location.homography, truth, layout) < 6
    enrol_board(frame, layout)  # raises BoardEnrolError when markers do not show where the board seems to lie


def test_corners_fallback_when_no_marker_is_visible(rendered, cli, tmp_path):
    layout, frame, truth = rendered("chaudron", "cool", 2)
    bare = frame
    for m in layout.markers:
        bare = _hide_marker(bare, truth, layout, m.id)
    image = tmp_path / "bare.png"
    cv2.imwrite(str(image), bare)
    code, out, _ = cli("read", str(image), "--layout", "chaudron", "--json")
    assert code == 0 and '"board_found": false' in out
    w, h = layout.size
    pts = cv2.perspectiveTransform(np.array([[[0, 0], [w, 0], [w, h], [0, h]]], float),
                                   np.array(truth["homography"]))[0]
    cal = tmp_path / "cal.json"
    code, _, err = cli("calibrate", "corners", str(image), "--layout", "chaudron", "--out", str(cal),
                       "--points", *[f"{x:.1f},{y:.1f}" for x, y in pts])
    assert code == 0, err
    reader = Reader(layout, load_calibration(cal, "chaudron"))
    reading = reader.read(bare)
    assert reading.board_found and reader.locator.location.source == "corners"
    assert sum(reading.zones[z].label == v for z, v in truth["zones"].items()) >= 34


def test_a_bumped_board_is_found_again(rendered):
    layout, before, _ = rendered("chaudron", "daylight", 0)
    _, after, truth_after = rendered("chaudron", "daylight", 3)  # other pose: the board moved
    locator = Locator(layout, recheck_every=5)
    first = locator.locate(before).homography
    assert locator.locate(before).source == "cache"
    moved = locator.locate(after, check=True)  # the cheap check fails, markers are detected again
    assert moved.source == "markers"
    assert _board_error_px(moved.homography, truth_after, layout) < 6
    assert _board_error_px(first, truth_after, layout) > 20


def test_cheap_recheck_keeps_the_cache_when_nothing_moved(rendered):
    layout, frame, _ = rendered("alchemists", "dim", 2)
    locator = Locator(layout, recheck_every=1)
    locator.locate(frame)
    assert locator.locate(frame).source == "cache"


def test_no_board_in_the_frame(rendered):
    layout, _, _ = rendered("chaudron", "daylight", 0)
    table = np.full((960, 1280, 3), (60, 90, 120), np.uint8)
    table += np.random.default_rng(0).integers(0, 20, table.shape, dtype=np.uint8)
    reading = Reader(layout).read(table)
    assert not reading.board_found and reading.to_dict()["zones"] == {}


def test_markers_a_dozen_pixels_wide_in_dim_light_show_where_the_detector_decoded_them(rendered):
    # The pose of fresh seed 19530's t006, its empty board enrolled in dim light: the six markers, 16-26 px
    # wide, are decoded and fitted within a pixel, but the pattern read at their cells' centres (under 3 px
    # apart) missed two of them, and `calibrate board` refused the board ("only 4 of the 6 markers show
    # clearly"). (Its lens, k1 -0.236, is drawn here at -0.2: since the renderer draws such a lens truly, not
    # folded back, -0.236 bends the frame's corners past what the locator's one-coefficient search reaches;
    # docs/vision.md leaves that open.)
    from vision.board import enrol_board
    from vision.locate import check_markers
    from vision.render import Pose

    pose = Pose(height_mm=559, target_mm=(438, 308), tilt_deg=11.1, tilt_towards_deg=164.5, yaw_deg=171.2,
                fill=0.80, k1=-0.2, k2=-0.006)
    layout, frame, _ = rendered("alchimiste", "dim", 4, pose=pose)
    location = Locator(layout).locate(frame)
    assert sorted(location.markers) == [0, 1, 2, 3, 4, 5]
    assert check_markers(frame, layout, location.homography, location.lens) < 6  # the cells alone
    enrol_board(frame, layout)  # raises BoardEnrolError when markers do not show where the board seems to lie
