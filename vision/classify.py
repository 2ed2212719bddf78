"""Per-colour decisions as lookup tables, so that reading a frame costs a few array lookups.

Normalised colours are quantised to 5 bits per channel (steps of 8 levels: about 2 Lab units, well under
the distances that separate labels). For every quantised colour and every set of labels a zone allows, the
nearest label (in Lab, each label at several shades) and its shade are computed once, when the reader is
built: ``code = label * 16 + shade``, or ``FOREIGN`` when no label is within ``FOREIGN_DE``, or
``HIGHLIGHT`` for a near-white specular glint that matches nothing.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.colour import bgr_to_lab

BITS = 5
LEVELS = 1 << BITS
FOREIGN = 255
HIGHLIGHT = 254
FOREIGN_DE = 22.0
BOARD_DE = 2.0  # a colour within this (plus the frame's noise allowance) of the background is board
NOISE_LEVELS = (1.0, 1.5, 2.2, 3.2, 4.5, 6.5)  # median ΔE of the board's cells around the light field
NOISE_SPAN = 2.5  # board cells scatter up to about this many times their median ΔE
DARKEST_SHADOW = 0.5  # darker than this fraction of the lit board is no shadow (those take half the light at
# most, a hand's soft one less) but something dark: a sleeve, dark skin
LUMA = np.array([0.114, 0.587, 0.299], np.float32)  # BGR weights of brightness
BRIGHTEST = 1.22  # brighter than this: no board the light field explains (a pale hand, a white sleeve)


def _centres() -> np.ndarray:
    step = 256 // LEVELS
    v = (np.arange(LEVELS) * step + step / 2) / 255.0
    b, g, r = np.meshgrid(v, v, v, indexing="ij")
    return np.stack([b, g, r], -1).reshape(-1, 3).astype(np.float32)


_LAB: np.ndarray | None = None


def _centre_lab() -> tuple[np.ndarray, np.ndarray]:
    global _LAB
    if _LAB is None:
        _LAB = bgr_to_lab(_centres())
    return _centres(), _LAB


_INDEX_WEIGHTS = np.array([[1 << (2 * BITS), 1 << BITS, 1]], np.float32)


def index(bgr: np.ndarray) -> np.ndarray:
    """uint8 BGR (any shape ending in 3) -> table index."""
    if bgr.size == 0:
        return np.zeros(bgr.shape[:-1], np.int32)
    # One matrix product in OpenCV (numpy is slow along a short axis); exact, all small integers in float32.
    q = (bgr >> (8 - BITS)).reshape(-1, 1, 3).astype(np.float32)
    return cv2.transform(q, _INDEX_WEIGHTS).astype(np.int32).reshape(bgr.shape[:-1])


def to_uint8(bgr01: np.ndarray, in_place: bool = False) -> np.ndarray:
    """Levels 0..1 -> uint8, rounded; ``in_place``: ``bgr01`` (float, no longer needed) holds the steps."""
    level = np.multiply(bgr01, 255.0, out=bgr01) if in_place else bgr01 * 255.0
    level += 0.5  # (in place: one array, not three)
    return np.clip(level, 0, 255, out=level).astype(np.uint8)


def prototype_distances(prototypes_lab: np.ndarray) -> np.ndarray:
    """(N, L, S): the ΔE of every colour level from every shade of every label of ``prototypes_lab``."""
    _, lab = _centre_lab()
    # Channel by channel, added in the order a sum over the last axis adds them (the same floats), without
    # the (N, L, S, 3) array in between: several times faster.
    d = [(lab[:, None, None, k] - prototypes_lab[None, ..., k]) ** 2 for k in range(3)]
    return np.sqrt(d[0] + d[1] + d[2])


def label_tables(prototypes_lab: np.ndarray, allowed: np.ndarray, foreign_des: tuple[float | None, ...],
                 distances: np.ndarray | None = None) -> list[np.ndarray]:
    """``prototypes_lab`` (L, S, 3); ``allowed`` (L,) bool -> a uint8 table of codes for each of ``foreign_des``,
    the nearest labels found once (most of a table's cost). At ``None`` every colour takes its nearest label,
    however far: for counting, where a zone holds only its labels and the board, and dim light scatters a
    piece's pixels far from its colour (still nearer it than the board). ``distances``:
    ``prototype_distances(prototypes_lab)`` if already known (a reader's label sets share it)."""
    _, lab = _centre_lab()
    protos = prototypes_lab[allowed]  # (A, S, 3)
    ids = np.flatnonzero(allowed)
    d = prototype_distances(protos) if distances is None else distances[:, allowed]  # (N, A, S)
    flat = d.reshape(len(lab), -1)
    best = flat.argmin(1)
    best_d = flat[np.arange(len(lab)), best]
    n_shades = protos.shape[1]
    nearest = (ids[best // n_shades] * 16 + best % n_shades).astype(np.uint8)
    highlight = (lab[:, 0] > 80) & (np.hypot(lab[:, 1], lab[:, 2]) < 18)
    tables = []
    for foreign_de in foreign_des:
        code = nearest.copy()
        if foreign_de is not None:
            code[best_d > foreign_de] = FOREIGN
            code[(best_d > foreign_de) & highlight] = HIGHLIGHT
        tables.append(code)
    return tables


def brightness(bgr01: np.ndarray, background_bgr: np.ndarray) -> np.ndarray:
    """Per colour (BGR 0..1, (n, 3)): its brightness as a fraction of the board's."""
    return (bgr01 @ LUMA) / float(background_bgr.astype(np.float32) @ LUMA)


def board_lab_at(bgr01: np.ndarray, background_bgr: np.ndarray) -> np.ndarray:
    """Per colour (BGR 0..1, (n, 3)): the Lab of the board's colour at that colour's brightness (the board
    in a shadow or a glare looks like this)."""
    bg = background_bgr.astype(np.float32)
    return bgr_to_lab(np.clip(brightness(bgr01, bg), 0.25, 1.3)[:, None] * bg[None, :])


def board_distance(bgr01: np.ndarray, background_bgr: np.ndarray, lab: np.ndarray | None = None) -> np.ndarray:
    """Per colour (BGR 0..1, (n, 3); ``lab`` its Lab if already known): ΔE from the board's colour at the
    colour's own brightness, so that a shadow on the board is no distance."""
    return row_norm((bgr_to_lab(bgr01) if lab is None else lab) - board_lab_at(bgr01, background_bgr))


def row_norm(a: np.ndarray) -> np.ndarray:
    """``np.linalg.norm(a, axis=1)`` of an (n, 3) float array, column by column (numpy is slow along a short
    axis): the same values, as numpy adds a row's three squares in order."""
    sq = a * a
    return np.sqrt(sq[:, 0] + sq[:, 1] + sq[:, 2])


def row_sums(a: np.ndarray) -> np.ndarray:
    """``a.sum(axis=1)`` of an (n, 3) array, column by column (numpy is slow along a short axis): the same
    values, as numpy adds a row's three in order."""
    return a[:, 0] + a[:, 1] + a[:, 2]


def row_max_abs(a: np.ndarray) -> np.ndarray:
    """``np.abs(a).max(axis=1)`` of an (n, 3) array, column by column."""
    a = np.abs(a)
    return np.maximum(np.maximum(a[:, 0], a[:, 1]), a[:, 2])


def board_redder(background_bgr: np.ndarray) -> np.ndarray:
    """float32 table: how much redder (Lab a*) each colour is than the board's colour at its brightness."""
    bgr, lab = _centre_lab()
    return (lab[:, 1] - board_lab_at(bgr, background_bgr)[:, 1]).astype(np.float32)


def board_table(background_bgr: np.ndarray, noise: float = NOISE_LEVELS[-1]) -> np.ndarray:
    """bool table: the colour is the board's background, lit or in a shadow (same colour, less light),
    given the frame's ``noise`` (median ΔE of board cells; noise grows in the dark as 1/sqrt(brightness))."""
    bgr, lab = _centre_lab()
    k = brightness(bgr, background_bgr)
    de = board_distance(bgr, background_bgr, lab)
    tolerance = BOARD_DE + NOISE_SPAN * noise / np.sqrt(np.clip(k, 0.1, 1.0))
    return (de < tolerance) & (k < BRIGHTEST) & (k > DARKEST_SHADOW)


def board_tables(background_bgr: np.ndarray) -> np.ndarray:
    """``board_table`` at every level of NOISE_LEVELS: (levels, LEVELS ** 3) bool."""
    return np.stack([board_table(background_bgr, n) for n in NOISE_LEVELS])


def noise_level(de_median: float) -> int:
    """Index of the smallest NOISE_LEVELS entry at least ``de_median``."""
    return min(int(np.searchsorted(NOISE_LEVELS, de_median)), len(NOISE_LEVELS) - 1)
