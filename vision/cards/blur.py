"""A card seen through blur: how the camera's shake, a hand setting the card down or a soft focus smeared it,
and its set's photos smeared alike.

A card enrolled sharp and seen smeared deviates from its photo along every stroke of its print: its title,
numbers and thin lines no longer fit their cells, and the fine print is not found again, so a card of the set
read `unknown` in a third of the shaken frames of table sets. Compared with its candidates' photos smeared as
it is, it fits them again, and its look-alikes, smeared alike, still differ from it where a smear leaves them
different (their art, their colours); where the smear erased the difference (a title's letters), it tells
nothing either way. Which cards are read so, and how strictly, is ``store.CardSet._through_blur``'s.

``estimate`` finds the smear: among straight smears (a length and a direction) and round soft focus, the one
that, applied to the nearest card's photo, makes it look most like the card as cut (normalised correlation
over the card's face within its border, the best shift of a few millimetres: the cut misses by that much).
The kernels are a grid, not a fit: every 15 degrees, lengths of 1.5 to 5.5 mm (the renderer's shake of up to
9 px on a mat seen at about 2 px/mm, and more), soft focus of 0.5 to 1.25 mm.

>>> k = kernel((0.0, 0.0, 0.0))
>>> k.shape, float(k.sum())
((1, 1), 1.0)
"""

from __future__ import annotations

import functools

import cv2
import numpy as np

from vision.cards.features import FINE_MM
from vision.cards.find import CARD_PX_PER_MM

SMEAR_MM = (1.5, 2.5, 3.5, 4.5, 5.5)  # straight smears tried (shake, a card moving as it is set down)...
SMEAR_DEG = tuple(range(0, 180, 15))  # ...in these directions (a smear is the same both ways)...
SOFTEN_MM = (0.5, 0.875, 1.25)  # ...and round soft focus (Gaussian sigma)
KERNELS = ((0.0, 0.0, 0.0), *((mm, float(deg), 0.0) for mm in SMEAR_MM for deg in SMEAR_DEG),
           *((0.0, 0.0, mm) for mm in SOFTEN_MM))
_SUPER = 8  # a straight smear is drawn this many times finer, then averaged down: its length is not rounded


def beyond_the_cells(smear: tuple[float, float, float]) -> bool:
    """Whether ``smear`` is more than the comparison forgives already: a straight smear longer than a cell
    (``FINE_MM``; the cells are compared at shifts of up to a millimetre), or soft focus wider than a third of
    one. A card cut from a still frame is that soft (the table seen from afar, its JPEG), and is read as it is."""
    return smear[0] > FINE_MM or smear[2] > FINE_MM / 3


@functools.cache
def kernel(smear: tuple[float, float, float]) -> np.ndarray:
    """The (length mm, direction degrees, soft focus sigma mm) smear as a normalised kernel at the cut's
    resolution (``CARD_PX_PER_MM``), square and of odd side."""
    length, angle, sigma = (smear[0] * CARD_PX_PER_MM, smear[1], smear[2] * CARD_PX_PER_MM)
    if length < 1.0:
        k = np.ones((1, 1), np.float32)
    else:
        n = (int(np.ceil(length)) | 1) + 2
        canvas = np.zeros((n * _SUPER, n * _SUPER), np.float32)
        mid = n * _SUPER / 2
        dx = np.cos(np.radians(angle)) * length * _SUPER / 2
        dy = np.sin(np.radians(angle)) * length * _SUPER / 2
        cv2.line(canvas, (int(mid - dx), int(mid - dy)), (int(mid + dx), int(mid + dy)), 1.0, _SUPER)
        k = cv2.resize(canvas, (n, n), interpolation=cv2.INTER_AREA)
    if sigma > 0:
        r = int(np.ceil(3 * sigma))
        g = cv2.getGaussianKernel(2 * r + 1, sigma).astype(np.float32)
        k = cv2.filter2D(np.pad(k, r), -1, g @ g.T, borderType=cv2.BORDER_CONSTANT)
    k = k / float(k.sum())
    k.flags.writeable = False  # (cached: shared by every call)
    return k


def smeared(image: np.ndarray, smear: tuple[float, float, float]) -> np.ndarray:
    """``image`` (a card at the cut's resolution) smeared by ``smear``."""
    if smear == KERNELS[0]:
        return image
    return cv2.filter2D(image, -1, kernel(smear), borderType=cv2.BORDER_REPLICATE)


