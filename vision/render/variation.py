"""What changes from frame to frame on a real table, drawn wider than the design presets: the light (the
four design lightings and ``mixed``: a lamp and a window of different colours), arms of any skin tone and
sleeve, and the camera's blur.

>>> import numpy as np
>>> from calibration.layout import load_layout
>>> light = varied_lighting("mixed", load_layout("chaudron"), np.random.default_rng(2))
>>> light.name, len(light.sources)
('mixed', 2)
"""

from __future__ import annotations

import math
from dataclasses import replace

import cv2
import numpy as np

from calibration.layout import Layout
from vision.render.lamps import mixed_sources
from vision.render.scene import Hand, Lighting

ALL_LIGHTINGS = ("warm", "cool", "dim", "daylight", "mixed")
# Skin from very pale to very dark (RGB), walked continuously; any tone between two neighbours is drawn.
SKIN_RAMP = ((245, 214, 192), (236, 198, 170), (214, 164, 128), (176, 124, 88), (120, 82, 58), (84, 58, 42),
             (60, 42, 32))


def varied_lighting(name: str, layout: Layout, rng: np.random.Generator) -> Lighting:
    """One of ``ALL_LIGHTINGS``, varied more than ``lighting_preset`` varies it (colour, level, gradient,
    glare, light direction); ``mixed``: a lamp on one side and a window on the other, of two colours."""
    from vision.render import lighting_preset

    if name == "mixed":
        lamp, window = mixed_sources(layout.size, rng)
        strong = lamp if lamp.intensity >= window.intensity else window
        ambient = tuple(float((a + b) / 2) for a, b in zip(lamp.gains, window.gains, strict=True))
        return Lighting("mixed", ambient, float(rng.uniform(0.06, 0.16)), azimuth_deg=strong.azimuth_deg,
                        elevation_deg=strong.elevation_deg, shadow=float(rng.uniform(0.35, 0.6)),
                        sources=(lamp, window))
    base = lighting_preset(name)
    jitter = rng.uniform(0.88, 1.12, 3)
    return replace(base, gains=tuple(float(g * j) for g, j in zip(base.gains, jitter, strict=True)),
                   intensity=float(base.intensity * rng.uniform(0.75, 1.15)),
                   gradient=float(rng.uniform(0.0, 0.4)), gradient_deg=float(rng.uniform(0, 360)),
                   azimuth_deg=float(rng.uniform(0, 360)), elevation_deg=float(rng.uniform(30, 80)),
                   shadow=float(rng.uniform(0.25, 0.6)),
                   glare=float(rng.uniform(0, 0.25)) if rng.random() < 0.35 else 0.0,
                   glare_at=(float(rng.uniform(0.1, 0.9)), float(rng.uniform(0.1, 0.9))))


def random_skin(rng: np.random.Generator) -> tuple[int, int, int]:
    t = rng.uniform(0, len(SKIN_RAMP) - 1)
    i = min(int(t), len(SKIN_RAMP) - 2)
    a, b = np.array(SKIN_RAMP[i], float), np.array(SKIN_RAMP[i + 1], float)
    rgb = (a + (t - i) * (b - a)) * rng.uniform(0.95, 1.05) + rng.normal(0, 3, 3)
    return tuple(int(v) for v in np.clip(np.round(rgb), 0, 255))


def random_sleeve(rng: np.random.Generator) -> tuple[int, int, int] | None:
    """A sleeve of any colour (one arm in five is bare)."""
    if rng.random() < 0.2:
        return None
    hsv = np.uint8([[[int(rng.integers(180)), int(rng.uniform(0, 255)), int(rng.uniform(15, 250))]]])
    return tuple(int(v) for v in cv2.cvtColor(hsv, cv2.COLOR_HSV2RGB)[0, 0])


def varied_hand(layout: Layout, rng: np.random.Generator) -> Hand:
    """An arm reaching in from any side to any point of the board (a third of them right across it)."""
    bw, bh = layout.size
    side = int(rng.integers(4))
    t = rng.uniform(0.05, 0.95)
    entry = [(t * bw, -120.0), (bw + 120.0, t * bh), (t * bw, bh + 120.0), (-120.0, t * bh)][side]
    if rng.random() < 1 / 3:
        # Across: the fingertips near the far edge, the arm over the board's whole width or height.
        far = [(rng.uniform(0.1, 0.9) * bw, 0.9 * bh), (0.1 * bw, rng.uniform(0.1, 0.9) * bh),
               (rng.uniform(0.1, 0.9) * bw, 0.1 * bh), (0.9 * bw, rng.uniform(0.1, 0.9) * bh)][side]
        tip = (float(far[0]), float(far[1]))
    else:
        tip = (float(rng.uniform(0.1, 0.9) * bw), float(rng.uniform(0.1, 0.9) * bh))
    scale = float(np.clip(min(bw, bh) / 250, 0.75, 1.1))
    return Hand(entry, tip, random_skin(rng), random_sleeve(rng), float(rng.uniform(40, 200)),
                scale * float(rng.uniform(0.85, 1.15)))


def motion_kernel(length_px: float, angle_deg: float) -> np.ndarray:
    """A straight motion-blur kernel ``length_px`` long (anti-aliased line, sums to 1)."""
    size = 2 * math.ceil(length_px / 2) + 3
    k = np.zeros((size, size), np.float32)
    c = (size - 1) / 2
    d = np.array([math.cos(math.radians(angle_deg)), math.sin(math.radians(angle_deg))]) * (length_px - 1) / 2
    a, b = np.round((np.array([c, c]) - d) * 16).astype(int), np.round((np.array([c, c]) + d) * 16).astype(int)
    cv2.line(k, tuple(a.tolist()), tuple(b.tolist()), 1.0, 1, cv2.LINE_AA, 4)
    return k / k.sum()


def defocus_kernel(radius_px: float) -> np.ndarray:
    """An out-of-focus disc of ``radius_px`` (sums to 1)."""
    size = 2 * math.ceil(radius_px) + 3
    k = np.zeros((size, size), np.float32)
    c = (size - 1) / 2
    cv2.circle(k, (round(c * 16), round(c * 16)), round(radius_px * 16), 1.0, -1, cv2.LINE_AA, 4)
    return k / k.sum()
