"""Where an arm or a hand lies over an enrolled board, cell by cell: a small learnt model.

A hand of the board's own colour in dim light differs from the board in neither colour nor brightness, and the
reader's rules (``BoardReader._rules_hands``: blobs of cells unlike the board that reach its edge) do not see it at
all; an arm's shadow in coloured light differs in colour and joins the pieces beside it to the arm. What does tell
them apart is a shape: a limb's two long outlines with its rounded shading between, coming in over the board's
edge, the print the board was enrolled with hidden over a hand's width, a shadow's even darkening beside it. So
each grid cell is described by what the comparison with the enrolled board measures there (``measures``), the
cells are pooled two by two (8 mm), and a small convolutional network over that picture of the board (four 3x3
layers whose taps lie 1, 2, 4 and 8 cells apart: it sees 25 cm around a cell, an arm's width and both its
outlines), learnt on the randomised renderer's tables (``vision/train_hands.py``, ``alchemy-table train-reader``), gives
the probability that a hand or an arm covers each cell. The reader's hand mask is the model's arms and the
rules' together (``BoardReader.hands``).
"""

from __future__ import annotations

import zipfile
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from vision.board import FIT_MIN_SPREAD, BoardComparison, Difference, cell_means
from vision.robust import centre_and_spread

N_MEASURES = 11  # per cell: ``measures``' channels
N_INPUTS = N_MEASURES + 3  # (and the cell's place, marker and distance to the edge: ``static_measures``)
MODEL_PATH = Path(__file__).parent / "models" / "hands.npz"


def measures(compare: BoardComparison, diff: Difference) -> np.ndarray:
    """(rows, cols, N_MEASURES) float32: per grid cell, the share unlike the board; its colour change, its
    brightening and darkening beyond the local light, and the edges the board does not have (each in the
    frame's noises, log1p); the light's level there, and how far it lies above or below the level of the free
    board that looks like the board (in that board's spreads: a pale hand in its own light's colour is brighter
    than the light can make the board); how the enrolled print shows through (its correlation over the cell and
    over the nine around it, 0 where no print lies) and where there is print to show."""
    g = compare.geometry
    shape, px = g.grid_shape, g.grid_px
    shows, own = compare.print_shows(diff)
    lifted = diff.lifted
    out = np.empty((*shape, N_MEASURES), np.float32)
    out[..., 0] = diff.grid_differs
    out[..., 1] = np.log1p(cell_means(diff.chroma, px, shape))
    out[..., 2] = np.log1p(cell_means(np.maximum(lifted, 0), px, shape))
    out[..., 3] = np.log1p(cell_means(np.maximum(-lifted, 0), px, shape))
    out[..., 4] = np.log1p(cell_means(diff.edges, px, shape))
    out[..., 5] = bright = cell_means(diff.brightness, px, shape)
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


