"""Evaluation sets: many rendered frames with their ground truth, written to a folder."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

import numpy as np

from calibration.layout import Layout
from vision.image import save_image
from vision.render import LIGHTINGS, calibration_state, lighting_preset, random_conditions, random_state, render_frame
from vision.render.deck import CardStyle


def write_frame(path: Path, frame: np.ndarray, truth: dict) -> None:
    save_image(path, frame)
    path.with_suffix(".json").write_text(json.dumps(truth, indent=1) + "\n", encoding="utf-8")


def write_set(out: Path, layouts: list[Layout], frames: int, seed: int = 0, hands: float = 1 / 6,
              foreign: float = 0.1, deck: int | None = None) -> Iterable[Path]:
    """``frames`` frames cycling through ``layouts`` and the four lightings (so every pair appears), each
    with a random state, pose and sensor; a hand over about ``hands`` of them; cards drawn from ``deck``
    when given (``vision.render.deck``). Yields each path written."""
    rng = np.random.default_rng(seed)
    for i in range(frames):
        layout = layouts[i % len(layouts)]
        lighting = LIGHTINGS[(i // len(layouts)) % len(LIGHTINGS)]
        frame, truth = set_frame(layout, lighting, rng, hands, foreign, deck)
        path = out / f"{i:04d}-{layout.name}-{lighting}.png"
        write_frame(path, frame, truth)
        yield path


def set_frame(layout: Layout, lighting: str, rng: np.random.Generator, hands: float = 1 / 6,
              foreign: float = 0.1, deck: int | None = None) -> tuple[np.ndarray, dict]:
    """One frame of an evaluation set and its truth, drawn from ``rng`` as ``write_set`` draws it: with the
    generator's state at a frame of a set, that frame is rendered again (a test can replay it)."""
    conditions = random_conditions(layout, rng, lighting=lighting, hand=bool(rng.random() < hands),
                                   foreign=bool(rng.random() < foreign))
    if deck is not None:
        conditions = replace(conditions, cards=CardStyle(deck))
    return render_frame(layout, random_state(layout, rng), conditions, rng)


def calibration_frame(layout: Layout, seed: int = 0, lighting: str = "daylight") -> tuple[np.ndarray, dict]:
    """The layout's colour-calibration frame (pieces as its calibration table says), no hand."""
    rng = np.random.default_rng(seed)
    conditions = random_conditions(layout, rng, lighting=lighting, hand=False, foreign=False)
    conditions = replace(conditions, lighting=lighting_preset(lighting))
    return render_frame(layout, calibration_state(layout), conditions, rng)
