"""Counting the pieces in a count zone (a reserve tray).

The zone is sampled again from the frame, finer than the canonical image (``COUNT_PX_PER_MM``), and its
light normalised against the board. Each pixel takes the nearest of the zone's labels or the board (at
a few shades each, no "none of them": in dim, noisy light a grey cube's pixels scatter far from grey, but
stay nearer grey than the board). A piece's top face is its lit part; its sides (which lean outwards, a
camera above the middle of the table sees the far sides of the pieces near the edge) are darker.

Pieces are counted one by one (``peel``): touching tops make one blob, but a piece's top has a known
size (its footprint from the layout, seen a little larger as it is nearer the camera, or a calibration's
measure), so the blob is covered greedily by squares of that size. Each square goes where it covers the
most top that is left while the ring just outside it covers the least: at a corner of what is left, or on
the darker seams between touching tops. Its top is then taken away and the next square placed, until no
place covers half a top. Dividing the blob's area by one top's area (the former method) is off by a cube
on big piles as soon as the top faces' outline is a pixel off all around; placing squares is not.

The squares are ``SQUARE_MARGIN_MM`` wider than a top, and of that width to a fraction of a pixel, turned
as the tops are (``peel_turned``: blob by blob, the blob turned so that its tops' edges lie along the squares'
and resampled so that a square is a whole odd number of pixels). A square just the top's size (or rounded up
or down to odd pixels) left a strip of every top it sat off by half a pixel, and on loose piles the strips of
neighbouring tops made one more cube (single-layer trays of piles left loosely, dev seeds 6101-6102: 90.3 %
exact, every error one or more too many; with the margin 0.7 mm 97.9 %, 1.0 mm 99.1 %, 1.2 mm 99.3 %, but on
packed piles 1.2 mm took a neighbour's strip too and two dense dim piles came one short; turned, 99.5 %).
What a single layer's tops leave uncovered then is thin rims; part of a top left over (``stray_top``) is a
lower cube's, under another (``vision.stacked``).

Where the squares leave part of a top that no square can take (a place covering ``REDO_PART`` of a top or
more, but less than half), they are placed again by a rule for corners and the larger count is kept. In a
run of tops one piece wide between two parts of a pile (empty above and below, tops left and right) the
seams between touching tops hardly show and every place along the run scores alike; a square half a top
off the tops' grid there leaves half a top at each end of the run, which no square can take (grey piles
counted one short). The corner rule scores a square also by the emptier side of its ring along each axis,
min(left, right) and min(top, bottom) (``_Squares``), so that squares start where one fits both ways, at
corners, and follow the tops' grid from there. The first rule alone stands where it strands nothing: the
two rules each miss a few trays the other counts, and the corner rule costs twice as much (the redo runs
on about one tray in 500).

The area estimate is kept as a check: when it and the squares disagree by more than ``DISAGREE`` pieces
(part of the pile unlike its colour, a hand's shadow over it), the zone is uncountable (``None``) rather
than a guess; the stabiliser waits for a better frame. A big pile's area is known only to a few percent
(its outline gains or loses a pixel all around; in dim light one tray in twelve of 13 to 18 cubes counted
right by its squares had an area 5 % or more off, a few 10 %): from 13 cubes the check allows
``DISAGREE_SHARE`` of the count (grey piles of 17 and 18 counted right, uncountable for areas 1.7-1.8 short).
A count's confidence falls from 1 (the two agree) to 0.5 at the edge of the allowance. The area is taken in the
calibration's tops or in the frame's own (``agreed``), whichever agrees better: a table's light (a lamp's fall
across a tray) shows every tray's tops alike short or large, which is no tray's fault.

The cost is mostly per square: each is a handful of small array calls that update the sums within its
reach (``_Squares``, arguments by position into buffers made once), and the last square is not followed
by an update once what is left of the tops could not fill half a square: the same squares, for less.
"""

from __future__ import annotations

import functools
import math
from dataclasses import replace
from typing import NamedTuple

import cv2
import numpy as np

from vision import classify, robust, stacked
from vision.colour import ColourModel
from vision.masks import holes_filled
from vision.pieces import NEAR_CAMERA
from vision.reading import CountReading

