"""The physical shape of each piece label: what the renderer draws and what one piece's area is.

A layout may describe its pieces in ``[game.pieces]`` (``label = {kind = "cube", size = [16, 16],
height = 16}``); otherwise the defaults below are used for the four shipped boards, and for any other
board a cube about two thirds of the smallest zone that holds the label.

>>> from calibration.layout import load_layout
>>> piece_shapes(load_layout("chaudron"))["fire"]
PieceShape(kind='disc', size=(20.0, 20.0), height=4.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from calibration.layout import Layout

NEAR_CAMERA = 1.04  # a top face 16 mm up, seen from ~0.8 m, looks about 4 % larger than its footprint
KINDS = ("cube", "disc", "seal", "gem", "tile", "card")


@dataclass(frozen=True)
class PieceShape:
    kind: str
    size: tuple[float, float]  # footprint in mm (width, depth); a disc's diameter twice
    height: float  # mm above the board

    @property
    def area_mm2(self) -> float:
        """Footprint area: what one piece covers seen from straight above."""
        w, d = self.size
        return math.pi * w * d / 4 if self.kind in ("disc", "seal", "gem") else w * d


def _cube(side: float) -> PieceShape:
    return PieceShape("cube", (side, side), side)


_DEFAULTS: dict[str, dict[str, PieceShape]] = {
    # Rule texts and DESIGN.md give cubes of about 16 mm (Alchimiste) and 15 mm (Chaudron), tokens of 20 mm.
    "alchimiste": {
        **{c: _cube(16) for c in ("grey", "blue", "orange", "yellow", "green")},
        **{s: PieceShape("seal", (22, 22), 6) for s in
           ("seal-red", "seal-white", "seal-black", "seal-purple", "seal-pink")},
        "tile": PieceShape("tile", (30, 20), 2.5),
    },
    "chaudron": {
        **{c: _cube(15) for c in ("bone", "root", "fluid")},
        **{t: PieceShape("disc", (20, 20), 4) for t in ("fire", "poison", "burnt")},
        "stone": PieceShape("gem", (14, 14), 9),
    },
    "alchymia": {c: PieceShape("gem", (22, 22), 10) for c in ("green", "white", "blue", "yellow", "red")},
    "alchemists": {i: PieceShape("card", (63, 88), 0.5) for i in
                   ("fern", "claw", "mushroom", "flower", "root", "scorpion", "toad", "feather")},
}


def piece_shapes(layout: Layout) -> dict[str, PieceShape]:
    """Shape of every non-empty label of ``layout``."""
    custom = layout.game.get("pieces", {}) if isinstance(layout.game, dict) else {}
    defaults = _DEFAULTS.get(layout.name, {})
    out: dict[str, PieceShape] = {}
    for label in layout.palette:
        if label in custom:
            out[label] = _parse(custom[label], layout.name, label)
        elif label in defaults:
            out[label] = defaults[label]
        else:
            sizes = [min(z.size) for z in layout.zones if label in z.labels]
            side = 0.65 * min(sizes) if sizes else 15.0
            if any(z.kind == "count" for z in layout.zones if label in z.labels):
                side = min(side, 16.0)
            out[label] = _cube(round(side, 1))
    return out


def _parse(raw, layout_name: str, label: str) -> PieceShape:
    where = f"{layout_name}: game.pieces.{label}"
    if not isinstance(raw, dict):
        raise ValueError(f"{where}: expected {{kind, size, height}}")
    kind = raw.get("kind", "cube")
    if kind not in KINDS:
        raise ValueError(f"{where}.kind: expected one of {', '.join(KINDS)}, got {kind!r}")
    size = raw.get("size")
    if not (isinstance(size, list) and len(size) == 2 and all(isinstance(v, int | float) and v > 0 for v in size)):
        raise ValueError(f"{where}.size: expected [width, depth] in mm")
    height = raw.get("height", size[0] if kind == "cube" else 3)
    if not isinstance(height, int | float) or height < 0:
        raise ValueError(f"{where}.height: expected a height in mm")
    return PieceShape(kind, (float(size[0]), float(size[1])), float(height))
