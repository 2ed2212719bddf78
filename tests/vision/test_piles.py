"""Reserve piles as players leave them: loose, turned, touching, and a cube lying on another (null, with the
reason, never a wrong count); and what a tray in doubt decides for the referee."""

from __future__ import annotations

import json
from dataclasses import replace

import cv2
import numpy as np
import pytest

from assistant.engines.alchimiste import Cubes, EndPlayer
from assistant.referee_doubt import changes_nothing, decides, possible_counts
from calibration.layout import load_layout
from vision.evaluate_piles import mixed_light
from vision.pieces import piece_shapes
from vision.read import Reader
from vision.render import Conditions, Pose, lighting_preset, render_frame
from vision.render.piles import PileStyle, Raised, _apart, _square, pile

RESERVE = {"reserve-grey": {"grey": 14}, "reserve-blue": {"blue": 9}, "reserve-orange": {"orange": 5},
           "reserve-yellow": {"yellow": 11}, "reserve-green": {"green": 3}}
STYLES = {
    "loose and turned": PileStyle(touch=0.0, turn=1.0, walls=0.5),
    "touching, square": PileStyle(touch=1.0, turn=0.0, walls=1.0),
    "touching and turned": PileStyle(touch=0.8, turn=0.7, walls=0.3),
}


def _frame(style: PileStyle, seed: int, light: str = "warm"):
    layout = load_layout("alchimiste")
    c = Conditions(pose=Pose(tilt_deg=5, tilt_towards_deg=30 * seed, yaw_deg=3), placement_seed=seed,
                   lighting=lighting_preset(light, np.random.default_rng(seed)), piles=style)
    frame, truth = render_frame(layout, {"counts": RESERVE}, c, np.random.default_rng(seed))
    return layout, frame, truth


@pytest.mark.parametrize(("style", "seed"), [("loose and turned", 131), ("touching, square", 137),
                                             ("touching and turned", 139)])
def test_single_layer_piles_are_counted_exactly_or_not_at_all(style, seed):
    layout, frame, truth = _frame(STYLES[style], seed)
    assert not any(t["stacked"] for t in truth["piles"].values())
    counts = Reader(layout, spread_stacked=True).read(frame).counts
    got = {z: c.count for z, c in counts.items()}
    assert all(got[z] in (n, None) for z, n in truth["counts"].items()), (got, truth["counts"])
    assert sum(got[z] == n for z, n in truth["counts"].items()) >= 4, got


BIG_RESERVE = {"reserve-grey": {"grey": 17}, "reserve-blue": {"blue": 15}, "reserve-orange": {"orange": 18},
               "reserve-yellow": {"yellow": 13}, "reserve-green": {"green": 16}}


@pytest.mark.parametrize(("seed", "light"), [(7501, "cool"), (7504, "warm")])
def test_big_loose_piles_of_cubes_a_little_larger_than_the_layout_count_exactly(seed, light):
    # A cube set 3 % larger than the layout's 16 mm, no calibration: squares of the top's size left a strip of
    # every top they sat off by half a pixel, and the strips of neighbours made one more cube (7501: yellow 13
    # counted 14).
    layout = load_layout("alchimiste")
    c = Conditions(pose=Pose(tilt_deg=4, tilt_towards_deg=30 * seed, yaw_deg=2), placement_seed=seed,
                   lighting=lighting_preset(light, np.random.default_rng(seed)),
                   piles=PileStyle(touch=0.6, turn=0.5, walls=0.4, scale=1.03, size_tol=0.02))
    frame, truth = render_frame(layout, {"counts": BIG_RESERVE}, c, np.random.default_rng(seed))
    got = {z: c.count for z, c in Reader(layout).read(frame).counts.items()}
    assert got == truth["counts"]


