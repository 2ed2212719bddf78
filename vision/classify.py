"""Per-colour decisions as lookup tables, so that reading a frame costs a few array lookups.

Normalised colours are quantised to 5 bits per channel (steps of 8 levels: about 2 Lab units, well under
the distances that separate labels). For every quantised colour and every set of labels a zone allows, the
nearest label (in Lab, each label at several shades) and its shade are computed once, when the reader is
built: ``code = label * 16 + shade``, or ``FOREIGN`` when no label is within ``FOREIGN_DE``, or
``HIGHLIGHT`` for a near-white specular glint that matches nothing.
"""

from __future__ import annotations

import numpy as np

from vision.colour import bgr_to_lab

BITS = 5
LEVELS = 1 << BITS
FOREIGN = 255
HIGHLIGHT = 254
FOREIGN_DE = 22.0
BOARD_DE = 5.0  # a colour within this (plus BOARD_DE_DARK / brightness) of the background is board
BOARD_DE_DARK = 2.0  # in the dark, noise scatters Lab: be more tolerant
DARKEST_SHADOW = 0.3  # darker than this fraction of the background is no shadow but something dark


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


def index(bgr: np.ndarray) -> np.ndarray:
    """uint8 BGR (any shape ending in 3) -> table index."""
    q = (bgr >> (8 - BITS)).astype(np.int32)
    return (q[..., 0] << (2 * BITS)) | (q[..., 1] << BITS) | q[..., 2]


def to_uint8(bgr01: np.ndarray) -> np.ndarray:
    return np.clip(bgr01 * 255.0 + 0.5, 0, 255).astype(np.uint8)


def label_table(prototypes_lab: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """``prototypes_lab`` (L, S, 3); ``allowed`` (L,) bool -> uint8 table of codes."""
    _, lab = _centre_lab()
    protos = prototypes_lab[allowed]  # (A, S, 3)
    ids = np.flatnonzero(allowed)
    d = np.sqrt(((lab[:, None, None, :] - protos[None]) ** 2).sum(-1))  # (N, A, S)
    flat = d.reshape(len(lab), -1)
    best = flat.argmin(1)
    best_d = flat[np.arange(len(lab)), best]
    n_shades = protos.shape[1]
    code = (ids[best // n_shades] * 16 + best % n_shades).astype(np.uint8)
    highlight = (lab[:, 0] > 80) & (np.hypot(lab[:, 1], lab[:, 2]) < 18)
    code[best_d > FOREIGN_DE] = FOREIGN
    code[(best_d > FOREIGN_DE) & highlight] = HIGHLIGHT
    return code


def board_table(background_bgr: np.ndarray) -> np.ndarray:
    """bool table: the colour is the board's background, lit or in a shadow (same colour, less light)."""
    bgr, lab = _centre_lab()
    weights = np.array([0.114, 0.587, 0.299], np.float32)
    bg = background_bgr.astype(np.float32)
    k = (bgr @ weights) / float(bg @ weights)
    expected = np.clip(k, 0.25, 1.3)[:, None] * bg[None, :]
    de = np.linalg.norm(lab - bgr_to_lab(expected), axis=1)
    return (de < BOARD_DE + BOARD_DE_DARK / np.clip(k, 0.1, 1.0)) & (k < 1.35) & (k > DARKEST_SHADOW)
