"""The stacked test that sees each tray's picture: single layers it used to ask are counted, and stacked trays it
used to count are asked to be spread (rendered tables of debug seeds, calibrated as a user would)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from calibration.layout import load_layout
from vision.evaluate_piles import LAYOUT, LIGHTS, random_reserve, render, table, table_calibration
from vision.read import Reader
from vision.train_stacked import STACKED_SHARE


def _reading(seed: int, light: str, photo: int):
    """The referee's reading of photo ``photo`` of the first table ``train-stacked`` renders for ``seed`` and
    ``light`` (its own calibration frame learnt first), and the truth."""
    layout = load_layout(LAYOUT)
    rng = np.random.default_rng([seed, LIGHTS.index(light), 23])
    c, style = table(layout, light, rng, STACKED_SHARE)
    reader = Reader(layout, table_calibration(layout, c, style, light, rng), spread_stacked=True)
    for f in range(photo + 1):
        fc = replace(c, piles=style, placement_seed=int(rng.integers(2**31)), hand=c.hand if f == 0 else None)
        frame, truth = render(layout, random_reserve(layout, rng), fc, light, rng)
        reading = reader.read(frame)
    return reading, truth
