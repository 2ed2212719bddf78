"""Colours in CIE Lab (OpenCV's float convention: L 0..100, a and b about -128..127).

A colour model holds one Lab prototype per label, learnt in the "normalised" space, where each frame's
colours have been scaled so that the board's own background shows its nominal palette colour.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from calibration.layout import Layout

# In distances between colours, lightness counts half: a piece's lit top changes lightness with the light and
# its angle (and a cell's with the piece's sides) more than hue.
L_WEIGHT = 0.5


def bgr_to_lab(bgr: np.ndarray) -> np.ndarray:
    """BGR in 0..1 (any shape ending in 3) -> Lab, same shape."""
    arr = np.asarray(bgr, np.float32)
    if arr.size == 0:  # (OpenCV refuses an empty image)
        return arr.copy()
    flat = np.clip(arr.reshape(1, -1, 3), 0, 1)  # one row (OpenCV converts row by row: the same values, faster)
    return cv2.cvtColor(flat, cv2.COLOR_BGR2Lab).reshape(arr.shape)


def rgb_to_lab(rgb) -> np.ndarray:
    """RGB 0..255 (one colour or an array of them) -> Lab."""
    arr = np.asarray(rgb, np.float32)[..., ::-1] / 255.0
    return bgr_to_lab(arr)


def lab_to_rgb(lab) -> tuple[int, int, int]:
    bgr = cv2.cvtColor(np.asarray(lab, np.float32).reshape(1, 1, 3), cv2.COLOR_Lab2BGR).reshape(3)
    return tuple(round(float(np.clip(c, 0, 1)) * 255) for c in bgr[::-1])


@dataclass(frozen=True)
class ColourModel:
    """Per-label prototypes in normalised BGR (0..1) and Lab; ``background`` is the board's own colour,
    the reference every frame is normalised to; ``top_area_mm2`` is one piece's visible top face
    (learnt from a calibration frame's count zones, or the piece's footprint seen a little nearer)."""
    background_bgr: np.ndarray
    prototypes_bgr: dict[str, np.ndarray]
    top_area_mm2: dict[str, float] = field(default_factory=dict)
    source: str = "palette"

    @classmethod
    def from_palette(cls, layout: Layout) -> ColourModel:
        from vision.pieces import NEAR_CAMERA, piece_shapes

        def bgr(rgb):
            return np.array([rgb[2], rgb[1], rgb[0]], np.float32) / 255.0

        shapes = piece_shapes(layout)
        return cls(bgr(layout.colour("empty")), {k: bgr(layout.colour(k)) for k in layout.palette},
                   {k: s.area_mm2 * NEAR_CAMERA for k, s in shapes.items()}, "palette")

    def with_calibration(self, colours_rgb: dict[str, tuple[int, int, int]], top_area_mm2: dict[str, float],
                         source: str) -> ColourModel:
        protos = dict(self.prototypes_bgr)
        for label, rgb in colours_rgb.items():
            if label in protos:
                protos[label] = np.array([rgb[2], rgb[1], rgb[0]], np.float32) / 255.0
        areas = dict(self.top_area_mm2)
        areas.update({k: float(v) for k, v in top_area_mm2.items() if k in protos})
        return ColourModel(self.background_bgr, protos, areas, source)
