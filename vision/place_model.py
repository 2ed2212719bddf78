"""The learned decision for a place on an enrolled board: empty, the learnt piece it looks most like, the next
one, or neither (unknown).

``BoardReader`` measures each place against the enrolled board (what differs from it in three rings around
the place's centre, how strongly in colour and in brightness, the lit top's colour, the light reaching it);
``features`` turns that into numbers that do not depend on which game, board or piece it is: areas as
ratios to the learnt pieces' areas, colours as distances to the two learnt pieces they are nearest to.
A small network (``vision/models/places.npz``, about 13 000 weights) over those numbers and each place's
picture (``vision/place_crops.py``), trained on the randomised renderer's tables (``alchemy-table
train-reader``, ``vision/train_places.py``), decides; its probability is the confidence, and below ``SURE``
the place reads unknown.
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from vision import place_crops

MODEL_PATH = Path(__file__).parent / "models" / "places.npz"
# A place decided with less probability than this reads unknown. A wrong read is worse than an unread one (the
# live loop waits for an unread place; it would act on a wrong one). On the development tables (sets a and b,
# kept apart from training), the model trained on 180 tables at 0.99 against 0.98: wrong 0.48 -> 0.30 % and
# 0.51 -> 0.41 %, unread 12.2 -> 15.7 % and 13.7 -> 17.2 % (the 90-table model it replaces, at 0.98: 0.47 and
# 0.64 % wrong, 16.5 and 15.1 % unread).
SURE = 0.99
EMPTY, FIRST, SECOND, NEITHER = 0, 1, 2, 3
CLASSES = ("empty", "first", "second", "neither")
N_FEATURES = 29
FAR = 60.0  # the distance to a second piece where a place has only one to choose from


@dataclass
class PlaceMeasures:
    """What ``BoardReader.measure`` finds in every slot, arrays over slots."""
    area_in: np.ndarray  # mm² differing within 0.6 half-widths of the place's centre
    area_body: np.ndarray  # ... between 0.6 and 1 half-width (the place itself)
    area_ring: np.ndarray  # ... beyond it, up to the place's reach (a piece set down off its centre, or spill)
    core: np.ndarray  # mm² of the differing pixels away from their edges, within the place
    chroma: np.ndarray  # mean colour change over the place, in noises
    lifted: np.ndarray  # mean brightness change over the place beyond the local light, in noises
    chroma_in: np.ndarray  # the same near the place's centre
    lifted_in: np.ndarray
    contrast_in: np.ndarray  # mean size of the brightness change near the centre, either way, in noises
    edges_in: np.ndarray  # mean of the edges the board does not have near the centre, in noises
    edges: np.ndarray  # ... over the place
    shade_in: np.ndarray  # mean log brightness near the centre against the fitted light (a dark piece, a shadow)
    dark: np.ndarray  # share of the place's differing pixels darker than half the light
    light: np.ndarray  # the light reaching the place against the board's fitted light (log)
    lab: np.ndarray  # (n, 3) the lit top's mean Lab, relit and white-normalised
    cover: np.ndarray  # share of the place's grid cells under a hand
    level: np.ndarray  # log of the light on the place against the light the board was enrolled in


def feature_matrix(m: PlaceMeasures, first: np.ndarray, second: np.ndarray, held: np.ndarray,
                   smallest_mm2: np.ndarray, showing_first: np.ndarray, showing_least: np.ndarray) -> np.ndarray:
    """(slots, N_FEATURES). ``first``, ``second``: (slots, 3) for the two learnt pieces nearest each place's
    colour and area, their colour distance, log area ratio and lightness difference (``FAR``, 3, ``FAR``
    where a place has no such piece); ``held``: how many pieces the place may hold (two counts as many);
    ``smallest_mm2``: the smallest of them; ``showing_first``, ``showing_least``: how far the nearest
    piece's colour, and the piece's least unlike the board's, are from the enrolled board's colour there
    (a dark tile on dark print hardly shows: "empty" is then unsure)."""
    area = m.area_in + m.area_body + m.area_ring
    s = np.maximum(smallest_mm2, 1.0)
    columns = [
        m.area_in / s, m.area_body / s, m.area_ring / s, m.core / s, np.log1p(area / s),
        m.chroma, m.lifted, m.chroma_in, m.lifted_in, m.contrast_in, m.edges_in, m.edges,
        m.shade_in, m.dark, m.light, m.cover,
        m.lab[:, 0], np.hypot(m.lab[:, 1], m.lab[:, 2]),
        first[:, 0], first[:, 1], first[:, 2], second[:, 0], second[:, 1], second[:, 2], second[:, 0] - first[:, 0],
        np.minimum(held, 2).astype(np.float64), showing_first, showing_least, m.level,
    ]
    return np.stack(columns, axis=1).astype(np.float32).reshape(-1, N_FEATURES)



class PlaceModel:
    """The trained network. Each place's picture (``vision/place_crops.py``, standardised per channel) goes
    through two 3 x 3 convolutions of rectified units, each halving it by a 2 x 2 max-pool; what they find,
    beside the standardised measures, feeds a hidden layer of rectified units and a softmax over ``CLASSES``.
    Its weights are plain arrays (``.npz``): reading needs numpy only; training needs PyTorch
    (``vision/train_places.py``)."""

    def __init__(self, mean: np.ndarray, scale: np.ndarray, crop_mean: np.ndarray, crop_scale: np.ndarray,
                 convs: list[tuple[np.ndarray, np.ndarray]], layers: list[tuple[np.ndarray, np.ndarray]],
                 low: np.ndarray, high: np.ndarray):
        self.mean, self.scale, self.layers = mean, scale, layers
        self.crop_mean, self.crop_scale, self.convs = crop_mean, crop_scale, convs
        # What the training places spanned, a tenth wider: a place beyond it is nothing the model has seen,
        # and a network's answer there is a guess, however sure it looks.
        margin = 0.1 * (high - low)
        self.low, self.high = low - margin, high + margin

    @classmethod
    def load(cls, path: Path = MODEL_PATH) -> PlaceModel:
        try:
            with np.load(path) as z:
                n, nc = int(z["layers"]), int(z["convs"])
                model = cls(z["mean"], z["scale"], z["crop_mean"], z["crop_scale"],
                            [(z[f"c{k}"], z[f"cb{k}"]) for k in range(nc)],
                            [(z[f"w{k}"], z[f"b{k}"]) for k in range(n)], z["low"], z["high"])
        except (OSError, KeyError, ValueError, IndexError, TypeError, zipfile.BadZipFile) as e:
            raise ValueError(f"{path}: not a place model ({e}); retrain it: alchemy-table train-reader") from None
        if model.mean.shape != (N_FEATURES,) or model.layers[-1][1].shape != (len(CLASSES),) \
                or model.crop_mean.shape != (place_crops.CHANNELS,):
            raise ValueError(f"{path}: a place model of other features; retrain it: alchemy-table train-reader")
        return model

    def save(self, path: Path) -> None:
        margin = (self.high - self.low) / 1.2 * 0.1
        arrays = {"mean": self.mean, "scale": self.scale, "crop_mean": self.crop_mean,
                  "crop_scale": self.crop_scale, "layers": np.array(len(self.layers)),
                  "convs": np.array(len(self.convs)), "low": self.low + margin, "high": self.high - margin}
        for k, (w, b) in enumerate(self.layers):
            arrays[f"w{k}"], arrays[f"b{k}"] = w.astype(np.float32), b.astype(np.float32)
        for k, (w, b) in enumerate(self.convs):
            arrays[f"c{k}"], arrays[f"cb{k}"] = w.astype(np.float32), b.astype(np.float32)
        with open(path, "wb") as f:
            np.savez_compressed(f, **arrays)

    def probabilities(self, x: np.ndarray, crops: np.ndarray) -> np.ndarray:
        """(n, len(CLASSES)) for the rows of ``x`` (n, N_FEATURES) and their pictures ``crops``
        (n, SIZE, SIZE, CHANNELS)."""
        h = (np.asarray(crops, np.float32) - self.crop_mean) / self.crop_scale
        for w, b in self.convs:
            n, side = h.shape[:2]  # (one 2-D product: a 4-D one is many small ones)
            h = max_pool2(np.maximum(conv3_windows(h).reshape(n * side * side, -1) @ w + b, 0.0)
                      .reshape(n, side, side, -1))
        h = np.concatenate([h.reshape(len(h), -1), (np.asarray(x, np.float32) - self.mean) / self.scale], axis=1)
        for w, b in self.layers[:-1]:
            h = np.maximum(h @ w + b, 0.0)
        w, b = self.layers[-1]
        z = h @ w + b
        z = np.exp(z - z.max(axis=1, keepdims=True))
        return z / z.sum(axis=1, keepdims=True)

    def decide(self, x: np.ndarray, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(class, its probability) for each row of ``x`` and its picture."""
        if len(x) == 0:
            return np.zeros(0, int), np.zeros(0)
        p = self.probabilities(x, crops)
        k = p.argmax(axis=1)
        sure = p[np.arange(len(k)), k]
        unseen = ((x < self.low) | (x > self.high)).any(axis=1)
        return k, np.where(unseen, 0.0, sure)


