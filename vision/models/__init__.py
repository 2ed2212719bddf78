"""The board reader's trained place model (``places.npz``), retrained by ``alchemy-table train-reader``."""
