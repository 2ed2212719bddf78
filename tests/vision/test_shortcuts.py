"""The reader's cheaper ways to the same numbers: each gives exactly what the plain numpy or OpenCV call
gives (the readings must not move when the reader gets faster)."""

from __future__ import annotations

import cv2
import numpy as np

import vision.read
from vision import classify, count, place_model, robust
from vision.colour import bgr_to_lab
from vision.geometry import RectMeans, grid_cell_means, rect_means
from vision.light_field import FIELD_SLACK, LightField
from vision.robust import channel_max, channel_mean, lower_quartile, median


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


def _plain_peel(topness, side, ring):
    """``count.peel`` as whole-array numpy calls, square after square (as it was first written), placed
    again with the corner rule where they leave most of a top."""
    centres, stranded = _plain_squares(topness, side, ring, corners=False)
    if stranded >= count.REDO_PART * side * side:
        again, _ = _plain_squares(topness, side, ring, corners=True)
        centres = again if len(again) > len(centres) else centres
    return centres


def _plain_squares(topness, side, ring, corners):
    x, y, bw, bh = cv2.boundingRect((topness > 0).view(np.uint8))
    if bw == 0:
        return [], 0.0
    pad = side // 2 + ring + 1
    h, w = topness.shape
    y0, x0 = max(0, y - pad), max(0, x - pad)
    left = topness[y0:min(h, y + bh + pad), x0:min(w, x + bw + pad)].astype(np.float32)
    outer = side + 2 * ring
    k_both, k_ring, k_sides = count.score_weights(side, ring, corners)
    need = count.MIN_COVER * side * side
    half, reach = side // 2, outer // 2
    diff = np.r_[np.ones(ring), np.zeros(side), -np.ones(ring)].astype(np.float32)
    along = np.ones(side, np.float32)

    def box(a, k):
        return cv2.boxFilter(a, -1, (k, k), normalize=False, borderType=cv2.BORDER_CONSTANT)

    def sides(a):  # (left minus right strip, top minus bottom strip)
        return [cv2.sepFilter2D(a, -1, kx, ky, borderType=cv2.BORDER_CONSTANT)
                for kx, ky in ((diff, along), (along, diff))]

    def scored(inner, around, dx, dy, out):
        np.multiply(inner, k_both, out=out)
        out -= around * k_ring
        if corners:
            out += (np.abs(dx) + np.abs(dy)) * k_sides
        out[inner < need] = -np.inf

    inner, around, (dx, dy) = box(left, side), box(left, outer), sides(left)
    score = np.empty_like(inner)
    scored(inner, around, dx, dy, score)
    h, w = left.shape
    centres, stranded, rest = [], 0.0, float(cv2.sumElems(left)[0])
    while len(centres) < count.MAX_PIECES:
        k = int(score.argmax())
        if score.flat[k] == -np.inf:
            stranded = float(inner.max())  # (a part of a top left where no square can go)
            break
        r, c = divmod(k, w)
        centres.append((r + y0, c + x0))
        rest -= float(inner[r, c])
        if rest < need - count.ROUNDING:  # (too little left for a square: nothing stranded)
            break
        r0, r1, c0, c1 = max(0, r - half), min(h, r + half + 1), max(0, c - half), min(w, c + half + 1)
        R0, R1, C0, C1 = max(0, r0 - reach), min(h, r1 + reach), max(0, c0 - reach), min(w, c1 + reach)
        taken = np.zeros((R1 - R0, C1 - C0), np.float32)
        taken[r0 - R0:r1 - R0, c0 - C0:c1 - C0] = left[r0:r1, c0:c1]
        left[r0:r1, c0:c1] = 0
        near = slice(R0, R1), slice(C0, C1)
        inner[near] -= box(taken, side)
        around[near] -= box(taken, outer)
        d_dx, d_dy = sides(taken)
        dx[near] -= d_dx
        dy[near] -= d_dy
        scored(inner[near], around[near], dx[near], dy[near], score[near])
    return centres, stranded


