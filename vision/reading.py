"""What a reading of a frame is: each slot's label and each count, with their confidences (DESIGN.md's
``read --json``), and which of them are too unsure to show as they are."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

LOW_CONFIDENCE = 0.6


@dataclass(frozen=True)
class ZoneReading:
    label: str
    confidence: float


@dataclass(frozen=True)
class CountReading:
    count: int | None
    confidence: float
    by_label: dict[str, int] = field(default_factory=dict)
    pieces_area: float = 0.0  # total lit top-face area, in pieces (before rounding)
    reason: str | None = None  # why there is no count (``count`` None): what the players should do
    cubes: tuple[tuple[float, float], ...] = ()  # where each cube counted lies, board mm (for the picture)
    sides: tuple[float, ...] = ()  # the side seen past each cube's top, px at one distance (vision.stacked)
    stray: float = 0.0  # the largest part of a top no counted cube covers, in tops (vision.count.stray_top; 0 where
    # a cube on another is not asked)
    shares: tuple[float, ...] = ()  # the share of a whole top each counted cube shows (vision.stacked.top_shares)
    closest: float = math.inf  # the two nearest counted cubes' distance, in top sides (vision.stacked.closest)
    shadows: Any = None  # the shadow past each counted cube, many ways round (vision.stacked.Shadows)
    shaded: tuple[float, ...] = ()  # the share of each counted cube's top in a shadow (vision.stacked.shaded_tops)
    doubt: float = 0.0  # where the stacked test ran: how likely a cube lies on another (vision.stacked_model)
    in_doubt: bool = False  # counted, but at the test's ``unsure`` or more: the referee asks it where it matters
    # the tray as the stacked test sees it (vision.stacked_crops), where it runs (an array: neither compared nor shown)
    picture: Any = field(default=None, compare=False, repr=False)
    # each label's lit tops' area in pieces, before the check against the frame's unit (vision.count.agreed); {}
    # once checked
    areas: dict[str, float] = field(default_factory=dict)


@dataclass
class Reading:
    layout: str
    board_found: bool
    homography: np.ndarray | None
    zones: dict[str, ZoneReading]
    counts: dict[str, CountReading]
    source: str = "none"
    canonical: np.ndarray | None = None  # the warped board (BGR), for annotation
    hand_cells: np.ndarray | None = None  # grid cells under a hand
    lens: Any = None  # the lens the homography assumes (``calibration.store.LensModel``), for drawing on the frame

    def to_frame(self, pts_mm) -> np.ndarray:
        """Board mm (..., 2) -> the frame's pixels, through the lens when one is known (``vision.geometry``)."""
        from vision.geometry import to_frame

        return to_frame(pts_mm, self.homography, self.lens)

    def to_dict(self) -> dict[str, Any]:
        """The reading as DESIGN.md prints it. ``homography`` maps board mm to image pixels."""
        counts = {}
        for zid, c in self.counts.items():
            entry: dict[str, Any] = {"count": c.count, "confidence": round(c.confidence, 3)}
            if c.count is None and c.reason:
                entry["reason"] = c.reason
            if len(c.by_label) > 1:
                entry["by_label"] = dict(c.by_label)
            counts[zid] = entry
        return {"layout": self.layout, "board_found": self.board_found,
                "homography": None if self.homography is None else [[round(float(v), 6) for v in row]
                                                                     for row in self.homography],
                "zones": {zid: {"label": z.label, "confidence": round(z.confidence, 3)}
                          for zid, z in self.zones.items()},
                "counts": counts}


def low_confidence(reading: ZoneReading | CountReading) -> bool:
    """Whether a reading is too unsure to be shown as it is (the annotated picture and the CLI flag it)."""
    return reading.confidence < LOW_CONFIDENCE or (isinstance(reading, ZoneReading) and reading.label == "unknown")
