"""A sleeved card (a clear rim round it, lighter than the mat) is found whole and can be enrolled."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from calibration.layout import load_layout
from vision.cards.enrol import cards_shown
from vision.render import lighting_preset, random_conditions, render_frame
from vision.render.deck import CardStyle, card_look

CRYSTALS = load_layout("alchymia-crystals")
DECK = 301  # a sleeved deck


def test_sleeved_cards_are_enrolled():
    for k, (zone, name) in enumerate((("crystal-earth", "earth-4"), ("crystal-air", "air-3"),
                                      ("crystal-water", "water-3"))):
        rng = np.random.default_rng([1000, 3 + k])
        conditions = random_conditions(CRYSTALS, rng, lighting="daylight", hand=False, foreign=False)
        conditions = replace(conditions, lighting=lighting_preset("daylight"), fingers=(),
                             cards=CardStyle(DECK, handled=False))
        assert card_look(conditions.cards, name, conditions.placement_seed).sleeved
        frame, _ = render_frame(CRYSTALS, {"zones": {zone: name}}, conditions, rng)
        assert set(cards_shown(frame, CRYSTALS, zone=zone)) == {zone}
