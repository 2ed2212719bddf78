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


def test_a_pale_sleeve_over_a_place_and_its_ring_reads_unknown_not_empty():
    # `bench cards --decks 1430,...,1433 --seed 19615`, its second frame: a pale sleeve (four times as bright as
    # the dark mat, of nearly its hue) lies over potion-4 and all its ring, a card under it; the place read
    # `empty` (ring chromaticity 0.05 from the other rings', under RING_CHROMA).
    from assistant.bench import cards as bc
    from vision.cards.zones import covered

    layout = load_layout("chaudron-potions")
    rng = np.random.default_rng(19615)
    for name in bc.LAYOUTS[:2]:  # (the bench's frames in turn, as it draws them)
        lay = load_layout(name)
        conditions = bc.random_conditions(lay, rng, lighting=bc.LIGHTINGS[0], hand=bool(rng.random() < 1 / 6),
                                          foreign=False)
        places = [z.id for z in lay.zones if z.kind == "card"]
        conditions = replace(conditions, foreign=tuple(z for z in places if rng.random() < 0.3),
                             cards=CardStyle(1430))
        frame, truth = bc.render_frame(lay, bc.random_state(lay, rng, fill=0.8), conditions, rng)
    assert truth["zones"]["potion-4"] == "unknown" and truth["conditions"]["hand"]
    reading = Reader(layout).read(frame)
    assert reading.zones["potion-4"].label == "unknown"
    assert reading.zones["potion-7"].label == "empty" and truth["zones"]["potion-7"] == "empty"
    # The rule itself: a ring as dark as the others' but twice as bright, or half, is not the mat.
    lights = {"a": 0.8, "b": 1.0, "c": 1.1, "d": 1.2}  # (the mat's rings under a light that varies a fifth)
    mats = {k: (np.array([33.0, 34.0, 54.0]) * light, 0.5) for k, light in lights.items()}
    assert covered({**mats, "e": (np.array([108.0, 158.0, 204.0]), 0.57)}) == ["e"]
    assert covered({**mats, "e": (np.array([13.0, 13.0, 20.0]), 0.5)}) == ["e"]
    assert covered({**mats, "e": (np.array([30.0, 30.0, 49.0]), 0.5)}) == []
