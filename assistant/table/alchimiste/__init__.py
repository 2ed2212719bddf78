"""Alchimiste on the table: the Compendium read by the camera, checked by the engine (docs/table-alchimiste.md).

Modules: ``board`` (the layout's zones and a committed state in the game's words, the set-up keys),
``mode`` (``AlchimisteTable``: creations, copies, takes, the fame track, the reserve, the end), ``outputs``
(button menus, and sending only what changed to the LEDs and the display).
"""

from .mode import AlchimisteTable

__all__ = ["AlchimisteTable"]
