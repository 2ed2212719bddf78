"""Draw a layout's plan to scale: board outline, markers (the real ArUco patterns) and labelled zones."""

from __future__ import annotations

import cv2
import numpy as np
from PIL import Image, ImageDraw, ImageFont

from calibration.layout import Layout

ARUCO_DICT = cv2.aruco.DICT_4X4_50


def marker_image(marker_id: int, side_px: int) -> np.ndarray:
    """The ArUco DICT_4X4_50 pattern of ``marker_id``, ``side_px`` square, black on white (uint8)."""
    dictionary = cv2.aruco.getPredefinedDictionary(ARUCO_DICT)
    return cv2.aruco.generateImageMarker(dictionary, marker_id, side_px)


def draw_plan(layout: Layout, px_per_mm: float = 2.0) -> Image.Image:
    """The board drawn to scale (``px_per_mm``), zones outlined in their first label's colour, with ids."""
    margin = 10
    width = round(layout.size[0] * px_per_mm) + 2 * margin
    height = round(layout.size[1] * px_per_mm) + 2 * margin
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)

    def px(x: float, y: float) -> tuple[int, int]:
        return (margin + round(x * px_per_mm), margin + round(y * px_per_mm))

    draw.rectangle([px(0, 0), px(*layout.size)], fill=layout.colour("empty"), outline="black", width=2)
    font = ImageFont.load_default(size=max(8, round(3.2 * px_per_mm)))
    for m in layout.markers:
        side = max(6, round(m.size * px_per_mm))
        pattern = Image.fromarray(marker_image(m.id, side)).convert("RGB")
        image.paste(pattern, px(*m.corners()[0]))
        draw.text(px(m.center[0], m.center[1] + m.size / 2 + 1), f"#{m.id}", fill="black", font=font,
                  anchor="mt")
    for z in layout.zones:
        left, top, right, bottom = z.bounds
        piece = next((label for label in z.labels if label != "empty"), "empty")
        outline = layout.colour(piece)
        if z.kind == "count":
            draw.rectangle([px(left, top), px(right, bottom)], outline=outline, width=3)
        else:
            draw.rectangle([px(left, top), px(right, bottom)], outline=outline, width=2)
        draw.text(px(*z.center), _short_id(z.id), fill="black", font=font, anchor="mm")
    return image


def _short_id(zone_id: str) -> str:
    # Long ids (cauldron-3.ingredient-2) would not fit a 22 mm slot; keep the distinguishing tail.
    if "." in zone_id:
        head, tail = zone_id.split(".", 1)
        return f"{head.split('-')[-1]}.{tail.replace('ingredient-', 'i')}"
    return zone_id
