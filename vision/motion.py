"""A cheap motion measure for the stabiliser: how different two frames are, on small grey thumbnails.

>>> import numpy as np
>>> a = np.zeros((960, 1280, 3), np.uint8)
>>> motion_score(a, a)
0.0
"""

from __future__ import annotations

import cv2
import numpy as np

THUMB = (80, 60)  # width, height: a hand is still dozens of pixels, sensor noise averages away


def thumbnail(frame: np.ndarray) -> np.ndarray:
    """Small grey float image of a frame (compute once per frame and reuse with ``motion_between``)."""
    g = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    return cv2.resize(g, THUMB, interpolation=cv2.INTER_AREA).astype(np.float32)


def motion_between(prev_thumb: np.ndarray, thumb: np.ndarray) -> float:
    """Fraction of the thumbnail that changed by more than 6 % of full scale (0: still, 1: everything
    moved); global brightness drift (auto exposure, a cloud) is removed first."""
    diff = thumb - prev_thumb
    diff -= float(np.median(diff))
    return float(np.mean(np.abs(diff) > 15.0))


def motion_score(prev: np.ndarray, frame: np.ndarray) -> float:
    """Motion between two frames (BGR or grey, any size), in 0..1."""
    return motion_between(thumbnail(prev), thumbnail(frame))
