"""Training the place model (``vision/place_model.py``) on the randomised renderer's tables.

Each table is calibrated as a user would (``calibrate board`` on its empty board, ``calibrate colours`` on
its calibration frame); every place of every frame then gives one example: the features ``BoardReader``
measures and what the place truly holds, as one of the model's classes (empty, the nearest learnt piece, the
next one, neither; a place under a hand or an object is neither). Places the truth calls partly hidden, or
that the reader already puts under a hand, teach nothing.
``alchemy-table train-reader`` renders fresh tables, or takes folders already rendered, and writes the model.
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
from vision import place_crops, place_model
from vision.board_read import COVERED
from vision.evaluate_tables import calibrate_table, table_folders
from vision.read import Reader

CROP_SHAPE = (place_crops.SIZE, place_crops.SIZE, place_crops.CHANNELS)
CONV = (16, 24)  # the two convolutions' channels
HIDDEN = 64
BATCH = 256
MIN_STEPS = 20  # steps an epoch takes at least
EPOCHS = 20


def table_examples(folder: Path, work: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(features, pictures, classes) of every readable place in every frame of one rendered table folder."""
    info = json.loads((folder / "table.json").read_text(encoding="utf-8"))
    layout = load_layout(info["layout"])
    cal_path = work / f"{folder.name}.json"
    calibration, _ = calibrate_table(folder, layout, cal_path)
    if calibration is None or calibration.board is None:
        return (np.zeros((0, place_model.N_FEATURES), np.float32), np.zeros((0, *CROP_SHAPE), np.float16),
                np.zeros(0, np.int32))
    reader = Reader(layout, calibration)
    board = reader.board_reader
    xs, cs, ys = [], [], []
    for path in sorted(folder.glob("f[0-9]*.png")):
        truth = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
        frame = cv2.imread(str(path))
        if frame is None:  # (a frame that cannot be read, here or half-written, teaches nothing)
            continue
        reader.locator.invalidate()
        location = reader.locator.locate(frame)
        if not location.found:
            continue
        canonical, diff, _, covered = board.compared(frame, location)
        cover = board.slot_cover(covered)
        x, crops, ranked, _ = board.place_inputs(canonical, diff, cover)
        hidden = set(truth.get("partly_hidden", []))
        for i, zid in enumerate(board.slot_ids):
            label = truth["zones"].get(zid)
            if label is None or zid in hidden or cover[i] >= COVERED or not ranked[i]:
                continue
            if label == "unknown":  # under a hand or an object the reader did not see as a hand: neither
                y = place_model.NEITHER
            elif label == "empty":
                y = place_model.EMPTY
            elif label in ranked[i]:
                y = place_model.FIRST + ranked[i].index(label)
            else:
                y = place_model.NEITHER
            xs.append(x[i])
            cs.append(crops[i].astype(np.float16))  # (half the memory: 40 000 places' pictures)
            ys.append(y)
    return (np.array(xs, np.float32).reshape(-1, place_model.N_FEATURES),
            np.array(cs, np.float16).reshape(-1, *CROP_SHAPE), np.array(ys, np.int32))


