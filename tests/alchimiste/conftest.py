"""Shared set-ups for the Alchimiste tests: the default Compendium and games in both modes."""

from __future__ import annotations

import pytest

from assistant.engines.alchimiste import COLOURS, Cubes, Game
from calibration.layout import load_layout

NAMES = ("Abigail", "Merlin", "Morgane", "Nicolas", "Viviane")


@pytest.fixture(scope="session")
def produces():
    """The default layout's cauldrons: cauldron 10 produces yellow and green."""
    return [tuple(pair) for pair in load_layout("alchimiste").game["cauldron_produces"]]


@pytest.fixture
def new_game(produces):
    """new_game(n, screens=None): a game of n adepts (Abigail, Merlin, ...) whose schools follow COLOURS."""

    def make(n: int = 2, screens: list[dict] | None = None) -> Game:
        players = list(zip(NAMES[:n], COLOURS[:n], strict=True))
        return Game.new(players, produces, None if screens is None else [Cubes.of(s) for s in screens])

    return make
