"""The live picture's private masks (``assistant.web.frames``): in an Alchemists game the scan area's card places
are blacked out where the camera sees them, through the camera's lens, at the size the picture is shown."""

from __future__ import annotations

from types import SimpleNamespace

import cv2
import numpy as np

from calibration.layout import load_layout
from vision.locate import radial_lens
from vision.reading import Reading, ZoneReading


def test_the_card_places_are_masked_where_a_wide_lens_shows_them():
    # A mat seen near the frame's corner through a lens that bends outwards (k1 0.3 of the half diagonal, as the
    # renderer's cameras may): its far side lies tens of pixels beyond where the homography alone puts it, and
    # a mask drawn there left part of the card in view.
    from assistant.web.frames import MASK_MARGIN_MM, WIDTH, picture

    layout = load_layout("alchemists")
    lens = radial_lens(0.3, (1280, 960))
    H = np.array([[2.2, 0.2, 700.0], [-0.15, 2.2, 480.0], [0.0, 0.0, 1.0]])
    zones = {z.id: ZoneReading("unknown", 0.0) for z in layout.zones if z.kind != "count"}
    reading = Reading(layout.name, True, H, zones, {}, lens=lens)
    frame = np.full((960, 1280, 3), 255, np.uint8)
    shown = picture(SimpleNamespace(frame=frame, readings=[(layout, reading)]), private=True)
    scale = shown.shape[1] / 1280
    assert shown.shape[1] == WIDTH
    shift = 0.0
    for z in (z for z in layout.zones if z.kind == "card"):
        left, top, right, bottom = z.bounds
        inside = np.array([[left + 2, top + 2], [right - 2, top + 2], [right - 2, bottom - 2], [left + 2, bottom - 2]])
        at = reading.to_frame(inside) * scale
        assert (shown[np.rint(at[:, 1]).astype(int), np.rint(at[:, 0]).astype(int)] < 60).all(), z.id
        ideal = cv2.perspectiveTransform(inside.reshape(-1, 1, 2).astype(float), H).reshape(-1, 2) * scale
        shift = max(shift, float(np.linalg.norm(at - ideal, axis=1).max()))
    # (the homography alone puts them further off than the masks' margin: masks drawn so missed the cards)
    assert shift > MASK_MARGIN_MM * 2.2 * scale
