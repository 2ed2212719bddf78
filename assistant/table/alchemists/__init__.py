"""Alchemists at the table: the companion app's answers for the two ingredient cards in the scan area.

The mode (``AlchemistsTable``) and its set-up are documented in docs/table-alchemists.md.
"""

from .mode import AlchemistsTable

__all__ = ["AlchemistsTable"]
