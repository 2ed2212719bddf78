"""Reading a frame against the enrolled empty board (``calibrate board``): which places hold a piece, which
piece, and where a hand is. Used by ``vision.read.Reader`` whenever the calibration holds a board.

- **Piece or not.** ``vision.board.BoardComparison`` marks every pixel that is not the board as the camera
  saw it empty, once the light is divided out. Each pixel belongs to the nearest place (a piece set down off
  its centre is still its place's), up to most of a place's width around it.
- **Which piece.** What differs in and around a place is measured (how much, how strongly in colour,
  brightness and new edges, its lit top's colour relit by the light reaching the board around it) and set
  against the pieces the calibration frame showed against the same board (``PieceModel``: colour and area).
  The learned place model (``vision.place_model``) decides from those numbers: empty, the nearest piece, the
  next one, or unknown (an object, a piece of no colour learnt, two pieces, or too unsure).
- **Hands.** Grid cells mostly unlike the board form blobs; a blob that reaches the board's edge, is
  larger than a piece and lies partly outside every place is an arm. Places under it read unknown.
"""

from __future__ import annotations

import cv2
import numpy as np

from calibration.layout import Layout
from calibration.store import BoardImage, Calibration, PieceModel
from vision import hand_cells, masks, place_crops, place_model
from vision.board import (
    CLIPPED,
    BoardComparison,
    Difference,
    markers_unseen,
    placed_by_estimate,
)
from vision.colour import L_WEIGHT, bgr_to_lab, rgb_to_lab
from vision.count import agreed
from vision.geometry import COUNT_PX_PER_MM
from vision.light_field import field_basis
from vision.pieces import piece_shapes
from vision.place_crops import PlaceCrops
from vision.place_model import PlaceMeasures
from vision.read import UNTOLD
from vision.reading import CountReading, Reading, ZoneReading
from vision.robust import channel_mean

REACH = 1.6  # a place owns pixels up to this many half-widths from its centre (nearest place first)
INNER = 0.6  # the place's centre, in half-widths (a piece set down there is surely this place's)
CHROMA_SCALE = (0.6, 1.2)  # a lit top's chroma against its piece's, at most
AREA_DE = 20.0  # a piece's area off by a factor e weighs as much as this many ΔE of colour
PILE_SHADOW_MM = 16.0  # a pile's shadow reaches this far beyond its tray (a cube's height, light at 45°)
HAND_MIN_MM2 = 1500.0  # an arm covers more than this
HAND_FREE_MM2 = 200.0  # and this much of it lies outside every place
HAND_MARGIN_MM = 8.0  # a hand hovers: the places beside what is seen of it wait too (and a finger's edge)
HAND_GAP_MM = 28.0  # a gap this wide in the hand's mask (a place between fingers, at the board's edge) is under it
HAND_HOLE_MM2 = 2500.0  # and so is a hole the mask encloses, up to about two places
# A cell a tenth likely a hand's is no hand on its own, but it is the arm's where it touches it (hysteresis)
HAND_WEAK = 0.1
# A place this much under what the reader takes for the hand reads unknown: the piece may lie under the half it
# cannot see. Less, and the place model decides, with the share among what it sees (the mask has a margin). Chosen
# with the rules' mask of session 36, which took in the hand's shadow too: of the places 5 % or more under it on
# the development tables (set b), two in five were in plain sight. On fresh seeds 13301 and 13302 (model on 280
# tables, against these places read unknown): unread 18.1 -> 16.8 % and 16.1 -> 15.1 %, wrong 0.41 -> 0.43 % and
# 0.20 -> 0.23 %, places under a hand read with confidence 25 -> 24 of 557 and 9 -> 12 of 325.
COVERED = 0.5
FRAME_SEEN = 2  # places read surely as a piece, at least, for this frame's colour of it to stand
# A tray unlike the board beyond the cubes counted by this many cubes' areas, or this share of the count (a pile's
# cubes show more of their sides in a tray than one on its place, and a blur spreads them), has no count. On the
# development tables (seeds 13301-13303, 713 trays counted), of the trays counted right 4 in 599 go uncounted, of
# those counted wrong 19 in 114 (at one cube's area alone, 46 and 23). On fresh seed 17304: trays wrong 9.7 ->
# 6.5 %, exact 73.2 -> 70.4 %.
UNEXPLAINED, UNEXPLAINED_SHARE = 2.0, 0.5
TRAY_RING_MM = 10.0  # the board around a tray that tells the light over it, with the tray's own
TRAY_FREE = 0.25  # ... when that much board shows (as a share of the tray's area); else the light surface
LIT = 0.8  # board darker than this (of the light surface) is in a shadow and tells no light
PAPER_LEVEL = 235.0  # the markers' white paper, in the light colours are measured in
TOP_PX = 8  # pixels of a piece within its place's reach enough to tell its lit top's colour (learning only)
FALLBACK_AREA = 1.3  # without a calibration frame, a piece shows its footprint and some of its sides


