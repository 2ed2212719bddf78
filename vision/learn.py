"""Colour calibration: learn the pieces' real colours, and one piece's top area, from a frame set out as
the layout's ``[calibration]`` table says (``alchemy-table calibrate colours``).

Colours are learnt in the normalised space (the frame's light divided out against the board's own
background), so that a calibration made under one light holds under another.
"""

from __future__ import annotations

import cv2
import numpy as np

from calibration.layout import Layout
from calibration.store import Calibration
from vision import classify
from vision.colour import lab_to_rgb
from vision.count import top_blobs
from vision.geometry import rect_means


class CalibrationFrameError(ValueError):
    """The frame does not show the calibration set-up well enough to learn from."""


def learn_colours(frame: np.ndarray, layout: Layout, base: Calibration | None = None, source: str = "frame"
                  ) -> Calibration:
    from vision.read import Reader

    if not layout.calibration:
        raise CalibrationFrameError(f"{layout.name}: layout has no [calibration] table to learn from")
    reader = Reader(layout, base)
    location = reader.locator.locate(frame)
    if not location.found:
        raise CalibrationFrameError(f"{source}: board not found (are the markers visible?)")
    g = reader.geometry
    canonical = reader.warp(frame, location.homography)
    integral = cv2.integral(canonical)
    grid = rect_means(integral, g.grid_rects).astype(np.float32)
    coef = reader.light_field(grid)
    if coef is None:
        raise CalibrationFrameError(f"{source}: no free board background to measure the light on")
    ref = reader.model.background_bgr * 255.0
    samples: dict[str, list[np.ndarray]] = {}
    k2 = g.cells * g.cells
    bg_lab = reader.prototypes[0]
    for zone_id, value in layout.calibration.items():
        zone = layout.zone(zone_id)
        if zone.kind != "slot" or value == "empty":
            continue
        i = g.slot_ids.index(zone_id)
        gain = ref / np.exp(_basis_at(reader, zone.center) @ coef)
        cells = rect_means(integral, g.slot_rects[i * k2:(i + 1) * k2]).astype(np.float32) * gain / 255.0
        from vision.colour import bgr_to_lab
        lab = bgr_to_lab(cells)
        # The piece's cells are those furthest from the background at any shade; its colour is their
        # brightest half (the lit top, not the sides).
        d = np.sqrt(((lab[:, None, :] - bg_lab[None]) ** 2).sum(-1)).min(1)
        piece = lab[d > np.percentile(d, 60)]
        top = piece[piece[:, 0] >= np.median(piece[:, 0])]
        samples.setdefault(value, []).append(np.median(top, axis=0))
    colours = {label: lab_to_rgb(np.median(np.array(v), axis=0)) for label, v in samples.items()}
    # Re-read with the learnt colours to measure one piece's lit top in the count zones.
    learnt = Calibration(layout.name, colours, {}, None if base is None else base.corners,
                         None if base is None else base.camera)
    reader = Reader(layout, learnt)
    areas: dict[str, list[float]] = {}
    for i, zid in enumerate(g.count_ids):
        counts = layout.calibration.get(zid)
        if not counts:
            continue
        zone = layout.zone(zid)
        gain = ref / np.exp(_basis_at(reader, zone.center) @ coef)
        x0, y0, x1, y1 = g.count_rects[i]
        blobs = top_blobs(canonical[y0:y1, x0:x1], gain, zone.labels, reader.labels,
                          reader.tables[reader._count_set[i]])
        for label, n in counts.items():
            if n > 0 and blobs[label].size:
                big = blobs[label][blobs[label] >= 0.3 * blobs[label].max()]
                areas.setdefault(label, []).append(float(big.sum()) / n / g.px_per_mm ** 2)
    top_area = {label: float(np.median(v)) for label, v in areas.items()}
    missing = [label for label in layout.palette if label not in colours]
    if len(missing) == len(layout.palette):
        raise CalibrationFrameError(f"{source}: no piece could be measured")
    return Calibration(layout.name, colours, top_area, None if base is None else base.corners,
                       None if base is None else base.camera)


def _basis_at(reader, centre) -> np.ndarray:
    from vision.read import _basis
    return _basis(np.array([centre], float), reader.layout.size)[0]


__all__ = ["CalibrationFrameError", "classify", "learn_colours"]
