"""Training the hand model (``vision/hand_cells.py``) on the randomised renderer's tables.

Each table is calibrated as a user would (``calibrate board``, ``calibrate colours``); in every frame each grid
cell of the board is described as the reader describes it (``hand_cells.features``), and what covers it is
known: the truth of a frame with a hand holds the hand (``conditions.hand_mm``), whose outline the renderer draws
(``render.scene.hand_polygons``). A cell is a hand's when a hand covers at least half of it; one a hand covers
only a little of teaches nothing. Frames hold far more cells of the board than of a hand, so a frame's cells
are sampled, each weighted back to what it stands for: the model's probabilities are a frame's own.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import cv2
import numpy as np

from calibration.layout import load_layout
from vision import hand_cells
from vision.evaluate_tables import EMPTY, calibrate_table, table_folders
from vision.read import Reader
from vision.render.scene import Hand, hand_polygons

SAMPLE = 1500  # cells of each kind (a hand's, the board's) taken from one frame at most
HIDDEN = 24
EPOCHS = 6
BATCH = 4096


def hand_share(hand: dict, compare) -> np.ndarray:
    """(rows, cols): the share of each grid cell that the truth's hand (``conditions.hand_mm``) covers."""
    g = compare.geometry
    w, h = g.size_px
    skin, sleeve = hand_polygons(Hand(**{k: tuple(v) if isinstance(v, list) else v for k, v in hand.items()}))
    mask = np.zeros((h, w), np.uint8)
    for poly in skin + sleeve:
        px = cv2.perspectiveTransform(np.asarray(poly, np.float64).reshape(-1, 1, 2), g.canonical_from_mm)
        cv2.fillPoly(mask, [np.round(px * 16).astype(np.int32)], 1, cv2.LINE_8, 4)
    return hand_cells._cells(mask.astype(np.float32), g.grid_px, g.grid_shape)


def table_cells(folder: Path, work: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(features, a hand's or not, weight) of the sampled cells of every frame of one rendered table folder."""
    info = json.loads((folder / "table.json").read_text(encoding="utf-8"))
    layout = load_layout(info["layout"])
    calibration, _ = calibrate_table(folder, layout, work / f"{folder.name}.json")
    empty = (np.zeros((0, hand_cells.N_FEATURES), np.float32), np.zeros(0, np.float32), np.zeros(0, np.float32))
    if calibration is None or calibration.board is None:
        return empty
    reader = Reader(layout, calibration)
    board = reader.board_reader
    static = board.hand_static
    rng = np.random.default_rng(int.from_bytes(folder.name.encode(), "little") % 2**32)
    empty_board = cv2.imread(str(folder / EMPTY))
    xs, ys, ws = [], [], []
    for path in sorted(folder.glob("f[0-9]*.png")):
        truth = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
        frame = cv2.imread(str(path))
        if frame is None:
            continue
        reader.locator.invalidate()
        if truth["conditions"].get("blur") and empty_board is not None:
            reader.locator.locate(empty_board)  # (as a session meets a shaken frame: the board seen sharp before)
            location = reader.locator.locate(frame, check=True)
        else:
            location = reader.locator.locate(frame)
        if not location.found:
            continue
        diff = board.compare.compare(board.canonical(frame, location))
        x = hand_cells.features(hand_cells.measures(board.compare, diff), static)
        hand = truth["conditions"].get("hand_mm")
        share = hand_share(hand, board.compare).ravel() if hand else np.zeros(len(x), np.float32)
        for kind in (share >= 0.5, share == 0):
            at = np.flatnonzero(kind)
            if not len(at):
                continue
            pick = rng.choice(at, min(SAMPLE, len(at)), replace=False)
            xs.append(x[pick])
            ys.append(np.full(len(pick), float(share[pick[0]] >= 0.5), np.float32))
            ws.append(np.full(len(pick), len(at) / len(pick), np.float32))
    if not xs:
        return empty
    return np.concatenate(xs), np.concatenate(ys), np.concatenate(ws)


def examples(folders: list[Path], progress=print, workers: int | None = None
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(features, a hand's or not, weight, table index) of the sampled cells of every table in ``folders``."""
    tables = [table for tdir in folders for table in table_folders(tdir)]
    xs, ys, ws, ts = [], [], [], []
    with tempfile.TemporaryDirectory(prefix="alchemy-hands-") as work, \
            ProcessPoolExecutor(max_workers=workers or os.cpu_count() or 1,
                                mp_context=multiprocessing.get_context("forkserver")) as pool:
        for table, (x, y, w) in zip(tables, pool.map(table_cells, tables, [Path(work)] * len(tables)), strict=True):
            progress(f"{table.name}: {int((y > 0).sum())} hand cells, {int((y == 0).sum())} board cells")
            xs.append(x)
            ys.append(y)
            ws.append(w)
            ts.append(np.full(len(y), len(ts), np.int32))
    if not xs or not sum(len(y) for y in ys):
        raise ValueError("train-reader: no rendered tables to learn from")
    return np.concatenate(xs), np.concatenate(ys), np.concatenate(ws), np.concatenate(ts)


def train(x: np.ndarray, y: np.ndarray, w: np.ndarray, seed: int = 0, epochs: int = EPOCHS,
          progress=print) -> hand_cells.HandModel:
    """The hand model learnt from cells' features ``x``, whether a hand covers them ``y`` and their weights
    ``w``, with PyTorch on the CPU."""
    import torch
    from torch import nn

    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    x = np.asarray(x, np.float32)
    mean, scale = x.mean(axis=0), np.maximum(x.std(axis=0), 1e-6)
    xt = torch.from_numpy((x - mean) / scale)
    yt = torch.from_numpy(np.asarray(y, np.float32))
    wt = torch.from_numpy(np.asarray(w, np.float32) / float(np.mean(w)))
    hidden, out = nn.Linear(x.shape[1], HIDDEN), nn.Linear(HIDDEN, 1)
    params = [*hidden.parameters(), *out.parameters()]
    optimiser = torch.optim.Adam(params, lr=3e-3)
    n = len(yt)
    steps = (n + BATCH - 1) // BATCH
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=3e-3, total_steps=epochs * steps)
    for epoch in range(epochs):
        order = torch.from_numpy(rng.permutation(n))
        total = 0.0
        for k in range(steps):
            b = order[k * BATCH:(k + 1) * BATCH]
            z = out(torch.relu(hidden(xt[b]))).squeeze(1)
            loss = (nn.functional.binary_cross_entropy_with_logits(z, yt[b], reduction="none") * wt[b]).mean()
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += float(loss.detach()) * len(b)
        progress(f"epoch {epoch + 1}/{epochs}: loss {total / n:.4f}")
    with torch.no_grad():
        return hand_cells.HandModel(mean, scale, hidden.weight.numpy().T.copy(), hidden.bias.numpy().copy(),
                                    out.weight.numpy().T.copy(), out.bias.numpy().copy())