class BoardReader:
    """Reads frames of one layout against its enrolled board; ``base`` (a ``vision.read.Reader`` at the
    board's resolution) locates, warps, counts and reads cards."""

    def __init__(self, layout: Layout, calibration: Calibration, board: BoardImage, base):
        self.layout = layout
        self.base = base
        self.compare = BoardComparison(layout, board)
        # Zones the enrolment placed by estimate (beyond the markers it saw, no lens known) are not read: every
        # frame is compared with a board image that may lie a slot off there (``placed_by_estimate``).
        self.estimated = placed_by_estimate(layout, board, calibration.camera)
        # (its trays' reason: the enrolment's own warning)
        self._estimated_reason = f"not counted: {markers_unseen(board, layout)}" if self.estimated else None
        g = self.compare.geometry
        self.geometry = g
        # Colours are measured as if the enrolled board had been lit by white light bright enough to show the
        # markers' paper at PAPER_LEVEL: a board enrolled in dim or coloured light keeps its pieces apart.
        self.white_scale = (PAPER_LEVEL / np.maximum(_paper_white(layout, self.compare), 1.0)).astype(np.float32)
        # Under two lights of two colours the enrolment's light changes colour across the board: the markers'
        # paper tells how (``vision.read.light_tint``), and a tray or a calibration place is made white by the
        # light where it lies (a tray on the lamp's side was made white by the window's side's paper, and its grey
        # cubes read pink against the grey learnt on the other side).
        tint = base._marker_light(self.compare.image)[1]
        self._enrolled_tint = None if tint is UNTOLD else tint  # (paper clipped: untold, taken as one light)
        self.pieces = _piece_models(layout, calibration)
        nominal_board = np.clip(base.model.background_bgr * 255.0, 0, 255).astype(np.uint8)
        # Per tray: the canonical pixel under each pixel of its crop (rows, columns), and its crop all of the
        # board's nominal colour (what the counter is shown where nothing differs from the enrolled board).
        self._tray_px, self._tray_board = [], []
        h, w = self.compare.image.shape[:2]
        for i in range(len(base.geometry.count_ids)):
            xs, ys = base.geometry.count_samples_mm(i)
            self._tray_px.append((np.clip((ys * g.px_per_mm).astype(np.intp), 0, h - 1),
                                  np.clip((xs * g.px_per_mm).astype(np.intp), 0, w - 1)))
            self._tray_board.append(np.broadcast_to(nominal_board, (len(ys), len(xs), 3)).copy())
        # (the enrolled board smoothed over a few pixels, and never black: what the light is measured against)
        self._smooth_board = np.maximum(cv2.blur(self.compare.image.astype(np.float32), (5, 5)), np.float32(1.0))
        s = g.px_per_mm
        # Each tray's rows and columns in the canonical image, alone and with the board around it.
        self._tray_rects, self._tray_around, self._tray_free_px = [], [], []
        for zid in base.geometry.count_ids:
            x0, y0, x1, y1 = layout.zone(zid).bounds
            self._tray_rects.append((max(0, int(y0 * s)), min(h, max(int(y1 * s), int(y0 * s) + 1)),
                                     max(0, int(x0 * s)), min(w, max(int(x1 * s), int(x0 * s) + 1))))
            self._tray_around.append(self.around(layout.zone(zid).bounds))
            self._tray_free_px.append(TRAY_FREE * (x1 - x0) * (y1 - y0) * s * s)
        self._tray_labels = [[lb for lb in layout.zone(zid).labels if lb in self.pieces] or list(self.pieces)
                             for zid in base.geometry.count_ids]
        self._tray_white = [self.white_scale_at(layout.zone(zid).center) for zid in base.geometry.count_ids]
        grow = 2 * round(COUNT_PX_PER_MM) + 1
        self._tray_grow = np.ones((grow, grow), np.uint8)
        self.slot_ids = g.slot_ids
        # Each place's colours are made white by the enrolment's light where the place lies, as a tray's are: a
        # board enrolled under a lamp on one side and a window on the other tints every place's colour by its
        # side's light, and a piece learnt on one side was another colour on the other.
        self._slot_white = np.array([self.white_scale_at(layout.zone(z).center) for z in self.slot_ids],
                                    np.float32).reshape(-1, 3)
        self.owner, reach = _owners(layout, g)  # (h, w) int32: the slot owning each pixel, -1 none
        self._owner_flat = self.owner.ravel()
        # Each owned pixel's ring: 0 near the centre, 1 the rest of the place, 2 beyond it (off-centre, spill).
        self.ring = np.digitize(reach.ravel(), [INNER, 1.0]).astype(np.int32)
        # The owned pixels, those of the places themselves and those near their centres, once: a read then
        # looks at these alone (in ascending order, so every sum adds in the same order as over the image).
        self._inside = np.flatnonzero(self._owner_flat >= 0)
        self._inside_ring = self.ring[self._inside]
        self._place_px = self._inside[self._inside_ring < 2]
        self._inner_px = self._inside[self._inside_ring == 0]
        # Who owns them, and how many each place has, once (the enrolment fixes them; a read only gathers).
        n = len(g.slot_ids)
        self._inside_owner = self._owner_flat[self._inside]
        self._inside_key = self._inside_owner * 3 + self._inside_ring  # (place, ring) as one bin
        self._inside_n = np.bincount(self._inside_owner, minlength=n)
        self._place_in = np.flatnonzero(self._inside_ring < 2)  # the place's pixels among the owned ones
        self._place_owner = self._owner_flat[self._place_px]
        self._place_n = np.maximum(np.bincount(self._place_owner, minlength=n), 1)
        self._inner_in = np.flatnonzero(self._inside_ring[self._place_in] == 0)  # the centres' among the place's
        self._inner_owner = self._owner_flat[self._inner_px]
        self._inner_n = np.maximum(np.bincount(self._inner_owner, minlength=n), 1)
        self.model = None  # the shipped place model, loaded at the first read
        self.hand_model = None  # the shipped hand model, likewise
        self._board_lab = self._place_colours(self.compare.image)
        # The pieces each slot may hold (rows: slots, columns: ``_labels``), their areas and colours, and how
        # far each piece's colour is from the enrolled board's at each slot.
        self._labels = sorted(self.pieces)
        self._piece_labs = np.array([self.pieces[lb].lab for lb in self._labels], np.float64).reshape(-1, 3)
        self._areas = np.array([self.pieces[lb].area_mm2 for lb in self._labels], np.float64)
        self._may_hold = np.array([[lb in self.layout.zone(z).labels for lb in self._labels]
                                   for z in self.slot_ids], bool).reshape(len(self.slot_ids), len(self._labels))
        self._showing = colour_distances(self._board_lab, self._piece_labs)
        self._lab_of = dict(zip(self._labels, self._piece_labs, strict=True))
        self.crops = PlaceCrops(layout, self.slot_ids, g.px_per_mm, self.compare.image, self._slot_white)
        self._mm2_per_px = 1.0 / g.px_per_mm ** 2
        self._zone_cells = _zone_cells(layout, g)
        rows, cols = g.grid_shape
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
        self.hand_static = hand_cells.static_measures(self.compare, in_zone)
        self._cell_mm2 = g.grid_mm ** 2
        self._hand_gap = max(3, round(HAND_GAP_MM / g.grid_mm) | 1)
        self._hand_margin = 2 * round(HAND_MARGIN_MM / g.grid_mm) + 1
        # The widest a piece's blob may be, in grid cells (its side, turned, leaning, and a cell either side).
        widest = max((max(sh.size) for sh in piece_shapes(layout).values() if sh.kind != "card"), default=30.0)
        self._piece_cells = int(np.ceil(widest * 1.5 / g.grid_mm)) + 2

    def compared(self, frame: np.ndarray, location):
        """The frame on the board (canonical image), against the enrolled board (``Difference``), the grid
        cells under a hand, and the share of each zone under it."""
        canonical = self.canonical(frame, location)
        diff = self.compare.compare(canonical)
        hands = self.hands(diff)
        if hands.any():
            cover = {zid: float(hands[cells].mean()) for zid, cells in self._zone_cells.items()}
        else:
            cover = dict.fromkeys(self._zone_cells, 0.0)
        return canonical, diff, hands, cover

    def read_at(self, frame: np.ndarray, location, keep_canonical: bool = False) -> Reading:
        canonical, diff, hands, cover = self.compared(frame, location)
        zones = self.slots(canonical, diff, cover)
        counts = self.counts(frame, location, canonical, cover, diff)
        if self.base.cards:
            zones.update(self.base.cards.read(frame, location.homography, location.lens))
        return Reading(self.layout.name, True, location.homography, zones, counts, location.source,
                       canonical if keep_canonical else None, hands, location.lens)

    def canonical(self, frame: np.ndarray, location) -> np.ndarray:
        """The frame warped onto the enrolled board's canonical image."""
        return self.base.warp(frame, location.homography, location.lens)

    # -- hands ------------------------------------------------------------------------------------------------

    def hands(self, diff: Difference) -> np.ndarray:
        """Grid cells under an arm or a hand. The hand model (``vision/hand_cells.py``) gives each cell the
        probability that a hand covers it; an arm is a blob of cells more likely a hand's than not, larger than a
        piece and partly outside every place (pieces lie in places), grown over the cells around it that are at
        least ``HAND_WEAK`` likely (hysteresis: a hand's dim or blurred fingers keep to the arm they belong to, a
        likely-looking patch elsewhere starts nothing). It need not reach the board's edge: a dark sleeve over
        print of its colour can vanish a hand's breadth before it (19806 t003 f003, seven places under a pale
        hand read with confidence), and the network, which sees 25 cm around a cell, takes no patch for an arm
        that the edge test then turned away (dev sets 19796-19802: the same readings without it, or fewer wrong).
        A board without a hand model (none shipped) sees no hand."""
        if self.hand_model is None:
            self.hand_model = hand_cells.shipped()
            if self.hand_model is None:
                return np.zeros(diff.grid_differs.shape, bool)
        cells = hand_cells.measures(self.compare, diff)
        p = hand_cells.probability_map(self.hand_model, cells, self.hand_static)
        hand = self._arms(p >= 0.5, p >= HAND_WEAK)
        if not hand.any():
            return hand
        # What the hand encloses or nearly encloses is under it (between the fingers nothing can be seen whole),
        # and the places beside it wait.
        mask = masks.closed(hand.view(np.uint8), np.ones((self._hand_gap, self._hand_gap), np.uint8))
        mask = masks.holes_filled(mask, lambda areas: areas * self._cell_mm2 <= HAND_HOLE_MM2)
        return cv2.dilate(mask, np.ones((self._hand_margin, self._hand_margin), np.uint8)).view(bool)

    def _arms(self, likely: np.ndarray, weak: np.ndarray) -> np.ndarray:
        """The arms: blobs of ``likely`` cells of an arm's size and place, grown over the ``weak`` cells they
        touch. A blob no larger than a piece is set aside first: the closing that
        joins a hand's broken outline would otherwise join it to the hand."""
        cells = likely.astype(np.uint8)
        n, labels, stats, _ = cv2.connectedComponentsWithStats(cells, connectivity=8)
        widest = np.maximum(stats[:, cv2.CC_STAT_WIDTH], stats[:, cv2.CC_STAT_HEIGHT])
        pieces = widest <= self._piece_cells
        pieces[0] = True
        cells = (~pieces[labels]).astype(np.uint8)
        cells = cv2.morphologyEx(cells, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
        n, labels, stats, _ = cv2.connectedComponentsWithStats(cells, connectivity=8)
        seeds = np.zeros(cells.shape, bool)
        for k in range(1, n):
            if stats[k, cv2.CC_STAT_AREA] * self._cell_mm2 < HAND_MIN_MM2:
                continue
            blob = labels == k
            if np.count_nonzero(blob & self._outside_zones) * self._cell_mm2 < HAND_FREE_MM2:
                continue
            seeds |= blob
        if not seeds.any():
            return seeds
        _, grown = cv2.connectedComponents((seeds | weak).view(np.uint8), connectivity=8)
        held = np.unique(grown[seeds])
        return np.isin(grown, held[held > 0])

    # -- places ---------------------------------------------------------------------------------------------

    def measure(self, canonical: np.ndarray, diff: Difference, cover: np.ndarray,
                expect: np.ndarray | None = None) -> PlaceMeasures:
        """Per slot: what differs from the board around it, and its lit top's mean colour (Lab, relit).
        ``expect`` (``learn_pieces``; (slots, 3) Lab, NaN where none): the colour each calibration place's piece
        is declared (the layout's palette); such a place takes its lit top from what differs anywhere within its
        reach and lies in colour with the part of it nearest that colour (``learnt_top``): on the calibration
        frame a piece set down off its centre lies partly beyond its place, and its neighbour's spills into it."""
        # (Every sum adds the same pixels in the same order as over the image: pixels are gathered once, in
        # ascending order, from the owned ones, and the places' and their centres' taken from those.)
        n = len(self.slot_ids)
        inside, place_in, inner_in = self._inside, self._place_in, self._inner_in
        place_owner, place_n = self._place_owner, self._place_n
        inner_owner, inner_n = self._inner_owner, self._inner_n
        inside_owner = self._inside_owner
        seen = diff.solid.ravel().take(inside)
        bright = diff.brightness.ravel().take(inside)
        core_all = diff.core.ravel().take(inside)
        piece_rings = np.bincount(self._inside_key[seen], minlength=3 * n).reshape(n, 3)
        rings = piece_rings * self._mm2_per_px
        place_px = self._place_px

        def place_and_inner_means(image, of=lambda v: v):
            at_place = image.ravel().take(place_px)
            return (np.bincount(place_owner, weights=at_place, minlength=n) / place_n,
                    np.bincount(inner_owner, weights=of(at_place.take(inner_in)), minlength=n) / inner_n)

        def inner_mean(values):
            return np.bincount(inner_owner, weights=values, minlength=n) / inner_n

        chroma, chroma_in = place_and_inner_means(diff.chroma)
        lifted_at = diff.lifted.ravel().take(place_px)
        lifted = np.bincount(place_owner, weights=lifted_at, minlength=n) / place_n
        lifted_in = lifted_at.take(inner_in)
        contrast_in, lifted_in = inner_mean(np.abs(lifted_in)), inner_mean(lifted_in)
        bright_place = bright.take(place_in)
        shade_in = inner_mean(bright_place.take(inner_in))
        edges, edges_in = place_and_inner_means(diff.edges)
        own = seen.take(place_in)
        own_owner = place_owner[own]
        dark_n = np.bincount(own_owner, weights=(bright_place[own] < np.log(0.5)), minlength=n)
        dark = dark_n / np.maximum(np.bincount(own_owner, minlength=n), 1)
        core = np.bincount(place_owner[core_all.take(place_in)], minlength=n) * self._mm2_per_px
        # The light reaching each place: the board around it (a hand's shadow dims it, pieces do not count).
        free = ~seen
        lit_sum = np.bincount(inside_owner[free], weights=bright[free], minlength=n)
        lit_n = self._inside_n - piece_rings.sum(axis=1)
        local = np.where(lit_n >= 8, lit_sum / np.maximum(lit_n, 1), 0.0)
        shade = np.minimum(local, 0.0)  # only shadows are divided out
        # The lit top: the half of the piece away from its edges most unlike the board. A shadow only darkens
        # (or, lit by a second light, tints a little), so darkening counts half; a top differs in colour or is
        # brighter. (The brighter half, before: a dark cube's shadow lit by a window is brighter than its top.)
        po = inside_owner[core_all]
        lifted_core = diff.lifted.ravel().take(inside)[core_all]
        unlike = diff.chroma.ravel().take(inside)[core_all] + np.maximum(lifted_core, 0) \
            + 0.5 * np.maximum(-lifted_core, 0)
        mean_unlike = np.bincount(po, weights=unlike, minlength=n) / np.maximum(np.bincount(po, minlength=n), 1)
        upper = unlike >= mean_unlike[po]
        top = inside[core_all][upper]
        to = po[upper]
        bgr = canonical.reshape(-1, 3).take(top, axis=0).astype(np.float32)
        bgr /= self._gain_at(diff, top)
        bgr *= np.exp(-shade[to])[:, None].astype(np.float32)
        bgr *= self._slot_white[to]
        lab = bgr_to_lab(np.clip(bgr / 255.0, 0, 1))
        counts = np.maximum(np.bincount(to, minlength=n), 1)
        mean_lab = np.stack([np.bincount(to, weights=lab[:, c], minlength=n) / counts for c in range(3)], axis=1)
        if expect is not None:
            for i in np.flatnonzero(~np.isnan(expect).any(axis=1)).tolist():
                at = inside[core_all & (inside_owner == i)]
                if len(at) >= TOP_PX:
                    raw = canonical.reshape(-1, 3).take(at, axis=0)
                    bgr = raw.astype(np.float32) / self._gain_at(diff, at)
                    bgr *= np.float32(np.exp(-shade[i])) * self._slot_white[i]
                    mean_lab[i] = learnt_top(bgr_to_lab(np.clip(bgr / 255.0, 0, 1)), diff.brightness.ravel().take(at),
                                             expect[i], (raw >= CLIPPED).any(axis=1))
        level = inner_mean(channel_mean(np.log(np.exp(diff.log_gain.reshape(-1, 3).take(self._inner_px, axis=0)))))
        return PlaceMeasures(rings[:, 0], rings[:, 1], rings[:, 2], core, chroma, lifted, chroma_in, lifted_in,
                             contrast_in, edges_in, edges, shade_in, dark, local, mean_lab, cover, level)

    def _place_colours(self, image: np.ndarray) -> np.ndarray:
        """(slots, 3): the mean Lab of ``image`` near each place's centre, white-normalised as lit tops are."""
        n = len(self.slot_ids)
        owner = self._owner_flat
        px = self._inner_px
        bgr = image.reshape(-1, 3)[px].astype(np.float32) * self._slot_white[owner[px]]
        lab = bgr_to_lab(np.clip(bgr / 255.0, 0, 1))
        k = np.maximum(np.bincount(owner[px], minlength=n), 1)
        return np.stack([np.bincount(owner[px], weights=lab[:, c], minlength=n) / k for c in range(3)], axis=1)

    def slots(self, canonical: np.ndarray, diff: Difference, cover: dict[str, float]) -> dict[str, ZoneReading]:
        if not self.slot_ids:
            return {}
        x, crops, ranked, m = self.place_inputs(canonical, diff, self.slot_cover(cover))
        if self.model is None:
            self.model = place_model.shipped()
        kind, p = self.model.decide(x, crops)
        kind, p, ranked = self._in_frame_colours(m, crops, ranked, kind, p)
        unsure = (p < place_model.SURE).tolist()  # (compared as numpy compares; then Python's values, at once)
        kind, p = kind.tolist(), p.tolist()
        out = {}
        for i, zid in enumerate(self.slot_ids):
            if zid in self.estimated:
                out[zid] = ZoneReading("unknown", 1.0)
            elif cover.get(zid, 0.0) >= COVERED:
                out[zid] = ZoneReading("unknown", round(min(1.0, 0.5 + cover[zid]), 3))
            elif not ranked[i]:
                out[zid] = ZoneReading("empty", 1.0)
            elif unsure[i] or kind[i] == place_model.NEITHER or kind[i] > len(ranked[i]):
                # never a label it is unsure of: unknown, and the stabiliser waits
                out[zid] = ZoneReading("unknown", round(1.0 - p[i] if kind[i] != place_model.NEITHER else p[i], 3))
            elif kind[i] == place_model.EMPTY:
                out[zid] = ZoneReading("empty", round(p[i], 3))
            else:
                out[zid] = ZoneReading(ranked[i][kind[i] - 1], round(p[i], 3))
        return out

    def slot_cover(self, cover: dict[str, float]) -> np.ndarray:
        """``cover`` (per zone) as an array over ``slot_ids``."""
        return np.array([cover.get(z, 0.0) for z in self.slot_ids])

    def place_inputs(self, canonical: np.ndarray, diff: Difference, cover: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray, list[list[str]], PlaceMeasures]:
        """What the place model decides from, for every slot: its features, its picture, and the pieces it
        may hold nearest first; and the measures they were made from."""
        m = self.measure(canonical, diff, cover)
        x, ranked = self.place_features(m)
        return x, self.crops.crops(canonical, diff, *self._nearest(ranked, self._lab_of)), ranked, m

    @staticmethod
    def _nearest(ranked: list[list[str]], lab_of: dict[str, np.ndarray]) -> list[np.ndarray]:
        """The colours of the first and the second piece of each place (NaN where it has none)."""
        return [np.array([lab_of[r[k]] if len(r) > k else (np.nan,) * 3 for r in ranked], np.float32).reshape(-1, 3)
                for k in range(2)]

    def _in_frame_colours(self, m: PlaceMeasures, crops, ranked, kind, p):
        """The places left unsure asked again against the pieces' colours as this frame shows them.

        The calibration frame taught each piece's colour once; in this frame's light (dim, or of two colours
        across the board) what is left of the light after relighting is much the same for the pieces of one
        kind, so a piece read surely elsewhere on the board tells how its fellows look here (dev seed 19524:
        places unread that held a piece were 10.8 ΔE from its learnt colour, and the pieces of the same kind
        read surely in the same frame 8.3, against 4.6 over all frames). Where at least ``FRAME_SEEN`` places
        were read as a piece with ``SURE`` confidence, their median colour stands for it; the other places are
        measured against those colours and asked again, and a piece read there with ``SURE`` confidence is
        taken. A place read surely is never asked again."""
        sure = (p >= place_model.SURE) & (kind >= place_model.FIRST) & (kind <= place_model.SECOND)
        if not sure.any():
            return kind, p, ranked
        seen: dict[int, list[int]] = {}
        for i in np.flatnonzero(sure).tolist():
            r = ranked[i]
            if len(r) >= kind[i]:
                seen.setdefault(self._labels.index(r[kind[i] - 1]), []).append(i)
        labs = self._piece_labs.copy()
        moved = False
        for j, rows in seen.items():
            if len(rows) >= FRAME_SEEN:
                labs[j] = np.median(m.lab[rows], axis=0)
                moved = True
        again = np.flatnonzero(p < place_model.SURE)
        if not moved or not len(again):
            return kind, p, ranked
        x2, ranked2 = self.place_features(m, labs)
        lab_of = dict(zip(self._labels, labs, strict=True))
        ranked2 = [ranked2[i] for i in again.tolist()]
        crops2 = place_crops.with_pieces(crops[again].copy(), *self._nearest(ranked2, lab_of))
        k2, p2 = self.model.decide(x2[again], crops2)
        # Only a piece is taken from the second asking: how this frame shows the pieces is evidence of a piece,
        # and none that a place is empty (dev seed 19521: bone and Cramé pieces on a plain board, unsure at
        # first, then read empty at 0.99 against colours their fellows showed plainer than they).
        took = (k2 >= place_model.FIRST) & (k2 <= place_model.SECOND) & (p2 >= place_model.SURE)
        kind, p, ranked = kind.copy(), p.copy(), list(ranked)
        for i, k, q, r in zip(again[took].tolist(), k2[took].tolist(), p2[took].tolist(),
                              [r for r, t in zip(ranked2, took.tolist(), strict=True) if t], strict=True):
            kind[i], p[i], ranked[i] = k, q, r
        return kind, p, ranked

    def place_features(self, m: PlaceMeasures, piece_labs: np.ndarray | None = None
                       ) -> tuple[np.ndarray, list[list[str]]]:
        """The model's features for every slot, and each slot's pieces nearest first (what FIRST and SECOND
        name); ``piece_labs``: the pieces' colours to measure against (default: as the calibration learnt
        them)."""
        n = len(self.slot_ids)
        labels, may_hold, areas = self._labels, self._may_hold, self._areas
        area = np.maximum(m.area_in + m.area_body + m.area_ring, 1.0)
        piece_labs = self._piece_labs if piece_labs is None else piece_labs
        cd = colour_distances(m.lab, piece_labs)  # (slots, pieces)
        ad = np.log(area[:, None] / areas[None, :])
        combined = np.where(may_hold, np.hypot(cd, AREA_DE * ad), np.inf)
        order = np.argsort(combined, axis=1, kind="stable")[:, :2]
        held = may_hold.sum(axis=1)
        rows = np.arange(n)
        cand = []
        for k in range(2):
            j = order[:, k]
            there = held > k
            cand.append(np.where(there[:, None],
                                 np.stack([cd[rows, j], ad[rows, j], m.lab[:, 0] - piece_labs[j, 0]], axis=1),
                                 np.array([place_model.FAR, 3.0, place_model.FAR])))
        ranked = [[labels[j] for j in o[:min(2, h)]] for o, h in zip(order.tolist(), held.tolist(), strict=True)]
        smallest = np.where(may_hold, areas[None, :], np.inf).min(axis=1, initial=np.inf)
        smallest = np.where(np.isfinite(smallest), smallest, 1.0)
        showing_first = np.where(held > 0, self._showing[rows, order[:, 0]], place_model.FAR)
        showing_least = np.where(may_hold, self._showing, np.inf).min(axis=1, initial=np.inf)
        showing_least = np.where(np.isfinite(showing_least), showing_least, place_model.FAR)
        x = place_model.feature_matrix(m, cand[0], cand[1], held, smallest, showing_first, showing_least)
        return x, ranked

    # -- trays -----------------------------------------------------------------------------------------------

    def counts(self, frame, location, canonical: np.ndarray, cover: dict[str, float], diff: Difference | None = None
               ) -> dict[str, CountReading]:
        """The trays, counted by ``vision.count`` in the light the base reader measures around them (the
        counter's colours are learnt that way); a tray the hand covers is not counted. With ``diff``, only
        what differs from the enrolled board (and a millimetre around it) may be a cube: the tray's own print
        shows as the board's nominal colour to the counter."""
        g = self.geometry
        if not g.count_ids:
            return {}
        if diff is None:
            diff = self.compare.compare(canonical)
        crops = self.base._count_crops(frame, location)
        # (the camera's foot measures the cubes' sides, which only the test of a cube on another asks)
        foot = self.base._foot(frame, location) if self.base.spread_stacked else None
        out = {}
        for i, zid in enumerate(g.count_ids):
            x0, y0, x1, y1 = self.layout.zone(zid).bounds
            if zid in self.estimated:
                out[zid] = CountReading(None, 0.0, reason=self._estimated_reason)
                continue
            if cover.get(zid, 0.0) * (x1 - x0) * (y1 - y0) >= 64.0:  # a quarter of a cube's top under the hand
                out[zid] = CountReading(None, 0.0, reason="a hand over the tray")
                continue
            out[zid] = self.base._count(i, self.tray_seen(crops[i], i, canonical, diff), foot)
        out = agreed(out)  # (each tray's count against its area, in the calibration's tops or the frame's)
        out = {zid: self._explained(g.count_ids.index(zid), c, diff) for zid, c in out.items()}
        return self.base._unstacked(out, enrolled=True) if self.base.spread_stacked else out

    def _explained(self, i: int, c: CountReading, diff: Difference) -> CountReading:
        """``c``, or no count where much of tray ``i`` is unlike the enrolled board beyond what the cubes counted
        cover (each as much as one showed on the calibration frame, sides included): cubes the counter did not
        take for cubes (a colour learnt off, a blurred pile), which a count would leave out with confidence.
        The squares and their area agree on what the counter sees; this holds the count against what is there."""
        if c.count is None:
            return c
        r0, r1, c0, c1 = self._tray_rects[i]
        unlike = np.count_nonzero(diff.solid[r0:r1, c0:c1]) * self._mm2_per_px
        one = min(self.pieces[label].area_mm2 for label in self._tray_labels[i])
        if unlike - c.count * one <= max(UNEXPLAINED, UNEXPLAINED_SHARE * c.count) * one:
            return c
        return CountReading(None, 0.0, c.by_label, c.pieces_area,
                            reason="part of the tray is unlike the empty board but not its cubes: count it by hand")

    def _gain_at(self, diff: Difference, px: np.ndarray) -> np.ndarray:
        """``_light`` at canonical pixels ``px`` (flat indices): (n, 3) float32. (The places' lit tops are relit
        by it as the trays are: by exp(fit) alone, a near-black board enrolled in dim light, its levels near 10,
        made them too bright and paler, and orange cubes read yellow: dev seed 19766, table 4.)"""
        return _plain_ratio(self._smooth_board.reshape(-1, 3).take(px, axis=0),
                            diff.log_gain.reshape(-1, 3).take(px, axis=0))

    def _light(self, diff: Difference, rows: slice, cols: slice) -> np.ndarray:
        """The light over part of the board against the enrolment's, per pixel and channel (frame / enrolled):
        the light was fitted on log(level + 4) (dark levels' noise held back), so the board's level it predicts
        is taken back to a plain ratio. exp(fit) alone is the ratio of levels + 4: on a dark board in dim light
        a channel the board has little of darkens less by it, and a grey cube divided by it turned olive."""
        return _plain_ratio(self._smooth_board[rows, cols], diff.log_gain[rows, cols])

    def tray_seen(self, crop: np.ndarray, i: int, canonical: np.ndarray, diff: Difference) -> np.ndarray:
        """Count zone ``i``'s crop as the counter is shown it: what differs from the enrolled board in white
        light (the light the frame shows over the tray divided out, the enrolment's light made white by the
        markers' paper, as the calibration frame's pieces were measured), the rest the board's nominal colour.
        The board's own colour does not come in: a dark board no longer brightens a tray's cubes to white."""
        light = self._tray_light(i, canonical, diff)
        norm = cv2.transform(crop, np.diag((self._tray_white[i] / light).astype(np.float32)))
        cv2.copyTo(self._tray_shaded(diff, i), cv2.compare(self._tray_differs(diff, i), 0, cv2.CMP_EQ), norm)
        return norm

    def _tray_shaded(self, diff: Difference, i: int) -> np.ndarray:
        """Count zone ``i``'s crop all of the board's nominal colour, each pixel in the light that reaches it
        (``diff.brightness``): a cube's shadow on the board stays a shadow. (A shadow does not differ from the
        board. Shown at full light, a cube a layer up cast none, and the test of a cube on another, which weighs
        shadows, told stacked trays from single layers on enrolled boards less well: learnt on all three kinds of
        board, held out, area under the ROC 0.923 without the shadows, 0.958 with them.)"""
        rows, cols = self._tray_px[i]
        shade = cv2.exp(diff.brightness.take(rows, axis=0).take(cols, axis=1))
        return cv2.multiply(self._tray_board[i], cv2.merge([shade, shade, shade]), dtype=cv2.CV_8U)

    def white_scale_at(self, centre_mm: tuple[float, float]) -> np.ndarray:
        """(3,): what makes the enrolment's light white at a point of the board (``white_scale`` where the light
        had one colour)."""
        if self._enrolled_tint is None:
            return self.white_scale
        at = field_basis(np.array([centre_mm], float), self.layout.size)[0]
        return (self.white_scale / np.exp(at @ self._enrolled_tint)).astype(np.float32)

    def around(self, bounds: tuple[float, float, float, float]) -> tuple[int, int, int, int]:
        """Rows and columns (r0, r1, c0, c1) of the canonical image over a zone (its ``bounds``, mm) and the board
        ``TRAY_RING_MM`` around it: where ``light_around`` measures the light over it."""
        s, m = self.geometry.px_per_mm, TRAY_RING_MM
        h, w = self.compare.image.shape[:2]
        x0, y0, x1, y1 = bounds
        return (max(0, int((y0 - m) * s)), min(h, int((y1 + m) * s) + 1),
                max(0, int((x0 - m) * s)), min(w, int((x1 + m) * s) + 1))

    def _tray_light(self, i: int, canonical: np.ndarray, diff: Difference) -> np.ndarray:
        """(3,): the light over tray ``i`` against the enrolment's (``light_around``); where too little board
        shows around it, the light surface's."""
        light = self.light_around(canonical, diff, *self._tray_around[i], self._tray_free_px[i])
        if light is not None:
            return light
        r0, r1, c0, c1 = self._tray_rects[i]
        rows, cols = slice(r0, r1), slice(c0, c1)
        return (np.array(cv2.mean(self._light(diff, rows, cols) * self._smooth_board[rows, cols])[:3])
                / np.array(cv2.mean(self._smooth_board[rows, cols])[:3]))

    def light_around(self, canonical: np.ndarray, diff: Difference, r0: int, r1: int, c0: int, c1: int,
                     least_px: float) -> np.ndarray | None:
        """(3,): the light over rows ``r0:r1``, columns ``c0:c1`` of the canonical image against the enrolment's
        (frame / enrolled, per channel), measured on the board itself where it shows (not a piece, not in a
        shadow); None where fewer than ``least_px`` pixels of it do. The light surface is fitted on every cell of
        the board in log(level + 4): a tray printed dark in one channel (dark green: red and blue a few levels)
        lies far off the levels it is fitted on, and its cubes divided by it took that channel's colour."""
        free = ~diff.differs[r0:r1, c0:c1] & (diff.brightness[r0:r1, c0:c1] > np.float32(np.log(LIT)))
        if np.count_nonzero(free) < least_px:
            return None
        mask = free.view(np.uint8)
        seen = np.array(cv2.mean(canonical[r0:r1, c0:c1], mask)[:3])
        board = np.array(cv2.mean(self.compare.image[r0:r1, c0:c1], mask)[:3])
        return (seen + 0.5) / (board + 0.5)

    def _tray_differs(self, diff: Difference, i: int) -> np.ndarray:
        """Count zone ``i``'s crop pixels (``vision.geometry``'s count samples) that differ from the enrolled
        board, grown by a millimetre (a cube's edge is softer than its mask): uint8, 1 where they differ."""
        rows, cols = self._tray_px[i]
        near = diff.differs.take(rows, axis=0).take(cols, axis=1).view(np.uint8)
        return cv2.dilate(near, self._tray_grow)


def learnt_top(lab: np.ndarray, brightness: np.ndarray, expect: np.ndarray, clipped: np.ndarray) -> np.ndarray:
    """The lit top's colour (Lab) of the piece a calibration place holds, from ``lab`` (the relit colours of
    everything that differs from the board within the place's reach) and their ``brightness``. The piece is
    what lies in colour around the tenth nearest the colour it is declared (``expect``; lightness counting
    ``L_WEIGHT``): within twice that tenth's own spread of its median. Its lit top, as a read measures one, is
    its brighter half's median. A piece set down off its centre lies partly beyond its place, and its
    neighbour's spills into it: taken from near the centre alone, a black disc beside a bone cube was learnt
    pale (dev seed 19735's t008, L 78 for 12) and a yellow cube set beside its place the board's lavender
    (t021). The declared colour only chooses which part is the piece; the colour learnt is the piece's own.
    NaN where most of that top is at the sensor's ceiling in some channel (``clipped``): its colour is not
    known."""
    piece = declared_piece(lab, expect)
    b = brightness[piece]
    top = b >= np.median(b)
    if 2 * np.count_nonzero(clipped[piece][top]) > np.count_nonzero(top):
        return np.full(3, np.nan)
    return np.median(lab[piece][top], axis=0)


def declared_piece(lab: np.ndarray, expect: np.ndarray) -> np.ndarray:
    """Which of ``lab`` (the relit colours of what differs from the board within a calibration place's reach) are
    the piece the place is declared to hold: what lies in colour around the tenth nearest the colour it is
    declared (``expect``; lightness counting ``L_WEIGHT``), within twice that tenth's own spread of its median
    (``learnt_top``)."""
    weight = np.array([L_WEIGHT, 1.0, 1.0])
    x = np.asarray(lab, np.float64) * weight
    d = np.linalg.norm(x - np.asarray(expect, np.float64) * weight, axis=1)
    seed = x[d <= np.percentile(d, 10)]
    centre = np.median(seed, axis=0)
    spread = np.linalg.norm(seed - centre, axis=1)
    return np.linalg.norm(x - centre, axis=1) <= 2 * max(float(np.percentile(spread, 90)), 1.0)


def colour_distances(labs: np.ndarray, piece_labs: np.ndarray) -> np.ndarray:
    """(n, p) ΔE from measured lit tops (n, 3) to pieces' (p, 3), with lightness weighted ``L_WEIGHT`` and each
    piece's chroma free to fade or grow within ``CHROMA_SCALE`` (dim light and a camera's noise reduction take
    saturation away; the hue stays)."""
    labs = np.asarray(labs, np.float64).reshape(-1, 3)
    piece_labs = np.asarray(piece_labs, np.float64).reshape(-1, 3)
    ab, ab0 = labs[:, 1:], piece_labs[:, 1:]
    norm2 = (ab0 ** 2).sum(axis=1)
    grey = norm2 <= 1e-6
    scale = np.clip(ab @ ab0.T / np.where(grey, 1.0, norm2), *CHROMA_SCALE)
    scale[:, grey] = 1.0
    d_ab = np.linalg.norm(ab[:, None, :] - scale[:, :, None] * ab0[None, :, :], axis=2)
    return np.hypot(L_WEIGHT * (labs[:, :1] - piece_labs[None, :, 0]), d_ab)



def _owners(layout: Layout, g) -> tuple[np.ndarray, np.ndarray]:
    """Which slot owns each canonical pixel: the nearest place by distance in half-widths, up to ``REACH``
    (count zones own their pixels too, so a tray's pile is no slot's piece); and that distance."""
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
    return owner, best


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


def _plain_ratio(board: np.ndarray, log_gain: np.ndarray) -> np.ndarray:
    """The light's plain ratio (frame / enrolled level) over board levels ``board`` (float32, at least 1) from the
    fitted ``log_gain`` (the ratio of levels + 4)."""
    level = (board + np.float32(4.0)) * np.exp(log_gain) - np.float32(4.0)
    return np.maximum(level, np.float32(0.5)) / board


def declared_lab(layout: Layout, label: str) -> np.ndarray:
    """The colour the layout declares for ``label`` (its palette, white light), as Lab in the light colours are
    measured in (the markers' paper at ``PAPER_LEVEL``)."""
    return rgb_to_lab(np.array(layout.colour(label), np.float64) * PAPER_LEVEL / 255.0)


def _piece_models(layout: Layout, calibration: Calibration) -> dict[str, PieceModel]:
    """The pieces as learnt against the enrolled board; a label the calibration frame did not show is taken
    from the layout's palette (colours are measured in white light, as a palette gives them)."""
    out = dict(calibration.pieces)
    shapes = piece_shapes(layout)
    for label in layout.palette:
        if label in out or label == "empty":
            continue
        lab = declared_lab(layout, label)
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
