"""The canonical board image and where every zone's cells lie in it; computed once per layout.

Reading warps each frame once to a canonical, top-down image of the board at ``px_per_mm`` (chosen so
the image stays small: the read must cost about as much as one warp of the frame). Statistics are then
taken over rectangles of that image with one integral image: each slot zone is split into ``cells`` x
``cells`` rectangles, and the whole board into a coarse grid (for the lighting field and the hand mask).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from calibration.layout import Layout

CANONICAL_PIXELS = 250_000  # budget for the canonical image
SLOT_CELLS = 7
SLOT_INSET_MM = 1.5  # keep away from the printed outline of the slot
COUNT_MARGIN_MM = 12.0
COUNT_PX_PER_MM = 1.0  # count zones are sampled again from the frame, finer than the canonical image (about
# the frame's own resolution there: finer costs time and counts no better)
GRID_CELLS = 25_000  # budget for the coarse board grid
GRID_MIN_MM = 4.0


@dataclass(frozen=True)
class BoardGeometry:
    px_per_mm: float
    size_px: tuple[int, int]  # canonical width, height
    slot_ids: tuple[str, ...]
    slot_rects: np.ndarray  # (n_slots * cells², 4) x0, y0, x1, y1 in canonical px
    slot_centres_mm: np.ndarray  # (n_slots, 2)
    count_ids: tuple[str, ...]
    count_rects: np.ndarray  # (n_count, 4) canonical px
    count_centres_mm: np.ndarray
    grid_mm: float  # side of a grid cell
    grid_px: int  # the same in canonical pixels
    grid_shape: tuple[int, int]  # rows, cols
    grid_rects: np.ndarray  # (rows * cols, 4) canonical px
    grid_centres_mm: np.ndarray  # (rows * cols, 2)
    grid_background: np.ndarray  # (rows, cols) bool: board background only (no zone, no marker)
    grid_marker: np.ndarray  # (rows, cols) bool: a marker sticker lies there
    zone_grid_rects: dict[str, tuple[int, int, int, int]]  # zone -> (r0, c0, r1, c1) grid cells inside it
    cells: int = SLOT_CELLS
    marker_grid_rects: dict[int, tuple[int, int, int, int]] = field(default_factory=dict)  # marker -> its cells
    count_rects_mm: tuple[tuple[float, float, float, float], ...] = ()  # count zones with their margins, mm

    def count_samples_mm(self, i: int) -> tuple[np.ndarray, np.ndarray]:
        """Where the pixels of count zone ``i``'s crop (with its margins, at COUNT_PX_PER_MM) lie on the
        board, mm: (xs (w,), ys (h,))."""
        x0, y0, x1, y1 = self.count_rects_mm[i]
        s = COUNT_PX_PER_MM
        w, h = max(1, round((x1 - x0) * s)), max(1, round((y1 - y0) * s))
        return (np.arange(w) + 0.5) / s + x0, (np.arange(h) + 0.5) / s + y0

    @property
    def canonical_from_mm(self) -> np.ndarray:
        s = self.px_per_mm
        return np.array([[s, 0, -0.5], [0, s, -0.5], [0, 0, 1.0]])


def default_px_per_mm(layout: Layout) -> float:
    w, h = layout.size
    return round(min(4.0, math.sqrt(CANONICAL_PIXELS / (w * h))), 3)


def board_geometry(layout: Layout, px_per_mm: float | None = None) -> BoardGeometry:
    s = px_per_mm or default_px_per_mm(layout)
    W, H = round(layout.size[0] * s), round(layout.size[1] * s)
    k = SLOT_CELLS

    def px_rect(left, top, right, bottom):
        x0, y0 = round(left * s), round(top * s)
        x1, y1 = max(x0 + 1, round(right * s)), max(y0 + 1, round(bottom * s))
        return [min(max(x0, 0), W - 1), min(max(y0, 0), H - 1), min(x1, W), min(y1, H)]

    slots = [z for z in layout.zones if z.kind == "slot"]
    slot_rects = []
    for z in slots:
        left, top, right, bottom = z.bounds
        inset = min(SLOT_INSET_MM, 0.1 * min(z.size))
        # px_rect of each of the k x k cells, row by row, in numpy (the same roundings: half to even)
        xs = np.round(np.linspace(left + inset, right - inset, k + 1) * s).astype(np.int64)
        ys = np.round(np.linspace(top + inset, bottom - inset, k + 1) * s).astype(np.int64)
        x0, y0 = np.minimum(np.maximum(xs[:-1], 0), W - 1), np.minimum(np.maximum(ys[:-1], 0), H - 1)
        x1, y1 = np.minimum(np.maximum(xs[:-1] + 1, xs[1:]), W), np.minimum(np.maximum(ys[:-1] + 1, ys[1:]), H)
        rows_of, cols_of = np.repeat(np.arange(k), k), np.tile(np.arange(k), k)
        slot_rects.append(np.stack([x0[cols_of], y0[rows_of], x1[cols_of], y1[rows_of]], 1))
    counts = [z for z in layout.zones if z.kind == "count"]
    # Piles lean outwards (the camera sees tall tops displaced away from it, up to a centimetre near the
    # board's edge): read a count zone with a margin on each side, half the gap to the nearest zone or
    # marker on that side (the board's edge counts as one), at most COUNT_MARGIN_MM.
    count_rects, count_rects_mm = [], []
    for z in counts:
        left, top, right, bottom = z.bounds
        margins = [min(COUNT_MARGIN_MM, left), min(COUNT_MARGIN_MM, top),
                   min(COUNT_MARGIN_MM, layout.size[0] - right), min(COUNT_MARGIN_MM, layout.size[1] - bottom)]
        for other in [*layout.zones, *layout.markers]:
            if other is z:
                continue
            ob = other.bounds if hasattr(other, "bounds") else (*other.corners()[0], *other.corners()[2])
            beside_y = ob[1] < bottom and ob[3] > top  # overlaps the zone's rows: a neighbour left or right
            beside_x = ob[0] < right and ob[2] > left
            for side, gap, beside in ((0, left - ob[2], beside_y), (1, top - ob[3], beside_x),
                                      (2, ob[0] - right, beside_y), (3, ob[1] - bottom, beside_x)):
                if gap >= 0 and (beside or gap < COUNT_MARGIN_MM):
                    margins[side] = min(margins[side], gap / 2)
        mm = (left - max(0.0, margins[0]), top - max(0.0, margins[1]),
              right + max(0.0, margins[2]), bottom + max(0.0, margins[3]))
        count_rects_mm.append(mm)
        count_rects.append(px_rect(*mm))

    # Grid cells are a whole number of canonical pixels, so that the integral image sums each exactly.
    cell_px = max(3, round(max(GRID_MIN_MM, math.sqrt(layout.size[0] * layout.size[1] / GRID_CELLS)) * s))
    cols, rows = max(1, W // cell_px), max(1, H // cell_px)
    gx = gy = g = cell_px / s
    r, c = (a.ravel() for a in np.mgrid[0:rows, 0:cols])  # (row by row, as the cells are numbered)
    grid_rects = np.stack([c * cell_px, r * cell_px, (c + 1) * cell_px, (r + 1) * cell_px], 1).astype(np.int32)
    centres = np.stack([(c + 0.5) * gx, (r + 0.5) * gy], 1)
    background = np.ones((rows, cols), bool)
    marker = np.zeros((rows, cols), bool)

    def cells_touching(left, top, right, bottom):
        c0, c1 = max(0, math.floor(left / gx)), min(cols, math.ceil(right / gx))
        r0, r1 = max(0, math.floor(top / gy)), min(rows, math.ceil(bottom / gy))
        return slice(r0, r1), slice(c0, c1)

    margin = 2.0  # pieces lean a little out of their zone (parallax), shadows more
    for z in layout.zones:
        left, top, right, bottom = z.bounds
        background[cells_touching(left - margin, top - margin, right + margin, bottom + margin)] = False
    marker_grid = {}
    for m in layout.markers:
        quiet = m.size / 6 + 1.5
        (left, top), (right, bottom) = m.corners()[0], m.corners()[2]
        sl = cells_touching(left - quiet, top - quiet, right + quiet, bottom + quiet)
        background[sl] = False
        marker[sl] = True
        marker_grid[m.id] = (sl[0].start, sl[1].start, sl[0].stop, sl[1].stop)
    zone_grid = {}
    for z in layout.zones:
        left, top, right, bottom = z.bounds
        c0, c1 = math.ceil(left / gx - 0.5), math.floor(right / gx - 0.5) + 1
        r0, r1 = math.ceil(top / gy - 0.5), math.floor(bottom / gy - 0.5) + 1
        if c1 <= c0:
            c0, c1 = int(z.center[0] // gx), int(z.center[0] // gx) + 1
        if r1 <= r0:
            r0, r1 = int(z.center[1] // gy), int(z.center[1] // gy) + 1
        zone_grid[z.id] = (max(0, r0), max(0, c0), min(rows, r1), min(cols, c1))
    return BoardGeometry(
        s, (W, H), tuple(z.id for z in slots),
        (np.concatenate(slot_rects) if slot_rects else np.zeros((0, 4))).astype(np.int32),
        np.array([z.center for z in slots], float).reshape(-1, 2), tuple(z.id for z in counts),
        np.array(count_rects, np.int32).reshape(-1, 4), np.array([z.center for z in counts], float).reshape(-1, 2),
        float(g), cell_px, (rows, cols), grid_rects, centres, background, marker,
        zone_grid, k, marker_grid, tuple(count_rects_mm))


class RectMeans:
    """``rect_means`` over fixed rectangles of images of one size (``size_px``, ``channels``): where their
    corners lie in the integral image is worked out once, so that each image's means are one gather."""

    def __init__(self, rects: np.ndarray, size_px: tuple[int, int], channels: int = 3):
        x0, y0, x1, y1 = (rects[:, i].astype(np.int64) for i in range(4))
        row = size_px[0] + 1
        corners = np.stack([y1 * row + x1, y0 * row + x1, y1 * row + x0, y0 * row + x0])
        self._flat = (corners[..., None] * channels + np.arange(channels)).reshape(4, -1)
        self._area = np.repeat(((x1 - x0) * (y1 - y0)).astype(np.float64), channels)
        self._area32 = self._area.astype(np.float32)
        self._channels = channels

    def __call__(self, integral: np.ndarray) -> np.ndarray:
        """Mean colour over each rectangle, (n, channels) float64: the same values as ``rect_means``."""
        a, b, c, d = integral.reshape(-1).take(self._flat)  # (exact integer sums)
        return ((a - b - c + d) / self._area).reshape(-1, self._channels)

    def float32(self, integral: np.ndarray) -> np.ndarray:
        """``self(integral).astype(np.float32)``, the same values, for a third less time: from a uint8 image's
        integral (int32), over rectangles of less than 65,000 pixels, the sums are exact in float32 and float32
        division rounds their quotient as the float64 one and its conversion do (a quotient of such integers
        is never that near a float32 halfway point)."""
        a, b, c, d = integral.reshape(-1).take(self._flat)
        sums = cv2.subtract(a, b).reshape(a.shape)
        cv2.subtract(sums, c, sums)
        cv2.add(sums, d, sums)
        return np.divide(sums, self._area32, dtype=np.float32).reshape(-1, self._channels)


