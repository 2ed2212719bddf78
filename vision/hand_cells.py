"""Where an arm or a hand lies over an enrolled board, cell by cell: a small learnt model.

A hand of the board's own colour in dim light differs from the board in neither colour nor brightness, and the
reader's rules (``BoardReader._rules_hands``: blobs of cells unlike the board that reach its edge) do not see it at
all; an arm's shadow in coloured light differs in colour and joins the pieces beside it to the arm. What does tell
them apart is seen around a cell as much as in it: the print the board was enrolled with hidden over a hand's
width, the outline and the rounded shading of a limb, a shadow's even darkening. So each grid cell is described
by what the comparison with the enrolled board measures there (``measures``), averaged over squares of 1, 3, 9
and 27 cells (4 mm to 11 cm), and a small network learnt on the randomised renderer's tables
(``vision/train_hands.py``, ``alchemy-table train-reader``) gives the probability that a hand or an arm covers it.
The reader's hand mask is the model's arms and the rules' together (``BoardReader.hands``).
"""

from __future__ import annotations

import zipfile
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from vision.board import FIT_MIN_SPREAD, BoardComparison, Difference
from vision.robust import centre_and_spread

SCALES = (3, 9, 27)  # the widths (cells) of the squares each measure is also averaged over
N_MEASURES = 11  # per cell: ``measures``' channels, each at its own cell and over every ``SCALES`` square
N_FEATURES = N_MEASURES * (1 + len(SCALES)) + 3  # (and the cell's place, marker and distance to the edge)
MODEL_PATH = Path(__file__).parent / "models" / "hands.npz"


def _cells(image: np.ndarray, grid_px: int, shape: tuple[int, int]) -> np.ndarray:
    rows, cols = shape
    return cv2.resize(image[:rows * grid_px, :cols * grid_px], (cols, rows), interpolation=cv2.INTER_AREA)


