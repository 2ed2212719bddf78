"""The binary mask operations the hand finder builds on: they must leave a mask where it lies."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vision.masks import closed, opened


@pytest.mark.parametrize("n", [2, 3, 4, 8])
def test_a_block_larger_than_the_square_stays_where_it_is(n):
    # cv2.morphologyEx erodes and dilates about the same anchor: with an even square its opening and closing
    # each came out a cell down and right, and the hand finder's core (closed, then opened) two cells off the
    # hand, over the places below and right of it.
    mask = np.zeros((40, 40), np.uint8)
    mask[10:25, 12:30] = 1
    assert np.array_equal(opened(mask, np.ones((n, n), np.uint8)), mask)
    assert np.array_equal(closed(mask, np.ones((n, n), np.uint8)), mask)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 6), st.integers(0, 2 ** 32 - 1))
def test_opening_keeps_what_a_square_fits_and_closing_fills_what_it_cannot_enter(n, seed):
    rng = np.random.default_rng(seed)
    mask = (rng.random((24, 24)) < 0.55).astype(np.uint8)
    mask[:n, :] = mask[-n:, :] = mask[:, :n] = mask[:, -n:] = 0  # (away from the border, where cv2 pads)
    # By definition: the union of the n x n squares that fit in the mask.
    fits = np.zeros_like(mask)
    for r in range(24 - n + 1):
        for c in range(24 - n + 1):
            if mask[r:r + n, c:c + n].all():
                fits[r:r + n, c:c + n] = 1
    square = np.ones((n, n), np.uint8)
    assert np.array_equal(opened(mask, square), fits)
    # Closing is opening's dual: the complement's opening, complemented (the border is background's).
    padded = np.pad(1 - mask, n, constant_values=1)
    assert np.array_equal(closed(mask, square), 1 - opened(padded, square)[n:-n, n:-n])