def grid_cell_means(integral: np.ndarray, cell_px: int, shape: tuple[int, int]) -> np.ndarray:
    """Mean colour of every cell of the grid (``shape``: rows, cols; cells of ``cell_px`` x ``cell_px``
    pixels from the image's corner) from the integral image of a uint8 image: (rows * cols, channels)
    float32, rounded to whole levels half to even (as one INTER_AREA resize to the grid rounds them)."""
    rows, cols = shape
    channels = integral.shape[2]
    # The cells' corners, gathered as one item per pixel (numpy is slow along a short axis).
    pixel = np.dtype((np.void, channels * integral.itemsize))
    corners = np.ascontiguousarray(integral.view(pixel)[:rows * cell_px + 1:cell_px, :cols * cell_px + 1:cell_px])
    c = corners.view(integral.dtype).reshape(rows + 1, (cols + 1) * channels)
    # (in OpenCV: a third of numpy's time on these views; exact, the integers are far from saturating)
    sums = cv2.subtract(c[1:, channels:], c[:-1, channels:])
    cv2.subtract(sums, c[1:, :-channels], sums)
    cv2.add(sums, c[:-1, :-channels], sums)
    means = sums.reshape(-1, channels).astype(np.float32)
    means *= np.float32(1 / (cell_px * cell_px))
    return np.rint(means, out=means)


def rect_means(integral: np.ndarray, rects: np.ndarray) -> np.ndarray:
    """Mean colour over each rectangle from an integral image (one vectorised lookup)."""
    x0, y0, x1, y1 = rects[:, 0], rects[:, 1], rects[:, 2], rects[:, 3]
    sums = (integral[y1, x1].astype(np.float64) - integral[y0, x1] - integral[y1, x0] + integral[y0, x0])
    area = ((x1 - x0) * (y1 - y0)).astype(np.float64)
    return sums / area.reshape(-1, *([1] * (sums.ndim - 1)))


def to_frame(pts_mm, H: np.ndarray, lens=None) -> np.ndarray:
    """Board mm -> the frame's pixels (``pts_mm``: (..., 2)): through the homography to the ideal image, then
    through the lens when it is known (``calibration.store.LensModel``: the pixels the sensor records). A
    picture drawn on the frame with the homography alone misses the board by the lens's bend (a wide lens:
    tens of pixels at the board's far side)."""
    pts = np.asarray(pts_mm, np.float64)
    shape = pts.shape
    img = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), H).reshape(-1, 2)
    if lens is not None:
        img = lens.distort_points(img)
    return img.reshape(shape)