TOP_FRACTION = 0.9  # area estimate: a pixel at least this bright (of the top's mode) is top
TOP_FLOOR = 0.7  # squares: a pixel's "topness" rises from 0 at this brightness to 1 at the top's mode
SQUARE_MARGIN_MM = 1.0  # a square is this much wider than a top (the docstring)
RING_MM = 2.0  # the ring outside a square, where a placed square's neighbours or seams should be
REDO_PART = 0.3  # squares that leave a place where this much of a top is left are placed again (corner rule)
CORNER_RING = 0.5  # the whole ring's weight in the corner rule's score, beside its emptier sides
MIN_COVER = 0.5  # a square must cover this much of a top that is left
DISAGREE = 1.5  # squares and area further apart than this: uncountable
DISAGREE_SHARE = 0.12  # or than this share of the count (a big pile's area is known to a few percent only)
# The area is also taken in the frame's own unit (``area_unit``): the median over its trays of UNIT_CUBES cubes or
# more (UNIT_TRAYS of them at least) of their area over their count. A table's light and the calibration's measure
# of a top (three cubes) put every tray of a frame off alike: debug seeds 14001-14002 (153 frames, trays of 4 cubes
# or more), single-layer trays' area over their cubes 0.73-1.13 (1st-99th percentile; frame by frame, the medians
# 0.81-1.24), over their frame's median 0.85-1.09. On 14001 the check left 18 of 445 single-layer trays uncounted,
# 13 of them on two tables whose tops showed 0.85 and 0.84 of a top (warm, dim); with the frame's unit, 4.
# UNIT_RANGE: the frames' medians seen, a little wider; beyond, a frame's trays are off for another reason.
UNIT_CUBES = 4
UNIT_TRAYS = 3
UNIT_RANGE = (0.8, 1.25)
BLUR_SIGMA = 0.7  # px: smooth the noise, not the seams between tops
PILE_GAP_MM = 0.25  # between two touching pieces in a pile
MIN_BLOB = 0.3  # fraction of one piece below which a blob is noise, and a hole is filled
MAX_PIECES = 60
STRAY_OPEN = 3  # px: a part of a top left uncovered thinner than this is a rim, not a top
ROUNDING = 0.5  # px of topness: far more than the float32 box sums, kept by subtraction, can drift
LUMA = np.array([0.114, 0.587, 0.299], np.float32)
_MODE_WINDOW = np.ones(3, np.int64)


def _tidy(top: np.ndarray, piece_px: float) -> tuple[np.ndarray, np.ndarray]:
    """Fill small holes inside ``top`` (uint8 0/1) and drop small specks: (mask, area of each blob)."""
    # Enclosed holes: the small ones are filled (glints), not a missing piece's gap.
    top = holes_filled(top, lambda area: area < MIN_BLOB * piece_px)
    _, labels, stats, _ = cv2.connectedComponentsWithStats(top, connectivity=8)
    keep = stats[:, cv2.CC_STAT_AREA] >= MIN_BLOB * piece_px
    keep[0] = False
    return keep[labels], stats[keep, cv2.CC_STAT_AREA].astype(float)


def blob_pieces(area_px: np.ndarray | float, piece_px: float, gap_px: float) -> np.ndarray:
    """How many pieces make blobs of ``area_px``: solves n A + (2n - 2 sqrt(n)) G = area for n, with A one
    piece's top and G the unseen gap along one side of it (t = sqrt(n): (A + 2G) t² - 2G t - area = 0)."""
    a, g = piece_px, gap_px
    t = (2 * g + np.sqrt(4 * g * g + 4 * (a + 2 * g) * area_px)) / (2 * (a + 2 * g))
    return np.maximum(t * t, area_px / a) if g <= 0 else t * t


def label_pixels(codes: np.ndarray, label_index: int) -> np.ndarray:
    """The pixels (bool) whose code (uint8, from a table) is the label ``label_index`` at any shade."""
    mine = (codes >> 4) == label_index  # code = label * 16 + shade
    if label_index == classify.HIGHLIGHT >> 4:  # the last label's codes end with HIGHLIGHT and FOREIGN
        mine &= codes < classify.HIGHLIGHT
    return mine


def lit_tops(norm: np.ndarray, label_index: int, proto_bgr: np.ndarray, table: np.ndarray, piece_px: float
             ) -> tuple[np.ndarray, np.ndarray] | None:
    """(brightness relative to the label's lit tops, pixels of the label) in a normalised crop, or None
    when the label is hardly there. The tops' brightness is the mode of the label's pixels."""
    return _lit_tops(table.take(classify.index(norm)), luma_of(norm), label_index, proto_bgr, piece_px)


def _lit_tops(codes: np.ndarray, luma: np.ndarray, label_index: int, proto_bgr: np.ndarray, piece_px: float
              ) -> tuple[np.ndarray, np.ndarray] | None:
    """``lit_tops`` from the crop's table codes and brightness (worked out once for all its labels)."""
    mine = label_pixels(codes, label_index)
    if np.count_nonzero(mine) < MIN_BLOB * piece_px:
        return None
    return relative_brightness(luma, mine, proto_bgr), mine


