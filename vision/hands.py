"""Hands over the board, found on the coarse grid of the canonical image.

A hand always comes with its arm, and from a camera above the table the arm crosses the board's edge.
So: take every grid cell that is not board background (lit or in shadow; the test's tolerance follows
the frame's noise), close the speckle noise leaves in it, open that mask with a square larger than any
piece (pieces, even two touching, vanish; a palm or an arm survives), keep what is big enough and
reaches the board's edge (an arm) unless it lies within one zone (that zone's own card or pile). Piles
in neighbouring trays may join into a blob wider than one zone, but they do not reach in from the edge:
only the edge says "arm".

That core is then grown back for a few centimetres (the fingers are thinner than the opening) over the
cells that look like the hand: nearer one of the colours of its own core than the board's colour at the
same brightness, and than the nearest colour of the pieces the cell's zone may hold. That choice is finer
than "not board" (a pale palm over a beige board in dim light) and stops at the pieces the hand touches,
which stay readable. A hand is solid: the growth takes a cell darker than the board only where most of the
cells around it look like the hand too. (A seam of shadow between two pieces, or a cube's dark side, is a
cell or two wide and looks like a dark hand or sleeve: alone, such cells carried the mask onto places beside
the hand. A pale finger in dim light, as bright as the board, looks like it in one cell of two.) Pieces
the core's blob took in (a pile next to the wrist) are given back the same way, and so are the core's
outline cells that look like the board (the opening squares the core off), its inner cells that the
not-board test calls board and that do not look like the hand (the closing filled them in beside it), and
those not beside a cell that looks like the hand (its own shadow, too dark for the board, beside a finger).
A line of cells a cell wide is no finger (they are four cells wide): unless as bright as the board or solid,
it is a seam of shadow or a cube's dark side along the hand.
A glare on the board beside the arm (the board's colour, only brighter: pale skin in the light is redder or less
yellow) is no part of it, though brighter than the board and so "not board":
it is taken out of the blob before the core is found (in the core, it would join the hand's colours, and
the growth would spread over the rest of the glare), and the growth does not spread over it.
What the hand then lies all around is under it, though it looked like a piece (a dark sleeve over a black
seal's place). What is left apart from the hand, smaller than a fingertip and not beside a finger (a cube's
dark side, a glint, a shadow between two pieces), is not the hand.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.layout import Layout
from vision import classify, masks
from vision.colour import bgr_to_lab
from vision.geometry import BoardGeometry

OPEN_MM = 30.0
CLOSE_MM = 8.0  # noise and a finger's darker outline leave holes this size in a hand
GROW_MM = 50.0  # a long finger, from the palm the opening leaves (40 mm left a fingertip over a place uncovered)
MIN_HAND_MM2 = 1500.0  # what is left of the smallest hand and arm on the board after the opening
WRIST_MM = 20.0  # a blob this near an arm's is its palm, across a wrist that looks like the board
EDGE_MM = 4.0  # an arm crosses the board's edge: its blob reaches the outermost cells
ZONE_SPILL_MM = 8.0  # a blob within a zone and this margin is the zone's own pieces (a pile in a tray)
ZONE_SPILL = 0.15  # or this fraction of the zone's size (a card turned a little overhangs its place)
FINGERTIP_MM2 = 200.0  # the least of a fingertip that shows (17 mm wide): a smaller part apart is not the hand ...
APART_MM = 4.0  # ... when further than this from the rest of it (pale fingers in dim light break up)
HOLE_MM2 = 1200.0  # a hole the hand mask encloses, up to the largest place (34 mm), is under the hand
HOLE_MIN_MM2 = 100.0  # ... from half a cube's top: less is the mask's ragged edge, no piece shows through it


class HandFinder:
    """Finds hands on one layout's grid; what depends only on the layout (each zone's rectangle with its
    spill margin, the trays' cells) is worked out once, not per frame."""

    def __init__(self, g: BoardGeometry, layout: Layout):
        self.g = g
        self._unmarked, self._marker = ~g.grid_marker, g.grid_marker.astype(np.uint8)
        spills = np.array([math.ceil(max(ZONE_SPILL_MM, ZONE_SPILL * max(z.size)) / g.grid_mm) for z in layout.zones])
        r0, c0, r1, c1 = np.array([g.zone_grid_rects[z.id] for z in layout.zones]).reshape(-1, 4).T
        self._spilled = (r0 - spills, c0 - spills, r1 + spills, c1 + spills)
        self._piles = np.zeros(g.grid_shape, bool)
        for z in layout.zones:
            if z.kind == "count":
                pr0, pc0, pr1, pc1 = g.zone_grid_rects[z.id]
                self._piles[pr0:pr1, pc0:pc1] = True
        # The sizes in grid cells.
        n_close, n_open = max(2, math.ceil(CLOSE_MM / g.grid_mm)), max(3, math.ceil(OPEN_MM / g.grid_mm))
        self._n_grow = math.ceil(GROW_MM / g.grid_mm)
        self._close = np.ones((n_close, n_close), np.uint8)
        self._open = np.ones((n_open, n_open), np.uint8)
        self._pair = np.ones((2, 2), np.uint8)
        self._reach = np.ones((2 * self._n_grow + 3, 2 * self._n_grow + 3), np.uint8)
        n_wrist = math.ceil(WRIST_MM / g.grid_mm)
        self._wrist = np.ones((2 * n_wrist + 1, 2 * n_wrist + 1), np.uint8)
        self._edge = max(1, math.ceil(EDGE_MM / g.grid_mm))
        n_apart = math.ceil(APART_MM / g.grid_mm)
        self._touch = np.ones((2 * n_apart + 1, 2 * n_apart + 1), np.uint8)

    def find(self, not_board: np.ndarray, colours: np.ndarray, background_bgr: np.ndarray, unseen_markers,
             piece_de: Callable[[], np.ndarray]) -> np.ndarray:
        """Per grid cell (flat arrays): ``not_board``, not the board's background; ``colours``, its light-
        normalised BGR (uint8); ``piece_de()``, inside a zone, the ΔE to the nearest of that zone's pieces'
        colours (inf elsewhere; worked out only when an arm is found, as most frames have none).
        ``unseen_markers``: ids of the layout's markers not detected in this frame (an arm over one hides
        it: its cells then count as covered, so that the arm still reaches the board's edge across it).
        Returns (rows, cols) bool: under a hand."""
        g = self.g
        rows, cols = g.grid_shape
        covered = np.zeros((rows, cols), bool)
        for marker_id in unseen_markers:
            if marker_id in g.marker_grid_rects:
                r0, c0, r1, c1 = g.marker_grid_rects[marker_id]
                covered[r0:r1, c0:c1] = True
        mask = ((not_board.reshape(rows, cols) & self._unmarked) | covered).astype(np.uint8)
        closed = masks.closed(mask, self._close)
        hand = self._arms(closed, covered)
        if not hand.any():
            return hand.astype(bool)
        blob = np.flatnonzero(closed)  # (the arms' blobs lie there: a glare matters nowhere else yet)
        glare = blob[_glare(*_seen(colours[blob].astype(np.float32) / 255.0, background_bgr))]
        if hand.ravel()[glare].any():
            closed.flat[glare] = 0
            hand = self._arms(closed, covered)
            if not hand.any():
                return hand.astype(bool)
        kernel = np.ones((3, 3), np.uint8)
        piece_de = piece_de()
        # The hand's own colours come from its core's inner cells that are not board (the closing filled
        # some board in; the outline's cells mix hand and board), nor coloured like their zone's pieces
        # (a pile the hand's blob took in).
        inner = (cv2.erode(hand, kernel) & mask).ravel().astype(bool) & ~np.isfinite(piece_de)
        model = hand_colours(colours, inner, background_bgr)
        if model is None:
            return hand.astype(bool)
        reach = np.flatnonzero(cv2.dilate(hand, self._reach))
        # (only cells the hand can reach)
        like, piece, lit = np.zeros(rows * cols, bool), np.zeros(rows * cols, bool), np.zeros(rows * cols, bool)
        like[reach], piece[reach], lit[reach] = model.like(colours[reach].astype(np.float32) / 255.0,
                                                           piece_de[reach])
        like = like.reshape(rows, cols).astype(np.uint8)
        piece = piece.reshape(rows, cols)
        lit = lit.reshape(rows, cols)
        took_pile = bool((hand.astype(bool) & piece & self._piles).any())
        hand &= (~piece).astype(np.uint8)  # pieces the blob took in are given back
        if took_pile:
            # What is left of a blob that took in a pile must still hold an arm: a pile's shadows and
            # sides, once its cubes are given back, do not.
            arms = self._arms(hand, covered)
            _, labels = cv2.connectedComponents(hand, connectivity=8)
            kept = np.unique(labels[(arms > 0) & (hand > 0)])
            hand = np.isin(labels, kept[kept > 0]).astype(np.uint8)
        marker = self._marker
        # (the median of a 3 x 3 window of 0/1 cells: 1 where at least 5 of the 9 are)
        solid = cv2.medianBlur(like * 255, 3) // 255
        allowed = solid | like & lit | marker | hand
        for _ in range(self._n_grow):
            grown = cv2.dilate(hand, kernel) & allowed
            if np.array_equal(grown, hand):
                break
            hand = grown
        # An inner cell that is not board but does not look like the hand is kept only beside one that does: in
        # the hand such cells (a crease, a nail, a colour between its centres) lie among the hand's; its shadow,
        # too dark to pass for the board, and a cube's shaded side, taken into the core beside it, do not.
        hand &= like | cv2.erode(hand, kernel) & (mask | marker) & cv2.dilate(like, kernel)
        # A cell in no 2 x 2 square of the mask is a line a cell wide, and a finger is four: unless it is as bright
        # as the board (a pale finger in dim light breaks up) or most cells around it look like the hand, it is a
        # seam of shadow between pieces or a cube's dark side along the hand.
        hand &= masks.opened(hand, self._pair) | solid | lit
        return self._without_islands(self._holes_filled(hand)).astype(bool)

    def _holes_filled(self, hand: np.ndarray) -> np.ndarray:
        """``hand`` (uint8 grid mask) with the holes it encloses filled, up to a place's size: what the hand lies
        all around is under it. (A dark sleeve over a black seal's place looks like the seal, and is given
        back as the pieces the hand touches are: the place would read a confident seal.) A hole of a cell or
        two is the mask's ragged edge: filled, it tipped a place beside the hand over ``HAND_COVER``."""
        mm2 = self.g.grid_mm ** 2
        return masks.holes_filled(hand, lambda cells: (cells * mm2 >= HOLE_MIN_MM2) & (cells * mm2 <= HOLE_MM2))

    def _without_islands(self, hand: np.ndarray) -> np.ndarray:
        """``hand`` (uint8 grid mask) without its parts smaller than a fingertip, apart from the rest and away
        from the board's edge: a glint on a cube, a cube's dark side or a patch of shadow between pieces, cut
        off from the hand once the pieces around them were given back. A fingertip parted from its finger is
        larger, or close to the finger (a pale finger in dim light breaks up into such parts)."""
        n, labels, stats = masks.components(hand)
        if n <= 2:
            return hand
        keep = (stats[:, cv2.CC_STAT_AREA] * self.g.grid_mm ** 2 >= FINGERTIP_MM2) | self._at_edge(stats)
        keep[0] = False
        # A part within APART_MM of what is kept may be a finger's end that looks like the board in between.
        near = cv2.dilate(keep[labels].astype(np.uint8), self._touch)
        keep |= np.bincount(labels.ravel(), weights=near.ravel(), minlength=n) > 0
        keep[0] = False
        return keep[labels].astype(np.uint8)

    def _at_edge(self, stats: np.ndarray) -> np.ndarray:
        """Whether blobs (rows of ``connectedComponentsWithStats``'s stats, or one row) reach the board's edge."""
        rows, cols = self.g.grid_shape
        e = self._edge
        x, y, w, h = stats[..., 0], stats[..., 1], stats[..., 2], stats[..., 3]
        return (x < e) | (y < e) | (x + w > cols - e) | (y + h > rows - e)

    def _arms(self, closed: np.ndarray, covered: np.ndarray) -> np.ndarray:
        """The blobs of ``closed`` (uint8 grid mask) that an opening leaves big enough, reaching the
        board's edge and not within one zone, with the blobs near them (a palm beyond a wrist that looks
        like the board): uint8 mask of the opened blobs kept."""
        g = self.g
        # (Near the grid's border cv2's erosion sees ones outside: a blob that comes within the square's
        # size of the edge is opened out to it, as an arm partly off the board should be.)
        opened = masks.opened(closed, self._open)
        if not opened.any():
            return opened
        n, labels, stats = masks.components(opened)
        r0, c0, r1, c1 = self._spilled
        seen = stats[:, cv2.CC_STAT_AREA]  # a hidden marker alone is no hand
        if covered.any():
            seen = seen - np.bincount(labels[covered], minlength=n)
        # Per blob (in columns: one row per blob, one column per zone): not smaller than any palm (a glint
        # or a dark patch at the board's edge), nor within one zone and its margin (that zone's own card or
        # pile).
        x, y, w, h = (stats[1:, k, None] for k in range(4))
        arm = (seen[1:] * g.grid_mm ** 2 >= MIN_HAND_MM2) & ~np.any(
            (r0 <= y) & (c0 <= x) & (y + h <= r1) & (x + w <= c1), axis=1)
        edge = self._at_edge(stats[1:])
        keep = (np.flatnonzero(arm & edge) + 1).tolist()
        # no arm of its own: a stray object, piles in neighbouring trays joined into one blob, or a palm
        # beyond a wrist that looks like the board
        near = (np.flatnonzero(arm & ~edge) + 1).tolist()
        if not keep:
            return np.zeros_like(opened)
        hand = np.isin(labels, keep).astype(np.uint8)
        if near:
            reach = cv2.dilate(hand, self._wrist)
            joined = [i for i in near if reach[labels == i].any()]
            if joined:
                hand |= np.isin(labels, joined).astype(np.uint8)
        return hand