def pooled(cells: np.ndarray, pool: int = 2) -> np.ndarray:
    """``cells`` (rows, cols, ...) pooled two by two (the last row or column repeated where they are odd), once
    for ``pool`` 2, twice for 4: the picture the model sees."""
    if pool == 4:
        return pooled(pooled(cells))
    rows, cols = cells.shape[:2]
    a = np.pad(cells, ((0, rows % 2), (0, cols % 2)) + ((0, 0),) * (cells.ndim - 2), mode="edge")
    a = a.reshape(a.shape[0] // 2, 2, a.shape[1] // 2, 2, *a.shape[2:])
    return ((a[:, 0, :, 0] + a[:, 0, :, 1] + a[:, 1, :, 0] + a[:, 1, :, 1]) * 0.25).astype(np.float32)


def inputs(cells: np.ndarray, static: np.ndarray, pool: int = 2) -> np.ndarray:
    """(rows/pool, cols/pool, N_INPUTS) float32: the model's picture from ``measures`` and ``static_measures``,
    ``pool`` (2 or 4) grid cells a side to each of its cells."""
    return pooled(np.concatenate([cells, static], axis=-1), pool)


def probability_map(model: HandModel, cells: np.ndarray, static: np.ndarray) -> np.ndarray:
    """(rows, cols) float32: the probability that a hand covers each grid cell, from ``measures`` and
    ``static_measures`` (the model's answer, one per ``model.pool`` cells a side, spread back over the 4 mm
    cells linearly)."""
    rows, cols = cells.shape[:2]
    k = model.pool
    p = model.probability(inputs(cells, static, k))
    return cv2.resize(p, (k * p.shape[1], k * p.shape[0]), interpolation=cv2.INTER_LINEAR)[:rows, :cols]


class HandModel:
    """A small convolutional network over the board's pooled picture (``inputs``): 3x3 layers, each ``dilations``
    cells apart, ReLU, then one weighted sum per cell: the probability that a hand or an arm covers the cell.
    Borders repeat the edge cells (as PyTorch's ``padding_mode="replicate"`` it learnt with)."""

    def __init__(self, mean, scale, dilations, weights, biases, head, head_bias, pool: int = 2):
        self.pool = int(pool)  # grid cells (4 mm) a side to each of the model's cells
        self.mean = np.asarray(mean, np.float32)
        self.scale = np.asarray(scale, np.float32)
        self.dilations = [int(d) for d in dilations]
        self.weights = [np.asarray(w, np.float32) for w in weights]  # (3, 3, in, out) each
        self.biases = [np.asarray(b, np.float32) for b in biases]
        self.head, self.head_bias = np.asarray(head, np.float32), np.asarray(head_bias, np.float32)  # (out, 1), (1,)
        # (each of a kernel's nine taps as a product: (9, out, in))
        self._taps = [np.ascontiguousarray(w.transpose(0, 1, 3, 2).reshape(9, w.shape[3], w.shape[2]))
                      for w in self.weights]

    @property
    def n_inputs(self) -> int:
        return self.weights[0].shape[2]

    def probability(self, x: np.ndarray) -> np.ndarray:
        """(h, w) float32 for the picture ``x`` (h, w, N_INPUTS)."""
        h, w = x.shape[:2]
        a = np.ascontiguousarray(((x - self.mean) / self.scale).transpose(2, 0, 1), dtype=np.float32)
        for taps, bias, d in zip(self._taps, self.biases, self.dilations, strict=True):
            a = _layer(a, taps, bias, d)
        z = (self.head.T @ np.ascontiguousarray(a).reshape(len(a), -1)).reshape(h, w) + self.head_bias
        return (1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))).astype(np.float32)  # (clipped: exp stays finite)

    def save(self, path: Path) -> None:
        layers = {f"w{i}": w for i, w in enumerate(self.weights)} | {f"b{i}": b for i, b in enumerate(self.biases)}
        np.savez_compressed(path, mean=self.mean, scale=self.scale, dil=np.array(self.dilations), wh=self.head,
                            bh=self.head_bias, pool=np.array(self.pool), **layers)

    @classmethod
    def load(cls, path: Path) -> HandModel:
        try:
            with np.load(path) as data:
                n = len(data["dil"])
                model = cls(data["mean"], data["scale"], data["dil"], [data[f"w{i}"] for i in range(n)],
                            [data[f"b{i}"] for i in range(n)], data["wh"], data["bh"],
                            int(data["pool"]) if "pool" in data else 2)
        except (OSError, KeyError, ValueError, zipfile.BadZipFile) as e:
            raise ValueError(f"{path}: not a hand model ({e})") from None
        if model.n_inputs != N_INPUTS or len(model.mean) != N_INPUTS or model.pool not in (2, 4):
            raise ValueError(f"{path}: a hand model of {model.n_inputs} inputs, this reader measures {N_INPUTS}: "
                             "train it again (alchemy-table train-reader)")
        return model


def _layer(a: np.ndarray, taps: np.ndarray, bias: np.ndarray, d: int) -> np.ndarray:
    """One 3x3 layer, its taps ``d`` cells apart, then ReLU, over ``a`` (channels, h, w), channels first. The
    input is padded (edge cells repeated) and laid out flat, rows of ``w + 2d``: each tap's shifted picture is
    then a slice of it that BLAS reads in place, one product a tap, nothing copied. Outputs fall on every column
    of those wider rows; the ``2d`` past each row's end are dropped."""
    c, h, w = a.shape
    wide = w + 2 * d
    flat = np.empty((c, (h + 2 * d) * wide + 2 * d), np.float32)  # (and 2d to spare: the last tap's slice)
    padded = flat[:, :(h + 2 * d) * wide].reshape(c, h + 2 * d, wide)
    padded[:, d:d + h, d:d + w] = a
    padded[:, d:d + h, :d] = a[:, :, :1]
    padded[:, d:d + h, d + w:] = a[:, :, -1:]
    padded[:, :d] = padded[:, d:d + 1]
    padded[:, d + h:] = padded[:, d + h - 1:d + h]
    flat[:, (h + 2 * d) * wide:] = 0
    n = h * wide
    out = taps[0] @ flat[:, :n]
    for k in range(1, 9):
        start = (k // 3) * d * wide + (k % 3) * d
        out += taps[k] @ flat[:, start:start + n]
    out += bias[:, None]
    np.maximum(out, 0, out=out)
    return out.reshape(-1, h, wide)[:, :, :w]


@lru_cache(maxsize=1)
def shipped() -> HandModel | None:
    """The model shipped with the package (None before one is trained)."""
    return HandModel.load(MODEL_PATH) if MODEL_PATH.exists() else None
