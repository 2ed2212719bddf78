"""Counting the pieces in a count zone (a reserve tray).

Pixels of the zone (canonical image, light normalised) are classified against the zone's labels at a few
shades and the background; a piece's top face is lit (the three brightest shades), its sides darker. The
count of a colour is the area of its top faces over one piece's top area (learnt by ``calibrate
colours`` from a tray of known count, else the footprint, slightly enlarged as the camera sees a top
face closer than the board). Touching pieces make one blob: each blob is counted by its own area, and
the sum is cross-checked against the count from the total area; a disagreement, or blobs far from a
whole number of pieces, lowers the confidence.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision import classify
from vision.colour import ColourModel

NEAR_CAMERA = 1.04  # a top face 16 mm up, seen from ~0.8 m, looks 4 % larger than the footprint
MIN_BLOB = 0.35  # fraction of one piece below which a blob is noise
TOP_SHADES = 3  # PIECE_SHADES[:3] are a lit top face


def _fill_holes(mask: np.ndarray) -> np.ndarray:
    """Fill holes (specular highlights on top faces) that touch no edge of the zone."""
    h, w = mask.shape
    flood = np.zeros((h + 2, w + 2), np.uint8)
    flood[1:-1, 1:-1] = mask
    cv2.floodFill(flood, None, (0, 0), 1)
    return (mask | (flood[1:-1, 1:-1] == 0)).astype(np.uint8)


def top_blobs(crop: np.ndarray, gain: np.ndarray, zone_labels, labels: list[str], table: np.ndarray
              ) -> dict[str, np.ndarray]:
    """Areas in pixels of the blobs of lit top faces of each label, in a zone's canonical crop (BGR uint8)
    normalised by ``gain`` (per channel)."""
    norm = cv2.transform(crop, np.diag(gain.astype(np.float32)))
    codes = table[classify.index(norm)]
    out = {}
    for label in zone_labels:
        j = labels.index(label)
        top = ((codes >= j * 16) & (codes < j * 16 + TOP_SHADES)).astype(np.uint8)
        _, _, stats, _ = cv2.connectedComponentsWithStats(_fill_holes(top), connectivity=4)
        out[label] = stats[1:, cv2.CC_STAT_AREA].astype(float)
    return out


def count_zone(crop: np.ndarray, gain: np.ndarray, zone_labels, model: ColourModel, labels: list[str],
               table: np.ndarray, px_per_mm: float):
    from vision.read import CountReading

    by_label: dict[str, int] = {}
    confidences, units = [], 0.0
    for label, areas in top_blobs(crop, gain, zone_labels, labels, table).items():
        area_px = model.top_area_mm2.get(label, 256.0) * (NEAR_CAMERA if model.source == "palette" else 1.0)
        blobs = areas / (area_px * px_per_mm * px_per_mm)
        blobs = blobs[blobs >= MIN_BLOB]
        by_blob = int(sum(max(1, round(b)) for b in blobs))
        by_area = round(float(blobs.sum()))
        off = float(np.max(np.abs(blobs - np.maximum(1, np.round(blobs))))) if blobs.size else 0.0
        conf = max(0.0, 1.0 - 2 * off) * (1.0 if by_blob == by_area else 0.5)
        by_label[label] = by_blob
        confidences.append(conf)
        units += float(blobs.sum())
    return CountReading(sum(by_label.values()), float(min(confidences) if confidences else 1.0), by_label, units)
