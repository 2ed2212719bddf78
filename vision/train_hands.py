"""Training the hand model (``vision/hand_cells.py``) on the randomised renderer's tables.

Each table is calibrated as a user would (``calibrate board``, ``calibrate colours``); every frame of it is seen
as the reader sees it (``hand_cells.inputs``: the comparison's measures, pooled to 8 mm cells), and what covers
each cell is known: the truth of a frame with a hand holds the hand (``conditions.hand_mm``), whose outline the
renderer draws (``render.scene.hand_polygons``). A cell is a hand's when a hand covers at least half of it, the
board's when no hand touches it; a cell a hand covers only a little of teaches nothing (its weight is 0).
"""

from __future__ import annotations

import json
import multiprocessing
import os
import tempfile
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from calibration.layout import load_layout
from vision import hand_cells
from vision.board import cell_means
from vision.evaluate_tables import EMPTY, calibrate_table, table_folders
from vision.read import Reader
from vision.render.scene import Hand, hand_polygons

POOL = 2  # grid cells (4 mm) a side to each of the model's cells: 8 mm
WIDTH = 16  # channels of each layer
DILATIONS = (1, 2, 4, 8)  # cells between a layer's taps: it sees 31 cells (25 cm) around a cell
EPOCHS = 8
BATCH = 8  # frames of one board size
MIN_STEPS = 400  # steps at least, however few the frames (a handful of tables learn in more passes)


@dataclass
class TablePictures:
    """One table's frames as the hand model sees them: ``x`` (frames, h, w, N_INPUTS) and the share of each
    cell a hand covers, ``share`` (frames, h, w); float16, as there are many."""
    x: np.ndarray
    share: np.ndarray


def hand_share(hand: dict, compare) -> np.ndarray:
    """(rows, cols): the share of each grid cell that the truth's hand (``conditions.hand_mm``) covers."""
    g = compare.geometry
    w, h = g.size_px
    skin, sleeve = hand_polygons(Hand(**{k: tuple(v) if isinstance(v, list) else v for k, v in hand.items()}))
    mask = np.zeros((h, w), np.uint8)
    for poly in skin + sleeve:
        px = cv2.perspectiveTransform(np.asarray(poly, np.float64).reshape(-1, 1, 2), g.canonical_from_mm)
        cv2.fillPoly(mask, [np.round(px * 16).astype(np.int32)], 1, cv2.LINE_8, 4)
    return cell_means(mask.astype(np.float32), g.grid_px, g.grid_shape)


def table_pictures(folder: Path, work: Path) -> TablePictures | None:
    """Every frame of one rendered table folder as the hand model sees it, and where its hand lies."""
    info = json.loads((folder / "table.json").read_text(encoding="utf-8"))
    layout = load_layout(info["layout"])
    calibration, _ = calibrate_table(folder, layout, work / f"{folder.name}.json")
    if calibration is None or calibration.board is None:
        return None
    reader = Reader(layout, calibration)
    board = reader.board_reader
    empty_board = cv2.imread(str(folder / EMPTY))
    xs, shares = [], []
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
        x = hand_cells.inputs(hand_cells.measures(board.compare, diff), board.hand_static, POOL)
        hand = truth["conditions"].get("hand_mm")
        share = hand_cells.pooled(hand_share(hand, board.compare), POOL) if hand else np.zeros(x.shape[:2],
                                                                                                 np.float32)
        xs.append(x.astype(np.float16))
        shares.append(share.astype(np.float16))
    return TablePictures(np.stack(xs), np.stack(shares)) if xs else None


def examples(folders: list[Path], progress=print, workers: int | None = None) -> list[TablePictures]:
    """Every table of ``folders`` as the hand model sees it (tables not enrolled left out)."""
    tables = [table for tdir in folders for table in table_folders(tdir)]
    out = []
    with tempfile.TemporaryDirectory(prefix="alchemy-hands-") as work, \
            ProcessPoolExecutor(max_workers=workers or os.cpu_count() or 1,
                                mp_context=multiprocessing.get_context("forkserver")) as pool:
        for table, pictures in zip(tables, pool.map(table_pictures, tables, [Path(work)] * len(tables)),
                                   strict=True):
            if pictures is None:
                progress(f"{table.name}: not enrolled, left out")
                continue
            progress(f"{table.name}: {int((pictures.share >= 0.5).sum())} hand cells, "
                     f"{int((pictures.share == 0).sum())} board cells")
            out.append(pictures)
    if not out:
        raise ValueError("train-reader: no rendered tables to learn from")
    return out