@pytest.mark.parametrize(("seed", "exposure"), [(7531, 1.0), (7532, 1.0), (7531, 1.3), (7532, 1.3)])
def test_under_a_warm_lamp_on_one_side_and_daylight_on_the_other_no_hand_is_seen(seed, exposure):
    # The light's colour changes over the board: with one colour for the whole board, its warm half read as not
    # the board and grew into a hand (7531: three trays "a hand over the tray"; 7532: 7,289 hand cells). On a
    # bright table (exposure 1.3) the markers' paper is clipped and cannot tell the light's colour: the free
    # board tells it (before, 7531 had three trays "a hand over the tray" again, 7532 9,661 hand cells).
    layout = load_layout("alchimiste")
    reserve = {"reserve-grey": {"grey": 6}, "reserve-blue": {"blue": 9}, "reserve-orange": {"orange": 4},
               "reserve-yellow": {"yellow": 11}, "reserve-green": {"green": 7}}
    c = Conditions(pose=Pose(tilt_deg=4, tilt_towards_deg=30 * seed), placement_seed=seed,
                   lighting=lighting_preset("daylight", np.random.default_rng(seed)),
                   piles=PileStyle(touch=0.5, turn=0.5))
    frame, truth = render_frame(layout, {"counts": reserve}, c, np.random.default_rng(seed))
    frame = mixed_light(frame, np.random.default_rng(seed))
    reading = Reader(layout).read(np.clip(frame * exposure, 0, 255).astype(np.uint8))
    assert not reading.hand_cells.any()
    assert {z: r.count for z, r in reading.counts.items()} == truth["counts"]


def test_piles_with_a_cube_on_another_are_asked_spread_none_counted_wrong():
    # (three of these five were asked and the blue one counted two short, until the tops a cube lying on others
    # hides and overlaps, and its long shadow, were signs too; eval-piles gives the share over many, and issue
    # 23 stays open on it)
    layout, frame, truth = _frame(PileStyle(touch=0.5, turn=0.5, stacked=1.0), 141, "daylight")
    stacked = [z for z, t in truth["piles"].items() if t["stacked"]]
    assert len(stacked) == 5
    reading = Reader(layout, spread_stacked=True).read(frame)
    counts = {z: reading.counts[z].count for z in stacked}
    assert all(n is None or n == truth["counts"][z] for z, n in counts.items()), counts
    unread = [z for z in stacked if counts[z] is None]
    assert len(unread) >= 4, counts
    entries = reading.to_dict()["counts"]
    for zid in unread:
        colour = zid.split("-", 1)[1]
        assert entries[zid]["count"] is None and entries[zid]["reason"].startswith(f"spread the {colour} pile")


def test_the_renderer_lays_cubes_apart_and_flags_the_ones_on_others():
    layout = load_layout("alchimiste")
    zone, shapes = layout.zone("reserve-blue"), piece_shapes(layout)
    for seed in range(12):
        cubes = pile(zone, {"blue": 18}, shapes, {"blue": (1.0, 0.4, 0.2)}, seed, PileStyle(scale=1.08, stacked=0.5))
        assert len(cubes) == 18
        ground = [_square(*p.center, p.angle_deg, p.shape.size[0]) for p in cubes if not isinstance(p, Raised)]
        assert all(_apart(a, b, gap=0.0) for i, a in enumerate(ground) for b in ground[:i])  # none overlap
        left, top, right, bottom = zone.bounds
        assert all(left <= x <= right and top <= y <= bottom for sq in ground for x, y in sq)
        for p in cubes:
            if isinstance(p, Raised):
                assert p.z_mm > 0 and p.shape.height == pytest.approx(p.z_mm + p.shape.size[0])

def test_some_tables_players_leave_their_piles_packed_square_and_the_rest_of_the_table_is_drawn_alike():
    from vision.render.piles import TIDY, random_style

    styles = [random_style(np.random.default_rng([seed, 3])) for seed in range(400)]
    tidy = [s for s in styles if (s.touch, s.turn, s.walls) == (1.0, 0.0, 1.0)]
    assert abs(len(tidy) / len(styles) - TIDY) < 0.06
    assert all(0.2 <= s.touch <= 0.9 for s in styles if s not in tidy)
    # Whether the players are tidy is drawn aside: what the table draws next (its reserves) is the same either way.
    for seed in range(20):
        rng, alike = np.random.default_rng([seed, 3]), np.random.default_rng([seed, 3])
        random_style(rng)
        alike.uniform(size=6)
        assert rng.random() == alike.random()



