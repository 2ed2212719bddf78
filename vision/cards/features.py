"""What a card looks like to the matcher: a small thumbnail, normalised for the light, compared by correlation.

The upright card image is divided by its own mean colour (the light's colour and strength go), turned into
opponent channels (brightness, red-green, yellow-blue), reduced to ``GRID`` cells with area averaging (noise,
blur and a millimetre of misfit go), and each channel is standardised over the card. Two cards compare by
correlation, cell block by cell block: the mean of the blocks that agree best, so that a fingertip over a
corner (one or two blocks of twelve) costs little. Which end of the card is up is not known: the query is
compared under a half turn too (and under quarter turns for a card that is almost square).
"""

from __future__ import annotations

import functools

import cv2
import numpy as np

GRID = (12, 16)  # cells across and down an upright card
BLOCKS = (3, 4)  # blocks of cells across and down, for the robust correlation
KEEP_BLOCKS = 10  # of the 12 blocks, the best 10 count: a fingertip hides one or two
CHROMA_WEIGHT = 1.2  # colour counts a little more than brightness: shading moves brightness most

_OPPONENT = np.array([[1 / 3, 1 / 3, 1 / 3],  # brightness (B, G, R order)
                      [0.0, -0.5, 0.5],  # red - green
                      [-0.5, 0.25, 0.25]], np.float32)  # yellow - blue


def describe(card: np.ndarray) -> np.ndarray:
    """The descriptor of an upright card image (BGR uint8): (rows, cols, 3) float32, standardised."""
    n = card.shape[0] * card.shape[1]
    if card.dtype == np.uint8 and n * 259 < 2 ** 24:
        # The float32 sums of value + 4 stay exact integers: summed as such they are the same, faster; then each
        # channel's 256 values over their mean make a lookup table (the same floats as dividing).
        mean = (np.float32(cv2.sumElems(card)[:3]) + np.float32(4 * n)) / np.float32(n)
        f = cv2.LUT(card, np.ascontiguousarray(((np.arange(256, dtype=np.float32) + 4.0)[:, None] / mean)[None]))
    else:
        f = card.astype(np.float32) + 4.0
        f /= f.reshape(-1, 3).mean(axis=0)
    small = cv2.resize(f, GRID, interpolation=cv2.INTER_AREA)
    opp = cv2.transform(small, _OPPONENT)
    opp -= opp.reshape(-1, 3).mean(axis=0)
    spread = np.sqrt((opp.reshape(-1, 3) ** 2).mean(axis=0))
    # Brightness keeps its own scale; the two colour channels share one, so a grey card stays grey.
    opp[..., 0] /= max(float(spread[0]), 1e-3)
    opp[..., 1:] *= CHROMA_WEIGHT / max(float(np.sqrt((spread[1:] ** 2).mean())), 0.02)
    return opp


def turns(descriptor: np.ndarray, quarter: bool = False) -> list[np.ndarray]:
    """The descriptor under a half turn (and quarter turns when ``quarter``, for a near-square card whose
    quarter-turned thumbnail is resampled to the same grid)."""
    out = [descriptor, descriptor[::-1, ::-1]]
    if quarter:
        for k in (1, 3):
            turned = np.rot90(descriptor, k)
            out.append(cv2.resize(np.ascontiguousarray(turned), GRID, interpolation=cv2.INTER_LINEAR))
    return out


