"""The enrolled empty board: how the camera sees the board, artwork included, and every frame against it.

``enrol_board`` warps a frame of the empty board to the canonical top-down image (``calibrate board``).
``BoardComparison`` then compares each frame with it, pixel by pixel, after dividing out the light:

1. **Light.** The log ratio of the frame to the enrolled board, per channel, over the grid cells of the
   board's free background, is fitted by one smooth quadratic surface per channel (a lamp of one colour on
   one side, a window of another on the other: the light's colour and level may both change across the
   board). The fit is robust: cells far off the surface (a hand, a sleeve, an object, a shadow) are dropped
   and it is fitted again; empty places that agree with it then join it.
2. **Difference.** What is left of the log ratio at each pixel is split into a brightness part and a
   chromaticity part. A shadow (a piece's, a hand's) changes only the brightness, and only downwards; a piece
   or a hand changes the colour, or the brightness more than any shadow does, or upwards. The thresholds
   are the frame's own noise, measured on the free board the light was fitted on.

No colour of the board is assumed anywhere: a cream board, a dark wooden one and a printed illustration are
all "the board" in the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from calibration.layout import Layout
from calibration.store import BoardImage, Calibration, LensModel
from vision.geometry import board_geometry, default_px_per_mm, grid_cell_means
from vision.light_field import field_basis
from vision.robust import centre_and_spread, channel_max, median, medians

BOARD_PX_PER_MM = 1.5  # the enrolled board's resolution, at most (a 14 mm gem is 21 px across)
FIT_CELLS = 400  # grid cells the light surface is fitted on, at most
FIT_ROUNDS = 4  # robust refits of the light surface
FIT_SPREADS = 3.5  # a cell this many robust spreads off the surface is not the board (or in a shadow)
FIT_MIN_SPREAD = 0.02  # (log units: 2 % of light)
CONSENSUS_TRIES = 60  # surfaces tried through random cells before the robust refits
NOISE_SPREADS = 4.0  # a pixel this many of the free board's spreads off the board differs from it
DARKEST_SHADOW = 0.2  # a shadow leaves at least this share of the light
MIN_CHROMA_TOL, MIN_BRIGHT_TOL = 4.0, 6.0  # floors of the thresholds (grey levels)
SMOOTH_PX = 3  # differences are judged on squares of this many pixels (1.5 px/mm: 2 mm; a piece is 14 mm and more)
CORE_PX = 5  # a piece's edge pixels mix it with the board (the frame's blur, the smoothing): its colour is inside
HOT_SPOT = 1.15  # light the surface misses brightens the board by this much at most
LOCAL_LIGHT_MM = 40.0  # the patch of board around a pixel whose brightness tells the light reaching it
ALIGN_PX = 5  # a frame's warp may land this many pixels (a square) off the enrolled board
CLIPPED = 250  # a channel this bright is at the sensor's ceiling (or near it, once warped): truly, any level above
OVEREXPOSED = 0.02  # enrolment warns when this share of the board is at the ceiling (a hot spot, not a glint)
PRINT_EDGE = 0.5  # a log-grey gradient this strong is the board's print (a 13 % step; the noise's is about 0.07)

_LOG = np.log(np.arange(256, dtype=np.float32) + 4.0)  # log of a level; +4: dark levels' noise held back
_TO_OPPONENT = np.array([[1 / 3, 1 / 3, 1 / 3],  # brightness
                         [-1 / np.sqrt(2), 0, 1 / np.sqrt(2)],  # red against blue (B, G, R order)
                         [1 / np.sqrt(6), -2 / np.sqrt(6), 1 / np.sqrt(6)]], np.float32)  # green against both


class BoardEnrolError(ValueError):
    """The frame cannot be enrolled as this layout's empty board."""


def board_px_per_mm(layout: Layout) -> float:
    return min(default_px_per_mm(layout), BOARD_PX_PER_MM)