def measures(compare: BoardComparison, diff: Difference,
             print_shows: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """(rows, cols, N_MEASURES) float32: per grid cell, the share unlike the board; its colour change, its
    brightening and darkening beyond the local light, and the edges the board does not have (each in the
    frame's noises, log1p); the light's level there, and how far it lies above or below the level of the free
    board that looks like the board (in that board's spreads: a pale hand in its own light's colour is brighter
    than the light can make the board); how the enrolled print shows through (its correlation over the cell and
    over the nine around it, 0 where no print lies) and where there is print to show. (``print_shows``: the
    comparison's ``print_shows(diff)`` where already measured.)"""
    g = compare.geometry
    shape, px = g.grid_shape, g.grid_px
    shows, own = compare.print_shows(diff) if print_shows is None else print_shows
    lifted = diff.lifted
    out = np.empty((*shape, N_MEASURES), np.float32)
    out[..., 0] = diff.grid_differs
    out[..., 1] = np.log1p(_cells(diff.chroma, px, shape))
    out[..., 2] = np.log1p(_cells(np.maximum(lifted, 0), px, shape))
    out[..., 3] = np.log1p(_cells(np.maximum(-lifted, 0), px, shape))
    out[..., 4] = np.log1p(_cells(diff.edges, px, shape))
    out[..., 5] = bright = _cells(diff.brightness, px, shape)
    free = bright[g.grid_background & (diff.grid_differs < 0.5)]
    level, spread = centre_and_spread(free[::3].astype(np.float64)) if len(free) >= 30 else (0.0, FIT_MIN_SPREAD)
    out[..., 10] = (bright - level) / max(spread, FIT_MIN_SPREAD)
    out[..., 6] = np.nan_to_num(own, nan=0.0)
    out[..., 7] = np.isfinite(own)
    out[..., 8] = np.nan_to_num(shows, nan=0.0)
    out[..., 9] = np.isfinite(shows)
    return out


def static_measures(compare: BoardComparison, in_zone: np.ndarray) -> np.ndarray:
    """(rows, cols, 3) float32: what a cell is on the board whatever the frame: in a zone, on a marker, and its
    distance to the board's nearest edge (in tenths of a metre, up to 0.3: an arm comes in over the edge)."""
    g = compare.geometry
    rows, cols = g.grid_shape
    r, c = np.mgrid[0:rows, 0:cols]
    edge = np.minimum(np.minimum(r, rows - 1 - r), np.minimum(c, cols - 1 - c)) * g.grid_mm / 100.0
    return np.stack([in_zone, g.grid_marker, np.minimum(edge, 0.3)], axis=-1).astype(np.float32)


def features(cells: np.ndarray, static: np.ndarray) -> np.ndarray:
    """(rows * cols, N_FEATURES) float32 from ``measures`` and ``static_measures``."""
    parts = [cells] + [cv2.blur(cells, (k, k), borderType=cv2.BORDER_REFLECT) for k in SCALES] + [static]
    x = np.concatenate(parts, axis=-1)
    return x.reshape(-1, x.shape[-1])


def probability_map(model: HandModel, cells: np.ndarray, static: np.ndarray) -> np.ndarray:
    """(rows, cols) float32: the probability that a hand covers each cell, from ``measures`` and
    ``static_measures``. The network is run on every other cell of every other row, and the cells between take
    the mean of their neighbours': a quarter of the work, and a hand's outline, 8 mm out at the worst, is
    closed and widened by more than that after (``BoardReader.hands``)."""
    rows, cols = cells.shape[:2]
    parts = [cells] + [cv2.blur(cells, (k, k), borderType=cv2.BORDER_REFLECT) for k in SCALES] + [static]
    x = np.concatenate([part[::2, ::2] for part in parts], axis=-1)
    p = model.probability(x.reshape(-1, x.shape[-1])).reshape(x.shape[:2])
    return _between(_between(p, rows), cols, axis=1)


def _between(p: np.ndarray, n: int, axis: int = 0) -> np.ndarray:
    """``p`` sampled at every other of ``n`` cells along ``axis``, back at all ``n``: each cell between two samples
    their mean, and the last cell, past the last sample, the last sample's."""
    p = np.moveaxis(p, axis, 0)
    out = np.empty((n, *p.shape[1:]), p.dtype)
    out[::2] = p
    out[1:len(p) * 2 - 1:2] = (p[:-1] + p[1:]) / 2
    if n % 2 == 0:
        out[-1] = p[-1]
    return np.moveaxis(out, 0, axis)


class HandModel:
    """A two-layer network over a cell's features: the probability that a hand or an arm covers the cell."""

    def __init__(self, mean, scale, w1, b1, w2, b2):
        self.mean = np.asarray(mean, np.float32)
        self.scale = np.asarray(scale, np.float32)
        # (the standardisation folded into the first layer: one product less per cell)
        w1 = np.asarray(w1, np.float32) / self.scale[:, None]
        self.w1, self.b1 = w1, np.asarray(b1, np.float32) - self.mean @ w1
        self.w2, self.b2 = np.asarray(w2, np.float32), np.asarray(b2, np.float32)
        self._raw = (mean, scale, w1 * self.scale[:, None], b1, w2, b2)

    def probability(self, x: np.ndarray) -> np.ndarray:
        """(cells,) float32 for features ``x`` (cells, N_FEATURES)."""
        h = x @ self.w1
        h += self.b1
        np.maximum(h, 0, out=h)
        z = (h @ self.w2).ravel() + self.b2
        return (1.0 / (1.0 + np.exp(-z))).astype(np.float32)

    def save(self, path: Path) -> None:
        mean, scale, w1, b1, w2, b2 = self._raw
        np.savez_compressed(path, mean=mean, scale=scale, w1=w1, b1=b1, w2=w2, b2=b2)

    @classmethod
    def load(cls, path: Path) -> HandModel:
        try:
            with np.load(path) as data:
                model = cls(*(data[k] for k in ("mean", "scale", "w1", "b1", "w2", "b2")))
        except (OSError, KeyError, ValueError, zipfile.BadZipFile) as e:
            raise ValueError(f"{path}: not a hand model ({e})") from None
        if model.w1.shape[0] != N_FEATURES:
            raise ValueError(f"{path}: a hand model of {model.w1.shape[0]} features, this reader measures "
                             f"{N_FEATURES}: train it again (alchemy-table train-reader)")
        return model


@lru_cache(maxsize=1)
def shipped() -> HandModel | None:
    """The model shipped with the package (None before one is trained)."""
    return HandModel.load(MODEL_PATH) if MODEL_PATH.exists() else None
