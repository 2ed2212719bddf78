"""Le Chaudron Magique on the table: the cauldron grid read by the camera, each ingredient card checked by the
engine's physical-move check (docs/table-chaudron.md).

Modules: ``setup`` (the set-up keys, and the cauldron read off a committed state), ``mode``
(``ChaudronTable``: reveals, timers, forced concoctions, cards, potions, Cramés, win and loss).
"""

from .mode import ChaudronTable

__all__ = ["ChaudronTable"]
