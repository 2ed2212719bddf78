"""Training the stacked-cube test (``vision/stacked_model.py``) on the randomised renderer's trays.

Tables are rendered as ``eval-piles`` renders them (a camera pose, a light of the five, piles left as players
leave them, a cube set 0.8-1.2 times the layout's size, a share of trays with a cube on another), each
calibrated from its own calibration frame as a user would; every counted tray of every frame is one example:
the signs measured on it (``stacked_model.features``) and whether a cube lies on another there. A tray the
counter leaves uncounted teaches nothing (it is asked already). ``alchemy-table train-stacked`` renders the
trays and writes the model: a hidden layer of ``HIDDEN`` rectified units, trained with numpy alone.
"""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

import numpy as np

from calibration.layout import load_layout
from vision import stacked, stacked_model
from vision.evaluate_piles import LAYOUT, LIGHTS, random_reserve, render, table, table_calibration
from vision.geometry import COUNT_PX_PER_MM
from vision.read import Reader

HIDDEN = 12
STEPS = 1500
RATE = 0.01
DECAY = 1e-3  # weight decay: a few hundred weights over a couple of thousand trays
STACKED_SHARE = 0.4  # trays with a cube on another in the training frames
SINGLE_ASKED = 0.05  # the threshold: the probability above which this share of single-layer trays is asked
# The referee's ``unsure``: below it lies this share of the training's trays with a cube on another. The training's
# tables (cube sets 0.8-1.2 the layout's) are not those of a game: on eval-piles' own (debug seeds 14001-14003, 385
# stacked trays), 0.03 left 7.8 % of them counted short and not in doubt (9.1 % of the single layers counted in
# doubt); 0.02 4.7 % (18.8 %); 0.01 2.9 % (32.9 %). The referee asks a tray in doubt only where two more cubes
# would change a result.
STACKED_MISSED = 0.01


class _Recorder(Reader):
    """A reader that keeps, frame by frame, each counted tray's features before the stacked test."""

    def _unstacked(self, counts):
        frame = stacked.Frame.of([list(c.sides) for c in counts.values()], [c.shadows for c in counts.values()])
        self.rows = {zid: stacked_model.features(c, frame, COUNT_PX_PER_MM)
                     for zid, c in counts.items() if c.count is not None}
        self.counted = {zid: c.count for zid, c in counts.items()}
        return counts


def examples(seed: int, light: str, tables: int, frames: int
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(features, stacked?, counted right?, seed) of every counted tray of ``tables`` x ``frames`` frames under
    ``light`` (seed ``seed``)."""
    layout = load_layout(LAYOUT)
    rng = np.random.default_rng([seed, LIGHTS.index(light), 23])
    xs, ys, right = [], [], []
    for _ in range(tables):
        c, style = table(layout, light, rng, STACKED_SHARE, scale=float(rng.uniform(0.8, 1.2)))
        calibration = table_calibration(layout, c, style, light, rng)
        if calibration is None:
            continue
        reader = _Recorder(layout, calibration, spread_stacked=True)
        for f in range(frames):
            fc = replace(c, piles=style, placement_seed=int(rng.integers(2**31)), hand=c.hand if f == 0 else None)
            frame, truth = render(layout, random_reserve(layout, rng), fc, light, rng)
            reader.rows = {}
            reader.read(frame)
            for zid, x in reader.rows.items():
                n = truth["counts"].get(zid)
                if n is None:
                    continue
                xs.append(x)
                ys.append(truth["piles"][zid]["stacked"])
                right.append(reader.counted[zid] == n)
    return (np.array(xs, np.float32).reshape(-1, stacked_model.N_FEATURES), np.array(ys, bool),
            np.array(right, bool), np.full(len(ys), seed))


def _examples(job):
    return examples(*job)


def render_examples(seeds: list[int], tables: int, frames: int, workers: int | None = None, progress=None):
    """``examples`` over every seed and light, in ``workers`` processes."""
    jobs = [(s, light, tables, frames) for s in seeds for light in LIGHTS]
    workers = workers or max(1, min(len(jobs), (os.cpu_count() or 1)))
    parts = []
    with ProcessPoolExecutor(workers) as pool:
        for k, part in enumerate(pool.map(_examples, jobs)):
            parts.append(part)
            if progress:
                progress(k + 1, len(jobs))
    return tuple(np.concatenate(a) for a in zip(*parts, strict=True))


def train(x: np.ndarray, y: np.ndarray, seed: int = 0) -> stacked_model.StackedModel:
    """The network fitted to ``x`` (n, N_FEATURES) and ``y`` (stacked?), full batch with Adam, the classes
    weighed equally; its threshold where ``SINGLE_ASKED`` of the single-layer trays are asked."""
    if len(x) < 20 or y.all() or not y.any():
        raise ValueError(f"train-stacked: {len(x)} trays, {int(y.sum())} stacked: too few of either to learn from")
    rng = np.random.default_rng(seed)
    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-3
    z = (x - mean) / scale
    t = y.astype(np.float32)[:, None]
    weight = np.where(y, 0.5 / y.mean(), 0.5 / (1 - y.mean())).astype(np.float32)[:, None] / len(y)
    params = [rng.normal(0, 1 / np.sqrt(z.shape[1]), (z.shape[1], HIDDEN)).astype(np.float32),
              np.zeros(HIDDEN, np.float32), rng.normal(0, 1 / np.sqrt(HIDDEN), (HIDDEN, 1)).astype(np.float32),
              np.zeros(1, np.float32)]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    for step in range(1, STEPS + 1):
        w1, b1, w2, b2 = params
        a = z @ w1 + b1
        h = np.maximum(a, 0)
        p = 1 / (1 + np.exp(-np.clip(h @ w2 + b2, -30, 30)))
        d = (p - t) * weight  # (the log loss's gradient at the output)
        dh = (d @ w2.T) * (a > 0)
        grads = [z.T @ dh + DECAY * w1, dh.sum(0), h.T @ d + DECAY * w2, d.sum(0)]
        for k, g in enumerate(grads):
            m[k] = 0.9 * m[k] + 0.1 * g
            v[k] = 0.999 * v[k] + 0.001 * g * g
            params[k] -= RATE * (m[k] / (1 - 0.9 ** step)) / (np.sqrt(v[k] / (1 - 0.999 ** step)) + 1e-8)
    model = stacked_model.StackedModel(mean.astype(np.float32), scale.astype(np.float32), *params, 0.5, 0.5)
    model.threshold = float(np.quantile(model.probability(x[~y]), 1 - SINGLE_ASKED))
    model.unsure = min(model.threshold, float(np.quantile(model.probability(x[y]), STACKED_MISSED)))
    return model


def save_examples(path: Path, x: np.ndarray, y: np.ndarray, right: np.ndarray, seed: np.ndarray) -> None:
    with open(path, "wb") as f:
        np.savez_compressed(f, x=x, y=y, right=right, seed=seed)


def load_examples(path: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    try:
        with np.load(path) as z:
            return z["x"], z["y"], z["right"], z["seed"]
    except (OSError, KeyError, ValueError) as e:
        raise ValueError(f"{path}: not the trays train-stacked keeps ({e})") from None
