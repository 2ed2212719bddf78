"""Card recognition by enrolment: Alchemists ingredients, Chaudron potions, Alchymia crystals.

Cards are recognised against images the user enrols once with the camera (``alchemy-table calibrate
cards``), never against artwork shipped with the program. ``find`` locates the card in its zone and cuts it
out upright, ``features`` describes it, ``store`` keeps the enrolled sets and matches against them, and
``zones`` reads every card zone of a layout for ``vision.read.Reader``. See docs/cards.md.
"""

from __future__ import annotations

from calibration.layout import Layout

CARD_MM = (63.0, 88.0)  # a standard card, portrait; a layout may say otherwise in [game] card_size


def card_size(layout: Layout) -> tuple[float, float]:
    """The layout's card size in mm (width, height), portrait."""
    size = layout.game.get("card_size", CARD_MM) if isinstance(layout.game, dict) else CARD_MM
    w, h = (float(v) for v in size)
    return (min(w, h), max(w, h))