def blocks(descriptor: np.ndarray) -> np.ndarray:
    """(n_blocks, cells per block * 3): the descriptor cut into BLOCKS."""
    rows, cols = GRID[1], GRID[0]
    bx, by = BLOCKS
    d = descriptor.reshape(by, rows // by, bx, cols // bx, 3).transpose(0, 2, 1, 3, 4)
    return d.reshape(bx * by, -1)


def block_scores(query: np.ndarray, refs: np.ndarray) -> np.ndarray:
    """Robust correlation of one query (n_blocks, k) with many references (n, n_blocks, k): per block the
    cosine of the two, then the mean of the KEEP_BLOCKS best blocks. Returns (n,)."""
    dots = np.einsum("bk,nbk->nb", query, refs)
    norms = np.linalg.norm(query, axis=1)[None, :] * np.linalg.norm(refs, axis=2)
    cos = dots / np.maximum(norms, 1e-6)
    best = np.sort(cos, axis=1)[:, -KEEP_BLOCKS:]
    return best.mean(axis=1)


# -- the fine descriptor: where look-alike cards differ ----------------------------------------------------

FINE_MM = 1.5  # cell size of the fine descriptor: a card's numbers, title and own mark are several cells
FINE_CHROMA = 0.6  # colour counts less in the fine cells than in the coarse: in dim light it is mostly noise
SHADING_MM = 10.0  # the slow shading taken out of the brightness: a blur this wide
SHIFTS_MM = (-1.0, -0.5, 0.0, 0.5, 1.0)  # a reference is kept shifted by these: the cut misses by a mm


def fine_grid(card_mm: tuple[float, float]) -> tuple[int, int]:
    """(cols, rows) of the fine descriptor of a card of ``card_mm``."""
    return max(4, round(card_mm[0] / FINE_MM)), max(4, round(card_mm[1] / FINE_MM))


def fine(card: np.ndarray, grid: tuple[int, int]) -> np.ndarray:
    """The fine descriptor of an upright card image (BGR): (rows, cols, 3) float32 at ``grid`` (cols, rows)
    cells: the light divided out, opponent channels, the card's slow shading (a bowed card, a light
    gradient) taken out of the brightness, each channel standardised over the card as in ``describe``."""
    return _standardised(cv2.resize(card.astype(np.float32), grid, interpolation=cv2.INTER_AREA)[None])[0]


def _standardised(cells: np.ndarray) -> np.ndarray:
    """``fine`` of cards already averaged into their cells: (cards, rows, cols, 3) BGR float32, all at once
    (a photo's 25 shifts cost 7-8 ms one by one, a third of that together; a smeared set describes each of
    its photos so). Dividing by the mean colour commutes with the area resize: the cells are divided."""
    n, rows, cols, _ = cells.shape
    # Channels first: each card's channel is one run of cells (broadcast over the last axis, a third of the cost).
    chans = np.ascontiguousarray(cells.reshape(n, rows * cols, 3).transpose(0, 2, 1))
    chans += np.float32(4.0)
    chans *= 1.0 / chans.mean(axis=2, keepdims=True)
    opp = _OPPONENT @ chans
    # Shading multiplies the brightness: its log minus its slow part (a blur over a third of the card) is
    # what the card's print shows. The blur is linear and separable: a product with each axis's matrix.
    lum = np.log(np.maximum(opp[:, 0], 0.02)).reshape(n, rows, cols)
    opp[:, 0] = (lum - _shading(rows).T @ lum @ _shading(cols)).reshape(n, rows * cols)
    opp -= opp.mean(axis=2, keepdims=True)
    spread = np.sqrt((opp * opp).mean(axis=2))  # (cards, 3): each channel's spread over the card's cells
    scale = np.empty((n, 3, 1), np.float32)
    scale[:, 0, 0] = 1.0 / np.maximum(spread[:, 0], 1e-3)
    scale[:, 1:, 0] = (FINE_CHROMA / np.maximum(np.sqrt((spread[:, 1:] ** 2).mean(axis=1)), 0.02))[:, None]
    opp *= scale
    return np.ascontiguousarray(opp.transpose(0, 2, 1)).reshape(n, rows, cols, 3)


@functools.cache
def _shading(size: int) -> np.ndarray:
    """(size, size): a row of ``size`` cells times this is it blurred by ``SHADING_MM`` (Gaussian, its edges
    reflected, as ``cv2.GaussianBlur`` does it: the matrix is that blur of each unit row)."""
    eye = np.eye(size, dtype=np.float32)
    m = cv2.GaussianBlur(eye, (0, 0), sigmaX=SHADING_MM / FINE_MM, sigmaY=1e-9, borderType=cv2.BORDER_REFLECT)
    m.flags.writeable = False  # (cached: shared by every call)
    return m


def fine_shifted(card: np.ndarray, grid: tuple[int, int], px_per_mm: float) -> np.ndarray:
    """The fine descriptors of ``card`` moved by each of SHIFTS_MM across and down: (shifts, rows, cols, 3)."""
    h, w = card.shape[:2]
    steps = [mm * px_per_mm for mm in SHIFTS_MM]
    if all(float(s).is_integer() for s in steps):
        # Whole pixels (the cut's 2 px/mm): windows of the card with its border repeated, the very pixels the
        # warp below gives, averaged across for each shift across, then down for each shift down.
        r = int(max(abs(s) for s in steps))
        padded = cv2.copyMakeBorder(card, r, r, r, r, cv2.BORDER_REPLICATE).astype(np.float32)
        across = [cv2.resize(padded[:, r - int(dx):r - int(dx) + w], (grid[0], h + 2 * r),
                             interpolation=cv2.INTER_AREA) for dx in steps]
        cells = [cv2.resize(a[r - int(dy):r - int(dy) + h], grid, interpolation=cv2.INTER_AREA)
                 for dy in steps for a in across]
        return _standardised(np.array(cells, np.float32))
    cells = []
    for dy in SHIFTS_MM:
        for dx in SHIFTS_MM:
            M = np.float32([[1, 0, dx * px_per_mm], [0, 1, dy * px_per_mm]])
            moved = cv2.warpAffine(card, M, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
            cells.append(cv2.resize(moved.astype(np.float32), grid, interpolation=cv2.INTER_AREA))
    return _standardised(np.array(cells, np.float32))
