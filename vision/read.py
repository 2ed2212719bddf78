"""Frame -> reading: warp once to the canonical board, normalise the light, read every zone.

>>> from calibration.layout import load_layout
>>> reader = Reader(load_layout("chaudron"))          # doctest: +SKIP
>>> reading = reader.read(frame)                      # doctest: +SKIP
>>> reading.zones["r0c0"].label, reading.to_dict()    # doctest: +SKIP

Slots: ``vision.slots`` reads each from its cells' colours.

Light: the light field fitted on the board's own background (``vision.light_field``) scales each zone's
colours so that the background there shows its nominal colour. Colour prototypes live in that normalised
space, so a calibration made under one light holds under another.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import cv2
import numpy as np

from calibration.layout import Layout
from calibration.store import Calibration, LensModel
from vision import classify, robust, stacked, stacked_crops, stacked_model
from vision.colour import ColourModel, bgr_to_lab
from vision.count import agreed, count_zone
from vision.geometry import COUNT_PX_PER_MM, BoardGeometry, RectMeans, board_geometry, grid_cell_means, to_frame
from vision.hands import HandFinder
from vision.light_field import LightField, board_tint, field_basis, fit_light_field, tint_of
from vision.locate import Location, Locator
from vision.reading import CountReading, Reading
from vision.shadow import HandShadow, fit_hand_shadow, may_reach
from vision.slots import SlotReader

PIECE_SHADES = (1.15, 1.0, 0.88, 0.76, 0.64, 0.52)  # the first vision.slots.LIT_SHADES: a lit top face
EMPTY_SHADES = (1.15, 1.0, 0.9, 0.8, 0.62, 0.45)  # what the light field leaves of a glare; shadows
EXPLAIN_DE = 12.0  # a grid cell this close to one of its zone's pieces is that piece, not a hand
LOCAL_LIGHT_MM = 40.0  # the board around a slot that tells the light reaching it
IN_SHADOW = 0.85  # the board around a zone darker than this: a shadow over it
SHADOWED_RING = 0.15  # this share of the free board around a tray in a shadow: a shadow across it
PIECE_SHADOW_MM = 16.0  # a piece's own shadow may reach this far from it (a cube's height, light at 45°)
SHADE_CROSSES = 0.9  # the hand's fitted shadow leaves less light than this somewhere on a tray: relight it
RELIT_OFF, RELIT_OFF_SHARE = 0.1, 0.2  # relit, this share of the board around a tray is this far off 1: no fit
SHADOW_SLACK_MM = 3.0  # how far the fitted shadow's edge may be off (the hand mask's cells are 4 mm)
TRAY_HIDDEN_MM2 = 64.0  # a quarter of a cube's top: the hand mask over less of a tray cannot hide a cube
MIN_LIGHT_CELLS = 0.2  # (fewer board cells than this share of them around: nothing to tell the light by)
CHROMA_MIN = 0.06  # a grid cell this far off the board's chromaticity (log ratio) is not the board ...
CHROMA_SPAN = 4.0  # ... nor one this many times the free board's median distance (the frame's noise)
SKIN_PATCH_MM = 12.0  # pale skin: a patch this wide redder than the board ...
SKIN_SPAN = 3.0  # ... by this many times the free board's spread of such patches
SKIN_SPREAD_MIN = 1.5  # (Lab a* units)
LIT_SKIN_MM = 20.0  # pale skin raised towards the lamp: a patch this wide of cells that pass for the board, ...
LIT_SKIN_REDDER = 2.0  # ... on average this much redder than the free board's such patches (Lab a*), ...
LIT_SKIN_LIGHT = 1.05  # ... each cell this much brighter than the board
TINT_NOISE = 0.03  # the board around a tray off its colour by less than this (log units): the light's own colour
WHITE_CLIPPED = 250  # a marker's white this bright in a channel may be clipped there (BGR levels)
MIN_PAPER_SHARE = 0.25  # a marker with fewer of its white paper's pixels unclipped tells not the light's colour
LIGHT_TINT_MIN = 0.08  # log units across the board: one light's markers (glare, JPEG) at most 0.044 on the dev
# frames (seeds 6101-6102, 96 frames), a warm lamp on one side and daylight on the other 0.13 to 0.37
MIN_TINT_MARKERS = 4  # markers, at least, to tell how the light's colour changes over the board (a plane: 3)
UNTOLD = "untold"  # ``_marker_light``'s tint when too few markers' paper is unclipped to tell it
TINT_MAX = 0.35  # (log units: a tray's light is not further off the board's than a warm lamp's from daylight)


_LOG = np.log(np.arange(256, dtype=np.float32) + 0.5)  # log of a uint8 level, looked up


class Reader:
    """Reads frames of one layout; holds the only state: the locator (cached homography), the colour
    model, and what is precomputed from the layout (geometry, lookup tables)."""

    def __init__(self, layout: Layout, calibration: Calibration | None = None, px_per_mm: float | None = None,
                 recheck_every: int = 30, cards=None, spread_stacked: bool = False):
        """``spread_stacked``: answer a tray where a cube seems to lie on another with no count and "spread the
        pile" (``vision.stacked``). The referee's photo asks it: a tray in doubt is counted by hand there. The
        live loop does not: the test still takes some single-layer piles for stacked, and a tray left uncounted
        there stops the game from committing."""
        from vision.cards.zones import CardZones  # ``cards``: a CardLibrary or {set name: CardSet}

        self.layout = layout
        self.calibration = calibration  # (kept: a board re-read with new cards keeps its own calibration)
        self.spread_stacked = spread_stacked
        board = None if calibration is None else calibration.board
        if board is not None:  # read against the enrolled board, at its resolution (vision.board_read)
            px_per_mm = board.px_per_mm
        self.geometry: BoardGeometry = board_geometry(layout, px_per_mm)
        model = ColourModel.from_palette(layout)
        lens = corners = None
        if calibration is not None:
            model = model.with_calibration(_counted_colours(calibration), calibration.top_area_mm2, "calibration")
            lens, corners = calibration.camera, calibration.corners
        self.model = model
        self.locator = Locator(layout, lens, corners, recheck_every,
                               None if calibration is None else calibration.fallback_lens)
        self.labels = ["empty", *sorted(model.prototypes_bgr)]
        self.prototypes = self._prototype_table()
        g = self.geometry
        sets: dict[tuple[str, ...], int] = {}
        zone_set = []
        for zid in (*g.slot_ids, *g.count_ids):
            labels = tuple(sorted(self.layout.zone(zid).labels))
            zone_set.append(sets.setdefault(labels, len(sets)))
        # Per set of labels zones allow: which of the reader's labels it allows (the board always).
        allowed = [np.array([label in labels or label == "empty" for label in self.labels]) for labels in sets]
        no_table = np.zeros((0, classify.LEVELS ** 3), np.uint8)
        # (the colours' distances from the labels found once, and each set's nearest labels once for its three
        # tables: the reader's costliest set-up)
        distances = classify.prototype_distances(self.prototypes) if sets else None
        tables = [classify.label_tables(self.prototypes, a, (classify.FOREIGN_DE, EXPLAIN_DE, None), distances)
                  for a in allowed]
        self.tables = np.stack([t[0] for t in tables]) if sets else no_table
        self.slots = SlotReader(layout, g, self.labels, self.prototypes, self.tables, zone_set[:len(g.slot_ids)])
        self._slot_means = RectMeans(g.slot_rects, g.size_px)
        self._count_set = zone_set[len(g.slot_ids):]
        self._count_labels = [layout.zone(zid).labels for zid in g.count_ids]  # (Layout.zone is a search)
        # Trays of a piece whose top the calibration could not learn: no count, and why (``vision.learn``)
        unlearnt = {} if calibration is None else calibration.tops_unlearnt
        self._unlearnt = [next((unlearnt[lb] for lb in labels if lb in unlearnt), None)
                          for labels in self._count_labels]
        # Counting takes every colour's nearest label or the board (vision/count.py says why).
        self.count_tables = {k: tables[k][2] for k in set(self._count_set)}
        # A grid cell inside a zone whose colour is one of that zone's pieces is "explained": a hand found
        # nearby does not grow over it (the piece stays readable).
        self._explain = np.stack([t[1] for t in tables]) if sets else no_table
        rows, cols = g.grid_shape
        self._cell_set = np.full((rows, cols), -1, np.int64)
        for zid, k in zip((*g.slot_ids, *g.count_ids), zone_set, strict=True):
            r0, c0, r1, c1 = g.zone_grid_rects[zid]
            self._cell_set[r0:r1, c0:c1] = k
        self._cell_set = self._cell_set.ravel()
        self._zone_cells = np.flatnonzero(self._cell_set >= 0)
        self._unmarked = ~g.grid_marker.ravel()
        self._zone_cell_table = self._cell_set[self._zone_cells] * classify.LEVELS ** 3
        self.boards = classify.board_tables(model.background_bgr)
        bg_log = np.log(model.background_bgr * 255.0 + 0.5)
        self._board_chroma = (bg_log - bg_log.mean()).astype(np.float32)
        self._redder_table = classify.board_redder(model.background_bgr)
        self._skin_patch = max(3, round(SKIN_PATCH_MM / g.grid_mm) | 1)  # grid cells
        self._lit_skin_patch = max(3, round(LIT_SKIN_MM / g.grid_mm) | 1)
        self._log_background = np.log(np.clip(model.background_bgr, 1e-3, None))
        background = g.grid_background.ravel()
        step = max(1, int(background.sum()) // 300)  # a few hundred samples fit the light well enough
        self._field_cells = np.flatnonzero(background)[::step]
        self._field_basis = field_basis(g.grid_centres_mm[self._field_cells], layout.size)
        self._grid_basis = field_basis(g.grid_centres_mm, layout.size)
        self._slot_basis = field_basis(g.slot_centres_mm, layout.size)
        rows, cols = g.grid_shape
        centre_rc = np.clip((g.slot_centres_mm[:, ::-1] / g.grid_mm).astype(np.int64), 0, [rows - 1, cols - 1])
        self._slot_cell = centre_rc[:, 0] * cols + centre_rc[:, 1] if len(g.slot_ids) else np.zeros(0, np.int64)
        self._count_basis = field_basis(g.count_centres_mm, layout.size)
        self._zone_basis = np.concatenate([self._slot_basis, self._count_basis])
        self._around_slots = _SquareSums(g.grid_shape, self._slot_cell,
                                         max(3, math.ceil(LOCAL_LIGHT_MM / g.grid_mm) | 1))
        self._zone_rects = np.array([g.zone_grid_rects[z] for z in (*g.slot_ids, *g.count_ids)],
                                    np.int64).reshape(-1, 4)
        s = g.px_per_mm
        self._marker_px = {}
        for m in layout.markers:  # the sticker: pattern and its one module of white quiet zone
            (left, top), (right, bottom) = m.corners()[0], m.corners()[2]
            pad = m.size / 6 - 0.8
            x0, y0 = max(0, round((left - pad) * s)), max(0, round((top - pad) * s))
            x1, y1 = min(g.size_px[0], round((right + pad) * s)), min(g.size_px[1], round((bottom + pad) * s))
            if x1 > x0 and y1 > y0:
                self._marker_px[m.id] = (x0, y0, x1, y1)
        self._marker_basis = {m.id: field_basis(np.array([m.center], float), layout.size)[0] for m in layout.markers}
        self._tray_grid_rects = np.array([g.zone_grid_rects[z] for z in g.count_ids], np.int64).reshape(-1, 4)
        r0, c0, r1, c1 = self._tray_grid_rects.T
        self._tray_cells_mm2 = (r1 - r0) * (c1 - c0) * g.grid_mm ** 2
        self._tray_cells = [(slice(a, c), slice(b, d)) for a, b, c, d in self._tray_grid_rects.tolist()]
        self._tray_rings = []  # per count zone: the free board cells 8 to 24 mm around it
        for zid in g.count_ids:
            x0, y0, x1, y1 = layout.zone(zid).bounds
            cx, cy = g.grid_centres_mm[:, 0], g.grid_centres_mm[:, 1]
            dx = np.maximum(np.maximum(x0 - cx, cx - x1), 0)
            dy = np.maximum(np.maximum(y0 - cy, cy - y1), 0)
            dist = np.hypot(dx, dy)
            self._tray_rings.append(np.flatnonzero((dist >= 8) & (dist <= 24) & g.grid_background.ravel()))
        self.hand_finder = HandFinder(g, layout)
        # card zones: recognised against enrolled cards (vision/cards); a mat enrolled empty tells what lies on a
        # place that is no card (a layout of pieces and cards would take its card places' from the board's reader)
        mat = None
        if board is not None and not (g.slot_ids or g.count_ids) and any(z.kind == "card" for z in layout.zones):
            from vision.board import BoardComparison

            mat = BoardComparison(layout, board)
        self.cards = CardZones(layout, cards, mat)
        self._maps: tuple[bytes, Any] | None = None
        self._count_maps: tuple[bytes, list] | None = None
        self.board_reader = None
        if board is not None and (g.slot_ids or g.count_ids):
            from vision.board_read import BoardReader

            self.board_reader = BoardReader(layout, calibration, board, self)

    def unenrolled(self) -> str | None:
        """One line for the user when this board's pieces are read without its empty board enrolled, else None.
        Without it each place is judged against the layout's one board colour, which a printed board, or one
        of another shade or under a lamp's tint, is not: far more places are read wrong (docs/vision.md says
        how many). A card mat is not named: its cards are matched to the enrolled cards either way."""
        g = self.geometry
        if self.board_reader is not None or not (g.slot_ids or g.count_ids):
            return None
        name = self.layout.name
        return (f"{name}: no empty board enrolled, so its places are judged against the layout's board colour and "
                f"read less surely; enrol it once (alchemy-table calibrate board EMPTY.png --layout {name} --out "
                f"CAL.json), then calibrate colours again (on a plain board, calibrate colours alone learns it)")

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

    def warp(self, frame: np.ndarray, H: np.ndarray, lens: LensModel | None = None) -> np.ndarray:
        """The canonical board image: one warp of the frame (a remap when the lens is known: calibrated,
        or estimated from the markers)."""
        g = self.geometry
        lens = lens or self.locator.lens
        key = H.tobytes() + (b"" if lens is None else lens.distortion.tobytes())
        if self._maps is None or self._maps[0] != key:
            M = H @ np.linalg.inv(g.canonical_from_mm)
            self._maps = (key, M if lens is None else self._canonical_maps(M, lens))
        if lens is None:
            return cv2.warpPerspective(frame, self._maps[1], g.size_px, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                       borderMode=cv2.BORDER_REPLICATE)
        m1, m2 = self._maps[1]
        return cv2.remap(frame, m1, m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)

    def _canonical_maps(self, M: np.ndarray, lens: LensModel) -> tuple[np.ndarray, np.ndarray]:
        """The remap maps of the canonical image from the frame (board px -> frame px: ``M``, then the lens)."""
        # The mapping is smooth: compute it at the centre of every block of step x step pixels and
        # interpolate (cv2.resize maps block centres onto those pixels exactly).
        w, h = self.geometry.size_px
        step = 4
        bx, by = -(-w // step), -(-h // step)
        xs, ys = np.meshgrid(np.arange(bx) * step + (step - 1) / 2, np.arange(by) * step + (step - 1) / 2)
        pts = cv2.perspectiveTransform(np.stack([xs, ys], -1).reshape(-1, 1, 2), M).reshape(-1, 2)
        pts = lens.distort_points(pts).astype(np.float32).reshape(by, bx, 2)
        full = cv2.resize(pts, (bx * step, by * step), interpolation=cv2.INTER_LINEAR)[:h, :w]
        return cv2.convertMaps(np.ascontiguousarray(full[..., 0]), np.ascontiguousarray(full[..., 1]), cv2.CV_16SC2)

    def light_field(self, grid_means: np.ndarray, white: np.ndarray | None = None,
                    tint: np.ndarray | str | None = None) -> LightField | None:
        """The light over the board, fitted on free background cells (``fit_light_field`` leaves out a hand,
        a sleeve, a stray object and shadows). ``white``: the markers' white paper in this frame (BGR),
        which gives the light's colour; ``tint``: how that colour changes over the board (``light_tint``), or
        ``UNTOLD`` (the markers' paper clipped: the free board's cells tell it)."""
        cells = grid_means.take(self._field_cells, axis=0)
        if len(cells) == 0:
            return None
        board_chroma = None
        if white is not None:
            expected = self._log_background + np.log(np.maximum(white, 1e-3))
            board_chroma = expected - expected.sum() / 3
        if tint is UNTOLD:
            # The markers' paper clipped (a bright table): the free board itself tells how the light's colour
            # changes over it. Left at one colour, a warm lamp's half of the board looked like a hand's.
            tint = board_tint(self._field_basis, cells, TINT_NOISE, LIGHT_TINT_MIN)
        return fit_light_field(self._field_basis, cells, board_chroma, tint)

    def marker_white(self, canonical: np.ndarray, seen: tuple[int, ...] = ()) -> np.ndarray | None:
        """The colour of the markers' white paper in the canonical image (BGR, 0..255): the brighter
        part of each marker sticker seen, the median over the markers (a hand over one is outvoted)."""
        return self._marker_light(canonical, seen)[0]

    def _marker_light(self, canonical: np.ndarray, seen: tuple[int, ...] = ()
                      ) -> tuple[np.ndarray | None, np.ndarray | str | None]:
        """(``marker_white``, ``light_tint``) of the canonical image; the tint ``UNTOLD`` where too few
        markers' paper is unclipped to tell it."""
        whites, tints, at = [], [], []
        for marker_id, (x0, y0, x1, y1) in self._marker_px.items():
            if seen and marker_id not in seen:
                continue
            crop = canonical[y0:y1, x0:x1]
            if crop.shape[0] * crop.shape[1] < 16:
                continue
            grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
            k = int(0.7 * (grey.size - 1))
            part = grey.ravel().copy()  # (np.partition's copy and partition, without its wrapper)
            part.partition(k)
            cut = part[k]
            paper = grey >= cut
            whites.append(cv2.mean(crop, paper.view(np.uint8))[:3])
            # (for the light's colour, the paper's pixels clipped in no channel)
            unclipped = paper & (robust.channel_max(crop) < WHITE_CLIPPED)
            if np.count_nonzero(unclipped) >= MIN_PAPER_SHARE * np.count_nonzero(paper):
                tints.append(cv2.mean(crop, unclipped.view(np.uint8))[:3])
                at.append(self._marker_basis[marker_id])
        if not whites:
            return None, None
        ordered = np.sort(np.array(whites), axis=0)  # their median (np.median's values, without its overhead)
        k = len(ordered) // 2
        # Too few markers' paper unclipped tells nothing of the light's colour: UNTOLD, not one light (None).
        tint = light_tint(tints, at) if len(tints) >= MIN_TINT_MARKERS else UNTOLD
        return (ordered[k] if len(ordered) % 2 else (ordered[k - 1] + ordered[k]) / 2), tint

    def read_at(self, frame: np.ndarray, location: Location, keep_canonical: bool = False) -> Reading:
        if self.board_reader is not None:
            return self.board_reader.read_at(frame, location, keep_canonical)
        g = self.geometry
        if not g.slot_ids and not g.count_ids:
            # Only card places (a card mat): each is cut from the frame on its own and knows a fingertip
            # over its card; the board's light and the hand mask would feed nothing.
            canonical = self.warp(frame, location.homography, location.lens) if keep_canonical else None
            zones = self.cards.read(frame, location.homography, location.lens,
                                    lambda: self.warp(frame, location.homography, location.lens)) if self.cards else {}
            return Reading(self.layout.name, True, location.homography, zones, {}, location.source, canonical,
                           np.zeros(g.grid_shape, bool), location.lens)
        canonical = self.warp(frame, location.homography, location.lens)
        # The trays resampled now, while the frame is still in the cache (the last look at it).
        crops = self._count_crops(frame, location) if g.count_ids else []
        integral = cv2.integral(canonical)
        slot_means = self._slot_means.float32(integral)
        grid_means = grid_cell_means(integral, g.grid_px, g.grid_shape)
        ref = self.model.background_bgr * 255.0
        field = self.light_field(grid_means, *self._marker_light(canonical, location.markers))
        if field is None:  # no free background at all: grey-world over the whole board instead
            gain = ref / np.maximum(grid_means.mean(axis=0), 1.0)
            gain_slot, gain_count = (np.broadcast_to(gain, (len(b), 3)) for b in (self._slot_basis, self._count_basis))
            grid_norm = classify.to_uint8(grid_means * gain / 255.0)
        else:
            gains = field.gain(self._zone_basis, ref)  # (slots and count zones in one call: the same values)
            gain_slot, gain_count = gains[:len(g.slot_ids)], gains[len(g.slot_ids):]
            # The grid's colours times their gains over 255, channel by channel (as the gains come; a third
            # less time than along the short axis), then interleaved again.
            norm = field.gain_rows(self._grid_basis, ref)
            norm *= grid_means.T
            norm /= 255.0
            grid_norm = cv2.merge(tuple(classify.to_uint8(norm, in_place=True))).reshape(-1, 3)
        grid_idx = classify.index(grid_norm)
        unseen = [m.id for m in self.layout.markers if m.id not in location.markers] if location.markers else []
        grid01 = grid_norm.astype(np.float32)
        grid01 /= 255.0
        light = classify.brightness(grid01, self.model.background_bgr)
        cells = self._not_board(grid_norm, grid_idx, light, field)
        hands = self.hand_finder.find(cells, grid_norm, self.model.background_bgr, unseen,
                                      lambda: self._piece_de(grid_norm, grid_idx))
        board = ~cells & ~hands.ravel() & self._unmarked  # the board's own cells, seen
        cover = self._zone_cover(hands)
        zones = {}
        if g.slot_ids:
            local = self._local_light(light, board)
            zones = self.slots.read_in_their_light(slot_means, gain_slot, cover[:len(g.slot_ids)], local)
        counts = {}
        shadow = None  # the hand's shadow, fitted if it can reach a tray (it costs a few milliseconds)
        beyond = functools.cache(lambda: self._beyond_pieces(board, hands))  # (once a frame, if ever asked)
        if g.count_ids and may_reach(hands, self._tray_grid_rects, g.grid_mm):
            shadow = fit_hand_shadow(hands, light, board, g.grid_mm)
        # (the camera's foot measures the cubes' sides, which only the test of a cube on another asks)
        foot = self._foot(frame, location) if g.count_ids and self.spread_stacked else None
        if g.count_ids:
            gain_count = gain_count * self._tray_tints(grid_norm, board)
        for i, zid in enumerate(g.count_ids):
            # A cube under a finger is a cube missed: no count, not a wrong one. (A piece is counted while half
            # its top shows: a few mask cells spilt from the hand beside the tray hide none.)
            if cover[len(g.slot_ids) + i] * self._tray_cells_mm2[i] >= TRAY_HIDDEN_MM2:
                counts[zid] = CountReading(None, 0.0, reason="a hand over the tray")
                continue
            norm = cv2.transform(crops[i], np.diag(gain_count[i].astype(np.float32)))
            crossed = shadow is not None and float(shadow.light[self._tray_cells[i]].min()) < SHADE_CROSSES
            if crossed or self._tray_shadowed(i, light, board, hands, beyond):
                # A hand's shadow across the tray: read it in the light the fitted shadow leaves there, if
                # that shadow accounts for the board's darkness around it; else wait for it to pass.
                found = [self._count(i, relit, foot) for relit in self._out_of_shadow(i, norm, shadow, light, board)]
                # A count that changes when the shadow moves a little has a side on the shadow's edge lit
                # as a top (or a top left dark): wait.
                same = bool(found) and all(f.count == found[0].count for f in found)
                counts[zid] = found[0] if same else CountReading(None, 0.0, reason="a shadow across the tray")
                continue
            counts[zid] = self._count(i, norm, foot)
        counts = agreed(counts)  # (each tray's area against the frame's unit: a table's light puts all off alike)
        if self.spread_stacked:
            counts = self._unstacked(counts)
        if self.cards:
            zones.update(self.cards.read(frame, location.homography, location.lens))
        return Reading(self.layout.name, True, location.homography, zones, counts, location.source,
                       canonical if keep_canonical else None, hands, location.lens)

    def count_maps(self, H: np.ndarray, lens: LensModel | None) -> list[tuple[np.ndarray, np.ndarray]]:
        """For every count zone (with its margins), the remap maps that sample it from the frame at
        COUNT_PX_PER_MM; cached with the homography."""
        key = H.tobytes() + (b"" if lens is None else lens.distortion.tobytes() + lens.matrix.tobytes())
        if self._count_maps is not None and self._count_maps[0] == key:
            return self._count_maps[1]
        maps = []
        for i in range(len(self.geometry.count_ids)):
            xs, ys = np.meshgrid(*self.geometry.count_samples_mm(i))
            pts = to_frame(np.stack([xs, ys], -1), H, lens).astype(np.float32)
            maps.append(cv2.convertMaps(np.ascontiguousarray(pts[..., 0]), np.ascontiguousarray(pts[..., 1]),
                                        cv2.CV_16SC2))
        self._count_maps = (key, maps)
        return maps

    def _count_crops(self, frame: np.ndarray, location: Location) -> list[np.ndarray]:
        lens = location.lens or self.locator.lens
        return [cv2.remap(frame, m1, m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
                for m1, m2 in self.count_maps(location.homography, lens)]

    def _piece_de(self, grid_norm: np.ndarray, grid_idx: np.ndarray) -> np.ndarray:
        """Per grid cell inside a zone and coloured like one of its pieces, the ΔE to that piece's
        colour; inf elsewhere (the hand mask weighs it against the hand's own colours)."""
        de = np.full(len(grid_idx), np.inf, np.float32)
        in_zone = self._zone_cells
        code = self._explain.reshape(-1).take(self._zone_cell_table + grid_idx[in_zone])
        piece = (code < classify.HIGHLIGHT) & (code >= 16)  # label 0 is the board
        cells, code = in_zone[piece], code[piece].astype(np.int64)
        if len(cells):  # (rows taken with np.take, summed per column: numpy is slow along a short axis)
            lab = bgr_to_lab(grid_norm.take(cells, axis=0).astype(np.float32) / 255.0)
            shades = self.prototypes.shape[1]
            proto = self.prototypes.reshape(-1, 3).take(code // 16 * shades + code % 16, axis=0)
            de[cells] = classify.row_norm(lab - proto)  # (np.linalg.norm's values)
        return de

    def _local_light(self, light: np.ndarray, board: np.ndarray) -> np.ndarray:
        """At each slot's centre cell, the light that reaches the board around it as a fraction of
        the light field's (which follows the lit board): the mean brightness of the board's own cells in a
        square ``LOCAL_LIGHT_MM`` wide around it (wide enough that a piece's own shadow is a small part of
        them); left at 1 unless plainly in a shadow. ``light``: each cell's brightness as a fraction of the
        board's; ``board``: the cells that show the board."""
        weight = board.astype(np.float32)
        n = self._around_slots.n
        num, den = self._around_slots(light * weight, weight)
        local = np.where(den >= MIN_LIGHT_CELLS * n * n, num / np.maximum(den, 1), 1.0)
        return np.where(local < IN_SHADOW, np.clip(local, classify.DARKEST_SHADOW, 1.0), 1.0)

    def _tray_shadowed(self, i: int, light: np.ndarray, board: np.ndarray, hands: np.ndarray,
                       beyond: Callable[[], np.ndarray]) -> bool:
        """A shadow lies across count zone ``i`` (an arm's, reaching over the board): the free board
        around it, beyond its own pieces' shadows, is partly much darker than the light field says. Its
        covered tops would look like no tops: the tray is counted only in the light a fitted shadow leaves.
        The ring (8 to 24 mm around the tray) is beyond most of them; when it is dark, only its cells
        ``PIECE_SHADOW_MM`` or more from any piece are asked (a pile along the tray's edge shades the ring
        beside it; an arm's shadow, wider than a tray, reaches the far cells too), if there are enough of
        them. ``beyond``: each grid cell's distance from the nearest piece, in cells."""
        seen = self._ring_seen(i, board)
        # The hand itself that near the tray counts as shadow: its shadow falls beside it, and the hand
        # mask may have taken in the shadow's darkest part.
        near = int(np.count_nonzero(hands.ravel().take(self._tray_rings[i])))

        def dark(cells: np.ndarray) -> bool | None:  # (None: too few cells to tell)
            if len(cells) + near < 8:
                return None
            return (np.count_nonzero(light.take(cells) < IN_SHADOW) + near) / (len(cells) + near) >= SHADOWED_RING

        if not dark(seen):
            return False
        far = dark(seen[beyond().take(seen) >= PIECE_SHADOW_MM / self.geometry.grid_mm])
        return far is None or far

    def _beyond_pieces(self, board: np.ndarray, hands: np.ndarray) -> np.ndarray:
        """Each grid cell's distance (in cells, flat) from the nearest piece: a cell not the board, the hand
        or a marker."""
        pieces = ~board & ~hands.ravel() & self._unmarked
        return cv2.distanceTransform((~pieces).reshape(hands.shape).view(np.uint8), cv2.DIST_L2, 3).ravel()

    def _ring_seen(self, i: int, board: np.ndarray) -> np.ndarray:
        """The cells of count zone ``i``'s ring of free board (8 to 24 mm around it) that show the board."""
        ring = self._tray_rings[i]
        return ring[board.take(ring)]

    def _tray_tints(self, grid_norm: np.ndarray, board: np.ndarray) -> np.ndarray:
        """Per count zone, the colour correction (per channel, brightness kept) that brings the free board
        around it, as normalised, to the board's colour: the light field has one colour over the board, and
        under mixed light (a warm lamp on one side, daylight on the other) a tray's colours are off by the
        light's colour there. Where the ring's board is within ``TINT_NOISE`` of its colour (JPEG's noise on
        the ring's median), or too little of it is seen, 1."""
        ref = self.model.background_bgr * 255.0
        out = np.ones((len(self._tray_rings), 3))
        for i, ring in enumerate(self._tray_rings):
            seen = ring[board.take(ring)]
            if len(seen) < 8:
                continue
            log_ratio = np.log(ref) - np.log(np.maximum(np.median(grid_norm.take(seen, axis=0), axis=0), 1.0))
            log_ratio -= log_ratio.mean()
            if np.abs(log_ratio).max() >= TINT_NOISE:
                out[i] = np.exp(np.clip(log_ratio, -TINT_MAX, TINT_MAX))
        return out

    def _foot(self, frame: np.ndarray, location: Location) -> np.ndarray:
        """The board point (mm) under the camera: where the frame's centre looks, its principal point (the
        sides of the cubes seen face it)."""
        h, w = frame.shape[:2]
        centre = np.array([[[w / 2, h / 2]]], np.float64)
        return cv2.perspectiveTransform(centre, np.linalg.inv(location.homography))[0, 0]

    def _unstacked(self, counts: dict[str, CountReading], enrolled: bool = False) -> dict[str, CountReading]:
        """The counts where a cube may lie on another taken back: the learned test over the signs
        (``vision.stacked_model``: a side two layers long, a lower cube's top showing, tops overlapping, cut or
        in a shadow, a long shadow...),
        measured against one layer's side and shadow over the frame's trays (``enrolled``: read against an enrolled
        board, with the test learnt there). The trays still counted keep how likely it is (``doubt``) and whether
        the referee should doubt them (``in_doubt``)."""
        frame = stacked.Frame.of([list(c.sides) for c in counts.values()], [c.shadows for c in counts.values()])
        model = stacked_model.shipped(enrolled)
        out = {}
        for zid, c in counts.items():
            if c.count is not None:
                doubt = stacked_model.doubt(c, frame, COUNT_PX_PER_MM, enrolled)
                c = replace(c, doubt=doubt, in_doubt=doubt >= model.unsure)
                if doubt >= model.threshold:
                    labels = list(c.by_label) or ["pieces"]
                    c = CountReading(None, 0.0, {}, c.pieces_area, reason=f"spread the {' and '.join(labels)} pile: "
                                     f"a cube seems to lie on another", sides=c.sides, doubt=doubt)
            out[zid] = c
        return out

    def _count(self, i: int, norm: np.ndarray, foot: np.ndarray | None = None) -> CountReading:
        """Count zone ``i`` read from its normalised crop (its cubes' places from crop pixels to board mm);
        ``foot``: the camera's foot on the board (mm), to tell a cube on another by its side. A tray of pieces
        whose top the calibration could not learn is not counted, but where it is empty (none of its colour at
        all: a count of 0 needs no size): squares of a wrong size count it wrong."""
        x0, y0 = self.geometry.count_rects_mm[i][:2]
        s = COUNT_PX_PER_MM
        at = None if foot is None else (foot - (x0, y0)) * s - 0.5
        found = count_zone(norm, self._count_labels[i], self.model, self.labels,
                           self.count_tables[self._count_set[i]], COUNT_PX_PER_MM, at, self.spread_stacked)
        if self._unlearnt[i] is not None and (found.count or found.pieces_area > 0):
            return CountReading(None, 0.0, reason=self._unlearnt[i])
        if at is not None and self.spread_stacked and stacked_model.shipped().convs:
            label = next(lb for lb in self._count_labels[i] if lb != "empty")
            found = replace(found, picture=stacked_crops.picture(norm, self.model.prototypes_bgr[label], at))
        if not found.cubes:
            return found
        return replace(found, cubes=tuple((x0 + (c + 0.5) / s, y0 + (r + 0.5) / s) for c, r in found.cubes))

    def _out_of_shadow(self, i: int, norm: np.ndarray, shadow: HandShadow | None, light: np.ndarray,
                       board: np.ndarray) -> list[np.ndarray]:
        """Count zone ``i``'s normalised crop relit by the hand's fitted ``shadow``: as fitted, then moved
        ``SHADOW_SLACK_MM`` each way along x and y (the mask it is fitted from is coarse). None of them when
        the shadow does not account for the dark board around the tray: its tops cannot be told from sides."""
        if shadow is None:
            return []
        seen = self._ring_seen(i, board)
        relit = light[seen] / shadow.light.ravel()[seen]
        if len(seen) < 8 or np.count_nonzero(relit < IN_SHADOW) >= SHADOWED_RING * len(seen):
            return []
        if np.count_nonzero(np.abs(relit - 1.0) > RELIT_OFF) >= RELIT_OFF_SHARE * len(seen):
            return []  # the shadow is there, but not where the fit puts it: the tray's light is not known
        xs, ys = self.geometry.count_samples_mm(i)
        out = []
        for dx, dy in ((0, 0), (-1, 0), (1, 0), (0, -1), (0, 1)):
            reach = shadow.at_mm(xs + dx * SHADOW_SLACK_MM, ys + dy * SHADOW_SLACK_MM, self.geometry.grid_mm)
            out.append(np.clip(norm / reach[..., None] + 0.5, 0, 255).astype(np.uint8))
        return out

    def _not_board(self, grid_norm: np.ndarray, grid_idx: np.ndarray, light: np.ndarray,
                   field: LightField | None) -> np.ndarray:
        """Grid cells that are not the board's background, against the frame's noise: unlike the board in
        Lab at the same brightness, or in chromaticity (colour ratios, which a shadow leaves as they are:
        a dark hand over a brown board is as dark as a shadow, but redder), or on a patch redder than the
        board (``_redder``: pale skin in dim light), or brighter than the board and on a patch redder than it
        (``_lit_skin``: pale skin raised towards the lamp)."""
        # (Never below the second level: JPEG's colour fringes along the printed lines are noise that the free
        # board's cells, which the level is measured on, do not show.)
        not_board = ~self.boards[max(1, self._noise_level(grid_norm, field))].take(grid_idx)
        # (per channel, looked up by OpenCV: numpy is slow along a short axis; split first, the uint8s)
        b, g, r = (cv2.LUT(c, _LOG).ravel() for c in cv2.split(grid_norm.reshape(-1, 1, 3)))
        mean = (b + g + r) / 3
        cb, cg, cr = self._board_chroma
        d = np.maximum(np.maximum(np.abs(b - mean - cb), np.abs(g - mean - cg)), np.abs(r - mean - cr))
        # (OpenCV's square root: the same correctly rounded values, in half numpy's time)
        tolerance = max(CHROMA_MIN, CHROMA_SPAN * robust.median(d[self._field_cells])) / cv2.sqrt(
            np.clip(light, 0.1, 1.0)).ravel()
        redder = self._redder_table.take(grid_idx)  # (Lab a* above the board's at the same brightness)
        # (the free board's cells' a*, which both pale-skin tests ask a cell to exceed: median and spread)
        board_redder = robust.centre_and_spread(redder[self._field_cells])
        not_board = not_board | (d > tolerance) | self._redder(redder, board_redder)
        return not_board | self._lit_skin(redder, board_redder[0], not_board, light.ravel())

    def _redder(self, redder: np.ndarray, board_redder: tuple[float, float]) -> np.ndarray:
        """Grid cells on a patch redder than the board: pale skin over a pale board in dim light, whose
        colour is within one cell's noise of the board but whose a* is not. The a* offset from the board
        at the same brightness, averaged over ``SKIN_PATCH_MM``, stands out of the free board's spread of
        that average, and the cell itself is redder than most free board cells. (One-sided: nothing the
        light does to the board makes it redder; the spread is floored, since quantising dark colours
        shifts a* by about a unit.)"""
        rows, cols = self.geometry.grid_shape
        n = self._skin_patch
        patch = cv2.boxFilter(redder.reshape(rows, cols), -1, (n, n)).ravel()
        typical, spread = robust.centre_and_spread(patch[self._field_cells])
        cell_typical, cell_spread = board_redder
        spread = max(SKIN_SPREAD_MIN, spread)
        return (patch > typical + SKIN_SPAN * spread) & (redder > cell_typical + cell_spread)

    def _lit_skin(self, redder: np.ndarray, board_redder: float, not_board: np.ndarray,
                  light: np.ndarray) -> np.ndarray:
        """Grid cells that pass for the board but are pale skin raised towards the lamp: brighter than the board
        (an arm is nearer the light than the board under it) and on a patch whose cells that pass for the board
        are, on average, redder than the board. In dim light the board's a* is noisy in blocks larger than
        ``_redder``'s patch (JPEG's colour), and a pale bare arm, only a few units redder, did not stand out of
        that noise: missed whole, the places under it read as labels. Brighter than the board, nothing of the
        board is redder so (a glare is not; a shadow, whose dark colours quantise redder, is darker)."""
        rows, cols = self.geometry.grid_shape
        free = ~not_board & self._unmarked
        lit = free & (light >= LIT_SKIN_LIGHT)
        if not lit.any():
            return lit
        n = self._lit_skin_patch
        weights = free.astype(np.float32).reshape(rows, cols)
        sums = cv2.boxFilter(redder.reshape(rows, cols) * weights, -1, (n, n), normalize=False).ravel()
        cells = cv2.boxFilter(weights, -1, (n, n), normalize=False).ravel()
        # (a patch mostly of pieces and the hand already found is no patch of board: at least a quarter of it)
        patch = np.where(cells >= n * n / 4, sums / np.maximum(cells, 1.0), -np.inf)
        typical = robust.median(patch[self._field_cells])
        return lit & (patch > typical + LIT_SKIN_REDDER) & (redder > board_redder)

    def _noise_level(self, grid_norm: np.ndarray, field: LightField | None) -> int:
        """How noisy this frame's normalised board is, as an index of NOISE_LEVELS: the median ΔE of the
        free background cells from the board's colour at their own brightness, over the cells the light field
        was fitted on (it left out a hand, a sleeve and shadows). Without those, it is estimated from the
        lowest quarter of all the cells (a hand or a sleeve may lie over half of them), at 1.4 times it: the
        ratio of Gaussian noise's ΔE. (In dim light the ratio is 2 and more, JPEG's and the quantisation's
        errors grown by the light's gain: estimated so, the level was low and the board flagged in patches
        that made false hands.)"""
        fitted = field is not None and field.board is not None
        cells = self._field_cells[field.board] if fitted else self._field_cells
        de = classify.board_distance(grid_norm.take(cells, axis=0).astype(np.float32) / 255.0,
                                     self.model.background_bgr)
        return classify.noise_level(robust.median(de) if fitted else 1.4 * robust.lower_quartile(de))

    def _zone_cover(self, hands: np.ndarray) -> np.ndarray:
        """Fraction of each zone's grid cells (slots, then count zones) under the hand mask."""
        if not hands.any():
            return np.zeros(len(self._zone_rects))
        integral = cv2.integral(hands.astype(np.uint8))
        r0, c0, r1, c1 = self._zone_rects.T
        inside = integral[r1, c1] - integral[r0, c1] - integral[r1, c0] + integral[r0, c0]
        return inside / np.maximum(1, (r1 - r0) * (c1 - c0))


class _SquareSums:
    """Sums over the ``n`` x ``n`` square of grid cells around fixed cells ``at`` (flat indices), of float32
    grids of non-negative values that are 0 or at least 2^-12 (brightness: a level of 1/255 times the least
    luma weight; or 0 and 1): ``cv2.boxFilter``'s unnormalised sums there, the same values (it adds float32s
    in doubles). Such sums are exact while below 2^17 (whole multiples of 2^-35, within a double's 53 bits),
    in any order: an integral image of doubles over the squares' bounding box gives them for less than two
    box filters over the whole grid (squares over the grid's edge, or larger sums: the box filters)."""

    def __init__(self, shape: tuple[int, int], at: np.ndarray, n: int):
        self.shape, self.at, self.n = shape, at, n
        rows, cols = shape
        r, c = np.divmod(at, cols)
        h = n // 2
        self.box = None
        if len(at) and r.min() >= h and c.min() >= h and r.max() + h < rows and c.max() + h < cols:
            r0, c0 = int(r.min()) - h, int(c.min()) - h
            self.box = slice(r0, int(r.max()) + h + 1), slice(c0, int(c.max()) + h + 1)
            w = int(c.max()) + h + 2 - c0  # the integral image's width
            top, left = (r - h - r0) * w, c - h - c0
            self.corners = np.concatenate([top + n * w + left + n, top + left + n, top + n * w + left, top + left])

    def __call__(self, *grids: np.ndarray) -> list[np.ndarray]:
        return [self._sums(grid) for grid in grids]

    def _sums(self, grid: np.ndarray) -> np.ndarray:
        if self.box is not None:
            integral = cv2.integral(grid.reshape(self.shape)[self.box], sdepth=cv2.CV_64F).ravel()
            if integral[-1] < 2 ** 17:
                a, b, c, d = integral.take(self.corners).reshape(4, -1)
                return (a - b - c + d).astype(np.float32)
        return cv2.boxFilter(grid.reshape(self.shape), -1, (self.n, self.n), normalize=False).ravel()[self.at]


def _counted_colours(calibration: Calibration) -> dict[str, tuple[int, int, int]]:
    """The colours the trays are counted in. Against an enrolled board a tray is seen in white light
    (``BoardReader.tray_seen``), whatever the board's own colour, and ``calibrate colours`` learns them so with
    the pieces (``vision.learn``); colours learnt without the board (no pieces: learnt before it was enrolled)
    are relative to the layout's board colour, which the enrolled board need not have, and the layout's own
    colours (white light) stand in for them."""
    if calibration.board is None or calibration.pieces:
        return calibration.colours
    return {}


def light_tint(whites: list, at: list) -> np.ndarray | None:
    """How the light's colour changes over the board, from the markers' white paper (BGR ``whites`` at the
    markers, ``at``: their ``field_basis`` rows): a plane of log-chromaticity through them, (6, 3) coefficients
    over the basis (the constant and the curvature rows zero: the field fits the light's own colour), or None
    when it changes less than ``LIGHT_TINT_MIN`` across the board (one light) or too few markers show to tell (the
    white paper's pixels at ``WHITE_CLIPPED`` in a channel tell nothing). A marker off the plane by more than
    that (a finger over its paper) is left out, the worst first."""
    if len(whites) < MIN_TINT_MARKERS:
        return None
    logw = np.log(np.maximum(np.array(whites, float), 1.0))
    chroma = logw - logw.mean(axis=1, keepdims=True)
    basis = np.array(at, float)[:, :3]
    keep = np.ones(len(chroma), bool)
    while keep.sum() >= MIN_TINT_MARKERS:
        plane = np.linalg.lstsq(basis[keep], chroma[keep], rcond=None)[0]
        off = robust.channel_max(np.abs(basis @ plane - chroma))
        worst = int(np.argmax(np.where(keep, off, -1)))
        if off[worst] <= TINT_NOISE:
            return tint_of(plane, LIGHT_TINT_MIN)
        keep[worst] = False
    return None


def homography_px_per_mm(H: np.ndarray, at_mm: tuple[float, float]) -> float:
    pts = np.array([[at_mm, (at_mm[0] + 1, at_mm[1]), (at_mm[0], at_mm[1] + 1)]], float)
    img = cv2.perspectiveTransform(pts, H)[0]
    (ax, ay), (bx, by) = img[1] - img[0], img[2] - img[0]
    return math.sqrt(abs(ax * by - ay * bx))