PLAYERS = [EndPlayer("Abigail", "grey", 30, Cubes.of(grey=2)), EndPlayer("Merlin", "orange", 30, Cubes.of(orange=1)),
           EndPlayer("Morgane", "blue", 20, Cubes.of())]


def test_a_tray_in_doubt_names_the_places_it_decides():
    # grey 7, 8 or 9 once the screens are emptied (5 to 7 in the tray, 2 behind Abigail's screen), orange 8
    reserve = {"grey": 5, "blue": 11, "orange": 7, "yellow": 0, "green": 0}
    assert decides(PLAYERS, reserve, "grey", [5, 6, 7]) == ("decides first place between Abigail and Merlin (and "
                                                            "the places after it); the winner: Abigail or Merlin")
    assert decides(PLAYERS, reserve, "grey", [6, 7]).startswith("decides first place between Abigail and Merlin")
    assert decides(PLAYERS, reserve, "blue", [10, 11]) == "changes no school place nor the winner"
    assert possible_counts(8, 7.6, False, 14) == [7, 8, 9]
    assert possible_counts(None, 7.4, False, 14) == list(range(6, 15))  # a cube on another: more than seen
    assert possible_counts(None, 0.0, True, 14) == list(range(15))


def test_trays_in_doubt_that_decide_nothing_are_not_asked():
    reserve = {"grey": 5, "blue": 11, "orange": 7, "yellow": 0, "green": 0}
    # yellow and green are no adept's school: whatever their trays hold, no place changes
    assert changes_nothing(PLAYERS, reserve, {"yellow": list(range(15)), "green": [3, 4, 5]})
    assert changes_nothing(PLAYERS, reserve, {"blue": [10, 11, 12]})  # Morgane's blue stays last
    # grey 5 to 7 decides first place (above); with blue in doubt too, still asked
    assert not changes_nothing(PLAYERS, reserve, {"grey": [5, 6, 7]})
    assert not changes_nothing(PLAYERS, reserve, {"grey": [5, 6, 7], "yellow": [0, 1]})
    # two trays that change nothing each on their own may together: blue 9 ties orange 8 + 1 for second place
    assert changes_nothing(PLAYERS, reserve, {"blue": [9, 10]})
    assert changes_nothing(PLAYERS, reserve, {"orange": [7, 8]})
    assert not changes_nothing(PLAYERS, reserve, {"blue": [9, 10], "orange": [7, 8]})


@pytest.mark.parametrize(("scale", "seed"), [(0.8, 7621), (1.2, 7622)])
def test_cubes_a_fifth_smaller_or_larger_than_the_layout_are_counted_once_calibrated(scale, seed):
    # The cube set's top is learnt from the calibration frame's trays (three cubes each, the same set); it used to
    # move the layout's top by a quarter at most, and squares a cube's side too small or too large overcounted or
    # undercounted big piles (or the area check left them uncounted).
    from vision.learn import learn_colours
    from vision.render import calibration_state

    layout = load_layout("alchimiste")
    style = PileStyle(touch=0.6, turn=0.5, walls=0.4, scale=scale, size_tol=0.02)
    c = Conditions(pose=Pose(tilt_deg=4, tilt_towards_deg=30 * seed, yaw_deg=2), placement_seed=seed,
                   lighting=lighting_preset("warm", np.random.default_rng(seed)), piles=style)
    calibration_frame, _ = render_frame(layout, calibration_state(layout), c, np.random.default_rng(seed + 1))
    reader = Reader(layout, learn_colours(calibration_frame, layout))
    reserve = {"reserve-grey": {"grey": 12}, "reserve-blue": {"blue": 7}, "reserve-orange": {"orange": 15},
               "reserve-yellow": {"yellow": 4}, "reserve-green": {"green": 10}}
    frame, truth = render_frame(layout, {"counts": reserve}, replace(c, placement_seed=seed + 2),
                                np.random.default_rng(seed + 2))
    assert {z: r.count for z, r in reader.read(frame).counts.items()} == truth["counts"]