def conv3_windows(h: np.ndarray) -> np.ndarray:
    """(n, rows, cols, 9 c): each cell's 3 x 3 neighbourhood (zeros beyond the edge), row by row, channels last
    (the stacked test's pictures use it too: they need not be square)."""
    n, rows, cols, c = h.shape
    padded = np.zeros((n, rows + 2, cols + 2, c), np.float32)
    padded[:, 1:-1, 1:-1] = h
    # (the 3 x 3 windows as a view, copied once in row, column, channel order: a third of the time of
    # concatenating the nine shifted copies)
    windows = sliding_window_view(padded, (3, 3), axis=(1, 2))  # (n, rows, cols, c, 3, 3)
    return np.ascontiguousarray(windows.transpose(0, 1, 2, 4, 5, 3)).reshape(n, rows, cols, 9 * c)


def max_pool2(h: np.ndarray) -> np.ndarray:
    """The largest of each 2 x 2 cells (an odd last row or column dropped)."""
    h = h[:, :h.shape[1] // 2 * 2, :h.shape[2] // 2 * 2]
    return np.maximum(np.maximum(h[:, 0::2, 0::2], h[:, 0::2, 1::2]), np.maximum(h[:, 1::2, 0::2], h[:, 1::2, 1::2]))


@lru_cache(maxsize=1)
def shipped() -> PlaceModel:
    return PlaceModel.load()