def enrol_board(frame: np.ndarray, layout: Layout, calibration: Calibration | None = None,
                source: str = "frame") -> BoardImage:
    """The empty board in ``frame`` (BGR uint8), warped to the canonical image at ``board_px_per_mm``.
    Raises BoardEnrolError when the layout's markers are not found in it (another board, or none)."""
    reader, location = located(frame, layout, calibration, source)
    # (a lens estimated from every marker of the empty board is kept for the frames, which may show fewer)
    estimated = location.lens if calibration is None or calibration.camera is None else None
    return BoardImage(reader.warp(frame, location.homography, location.lens), reader.geometry.px_per_mm, estimated,
                      tuple(sorted(location.markers)))


def located(frame: np.ndarray, layout: Layout, calibration: Calibration | None = None, source: str = "frame"):
    """(a reader at ``board_px_per_mm``, the board's location in ``frame``), the location sure enough to enrol
    the board from; else BoardEnrolError."""
    from vision.locate import check_markers, detect_markers, look_closer
    from vision.read import Reader

    base = None if calibration is None else Calibration(calibration.layout, corners=calibration.corners,
                                                        camera=calibration.camera)
    reader = Reader(layout, base, px_per_mm=board_px_per_mm(layout))
    location = reader.locator.locate(frame)
    if not location.found:
        raise BoardEnrolError(f"{source}: the {layout.name} board was not found (are its markers visible, and is "
                              f"this the {layout.name} layout?)")
    # Every later frame is compared with this image pixel by pixel: a position fitted on a few markers (the
    # rest too dark or hidden) may put the board centimetres off far from them. Enrol only a sure one.
    seen = check_markers(frame, layout, location.homography, location.lens,
                         look_closer(frame, layout, detect_markers(frame)))
    if seen < min(len(layout.markers), 4) or seen < len(location.markers):
        raise BoardEnrolError(f"{source}: only {seen} of the {layout.name} board's {len(layout.markers)} markers show "
                              f"clearly where the board seems to lie: its place is not sure enough to enrol (light "
                              f"the board evenly with every marker in view, and enrol again)")
    return reader, location


@dataclass
class Difference:
    """One frame against the enrolled board, at the board's canonical resolution."""
    differs: np.ndarray  # (h, w) bool: not the board (a piece, a hand, an object)
    solid: np.ndarray  # (h, w) bool: ``differs`` where it is solid (opened: noise specks and thin lines gone)
    core: np.ndarray  # (h, w) bool: ``differs`` away from its edges (where a piece's colour is its own)
    brightness: np.ndarray  # (h, w) float32: log of the light reaching each pixel, against the fitted light
    # (h, w, 3) float32: log of the fitted light, frame over enrolled board, per channel (exponentiated by its
    # users where they need it: over the whole board it costs a tenth of the comparison)
    log_gain: np.ndarray
    grid_differs: np.ndarray  # (rows, cols) float32: share of each grid cell that differs
    chroma: np.ndarray | None = None  # (h, w) float32: colour change, in multiples of the frame's noise
    lifted: np.ndarray | None = None  # (h, w) float32: brightness change beyond the local light, in noises
    edges: np.ndarray | None = None  # (h, w) float32: edges the board does not have (a piece's outline), in noises
    integral: np.ndarray | None = None  # the frame's canonical image's ``cv2.integral`` (the places' pictures)
    grid: np.ndarray | None = None  # (cells, 3) float32: its grid cells' mean colours (the trays' light)
    grey: np.ndarray | None = None  # (h, w) float32: the frame's log grey level, the fitted light taken out