def test_a_cube_lying_on_others_shades_the_tops_beside_it_and_nothing_else():
    # The board's shadows are drawn before the pieces: a cube a layer up cast none on its neighbours' tops,
    # which stayed lit whole (the shading cue of a real pile could not be measured on the renders).
    from vision.pieces import PieceShape
    from vision.render.camera import make_camera
    from vision.render.piles import top_shadows
    from vision.render.scene import Canvas, Placed, _footprint

    camera = make_camera(Pose(), (800.0, 560.0))
    light = replace(lighting_preset("warm"), azimuth_deg=0.0, elevation_deg=50.0, shadow=0.5)
    cube = PieceShape("cube", (16.0, 16.0), 16.0)
    # the light comes from +x: the shadow of the raised cube (on the middle one) falls on the one at -x
    west, mid, far = (Placed("grey", cube, (x, 100.0), 0.0, (0.5, 0.5, 0.5), 0.0) for x in (383.0, 400.0, 460.0))
    raised = Raised("grey", PieceShape("cube", (16.0, 16.0), 32.0), (401.0, 100.0), 10.0, (0.5, 0.5, 0.5), 0.0,
                    z_mm=16.0, below=(west, mid, far))
    canvas = Canvas((300.0, 50.0), (200.0, 100.0), 4.0)
    canvas.image[:] = 1.0
    top_shadows(canvas, camera, raised, light)

    def mean_over(p):
        mask = np.zeros((canvas.h, canvas.w), np.uint8)
        canvas.poly(mask, camera.lift(_footprint(p), 16.0), 255)
        return float(canvas.image[mask > 0].mean()), mask

    shaded = mean_over(west)[0]
    assert shaded < 0.9  # a good part of the west top in the shadow, half the light taken there
    assert mean_over(far)[0] == pytest.approx(1.0)  # too far for the shadow
    untouched = np.ones((canvas.h, canvas.w), bool)
    for p in (west, mid):
        untouched &= mean_over(p)[1] == 0
    assert float(canvas.image[untouched].min()) == pytest.approx(1.0, abs=0.01)  # the board is not shaded twice


def test_a_tray_counted_where_a_cube_may_lie_on_another_is_asked_only_where_it_decides_a_place():
    # A cube on another that no sign shows clearly is counted one or two short: the referee announced a wrong
    # winner. Now a tray the stacked test is unsure of may hold up to two more, and is asked where that matters.
    from assistant.referee_photo import tray_counts
    from vision.reading import CountReading

    def trays(grey_doubt: float, blue_doubt: float) -> dict:
        counts = {"grey": (5, grey_doubt), "blue": (11, blue_doubt), "orange": (7, 0.0), "yellow": (0, 0.0),
                  "green": (0, 0.0)}
        return {f"reserve-{c}": CountReading(n, 1.0, {c: n}, float(n), doubt=d, in_doubt=d >= 0.5)
                for c, (n, d) in counts.items()}

    colours = ["grey", "blue", "orange", "yellow", "green"]
    counts, origin, doubtful = tray_counts(trays(0.0, 0.0), colours, {}, PLAYERS)
    assert not doubtful and counts["grey"] == 5 and origin["grey"] == "photo"
    # blue 11 to 13 leaves Morgane last: announced, the tray shown in doubt
    counts, origin, doubtful = tray_counts(trays(0.0, 1.0), colours, {}, PLAYERS)
    assert not doubtful and counts["blue"] == 11
    assert origin["blue"] == "photo; a cube may lie on another: 11 to 13, changes no result"
    # grey 5 to 7 decides first place between Abigail and Merlin: asked
    counts, origin, doubtful = tray_counts(trays(1.0, 0.0), colours, {}, PLAYERS)
    assert doubtful == {"grey": ("a cube may lie on another: 5?", [5, 6, 7])}


