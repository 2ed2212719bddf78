"""Alchymia at the table: every player's board read at once, each change checked by the turn checker.

The mode (``AlchymiaTable``) and its set-up are documented in docs/table-alchymia.md. Boards are named in
the state by a prefix, ``ada/r0c0`` (see ``setup``).
"""

from .mode import AlchymiaTable

__all__ = ["AlchymiaTable"]
