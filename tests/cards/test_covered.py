"""A hand or an arm over a card place reads ``unknown``, never ``empty``: fingers over an empty place, a
palm over the place and its surroundings, with a card under it or not. (The two frames are hands reaching
over the potion and crystal mats that the reader before issue 28 read ``empty``.)"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from calibration.layout import load_layout
from vision.read import Reader
from vision.render import SKINS, SLEEVES, Hand, random_conditions, render_frame
from vision.render.deck import CardStyle


def covered_frame(layout, seed: int):
    """A hand reaching in from the mat's near edge towards a card place, some places holding a card."""
    rng = np.random.default_rng(seed)
    conditions = random_conditions(layout, rng, hand=False, foreign=False)
    places = [z for z in layout.zones if z.kind == "card"]
    place = places[seed % len(places)]
    x, y = place.center
    r = np.random.default_rng(seed + 1)
    reach = r.uniform(-0.5, 0.4) * place.size[1]
    hand = Hand((x + r.uniform(-40, 40), layout.size[1] + 120.0), (x + r.uniform(-20, 20), y + reach),
                SKINS[seed % 5], SLEEVES[seed % 6], 90.0, float(r.uniform(0.8, 1.1)))
    conditions = replace(conditions, hand=hand, fingers=(), cards=CardStyle(3))
    state = {"zones": {z.id: ("empty" if r.random() < 0.6 else z.labels[1 + seed % (len(z.labels) - 1)])
                       for z in layout.zones}}
    return render_frame(layout, state, conditions, rng)


@pytest.mark.parametrize("layout, seed", [("chaudron-potions", 806), ("alchymia-crystals", 810)])
def test_a_hand_over_a_place_reads_unknown_not_empty(layout, seed):
    layout = load_layout(layout)
    frame, truth = covered_frame(layout, seed)
    under = [z for z, label in truth["zones"].items() if label == "unknown"]
    assert under
    reading = Reader(layout).read(frame)
    assert reading.board_found
    assert {z: reading.zones[z].label for z in under} == dict.fromkeys(under, "unknown")
    # The places the hand leaves alone still read empty (no set is enrolled: a card reads unknown).
    assert all(reading.zones[z].label == "empty" for z, label in truth["zones"].items() if label == "empty")
