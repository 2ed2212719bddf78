"""One table's own pieces: real components are never quite the size and colour the layout says.

A ``PieceSet`` gives every label of a layout a size factor (one per piece kind and nominal size, as one
manufacturer cuts all its cubes alike, plus a little per label) and an RGB colour (the palette's, shifted
for the whole set as one print run is, and a little per label). Each piece then varies a little more as it
is set down (``vision.render`` draws that from the placement seed).

>>> import numpy as np
>>> from calibration.layout import load_layout
>>> layout = load_layout("chaudron")
>>> kit = random_piece_set(layout, np.random.default_rng(3))
>>> 0.78 < kit.scale["bone"] < 1.22 and kit.scale["bone"] != 1.0
True
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np

from calibration.layout import Layout
from vision.colour import lab_to_rgb, rgb_to_lab
from vision.pieces import PieceShape, piece_shapes


@dataclass(frozen=True)
class PieceSet:
    scale: dict[str, float]  # label -> size factor against the layout's shape
    colours: dict[str, tuple[int, int, int]]  # label -> RGB

    def shapes(self, layout: Layout) -> dict[str, PieceShape]:
        """The layout's piece shapes at this set's sizes (footprint and height alike)."""
        out = {}
        for label, shape in piece_shapes(layout).items():
            k = self.scale.get(label, 1.0)
            out[label] = replace(shape, size=(shape.size[0] * k, shape.size[1] * k), height=shape.height * k)
        return out

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def random_piece_set(layout: Layout, rng: np.random.Generator, size_off: tuple[float, float] = (0.10, 0.20),
                     colour_de: float = 7.0) -> PieceSet:
    """Sizes ``size_off`` (fractions) larger or smaller than the layout says, one factor per piece kind
    and nominal size, and 2 % more per label; colours shifted in CIELAB by up to about ``colour_de`` for the
    whole set and as much again per label."""
    shapes = piece_shapes(layout)
    kinds: dict[tuple, float] = {}
    scale, colours = {}, {}
    common = rng.normal(0, colour_de / 3, 3)
    for label in sorted(shapes):
        shape = shapes[label]
        key = (shape.kind, shape.size, shape.height)
        if key not in kinds:
            kinds[key] = 1 + float(rng.choice((-1, 1)) * rng.uniform(*size_off))
        scale[label] = round(kinds[key] * float(rng.uniform(0.98, 1.02)), 4)
        lab = rgb_to_lab([layout.colour(label)])[0] + common + rng.normal(0, colour_de / 3, 3)
        colours[label] = tuple(int(v) for v in lab_to_rgb(lab))
    return PieceSet(scale, colours)
