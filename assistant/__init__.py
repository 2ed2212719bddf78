"""alchemy-table: the table assistant for four alchemy board games."""

__version__ = "0.1.0"
