"""Reading a frame against the enrolled empty board (``calibrate board``): which places hold a piece, which
piece, and where a hand is. Used by ``vision.read.Reader`` whenever the calibration holds a board.

- **Piece or not.** ``vision.board.BoardComparison`` marks every pixel that is not the board as the camera
  saw it empty, once the light is divided out. Each pixel belongs to the nearest place (a piece set down off
  its centre is still its place's), up to most of a place's width around it.
- **Which piece.** What differs in a place is measured as one piece is (its area, in mm², sides included)
  and its lit top (the brighter half of it, relit by the light that reaches the board around the place: a
  hand's shadow over it is divided out) compared with every piece the calibration frame showed against the
  same board (``PieceModel``: colour and area). Too little differs: empty. One piece's area and colour:
  that piece. Anything else (an object, a piece of no colour learnt, two pieces): unknown.
- **Hands.** Grid cells mostly unlike the board form blobs; a blob that reaches the board's edge, is
  larger than a piece and lies partly outside every place is an arm. Places under it read unknown.
"""

from __future__ import annotations

import cv2
import numpy as np

from calibration.layout import Layout
from calibration.store import BoardImage, Calibration, PieceModel
from vision import masks
from vision.board import BoardComparison, Difference
from vision.colour import bgr_to_lab, rgb_to_lab
from vision.pieces import piece_shapes
from vision.reading import CountReading, Reading, ZoneReading

REACH = 1.6  # a place owns pixels up to this many half-widths from its centre (nearest place first)
EMPTY_AREA = 0.3  # less than this share of the smallest piece a place may hold differs: the place is empty
AREA_RANGE = (0.4, 2.2)  # a piece's area within this share of its learnt one
COLOUR_MATCH = 16.0  # ΔE (L weighted half) within which a piece's lit top is that piece
CHROMA_SCALE = (0.6, 1.2)  # a lit top's chroma against its piece's, at most
AREA_DE = 20.0  # a piece's area off by a factor e weighs as much as this many ΔE of colour
L_WEIGHT = 0.5  # lightness counts half: the lit top's lightness is the least certain (light, angle)
SURE = 0.5  # a piece named with less confidence than this is read unknown
HAND_CELLS = 0.5  # a grid cell this much unlike the board is part of a blob
PILE_SHADOW_MM = 16.0  # a pile's shadow reaches this far beyond its tray (a cube's height, light at 45°)
HAND_MIN_MM2 = 1500.0  # an arm covers more than this
HAND_FREE_MM2 = 200.0  # and this much of it lies outside every place
HAND_DARK = 0.7  # a cell this much darker than the board next to a hand may be the hand (or its shadow)
HAND_REACH_MM = 40.0  # how far from what was seen of the hand it may be
HAND_MARGIN_MM = 8.0  # a hand hovers: the places beside what is seen of it wait too (and a finger's edge)
HAND_GAP_MM = 28.0  # a gap this wide in the hand's mask (a place between fingers, at the board's edge) is under it
HAND_HOLE_MM2 = 2500.0  # and so is a hole the mask encloses, up to about two places
COVERED = 0.05  # a place this much under the hand reads unknown
PAPER_LEVEL = 235.0  # the markers' white paper, in the light colours are measured in
FALLBACK_AREA = 1.3  # without a calibration frame, a piece shows its footprint and some of its sides