def _eval_table(seed: int, light: str, table_index: int, frames: int):
    """``eval-piles``' table ``table_index`` under ``light`` (seed ``seed``): (layout, what its calibration frame
    teaches, its first ``frames`` reserve photos with their truth), drawn as the evaluation draws them."""
    from vision import evaluate_piles as ep

    layout = load_layout(ep.LAYOUT)
    rng = np.random.default_rng([seed, ep.LIGHTS.index(light)])
    for _ in range(table_index + 1):
        c, style = ep.table(layout, light, rng, 0.25)
        calibration = ep.table_calibration(layout, c, style, light, rng)
        shots = []
        for f in range(frames):
            fc = replace(c, piles=style, placement_seed=int(rng.integers(2**31)), hand=c.hand if f == 0 else None)
            shots.append(ep.render(layout, ep.random_reserve(layout, rng), fc, light, rng))
    return layout, calibration, shots


def test_a_table_whose_light_shows_every_tops_area_short_still_counts_its_big_piles():
    # Debug seed 14001, warm, table 0: every tray's lit tops 0.85 of the calibration's top (the lamp's light across
    # the tray); piles of 16 blue and 13 yellow, counted right by their squares, were left uncounted by the area
    # check (13.6 and 11.4 tops). Against the frame's own unit they agree.
    layout, calibration, shots = _eval_table(14001, "warm", 0, 2)
    frame, truth = shots[1]
    counts = Reader(layout, calibration).read(frame).counts
    assert truth["counts"]["reserve-blue"] == 16 and not truth["piles"]["reserve-blue"]["stacked"]
    assert counts["reserve-blue"].count == 16
    assert counts["reserve-yellow"].count == truth["counts"]["reserve-yellow"] == 13


def test_the_area_check_still_refuses_a_tray_unlike_the_frames_others():
    # The frame's unit moves the check only where the frame's trays are off alike: one tray a third short of its
    # count, the others as the calibration says, stays uncounted (a hand's shadow, part of the pile unlike its
    # colour).
    from vision.count import agreed
    from vision.reading import CountReading

    def tray(n, area):
        return CountReading(n, 1.0, {"grey": n}, area, areas={"grey": area})

    frame = {"a": tray(12, 12.2), "b": tray(9, 8.9), "c": tray(15, 10.0), "d": tray(6, 6.1), "e": tray(14, 14.0)}
    got = agreed(frame)
    assert got["c"].count is None and got["c"].reason.startswith("spread the grey pile")
    assert [got[z].count for z in "abde"] == [12, 9, 6, 14]
    # a frame whose trays are all 0.85 of the calibration's top: counted, and as sure as where they agree
    short = agreed({z: tray(n, 0.85 * n) for z, n in zip("abcde", (16, 13, 9, 18, 4), strict=True)})
    assert [c.count for c in short.values()] == [16, 13, 9, 18, 4]
    assert min(c.confidence for c in short.values()) > 0.9

def test_a_tray_read_empty_where_part_of_a_top_shows_is_counted_by_hand():
    # Dark green cubes on an illustrated face in dim light (dev table set 19725 t007 f005): no square fitted the six
    # cubes' tops, 0.78 of a top showed, and the tray read 0 at 0.74. An empty tray shows no top at all.
    from vision.count import agreed
    from vision.reading import CountReading

    def tray(n, area):
        return CountReading(n, 1.0, {"green": n}, area, areas={"green": area})

    got = agreed({"seen": tray(0, 0.42), "empty": tray(0, 0.0), "a": tray(6, 6.1), "b": tray(9, 9.0)})
    assert got["seen"].count is None
    assert got["seen"].reason == "the green tray shows part of a cube's top and no whole one: count it by hand"
    assert (got["empty"].count, got["empty"].confidence) == (0, 1.0)
    assert [got[z].count for z in "ab"] == [6, 9]



