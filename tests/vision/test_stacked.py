"""A cube on another told by its side: one layer's sides are as long as the cube is far from the camera's foot."""

from __future__ import annotations

import numpy as np

from vision import count, stacked
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
    for row, col in tops:
        topness[row:row + side, col:col + side] = 1.0
    squares = count.peel_turned(topness, side + 1.0, 2)
    centres = [(r, c) for r, c, _ in squares]
    shares = stacked.top_shares(topness, squares, side + 1.0, side * side)
    return CountReading(len(squares), 1.0, {"grey": len(squares)}, float(topness.sum()) / side ** 2,
                        shares=tuple(shares), closest=stacked.closest(centres, side))


def test_a_top_partly_hidden_by_a_cube_lying_over_it_is_asked_and_whole_tops_apart_are_not():
    frame = stacked.Frame(None, None, None)
    row = [(20, 10), (20, 26), (20, 42), (20, 58)]  # whole tops, a pixel apart
    assert not stacked.in_doubt(_tray(row), frame, 1.0)
    # a cube on the third one: its top seen a layer's parallax further out, over 6 px of the fourth's
    on_another = _tray([(20, 10), (20, 26), (20, 58), (20, 48)])
    assert on_another.count < 5 and stacked.in_doubt(on_another, frame, 1.0)
