"""Each place as a small picture, for the place model's convolutions (``vision/place_model.py``).

The 29 measures of ``BoardReader.measure`` sum a place up; they do not say where in it the change lies or what
shape it has (a pale cube's outline on pale print, a neighbour's piece spilling over one side, a shadow's
edge). So the model also sees every place as ``SIZE`` x ``SIZE`` cells over ``EXTENT`` times its extent, each
cell the mean of the canonical pixels under it (as chesscog reads a chess square from its crop):

- the frame's colour there, relit (the fitted light divided out, white-normalised as lit tops are), in Lab;
- the enrolled board's colour there, in Lab;
- the change against the board, in the frame's own noises: colour, brightness beyond the light, new edges;
- how far each cell's colour is from the two learnt pieces the place may hold that are nearest its lit top
  (``FIRST``, ``SECOND`` of the model), so the picture says which of the two it shows.

Cells are box means from integral images: a few array reads per cell, whatever the place's size.
"""

from __future__ import annotations

import cv2
import numpy as np

from calibration.layout import Layout
from vision.board import Difference
from vision.colour import L_WEIGHT, bgr_to_lab

SIZE = 8  # cells a side (16: as few wrong reads on development tables, a point fewer unread, four times the cost)
EXTENT = 1.3  # the crop spans this many times the place's extent (a piece set down off its centre still shows)
CHANNELS = 11
NO_PIECE = 1.5  # the colour distance (in 50 ΔE) a cell shows for a piece the place cannot hold
DE_SCALE = 50.0  # colour distances in units of this many ΔE (two pieces' colours lie tens apart)


class PlaceCrops:
    """The cells of every slot of one layout at the enrolled board's resolution."""

    def __init__(self, layout: Layout, slot_ids: list[str], px_per_mm: float, board_image: np.ndarray,
                 white_scale: np.ndarray):
        h, w = board_image.shape[:2]
        # (3,) for every place, or (places, 3): what makes the enrolment's light white at each place
        self.white_scale = np.asarray(white_scale, np.float32)
        if self.white_scale.ndim == 2:
            self.white_scale = self.white_scale.reshape(-1, 1, 1, 3)
        x0, x1, y0, y1 = [], [], [], []
        for zid in slot_ids:
            z = layout.zone(zid)
            for c, half, lo, hi, limit in ((z.center[0], z.size[0] / 2, x0, x1, w),
                                           (z.center[1], z.size[1] / 2, y0, y1, h)):
                edges = (c + np.linspace(-EXTENT, EXTENT, SIZE + 1) * half) * px_per_mm
                a = np.clip(np.floor(edges[:-1]), 0, limit - 1).astype(np.intp)
                lo.append(a)
                hi.append(np.clip(np.maximum(np.round(edges[1:]), a + 1), 1, limit).astype(np.intp))
        n = len(slot_ids)
        xa, xb = (np.array(v, np.intp).reshape(n, 1, SIZE) for v in (x0, x1))
        ya, yb = (np.array(v, np.intp).reshape(n, SIZE, 1) for v in (y0, y1))
        self._area = ((yb - ya) * (xb - xa)).astype(np.float32).reshape(-1, 1)
        # Each cell's four corners as positions in the integral image (one row longer and wider than it),
        # flat: a gather of whole rows of channels is what numpy does fastest. The frame's light and change
        # are integrated over the cells' bounding box only (half the board: the trays, the tracks and the
        # margins have no place).
        self.box = (slice(int(ya.min()), int(yb.max())), slice(int(xa.min()), int(xb.max()))) if n else \
            (slice(0, h), slice(0, w))
        y0, x0 = self.box[0].start, self.box[1].start
        self._corners = self._corner_table(ya, yb, xa, xb, w + 1)
        self._box_corners = self._corner_table(ya - y0, yb - y0, xa - x0, xb - x0, self.box[1].stop - x0 + 1)
        self._shape = (n, SIZE, SIZE)
        self.board_lab = self._lab(self.cells(cv2.integral(board_image)))

    @staticmethod
    def _corner_table(ya, yb, xa, xb, stride: int) -> np.ndarray:
        return np.concatenate([(y * stride + x).ravel() for y, x in ((yb, xb), (ya, xb), (yb, xa), (ya, xa))])

    def cells(self, integral: np.ndarray, of_box: bool = False) -> np.ndarray:
        """(slots, SIZE, SIZE, channels): the mean of each cell, from the image's ``cv2.integral`` (``of_box``:
        the integral of the image's ``box`` only)."""
        ii = integral.reshape(-1, 1 if integral.ndim == 2 else integral.shape[2])
        a, b, c, d = ii.take(self._box_corners if of_box else self._corners, axis=0).reshape(4, len(self._area), -1)
        s = (a - b - c + d).astype(np.float32) / self._area
        return s.reshape(*self._shape, -1)

    def _lab(self, bgr: np.ndarray) -> np.ndarray:
        return bgr_to_lab(np.clip(bgr * (self.white_scale / 255.0), 0, 1)).astype(np.float32)

    def crops(self, canonical: np.ndarray, diff: Difference, first_lab: np.ndarray, second_lab: np.ndarray
              ) -> np.ndarray:
        """(slots, SIZE, SIZE, CHANNELS) float32. ``diff``: the frame's ``Difference`` from the enrolled board;
        ``first_lab``, ``second_lab``: (slots, 3) the Lab of the two pieces each place may hold nearest its lit
        top (NaN where it has no such piece)."""
        frame = self.cells(cv2.integral(canonical) if diff.integral is None else diff.integral)
        box = self.box
        # (OpenCV's exp: within two units in the last place of numpy's, in a sixth of its time)
        gain = self.cells(cv2.integral(cv2.exp(diff.log_gain[box]), sdepth=cv2.CV_64F), of_box=True)
        lab = self._lab(frame / np.maximum(gain, 1e-3))
        change = self.cells(cv2.integral(cv2.merge([diff.chroma[box], diff.lifted[box], diff.edges[box]]),
                                         sdepth=cv2.CV_64F), of_box=True)
        change = np.sign(change) * np.log1p(np.abs(change))
        out = np.empty((*lab.shape[:3], CHANNELS), np.float32)
        out[..., 0:3] = lab / 100.0
        out[..., 3:6] = self.board_lab / 100.0
        out[..., 6:9] = change
        return _piece_channels(out, lab, first_lab, second_lab)


def with_pieces(crops: np.ndarray, first_lab: np.ndarray, second_lab: np.ndarray) -> np.ndarray:
    """``crops`` with their last two channels (each cell's distance to the two pieces the place may hold) for
    these pieces' colours: (slots, 3) Lab each, NaN where a place has no such piece. In place; returned."""
    return _piece_channels(crops, crops[..., 0:3] * np.float32(100.0), first_lab, second_lab)


def _piece_channels(crops: np.ndarray, lab: np.ndarray, first_lab: np.ndarray, second_lab: np.ndarray
                    ) -> np.ndarray:
    weight = np.array([L_WEIGHT, 1.0, 1.0], np.float32)
    weighted = lab * weight
    for k, piece in enumerate((first_lab, second_lab)):
        d = weighted - (np.asarray(piece, np.float32) * weight)[:, None, None, :]
        dist = np.sqrt(np.einsum("nijc,nijc->nij", d, d)) / DE_SCALE
        crops[..., 9 + k] = np.where(np.isnan(dist), NO_PIECE, dist)
    return crops
