"""Card decks read from TOML data files (one loader module per game); sample decks live in ``data/``."""