def luma_of(norm: np.ndarray) -> np.ndarray:
    """Brightness (float32, 0..255) of every pixel of a uint8 BGR crop."""
    return norm.astype(np.float32) @ LUMA


def relative_brightness(luma: np.ndarray, mine: np.ndarray, proto_bgr: np.ndarray) -> np.ndarray:
    """Each pixel's brightness (float32) relative to the lit tops of the label whose pixels are ``mine``:
    the mode of their brightness, over three bins (0.075) at a time. (Bin by bin, a lone cube's lit side in
    daylight, a few evenly lit columns of pixels, outnumbered its top, whose light varies a little more
    across it: the side was taken for the top and the cube counted twice.)"""
    v = luma / (255.0 * max(float(proto_bgr @ LUMA), 1e-3))
    values = v[mine]
    bins = np.floor((values - 0.6) * 40).astype(np.int32)  # 0.025 wide from 0.6 to 1.5
    hist = np.bincount(bins[(bins >= 0) & (bins < 36)], minlength=36)
    peak = 0.6 + 0.025 * int(np.argmax(np.convolve(hist, _MODE_WINDOW, "same"))) + 0.0125
    near = values[np.abs(values - peak) < 0.1 * peak]
    v /= robust.median(near) if near.size else peak
    return v


def top_blobs(norm: np.ndarray, label_index: int, proto_bgr: np.ndarray, table: np.ndarray, piece_px: float
              ) -> np.ndarray:
    """Areas in pixels of the blobs of lit top faces of the label ``label_index`` in a normalised crop
    (uint8 BGR)."""
    tops = lit_tops(norm, label_index, proto_bgr, table, piece_px)
    if tops is None:
        return np.zeros(0)
    v, mine = tops
    return _tidy((mine & (v >= TOP_FRACTION)).astype(np.uint8), piece_px)[1]


def peel(topness: np.ndarray, side: int, ring: int) -> list[tuple[int, int]]:
    """Centres (row, col) of squares of ``side`` px (odd) laid greedily over ``topness`` (float32, 0..1):
    each where it covers the most of what is left while the ring of ``ring`` px around it covers the
    least, as long as it covers at least ``MIN_COVER``; placed again by the corner rule, the more squares
    kept, where they strand ``REDO_PART`` of a top (the module's docstring)."""
    tops = cv2.boundingRect((topness > 0).view(np.uint8))
    if tops[2] == 0:
        return []
    squares = _Squares(topness, tops, side, ring)
    centres = squares.place()
    if squares.stranded >= REDO_PART * side * side:
        again = _Squares(topness, tops, side, ring, corners=True).place()
        centres = again if len(again) > len(centres) else centres
    return centres


