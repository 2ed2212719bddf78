"""A cube on another told by its side: one layer's sides are as long as the cube is far from the camera's foot."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from vision import count, stacked, stacked_crops, stacked_model
from vision.reading import CountReading

HALF = 8  # px: half a cube's top


def _sides(cubes: list[tuple[int, int]], foot_x: float = 0.0, y: int = 50) -> list[float]:
    """The sides measured on a drawn row of cubes, (x, side px) each, their sides towards a foot on their left."""
    v = np.zeros((100, 300), np.float32)
    mine = np.zeros(v.shape, bool)
    for x, side in cubes:
        mine[y - HALF:y + HALF + 1, x - HALF - side:x + HALF + 1] = True
        v[y - HALF:y + HALF + 1, x - HALF - side:x - HALF] = 0.5  # the side, darker than the top
        v[y - HALF:y + HALF + 1, x - HALF:x + HALF + 1] = 1.0
    return stacked.side_runs(v, mine, mine & (v >= 0.9), [(y, x) for x, _ in cubes], HALF, np.array([foot_x, y]),
                             1.0)


def test_a_far_cube_of_one_layer_is_not_taken_for_two_and_a_near_one_twice_as_tall_is():
    # One layer's side is about r / 20 here, r the distance from the camera's foot: the far cube's 12 px side
    # is twice the near ones' only for being further off (measured as seen, it made the tray "stacked").
    one_layer = _sides([(60, 3), (90, 5), (120, 6), (250, 12)])
    assert not stacked.stacked(one_layer, None)
    on_another = _sides([(60, 3), (90, 10), (120, 6), (250, 12)])
    assert stacked.stacked(on_another, None)


def _tray(tops: list[tuple[int, int]], side: int = 15) -> CountReading:
    """The counter's squares over lit tops drawn in this order (a later top over an earlier one, as a cube lying
    on others is seen over its neighbours), as the referee's reader measures them."""
    topness = np.zeros((60, 140), np.float32)
    crop = np.empty((60, 140, 3), np.uint8)
    crop[:] = (70, 110, 150)  # the board
    for row, col in tops:
        topness[row:row + side, col:col + side] = 1.0
        crop[row:row + side, col:col + side] = 140  # a grey top
    squares = count.peel_turned(topness, side + 1.0, 2)
    centres = [(r, c) for r, c, _ in squares]
    shares = stacked.top_shares(topness, squares, side + 1.0, side * side)
    return CountReading(len(squares), 1.0, {"grey": len(squares)}, float(topness.sum()) / side ** 2,
                        shares=tuple(shares), closest=stacked.closest(centres, side),
                        picture=stacked_crops.picture(crop, np.full(3, 140 / 255), np.array([70.0, 300.0])))


def test_a_top_partly_hidden_by_a_cube_lying_over_it_is_in_doubt_and_whole_tops_apart_are_not():
    frame = stacked.Frame(None, None, None)
    model = stacked_model.shipped()
    row = [(20, 10), (20, 26), (20, 42), (20, 58)]  # whole tops, a pixel apart
    alone = stacked_model.doubt(_tray(row), frame, 1.0)
    assert alone < model.unsure
    # a cube on the third one: its top seen a layer's parallax further out, over 6 px of the fourth's (its sides
    # and shadow not measured here: the test's doubt, not its certainty; the referee asks where it matters)
    on_another = _tray([(20, 10), (20, 26), (20, 58), (20, 48)])
    assert on_another.count < 5 and stacked_model.doubt(on_another, frame, 1.0) >= max(model.unsure, 5 * alone)


def test_squares_nearer_than_one_layers_keep_a_tray_in_the_referees_doubt_without_asking_it_alone():
    # A big single-layer pile's squares sit a pixel or two off their tops' grid at 1 px/mm: two of them 0.85 of
    # a top apart, the rest of the tray a single layer's. Asked to be spread by that alone, 21 of 1,106 single
    # layers counted right were left uncounted on debug seeds 18001-18004; the tray is counted, and kept in the
    # referee's doubt (a cube may yet lie on another).
    frame = stacked.Frame(None, None, None)
    model = stacked_model.shipped()
    whole = _tray([(20, 10), (20, 26), (20, 42), (20, 58)])
    near = replace(whole, closest=0.85)
    assert stacked.not_one_layer(near) and not stacked.not_one_layer(whole)
    assert stacked_model.doubt(whole, frame, 1.0) < model.unsure
    assert model.unsure <= stacked_model.doubt(near, frame, 1.0) < model.threshold


