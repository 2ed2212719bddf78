"""The reader's cheaper ways to the same numbers: each gives exactly what the plain numpy or OpenCV call
gives (the readings must not move when the reader gets faster)."""

from __future__ import annotations

import cv2
import numpy as np

from vision import classify
from vision.colour import bgr_to_lab
from vision.geometry import RectMeans, grid_cell_means, rect_means
from vision.read import FIELD_SLACK, LightField
from vision.robust import lower_quartile, median


def test_grid_cell_means_are_an_area_resize_to_the_grid():
    rng = np.random.default_rng(3)
    for cell in (3, 6, 7, 8, 11, 12):  # every default layout's grid cell, odd and even areas
        rows, cols = int(rng.integers(5, 40)), int(rng.integers(5, 40))
        image = rng.integers(0, 256, (rows * cell + int(rng.integers(0, cell)), cols * cell + 2, 3), np.uint8)
        resized = cv2.resize(image[:rows * cell, :cols * cell], (cols, rows), interpolation=cv2.INTER_AREA)
        assert np.array_equal(grid_cell_means(cv2.integral(image), cell, (rows, cols)),
                              resized.reshape(-1, 3).astype(np.float32))


def test_rect_means_gathered_once_are_rect_means():
    rng = np.random.default_rng(4)
    image = rng.integers(0, 256, (90, 120, 3), np.uint8)
    x0, y0 = rng.integers(0, 119, 500), rng.integers(0, 89, 500)
    rects = np.stack([x0, y0, x0 + rng.integers(1, 120 - x0), y0 + rng.integers(1, 90 - y0)], 1).astype(np.int32)
    integral = cv2.integral(image)
    assert np.array_equal(RectMeans(rects, (120, 90))(integral), rect_means(integral, rects))


def test_table_index_is_five_bits_per_channel():
    rng = np.random.default_rng(5)
    bgr = np.concatenate([rng.integers(0, 256, (20000, 3), np.uint8), np.array([[0, 0, 0], [255, 255, 255]], np.uint8)])
    q = (bgr >> 3).astype(np.int32)
    assert np.array_equal(classify.index(bgr), (q[:, 0] << 10) | (q[:, 1] << 5) | q[:, 2])
    image = bgr[:20000].reshape(100, 200, 3)
    assert np.array_equal(classify.index(image), classify.index(bgr[:20000]).reshape(100, 200))
    assert classify.index(np.zeros((0, 3), np.uint8)).shape == (0,)


def test_lab_of_many_colours_at_once_is_their_lab_one_by_one():
    rng = np.random.default_rng(6)
    bgr = rng.random((5000, 3)).astype(np.float32)
    alone = cv2.cvtColor(bgr.reshape(-1, 1, 3), cv2.COLOR_BGR2Lab).reshape(-1, 3)
    assert np.array_equal(bgr_to_lab(bgr), alone)
    assert np.array_equal(bgr_to_lab(bgr.reshape(50, 100, 3)), alone.reshape(50, 100, 3))


def test_median_and_lower_quartile_are_numpys():
    rng = np.random.default_rng(7)
    for size in range(1, 60):
        for dtype in (np.float32, np.float64):
            a = (rng.random(size) * 10).astype(dtype)
            assert median(a) == np.median(a)
            assert lower_quartile(a) == np.percentile(a, 25)


def test_light_field_gain_channel_by_channel_is_the_plain_formula():
    rng = np.random.default_rng(8)
    coef = np.repeat(rng.normal(0, 0.05, (6, 1)), 3, axis=1)
    coef[0] += [4.9, 5.1, 5.3]
    field = LightField(coef, (coef[0] - 0.05).astype(np.float32), (coef[0] + 0.02).astype(np.float32))
    ref = np.array([0.3, 0.5, 0.7], np.float32) * 255.0
    for basis in (rng.uniform(-1, 1, (1000, 6)), rng.uniform(-1, 1, 6)):
        plain = ref / np.exp(np.clip(basis @ coef, field.lo - FIELD_SLACK, field.hi + FIELD_SLACK))
        assert np.array_equal(field.gain(basis, ref), plain)
