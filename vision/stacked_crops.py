"""Each counted tray as a small picture, for the stacked test's convolutions (``vision/stacked_model.py``).

The signs ``vision.stacked`` measures sum a tray up in a few numbers; where a cube lies on another, the picture
also shows it in ways no single number holds: a top drawn over part of its neighbours', a side longer than
theirs, a shadow across the tops beside it. The tray's normalised crop (``COUNT_PX_PER_MM``) is turned so
that the camera's foot lies straight below its centre (a cube's side, and a raised cube's parallax, then
always point the same way: down, towards the camera) and cut to ``SIZE`` x ``SIZE`` pixels, three channels:

- brightness against the tray colour's learnt top (a lit top near 1, its sides and shadows darker);
- how far each pixel's colour (chromaticity, so a shadow keeps it) is from the tray colour's;
- how far it is from the board's (the median of the crop's border: the tray's margins are board).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

SIZE = 144  # pixels a side: a tray (110 x 70 mm at 1 px/mm, with its margins) whole whichever way it is turned
CHANNELS = 3
BORDER = 4  # px of the crop's edge taken as the board
LUMA = np.array([0.114, 0.587, 0.299], np.float32)
CHROMA = 10.0  # chromaticity distances scaled to about one


def picture(crop: np.ndarray, proto_bgr: np.ndarray, foot: np.ndarray) -> np.ndarray:
    """(SIZE, SIZE, CHANNELS) float32 of a tray's normalised crop (BGR uint8), ``proto_bgr``: its colour's learnt
    top (BGR, 0-1, as ``ColourModel.prototypes_bgr``), ``foot``: the camera's foot in crop px (x, y)."""
    c = crop.astype(np.float32)
    proto = np.asarray(proto_bgr, np.float32) * 255.0
    rel = (c @ LUMA) / max(float(proto @ LUMA), 1.0)
    chroma = c / np.maximum(c.sum(-1, keepdims=True), 1.0)
    border = np.concatenate([c[:BORDER].reshape(-1, 3), c[-BORDER:].reshape(-1, 3), c[:, :BORDER].reshape(-1, 3),
                             c[:, -BORDER:].reshape(-1, 3)])
    board = np.median(border, axis=0)
    mine = np.linalg.norm(chroma - proto / max(float(proto.sum()), 1.0), axis=-1) * CHROMA
    not_board = np.linalg.norm(chroma - board / max(float(board.sum()), 1.0), axis=-1) * CHROMA
    img = np.stack([np.clip(rel, 0, 2), np.clip(mine, 0, 3), np.clip(not_board, 0, 3)], -1)
    h, w = crop.shape[:2]
    cx, cy = w / 2, h / 2
    towards = math.degrees(math.atan2(float(foot[1]) - cy, float(foot[0]) - cx))
    m = cv2.getRotationMatrix2D((cx, cy), towards - 90, 1.0)
    m[0, 2] += SIZE / 2 - cx
    m[1, 2] += SIZE / 2 - cy
    return cv2.warpAffine(img, m, (SIZE, SIZE), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                          borderValue=(0, 0, 0))