def test_a_shadow_across_a_top_is_measured_and_a_lit_top_shows_none():
    # A cube lying on others casts its shadow on the tops a layer below it; a single layer's tops are lit whole.
    side = 15
    v = np.zeros((40, 60), np.float32)
    mine = np.zeros(v.shape, bool)
    for col in (5, 21, 37):
        v[10:10 + side, col:col + side], mine[10:10 + side, col:col + side] = 1.0, True
    v[10:10 + side, 21:28] = 0.55  # half the middle top in a shadow
    squares = [(10 + side / 2 - 0.5, col + side / 2 - 0.5, 0.0) for col in (5, 21, 37)]
    lit, shaded, far = stacked.shaded_tops(v, mine, squares, side + 1.0, 1.0)
    assert lit == 0.0 and far == 0.0 and shaded > 0.3


def test_a_damaged_stacked_model_is_one_clear_error(tmp_path):
    bad = tmp_path / "stacked.npz"
    bad.write_bytes(b"not a model")
    with pytest.raises(ValueError, match=r"not a stacked-cube model .*retrain it: alchemy-table train-stacked"):
        stacked_model.StackedModel.load(bad)


def test_train_stacked_learns_from_kept_trays_and_refuses_a_damaged_file(cli, tmp_path):
    # Two seeds of trays kept by train-stacked: a cube on another shows a long side and part of a lower top left
    # over, single layers neither (with noise), and its picture a brighter patch. The model learnt from the first
    # seed asks the held-out seed's stacked trays and few of its single layers.
    from vision.train_stacked import _kept, save_examples

    rng = np.random.default_rng(0)
    n = 160
    y = rng.random(n) < 0.4
    x = rng.normal(0, 0.1, (n, stacked_model.N_FEATURES)).astype(np.float32)
    x[:, 0] += np.where(y, 1.8, 1.1)  # a side against one layer's
    x[:, 1] += np.where(y, 0.3, 0.02)  # a top left over
    crops = rng.integers(60, 90, (n, 40, 60, 3)).astype(np.uint8)
    crops[y, 15:25, 20:30] = 200
    kept = tmp_path / "trays.npz"
    save_examples(kept, _kept(x, y, np.where(np.arange(n) < n // 2, 1, 2), list(crops), np.full((n, 3), 0.5),
                              np.tile([30.0, 200.0], (n, 1))))
    out = tmp_path / "stacked.npz"
    code, printed, _ = cli("train-stacked", "--examples", str(kept), "--out", str(out))
    assert code == 0 and "held out (seed 2)" in printed
    model = stacked_model.StackedModel.load(out)
    assert model.convs  # (it sees the trays' pictures)
    from vision.train_stacked import load_examples

    again = load_examples(kept)
    p = model.probability(x[n // 2:], again.pictures()[n // 2:])
    held = y[n // 2:]
    assert (p[held] >= model.threshold).mean() > 0.9 and (p[~held] >= model.threshold).mean() < 0.15
    kept.write_bytes(b"damaged")
    code, _, err = cli("train-stacked", "--examples", str(kept), "--out", str(out))
    assert code == 2 and "not the trays train-stacked keeps" in err and len(err.strip().splitlines()) == 1


def test_the_enrolled_boards_test_asks_most_stacked_trays_and_doubts_on_the_face_that_shows_them_least():
    # --enrolled: the threshold where STACKED_ASKED of the stacked trays are asked (not a share of single layers),
    # the referee's unsure the lowest STACKED_MISSED quantile over each enrolled face; the layout's board (kind 0),
    # whose end-games keep their own test, does not set it.
    from vision.train_stacked import MIN_KIND, STACKED_ASKED, STACKED_MISSED, _thresholds

    rng = np.random.default_rng(1)
    n = 4 * MIN_KIND
    y = np.tile([True, False], 3 * n)
    board = np.repeat(np.arange(3), 2 * n).astype(np.int8)
    p = np.where(y, rng.uniform(0.3, 1.0, 6 * n), rng.uniform(0.0, 0.5, 6 * n))
    p[y & (board == 0)] -= 0.12  # the layout's board shows its stacked trays least: not this test's doubt
    p[y & (board == 2)] -= 0.08  # an illustrated face less than a plain one
    model = _thresholds(stacked_model.StackedModel.__new__(stacked_model.StackedModel), p, y, board, enrolled=True)
    assert (p[y] >= model.threshold).mean() == pytest.approx(STACKED_ASKED, abs=0.01)
    assert model.unsure == pytest.approx(np.quantile(p[y & (board == 2)], STACKED_MISSED))
    assert model.unsure > np.quantile(p[y & (board == 0)], STACKED_MISSED)
    layout = _thresholds(stacked_model.StackedModel.__new__(stacked_model.StackedModel), p, y, board)
    assert layout.unsure < model.unsure and (p[~y] >= layout.threshold).mean() < (p[~y] >= model.threshold).mean()