class _Squares:
    """What is left of the topness, its sums over a square and over a square with its ring around every
    place, and the score of a square there: inner / side² - ring / ring area. With ``corners``, also the
    differences between the ring's opposite sides (dx: its left minus its right strip, dy: top minus
    bottom; ``ring`` x ``side`` px each), and the score inner / side² - CORNER_RING ring / ring area
    - (min(L, R) + min(T, B)) / (2 ring side), where min(a, b) = (a + b - |a - b|) / 2 and the sides' sum
    is taken as the whole ring's (two differences, not four sums). Taking a square away changes the sums
    only within reach of it: they are updated there.

    Only places on the tops' bounding box can cover enough: the sums are worked out there, in buffers wide
    enough that every update's reach fits (inner sums of -inf all around: never a square), so that each
    update is the same few small calls (their overheads are most of the cost). The score leaves out the
    cover test: the best place nearly always covers enough, and when not, the best that does is looked for
    then. The arithmetic is the plain one (float32 products, sums and differences as numpy does them; box
    sums of zeros are zeros), so that the same squares win as with whole-array numpy over the crop."""

    def __init__(self, topness: np.ndarray, tops: tuple[int, int, int, int], side: int, ring: int,
                 corners: bool = False):
        self.side, self.outer, self.corners = side, side + 2 * ring, corners
        self.half, self.reach = side // 2, self.outer // 2
        self.k_both, self.k_ring, self.k_sides = score_weights(side, ring, corners)
        self.k_diff, self.k_along = _side_kernels(side, ring)
        self.need = MIN_COVER * side * side
        self.below_need = _below(self.need)
        # The places: the tops' bounding box, widened as far as a square off it could still cover enough
        # (not at all while MIN_COVER >= 0.5).
        x, y, bw, bh = tops
        spill = max(0, self.half + 1 - math.ceil(MIN_COVER * side))
        h, w = topness.shape
        y0, y1, x0, x1 = max(0, y - spill), min(h, y + bh + spill), max(0, x - spill), min(w, x + bw + spill)
        self.m = m = self.half + self.reach  # from a square's centre to the edge of what it changes
        self.origin = (y0 - m, x0 - m)
        self.left = np.zeros((y1 - y0 + 2 * m, x1 - x0 + 2 * m), np.float32)
        places = slice(m, m + y1 - y0), slice(m, m + x1 - x0)
        self.left[places] = topness[y0:y1, x0:x1]
        self.rest = cv2.sumElems(self.left)[0]  # the topness not yet under a square: no square covers more
        self.stranded = 0.0
        sums = np.empty((5 if corners else 3, *self.left.shape), np.float32)  # (one array made, not five)
        sums[0], sums[1:-1], sums[-1] = -np.inf, 0, -np.inf
        self.inner, self.around, self.score = sums[0], sums[1], sums[-1]
        self.dx, self.dy = (sums[2], sums[3]) if corners else (None, None)
        inner, around, score = self.inner[places], self.around[places], self.score[places]
        _box(self.left[places], side, inner)
        _box(self.left[places], self.outer, around)
        np.subtract(np.multiply(inner, self.k_both, out=score), around * self.k_ring, out=score)
        if corners:
            dx, dy = self.dx[places], self.dy[places]
            self._sides(self.left[places], dx, dy)
            self._add_sides(dx, dy, score, *np.empty((2, *score.shape), np.float32))

    def _sides(self, a: np.ndarray, dx: np.ndarray, dy: np.ndarray) -> None:
        """The ring's left minus right strip and top minus bottom strip over ``a``, at every place."""
        cv2.sepFilter2D(a, -1, self.k_diff, self.k_along, dx, (-1, -1), 0, cv2.BORDER_CONSTANT)
        cv2.sepFilter2D(a, -1, self.k_along, self.k_diff, dy, (-1, -1), 0, cv2.BORDER_CONSTANT)

    def _add_sides(self, dx: np.ndarray, dy: np.ndarray, score: np.ndarray, part: np.ndarray,
                   sides: np.ndarray) -> None:
        """The corner rule's (|dx| + |dy|) k_sides added to ``score`` (``part``, ``sides``: buffers)."""
        np.abs(dx, out=sides)
        sides += np.abs(dy, out=part)
        score += np.multiply(sides, self.k_sides, out=sides)

    def place(self) -> list[tuple[int, int]]:
        """The squares' centres in the topness, best first: each taken away and the sums and scores within
        its reach updated, until no place covers enough or what is left could not (no last update).
        ``stranded``: then, the most topness a place still covers when none covers enough (0 if what is left
        could not)."""
        half, m, side, outer, k_both, k_ring = self.half, self.m, self.side, self.outer, self.k_both, self.k_ring
        left, inner, around, score, flat = self.left, self.inner, self.around, self.score, self.score.ravel()
        need, below_need, rest = self.need - ROUNDING, self.below_need, self.rest
        size = 2 * m + 1
        taken = np.zeros((size, size), np.float32)  # zero but for the square taken away, at its middle
        core = taken[m - half:m + half + 1, m - half:m + half + 1]
        d_in, d_around, ring_part, d_dx, d_dy, sides = np.empty((6, size, size), np.float32)
        ones = np.ones((size, size), np.float32)  # (cv2.multiply with a scale: numpy's float32 product)
        cols, (y0, x0), border = score.shape[1], self.origin, cv2.BORDER_CONSTANT
        centres = []
        while len(centres) < MAX_PIECES:
            r, c = divmod(int(flat.argmax()), cols)
            covers = float(inner[r, c])
            if not covers > below_need:  # the best place covers too little: the best that covers enough
                enough = score - cv2.threshold(inner, below_need, np.inf, cv2.THRESH_BINARY_INV)[1]
                k = int(enough.argmax())
                if enough.flat[k] == -np.inf:
                    # (no place can cover REDO_PART of a top when less than that is left at all)
                    self.stranded = float(inner.max()) if rest >= REDO_PART * side * side else 0.0
                    break
                r, c = divmod(k, cols)
                covers = float(inner[r, c])
            centres.append((r + y0, c + x0))
            rest -= covers
            if rest < need:
                break
            square = left[r - half:r + half + 1, c - half:c + half + 1]
            core[...] = square
            square[...] = 0
            near = slice(r - m, r + m + 1), slice(c - m, c + m + 1)
            near_in, near_around, near_score = inner[near], around[near], score[near]
            # (_box's calls, written out: this is the innermost loop)
            cv2.subtract(near_in, cv2.boxFilter(taken, -1, (side, side), d_in, (-1, -1), False, border), near_in)
            cv2.subtract(near_around, cv2.boxFilter(taken, -1, (outer, outer), d_around, (-1, -1), False, border),
                         near_around)
            cv2.multiply(near_in, ones, near_score, k_both)
            cv2.subtract(near_score, cv2.multiply(near_around, ones, ring_part, k_ring), near_score)
            if self.corners:
                near_dx, near_dy = self.dx[near], self.dy[near]
                self._sides(taken, d_dx, d_dy)
                cv2.subtract(near_dx, d_dx, near_dx)
                cv2.subtract(near_dy, d_dy, near_dy)
                self._add_sides(near_dx, near_dy, near_score, ring_part, sides)
        return centres


