"""A glare streak off a sleeve, taken off a card before it is compared with its enrolment photo
(``vision.cards.tell``): light added along a straight band, the same all along it."""

from __future__ import annotations

import functools

import cv2
import numpy as np

GLARE_LIT = 0.9  # glare lights this much of what it crosses (its lines here; a streak's cells in vision.cards.tell)
GLARE_LEVEL = 0.1  # light added along a line, a fraction of the card's median brightness, taken off (deglared)
GLARE_AREA = 0.03  # ...when at least this much of the card is brighter than its photo by that much...
GLARE_STEP_DEG = 5.0  # ...looked for along lines in directions this far apart


def deglared(card: np.ndarray, photo: np.ndarray) -> np.ndarray | None:
    """``card`` (warped onto ``photo``) with the light of a glare streak taken off: light added along a
    straight band, the same all along it (a sleeve's reflection), found as the band across which the card
    is brighter than its photo (the mean along each line of a direction, 1 mm apart, over every direction
    ``GLARE_STEP_DEG`` apart); None when no line is brighter by ``GLARE_LEVEL``. A card's own print differs
    from another's in places (a title, a number, a mark), which the mean along a whole line hardly shows;
    and ``Teller._query`` keeps the card so lightened only if it then lies nearer its photo."""
    if card.shape != photo.shape:
        return None
    q = cv2.resize(card, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA).astype(np.float32).mean(axis=2)
    r = cv2.resize(photo, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA).astype(np.float32).mean(axis=2)
    level = GLARE_LEVEL * float(np.median(q))
    residual = q - float(np.median(q)) / max(float(np.median(r)), 1.0) * r
    if (residual > level).mean() < GLARE_AREA:
        return None
    h, w = q.shape
    angles, lines, lows, size = _lines(h, w)
    # The mean along every line of each direction, all directions in one count.
    count = np.bincount(lines.ravel(), minlength=len(angles) * size).reshape(len(angles), size)
    total = np.bincount(lines.ravel(), np.tile(residual.ravel(), len(angles)), len(angles) * size)
    profiles = total.reshape(len(angles), size) / np.maximum(count, 1)
    # Glare lights nearly every pixel along its lines; a title or a number of other print than the photo's
    # is brighter in its strokes only (a card never enrolled must not have its own title taken off).
    lit = np.bincount(lines.ravel(), np.tile((residual > level / 2).ravel(), len(angles)), len(angles) * size)
    profiles[lit.reshape(len(angles), size) < GLARE_LIT * count] = 0
    profiles[count < 0.3 * count.max(axis=1, keepdims=True)] = 0  # the card's corners: too few pixels to say
    k = int(np.argmax(profiles.max(axis=1)))
    if profiles[k].max() < level:
        return None
    a, profile, low = angles[k], profiles[k], lows[k]
    H, W = card.shape[:2]
    yy, xx = np.indices((H, W))
    t = np.round((xx * w / W - w / 2) * np.cos(a) + (yy * h / H - h / 2) * np.sin(a)).astype(np.int64) - low
    light = np.maximum(profile[np.clip(t, 0, len(profile) - 1)], 0)
    light[light < level / 2] = 0
    return np.clip(card.astype(np.float32) - light[..., None], 0, 255).astype(np.uint8)


@functools.lru_cache(maxsize=4)
def _lines(h: int, w: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """For an image of ``h`` x ``w`` pixels and each direction ``GLARE_STEP_DEG`` apart: the directions, each
    pixel's line across it (one pixel apart, offset per direction so that all share one count), each
    direction's lowest line and the number of lines per direction."""
    angles = np.radians(np.arange(0, 180, GLARE_STEP_DEG))
    ys, xs = np.indices((h, w))
    xs, ys = xs.ravel() - w / 2, ys.ravel() - h / 2
    t = np.round(np.cos(angles)[:, None] * xs + np.sin(angles)[:, None] * ys).astype(np.int64)
    lows = t.min(axis=1)
    t -= lows[:, None]
    size = int(t.max()) + 1
    return angles, t + size * np.arange(len(angles))[:, None], lows, size
