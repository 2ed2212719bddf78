"""A card's fine print found again, block by block, at the cut's resolution (0.5 mm pixels).

A card of a family never enrolled shares its frame, palette, bands, rules box and, in a family of one
picture, its art with the enrolled cards of its family; it differs in its title's letters, its numbers and
a small mark, which the 1.5 mm cells of ``features.fine`` blur into the same texture (dev decks 601-608,
701-711, every card judged as if enrolled alone: 8 % of the cards never enrolled passed the whole-face
fit). At 0.5 mm pixels they differ: the card's brightness with its slow parts taken away (``DETAIL_MM``) is
compared block by block (``BLOCK_MM``, half overlapping, each at its best shift of up to ``SHIFT_PX``) over
the blocks where the card or the query has print; a card of the set correlates in all but a few (noise in
dim light, a glare spot), a stranger's title and numbers do not. Correlation, not distance: blur, dim
light and a sleeve's haze lower the print's contrast, not its shape. A card enrolled alone of its family
is held to all its print (nothing says where its family's cards differ); a card with look-alikes to the
blocks of its print that none of them shows (``tell.Teller._own_blocks``).
"""
from __future__ import annotations

import cv2
import numpy as np

from vision.robust import median

DETAIL_MM = 1.5  # the print is what a blur of this much (sigma) takes away: letters, digits, edges
BLOCK_MM = 6.0  # blocks of this side (a few letters of a title, a digit), half overlapping
MARGIN_MM = 3.0  # the card's border and its cut edge left out
SHIFT_PX = 1  # each block at its best shift of up to this, the query registered onto the card (``tell``): no
# further, or a card of a family of one picture never enrolled finds its own digits' strokes in the card's
PRINTED = 0.25  # a block has print where its energy reaches this fraction of the card's typical printed block
CORRELATES = 0.4  # a block of print is found again when it correlates this much with the card's
MISSING_MAX = 3  # blocks of print not found again that a card of the set may show (a fingertip, a glare spot)
# Where it differs from its nearest look-alike, a card's print correlates, in the median, at least this share of
# what the rest of it does in the same view (``found_again``). Dev benches 19710 and 19711, the query as cut: the cards
# of the set 0.73 and over (2 % under 0.78), the strangers that passed every other check 0.52-0.63; the middle.
CLEAR_SHARE = 0.68


def detail(card: np.ndarray, px_per_mm: float) -> np.ndarray:
    """The card's print (BGR uint8, upright): its brightness minus its slow parts, float32."""
    grey = cv2.cvtColor(card, cv2.COLOR_BGR2GRAY).astype(np.float32)
    return grey - cv2.GaussianBlur(grey, (0, 0), DETAIL_MM * px_per_mm)


