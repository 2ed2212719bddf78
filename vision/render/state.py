"""States to render: what lies in every zone. A state is plain data, the same shape as a reading:
``{"zones": {zone_id: label}, "counts": {zone_id: {label: n}}}``; zones left out are empty or 0."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from calibration import files
from calibration.layout import LABEL_KINDS, Layout


class StateError(ValueError):
    """A state file that cannot be rendered; the message reads ``FILE: key: what is wrong``."""


def empty_state(layout: Layout) -> dict[str, Any]:
    return {"zones": {z.id: "empty" for z in layout.zones if z.kind in LABEL_KINDS},
            "counts": {z.id: dict.fromkeys(z.labels, 0) for z in layout.zones if z.kind == "count"}}


def random_state(layout: Layout, rng: np.random.Generator, fill: float = 0.5) -> dict[str, Any]:
    """A legal-looking state: about ``fill`` of the slots hold a piece; a score track holds only a few
    seals (one per player at most five); reserve trays hold 0..18 cubes (the Alchimiste reserve maximum)."""
    state = empty_state(layout)
    track = [z for z in layout.zones if z.kind == "slot" and z.id.startswith("track-")]
    track_ids = {z.id for z in track}
    for z in layout.zones:
        if z.kind not in LABEL_KINDS or z.id in track_ids:
            continue
        pieces = [label for label in z.labels if label != "empty"]
        if pieces and rng.random() < fill:
            state["zones"][z.id] = str(rng.choice(pieces))
    if track:
        for i in rng.choice(len(track), size=min(len(track), int(rng.integers(2, 6))), replace=False):
            pieces = [label for label in track[i].labels if label != "empty"]
            state["zones"][track[i].id] = str(rng.choice(pieces))
    for z in layout.zones:
        if z.kind == "count":
            state["counts"][z.id] = dict.fromkeys(z.labels, 0)
            state["counts"][z.id][str(rng.choice(list(z.labels)))] = int(rng.integers(0, 19))
    return state


def calibration_state(layout: Layout) -> dict[str, Any]:
    """The colour-calibration frame: pieces where the layout's calibration table says, the rest empty."""
    state = empty_state(layout)
    for zone_id, value in layout.calibration.items():
        if isinstance(value, dict):
            state["counts"][zone_id].update({k: int(v) for k, v in value.items()})
        else:
            state["zones"][zone_id] = value
    return state


def parse_state(data: Any, layout: Layout, source: str = "<state>") -> dict[str, Any]:
    """Validate a state against ``layout`` and fill in what it leaves out."""
    if not isinstance(data, dict):
        raise StateError(f"{source}: (top): expected an object with zones and counts")
    for key in data:
        if key not in ("zones", "counts", "layout"):
            raise StateError(f"{source}: {key}: unknown key (known: counts, layout, zones)")
    state = empty_state(layout)
    zones = data.get("zones", {})
    if not isinstance(zones, dict):
        raise StateError(f"{source}: zones: expected an object of zone id -> label")
    for zone_id, label in zones.items():
        if zone_id not in state["zones"]:
            raise StateError(f"{source}: zones.{zone_id}: no such slot zone in layout {layout.name}")
        if label not in layout.zone(zone_id).labels:
            raise StateError(f"{source}: zones.{zone_id}: unknown label {label!r}")
        state["zones"][zone_id] = label
    counts = data.get("counts", {})
    if not isinstance(counts, dict):
        raise StateError(f"{source}: counts: expected an object of zone id -> {{label: n}}")
    for zone_id, value in counts.items():
        if zone_id not in state["counts"]:
            raise StateError(f"{source}: counts.{zone_id}: no such count zone in layout {layout.name}")
        labels = layout.zone(zone_id).labels
        if isinstance(value, int) and not isinstance(value, bool) and len(labels) == 1:
            value = {labels[0]: value}
        if not isinstance(value, dict):
            raise StateError(f"{source}: counts.{zone_id}: expected {{label: n}}")
        for label, n in value.items():
            if label not in labels:
                raise StateError(f"{source}: counts.{zone_id}: unknown label {label!r}")
            if isinstance(n, bool) or not isinstance(n, int) or not 0 <= n <= 40:
                raise StateError(f"{source}: counts.{zone_id}.{label}: expected a count 0..40, got {n!r}")
            state["counts"][zone_id][label] = n
    return state


def load_state(path: str | Path, layout: Layout) -> dict[str, Any]:
    data = files.load_json(path, StateError)
    return parse_state(data, layout, str(path))
