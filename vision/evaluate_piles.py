"""The reserve count against rendered truth, on piles as players leave them (``alchemy-table eval-piles``).

Each table (a camera pose, a light, a way of leaving piles, a cube set a little off the layout's size) is
calibrated as a user would: its own calibration frame (three cubes in each tray, laid the table's way), then
``calibrate colours``; then frames of random reserves are read. Per lighting (``mixed``: a warm lamp on one
side and daylight on the other, as a colour gradient across the frame), single-layer trays: exact %, worst
error, null %; trays with a cube lying on another (``stacked`` in the truth): null % and wrong. A tray whose
truth is unknown (under a hand) is left out.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from calibration.layout import Layout, load_layout
from calibration.store import Calibration
from vision.board import BoardEnrolError, enrol_board
from vision.learn import CalibrationFrameError, learn_colours
from vision.read import Reader
from vision.render import (
    LIGHTINGS,
    Conditions,
    calibration_state,
    random_conditions,
    render_frame,
)
from vision.render.artwork import random_artwork
from vision.render.piles import PileStyle, random_style
from vision.render.state import empty_state

LIGHTS = (*LIGHTINGS, "mixed")
LAYOUT = "alchimiste"


@dataclass
class PileTally:
    single: int = 0
    exact: int = 0
    null: int = 0
    worst: int = 0
    stacked: int = 0
    stacked_null: int = 0
    stacked_wrong: int = 0
    mistakes: list[str] = field(default_factory=list)

    def add(self, truth: int, stacked: bool, got: int | None, where: str) -> None:
        if stacked:
            self.stacked += 1
            self.stacked_null += got is None
            if got is not None and got != truth:
                self.stacked_wrong += 1
                self.mistakes.append(f"{where}: stacked {truth}, read {got}")
            return
        self.single += 1
        if got is None:
            self.null += 1
        elif got == truth:
            self.exact += 1
        else:
            self.worst = max(self.worst, abs(got - truth))
            self.mistakes.append(f"{where}: {truth}, read {got}")


def mixed_light(frame: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A warm lamp's colour on one side of the frame fading into daylight on the other, along a random
    direction (the colour of the light changes across the board, and across a tray)."""
    h, w = frame.shape[:2]
    a = rng.uniform(0, 2 * math.pi)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    t = np.clip(0.5 + ((xx - w / 2) * math.cos(a) + (yy - h / 2) * math.sin(a)) / (0.8 * max(w, h)), 0, 1)
    warm = np.array([0.62, 0.85, 1.08], np.float32) * rng.uniform(0.9, 1.1, 3).astype(np.float32)  # BGR
    gain = 1 + t[..., None] * (warm - 1)
    return np.clip(frame.astype(np.float32) * gain + 0.5, 0, 255).astype(np.uint8)


def random_reserve(layout: Layout, rng: np.random.Generator) -> dict:
    return {"counts": {z.id: {z.labels[0] if z.labels[0] != "empty" else z.labels[1]: int(rng.integers(0, 19))}
                       for z in layout.zones if z.kind == "count"}}


def table(layout: Layout, light: str, rng: np.random.Generator, stacked: float = 0.3, hand: bool | None = None,
          scale: float | None = None, board: str | None = None) -> tuple[Conditions, PileStyle]:
    """A table: its conditions (``light``'s preset varied; mixed: daylight, coloured after) and its piles;
    ``scale``: its cubes' real size over the layout's (else a random set's, ``random_style``); ``board``: a
    board face of that kind (``plain`` or ``illustrated``, ``vision.render.artwork``), which the table's
    calibration enrols, else the layout's board read without enrolment."""
    c = random_conditions(layout, rng, "daylight" if light == "mixed" else light, hand=hand, foreign=False)
    if board is not None:
        c = replace(c, artwork=random_artwork(layout, rng, board))
    style = random_style(rng, stacked)
    return c, style if scale is None else replace(style, scale=scale)


def render(layout: Layout, state: dict, c: Conditions, light: str, rng: np.random.Generator):
    frame, truth = render_frame(layout, state, c, rng)
    if light == "mixed":
        frame = mixed_light(frame, np.random.default_rng(c.placement_seed))
    return frame, truth


def table_calibration(layout: Layout, c: Conditions, style: PileStyle, light: str, rng: np.random.Generator,
                      learn_board: bool = True) -> Calibration | None:
    """The table's own calibration frame (no hand, no stacking), learnt as ``calibrate colours`` does (the
    layout's plain board learnt from it; not with ``learn_board`` False: read then as a board not enrolled); a
    table with a board face (``c.artwork``) has its empty board enrolled first, as ``calibrate board`` does."""
    cal_c = replace(c, hand=None, piles=replace(style, stacked=0.0), placement_seed=c.placement_seed + 1)
    base = None
    if c.artwork is not None:
        empty, _ = render(layout, empty_state(layout), cal_c, light, rng)
        try:
            base = Calibration(layout.name, board=enrol_board(empty, layout))
        except BoardEnrolError:  # (too few markers found on the empty board: the table is not read, as for a user)
            return None
    frame, _ = render(layout, calibration_state(layout), cal_c, light, rng)
    try:
        return learn_colours(frame, layout, base, learn_board=learn_board)
    except CalibrationFrameError:
        return None


def calibrated_reader(layout: Layout, c: Conditions, style: PileStyle, light: str, rng: np.random.Generator
                      ) -> Reader | None:
    calibration = table_calibration(layout, c, style, light, rng)
    return None if calibration is None else Reader(layout, calibration, spread_stacked=True)  # as the referee reads


def evaluate(seed: int, tables: int, frames: int, lights=LIGHTS, stacked: float = 0.3,
             progress=None, scale: float | None = None, board: str | None = None) -> dict[str, PileTally]:
    """Per lighting, the tally over ``tables`` tables of ``frames`` frames each (seed ``seed``); ``scale``:
    every table's cubes this size over the layout's (the calibration frame's too); ``board``: every table a
    board face of that kind, enrolled (``table``)."""
    layout = load_layout(LAYOUT)
    out = {}
    for light in lights:
        tally = PileTally()
        rng = np.random.default_rng([seed, LIGHTS.index(light)])
        for t in range(tables):
            c, style = table(layout, light, rng, stacked, scale=scale, board=board)
            reader = calibrated_reader(layout, c, style, light, rng)
            for f in range(frames):
                fc = replace(c, piles=style, placement_seed=int(rng.integers(2**31)),
                             hand=c.hand if f == 0 else None)
                frame, truth = render(layout, random_reserve(layout, rng), fc, light, rng)
                reading = reader.read(frame) if reader is not None else None
                for zid, n in truth["counts"].items():
                    if n is None:
                        continue
                    got = None if reading is None or zid not in reading.counts else reading.counts[zid].count
                    tally.add(n, truth["piles"][zid]["stacked"], got, f"{light} s{seed} t{t} f{f} {zid}")
            if progress:
                progress(light, t)
        out[light] = tally
    return out


def save_frame(path: str, frame: np.ndarray) -> None:
    if not cv2.imwrite(path, frame):
        raise OSError(f"{path}: cannot write the frame")