def _random_piles(rng, side=17):
    """A topness map of touching and scattered tops, with seams, noise, and piles against the crop's edges
    (where a square's window is cut off)."""
    h, w = int(rng.integers(40, 130)), int(rng.integers(40, 150))
    top = np.zeros((h, w), np.float32)
    for _ in range(int(rng.integers(0, 25))):
        y, x = int(rng.integers(-side // 2, h - side // 2)), int(rng.integers(-side // 2, w - side // 2))
        top[max(0, y):y + side, max(0, x):x + side] = rng.uniform(0.5, 1.0)
    top += rng.normal(0, 0.1, top.shape).astype(np.float32) * (top > 0)
    return np.clip(top, 0, 1).astype(np.float32)


def test_peel_with_its_buffers_places_the_plain_squares():
    rng = np.random.default_rng(9)
    maps = [_random_piles(rng) for _ in range(150)]
    maps.append(np.ones((9 * 17 + 10, 9 * 17 + 10), np.float32))  # more than MAX_PIECES
    maps.append(np.zeros((30, 30), np.float32))
    for top in maps:
        for ring in (1, 2):
            assert count.peel(top, 17, ring) == _plain_peel(top, 17, ring)


def test_label_pixels_are_the_codes_of_the_label():
    codes = np.arange(256, dtype=np.uint8).reshape(16, 16)
    for label_index in range(16):
        plain = (codes < classify.HIGHLIGHT) & (codes // 16 == label_index)
        assert np.array_equal(count.label_pixels(codes, label_index), plain)


def _plain_relative_brightness(luma, mine, proto_bgr):
    v = luma / (255.0 * max(float(proto_bgr @ count.LUMA), 1e-3))
    values = v[mine]
    bins = np.floor((values - 0.6) * 40).astype(np.int32)
    hist = np.bincount(bins[(bins >= 0) & (bins < 36)], minlength=36)
    hist = hist + np.r_[0, hist[:-1]] + np.r_[hist[1:], 0]  # (three bins at a time)
    peak = 0.6 + 0.025 * int(np.argmax(hist)) + 0.0125
    near = values[np.abs(values - peak) < 0.1 * peak]
    return v / (median(near) if near.size else peak)


def _plain_count_pieces(norm, zone_labels, model, labels, table, px_per_mm):
    """``count.count_pieces`` as it was first written: every label on its own, with the plain peel."""
    norm = cv2.GaussianBlur(norm, (0, 0), count.BLUR_SIGMA)
    out = {}
    for label in zone_labels:
        if label == "empty":
            continue
        piece_px = count.piece_area_px(model, label, px_per_mm)
        codes = table.take(classify.index(norm))
        mine = (codes < classify.HIGHLIGHT) & (codes // 16 == labels.index(label))
        if np.count_nonzero(mine) < count.MIN_BLOB * piece_px:
            out[label] = (0, 0.0)
            continue
        v = _plain_relative_brightness(norm.astype(np.float32) @ count.LUMA, mine, model.prototypes_bgr[label])
        topness = np.clip((v - count.TOP_FLOOR) * (1 / (1 - count.TOP_FLOOR)), 0, 1) * mine
        side_px = np.sqrt(piece_px) + count.SQUARE_MARGIN_MM * px_per_mm  # blob by blob, turned and resampled
        n = len(count.peel_turned(topness, side_px, max(1, round(count.RING_MM * px_per_mm)), peel=_plain_peel))
        area = float(np.count_nonzero(mine & (v >= count.TOP_FRACTION)))
        gap = count.PILE_GAP_MM * np.sqrt(piece_px) * px_per_mm
        out[label] = (n, float(count.blob_pieces(area, piece_px, gap)))
    return out


def test_counting_a_tray_counts_what_the_plain_calls_count(rendered, monkeypatch):
    trays = []

    def keep(norm, *args):
        trays.append((norm, args))
        return count.count_zone(norm, *args)

    monkeypatch.setattr(vision.read, "count_zone", keep)
    for light, seed in (("daylight", 0), ("dim", 1), ("warm", 2)):
        layout, frame, _ = rendered("alchimiste", light, seed)
        vision.read.Reader(layout).read(frame)
    assert len(trays) >= 10
    counted = [{label: (n, u) for label, (n, u, *_) in count.count_pieces(norm, *args).items()} for norm, args in trays]
    assert sum(n for found in counted for n, _ in found.values()) > 30
    assert counted == [_plain_count_pieces(norm, *args[:5]) for norm, args in trays]
    for norm, (zone_labels, model, labels, table, px_per_mm, *_) in trays:  # and the calibration's way to the tops
        blurred = cv2.GaussianBlur(norm, (0, 0), count.BLUR_SIGMA)
        for label in zone_labels:
            index, proto = labels.index(label), model.prototypes_bgr[label]
            tops = count.lit_tops(blurred, index, proto, table, count.piece_area_px(model, label, px_per_mm))
            codes = table.take(classify.index(blurred))
            mine = (codes < classify.HIGHLIGHT) & (codes // 16 == index)
            plain = _plain_relative_brightness(blurred.astype(np.float32) @ count.LUMA, mine, proto)
            assert tops is None or (np.array_equal(tops[0], plain) and np.array_equal(tops[1], mine))


def test_channel_max_and_mean_are_numpys():
    rng = np.random.default_rng(8)
    for shape in ((1, 3), (997, 3), (60, 401, 3), (7, 5, 3)):
        for dtype in (np.float32, np.float64):
            a = (rng.standard_normal(shape) * 10).astype(dtype)
            assert np.array_equal(channel_max(a), a.max(axis=-1))
            assert np.array_equal(channel_mean(a), a.mean(axis=-1))
            assert channel_mean(a).dtype == a.mean(axis=-1).dtype
    crop = rng.integers(0, 256, (40, 50, 3), np.uint8)
    assert np.array_equal(channel_max(crop), crop.max(axis=2))


def test_the_places_windows_and_the_fits_middles_are_the_plain_ones():
    # The place network's 3 x 3 windows copied once from a view: the nine shifted copies of the zero-padded
    # picture side by side; the light fit's medians along the last axis: numpy's.
    rng = np.random.default_rng(9)
    h = rng.standard_normal((5, 8, 8, 11)).astype(np.float32)
    padded = np.pad(h, ((0, 0), (1, 1), (1, 1), (0, 0)))
    plain = np.concatenate([padded[:, dy:dy + 8, dx:dx + 8] for dy in range(3) for dx in range(3)], axis=3)
    assert np.array_equal(place_model.conv3_windows(h), plain)
    for n in (400, 401, 1, 2):
        a = rng.standard_normal((6, 3, n))
        assert np.array_equal(robust.medians(a), np.median(a, axis=-1))
