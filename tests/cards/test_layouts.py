"""Card zones in layouts: the ``card`` kind, its ``set``, and the three layouts that hold cards."""

from __future__ import annotations

import re

import pytest

from calibration.layout import LayoutError, load_layout, parse_layout
from vision.cards import card_size


def mini(zone: dict, calibration: dict | None = None) -> dict:
    return {"name": "mini", "size": [200, 150], "background": "#203040", "palette": {},
            "markers": [{"id": 49, "center": [10, 10], "size": 10}], "zones": [zone],
            "calibration": calibration or {}}


CARD = {"id": "place", "kind": "card", "set": "tarot", "center": [100, 75], "size": [80, 96],
        "labels": ["empty", "fool", "magician"]}


def test_a_card_zone_names_its_set_and_needs_no_palette_colour():
    layout = parse_layout(mini(CARD))
    zone = layout.zone("place")
    assert (zone.kind, zone.card_set, zone.labels) == ("card", "tarot", ("empty", "fool", "magician"))
    assert layout.to_dict()["zones"][0]["set"] == "tarot"
    assert parse_layout(layout.to_dict()) == layout  # the resolved form loads back unchanged


@pytest.mark.parametrize("change, expected", [
    ({"set": None}, "zones[0].set: missing"),
    ({"set": "two words"}, "zones[0].set: 'two words'"),
    ({"labels": ["fool"]}, "lists \"empty\" and the cards"),
    ({"kind": "slot"}, "only a card zone"),
])
def test_malformed_card_zones_are_refused(change, expected):
    zone = {k: v for k, v in {**CARD, **change}.items() if v is not None}
    with pytest.raises(LayoutError, match=re.escape(expected)):
        parse_layout(mini(zone))


def test_card_zones_take_no_part_in_the_colour_calibration():
    with pytest.raises(LayoutError, match=re.escape("calibration.place: a card zone takes no part")):
        parse_layout(mini(CARD, {"place": "empty"}))


def test_the_three_card_layouts():
    alchemists = load_layout("alchemists")
    assert {z.id: z.card_set for z in alchemists.zones} == {"card-left": "alchemists-ingredients",
                                                            "card-right": "alchemists-ingredients"}
    assert alchemists.zone("card-left").labels[1:] == tuple(alchemists.game["ingredients"])
    potions = load_layout("chaudron-potions")
    assert [z.id for z in potions.zones] == [f"potion-{n}" for n in range(1, 8)]
    crystals = load_layout("alchymia-crystals")
    assert [z.id for z in crystals.zones] == [f"crystal-{e}" for e in ("earth", "air", "water", "fire", "time")]
    assert crystals.zone("crystal-fire").labels == ("empty", *(f"fire-{i}" for i in range(1, 6)))
    ids = [m.id for name in ("alchimiste", "alchymia", "chaudron", "alchemists", "chaudron-potions",
                             "alchymia-crystals") for m in load_layout(name).markers]
    assert len(ids) == len(set(ids))  # every layout has markers of its own: several can lie in one view
    assert card_size(potions) == (63.0, 88.0)