def _grid(shape: tuple[int, int], px_per_mm: float) -> tuple[int, np.ndarray, np.ndarray]:
    """The block side and the blocks' top rows and left columns (px) on a card image of ``shape``."""
    h, w = shape
    b = max(4, round(BLOCK_MM * px_per_mm))
    m = max(SHIFT_PX, round(MARGIN_MM * px_per_mm))
    return b, np.arange(m, h - m - b + 1, b // 2), np.arange(m, w - m - b + 1, b // 2)


def _sums(img: np.ndarray, b: int, ys: np.ndarray, xs: np.ndarray) -> np.ndarray:
    """The sums of ``img`` over every block (len(ys), len(xs)), from its integral image."""
    return _block_sums(cv2.integral(img, sdepth=cv2.CV_64F), b, ys, xs)


def _block_sums(s: np.ndarray, b: int, ys: np.ndarray, xs: np.ndarray) -> np.ndarray:
    """The sums over the blocks of side ``b`` at rows ``ys`` and columns ``xs`` from an integral image."""
    y, x = ys[:, None], xs[None, :]
    return s[y + b, x + b] - s[y, x + b] - s[y + b, x] + s[y, x]


def inside(mask: np.ndarray, shape: tuple[int, int], px_per_mm: float) -> np.ndarray:
    """The blocks (as ``blocks`` grids them on a card image of ``shape``) wholly inside ``mask`` (a boolean
    grid of any size over the card: the cells where nothing lies over it)."""
    b, ys, xs = _grid(shape, px_per_mm)
    px = cv2.resize(mask.astype(np.uint8), (shape[1], shape[0]), interpolation=cv2.INTER_NEAREST)
    # And a block's width from what lies over the card: a fingertip's shadow and soft edge reach beyond the
    # cells it sets apart.
    px = cv2.erode(px, np.ones((b, b), np.uint8), borderType=cv2.BORDER_CONSTANT, borderValue=1)
    return _sums(px.astype(np.float32), b, ys, xs) >= b * b - 0.5


def blocks(ref: np.ndarray, query: np.ndarray, px_per_mm: float) -> tuple[np.ndarray, np.ndarray]:
    """Per block of the card (half overlapping ``BLOCK_MM``, inside ``MARGIN_MM``): whether ``ref`` or
    ``query`` (``detail`` of the card and of the query registered onto it) has print there, and whether the
    two correlate there (``CORRELATES``, at the best shift of up to ``SHIFT_PX``). Two boolean grids."""
    printed, corr = correlations(ref, query, px_per_mm)
    return printed, corr >= CORRELATES


def correlations(ref: np.ndarray, query: np.ndarray, px_per_mm: float) -> tuple[np.ndarray, np.ndarray]:
    """Per block (as ``blocks`` grids them): whether ``ref`` or ``query`` has print there, and how much the
    two correlate there at the best shift of up to ``SHIFT_PX`` (-1..1)."""
    if query.shape != ref.shape:
        query = cv2.resize(query, (ref.shape[1], ref.shape[0]), interpolation=cv2.INTER_LINEAR)
    b, ys, xs = _grid(ref.shape, px_per_mm)

    def sums(img: np.ndarray) -> np.ndarray:
        return _sums(img, b, ys, xs)

    aa = sums(ref * ref)
    qq = cv2.integral(query * query, sdepth=cv2.CV_64F)
    best = np.full(aa.shape, -1.0)
    for dy in range(-SHIFT_PX, SHIFT_PX + 1):
        for dx in range(-SHIFT_PX, SHIFT_PX + 1):
            bb = _block_sums(qq, b, ys + dy, xs + dx)  # the query's block moved by (dy, dx): inside the margin
            moved = np.roll(query, (-dy, -dx), axis=(0, 1))  # the margin keeps the wrapped rows out of the blocks
            best = np.maximum(best, sums(ref * moved) / np.sqrt(aa * bb + 1e-6))
    energy = np.maximum(aa, _block_sums(qq, b, ys, xs))
    typical = median(energy[energy >= median(energy.ravel())])
    return energy >= PRINTED * typical, best


def printed(img: np.ndarray, px_per_mm: float) -> np.ndarray:
    """Per block (as ``blocks`` grids them), whether ``img`` (``detail`` of a card) has print there."""
    b, ys, xs = _grid(img.shape, px_per_mm)
    energy = _sums(img * img, b, ys, xs)
    return energy >= PRINTED * median(energy[energy >= median(energy.ravel())])


def patches(img: np.ndarray, px_per_mm: float, where: np.ndarray) -> np.ndarray:
    """(n, side²): ``img``'s blocks (as ``blocks`` grids them) at the ``where`` ones, in row-major order."""
    b, ys, xs = _grid(img.shape, px_per_mm)
    r, c = np.nonzero(where)
    return np.lib.stride_tricks.sliding_window_view(img, (b, b))[ys[r], xs[c]].reshape(len(r), b * b)


def shifted_patches(img: np.ndarray, px_per_mm: float, where: np.ndarray) -> np.ndarray:
    """(n, shifts, side²): ``patches`` of ``img`` moved by every shift of up to ``SHIFT_PX``."""
    b, ys, xs = _grid(img.shape, px_per_mm)
    r, c = np.nonzero(where)
    windows = np.lib.stride_tricks.sliding_window_view(img, (b, b))
    steps = np.arange(-SHIFT_PX, SHIFT_PX + 1)
    dy, dx = np.repeat(steps, len(steps)), np.tile(steps, len(steps))  # every shift, row by row
    return windows[ys[r][:, None] + dy, xs[c][:, None] + dx].reshape(len(r), len(dy), b * b)  # one gather


def best_correlation(ref: np.ndarray, query: np.ndarray) -> np.ndarray:
    """(n,): per block, the correlation of ``ref``'s patch (n, side²) with ``query``'s at its best shift
    (n, shifts, side²), as ``correlations`` computes it: a few blocks compared directly, for a tenth of the
    cost of every block."""
    dots = np.einsum("nk,nsk->ns", ref, query)
    norms = np.sqrt((ref * ref).sum(axis=1)[:, None] * np.einsum("nsk,nsk->ns", query, query) + 1e-6)
    return (dots / norms).max(axis=1) if len(ref) else np.zeros(0)


def found_again(ref: np.ndarray, query: np.ndarray, px_per_mm: float, seen: np.ndarray, own: np.ndarray | None = None,
                varies: np.ndarray | None = None) -> bool:
    """Whether the card's print (``ref``) is found again in ``query``, over the blocks ``seen`` (boolean grids of
    blocks as ``blocks`` has them): all but ``MISSING_MAX`` blocks of its print (of its ``own`` blocks, when given:
    those none of its look-alikes shows), and, with ``varies`` (where the card differs from its nearest look-alike:
    ``tell.Teller._varying_blocks``), its print there about as clear as the rest of it: the median correlation
    there at least ``CLEAR_SHARE`` of the median over the rest. A view's blur, dim light and haze lower both; a
    card of the family never enrolled shows another title, other digits and no mark or another there, which
    correlate with the card's through the band they lie on (0.4-0.6), not as its own do (0.9 and over). The blocks
    where the card differs from its nearest look-alike tell more than the few that none of its look-alikes shows
    (a card whose title is like another's in length may have one or none)."""
    query, printed_blocks = _printed(ref, query, px_per_mm)
    asked = printed_blocks & seen if own is None else printed_blocks & seen & own
    if _missing(ref, query, px_per_mm, asked) > MISSING_MAX:
        return False
    if varies is None:
        return True
    varies, rest = printed_blocks & seen & varies, printed_blocks & seen & ~varies
    rest[1::2] = False  # (every other block across and down: no two overlap, a quarter of the cost, as telling)
    rest[:, 1::2] = False
    if not varies.any() or not rest.any():
        return True
    asked = varies | rest
    corr = np.zeros(asked.shape)
    corr[asked] = best_correlation(patches(ref, px_per_mm, asked), shifted_patches(query, px_per_mm, asked))
    return median(corr[varies]) >= CLEAR_SHARE * median(corr[rest])


def missing(ref: np.ndarray, query: np.ndarray, px_per_mm: float, where: np.ndarray | None = None) -> int:
    """How many blocks of print (``blocks``) are not found again, of those in ``where`` (a boolean grid of
    blocks) when given. Which blocks have print takes every block's energy (the card's typical printed block);
    only the blocks asked about are then compared (``best_correlation``, as ``correlations`` compares them)."""
    query, asked = _printed(ref, query, px_per_mm)
    return _missing(ref, query, px_per_mm, asked if where is None else asked & where)


def _printed(ref: np.ndarray, query: np.ndarray, px_per_mm: float) -> tuple[np.ndarray, np.ndarray]:
    """``query`` at ``ref``'s size, and the blocks where either has print (every block's energy against the
    card's typical printed block)."""
    if query.shape != ref.shape:
        query = cv2.resize(query, (ref.shape[1], ref.shape[0]), interpolation=cv2.INTER_LINEAR)
    b, ys, xs = _grid(ref.shape, px_per_mm)
    energy = np.maximum(_sums(ref * ref, b, ys, xs), _sums(query * query, b, ys, xs))
    return query, energy >= PRINTED * median(energy[energy >= median(energy.ravel())])


def _missing(ref: np.ndarray, query: np.ndarray, px_per_mm: float, asked: np.ndarray) -> int:
    """How many of the ``asked`` blocks do not correlate (``CORRELATES``); only those are compared."""
    found = best_correlation(patches(ref, px_per_mm, asked), shifted_patches(query, px_per_mm, asked))
    return int(np.count_nonzero(found < CORRELATES))