def _by_size(tables: list[TablePictures]) -> dict[tuple[int, int], tuple[np.ndarray, np.ndarray]]:
    groups: dict[tuple[int, int], tuple[list, list]] = {}
    for t in tables:
        xs, shares = groups.setdefault(t.x.shape[1:3], ([], []))
        xs.append(t.x)
        shares.append(t.share)
    return {k: (np.concatenate(xs), np.concatenate(shares)) for k, (xs, shares) in groups.items()}


def train(tables: list[TablePictures], seed: int = 0, epochs: int = EPOCHS, progress=print
          ) -> hand_cells.HandModel:
    """The hand model learnt from ``tables`` with PyTorch on the CPU: batches of frames of one board size, each
    cell's loss weighted 1 where a hand covers half of it or none of it, 0 between."""
    import torch
    from torch import nn

    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    groups = _by_size(tables)
    sample = np.concatenate([x.reshape(-1, x.shape[-1])[::50] for x, _ in groups.values()]).astype(np.float32)
    mean, scale = sample.mean(axis=0), np.maximum(sample.std(axis=0), 1e-6)

    def tensors(x, share):
        xt = torch.from_numpy(((x.astype(np.float32) - mean) / scale).transpose(0, 3, 1, 2).copy())
        share = share.astype(np.float32)
        return xt, torch.from_numpy((share >= 0.5).astype(np.float32)), \
            torch.from_numpy(((share >= 0.5) | (share == 0)).astype(np.float32))

    data = [tensors(*group) for group in groups.values()]
    widths = [hand_cells.N_INPUTS] + [WIDTH] * len(DILATIONS)
    convs = nn.ModuleList(nn.Conv2d(widths[i], widths[i + 1], 3, padding=d, dilation=d, padding_mode="replicate")
                          for i, d in enumerate(DILATIONS))
    head = nn.Conv2d(WIDTH, 1, 1)
    params = [*convs.parameters(), *head.parameters()]

    def logits(x):
        for conv in convs:
            x = torch.relu(conv(x))
        return head(x)[:, 0]

    batches = [(g, i) for g, (xt, _, _) in enumerate(data) for i in range(0, len(xt), BATCH)]
    epochs = max(epochs, -(-MIN_STEPS // len(batches)))
    optimiser = torch.optim.Adam(params, lr=3e-3)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=3e-3, total_steps=epochs * len(batches))
    for epoch in range(epochs):
        total = 0.0
        for k in rng.permutation(len(batches)):
            g, i = batches[k]
            xt, label, weight = (t[i:i + BATCH] for t in data[g])
            loss = (nn.functional.binary_cross_entropy_with_logits(logits(xt), label, reduction="none")
                    * weight).sum() / weight.sum().clamp(min=1.0)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += float(loss.detach())
        if epoch == epochs - 1 or len(batches) * (epoch + 1) % 500 < len(batches):
            progress(f"epoch {epoch + 1}/{epochs}: loss {total / len(batches):.4f}")
    with torch.no_grad():
        return hand_cells.HandModel(
            mean, scale, DILATIONS, [c.weight.numpy().transpose(2, 3, 1, 0).copy() for c in convs],
            [c.bias.numpy().copy() for c in convs], head.weight.numpy()[:, :, 0, 0].T.copy(), head.bias.numpy().copy(),
            POOL)


def scores(model: hand_cells.HandModel, tables: list[TablePictures]) -> tuple[float, float]:
    """(share of the hands' cells the model finds, share of the other cells it takes for a hand), at 0.5."""
    found = hands = taken = others = 0
    for t in tables:
        for x, share in zip(t.x, t.share, strict=True):
            hand = model.probability(x.astype(np.float32)) >= 0.5
            truth, board = share >= 0.5, share == 0
            found += int((hand & truth).sum())
            hands += int(truth.sum())
            taken += int((hand & board).sum())
            others += int(board.sum())
    return found / max(hands, 1), taken / max(others, 1)
