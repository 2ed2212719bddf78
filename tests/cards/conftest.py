"""Shared fixtures: the eight Alchemists ingredients rendered and enrolled once per session."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from calibration.layout import load_layout
from vision.cards.enrol import cards_shown
from vision.cards.store import CardSet
from vision.render import lighting_preset, random_conditions, render_frame

ALCHEMISTS = load_layout("alchemists")
INGREDIENTS = ALCHEMISTS.game["ingredients"]


def enrolment_frame(layout, zones: dict[str, str], seed: int):
    """A frame as the user takes it to enrol: daylight, no hand, no finger, the cards in ``zones``."""
    rng = np.random.default_rng(seed)
    conditions = random_conditions(layout, rng, lighting="daylight", hand=False, foreign=False)
    conditions = replace(conditions, lighting=lighting_preset("daylight"), fingers=())
    return render_frame(layout, {"zones": zones}, conditions, rng)[0]


@pytest.fixture(scope="session")
def ingredients() -> CardSet:
    """The set alchemists-ingredients, enrolled from four frames of two cards each."""
    card_set = CardSet("alchemists-ingredients", (63, 88), {})
    for i in range(0, len(INGREDIENTS), 2):
        zones = {"card-left": INGREDIENTS[i], "card-right": INGREDIENTS[i + 1]}
        shown = cards_shown(enrolment_frame(ALCHEMISTS, zones, 500 + i), ALCHEMISTS)
        assert set(shown) == set(zones)
        for zone, name in zones.items():
            card_set.enrol(name, shown[zone])
    return card_set
