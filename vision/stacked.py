"""A cube lying on another, told by the length of its side (``read`` asks for the pile to be spread).

A camera above the table sees the side of every cube that faces it, between the cube's top and the board:
its length in the picture grows with the height of the top (the top's parallax), the same for every cube of
one layer at the same distance from the camera's foot. A cube lying on another shows a side about twice as
long, from its top down to the board past the cube under it. So, from each counted cube's top towards the
camera's foot (the board point under the frame's centre), the run of darker pixels of its colour just past
its top is measured on three rays across the cube (their middle value: a ray through a gap to a neighbour's
side is one ray). A cube whose side is hidden by a neighbour's top measures nothing. A side's length grows with
the cube's distance from the camera's foot as well (a top h up, seen from H, is r h / (H - h) off its base r
from the foot): each is taken as it would be seen ``SIDE_AT_MM`` from the foot, so that one layer's sides are
alike all over the frame. (A tray 110 mm wide about 250 mm from the foot spans 200-310 mm of it: as seen, its
far cubes' sides were half as long again as its near ones'. Dev seed 7611, 570 single-layer trays and 175 with a cube on
another, a tray's cube with a side 1.6 times one layer's asked the spread of 59 single-layer trays and left
37 of the others counted wrong; taken at one distance, 41 and 35.) The frame's own cubes give the length of
one layer's side (the median of each tray's sides seen, the median over the trays); a tray with a cube whose
side is ``STACKED_SIDE`` times that, or its own cubes' median, is not counted.

A cube lying on another also leaves part of the lower cube's top showing beside it, which no counted cube
covers: the squares that count single-layer tops are a little wider than a top and turned as it is
(``vision.count.stray_top``), so little is left of a single layer's tops. A tray with ``STRAY_TOP`` of a top
or more left over is not counted either. (Dev seeds 6101-6102, 131 trays with a cube on another, 469
single-layer: asked to be spread by the sides alone 37 % of them, 60 counted wrong, by 0.1 of a top left alone
51 %, by either with 0.15 62 %, with 0.1 72 %, 21 counted wrong; the price, single-layer trays asked to be
spread: 5.7, 4.0, 6.8 and 9.4 % of them.)
"""

from __future__ import annotations

import numpy as np

SIDE_SHADE = 0.88  # a pixel of the cube's colour darker than this (of its lit top) is a side
STACKED_SIDE = 1.6  # a side this many times one layer's is a cube on another (twice, less blur and slant)
MIN_SIDE_PX = 2.0  # one layer's side shorter than this (at SIDE_AT_MM: a camera high above): nothing to tell by
MIN_SEEN = 3  # sides measured in the frame, at least, to take one layer's from
REACH = 3.0  # a side is followed this many cube halves past the top at most
SIDE_AT_MM = 300.0  # sides are compared as seen this far from the camera's foot (about where trays lie)
STRAY_TOP = 0.1  # this much of a top left over by the counted cubes: a lower cube's top showing


def side_runs(v: np.ndarray, mine: np.ndarray, tops: np.ndarray, centres, half: float, foot: np.ndarray,
              px_per_mm: float) -> list[float]:
    """The length of the side seen past each cube's top (``centres``: (row, col) in the crop) towards ``foot``
    (x, y in crop px), the middle of three rays, in px as it would be seen ``SIDE_AT_MM`` from the foot.
    ``v``: brightness relative to the lit tops, ``mine``: the pixels of the cube's colour, ``tops``: its lit
    tops; ``half``: half a top's side, px; ``px_per_mm``: the crop's scale."""
    if not len(centres):
        return []
    h, w = tops.shape
    code = np.where(tops, 2, np.where(mine & (v < SIDE_SHADE), 1, 0)).astype(np.int8)
    c = np.asarray(centres, np.float64)[:, ::-1]  # (x, y)
    to_foot = foot[None] - c
    u = to_foot / np.maximum(np.linalg.norm(to_foot, axis=1, keepdims=True), 1e-9)
    across = np.stack([-u[:, 1], u[:, 0]], axis=1)
    steps = np.arange(0.5 * half, (1 + REACH) * half)
    offsets = np.array([-0.5, 0.0, 0.5]) * half
    # points (cube, ray, step)
    pts = c[:, None, None] + across[:, None, None] * offsets[None, :, None, None] + u[:, None, None] * steps[
        None, None, :, None]
    xi, yi = np.rint(pts[..., 0]).astype(np.int64), np.rint(pts[..., 1]).astype(np.int64)
    inside = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
    along = np.where(inside, code[np.clip(yi, 0, h - 1), np.clip(xi, 0, w - 1)], 0)
    off_top = np.argmax(along != 2, axis=2)  # the first step past the top
    n = along.shape[2]
    idx = np.arange(n)[None, None]
    past = idx >= off_top[..., None]
    side = (along == 1) & past
    # the run of side pixels from the first step past the top: up to the first step that is not side
    stop = np.where(past & ~side, idx, n).min(axis=2)
    runs = np.maximum(stop - off_top, 0)
    runs = np.where(np.any(along != 2, axis=2), runs, 0)
    far = np.maximum(np.linalg.norm(to_foot, axis=1), half) / (SIDE_AT_MM * px_per_mm)
    return [float(r) for r in np.sort(runs, axis=1)[:, 1] / far]


def _layer(runs: list[float]) -> float | None:
    seen = [r for r in runs if r > 0]
    return float(np.median(seen)) if len(seen) >= MIN_SEEN else None


def one_layer(runs: list[list[float]]) -> float | None:
    """One layer's side length in the frame (px): the median over the trays of their cubes' sides (each
    colour's side stands out of the board's shadow more or less: a tray's own cubes are its best measure);
    None if no tray shows enough."""
    trays = [m for m in map(_layer, runs) if m is not None]
    if not trays:
        return None
    side = float(np.median(trays))
    return side if side >= MIN_SIDE_PX else None


def stacked(runs: list[float], layer: float | None) -> bool:
    """A cube's side is two layers' long: against the longer of the tray's own cubes' sides (when it shows
    enough of them) and the frame's. (A dark colour's sides are partly taken for the board's shadow: its
    own are short, and a side of one layer's length stood out of them.)"""
    own = _layer(runs)
    ref = max((x for x in (own, layer) if x is not None), default=None)
    return ref is not None and ref >= MIN_SIDE_PX and bool(runs) and max(runs) >= STACKED_SIDE * ref


def lower_top_shows(stray: float) -> bool:
    """Part of a top that no counted cube covers (``stray``, in tops) is a lower cube's, under another."""
    return stray >= STRAY_TOP