class BoardComparison:
    """Compares frames with one enrolled board; holds what is computed once (its logs, the fit's basis)."""

    def __init__(self, layout: Layout, board: BoardImage):
        self.layout = layout
        self.geometry = board_geometry(layout, board.px_per_mm)
        g = self.geometry
        w, h = g.size_px
        image = board.image if board.image.shape[:2] == (h, w) else cv2.resize(board.image, (w, h),
                                                                               interpolation=cv2.INTER_AREA)
        self.image = image
        # The board as it may show in a frame: each pixel's channels between the least and the most of them
        # around it (the warp of a frame lands a fraction of a millimetre off, and a printed line with it).
        log = cv2.LUT(image, _LOG)
        square = np.ones((ALIGN_PX, ALIGN_PX), np.uint8)
        self.log_low, self.log_high = cv2.erode(log, square), cv2.dilate(log, square)
        self._log_level = cv2.transform(log, np.full((1, 3), 1 / 3, np.float32))  # log of the board's grey level
        # The board's own edges (its print), as strong as they may show anywhere the warp may put them.
        edges = edge_strength(self._log_level)
        self._board_edges = cv2.dilate(edges, square)
        self._printed = cell_means(edges >= PRINT_EDGE, g.grid_px, g.grid_shape) > 0  # (cells the print crosses)
        self._print_grey = b = cv2.blur(self._log_level, (SMOOTH_PX, SMOOTH_PX))
        self._print_mean = cell_means(b, g.grid_px, g.grid_shape)
        squares = cell_means(b * b, g.grid_px, g.grid_shape)
        self._print_var = squares - self._print_mean ** 2
        # (the same over each cell and the eight around it: ``print_shows``)
        self._printed_near = cv2.dilate(self._printed.view(np.uint8), np.ones((3, 3), np.uint8)).view(bool)
        pooled_mean = _around(self._print_mean)
        self._pooled_print = (pooled_mean, _around(squares) - pooled_mean ** 2)
        self.grid = grid_cell_means(cv2.integral(image), g.grid_px, g.grid_shape)
        self._grid_log = np.log(self.grid + 4.0).astype(np.float32)
        rows, cols = g.grid_shape
        self._basis = field_basis(g.grid_centres_mm, layout.size).astype(np.float64)
        self._basis32 = self._basis.astype(np.float32)
        self._free = np.flatnonzero(g.grid_background.ravel())
        self._unmarked = ~g.grid_marker.ravel()
        self._grid_hw = (rows * g.grid_px, cols * g.grid_px)
        self._local_px = max(3, round(LOCAL_LIGHT_MM * g.px_per_mm) | 1)

    def light(self, grid_means: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The fitted light at every grid cell (log ratio frame / board, (cells, 3)) and the cells it was
        fitted on."""
        # (float32 over the whole grid: a light surface needs no more, and it is most of the fit's cost)
        ratio = np.log(grid_means.astype(np.float32) + np.float32(4.0)) - self._grid_log
        cells = self._free if len(self._free) >= 12 else np.flatnonzero(self._unmarked)
        fit, used = self._fit(ratio, _thin(cells))
        # Empty places show the board too: those that agree with the surface join it (more of the board, where
        # the free background is only a margin).
        resid = channel_max(np.abs(ratio - self._basis32 @ fit.astype(np.float32)))
        spread = _spread(resid[used])
        agree = np.flatnonzero((resid < FIT_SPREADS * spread) & self._unmarked)
        if len(agree) > len(used):
            fit, used = self._fit(ratio, _thin(agree))
        return self._basis32 @ fit.astype(np.float32), used

    def _fit(self, ratio: np.ndarray, cells: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The light surface through ``cells``: from the cells most agree with, refitted without those far off it."""
        A, y = self._basis[cells], ratio[cells]
        keep = _consensus(A, y)
        coef = np.zeros((A.shape[1], 3))
        for _ in range(FIT_ROUNDS):
            if keep.sum() < A.shape[1] * 2:
                break
            Ak = A[keep]
            coef = np.linalg.solve(Ak.T @ Ak + 1e-6 * np.eye(A.shape[1]), Ak.T @ y[keep])
            resid = y - A @ coef
            # Brightness and colour apart: a shadow is a brightness step, a hand a colour step.
            bright = resid.mean(axis=1)
            chroma = channel_max(np.abs(resid - bright[:, None]))
            centre = median(bright[keep])
            tol_b = FIT_SPREADS * max(FIT_MIN_SPREAD, _spread(bright[keep] - centre))
            tol_c = FIT_SPREADS * max(FIT_MIN_SPREAD / 2, _spread(chroma[keep]))
            kept = (np.abs(bright - centre) < tol_b) & (chroma < tol_c)
            settled = np.array_equal(kept, keep)  # (the same cells: another round would fit the same surface)
            keep = kept
            if settled:
                break
        return coef, cells[keep]

    def compare(self, canonical: np.ndarray) -> Difference:
        """``canonical``: the frame warped to this board's canonical image (BGR uint8)."""
        g = self.geometry
        rows, cols = g.grid_shape
        integral = cv2.integral(canonical)
        grid = grid_cell_means(integral, g.grid_px, g.grid_shape)
        fitted, used = self.light(grid)
        if len(used) < 8:  # (the light was fitted on next to nothing: the whole board tells the noise)
            used = np.flatnonzero(self._unmarked)
        h, w = canonical.shape[:2]
        gh, gw = self._grid_hw
        # The fitted light at pixel resolution: smooth, so resized from the grid (cells are grid_px squares).
        small = fitted.reshape(rows, cols, 3).astype(np.float32)
        log_gain = cv2.resize(small, (gw, gh), interpolation=cv2.INTER_LINEAR)
        if (gh, gw) != (h, w):
            log_gain = cv2.copyMakeBorder(log_gain, 0, h - gh, 0, w - gw, cv2.BORDER_REPLICATE)
        seen = cv2.LUT(canonical, _LOG)
        cv2.subtract(seen, log_gain, seen)
        # What is left beyond the board's range at each pixel (0 within it): the pixel less the nearest value
        # of the range.
        resid = cv2.subtract(seen, cv2.min(cv2.max(seen, self.log_low), self.log_high))
        resid = cv2.blur(resid, (SMOOTH_PX, SMOOTH_PX))  # a pixel's noise averaged with its neighbours'
        opp = cv2.transform(resid, _TO_OPPONENT)
        bright, c1, c2 = cv2.split(opp)
        # In grey levels (log differences times the level expected there): a camera's noise is about as many
        # levels in the dark as in the light, so a dark corner's log differences are noisier by as much.
        level = cv2.exp(cv2.add(self._log_level, cv2.transform(log_gain, np.full((1, 3), 1 / 3, np.float32))))
        chroma = cv2.multiply(cv2.magnitude(c1, c2), level)
        cell_chroma = cv2.resize(chroma, (cols, rows), interpolation=cv2.INTER_NEAREST).ravel()[used]
        tol_c = max(MIN_CHROMA_TOL, NOISE_SPREADS * _spread(cell_chroma))
        # Light the smooth surface misses (a lamp's hot spot, a hand's shadow) changes the board's brightness
        # over a patch much wider than a piece, keeping its colour: measured on the board-coloured pixels
        # around each pixel and taken out, so that only what is brighter or darker than its surroundings is.
        board_like = ((chroma <= tol_c) & (bright > np.log(DARKEST_SHADOW))).astype(np.float32)
        window = (self._local_px, self._local_px)
        weight = cv2.boxFilter(board_like, -1, window)
        local = cv2.boxFilter(cv2.multiply(bright, board_like), -1, window)
        np.divide(local, np.maximum(weight, np.float32(0.1)), out=local)
        local[weight <= 0.1] = 0.0
        # (A hot spot brightens the board a little; what is much brighter than the artwork under it over a wide
        # patch, a palm over dark print, is no light.)
        local = np.clip(local, np.log(DARKEST_SHADOW), np.log(HOT_SPOT), out=local)
        lifted = cv2.multiply(cv2.subtract(bright, local), level)
        # The frame's noise, on the grid cells the light was fitted on (the free board, as it shows now).
        cell_lifted = cv2.resize(lifted, (cols, rows), interpolation=cv2.INTER_NEAREST).ravel()[used]
        tol_b = max(MIN_BRIGHT_TOL, NOISE_SPREADS * _spread(cell_lifted - median(cell_lifted)))
        # Brighter than the board beyond the noise is a piece (or a glare: light pieces read their colour);
        # darker is a shadow unless darker than any shadow.
        differs = (chroma > tol_c) | (lifted > tol_b) | (bright < np.log(DARKEST_SHADOW))
        differs = cv2.morphologyEx(differs.view(np.uint8), cv2.MORPH_OPEN, np.ones((2, 2), np.uint8)).view(bool)
        share = cv2.resize(differs.view(np.uint8)[:gh, :gw].astype(np.float32), (cols, rows),
                           interpolation=cv2.INTER_AREA)
        square = np.ones((CORE_PX, CORE_PX), np.uint8)
        core = cv2.erode(differs.view(np.uint8), square)
        solid = cv2.dilate(core, square).view(bool)
        # Edges the board does not have: a pale piece on pale print still has an outline, sides and a shadow.
        grey = cv2.transform(seen, np.full((1, 3), 1 / 3, np.float32))
        new_edges = cv2.multiply(cv2.max(cv2.subtract(edge_strength(grey), self._board_edges), 0.0), level)
        cell_edges = cv2.resize(new_edges, (cols, rows), interpolation=cv2.INTER_NEAREST).ravel()[used]
        tol_e = max(MIN_BRIGHT_TOL, NOISE_SPREADS * _spread(cell_edges))
        return Difference(differs, solid, core.view(bool), bright, log_gain, share,
                          chroma * np.float32(1 / tol_c), lifted * np.float32(1 / tol_b),
                          new_edges * np.float32(1 / tol_e), integral, grid, grey)

    def print_shows(self, diff: Difference) -> tuple[np.ndarray, np.ndarray]:
        """Per grid cell, how the frame's log brightness (the fitted light taken out) follows the enrolled board's
        print: their correlation, near 1 where the print shows through whatever the light on it (a shadow or a
        lamp changes the light, not the print), near 0 under a hand. (Over the cell or over it and the eight
        around it, whichever is higher, NaN where no print lies near; the cell's own, NaN where it holds none.)
        Both smoothed as the differences are (a warp lands a pixel or two off)."""
        g = self.geometry
        f = cv2.blur(diff.grey, (SMOOTH_PX, SMOOTH_PX))
        moments = [cell_means(x, g.grid_px, g.grid_shape) for x in (f, f * self._print_grey, f * f)]
        corr = _correlation(*moments, self._print_mean, self._print_var)
        # The same over the cell and the eight around it (12 mm): faint print under a deep shadow is lost in the
        # noise of one cell's few pixels, not of nine's. A cell shows the print where either does.
        pooled = _correlation(*[_around(m) for m in moments], *self._pooled_print)
        shows = np.where(self._printed, np.fmax(corr, pooled), pooled)
        return (np.where(self._printed_near, shows, np.nan).astype(np.float32),
                np.where(self._printed, corr, np.nan).astype(np.float32))


def _consensus(A: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The cells the light surface starts from: of surfaces through a few cells spread at random, the one most
    cells agree with. A refit from every cell at once starts bent towards a large hand or sleeve and may keep
    it as light; most of the board agrees with the true light, a hand with only itself."""
    n, k = A.shape
    if n < 4 * k:
        return np.ones(n, bool)
    picks = _picks(n, 2 * k)
    Ap, yp = A[picks], y[picks]  # (tries, 2k, k), (tries, 2k, 3)
    At = Ap.transpose(0, 2, 1)
    coef = np.linalg.solve(At @ Ap + 1e-9 * np.eye(k), At @ yp)  # (tries, k, 3)
    # (each try's residuals per channel, cells last: numpy's median along the middle axis is seven times slower)
    resid = np.ascontiguousarray((y[None] - A[None] @ coef).transpose(0, 2, 1))  # (tries, 3, n)
    off = np.abs(resid - medians(resid)[..., None])
    agree = np.maximum(np.maximum(off[:, 0], off[:, 1]), off[:, 2]) < FIT_SPREADS * FIT_MIN_SPREAD
    counts = agree.sum(axis=1)
    best_n = int(counts.max())
    best = agree[int(counts.argmax())]
    return best if best_n >= 2 * k else np.ones(n, bool)


@lru_cache(maxsize=16)
def _picks(n: int, size: int) -> np.ndarray:
    """``CONSENSUS_TRIES`` random draws of ``size`` of ``n`` cells, the same for every frame."""
    rng = np.random.default_rng(0)
    return np.array([rng.choice(n, size, replace=False) for _ in range(CONSENSUS_TRIES)])


def edge_strength(grey: np.ndarray) -> np.ndarray:
    """The gradient's size at each pixel of a (log) grey image."""
    return cv2.magnitude(cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3))


def markers_unseen(board: BoardImage, layout: Layout) -> str | None:
    """A warning when the board was enrolled without some of its markers in view, else None: where no marker
    was seen, the board's place is the fit's extrapolation (a wide lens's bend beyond the markers seen is
    guessed from theirs), and places there may be read where their neighbours lie."""
    unseen = sorted(m.id for m in layout.markers if m.id not in board.markers)
    if not board.markers or not unseen:
        return None
    named = ", ".join(map(str, unseen))
    return (f"marker{'s' if len(unseen) > 1 else ''} {named} of the {len(layout.markers)} not in view: the board "
            f"beyond the others is placed by estimate, and pieces there may be read in their neighbours' places; "
            f"bring every marker into view and enrol again")


def placed_by_estimate(layout: Layout, board: BoardImage, camera: LensModel | None) -> frozenset[str]:
    """The zones whose centre lies beyond the hull of the markers the board was enrolled by, when some were not
    in view and no lens was known (none calibrated, none estimated): the enrolled image there is the fit's
    extrapolation, which a strong lens puts a slot off (dev seed 19779, table 12: a low camera, four of six
    markers, the zones of the board's other half up to 31 px off), and every frame is compared with it. Empty
    when every marker was seen, or when the file does not say which were (written before they were stored)."""
    seen = set(board.markers)
    if not seen or board.lens is not None or camera is not None or all(m.id in seen for m in layout.markers):
        return frozenset()
    corners = np.array([m.corners() for m in layout.markers if m.id in seen], np.float32).reshape(-1, 1, 2)
    hull = cv2.convexHull(corners)
    return frozenset(z.id for z in layout.zones
                     if cv2.pointPolygonTest(hull, (float(z.center[0]), float(z.center[1])), False) < 0)


def overexposed(board: BoardImage, layout: Layout) -> str | None:
    """A warning when much of the enrolled board is at the sensor's ceiling in some channel (a lamp's hot spot),
    else None: the board's true colour is not known there, and a piece as pale as the board may pass unseen.
    (The markers' white paper is at the ceiling in most light, and is no board.)"""
    g = board_geometry(layout, board.px_per_mm)
    h, w = board.image.shape[:2]
    beside = cv2.dilate(g.grid_marker.astype(np.uint8), np.ones((3, 3), np.uint8))
    markers = cv2.resize(beside, (g.grid_shape[1] * g.grid_px, g.grid_shape[0] * g.grid_px),
                         interpolation=cv2.INTER_NEAREST)
    board_px = np.ones((h, w), bool)
    board_px[:min(h, markers.shape[0]), :min(w, markers.shape[1])] &= ~markers[:h, :w].view(bool)
    share = float(((board.image >= CLIPPED).any(axis=2) & board_px).sum() / max(1, board_px.sum()))
    if share < OVEREXPOSED:
        return None
    return (f"{share:.0%} of the board is overexposed in this photo (white at the camera's ceiling): pale pieces "
            f"there are read less surely; dim the lamp over it or lower the camera's exposure, and enrol again")


def cell_means(image: np.ndarray, grid_px: int, shape: tuple[int, int]) -> np.ndarray:
    """The mean of ``image`` (one channel) over each grid cell, float32."""
    rows, cols = shape
    return cv2.resize(image[:rows * grid_px, :cols * grid_px].astype(np.float32, copy=False), (cols, rows),
                      interpolation=cv2.INTER_AREA)


def _around(cells: np.ndarray) -> np.ndarray:
    """Each grid cell's value averaged with the eight around it."""
    return cv2.blur(cells, (3, 3), borderType=cv2.BORDER_REFLECT)


def _correlation(f: np.ndarray, fb: np.ndarray, ff: np.ndarray, b: np.ndarray, var_b: np.ndarray) -> np.ndarray:
    """The correlation of f with b from their means (``f``, ``b``), the mean of their product and of f's square,
    and b's variance."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return (fb - f * b) / np.sqrt(np.maximum((ff - f * f) * var_b, 1e-12))


def _thin(cells: np.ndarray) -> np.ndarray:
    """At most ``FIT_CELLS`` of ``cells``, evenly spread (a smooth surface of six terms needs no more)."""
    return cells[::max(1, len(cells) // FIT_CELLS)]


def _spread(values: np.ndarray) -> float:
    """A robust standard deviation (``robust.centre_and_spread``; 0 of nothing)."""
    return centre_and_spread(np.asarray(values, np.float64))[1] if len(values) else 0.0