def estimate(card: np.ndarray, photo: np.ndarray, margin_mm: float,
             spread: np.ndarray | None = None) -> tuple[float, float, float]:
    """The smear (``KERNELS``; the first: none) that makes ``photo`` look most like ``card`` (both BGR, one
    shape, at the cut's resolution): the best of ``scores`` (``spread``: ``photo_spread``, when kept)."""
    return KERNELS[int(np.argmax(scores(card, photo, margin_mm, spread)))]


def scores(card: np.ndarray, photo: np.ndarray, margin_mm: float, spread: np.ndarray | None = None) -> np.ndarray:
    """For each of ``KERNELS``, how like ``card`` ``photo`` smeared so looks: normalised correlation of the
    card's face within ``margin_mm`` of its edge against the smeared photo, at the best shift up to
    ``margin_mm`` (``cv2.TM_CCOEFF_NORMED``'s score).

    The correlation is linear in the photo, so it is worked out once, against the photo itself, over the
    shifts widened by the largest kernel's reach; each smear's is then that map smeared alike, a few hundred
    shifts rather than the card's pixels. The smeared photo's spread under the face at each shift is the
    photo's alone (``photo_spread``), and a set keeps it per photo: the card's part costs a tenth of the whole
    (the 113 cards a dev bench asked about: 51 -> 19 processor ms each for the map smeared rather than the
    card; 13 -> 2 ms with the photo's part kept)."""
    m = _margin(margin_mm)
    face = cv2.cvtColor(card, cv2.COLOR_BGR2GRAY).astype(np.float32)[m:-m, m:-m]
    face -= face.mean()
    face_norm = float(np.sqrt(np.square(face, dtype=np.float64).sum()))
    grey = cv2.cvtColor(photo, cv2.COLOR_BGR2GRAY).astype(np.float32)
    if spread is None:
        spread = photo_spread(photo, margin_mm)
    h, w = face.shape
    shifts = (grey.shape[0] - h + 1, grey.shape[1] - w + 1)
    r = _REACH
    # The face against the photo with its border repeated (as ``smeared`` repeats it) at every shift a smear
    # may draw on.
    wide = cv2.matchTemplate(cv2.copyMakeBorder(grey, r, r, r, r, cv2.BORDER_REPLICATE), face, cv2.TM_CCORR)
    products = np.empty((len(KERNELS), *shifts))  # each smeared photo's products with the face, summed
    for i, smear in enumerate(KERNELS):
        smeared_products = cv2.filter2D(wide, -1, kernel(smear), borderType=cv2.BORDER_CONSTANT)
        products[i] = smeared_products[r:r + shifts[0], r:r + shifts[1]]
    return (products / np.maximum(spread * face_norm, 1e-6)).reshape(len(KERNELS), -1).max(axis=1)


def photo_spread(photo: np.ndarray, margin_mm: float) -> np.ndarray:
    """(kernels, shifts, shifts): the spread (root of the summed squared deviation) of ``photo``'s brightness
    smeared by each of ``KERNELS`` under a card's face (``scores``: the photo's shape less ``margin_mm`` all
    round) at each shift, from the smeared photo's integral images: what ``scores`` asks of the photo alone."""
    m = _margin(margin_mm)
    grey = cv2.cvtColor(photo, cv2.COLOR_BGR2GRAY).astype(np.float32)
    h, w = grey.shape[0] - 2 * m, grey.shape[1] - 2 * m
    out = np.empty((len(KERNELS), 2 * m + 1, 2 * m + 1))
    for i, smear in enumerate(KERNELS):
        sums, squares = cv2.integral2(smeared(grey, smear), sdepth=cv2.CV_64F, sqdepth=cv2.CV_64F)
        s1 = sums[h:, w:] - sums[:-h, w:] - sums[h:, :-w] + sums[:-h, :-w]
        s2 = squares[h:, w:] - squares[:-h, w:] - squares[h:, :-w] + squares[:-h, :-w]
        out[i] = np.sqrt(np.maximum(s2 - s1 * s1 / (h * w), 0.0))
    return out


def _margin(margin_mm: float) -> int:
    return max(1, round(margin_mm * CARD_PX_PER_MM))


_REACH = max(kernel(k).shape[0] // 2 for k in KERNELS)  # the widest kernel's half side (px)
