"""The board reader's trained place model (``places.npz``), retrained by ``alchemy-table train-reader``;
the stacked-cube test (``stacked.npz``), by ``alchemy-table train-stacked``."""