@functools.cache
def _side_kernels(side: int, ring: int) -> tuple[np.ndarray, np.ndarray]:
    """The separable kernels of the ring's sides' differences: across, a ring-wide strip each side of the
    square, + on one and - on the other; along, the square's side."""
    return np.r_[np.ones(ring), np.zeros(side), -np.ones(ring)].astype(np.float32), np.ones(side, np.float32)


@functools.cache
def score_weights(side: int, ring: int, corners: bool) -> tuple[float, float, float]:
    """(k_both, k_ring, k_sides): a square's score (``_Squares``) is inner k_both - around k_ring, plus
    (|dx| + |dy|) k_sides with ``corners``, for squares of ``side`` px and a ring ``ring`` px wide."""
    ring_area = (side + 2 * ring) ** 2 - side * side
    k_sides = 1.0 / (4 * ring * side) if corners else 0.0  # (over the sides' area, and min(a, b) halves them)
    k_ring = (CORNER_RING if corners else 1.0) / ring_area + k_sides
    return 1.0 / (side * side) + k_ring, k_ring, k_sides


@functools.cache
def _below(need: float) -> float:
    """The float32 just below ``need``: inner >= need as one test, inner > this."""
    return float(np.nextafter(np.float32(need), np.float32(-np.inf)))


def _box(a: np.ndarray, k: int, dst: np.ndarray) -> np.ndarray:
    """Sums over the ``k`` x ``k`` square around every pixel, zeros beyond the edges."""
    return cv2.boxFilter(a, -1, (k, k), dst, (-1, -1), False, cv2.BORDER_CONSTANT)


def piece_area_px(model: ColourModel, label: str, px_per_mm: float) -> float:
    """One piece's visible top in pixels: measured by a calibration, else the footprint seen nearer."""
    return model.top_area_mm2.get(label, 256.0 * NEAR_CAMERA) * px_per_mm * px_per_mm


def _area_units(v: np.ndarray, mine: np.ndarray, piece_px: float, px_per_mm: float) -> float:
    blobs = _tidy((mine & (v >= TOP_FRACTION)).astype(np.uint8), piece_px)[1]
    gap_px = PILE_GAP_MM * np.sqrt(piece_px)  # (the gap's length is one side: sqrt of the area, in px)
    return float(blob_pieces(blobs, piece_px, gap_px * px_per_mm).sum())


def pieces_by_label(norm: np.ndarray, zone_labels, model: ColourModel, labels: list[str], table: np.ndarray,
                    px_per_mm: float) -> dict[str, float]:
    """Area of each label's top faces, in pieces (not rounded), in a normalised crop."""
    norm = cv2.GaussianBlur(norm, (0, 0), BLUR_SIGMA)
    out = {}
    for label in zone_labels:
        piece_px = piece_area_px(model, label, px_per_mm)
        tops = lit_tops(norm, labels.index(label), model.prototypes_bgr[label], table, piece_px)
        out[label] = 0.0 if tops is None else _area_units(*tops, piece_px, px_per_mm)
    return out


def _topness(v: np.ndarray, mine: np.ndarray) -> np.ndarray:
    """How much each pixel is a lit top (float32, 0..1): from 0 at ``TOP_FLOOR`` of the tops' brightness to 1
    at it, on the label's pixels."""
    topness = v - TOP_FLOOR  # (then in place: a crop-sized array made once, not four times)
    topness *= 1 / (1 - TOP_FLOOR)
    np.clip(topness, 0, 1, out=topness)
    topness *= mine
    return topness


