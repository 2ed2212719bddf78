"""Small operations on binary masks that more than one reader needs (the hand finder, the counter)."""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np


def holes_filled(mask: np.ndarray, which: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
    """``mask`` (uint8 0/1) with the holes it encloses filled where ``which`` says so: ``which(areas)`` gets
    each hole's area in pixels and returns a bool per hole. A hole is a 4-connected region of zeros that
    the region outside the mask does not reach."""
    h, w = mask.shape
    outside = np.zeros((h + 2, w + 2), np.uint8)  # (a border of zeros, so that "outside" is one region)
    outside[1:-1, 1:-1] = mask
    cv2.floodFill(outside, None, (0, 0), 2, flags=4)
    holes = (outside[1:-1, 1:-1] == 0).astype(np.uint8)
    if not holes.any():
        return mask
    _, labels, stats, _ = cv2.connectedComponentsWithStats(holes, connectivity=4)
    fill = which(stats[:, cv2.CC_STAT_AREA])
    fill[0] = False  # (the label of everything that is no hole)
    return mask | fill[labels].astype(np.uint8)
