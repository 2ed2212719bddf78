"""Enrolment: the card shown in a card zone of a frame, cut out upright, ready for a set."""

from __future__ import annotations

import numpy as np

from calibration.layout import Layout
from calibration.store import Calibration
from vision.cards import card_size
from vision.cards.find import cut_card, find_card
from vision.locate import Locator


class EnrolError(ValueError):
    """A frame from which no card can be enrolled; the message reads ``SOURCE: what is wrong``."""


def cards_shown(frame: np.ndarray, layout: Layout, calibration: Calibration | None = None,
                source: str = "frame", zone: str | None = None) -> dict[str, np.ndarray]:
    """{zone id: upright card image} for every card zone of ``layout`` (or only ``zone``) holding a card."""
    zones = [z for z in layout.zones if z.kind == "card"]
    if not zones:
        raise EnrolError(f"{source}: layout {layout.name} has no card zone")
    if zone is not None:
        zones = [z for z in zones if z.id == zone]
        if not zones:
            known = ", ".join(z.id for z in layout.zones if z.kind == "card")
            raise EnrolError(f"{source}: --zone: {zone!r} is not a card zone of {layout.name} (known: {known})")
    lens = calibration.camera if calibration else None
    corners = calibration.corners if calibration else None
    location = Locator(layout, lens, corners).locate(frame)
    if not location.found:
        raise EnrolError(f"{source}: the board ({layout.name}) is not found: are its markers in view?")
    card_mm = card_size(layout)
    out = {}
    for z in zones:
        found = find_card(frame, location.homography, location.lens, z.bounds, card_mm)
        if found.kind == "card":
            out[z.id] = cut_card(frame, location.homography, location.lens, found.corners_mm, card_mm)
        elif found.kind == "blob" and zone is not None:
            raise EnrolError(f"{source}: {z.id}: something lies there, but not a {card_mm[0]:g} x {card_mm[1]:g} mm "
                             f"card seen whole (take away hands; check [game] card_size)")
    return out
