"""Reading rendered frames: every default layout under every lighting, counts, hands, foreign objects."""

from __future__ import annotations

import numpy as np
import pytest

from vision.read import Reader
from vision.render import LIGHTINGS, Hand


def _check(reading, truth):
    assert reading.board_found
    wrong = {z: (truth["zones"][z], reading.zones[z].label) for z in truth["zones"]
             if reading.zones[z].label != truth["zones"][z]
             and not (z in truth["partly_hidden"] and reading.zones[z].label == "unknown")}
    assert wrong == {}
    return reading


@pytest.mark.parametrize("light", LIGHTINGS)
@pytest.mark.parametrize("name", ["alchemists", "alchimiste", "alchymia", "chaudron"])
def test_every_layout_reads_right_under_every_lighting(rendered, name, light):
    layout, frame, truth = rendered(name, light, LIGHTINGS.index(light))
    reading = _check(Reader(layout).read(frame), truth)
    for zid, want in truth["counts"].items():
        assert abs(reading.counts[zid].count - want) <= 1, zid


def test_reserve_counts_touching_cubes(rendered):
    layout, frame, truth = rendered("alchimiste", "daylight", 5)
    reading = Reader(layout).read(frame)
    got = {z: c.count for z, c in reading.counts.items()}
    exact = sum(got[z] == n for z, n in truth["counts"].items())
    assert exact >= 4, (got, truth["counts"])
    assert any(n >= 8 for n in truth["counts"].values())  # piles, not just single cubes


def test_zones_under_a_hand_are_unknown_never_a_confident_label(rendered):
    hand = Hand(entry_mm=(-120.0, 150.0), tip_mm=(120.0, 110.0), skin=(214, 164, 128), sleeve=(40, 48, 70))
    layout, frame, truth = rendered("chaudron", "warm", 1, hand=hand)
    hidden = [z for z, label in truth["zones"].items() if label == "unknown"]
    assert len(hidden) >= 4
    reading = _check(Reader(layout).read(frame), truth)
    assert all(reading.zones[z].label == "unknown" for z in hidden)


def test_a_foreign_object_reads_unknown(rendered):
    layout, frame, truth = rendered("alchymia", "cool", 2, foreign=("r1c1",))
    assert truth["zones"]["r1c1"] == "unknown"
    reading = _check(Reader(layout).read(frame), truth)
    assert reading.zones["r1c1"].label == "unknown"


def test_reading_json_is_the_design_shape(rendered):
    layout, frame, _ = rendered("chaudron", "daylight", 3)
    out = Reader(layout).read(frame).to_dict()
    assert list(out) == ["layout", "board_found", "homography", "zones", "counts"]
    assert np.array(out["homography"]).shape == (3, 3)
    assert set(out["zones"]["r0c0"]) == {"label", "confidence"}
    assert 0 <= out["zones"]["r0c0"]["confidence"] <= 1
