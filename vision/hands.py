"""Hands over the board, found on the coarse grid of the canonical image.

A hand always comes with its arm, and from a camera above the table the arm crosses the board's edge.
So: take every grid cell that is not board background (lit or in shadow), open that mask with a square
larger than any piece (pieces, even two touching, vanish; a palm or an arm survives), keep what touches
the board's edge or spreads beyond any single zone, and grow it back over the non-background cells
around it for a few centimetres (the fingers, thinner than the opening, and any piece the hand touches).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from calibration.layout import Layout
from vision.geometry import BoardGeometry

OPEN_MM = 30.0
GROW_MM = 40.0
ZONE_SPILL_MM = 8.0  # a blob within a zone and this margin is the zone's own pieces (a pile in a tray)


def hand_mask(not_board: np.ndarray, g: BoardGeometry, layout: Layout) -> np.ndarray:
    """``not_board``: per grid cell, not the board's background. Returns (rows, cols) bool: under a hand."""
    rows, cols = g.grid_shape
    mask = (not_board.reshape(rows, cols) & ~g.grid_marker).astype(np.uint8)
    n_open = max(3, math.ceil(OPEN_MM / g.grid_mm))
    opened = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((n_open, n_open), np.uint8))
    if not opened.any():
        return np.zeros((rows, cols), bool)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(opened, connectivity=8)
    spill = math.ceil(ZONE_SPILL_MM / g.grid_mm)
    keep = []
    for i in range(1, n):
        x, y, w, h = stats[i, :4]
        if x == 0 or y == 0 or x + w == cols or y + h == rows:
            keep.append(i)
            continue
        inside = any(r0 - spill <= y and c0 - spill <= x and y + h <= r1 + spill and x + w <= c1 + spill
                     for r0, c0, r1, c1 in g.zone_grid_rects.values())
        if not inside:
            keep.append(i)
    if not keep:
        return np.zeros((rows, cols), bool)
    hand = np.isin(labels, keep).astype(np.uint8)
    allowed = mask | g.grid_marker.astype(np.uint8)
    kernel = np.ones((3, 3), np.uint8)
    for _ in range(math.ceil(GROW_MM / g.grid_mm)):
        grown = cv2.dilate(hand, kernel) & allowed
        if np.array_equal(grown, hand):
            break
        hand = grown
    return hand.astype(bool)


def zone_coverage(hand: np.ndarray | None, rect: tuple[int, int, int, int]) -> float:
    """Fraction of a zone's grid cells under the hand mask."""
    if hand is None:
        return 0.0
    r0, c0, r1, c1 = rect
    patch = hand[r0:r1, c0:c1]
    return float(patch.mean()) if patch.size else 0.0
