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
    _, labels, stats = components(holes, 4)
    fill = which(stats[:, cv2.CC_STAT_AREA])
    fill[0] = False  # (the label of everything that is no hole)
    return mask | fill[labels].astype(np.uint8)


def components(mask: np.ndarray, connectivity: int = 8) -> tuple[int, np.ndarray, np.ndarray]:
    """``cv2.connectedComponentsWithStats`` of ``mask`` (uint8): (count, labels, stats), worked out over the
    mask's bounding box only, as its stats cost per pixel of the whole image, background and all (0.1 ms on
    the hand grid, ten times the labels alone). The same blobs with the same stats, though maybe numbered
    otherwise (OpenCV labels stripes of the image in parallel); the background's stats (label 0) are the
    box's."""
    x, y, w, h = cv2.boundingRect(mask)
    labels = np.zeros(mask.shape, np.int32)
    if w == 0:
        return 1, labels, np.array([[0, 0, mask.shape[1], mask.shape[0], mask.size]], np.int32)
    n, labels[y:y + h, x:x + w], stats, _ = cv2.connectedComponentsWithStats(mask[y:y + h, x:x + w],
                                                                             connectivity=connectivity)
    stats[1:, cv2.CC_STAT_LEFT] += x
    stats[1:, cv2.CC_STAT_TOP] += y
    return n, labels, stats


def opened(mask: np.ndarray, square: np.ndarray) -> np.ndarray:
    """``mask`` (uint8) opened by ``square`` (an n x n uint8 array of ones): what squares that fit in it cover."""
    first, then = _anchors(square)
    return cv2.dilate(cv2.erode(mask, square, anchor=first), square, anchor=then)


def closed(mask: np.ndarray, square: np.ndarray) -> np.ndarray:
    """``mask`` (uint8) closed by ``square`` (an n x n uint8 array of ones), where it lies."""
    first, then = _anchors(square)
    return cv2.erode(cv2.dilate(mask, square, anchor=first), square, anchor=then)


def _anchors(square: np.ndarray) -> tuple[tuple[int, int], tuple[int, int]]:
    """The anchors of an opening's or closing's two steps: the square's centre, then its mirror image.
    (``cv2.morphologyEx`` takes the centre for both: for an even n its opening and closing come out a cell
    down and right of the mask.)"""
    a = square.shape[0] // 2
    b = square.shape[0] - 1 - a
    return (a, a), (b, b)
