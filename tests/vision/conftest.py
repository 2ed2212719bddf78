"""Small rendered frames shared by the vision tests (rendered once per session: rendering is the slow part)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from calibration.layout import load_layout
from vision.render import Conditions, Pose, lighting_preset, random_state, render_frame
from vision.render.dataset import set_frame


def mild(light: str, i: int = 0, **changes) -> Conditions:
    """A tilted, turned camera with some lens distortion and a light gradient: ordinary, not extreme."""
    base = Conditions(pose=Pose(tilt_deg=5, tilt_towards_deg=30 * i, yaw_deg=6 - 4 * i, k1=-0.04),
                      lighting=replace(lighting_preset(light), gradient=0.15, gradient_deg=40 * i),
                      placement_seed=i, noise=4 if light == "dim" else 2)
    return replace(base, **changes)


def enrolled_table(layout, kind: str, rng, path):
    """A table of ``rng``, its empty board enrolled and its calibration frame learnt as `calibrate board` and
    `calibrate colours` do; (table, reader)."""
    from calibration.store import load_calibration, merge_into
    from vision.board import enrol_board
    from vision.learn import learn_colours
    from vision.read import Reader
    from vision.render import empty_state
    from vision.render.state import calibration_state
    from vision.render.table import random_table, table_frame

    table = random_table(layout, rng, kind)
    empty, _ = table_frame(table, layout, rng, table.calibration_lighting, state=empty_state(layout))
    calibration, _ = table_frame(table, layout, rng, table.calibration_lighting, state=calibration_state(layout))
    merge_into(path, layout.name, board=enrol_board(empty, layout))
    learnt = learn_colours(calibration, layout, load_calibration(path, layout.name))
    merge_into(path, layout.name, colours=learnt.colours, top_area_mm2=learnt.top_area_mm2, pieces=learnt.pieces)
    return table, Reader(layout, load_calibration(path, layout.name))


@pytest.fixture(scope="session")
def rendered():
    """(layout name, lighting, seed, hand) -> (layout, frame, truth), cached for the session."""
    cache = {}

    def get(name: str, light: str = "daylight", seed: int = 0, **changes):
        key = (name, light, seed, tuple(sorted(changes.items())))
        if key not in cache:
            layout = load_layout(name)
            rng = np.random.default_rng(100 + seed)
            frame, truth = render_frame(layout, random_state(layout, rng), mild(light, seed, **changes), rng)
            cache[key] = (layout, frame, truth)
        return cache[key]

    return get


@pytest.fixture(scope="session")
def replayed():
    """(layout name, lighting, generator state) -> (layout, frame, truth): a frame of an evaluation set
    (``render --set``) rendered again from the random generator's PCG64 state at it, given as (state, inc,
    has_uint32, uinteger), cached for the session."""
    cache = {}

    def get(name: str, light: str, state: tuple[int, int, int, int]):
        key = (name, light, tuple(state))
        if key not in cache:
            rng = np.random.default_rng()
            s, inc, has_uint32, uinteger = state
            rng.bit_generator.state = {"bit_generator": "PCG64", "state": {"state": s, "inc": inc},
                                       "has_uint32": has_uint32, "uinteger": uinteger}
            layout = load_layout(name)
            cache[key] = (layout, *set_frame(layout, light, rng))
        return cache[key]

    return get