class LabelCount(NamedTuple):
    """What ``count_pieces`` finds of one label in a tray's crop. Beside the count, the signs of a cube on
    another (``vision.stacked``): the sides only with the camera's foot, the shares and shadows only where a
    tray in doubt is asked."""
    pieces: int  # counted one by one
    estimate: float  # the lit tops' area, in pieces
    centres: list[tuple[float, float]]  # each piece's centre (row, col) in the crop
    sides: list[int]  # the side seen past each piece's top, towards the camera's foot
    stray: float  # the largest part of a top left over
    shares: list[float]  # the share of a top each piece shows
    closest: float  # the two nearest pieces' distance, in top sides
    shadows: object  # the shadows past them (``vision.stacked.shadows``), or None
    shaded: list[float]  # the share of each piece's top in a shadow (``vision.stacked.shaded_tops``)


def count_pieces(norm: np.ndarray, zone_labels, model: ColourModel, labels: list[str], table: np.ndarray,
                 px_per_mm: float, foot: np.ndarray | None = None, signs: bool = False) -> dict[str, LabelCount]:
    """Per label, what is found of it in a normalised crop (``foot``: the camera's foot in crop px; ``signs``:
    the signs asked of a tray in doubt measured too)."""
    norm = cv2.GaussianBlur(norm, (0, 0), BLUR_SIGMA)
    codes, luma = table.take(classify.index(norm)), luma_of(norm)  # (once for all the zone's labels)
    out = {}
    for label in zone_labels:
        if label == "empty":
            continue
        piece_px = piece_area_px(model, label, px_per_mm)
        tops = _lit_tops(codes, luma, labels.index(label), model.prototypes_bgr[label], piece_px)
        if tops is None:
            out[label] = LabelCount(0, 0.0, [], [], 0.0, [], math.inf, None, [])
            continue
        v, mine = tops
        topness = _topness(v, mine)
        side_px = math.sqrt(piece_px) + SQUARE_MARGIN_MM * px_per_mm
        four = _four_fold(topness)
        squares = peel_turned(topness, side_px, max(1, round(RING_MM * px_per_mm)), four=four)
        # (a top left over, like the sides, tells a cube on another: measured only where that is asked, with the
        # camera's foot; the live loop's trays skip it)
        stray = 0.0 if foot is None else stray_top(topness, squares, side_px, piece_px, four)
        centres = [(r, c) for r, c, _ in squares]
        side = math.sqrt(piece_px)
        # The check: the lit tops' area as one blob (no hole filling: this runs on every frame).
        area = float(np.count_nonzero(mine & (v >= TOP_FRACTION)))
        runs = [] if foot is None else stacked.side_runs(v, mine, mine & (v >= TOP_FRACTION), centres, side / 2, foot,
                                                 px_per_mm)
        asked = signs and foot is not None  # (the other signs of a cube on another: only where they are asked)
        shares = stacked.top_shares(topness, squares, side_px, piece_px) if asked else []
        shadows = stacked.shadows(luma, mine, centres, side) if asked else None
        shaded = stacked.shaded_tops(v, mine, squares, side_px, px_per_mm) if asked else []
        out[label] = LabelCount(len(centres),
                                float(blob_pieces(area, piece_px, PILE_GAP_MM * math.sqrt(piece_px) * px_per_mm)),
                                centres, runs, stray, shares, stacked.closest(centres, side), shadows, shaded)
    return out


def count_zone(norm: np.ndarray, zone_labels, model: ColourModel, labels: list[str], table: np.ndarray,
               px_per_mm: float, foot: np.ndarray | None = None, signs: bool = False):
    """The reading of one count zone from its normalised crop (uint8 BGR at ``px_per_mm``), not yet checked
    against its lit tops' area (``agreed``, over the frame's trays); ``table``: the nearest label (or the board)
    of every colour, with no "none of them" (``classify.label_tables`` at ``None``);
    ``foot``: the camera's foot in crop px, to measure the cubes' sides (``vision.stacked``); ``signs``: the
    other signs of a cube on another measured too."""
    found = count_pieces(norm, zone_labels, model, labels, table, px_per_mm, foot, signs)
    by_label = {label: f.pieces for label, f in found.items()}
    cubes = tuple((float(c), float(r)) for f in found.values() for r, c in f.centres)
    runs = tuple(r for f in found.values() for r in f.sides)
    stray = max((f.stray for f in found.values()), default=0.0)
    shares = tuple(x for f in found.values() for x in f.shares)
    near = min((f.closest for f in found.values()), default=math.inf)
    shadows = [f.shadows for f in found.values() if f.shadows is not None]  # (the first colour's: trays hold one)
    shaded = tuple(x for f in found.values() for x in f.shaded)
    return CountReading(sum(by_label.values()), 1.0, by_label, float(sum(f.estimate for f in found.values())),
                        cubes=cubes, sides=runs, stray=stray, shares=shares, closest=near,
                        shadows=shadows[0] if shadows else None, shaded=shaded,
                        areas={label: f.estimate for label, f in found.items()})