HAND_DE = 14.0  # a cell further than this from every colour of the hand's core is not the hand
SHADE_WEIGHT = 0.5  # a hand is darker towards its outline (it is round): brightness counts for less
SOLID_LIGHT = 0.95  # a cell darker than this (of the board's light) joins the hand with most cells around it
GLARE_LIGHT = 1.1  # a glare: brighter than the board by this factor, ...
GLARE_DE = 4.0  # ... within this of the board's colour at that brightness, ...
GLARE_REDDER = 1.0  # ... not redder than it by this much (Lab a*; pale skin in the light is) ...
GLARE_BLUER = 2.5  # ... nor bluer (Lab b*; pale skin in daylight, less yellow than the board, is)


def _seen(bgr01: np.ndarray, background_bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per colour (normalised BGR 0..1, (n, 3)): its Lab, the board's Lab at its brightness, that brightness
    (a fraction of the board's)."""
    return (bgr_to_lab(bgr01), classify.board_lab_at(bgr01, background_bgr),
            classify.brightness(bgr01, background_bgr))


def _glare(lab: np.ndarray, board_lab: np.ndarray, light: np.ndarray) -> np.ndarray:
    """Per colour (``_seen``'s three arrays): a glare on the board, its colour only brighter."""
    return ((light > GLARE_LIGHT) & (classify.row_norm(lab - board_lab) < GLARE_DE)
            & (lab[:, 1] - board_lab[:, 1] < GLARE_REDDER) & (board_lab[:, 2] - lab[:, 2] < GLARE_BLUER))


@dataclass(frozen=True)
class HandColours:
    """The colours a hand shows in this frame (Lab, a few k-means centres of its core), to tell which
    cells look like it."""
    centres: np.ndarray
    background_bgr: np.ndarray

    def like(self, bgr01: np.ndarray, piece_de: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per colour (normalised BGR 0..1, (n, 3)): (like the hand: nearer one of its colours than the
        board's colour at the same brightness and than the nearest colour of the pieces the cell's zone
        may hold (``piece_de``), near enough one of them, and no glare; like a piece: nearer that piece
        colour than the hand's; lit: as bright as the board, ``SOLID_LIGHT``)."""
        lab, board_lab, light = _seen(bgr01, self.background_bgr)
        d_board = classify.row_norm(lab - board_lab)  # (classify.board_distance, from what is known)
        w = np.array([SHADE_WEIGHT, 1.0, 1.0], np.float32)
        d_hand = np.linalg.norm((lab[:, None, :] - self.centres[None]) * w, axis=2).min(axis=1)
        like = (d_hand < d_board) & (d_hand < HAND_DE) & (d_hand < piece_de)
        like &= ~_glare(lab, board_lab, light)
        return like, piece_de < d_hand, light >= SOLID_LIGHT


def hand_colours(colours: np.ndarray, core: np.ndarray, background_bgr: np.ndarray) -> HandColours | None:
    """The colours of the hand's ``core`` cells (normalised BGR uint8, (n, 3); ``core`` (n,) bool)."""
    if not core.any():
        return None
    samples = bgr_to_lab(colours[core].astype(np.float32) / 255.0)
    n_centres = int(min(4, max(1, len(samples) // 20)))
    if len(samples) > n_centres:
        # Start from brightness bands (sleeve, skin, their shaded outline), not random centres: the same
        # frame always reads the same.
        start = (np.argsort(np.argsort(samples[:, 0])) * n_centres // len(samples)).astype(np.int32)
        criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 10, 0.5)
        _, _, centres = cv2.kmeans(samples.astype(np.float32), n_centres, start.reshape(-1, 1), criteria, 1,
                                   cv2.KMEANS_USE_INITIAL_LABELS)
    else:
        centres = samples
    return HandColours(np.asarray(centres, np.float32), background_bgr)
