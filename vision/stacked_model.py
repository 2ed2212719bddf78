"""The learned test of a cube lying on another: one probability per counted tray, from the signs
``vision.stacked`` measures (``features``).

Each sign alone is also seen on single layers (dim light's noisy tops, a side on a shadow's edge), and a
rule over them ("one sure sign, or two faint ones") asks either too many single layers to be spread or lets
stacked trays through. A small network over all of them (``vision/models/stacked.npz``, a few hundred
weights) weighs them together; it is trained on the randomised renderer's trays (``alchemy-table
train-stacked``, ``vision/train_stacked.py``), every tray of every frame one example, its truth the
renderer's ``stacked`` flag. Reading needs numpy only.
"""

from __future__ import annotations

import math
import zipfile
from functools import lru_cache
from pathlib import Path

import numpy as np

from vision import stacked, stacked_crops
from vision.place_model import conv3_windows, max_pool2

MODEL_PATH = Path(__file__).parent / "models" / "stacked.npz"
# The test read against an enrolled board (``BoardReader.counts``): learnt on the layout's board and on enrolled
# faces, the cubes' shadows kept. On the layout's own board it tells stacked trays apart less well than the one
# learnt there alone, whose doubt the referee's end-games are judged by; each board keeps the test that suits it.
ENROLLED_PATH = Path(__file__).parent / "models" / "stacked_enrolled.npz"
NAMES = ("side", "stray", "least share", "typical share", "closest", "shadow", "shadow mm", "short", "cubes",
         "shaded", "shaded 2nd", "shaded sum", "sure", "faint")
N_FEATURES = len(NAMES)
SEEN_BATCH = 256  # pictures through the convolutions at a time (memory, not speed)


def features(c, frame: stacked.Frame, px_per_mm: float) -> np.ndarray:
    """The numbers the test weighs for one counted tray (``c``: a ``CountReading`` measured with the signs;
    ``frame``: what the frame's trays tell of one layer), each where a single layer sits near 0 or 1 whatever
    the cubes' size and the light."""
    sides = list(c.sides)
    ref = max((x for x in (stacked._layer(sides), frame.side) if x is not None), default=None)
    side = max(sides) / ref if sides and ref and ref >= stacked.MIN_SIDE_PX else 1.0
    shares = [x for x in c.shares if x > 0]
    typical = float(np.median(shares)) if shares else 1.0
    least = min(shares) / typical if shares and typical > 0 else 1.0
    shadow, more = _shadow(c.shadows, frame, px_per_mm)
    shaded = [*sorted(c.shaded, reverse=True), 0.0, 0.0]
    sure, faint = stacked.signs(c, frame, px_per_mm)
    return np.array([min(side, 4.0), min(c.stray, 2.0), least, min(typical, 2.0), min(c.closest, 3.0),
                     min(shadow, 4.0), float(np.clip(more, -10, 20)), float(np.clip(c.count - c.pieces_area, -3, 3)),
                     math.log1p(c.count), shaded[0], shaded[1], min(sum(c.shaded), 3.0), len(sure), len(faint)],
                    np.float32)


def _shadow(s, frame: stacked.Frame, px_per_mm: float) -> tuple[float, float]:
    """The longest shadow the light's way against one layer's (ratio, and mm longer); 1 and 0 unknown."""
    if s is None or frame.way is None or frame.shadow is None or not len(s):
        return 1.0, 0.0
    runs, hidden = s.at(frame.way)
    own = stacked._layer([float(r) for r, hid in zip(runs, hidden, strict=True) if not hid and r > 0])
    ref = max(x for x in (own, frame.shadow) if x is not None)
    longest = float(runs.max())
    return (longest / ref if ref > 0 else 1.0), (longest - ref) / px_per_mm


def doubt(c, frame: stacked.Frame, px_per_mm: float, enrolled: bool = False) -> float:
    """How likely a cube lies on another in a counted tray: the shipped model's probability, at least its
    ``unsure`` where the squares seem not one layer's (``stacked.not_one_layer``). Those signs are among the
    model's inputs, and alone they are seen on single layers as often as on trays the model lets through: at
    1 px/mm a big pile's squares sit a pixel or two off their tops' grid (debug seeds 18001-18004, 1,106 single-
    layer trays and 269 stacked: asked alone, they left 21 single layers counted right uncounted, 16 to 18
    cubes mostly, for one stacked tray the model did not ask, at 0.42). Such a tray is counted, and kept in the
    referee's doubt: a cube may yet lie on another."""
    model = shipped(enrolled)
    p = float(model.probability(features(c, frame, px_per_mm)[None],
                                None if not model.convs else np.asarray(c.picture)[None])[0])
    return max(p, model.unsure) if stacked.not_one_layer(c) else p