def test_a_calibration_frame_with_a_cube_beside_its_place_is_not_learnt_as_the_board():
    # Debug seed 14002, mixed light, table 0: the grey cube of the calibration frame lies beside its place, which
    # shows the board; grey was learnt as the board's colour, and every grey tray then read 0 with confidence.
    # With no board to learn the pieces against, the frame is refused. The plain board learnt from the frame
    # (session 68), the grey cube is learnt where it lies, and the grey trays are counted right.
    from vision import evaluate_piles as ep
    from vision.learn import CalibrationFrameError, learn_colours
    from vision.render import calibration_state

    layout = load_layout(ep.LAYOUT)
    rng = np.random.default_rng([14002, ep.LIGHTS.index("mixed")])
    c, style = ep.table(layout, "mixed", rng, 0.25)
    cal_c = replace(c, hand=None, piles=replace(style, stacked=0.0), placement_seed=c.placement_seed + 1)
    frame, _ = ep.render(layout, calibration_state(layout), cal_c, "mixed", rng)
    with pytest.raises(CalibrationFrameError, match=r"no grey piece seen on its place \(cauldron-1\.ingredient-1\)"):
        learn_colours(frame, layout, learn_board=False)
    learnt = learn_colours(frame, layout)
    assert learnt.board is not None and learnt.board.learnt and "grey" in learnt.pieces
    reader = Reader(layout, learnt, spread_stacked=True)
    for k in range(3):  # (measured when written: the four photos tried, every tray exact)
        photo, truth = ep.render(layout, ep.random_reserve(layout, rng), replace(c, hand=None, placement_seed=k),
                                 "mixed", rng)
        assert reader.read(photo).counts["reserve-grey"].count == truth["counts"]["reserve-grey"]


def test_eval_piles_on_a_board_face_of_its_own_reads_the_trays_against_the_enrolled_board():
    # `eval-piles --board illustrated`: each table's empty board enrolled, then its calibration frame learnt against
    # it, as `calibrate board` then `calibrate colours` (dev seed 19381, warm, its one table's first photo).
    from vision import evaluate_piles as ep

    layout = load_layout(ep.LAYOUT)
    rng = np.random.default_rng([19381, ep.LIGHTS.index("warm")])
    c, style = ep.table(layout, "warm", rng, 0.25, board="illustrated")
    assert c.artwork is not None and c.artwork.kind == "illustrated"
    calibration = ep.table_calibration(layout, c, style, "warm", rng)
    assert calibration.board is not None and calibration.pieces
    reader = Reader(layout, calibration, spread_stacked=True)
    assert reader.board_reader is not None
    fc = replace(c, piles=style, placement_seed=int(rng.integers(2**31)), hand=c.hand)
    frame, truth = ep.render(layout, ep.random_reserve(layout, rng), fc, "warm", rng)
    counts = reader.read(frame).counts
    known = {z: n for z, n in truth["counts"].items() if n is not None}
    assert known and all(counts[z].count in (n, None) for z, n in known.items()), (counts, known)
    assert any(counts[z].count == n for z, n in known.items())


def test_a_table_whose_calibration_trays_disagree_is_not_counted_confidently_wrong(tmp_path, monkeypatch):
    # Dev seed 19340, table 9: an illustrated board, cubes 0.82 of the layout's side. Its calibration trays
    # measured one cube's top 1.03, 1.62, 0.67, 1.76, 0.59 of the layout's (the tray's print taken for tops);
    # their median, 1.03, was learnt and this photo's orange 15 was counted 9 with confidence. (Drawn as then,
    # the trays packed: the players' own piles came after, session 61.)
    from vision.evaluate_tables import calibrate_table
    from vision.render import table as tables
    from vision.render.table import write_table

    drawn = tables.random_table
    monkeypatch.setattr(tables, "random_table", lambda *a, **k: replace(drawn(*a, **k), piles=None))

    layout = load_layout("alchimiste")
    paths = list(write_table(tmp_path, layout, "illustrated", 9, 1, 19340, False))
    calibration, notes = calibrate_table(paths[0].parent, layout, tmp_path / "cal.json")
    assert calibration is not None, notes
    shape_top = piece_shapes(layout)["grey"].area_mm2 * 1.04
    assert all(0.55 < a / shape_top < 0.75 for a in calibration.top_area_mm2.values()), calibration.top_area_mm2
    frame = cv2.imread(str(paths[-1]))
    truth = json.loads(paths[-1].with_suffix(".json").read_text())["counts"]
    counts = Reader(layout, calibration, spread_stacked=True).read(frame).counts
    got = {z: c.count for z, c in counts.items()}
    assert all(got[z] in (n, None) for z, n in truth.items()), (got, truth)
    # Since the trays' colours are learnt from the cube nearest each declared colour (session 62), the yellow tray
    # measures 1.48 of the layout's top (its print taken for tops), within what a cube set can show: two of the
    # four such trays agree, the top is not learnt, and every tray is asked with the reason.
    assert all(c.count is not None or c.reason.startswith("cube size not learnt") for c in counts.values())


