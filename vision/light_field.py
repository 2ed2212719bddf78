"""The light over the board, fitted on the board's own background.

The board's background is sampled in every grid cell that holds no zone and no marker; a smooth field is
fitted to those cells in log(colour): the light's colour (three constants) and one quadratic surface of its
strength that the channels share, with outliers (hands, sleeves, shadows, stray objects) dropped pass by
pass. ``LightField.gain`` then gives the per-channel gains that bring the board anywhere to its nominal
colour, so that colour prototypes hold under any light.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision import classify, robust

FIELD_RIDGE = 0.02  # per cell: holds back the curvature terms where the free cells do not pin them down
FIELD_SLACK = 0.1  # log units the field may leave the range of the cells it was fitted on
BOARD_CHROMA = 0.08  # log-chromaticity a board cell may be off the board's colour under the markers' light
MIN_BOARD_SHARE = 0.25  # fewer free cells than this of the board's colour: the board's print is not its palette


@dataclass(frozen=True)
class LightField:
    """The light over the board in log(colour): the light's colour (three constants, in ``coef[0]``) plus
    one quadratic surface of its strength that the channels share (the columns of ``coef[1:]`` are equal),
    held within ``FIELD_SLACK`` of the range the fitted cells showed (a surface fitted on a ring of free
    cells, with a gap where a hand or its shadow lies, must not run away across the board's middle)."""
    coef: np.ndarray  # (6, 3)
    lo: np.ndarray  # (3,)
    hi: np.ndarray  # (3,)
    board: np.ndarray | None = None  # (n,) bool: the cells it was fitted on, the free board (None: all of them)

    def gain(self, basis: np.ndarray, ref: np.ndarray) -> np.ndarray:
        """Per-channel gains that bring the board's colour at ``basis`` points to ``ref``."""
        return self.gain_rows(np.atleast_2d(basis), ref).T.reshape(*np.shape(basis)[:-1], 3)

    def gain_rows(self, basis: np.ndarray, ref: np.ndarray) -> np.ndarray:
        """``gain`` at the rows of ``basis`` as (3, n), channel by channel: numpy is slow along a short axis
        (the same values as (n, 3) at once)."""
        log_field = self.coef.T @ basis.T
        for c, lo, hi in zip(log_field, self.lo - FIELD_SLACK, self.hi + FIELD_SLACK, strict=True):
            np.clip(c, lo, hi, out=c)
        np.exp(log_field, out=log_field)
        return np.divide(np.asarray(ref)[:, None], log_field, out=log_field)


def fit_light_field(basis: np.ndarray, colours: np.ndarray, board_chroma: np.ndarray | None = None,
                    tint: np.ndarray | None = None) -> LightField | None:
    """Fit the light field, or None. The cells it starts from have the board's colour under this light
    (``board_chroma``, log-chromaticity, from the markers' white paper): a hand over most of a small
    board, or a hand's colour close to the board's, would otherwise set the median. Shadows only take
    light away, so the board as lit is the upper side of its cells: each pass drops the cells well below
    the surface (a hand's shadow may lie over half the free board) and those far above it or off its
    colour (a pale hand, a sleeve). ``tint``: how the light's colour changes over the board, (6, 3) log
    coefficients over the basis (from the markers' white paper: a warm lamp on one side, daylight on the
    other), divided out of the cells before the fit and put back into the field."""
    if len(colours) < 6:
        return None
    logc = np.log(np.clip(colours, 1e-3, None))
    if tint is not None:
        logc = logc - basis @ tint
    chroma = logc - (classify.row_sums(logc) / 3)[:, None]
    keep = np.zeros(len(colours), bool)
    if board_chroma is not None:
        keep = classify.row_max_abs(chroma - board_chroma) < BOARD_CHROMA
    if keep.sum() < max(6, MIN_BOARD_SHARE * len(colours)):  # (a board printed unlike its palette)
        keep = classify.row_max_abs(chroma - np.median(chroma, axis=0)) < 0.12
    if keep.sum() < 6:
        keep[:] = True
    coef = None
    ridge = np.diag([1e-6, 1e-6, 1e-6, 1.0, 1.0, 1.0])
    for _ in range(5):
        kept_at = np.flatnonzero(keep)  # (rows taken by index: a third of the time of a boolean mask)
        n_keep = len(kept_at)
        if n_keep < 6:
            break
        b, kept = basis.take(kept_at, axis=0), logc.take(kept_at, axis=0)
        # One light: its colour is the same everywhere (three constants), only its strength varies (one
        # surface). A surface per channel could tint the board where no cell pins it down, under a hand,
        # until the hand looked like the board.
        # (sums over the count: np.mean's values, without its overhead)
        colour = kept.sum(axis=0) / n_keep
        shape = np.linalg.solve(b.T @ b + FIELD_RIDGE * n_keep * ridge, b.T @ (classify.row_sums(kept - colour) / 3))
        coef = np.repeat(shape[:, None], 3, axis=1)
        coef[0] += colour
        resid = logc - basis @ coef
        level = classify.row_sums(resid) / 3
        off_colour = classify.row_max_abs(resid - level[:, None])
        # The board's scatter about the surface, from the cells' spread about their own median (not about
        # the surface, which a big shadow pulls away from both its cells and the lit ones).
        spread = max(0.02, robust.centre_and_spread(level.take(kept_at))[1])
        new = ((level > -max(0.06, 2.5 * spread)) & (level < max(0.1, 3.0 * spread))
               & (off_colour < max(0.05, 3 * spread)))
        if np.array_equal(new, keep):
            break
        keep = new
    if coef is None:
        return None
    fitted = keep.sum() >= 6
    if tint is not None:
        coef = coef + tint
        logc = logc + basis @ tint
    logc = logc[keep] if fitted else logc
    return LightField(coef, logc.min(axis=0), logc.max(axis=0), keep if fitted else None)


def board_tint(basis: np.ndarray, colours: np.ndarray, noise: float, least: float) -> np.ndarray | None:
    """How the light's colour changes over the board, from the free board's own cells (``colours`` at
    ``basis`` rows) where the markers' paper cannot tell (clipped): a plane of log-chromaticity over the
    board's x and y, as ``vision.read.light_tint`` fits through the markers, or None when it changes less than
    ``least`` across the board. Cells off the plane (a hand, a sleeve, a piece's shadow) are dropped pass by
    pass at 2.5 times their median distance from the plane, ``noise`` at least, so that a hand over part of the
    board does not tilt the plane until the hand looked like the board."""
    logc = np.log(np.clip(colours, 1e-3, None))
    chroma = logc - (classify.row_sums(logc) / 3)[:, None]
    xy = basis[:, :3]
    keep = np.ones(len(chroma), bool)
    plane = None
    for _ in range(6):
        if keep.sum() < 6:
            break
        plane = np.linalg.lstsq(xy[keep], chroma[keep], rcond=None)[0]
        off = classify.row_max_abs(xy @ plane - chroma)
        # (``off`` is a distance: its median is its scale, and a sleeve's cells tilting the first plane make
        # the board's residuals bimodal, which a spread about the median would widen past the sleeve's)
        new = off < max(noise, 2.5 * robust.median(off[keep]))
        if np.array_equal(new, keep):
            break
        keep = new
    return None if plane is None else tint_of(plane, least)


def tint_of(plane: np.ndarray, least: float) -> np.ndarray | None:
    """A plane of log-chromaticity over (1, x, y) as (6, 3) coefficients over ``field_basis`` (the constant
    and the curvature rows zero: the field fits the light's own colour), or None where it changes less than
    ``least`` across the board (one light)."""
    if 2 * np.abs(plane[1:]).sum(axis=0).max() < least:
        return None
    tint = np.zeros((6, 3))
    tint[1:3] = plane[1:]
    return tint


def field_basis(centres_mm: np.ndarray, size_mm) -> np.ndarray:
    x = centres_mm[:, 0] / size_mm[0] * 2 - 1
    y = centres_mm[:, 1] / size_mm[1] * 2 - 1
    return np.stack([np.ones_like(x), x, y, x * x, x * y, y * y], axis=1)
