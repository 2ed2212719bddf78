"""Light from several sources of different colours: a lamp on one side of the board, a window on the other.

Each source is a point at ``xy_mm`` (board coordinates, usually outside the board) and ``height_mm``
above it; its light falls off with distance as a broad source's does (h² / (h² + d²) of its level straight
below), so the colour and the level of the light change across the board; every piece casts one shadow
per source, each taking away only that source's light (a shadow from the lamp is lit by the window, in the
window's colour).

>>> import numpy as np
>>> lamp = Source("lamp", (1.0, 0.8, 0.58), 1.0, (-100.0, 90.0), 300.0)
>>> near, far = irradiance(lamp, np.array([0.0, 180.0]), np.array([90.0, 90.0]))[:, 0]
>>> bool(near > 1.5 * far)
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

# RGB gains of plausible sources: tungsten and warm LED lamps; daylight, overcast and north-sky windows.
WARM_SOURCES = ((1.0, 0.8, 0.58), (1.0, 0.86, 0.7), (1.0, 0.74, 0.5), (1.0, 0.9, 0.78))
COOL_SOURCES = ((0.8, 0.92, 1.0), (0.9, 0.96, 1.0), (0.74, 0.86, 1.0), (0.97, 0.98, 1.0))


@dataclass(frozen=True)
class Source:
    """One light: ``kind`` (``lamp`` or ``window``), RGB ``gains``, ``intensity`` (its light on the board
    straight below it), where it stands (board mm, and height above the board)."""
    kind: str
    gains: tuple[float, float, float]
    intensity: float
    xy_mm: tuple[float, float]
    height_mm: float
    azimuth_deg: float = 45.0  # where it stands seen from the board's centre (its shadows fall away from it)
    elevation_deg: float = 60.0


def irradiance(source: Source, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
    """The RGB light ``source`` gives at board points (xs, ys) mm: shape ``xs.shape + (3,)``."""
    h = source.height_mm
    d2 = (xs - source.xy_mm[0]) ** 2 + (ys - source.xy_mm[1]) ** 2
    level = source.intensity * h * h / (h * h + d2)
    return level[..., None] * np.asarray(source.gains, np.float32)


def mixed_sources(board_size: tuple[float, float], rng: np.random.Generator) -> tuple[Source, Source]:
    """A lamp of one colour on one side of the board and a window of another colour on the opposite side,
    their levels such that the board's mean light is about that of the design lightings."""
    bw, bh = board_size
    span = max(bw, bh)
    side = rng.uniform(0, 2 * math.pi)
    centre = np.array([bw / 2, bh / 2])
    out = []
    warm_lamp = rng.random() < 0.75  # usually a warm lamp and a cool window; sometimes the other way round
    for k, kind in enumerate(("lamp", "window")):
        angle = side + k * math.pi + rng.uniform(-0.5, 0.5)
        away = span * (rng.uniform(0.8, 1.2) if kind == "lamp" else rng.uniform(1.0, 1.6))
        xy = centre + away * np.array([math.cos(angle), math.sin(angle)])
        height = span * (rng.uniform(0.5, 0.9) if kind == "lamp" else rng.uniform(0.7, 1.2))
        palette = WARM_SOURCES if (kind == "lamp") == warm_lamp else COOL_SOURCES
        base = palette[int(rng.integers(len(palette)))]
        gains = tuple(float(g * j) for g, j in zip(base, rng.uniform(0.94, 1.06, 3), strict=True))
        out.append(Source(kind, gains, 1.0, (float(xy[0]), float(xy[1])), float(height),
                          math.degrees(angle), math.degrees(math.atan2(height, away))))
    # Scale each source so that its mean over the board is its share of the total light.
    xs, ys = np.meshgrid(np.linspace(0, bw, 9), np.linspace(0, bh, 9))
    total = float(rng.uniform(0.55, 1.05))
    share = float(rng.uniform(0.3, 0.7))
    scaled = []
    for src, part in zip(out, (share, 1 - share), strict=True):
        mean = float(irradiance(src, xs, ys).mean(axis=-1).mean())
        scaled.append(replace(src, intensity=total * part / mean))
    return scaled[0], scaled[1]