def test_a_tray_colour_is_learnt_from_its_own_cube_where_it_hardly_differs_from_the_board(tmp_path):
    # Dev seed 19765, table 20: a pale plain board, the calibration frame in dim light. Its grey cube hardly
    # differs from the board, and a corner of the blue cube beside it reached its place's centre: learnt from near
    # the centre, grey was blue (#2f60b2), and this dim frame's grey tray of seven read 0 with confidence.
    from itertools import islice

    from vision.colour import rgb_to_lab
    from vision.evaluate_tables import calibrate_table
    from vision.render.table import write_table

    layout = load_layout("alchimiste")
    paths = list(islice(write_table(tmp_path, layout, "plain", 20, 6, 19765, True), 5))  # to frame f002
    calibration, notes = calibrate_table(paths[0].parent, layout, tmp_path / "cal.json")
    assert calibration is not None, notes
    grey = rgb_to_lab(np.array(calibration.colours["grey"], np.float64))
    blue = rgb_to_lab(np.array(calibration.colours["blue"], np.float64))
    assert np.hypot(grey[1], grey[2]) < 15 and np.linalg.norm(grey - blue) > 30, (grey, blue)
    frame = cv2.imread(str(paths[-1]))
    truth = json.loads(paths[-1].with_suffix(".json").read_text())["counts"]
    assert truth["reserve-grey"] == 7
    got = Reader(layout, calibration, spread_stacked=True).read(frame).counts["reserve-grey"]
    assert got.count in (7, None), got


def test_a_cube_size_the_calibration_trays_cannot_tell_leaves_the_trays_uncounted_with_the_reason(tmp_path):
    # Against an enrolled board: trays that agree loosely and could be a cube set's give the top (dev seed 19340,
    # table 9: 0.67 and 0.59 of the layout's; 1.03, 1.62 and 1.76 do not agree, the last two no cube set's). Trays
    # that cannot tell (dev seed 19341, table 4: 0.37, 0.12, 0.72, learnt 0.37 and trays of 14-18 counted 27-32)
    # leave the top unlearnt: every tray of that shape, measured or not, is left uncounted with the reason, which
    # the calibration file keeps.
    from calibration.store import Calibration, load_calibration
    from vision.colour import ColourModel
    from vision.learn import _top_areas, plausible_ratio

    layout = load_layout("alchimiste")
    assert plausible_ratio([1.03, 1.62, 0.67, 1.76, 0.59]) == pytest.approx(0.63)
    model = ColourModel.from_palette(layout)
    tops, unlearnt = _top_areas(layout, {"grey": [0.37], "yellow": [0.12], "green": [0.72]}, model, any_trays=True)
    assert not tops and set(unlearnt) == {"grey", "blue", "orange", "yellow", "green"}
    assert unlearnt["blue"].startswith("cube size not learnt: the calibration trays measure one cube's top 0.37")
    tops, unlearnt = _top_areas(layout, {"grey": [0.61, 0.63], "yellow": [0.64]}, model)
    assert set(tops) == {"grey", "blue", "orange", "yellow", "green"} and not unlearnt  # (blue's own tray unmeasured)
    Calibration(layout.name, tops_unlearnt={"grey": "cube size not learnt: x"}).save(tmp_path / "cal.json")
    calibration = load_calibration(tmp_path / "cal.json", layout.name)
    _, frame, _ = _frame(STYLES["loose and turned"], 131)
    counts = Reader(layout, calibration, spread_stacked=True).read(frame).counts
    assert counts["reserve-grey"].count is None and counts["reserve-grey"].reason == "cube size not learnt: x"
    assert counts["reserve-blue"].count == RESERVE["reserve-blue"]["blue"]
