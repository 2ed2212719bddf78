"""The shadow a hand casts on the board, fitted from the hand mask and the board's own light.

A hand above the board casts its silhouette shifted away from the light and softened at the edges. So
where the free board near a hand is darker than the light field says, that is mostly the hand's shadow,
and its shape is known up to a shift, a strength and a softness:

    light reaching the board = 1 - strength * blur(hand mask shifted by the offset)

All three are fitted to the board's seen cells by least squares: for each softness, one correlation of
the board's darkness with the blurred mask gives the best strength at every offset. The arm enters from
outside the board, so the mask is carried on straight past the board's edge (its shadow may fall on the
board while the arm itself is off it).

The fitted shadow tells the light inside a tray that the shadow crosses, where a ring of board around the
tray cannot: the shadow's edge is predicted across the tray instead of interpolated.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

MAX_OFFSET_MM = 160.0  # a hand 10 cm up under a lamp 30 degrees high casts its shadow about this far
SOFTNESS_MM = (3.0, 6.0, 10.0)  # the shadow's blur (a lamp's size and distance), tried in turn
MIN_EXPLAINED = 0.9  # the fitted shadow must explain this share of the board's darkness where it falls


@dataclass(frozen=True)
class HandShadow:
    """The fitted shadow: ``light`` (rows, cols) is the fraction of the light that reaches each grid cell
    (1 outside the shadow); the offset (mm, x and y), strength and softness found."""

    light: np.ndarray
    offset_mm: tuple[float, float]
    strength: float
    softness_mm: float
    explained: float

    def at_mm(self, xs_mm: np.ndarray, ys_mm: np.ndarray, grid_mm: float) -> np.ndarray:
        """The light fraction at board points (``xs_mm`` (w,), ``ys_mm`` (h,)): (h, w) float32."""
        mx, my = (m.astype(np.float32) for m in np.meshgrid(xs_mm / grid_mm - 0.5, ys_mm / grid_mm - 0.5))
        return cv2.remap(self.light, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def _reach_cells(grid_mm: float) -> int:
    """How far (grid cells) a fitted shadow can lie from its hand: the largest offset plus the widest
    blur (OpenCV's Gaussian kernel for float images ends at four sigmas)."""
    return math.ceil(MAX_OFFSET_MM / grid_mm) + math.ceil(4 * max(SOFTNESS_MM) / grid_mm) + 1


def may_reach(hands: np.ndarray, rects: np.ndarray, grid_mm: float) -> bool:
    """Whether a shadow fitted to ``hands`` ((rows, cols) bool) could fall on any of ``rects`` ((n, 4):
    r0, c0, r1, c1 grid cells). The mask carried past the board's edge stays outside it, so the shadow lies
    within ``_reach_cells`` of the hand's own bounding box."""
    rows = np.flatnonzero(hands.any(axis=1))
    if rows.size == 0 or len(rects) == 0:
        return False
    cols = np.flatnonzero(hands.any(axis=0))
    k = _reach_cells(grid_mm)
    r0, c0, r1, c1 = rects.T
    return bool(np.any((r0 < rows[-1] + 1 + k) & (r1 > rows[0] - k) & (c0 < cols[-1] + 1 + k) & (c1 > cols[0] - k)))


def fit_hand_shadow(hands: np.ndarray, light: np.ndarray, board: np.ndarray, grid_mm: float) -> HandShadow | None:
    """The hand's shadow from ``hands`` ((rows, cols) bool, the hand mask), ``light`` (each grid cell's
    brightness as a fraction of the light field's, flat) and ``board`` (the cells that show the board,
    flat); None when no shifted, softened hand explains the board's darkness."""
    rows, cols = hands.shape
    if not hands.any():
        return None
    pad = math.ceil(MAX_OFFSET_MM / grid_mm)
    seen = board.reshape(rows, cols).astype(np.float32)
    dark = np.clip(1.0 - light.reshape(rows, cols), 0.0, 1.0).astype(np.float32) * seen
    # The mask carried on past the board's edge, where the arm comes from.
    hand = cv2.copyMakeBorder(hands.astype(np.float32), pad, pad, pad, pad, cv2.BORDER_REPLICATE)
    best = None
    for soft_mm in SOFTNESS_MM:
        blurred = cv2.GaussianBlur(hand, (0, 0), soft_mm / grid_mm)
        # At shift u (pad - offset, in cells): N = sum(dark * B shifted), Q = sum(seen * B² shifted).
        n = cv2.matchTemplate(blurred, dark, cv2.TM_CCORR)
        q = cv2.matchTemplate(blurred * blurred, seen, cv2.TM_CCORR)
        gain = np.where((n > 0) & (q > 1e-3), n * n / np.maximum(q, 1e-3), 0.0)
        u = np.unravel_index(int(np.argmax(gain)), gain.shape)
        if best is None or gain[u] > best[0]:
            best = (float(gain[u]), u, float(n[u] / q[u]) if q[u] > 1e-3 else 0.0, soft_mm, blurred)
    gain, (uy, ux), strength, soft_mm, blurred = best
    if gain <= 0 or strength <= 0:
        return None
    shadow = np.clip(strength * blurred[uy:uy + rows, ux:ux + cols], 0.0, 0.95)
    # How much of the darkness where the shadow falls it explains (the rest: noise, other shadows).
    where = (shadow > 0.05) & (seen > 0)
    total = float((dark[where] ** 2).sum())
    left = float(((dark - shadow)[where] ** 2).sum())
    explained = 1.0 - left / total if total > 0 else 0.0
    if explained < MIN_EXPLAINED:
        return None
    offset = (float((pad - ux) * grid_mm), float((pad - uy) * grid_mm))
    return HandShadow((1.0 - shadow).astype(np.float32), offset, strength, soft_mm, explained)
