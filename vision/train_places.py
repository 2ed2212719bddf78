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
import os
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import cv2
import numpy as np

from calibration.layout import load_layout
from vision import place_model
from vision.board_read import COVERED
from vision.evaluate_tables import calibrate_table, table_folders
from vision.read import Reader


def table_examples(folder: Path, work: Path) -> tuple[np.ndarray, np.ndarray]:
    """(features, classes) of every readable place in every frame of one rendered table folder."""
    info = json.loads((folder / "table.json").read_text(encoding="utf-8"))
    layout = load_layout(info["layout"])
    cal_path = work / f"{folder.name}.json"
    calibration, _ = calibrate_table(folder, layout, cal_path)
    if calibration is None or calibration.board is None:
        return np.zeros((0, place_model.N_FEATURES), np.float32), np.zeros(0, np.int32)
    reader = Reader(layout, calibration)
    board = reader.board_reader
    xs, ys = [], []
    for path in sorted(folder.glob("f[0-9]*.png")):
        truth = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
        frame = cv2.imread(str(path))
        reader.locator.invalidate()
        location = reader.locator.locate(frame)
        if not location.found:
            continue
        canonical, diff, _, covered = board.compared(frame, location)
        cover = board.slot_cover(covered)
        x, ranked = board.place_features(board.measure(canonical, diff, cover))
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
            ys.append(y)
    return (np.array(xs, np.float32).reshape(-1, place_model.N_FEATURES), np.array(ys, np.int32))


def examples(folders: list[Path], progress=print, workers: int | None = None
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(features, classes, table index) of every place of every table in the table sets ``folders``, the
    tables read by ``workers`` processes (default: one per core)."""
    tables = [table for tdir in folders for table in table_folders(tdir)]
    xs, ys, ts = [], [], []
    with tempfile.TemporaryDirectory(prefix="alchemy-train-") as work, \
            ProcessPoolExecutor(max_workers=workers or os.cpu_count() or 1) as pool:
        for table, (x, y) in zip(tables, pool.map(table_examples, tables, [Path(work)] * len(tables)), strict=True):
            progress(f"{table.name}: {len(y)} places")
            xs.append(x)
            ys.append(y)
            ts.append(np.full(len(y), len(ts), np.int32))
    if not xs or not sum(len(y) for y in ys):
        raise ValueError("train-reader: no rendered tables to learn from")
    return np.concatenate(xs), np.concatenate(ys), np.concatenate(ts)
