"""Frame -> reading: warp once to the canonical board, normalise the light, read every zone.

>>> from calibration.layout import load_layout
>>> reader = Reader(load_layout("chaudron"))          # doctest: +SKIP
>>> reading = reader.read(frame)                      # doctest: +SKIP
>>> reading.zones["r0c0"].label, reading.to_dict()    # doctest: +SKIP

Slots: each zone's cells are classified in Lab against every label the zone allows, each label at a few
shades (a cube's sides are darker than its top; pieces in a shadow), the board background at shadow
shades too. The cells vote; a zone is empty when too few cells look like a piece for the smallest piece
it may hold. A zone under a hand, or whose cells mostly match none of its labels, is ``unknown``.

Light: the board's background is sampled in every grid cell that holds no zone and no marker, a smooth
field (a quadratic surface per channel, outliers such as hands and shadows dropped) is fitted, and each
zone's colours are scaled so that the background there shows its nominal colour. Colour prototypes live
in that normalised space, so a calibration made under one light holds under another.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from calibration.layout import Layout
from calibration.store import Calibration
from vision import classify
from vision.colour import ColourModel, bgr_to_lab
from vision.count import count_zone
from vision.geometry import BoardGeometry, board_geometry, rect_means
from vision.hands import hand_mask
from vision.locate import Location, Locator

PIECE_SHADES = (1.15, 1.0, 0.88, 0.76, 0.64, 0.52)  # the first three: a lit top face
EMPTY_SHADES = (1.3, 1.15, 1.0, 0.8, 0.62, 0.45)  # glare, light, shadow
HAND_COVER = 0.08  # a zone this much under the hand mask is unknown
LOW_CONFIDENCE = 0.6


@dataclass(frozen=True)
class ZoneReading:
    label: str
    confidence: float


@dataclass(frozen=True)
class CountReading:
    count: int | None
    confidence: float
    by_label: dict[str, int] = field(default_factory=dict)
    pieces_area: float = 0.0  # total lit top-face area, in pieces (before rounding)


@dataclass
class Reading:
    layout: str
    board_found: bool
    homography: np.ndarray | None
    zones: dict[str, ZoneReading]
    counts: dict[str, CountReading]
    source: str = "none"
    canonical: np.ndarray | None = None  # the warped board (BGR), for annotation
    hand_cells: np.ndarray | None = None  # grid cells under a hand

    def to_dict(self) -> dict[str, Any]:
        """The reading as DESIGN.md prints it. ``homography`` maps board mm to image pixels."""
        counts = {}
        for zid, c in self.counts.items():
            entry: dict[str, Any] = {"count": c.count, "confidence": round(c.confidence, 3)}
            if len(c.by_label) > 1:
                entry["by_label"] = dict(c.by_label)
            counts[zid] = entry
        return {"layout": self.layout, "board_found": self.board_found,
                "homography": None if self.homography is None else [[round(float(v), 6) for v in row]
                                                                     for row in self.homography],
                "zones": {zid: {"label": z.label, "confidence": round(z.confidence, 3)}
                          for zid, z in self.zones.items()},
                "counts": counts}


def _fit_field(basis: np.ndarray, colours: np.ndarray) -> np.ndarray | None:
    """Per-channel quadratic surface through log(colour); coefficients (6, 3), or None. Starts from the
    median, so that a hand over a third of the background cannot steer it, then drops outliers."""
    if len(colours) < 6:
        return None
    logc = np.log(np.clip(colours, 1e-3, None))
    resid = np.abs(logc - np.median(logc, axis=0)).max(axis=1)
    keep = resid < max(0.12, float(np.percentile(resid, 50)) * 2)
    coef = None
    for _ in range(3):
        if keep.sum() < 6:
            break
        b = basis[keep]
        coef = np.linalg.solve(b.T @ b + 1e-6 * np.eye(6), b.T @ logc[keep])
        resid = np.abs(basis @ coef - logc).max(axis=1)
        keep = resid < max(0.05, 3.0 * float(np.median(resid[keep])))
    return coef


def _basis(centres_mm: np.ndarray, size_mm) -> np.ndarray:
    x = centres_mm[:, 0] / size_mm[0] * 2 - 1
    y = centres_mm[:, 1] / size_mm[1] * 2 - 1
    return np.stack([np.ones_like(x), x, y, x * x, x * y, y * y], axis=1)


class Reader:
    """Reads frames of one layout; holds the only state: the locator (cached homography), the colour
    model, and what is precomputed from the layout (geometry, lookup tables)."""

    def __init__(self, layout: Layout, calibration: Calibration | None = None, px_per_mm: float | None = None,
                 recheck_every: int = 30):
        from vision.pieces import piece_shapes

        self.layout = layout
        self.geometry: BoardGeometry = board_geometry(layout, px_per_mm)
        model = ColourModel.from_palette(layout)
        lens = corners = None
        if calibration is not None:
            model = model.with_calibration(calibration.colours, calibration.top_area_mm2, "calibration")
            lens, corners = calibration.camera, calibration.corners
        self.model = model
        self.locator = Locator(layout, lens, corners, recheck_every)
        self.labels = ["empty", *sorted(model.prototypes_bgr)]
        self.prototypes = self._prototype_table()
        g = self.geometry
        sets: dict[tuple[str, ...], int] = {}
        zone_set = []
        for zid in (*g.slot_ids, *g.count_ids):
            labels = tuple(sorted(self.layout.zone(zid).labels))
            zone_set.append(sets.setdefault(labels, len(sets)))
        self.tables = np.stack([classify.label_table(
            self.prototypes, np.array([label in labels or label == "empty" for label in self.labels]))
            for labels in sets]) if sets else np.zeros((0, classify.LEVELS ** 3), np.uint8)
        self._slot_set = np.repeat(np.array(zone_set[:len(g.slot_ids)], np.int64), g.cells * g.cells)
        self._count_set = zone_set[len(g.slot_ids):]
        self.board = classify.board_table(model.background_bgr)
        slots = [layout.zone(z) for z in g.slot_ids]
        shapes = piece_shapes(layout)
        inset_area = np.array([(z.size[0] - 3) * (z.size[1] - 3) for z in slots], float)
        smallest = np.array([min((shapes[label].area_mm2 for label in z.labels if label != "empty"), default=1e9)
                             for z in slots], float)
        self._piece_min = np.clip(0.35 * smallest / np.maximum(inset_area, 1), 0.06, 0.35) * g.cells * g.cells
        background = g.grid_background.ravel()
        step = max(1, int(background.sum()) // 300)  # a few hundred samples fit the light well enough
        self._field_cells = np.flatnonzero(background)[::step]
        self._field_basis = _basis(g.grid_centres_mm[self._field_cells], layout.size)
        self._grid_basis = _basis(g.grid_centres_mm, layout.size)
        self._slot_basis = _basis(g.slot_centres_mm, layout.size)
        self._count_basis = _basis(g.count_centres_mm, layout.size)
        self._zone_rects = np.array([g.zone_grid_rects[z] for z in (*g.slot_ids, *g.count_ids)], np.int64)
        self._maps: tuple[bytes, Any] | None = None

    def _prototype_table(self) -> np.ndarray:
        """Lab of every label at every shade: (n_labels, n_shades, 3)."""
        rows = []
        for label in self.labels:
            bgr = self.model.background_bgr if label == "empty" else self.model.prototypes_bgr[label]
            shades = EMPTY_SHADES if label == "empty" else PIECE_SHADES
            rows.append([bgr * s for s in shades])
        return bgr_to_lab(np.array(rows, np.float32))

    # -- the pipeline -------------------------------------------------------------------------------------

    def read(self, frame: np.ndarray, locate: bool = True, keep_canonical: bool = False) -> Reading:
        """Read ``frame`` (BGR uint8). With ``locate`` the locator runs (cached homography, re-checked
        now and then); otherwise the last homography is used as is."""
        location = self.locator.locate(frame) if locate or self.locator.location is None else self.locator.location
        if not location.found:
            return Reading(self.layout.name, False, None, {}, {}, location.source)
        return self.read_at(frame, location, keep_canonical)

    def warp(self, frame: np.ndarray, H: np.ndarray) -> np.ndarray:
        """The canonical board image: one warp of the frame (a remap when the lens is calibrated)."""
        g = self.geometry
        M = H @ np.linalg.inv(g.canonical_from_mm)
        lens = self.locator.lens
        if lens is None:
            return cv2.warpPerspective(frame, M, g.size_px, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                       borderMode=cv2.BORDER_REPLICATE)
        key = M.tobytes()
        if self._maps is None or self._maps[0] != key:
            xs, ys = np.meshgrid(np.arange(g.size_px[0], dtype=np.float64), np.arange(g.size_px[1], dtype=np.float64))
            pts = cv2.perspectiveTransform(np.stack([xs, ys], -1).reshape(-1, 1, 2), M).reshape(-1, 2)
            pts = lens.distort_points(pts).astype(np.float32).reshape(g.size_px[1], g.size_px[0], 2)
            self._maps = (key, cv2.convertMaps(pts[..., 0], pts[..., 1], cv2.CV_16SC2))
        m1, m2 = self._maps[1]
        return cv2.remap(frame, m1, m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)

    def light_field(self, grid_means: np.ndarray) -> np.ndarray | None:
        """The light over the board, fitted on free background cells. Cells that do not look like the
        board under the median light (a hand, a sleeve, a stray object) are left out first: a smooth
        surface would otherwise bend towards a big one."""
        cells = grid_means[self._field_cells]
        if len(cells) == 0:
            return None
        gain = self.model.background_bgr * 255.0 / np.maximum(np.median(cells, axis=0), 1.0)
        ok = self.board[classify.index(classify.to_uint8(cells * gain / 255.0))]
        if ok.sum() < max(12, 0.2 * len(cells)):
            ok[:] = True
        return _fit_field(self._field_basis[ok], cells[ok])

    def read_at(self, frame: np.ndarray, location: Location, keep_canonical: bool = False) -> Reading:
        g = self.geometry
        canonical = self.warp(frame, location.homography)
        slot_means = rect_means(cv2.integral(canonical), g.slot_rects).astype(np.float32)
        rows, cols = g.grid_shape
        crop = canonical[:rows * g.grid_px, :cols * g.grid_px]
        grid_means = cv2.resize(crop, (cols, rows), interpolation=cv2.INTER_AREA).reshape(-1, 3)
        grid_means = grid_means.astype(np.float32)
        ref = self.model.background_bgr * 255.0
        coef = self.light_field(grid_means)
        if coef is None:  # no free background at all: grey-world over the whole board instead
            gain = ref / np.maximum(grid_means.mean(axis=0), 1.0)
            gain_grid, gain_slot, gain_count = (np.broadcast_to(gain, (len(b), 3)) for b in
                                                (self._grid_basis, self._slot_basis, self._count_basis))
        else:
            gain_grid, gain_slot, gain_count = (ref / np.exp(b @ coef) for b in
                                                (self._grid_basis, self._slot_basis, self._count_basis))
        grid_idx = classify.index(classify.to_uint8(grid_means * gain_grid / 255.0))
        hands = hand_mask(~self.board[grid_idx], g, self.layout)
        zones = self._read_slots(slot_means, gain_slot, hands)
        counts = {}
        cover = self._zone_cover(hands)[len(g.slot_ids):]
        for i, zid in enumerate(g.count_ids):
            if cover[i] >= HAND_COVER / 2:
                counts[zid] = CountReading(None, 0.0)
                continue
            x0, y0, x1, y1 = g.count_rects[i]
            counts[zid] = count_zone(canonical[y0:y1, x0:x1], gain_count[i], self.layout.zone(zid).labels,
                                     self.model, self.labels, self.tables[self._count_set[i]], g.px_per_mm)
        return Reading(self.layout.name, True, location.homography, zones, counts, location.source,
                       canonical if keep_canonical else None, hands)

    def _read_slots(self, slot_means: np.ndarray, gain_slot: np.ndarray, hands: np.ndarray) -> dict[str, ZoneReading]:
        g = self.geometry
        n, k2 = len(g.slot_ids), g.cells * g.cells
        if n == 0:
            return {}
        cells = slot_means.reshape(n, k2, 3) * (gain_slot[:, None, :] / 255.0)
        codes = self.tables[self._slot_set, classify.index(classify.to_uint8(cells)).ravel()].reshape(n, k2)
        foreign = codes == classify.FOREIGN
        valid = codes < classify.HIGHLIGHT
        L = len(self.labels)
        label = np.where(valid, codes // 16, L)
        votes = np.zeros((n, L + 1), np.int32)
        np.add.at(votes, (np.repeat(np.arange(n), k2), label.ravel()), 1)
        n_foreign = foreign.sum(1)
        pieces = votes[:, 1:L]
        top = pieces.argmax(1)
        ordered = np.sort(pieces, axis=1)
        top_votes = ordered[:, -1]
        second = ordered[:, -2] if L > 2 else np.zeros(n, np.int32)
        piece_total = pieces.sum(1)
        cover = self._zone_cover(hands)[:n]
        need = self._piece_min
        hidden = cover >= HAND_COVER
        alien = (n_foreign >= np.maximum(need, 0.2 * k2)) & (n_foreign > top_votes)
        piece = top_votes >= need
        margin = (top_votes - second) / np.maximum(1, top_votes + n_foreign)
        piece_conf = np.clip(margin * np.minimum(1.0, top_votes / (2 * need)), 0, 1)
        empty_conf = np.clip(1.0 - (piece_total + n_foreign) / np.maximum(need, 1), 0, 1)
        names = np.array([*self.labels[1:], "empty"], dtype=object)[np.where(piece, top, L - 1)]
        names[alien] = "unknown"
        names[hidden] = "unknown"
        conf = np.where(piece, piece_conf, empty_conf)
        conf = np.where(alien, np.minimum(1.0, n_foreign / (0.4 * k2)), conf)
        conf = np.where(hidden, np.minimum(1.0, 0.5 + cover), conf)
        return {zid: ZoneReading(label, round(c, 3))
                for zid, label, c in zip(g.slot_ids, names.tolist(), conf.tolist(), strict=True)}

    def _zone_cover(self, hands: np.ndarray) -> np.ndarray:
        """Fraction of each zone's grid cells (slots, then count zones) under the hand mask."""
        if not hands.any():
            return np.zeros(len(self._zone_rects))
        integral = cv2.integral(hands.astype(np.uint8))
        r0, c0, r1, c1 = self._zone_rects.T
        inside = integral[r1, c1] - integral[r0, c1] - integral[r1, c0] + integral[r0, c0]
        return inside / np.maximum(1, (r1 - r0) * (c1 - c0))


def low_confidence(reading: ZoneReading | CountReading) -> bool:
    return reading.confidence < LOW_CONFIDENCE or (isinstance(reading, ZoneReading) and reading.label == "unknown")


def homography_px_per_mm(H: np.ndarray, at_mm: tuple[float, float]) -> float:
    pts = np.array([[at_mm, (at_mm[0] + 1, at_mm[1]), (at_mm[0], at_mm[1] + 1)]], float)
    img = cv2.perspectiveTransform(pts, H)[0]
    (ax, ay), (bx, by) = img[1] - img[0], img[2] - img[0]
    return math.sqrt(abs(ax * by - ay * bx))
