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
    part = a.copy()  # (np.partition's copy and partition, without its wrapper)
    if a.size % 2:
        part.partition(k)
        return float(part[k])
    part.partition((k - 1, k))
    return float((part[k - 1] + part[k]) / 2)  # (np.mean's sum and division, in the array's precision)


def medians(a: np.ndarray) -> np.ndarray:
    """``np.median(a, axis=-1)`` of a float array (no NaN): the same values, several times faster when the
    last axis is not the array's only long one."""
    part = a.copy()
    k = a.shape[-1] // 2
    if a.shape[-1] % 2:
        part.partition(k, axis=-1)
        return part[..., k]
    part.partition((k - 1, k), axis=-1)
    return (part[..., k - 1] + part[..., k]) / 2


def lower_quartile(a: np.ndarray) -> float:
    """``np.percentile(a, 25)`` of a 1-d float array (no NaN): the same value."""
    at = 0.25 * (a.size - 1)
    k, t = int(at), at - int(at)
    part = a.copy()
    if k + 1 >= a.size:
        part.partition(k)
        return float(part[k])
    part.partition((k, k + 1))
    lo, hi = part[k], part[k + 1]
    d = hi - lo  # (numpy scalars: in the array's precision, as numpy interpolates)
    return float(lo + d * t if t < 0.5 else hi - d * (1 - t))


def centre_and_spread(a: np.ndarray) -> tuple[float, float]:
    """(median, standard deviation from the median absolute deviation) of a 1-d float array: a spread that
    the outliers (a hand, a shadow) do not widen."""
    centre = median(a)
    return centre, MAD_TO_SIGMA * median(np.abs(a - centre))


def channel_max(a: np.ndarray) -> np.ndarray:
    """``a.max(axis=-1)`` of an array whose last axis holds three channels: the same values. (numpy reduces a
    3-long last axis element by element, some twenty times slower than two elementwise maxima.)"""
    return np.maximum(np.maximum(a[..., 0], a[..., 1]), a[..., 2])


def channel_mean(a: np.ndarray) -> np.ndarray:
    """``a.mean(axis=-1)`` of an array whose last axis holds three channels: the same values (numpy adds them in
    order and divides by three), without numpy's slow reduction over a short last axis."""
    return (a[..., 0] + a[..., 1] + a[..., 2]) / a.dtype.type(3)