def area_unit(counts) -> float:
    """The lit tops' area of one cube in this frame, in the calibration's tops: the median over the frame's
    trays of ``UNIT_CUBES`` cubes or more of their area over their count, within ``UNIT_RANGE``; 1 where fewer
    than ``UNIT_TRAYS`` trays tell. (``counts``: the frame's readings, from ``count_zone``.)"""
    ratios = [c.pieces_area / c.count for c in counts if c.count is not None and c.areas and c.count >= UNIT_CUBES]
    return float(np.clip(np.median(ratios), *UNIT_RANGE)) if len(ratios) >= UNIT_TRAYS else 1.0


def checked(c: CountReading, unit: float) -> CountReading:
    """A tray's count (``count_zone``'s) against its lit tops' area, in the calibration's tops or in the frame's
    ``unit`` (``area_unit``), whichever agrees better: further apart than the allowance, no count; else the
    count, its confidence falling from 1 (the two agree) to 0.5 at the edge of the allowance. (Either unit: a
    table's light puts all its trays off alike, while a dark colour's tops lose pixels in dim light that the
    other colours' do not: its tray is off against the frame's unit, not the calibration's.) A reading already
    checked, or without a count, is returned as it is. ``pieces_area`` stays in the calibration's tops, as the
    stacked test learnt it (weighed in the frame's unit, the tops short of the count changed nothing there: debug
    seeds 12101-12104 retrained, held out in turn, area under the ROC 0.949 and 0.950; debug seed 14001, big
    single-layer piles asked 31.5 and 30.4 %)."""
    if c.count is None or not c.areas:
        return c
    if c.count == 0 and sum(c.areas.values()) > 0:
        # Tops of the colour are there (a blob of a third of a top at least: ``MIN_BLOB``) and no square took them:
        # a cube the squares could not fit, not an empty tray (dev table sets 19712 and 19725: dark green and grey
        # cubes on illustrated faces in dim light read 0, a green 6 among them, at 0.74; two empty trays of 26
        # showed such tops, of the face's own print).
        return CountReading(None, 0.0, {}, c.pieces_area, reason=f"the {' and '.join(c.areas)} tray shows part of a "
                                                                 "cube's top and no whole one: count it by hand")
    off = min(max(abs(c.by_label[label] - a / k) for label, a in c.areas.items()) for k in (1.0, unit))
    allowed = max(DISAGREE, DISAGREE_SHARE * c.count)
    if off > allowed:
        return CountReading(None, 0.0, {}, c.pieces_area, reason=f"spread the {' and '.join(c.areas)} pile: its "
                                                                 f"cubes cannot be told apart (one on another?)")
    # (against the same allowance: a big pile at the edge of it is as sure as a small one at the edge of its own)
    return replace(c, confidence=min(max(1.0 - off / (2 * allowed), 0.0), 1.0), areas={})


def agreed(counts: dict[str, CountReading]) -> dict[str, CountReading]:
    """Every tray of a frame ``checked`` against its area (the frame's ``area_unit`` worked out once)."""
    unit = area_unit(counts.values())
    return {zid: checked(c, unit) for zid, c in counts.items()}


