"""Order statistics for the per-frame path: numpy's values, without numpy's overhead on small arrays.

``np.median`` and ``np.percentile`` cost tens of microseconds each in argument handling alone; the reader
takes several per frame over a few hundred cells. These give exactly numpy's values (a test checks it).
"""

from __future__ import annotations

import numpy as np

MAD_TO_SIGMA = 1.4826  # a normal spread's standard deviation is this many times its median absolute deviation


def median(a: np.ndarray) -> float:
    """``np.median`` of a 1-d float array (no NaN): the same value."""
    k = a.size // 2
    if a.size % 2:
        return float(np.partition(a, k)[k])
    return float(np.mean(np.partition(a, (k - 1, k))[k - 1:k + 1]))


def lower_quartile(a: np.ndarray) -> float:
    """``np.percentile(a, 25)`` of a 1-d float array (no NaN): the same value."""
    at = 0.25 * (a.size - 1)
    k, t = int(at), at - int(at)
    if k + 1 >= a.size:
        return float(np.partition(a, k)[k])
    part = np.partition(a, (k, k + 1))
    lo, hi = part[k], part[k + 1]
    d = hi - lo  # (numpy scalars: in the array's precision, as numpy interpolates)
    return float(lo + d * t if t < 0.5 else hi - d * (1 - t))


def centre_and_spread(a: np.ndarray) -> tuple[float, float]:
    """(median, standard deviation from the median absolute deviation) of a 1-d float array: a spread that
    the outliers (a hand, a shadow) do not widen."""
    centre = median(a)
    return centre, MAD_TO_SIGMA * median(np.abs(a - centre))