class StackedModel:
    """Standardised features through one hidden layer of rectified units to a logistic output; with ``convs``,
    the tray's picture (``vision.stacked_crops``, standardised per channel) too: 3 x 3 convolutions of rectified
    units, each but the last halving it by a 2 x 2 max-pool, their largest and mean response over the picture
    beside the features into the hidden layer. Plain arrays (``.npz``): reading needs numpy only."""

    def __init__(self, mean: np.ndarray, scale: np.ndarray, w1: np.ndarray, b1: np.ndarray, w2: np.ndarray,
                 b2: np.ndarray, threshold: float, unsure: float, convs: list[tuple[np.ndarray, np.ndarray]] = (),
                 crop_mean: np.ndarray | None = None, crop_scale: np.ndarray | None = None):
        self.mean, self.scale, self.w1, self.b1, self.w2, self.b2 = mean, scale, w1, b1, w2, b2
        self.convs, self.crop_mean, self.crop_scale = list(convs), crop_mean, crop_scale
        # ``threshold``: a tray is asked to be spread from this probability; ``unsure``: from this one, a tray
        # counted may hide a cube or two under others (the referee asks it where that changes a result)
        self.threshold, self.unsure = threshold, unsure

    @classmethod
    def load(cls, path: Path = MODEL_PATH) -> StackedModel:
        try:
            with np.load(path) as z:
                convs = [(z[f"c{k}"], z[f"cb{k}"]) for k in range(int(z["convs"]))] if "convs" in z else []
                model = cls(*(z[k] for k in ("mean", "scale", "w1", "b1", "w2", "b2")), float(z["threshold"]),
                            float(z["unsure"]), convs, *((z["crop_mean"], z["crop_scale"]) if convs else ()))
        except (OSError, KeyError, ValueError, TypeError, zipfile.BadZipFile) as e:
            raise ValueError(f"{path}: not a stacked-cube model ({e}); retrain it: alchemy-table train-stacked") \
                from None
        seen = 2 * model.convs[-1][1].shape[0] if model.convs else 0
        if model.mean.shape != (N_FEATURES,) or model.w1.shape[0] != N_FEATURES + seen or (
                model.convs and model.crop_mean.shape != (stacked_crops.CHANNELS,)):
            raise ValueError(f"{path}: a stacked-cube model of other features; retrain it: alchemy-table "
                             f"train-stacked")
        return model

    def save(self, path: Path) -> None:
        arrays = {"mean": self.mean, "scale": self.scale, "w1": self.w1, "b1": self.b1, "w2": self.w2, "b2": self.b2,
                  "threshold": np.array(self.threshold), "unsure": np.array(self.unsure)}
        if self.convs:
            arrays.update(convs=np.array(len(self.convs)), crop_mean=self.crop_mean, crop_scale=self.crop_scale)
            for k, (w, b) in enumerate(self.convs):
                arrays[f"c{k}"], arrays[f"cb{k}"] = w.astype(np.float32), b.astype(np.float32)
        with open(path, "wb") as f:
            np.savez_compressed(f, **arrays)

    def probability(self, x: np.ndarray, pictures: np.ndarray | None = None) -> np.ndarray:
        """P(a cube lies on another) for each row of ``x`` (n, N_FEATURES) and, for a model with convolutions,
        its tray's picture (n, SIZE, SIZE, CHANNELS)."""
        h = (np.asarray(x, np.float32) - self.mean) / self.scale
        if self.convs:
            if pictures is None or len(pictures) != len(h):
                raise ValueError("the stacked-cube model reads each tray's picture beside its features")
            # (a few hundred pictures at a time: the convolutions' maps of a training set's thousands fill memory)
            if not len(h):
                return np.zeros(0)
            seen = np.concatenate([self._seen(pictures[k:k + SEEN_BATCH]) for k in range(0, len(h), SEEN_BATCH)])
            h = np.concatenate([seen, h], axis=1)
        h = np.maximum(h @ self.w1 + self.b1, 0.0)
        z = (h @ self.w2 + self.b2).ravel()
        return 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))

    def _seen(self, pictures: np.ndarray) -> np.ndarray:
        """What the convolutions find in each picture: each channel's largest and mean response, (n, 2 C)."""
        h = (np.asarray(pictures, np.float32) - self.crop_mean) / self.crop_scale
        for k, (w, b) in enumerate(self.convs):
            if k:
                h = max_pool2(h)
            n, rows, cols = h.shape[:3]
            h = np.maximum(conv3_windows(h).reshape(n * rows * cols, -1) @ w + b, 0.0).reshape(n, rows, cols, -1)
        return np.concatenate([h.max(axis=(1, 2)), h.mean(axis=(1, 2))], axis=1)


@lru_cache(maxsize=2)
def shipped(enrolled: bool = False) -> StackedModel:
    """The test for trays read against an enrolled board (``enrolled``) or the layout's own."""
    return StackedModel.load(ENROLLED_PATH if enrolled else MODEL_PATH)
