"""Cards of one family (one frame, palette, title band and rules box; their own art, title and numbers) are
told apart, each enrolled from one photo; a card of the family never enrolled reads unknown."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from calibration.layout import load_layout
from vision.cards.enrol import cards_shown
from vision.cards.store import CardSet
from vision.read import Reader
from vision.render import lighting_preset, random_conditions, render_frame
from vision.render.deck import CardStyle, family_of

ALCHEMISTS = load_layout("alchemists")
DECK = 7  # a deck whose family 0 holds five ingredients
FAMILY = [n for n in ALCHEMISTS.game["ingredients"] if family_of(n, DECK) == 0]


def shot(zones: dict[str, str], seed: int, lighting: str, handled: bool = True, fingers=(), hand=None):
    rng = np.random.default_rng(seed)
    conditions = random_conditions(ALCHEMISTS, rng, lighting=lighting, hand=False, foreign=False)
    conditions = replace(conditions, fingers=tuple(fingers), hand=hand, cards=CardStyle(DECK, handled))
    if not handled:
        conditions = replace(conditions, lighting=lighting_preset(lighting))
    return render_frame(ALCHEMISTS, {"zones": zones}, conditions, rng)


@pytest.fixture(scope="module")
def family() -> CardSet:
    """Four cards of the family enrolled, one photo each; the fifth (FAMILY[4]) never."""
    card_set = CardSet("alchemists-ingredients", (63, 88), {})
    for k in (0, 2):
        zones = {"card-left": FAMILY[k], "card-right": FAMILY[k + 1]}
        shown = cards_shown(shot(zones, 600 + k, "daylight", handled=False)[0], ALCHEMISTS)
        for zone, name in zones.items():
            card_set.enrol(name, shown[zone])
    return card_set


def read(card_set: CardSet, frame) -> dict[str, str]:
    reading = Reader(ALCHEMISTS, cards={card_set.name: card_set}).read(frame)
    assert reading.board_found
    return {zone: z.label for zone, z in reading.zones.items()}


def test_the_family_is_a_family_of_look_alikes(family):
    assert len(FAMILY) == 5
    # Alike to the coarse thumbnail: every pair of the four scores as the same card would.
    assert {frozenset(p[:2]) for p in family.pairs() if p[2] > 0.75} == {
        frozenset((a, b)) for i, a in enumerate(FAMILY[:4]) for b in FAMILY[i + 1:4]}


@pytest.mark.parametrize("lighting, seed", [("warm", 610), ("cool", 611), ("dim", 612)])
def test_look_alikes_are_told_apart(family, lighting, seed):
    zones = {"card-left": FAMILY[seed % 4], "card-right": FAMILY[(seed + 1) % 4]}
    assert read(family, shot(zones, seed, lighting)[0]) == zones


def test_a_card_of_the_family_never_enrolled_is_unknown(family):
    for seed, lighting in ((620, "daylight"), (621, "warm")):
        got = read(family, shot({"card-left": FAMILY[4], "card-right": FAMILY[seed % 4]}, seed, lighting)[0])
        assert got == {"card-left": "unknown", "card-right": FAMILY[seed % 4]}


def test_a_card_enrolled_after_the_set_has_read_is_told_apart_at_once(family):
    """The set learns where its cards differ when first asked, not at each enrolment: a card enrolled into a set
    that has already read a frame is named in that frame read again, and the family it joins told apart."""
    card_set = CardSet("alchemists-ingredients", (63, 88), {n: family.images[n] for n in FAMILY[:3]})
    frame = shot({"card-left": FAMILY[3], "card-right": FAMILY[0]}, 630, "warm")[0]
    assert read(card_set, frame) == {"card-left": "unknown", "card-right": FAMILY[0]}
    card_set.enrol(FAMILY[3], family.images[FAMILY[3]])
    assert read(card_set, frame) == {"card-left": FAMILY[3], "card-right": FAMILY[0]}