class BoardReader:
    """Reads frames of one layout against its enrolled board; ``base`` (a ``vision.read.Reader`` at the
    board's resolution) locates, warps, counts and reads cards."""

    def __init__(self, layout: Layout, calibration: Calibration, board: BoardImage, base):
        self.layout = layout
        self.base = base
        self.compare = BoardComparison(layout, board)
        g = self.compare.geometry
        self.geometry = g
        # Colours are measured as if the enrolled board had been lit by white light bright enough to show the
        # markers' paper at PAPER_LEVEL: a board enrolled in dim or coloured light keeps its pieces apart.
        self._white_scale = (PAPER_LEVEL / np.maximum(_paper_white(layout, self.compare), 1.0)).astype(np.float32)
        self.pieces = _piece_models(layout, calibration)
        self.slot_ids = g.slot_ids
        self.owner = _owners(layout, g)  # (h, w) int32: the slot owning each pixel, -1 none
        self._owner_flat = self.owner.ravel()
        self._mm2_per_px = 1.0 / g.px_per_mm ** 2
        self._zone_cells = _zone_cells(layout, g)
        rows, cols = g.grid_shape
        self._edge = np.zeros((rows, cols), bool)
        self._edge[[0, -1], :] = True
        self._edge[:, [0, -1]] = True
        in_zone = np.zeros((rows, cols), bool)
        for cells in self._zone_cells.values():
            in_zone[cells] = True
        # (and beyond a tray's pile and its shadow: a pile reaching the board's edge is no arm)
        near_tray = np.zeros((rows, cols), np.uint8)
        for zid in g.count_ids:
            near_tray[self._zone_cells[zid]] = 1
        reach = 2 * round(PILE_SHADOW_MM / g.grid_mm) + 1
        near_tray = cv2.dilate(near_tray, np.ones((reach, reach), np.uint8)).view(bool)
        self._outside_zones = ~in_zone & ~g.grid_marker & ~near_tray
        self._cell_mm2 = g.grid_mm ** 2
        self._hand_gap = max(3, round(HAND_GAP_MM / g.grid_mm) | 1)
        self._hand_reach = max(1, round(HAND_REACH_MM / g.grid_mm))
        self._hand_margin = 2 * round(HAND_MARGIN_MM / g.grid_mm) + 1
        # The widest a piece's blob may be, in grid cells (its side, turned, leaning, and a cell either side).
        widest = max((max(sh.size) for sh in piece_shapes(layout).values() if sh.kind != "card"), default=30.0)
        self._piece_cells = int(np.ceil(widest * 1.5 / g.grid_mm)) + 2

    def read_at(self, frame: np.ndarray, location, keep_canonical: bool = False) -> Reading:
        canonical = self.base.warp(frame, location.homography, location.lens)
        diff = self.compare.compare(canonical)
        hands = self.hands(diff)
        cover = {zid: float(hands[cells].mean()) if hands.any() else 0.0 for zid, cells in self._zone_cells.items()}
        zones = self.slots(canonical, diff, cover)
        counts = self.counts(frame, location, canonical, cover)
        if self.base.cards:
            zones.update(self.base.cards.read(frame, location.homography, location.lens))
        return Reading(self.layout.name, True, location.homography, zones, counts, location.source,
                       canonical if keep_canonical else None, hands)

    # -- hands ------------------------------------------------------------------------------------------------

    def hands(self, diff: Difference) -> np.ndarray:
        """Grid cells under an arm or a hand: blobs of cells unlike the board that reach the board's edge, are
        larger than a piece, and lie partly outside every place (pieces lie in places). A blob no larger than
        a piece is a piece and is set aside first: the closing that joins a hand's broken outline would
        otherwise join pieces in neighbouring places into a chain from the hand."""
        cells = (diff.grid_differs >= HAND_CELLS).astype(np.uint8)
        n, labels, stats, _ = cv2.connectedComponentsWithStats(cells, connectivity=8)
        widest = np.maximum(stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT])
        pieces = widest <= self._piece_cells
        pieces[0] = True
        cells = (~pieces[labels]).astype(np.uint8)
        cells = cv2.morphologyEx(cells, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
        n, labels, stats, _ = cv2.connectedComponentsWithStats(cells, connectivity=8)
        hand = np.zeros(cells.shape, bool)
        for k in range(1, n):
            if stats[k, cv2.CC_STAT_AREA] * self._cell_mm2 < HAND_MIN_MM2:
                continue
            blob = labels == k
            if not (blob & self._edge).any():
                continue
            if np.count_nonzero(blob & self._outside_zones) * self._cell_mm2 < HAND_FREE_MM2:
                continue
            hand |= blob
        if hand.any():
            # A hand over artwork of its own hue looks like a shadow of it (darker, the same colour): the mask
            # grows over cells darker than the board beside it, as far as a hand reaches. A place in the hand's
            # shadow then waits too, rather than a place under the hand being read.
            rows, cols = cells.shape
            dark = (cv2.resize(diff.brightness[:rows * self.geometry.grid_px, :cols * self.geometry.grid_px],
                               (cols, rows), interpolation=cv2.INTER_AREA) < np.log(HAND_DARK)) | (cells > 0)
            square = np.ones((3, 3), np.uint8)
            for _ in range(self._hand_reach):
                grown = cv2.dilate(hand.view(np.uint8), square).view(bool) & dark
                if np.array_equal(grown | hand, hand):
                    break
                hand = hand | grown
            # What the hand encloses or nearly encloses is under it (a palm over dark artwork looks like it in
            # patches only; between the fingers nothing can be seen whole), and the places beside it wait.
            mask = masks.closed(hand.view(np.uint8), np.ones((self._hand_gap, self._hand_gap), np.uint8))
            mask = masks.holes_filled(mask, lambda areas: areas * self._cell_mm2 <= HAND_HOLE_MM2)
            hand = cv2.dilate(mask, np.ones((self._hand_margin, self._hand_margin), np.uint8)).view(bool)
        return hand

    # -- places ---------------------------------------------------------------------------------------------

    def measure(self, canonical: np.ndarray, diff: Difference) -> tuple[np.ndarray, np.ndarray]:
        """Per slot: the area that differs from the board (mm²) and its lit top's mean colour (Lab, relit)."""
        n = len(self.slot_ids)
        owner = pixel_owner = self._owner_flat
        differs = diff.solid.ravel()
        bright = diff.brightness.ravel()
        piece_px = np.flatnonzero(differs & (owner >= 0))
        board_px = np.flatnonzero(~differs & (pixel_owner >= 0))
        area = np.bincount(owner[piece_px], minlength=n) * self._mm2_per_px
        # The light reaching each place: the board around it (a hand's shadow dims it, pieces do not count).
        lit_sum = np.bincount(pixel_owner[board_px], weights=bright[board_px], minlength=n)
        lit_n = np.bincount(pixel_owner[board_px], minlength=n)
        local = np.where(lit_n >= 8, lit_sum / np.maximum(lit_n, 1), 0.0)
        local = np.minimum(local, 0.0)  # only shadows are divided out
        # The lit top: the brighter half of the piece away from its edges (its sides and shadow are darker).
        core_px = np.flatnonzero(diff.core.ravel() & (owner >= 0))
        po = owner[core_px]
        pb = bright[core_px]
        mean_b = np.bincount(po, weights=pb, minlength=n) / np.maximum(np.bincount(po, minlength=n), 1)
        top = core_px[pb >= mean_b[po]]
        to = owner[top]
        bgr = canonical.reshape(-1, 3)[top].astype(np.float32)
        bgr /= diff.gain.reshape(-1, 3)[top]
        bgr *= np.exp(-local[to])[:, None].astype(np.float32)
        bgr *= self._white_scale
        lab = bgr_to_lab(np.clip(bgr / 255.0, 0, 1))
        counts = np.maximum(np.bincount(to, minlength=n), 1)
        mean_lab = np.stack([np.bincount(to, weights=lab[:, c], minlength=n) / counts for c in range(3)], axis=1)
        return area, mean_lab

    def slots(self, canonical: np.ndarray, diff: Difference, cover: dict[str, float]) -> dict[str, ZoneReading]:
        if not self.slot_ids:
            return {}
        area, mean_lab = self.measure(canonical, diff)
        out = {}
        for i, zid in enumerate(self.slot_ids):
            if cover.get(zid, 0.0) >= COVERED:
                out[zid] = ZoneReading("unknown", round(min(1.0, 0.5 + cover[zid]), 3))
                continue
            out[zid] = self._decide(zid, float(area[i]), mean_lab[i])
        return out

    def _decide(self, zid: str, area: float, lab: np.ndarray) -> ZoneReading:
        labels = [lb for lb in self.layout.zone(zid).labels if lb != "empty" and lb in self.pieces]
        if not labels:
            return ZoneReading("empty", 1.0)
        smallest = min(self.pieces[lb].area_mm2 for lb in labels)
        empty_below = EMPTY_AREA * smallest
        if area < empty_below:
            return ZoneReading("empty", round(1.0 - 0.5 * area / empty_below, 3))
        # Colour and size together: a black token and a dark brown cube differ little in colour, but a token
        # covers more of the board than a cube (the log of the area ratio, in ΔE units).
        de = {lb: float(np.hypot(colour_distance(lab, self.pieces[lb].lab),
                                 AREA_DE * np.log(max(area, 1.0) / self.pieces[lb].area_mm2))) for lb in labels}
        ranked = sorted(labels, key=de.get)
        best = ranked[0]
        ratio = area / self.pieces[best].area_mm2
        if de[best] > COLOUR_MATCH or not (AREA_RANGE[0] <= ratio <= AREA_RANGE[1]):
            return ZoneReading("unknown", 0.9)
        margin = (de[ranked[1]] - de[best]) if len(ranked) > 1 else COLOUR_MATCH
        colour_conf = min(1.0, margin / 10.0) * (1.0 - 0.5 * de[best] / COLOUR_MATCH)
        area_conf = min(1.0, (ratio - AREA_RANGE[0]) / (1.0 - AREA_RANGE[0]) * 2, 1.0)
        confidence = max(0.0, min(colour_conf, area_conf))
        if confidence < SURE:  # never a label it is unsure of: unknown, and the stabiliser waits
            return ZoneReading("unknown", round(1.0 - confidence, 3))
        return ZoneReading(best, round(confidence, 3))

    # -- trays -----------------------------------------------------------------------------------------------

    def counts(self, frame, location, canonical: np.ndarray, cover: dict[str, float]) -> dict[str, CountReading]:
        """The trays, counted by ``vision.count`` in the light the base reader measures around them (the
        counter's colours are learnt that way); a tray the hand covers is not counted."""
        g = self.geometry
        if not g.count_ids:
            return {}
        crops = self.base._count_crops(frame, location)
        gains = self.base.tray_gains(canonical, location)
        foot = self.base._foot(frame, location)
        out = {}
        for i, zid in enumerate(g.count_ids):
            x0, y0, x1, y1 = self.layout.zone(zid).bounds
            if cover.get(zid, 0.0) * (x1 - x0) * (y1 - y0) >= 64.0:  # a quarter of a cube's top under the hand
                out[zid] = CountReading(None, 0.0, reason="a hand over the tray")
                continue
            out[zid] = self.base._count(i, cv2.transform(crops[i], np.diag(gains[i].astype(np.float32))), foot)
        return self.base._unstacked(out) if self.base.spread_stacked else out


def colour_distance(lab: np.ndarray, piece_lab) -> float:
    """ΔE from a measured lit top to a piece's, with lightness weighted ``L_WEIGHT`` and the piece's chroma
    free to fade or grow within ``CHROMA_SCALE`` (dim light and a camera's noise reduction take saturation
    away; the hue stays)."""
    L0, a0, b0 = piece_lab
    ab0 = np.array([a0, b0])
    ab = np.asarray(lab[1:], float)
    norm2 = float(ab0 @ ab0)
    scale = float(np.clip(ab @ ab0 / norm2, *CHROMA_SCALE)) if norm2 > 1e-6 else 1.0
    return float(np.hypot(L_WEIGHT * (lab[0] - L0), np.linalg.norm(ab - scale * ab0)))


def _owners(layout: Layout, g) -> np.ndarray:
    """Which slot owns each canonical pixel: the nearest place by distance in half-widths, up to ``REACH``
    (count zones own their pixels too, so a tray's pile is no slot's piece)."""
    w, h = g.size_px
    s = g.px_per_mm
    best = np.full((h, w), np.inf, np.float32)
    owner = np.full((h, w), -1, np.int32)
    index = {zid: i for i, zid in enumerate(g.slot_ids)}
    for z in layout.zones:
        if z.kind not in ("slot", "count"):
            continue
        cx, cy = z.center
        hw, hh = z.size[0] / 2, z.size[1] / 2
        x0, x1 = max(0, int((cx - REACH * hw) * s)), min(w, int((cx + REACH * hw) * s) + 1)
        y0, y1 = max(0, int((cy - REACH * hh) * s)), min(h, int((cy + REACH * hh) * s) + 1)
        if x1 <= x0 or y1 <= y0:
            continue
        xs = ((np.arange(x0, x1) + 0.5) / s - cx) / hw
        ys = ((np.arange(y0, y1) + 0.5) / s - cy) / hh
        d = np.maximum(np.abs(xs)[None, :], np.abs(ys)[:, None]).astype(np.float32)
        if z.kind == "count":
            d = np.where(d <= 1.0, 0.0, d).astype(np.float32)
        window = best[y0:y1, x0:x1]
        nearer = (d < window) & (d <= REACH)
        window[nearer] = d[nearer]
        owner[y0:y1, x0:x1][nearer] = index.get(z.id, -2)
    owner[owner == -2] = -1
    return owner


def _zone_cells(layout: Layout, g) -> dict[str, tuple[slice, slice]]:
    out = {}
    rows, cols = g.grid_shape
    for z in layout.zones:
        x0, y0, x1, y1 = z.bounds
        r0, r1 = max(0, int(y0 / g.grid_mm)), min(rows, int(np.ceil(y1 / g.grid_mm)))
        c0, c1 = max(0, int(x0 / g.grid_mm)), min(cols, int(np.ceil(x1 / g.grid_mm)))
        if r1 > r0 and c1 > c0:
            out[z.id] = (slice(r0, r1), slice(c0, c1))
    return out


def _piece_models(layout: Layout, calibration: Calibration) -> dict[str, PieceModel]:
    """The pieces as learnt against the enrolled board; a label the calibration frame did not show is taken
    from the layout's palette (colours are measured in white light, as a palette gives them)."""
    out = dict(calibration.pieces)
    shapes = piece_shapes(layout)
    for label in layout.palette:
        if label in out or label == "empty":
            continue
        lab = rgb_to_lab(np.array(layout.colour(label), np.float64) * PAPER_LEVEL / 255.0)
        out[label] = PieceModel(tuple(float(v) for v in lab), shapes[label].area_mm2 * FALLBACK_AREA)
    return out


def _paper_white(layout: Layout, compare: BoardComparison) -> np.ndarray:
    """The markers' white paper in the enrolled image (BGR): the brightest tenth of their stickers."""
    s = compare.geometry.px_per_mm
    values = []
    for m in layout.markers:
        (left, top), (right, bottom) = m.corners()[0], m.corners()[2]
        crop = compare.image[max(0, int(top * s)):int(bottom * s), max(0, int(left * s)):int(right * s)]
        if crop.size:
            px = crop.reshape(-1, 3).astype(np.float64)
            grey = px.mean(axis=1)
            values.append(px[grey >= np.percentile(grey, 90)].mean(axis=0))
    return np.median(values, axis=0) if values else np.array([245.0, 245.0, 245.0])