def _four_fold(topness: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The topness's gradients, their direction taken four times over (a square's four edges, 90 degrees
    apart, then agree), weighted by their strength squared: (cos, sin) parts, float32. Summed over a cube's
    edges they point to four times its turn. ((gx + i gy)^4 / |g|^2, in real arithmetic.)"""
    gx = cv2.Sobel(topness, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(topness, cv2.CV_32F, 0, 1, ksize=3)
    g2 = gx * gx + gy * gy
    c2, s2 = gx * gx - gy * gy, 2 * gx * gy
    np.maximum(g2, 1e-12, out=g2)
    return (c2 * c2 - s2 * s2) / g2, 2 * c2 * s2 / g2


def _turn(c4: float, s4: float) -> float:
    """Degrees, -45..45, from a sum of ``_four_fold``."""
    return math.degrees(math.atan2(s4, c4)) / 4 if c4 or s4 else 0.0


def _blob_turns(topness: np.ndarray, four: tuple[np.ndarray, np.ndarray]
                ) -> tuple[np.ndarray, list[tuple[int, tuple[int, int, int, int], float]]]:
    """The blobs of tops (a label image) and each blob's (label, bounding box x, y, w, h, turn of its tops'
    edges: ``_four_fold`` summed over it). Cubes set against each other are mostly turned alike; a blob of
    cubes turned unlike each other takes its strongest edges' turn."""
    reach = cv2.dilate((topness > 0).view(np.uint8), np.ones((3, 3), np.uint8))  # (a blob's edges are its own)
    n, blobs, stats, _ = cv2.connectedComponentsWithStats(reach, connectivity=8)
    c4 = np.bincount(blobs.ravel(), four[0].ravel(), n)
    s4 = np.bincount(blobs.ravel(), four[1].ravel(), n)
    return blobs, [(b, tuple(int(v) for v in stats[b, :4]), _turn(c4[b], s4[b])) for b in range(1, n)]


def peel_turned(topness: np.ndarray, side_px: float, ring: int, peel=peel,
                four: tuple[np.ndarray, np.ndarray] | None = None) -> list[tuple[float, float, float]]:
    """Squares of ``side_px`` (any size) laid over the topness blob by blob, each blob turned so that its
    tops' edges lie along the squares' and resampled so that a square is a whole odd number of pixels:
    (row, col, turn in degrees) of each square in the crop. ``four``: ``_four_fold(topness)``, if worked out."""
    h, w = topness.shape
    odd = 2 * round((side_px - 1) / 2) + 1
    k = odd / side_px
    blobs, found = _blob_turns(topness, _four_fold(topness) if four is None else four)
    out = []
    for b, (x, y, bw, bh), turn in found:
        y0, y1, x0, x1 = max(0, y - odd), min(h, y + bh + odd), max(0, x - odd), min(w, x + bw + odd)
        part = np.where(blobs[y0:y1, x0:x1] == b, topness[y0:y1, x0:x1], 0).astype(np.float32)
        ph, pw = part.shape
        size = math.ceil(math.hypot(ph, pw) * k) + 2  # (room for the part at any turn)
        M = cv2.getRotationMatrix2D(((pw - 1) / 2, (ph - 1) / 2), turn, k)
        M[:, 2] += (size - 1) / 2 - np.array([(pw - 1) / 2, (ph - 1) / 2])
        turned = cv2.warpAffine(part, M, (size, size), flags=cv2.INTER_LINEAR)
        back = cv2.invertAffineTransform(M)
        for r, c in peel(turned, odd, ring):
            px, py = back @ np.array([c, r, 1.0])
            out.append((float(py + y0), float(px + x0), turn))
    return out


def stray_top(topness: np.ndarray, squares: list[tuple[float, float, float]], side_px: float, piece_px: float,
              four: tuple[np.ndarray, np.ndarray] | None = None) -> float:
    """The largest part of a lit top that no counted cube covers, in tops: each cube a square ``side_px``
    wide at its own turn (``_four_fold`` over its square: a blob of cubes turned unlike each other is peeled
    at one turn), thin rims (an opening of ``STRAY_OPEN`` px) left out. Single-layer tops are covered whole by
    squares a little wider than they are; a cube lying on another leaves the lower cube's top showing."""
    if not squares:
        return 0.0
    c4, s4 = _four_fold(topness) if four is None else four
    cover = np.zeros(topness.shape, np.uint8)
    half = int(side_px // 2)
    for r, c, turn in squares:
        y, x = round(r), round(c)
        near = slice(max(0, y - half), y + half + 1), slice(max(0, x - half), x + half + 1)
        own_c, own_s = float(c4[near].sum()), float(s4[near].sum())
        corners = cv2.boxPoints(((c, r), (side_px, side_px), -(_turn(own_c, own_s) if own_c or own_s else turn)))
        cv2.fillConvexPoly(cover, np.round(corners * 16).astype(np.int32), 1, cv2.LINE_8, 4)
    left = ((topness > 0.5) & (cover == 0)).view(np.uint8)
    left = cv2.morphologyEx(left, cv2.MORPH_OPEN, np.ones((STRAY_OPEN, STRAY_OPEN), np.uint8))
    n, _, stats, _ = cv2.connectedComponentsWithStats(left)
    return float(stats[1:, cv2.CC_STAT_AREA].max()) / piece_px if n > 1 else 0.0
