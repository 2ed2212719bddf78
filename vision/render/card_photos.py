"""Cards enrolled from rendered photos, as a user enrols them with ``calibrate cards``: each card of a layout's
card zones laid alone in its place, photographed once in daylight, cut out and enrolled (``bench cards`` and the
table sets of ``render --tables`` enrol so; ``vision/render/deck.py`` draws the decks)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from calibration.layout import Layout
from vision.cards import card_size
from vision.cards.check import check_set, read_back, unread
from vision.cards.enrol import cards_shown
from vision.cards.store import CardSet
from vision.render import lighting_preset, random_conditions, render_frame
from vision.render.deck import CardStyle

CARDS = "cards"  # a table set's enrolled cards, beside its tables


def enrol_rendered(layout, seed: int = 1000, deck: int | None = None, second: bool = False) -> dict[str, CardSet]:
    """Every card of ``layout``'s card zones (of ``deck``), rendered once in daylight and enrolled:
    {set name: CardSet}. With ``second``, as a user follows ``calibrate cards``: each card the pair check
    says needs a second photo gets one (the card laid again, another picture)."""
    sets: dict[str, CardSet] = {}
    zones: dict[str, tuple] = {}
    for zone in (z for z in layout.zones if z.kind == "card"):
        card_set = sets.setdefault(zone.card_set, CardSet(zone.card_set, card_size(layout), {}))
        for i, name in enumerate(label for label in zone.labels if label != "empty"):
            if name in card_set:
                continue
            zones[name] = (zone, i)
            card_set.enrol(name, _photo(layout, zone, name, [seed, i], deck))
    if second:
        for card_set in sets.values():
            named = read_back(card_set)
            asked = {n for c in check_set(card_set, named) for n in c.failed} | set(unread(card_set, named))
            for name in sorted(asked):
                zone, i = zones[name]
                card_set.enrol(name, _photo(layout, zone, name, [seed + 1, i], deck), second=True)
    return sets


def _photo(layout, zone, name: str, seed, deck: int | None):
    """The card ``name`` laid alone in ``zone``, as the user photographs it to enrol, cut out."""
    rng = np.random.default_rng(seed)
    conditions = random_conditions(layout, rng, lighting="daylight", hand=False, foreign=False)
    conditions = replace(conditions, lighting=lighting_preset("daylight"), fingers=(),
                         cards=None if deck is None else CardStyle(deck, handled=False))
    frame, _ = render_frame(layout, {"zones": {zone.id: name}}, conditions, rng)
    return cards_shown(frame, layout, zone=zone.id)[zone.id]


def write_cards(folder: Path, layouts: list[Layout], deck: int | None = None) -> Path | None:
    """The cards of ``layouts``' card zones enrolled from rendered photos into ``folder / CARDS`` (a cards folder
    as ``calibrate cards`` writes it); None when no layout has card places."""
    sets = {name: card_set for layout in layouts if any(z.kind == "card" for z in layout.zones)
            for name, card_set in enrol_rendered(layout, deck=deck).items()}
    for name, card_set in sets.items():
        card_set.save(folder / CARDS / name)
    return folder / CARDS if sets else None
