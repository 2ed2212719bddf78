"""A glare streak off a sleeve, taken off a card before it is compared with its enrolment photo
(``vision.cards.tell``): light added along a straight band, the same all along it, of the lamp's colour and
fading across the band."""

from __future__ import annotations

import functools

import cv2
import numpy as np

from vision.robust import median

GLARE_LIT = 0.9  # glare lights this much of what it crosses (its lines here; a streak's cells in vision.cards.tell)
GLARE_LEVEL = 0.1  # light added along a line, a fraction of the card's median brightness, taken off (``streak``)
GLARE_AREA = 0.03  # ...when at least this much of the card is brighter than its photo by that much...
GLARE_STEP_DEG = 5.0  # ...looked for along lines in directions this far apart
TAIL_MM = 6  # the card's own light is measured this far from the streak's lines (1 mm apart)


def reference(photo: np.ndarray) -> tuple[np.ndarray, float, np.ndarray]:
    """What ``streak`` compares a card with: the photo's brightness at half its resolution and its median,
    and its colours at half its resolution (computed once per enrolled photo)."""
    half, r = _half(photo)
    return r, max(median(r.ravel()), 1.0), half


def _half(img: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``img`` at half its resolution (float32 BGR) and its brightness."""
    half = cv2.resize(img, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA).astype(np.float32)
    grey = half[..., 0] + half[..., 1]  # the channels' mean as mean(axis=2) takes it, without its overhead
    grey += half[..., 2]
    grey /= 3
    return half, grey


def _medians(pixels: np.ndarray) -> np.ndarray:
    """Each channel's median over ``pixels`` (..., 3)."""
    return np.maximum([median(pixels[..., c].ravel()) for c in range(3)], 1.0).astype(np.float32)


def streak(card: np.ndarray, reference: tuple[np.ndarray, float, np.ndarray]
           ) -> tuple[np.ndarray, np.ndarray] | None:
    """(``card`` (warped onto the photo ``reference`` was made from) with the light of a glare streak taken
    off: light added along a straight band, the same all along it (a sleeve's reflection), found as the band
    across which the card is brighter than its photo (the mean along each line of a direction, 1 mm apart,
    over every direction ``GLARE_STEP_DEG`` apart); None when no line is brighter by ``GLARE_LEVEL``. The
    light taken off is measured per channel (the lamp's colour) over the streak's lit lines and its fading
    edges (``_band``), against the card's light away from it; and where the streak washed the print out (at
    half the card's resolution): under its light (``GLARE_LEVEL`` at least) and as bright as the card's
    lightest print away from it, or brighter. A
    card's own print differs from another's in places (a title, a number, a mark), which the mean along a
    whole line hardly shows; and ``Teller._query`` keeps the card so lightened only if it then lies nearer
    its photo."""
    r, r_median, r_colour = reference
    q_colour, q = _half(card)
    if q.shape != r.shape:
        return None
    q_median = median(q.ravel())
    level = GLARE_LEVEL * q_median
    residual = q - q_median / r_median * r
    if (residual > level).mean() < GLARE_AREA:
        return None
    h, w = q.shape
    angles, lines, _, size, count = _lines(h, w)
    # Glare lights nearly every pixel along its lines; a title or a number of other print than the photo's
    # is brighter in its strokes only (a card never enrolled must not have its own title taken off). So the
    # lines lit so (and not at the card's corners, too few pixels to say) are found first, counting the lit
    # pixels only; the mean along a line is then taken in the directions that have such lines only (most
    # cards have none: a title's strokes light no whole line).
    lit_px = np.flatnonzero(residual.ravel() > level / 2)
    lit = np.bincount(lines[:, lit_px].ravel(), minlength=len(angles) * size).reshape(len(angles), size)
    streak = (lit >= GLARE_LIT * count) & (count >= 0.3 * count.max(axis=1, keepdims=True))
    ways = np.flatnonzero(streak.any(axis=1))
    if not len(ways):
        return None
    total = np.bincount(lines[ways].ravel(), np.tile(residual.ravel(), len(ways)), len(angles) * size)
    profiles = np.where(streak[ways], total.reshape(len(angles), size)[ways] / np.maximum(count[ways], 1), 0.0)
    best = profiles.max(axis=1)
    k = int(np.argmax(best))
    if best[k] < level:
        return None
    k = int(ways[k])
    line = lines[k] - size * k
    band = _band(total[k * size:(k + 1) * size] / np.maximum(count[k], 1), streak[k], level)
    # The streak's light is the lamp's, reflected: of the light's colour, not grey (under a warm lamp grey taken
    # off leaves a yellow band). So it is measured per channel along the lines of the streak's direction, the
    # card's light measured away from it (a wide streak lifts the whole card's median: its edges then seemed
    # darker than the photo, its core too little lit).
    away = ~np.convolve(band, np.ones(2 * TAIL_MM + 1), "same").astype(bool)[line].reshape(h, w)
    if away.mean() < 0.3:
        return None
    gains = _medians(q_colour[away][None]) / _medians(r_colour[away][None])
    residual = q_colour - gains * r_colour
    light = np.stack([np.bincount(line, residual[..., c].ravel(), size) for c in range(3)], axis=1)
    light /= np.maximum(count[k], 1)[:, None]
    band = _band(light.mean(axis=1), streak[k], level)
    light = np.maximum(light, 0) * band[:, None]
    # Washed out: under the streak's light (at least the level at which a line is glare) and as bright as the
    # card's lightest print away from the streak, or brighter (the lamp's light clipped the print there).
    white = float(np.percentile(q[away], 99))
    washed = ((light.mean(axis=1) >= level)[line].reshape(h, w)) & (q >= white)
    light = light[_across(card.shape[:2], (h, w), k)]
    return np.clip(card.astype(np.float32) - light, 0, 255).astype(np.uint8), washed


def _band(profile: np.ndarray, core: np.ndarray, level: float) -> np.ndarray:
    """The lines of a streak: its lit core (``core``, brighter by ``level`` / 2) and the tails either side, as
    far as the light keeps falling off and stays over ``level`` / 4 (a streak's light fades across it: taking
    off its core only leaves its edges as two bands of light)."""
    band = core & (profile >= level / 2)
    for step in (1, -1):
        for j in np.flatnonzero(band):
            k = j + step
            while 0 <= k < len(profile) and not band[k] and level / 4 <= profile[k] <= profile[k - step]:
                band[k] = True
                k += step
    return band


@functools.lru_cache(maxsize=64)
def _across(size: tuple[int, int], half: tuple[int, int], k: int) -> np.ndarray:
    """For a card of ``size`` (H, W) pixels, seen at ``half`` (h, w): each pixel's line in direction ``k`` of
    ``_lines(h, w)``."""
    (H, W), (h, w) = size, half
    angles, _, lows, lines, _ = _lines(h, w)
    a = angles[k]
    yy, xx = np.indices((H, W))
    t = np.round((xx * w / W - w / 2) * np.cos(a) + (yy * h / H - h / 2) * np.sin(a)).astype(np.int64) - lows[k]
    return np.clip(t, 0, lines - 1)


@functools.lru_cache(maxsize=4)
def _lines(h: int, w: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, np.ndarray]:
    """For an image of ``h`` x ``w`` pixels and each direction ``GLARE_STEP_DEG`` apart: the directions, each
    pixel's line across it (one pixel apart, offset per direction so that all share one count), each
    direction's lowest line, the number of lines per direction and the pixels on each line."""
    angles = np.radians(np.arange(0, 180, GLARE_STEP_DEG))
    ys, xs = np.indices((h, w))
    xs, ys = xs.ravel() - w / 2, ys.ravel() - h / 2
    t = np.round(np.cos(angles)[:, None] * xs + np.sin(angles)[:, None] * ys).astype(np.int64)
    lows = t.min(axis=1)
    t -= lows[:, None]
    size = int(t.max()) + 1
    lines = t + size * np.arange(len(angles))[:, None]
    count = np.bincount(lines.ravel(), minlength=len(angles) * size).reshape(len(angles), size)
    return angles, lines, lows, size, count
