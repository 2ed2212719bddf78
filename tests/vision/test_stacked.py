"""A cube on another told by its side: one layer's sides are as long as the cube is far from the camera's foot."""

from __future__ import annotations

import numpy as np

from vision import stacked

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