def examples(folders: list[Path], progress=print, workers: int | None = None
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(features, pictures, classes, table index) of every place of every table in the table sets ``folders``,
    the tables read by ``workers`` processes (default: one per core)."""
    tables = [table for tdir in folders for table in table_folders(tdir)]
    xs, cs, ys, ts = [], [], [], []
    with tempfile.TemporaryDirectory(prefix="alchemy-train-") as work, \
            ProcessPoolExecutor(max_workers=workers or os.cpu_count() or 1,
                                mp_context=multiprocessing.get_context("forkserver")) as pool:
        # (forkserver: a worker forked from a process that has loaded PyTorch inherits its thread pools and
        # crawls)
        for table, (x, c, y) in zip(tables, pool.map(table_examples, tables, [Path(work)] * len(tables)),
                                    strict=True):
            progress(f"{table.name}: {len(y)} places")
            xs.append(x)
            cs.append(c)
            ys.append(y)
            ts.append(np.full(len(y), len(ts), np.int32))
    if not xs or not sum(len(y) for y in ys):
        raise ValueError("train-reader: no rendered tables to learn from")
    return np.concatenate(xs), np.concatenate(cs), np.concatenate(ys), np.concatenate(ts)


def train(x: np.ndarray, crops: np.ndarray, y: np.ndarray, seed: int = 0, epochs: int = EPOCHS,
          progress=print) -> place_model.PlaceModel:
    """The place model learnt from the places' features ``x``, pictures ``crops`` and classes ``y`` (EMPTY,
    FIRST, SECOND, NEITHER), with PyTorch on the CPU. A place's picture is as good turned or mirrored (the
    light and the pieces have no preferred side), so each batch is seen in one of the square's eight
    symmetries."""
    import torch
    from torch import nn

    if len(set(np.asarray(y).tolist())) < 2:
        raise ValueError("train-reader: the tables showed one kind of place only; render more of them")
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    x = np.asarray(x, np.float32)
    mean, scale = x.mean(axis=0), np.maximum(x.std(axis=0), 1e-6)
    c32 = np.asarray(crops, np.float32)
    crop_mean = c32.mean(axis=(0, 1, 2))
    crop_scale = np.maximum(c32.std(axis=(0, 1, 2)), 1e-6)
    pictures = torch.from_numpy(((c32 - crop_mean) / crop_scale).transpose(0, 3, 1, 2).copy())
    del c32
    features = torch.from_numpy((x - mean) / scale)
    classes = torch.from_numpy(np.asarray(y, np.int64))
    channels = pictures.shape[1]
    side = pictures.shape[2] // 4
    convs = nn.ModuleList([nn.Conv2d(channels, CONV[0], 3, padding=1), nn.Conv2d(CONV[0], CONV[1], 3, padding=1)])
    hidden = nn.Linear(CONV[1] * side * side + x.shape[1], HIDDEN)
    out = nn.Linear(HIDDEN, len(place_model.CLASSES))
    params = [*convs.parameters(), *hidden.parameters(), *out.parameters()]

    def forward(c, f):
        for conv in convs:
            c = torch.max_pool2d(torch.relu(conv(c)), 2)
        return out(torch.relu(hidden(torch.cat([c.flatten(1), f], 1))))

    n = len(classes)
    batch = min(BATCH, max(16, n // MIN_STEPS))  # (a small table set still takes enough steps to learn)
    steps = (n + batch - 1) // batch
    optimiser = torch.optim.Adam(params, 1e-3, weight_decay=1e-4)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, 3e-3, total_steps=epochs * steps)
    loss_of = nn.CrossEntropyLoss()
    for epoch in range(epochs):
        order = torch.from_numpy(rng.permutation(n))
        total = 0.0
        for i in range(0, n, batch):
            chosen = order[i:i + batch]
            c = pictures[chosen]
            turn = int(rng.integers(8))
            c = c.flip(3) if turn & 1 else c
            c = c.flip(2) if turn & 2 else c
            c = c.transpose(2, 3) if turn & 4 else c
            loss = loss_of(forward(c, features[chosen]), classes[chosen])
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += float(loss.detach()) * len(chosen)
        progress(f"epoch {epoch + 1}/{epochs}: loss {total / n:.4f}")
    return _exported(convs, hidden, out, side, mean, scale, crop_mean, crop_scale, x)


def _exported(convs, hidden, out, side, mean, scale, crop_mean, crop_scale, x) -> place_model.PlaceModel:
    """The trained network as the numpy arrays ``PlaceModel`` reads: convolution kernels laid out as its
    3 x 3 neighbourhoods (row, column, channel), the hidden layer's rows in its channels-last order."""
    def arr(t):
        return t.detach().cpu().numpy().astype(np.float32)

    conv_arrays = [(arr(c.weight).transpose(2, 3, 1, 0).reshape(-1, c.out_channels), arr(c.bias)) for c in convs]
    w = arr(hidden.weight).T  # (inputs, hidden): torch flattens the pictures channels first
    k = convs[-1].out_channels
    seen = w[:k * side * side].reshape(k, side, side, -1).transpose(1, 2, 0, 3).reshape(k * side * side, -1)
    layers = [(np.concatenate([seen, w[k * side * side:]]), arr(hidden.bias)), (arr(out.weight).T, arr(out.bias))]
    return place_model.PlaceModel(mean, scale, crop_mean.astype(np.float32), crop_scale.astype(np.float32),
                                  conv_arrays, layers, x.min(axis=0), x.max(axis=0))
