"""The set-up of a Chaudron table (plain JSON, docs/table-chaudron.md) and reading the cauldron off a State."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assistant.decks.chaudron import SAMPLE, Deck, DeckError, load_deck
from assistant.engines.chaudron import LABELS, POTIONS_TO_MAKE, RARITY_TABLE, Cauldron, Potion, rarity_mismatch
from assistant.stabilise import State
from assistant.table import SetupError
from calibration.layout import Layout

SETUP_KEYS = ("deck", "players", "potions", "start")


@dataclass(frozen=True)
class ChaudronSetup:
    deck: Deck
    players: int
    potions: tuple[Potion, ...] | None     # the potion deck, top first, when the set-up gives it
    start: Cauldron | None                 # the cauldron after the throw, when the set-up gives it
    rows: int
    cols: int
    cell_id: str                           # "r{row}c{col}"

    def cauldron(self, state: State) -> Cauldron:
        """The cauldron a committed state shows (a cell the state lacks, or reads as no piece, is empty)."""
        labels = state.labels()
        cells = []
        for r in range(self.rows):
            for c in range(self.cols):
                label = labels.get(self.cell_id.format(row=r, col=c), "empty")
                cells.append(label if label in LABELS else "empty")
        return Cauldron(self.rows, self.cols, tuple(cells))


def read_setup(layout: Layout, setup: Mapping[str, Any], source: str) -> ChaudronSetup:
    for key in setup:
        if key not in SETUP_KEYS:
            raise SetupError(f"{source}: {key}: unknown key (expected {', '.join(SETUP_KEYS)})")
    rows, cols = int(layout.game.get("rows", 6)), int(layout.game.get("cols", 6))
    cell_id = str(layout.game.get("cell_id", "r{row}c{col}"))
    deck_name = setup.get("deck", SAMPLE)
    if not isinstance(deck_name, str):
        raise SetupError(f"{source}: deck: expected \"sample\" or the path of a deck file")
    if deck_name != SAMPLE and not Path(deck_name).is_absolute() and source.endswith(".json"):
        deck_name = str(Path(source).parent / deck_name)  # a set-up file names its deck beside itself
    try:
        deck = load_deck(deck_name)
    except DeckError as e:
        raise SetupError(f"{source}: deck: {e}") from None
    if not deck.ingredients:
        raise SetupError(f"{source}: deck: {deck.source} has no ingredient cards")
    players = setup.get("players")
    if isinstance(players, bool) or players not in RARITY_TABLE:
        raise SetupError(f"{source}: players: expected the number of witches, 2 to 7, got {players!r}")
    potions = None
    if "potions" in setup:
        potions = _potions(setup["potions"], deck, players, source)
    start = None
    if "start" in setup:
        raw = setup["start"]
        if isinstance(raw, list) and all(isinstance(r, str) for r in raw):
            raw = "\n".join(raw)
        try:
            start = Cauldron.parse(raw) if isinstance(raw, str) else None
        except ValueError as e:
            raise SetupError(f"{source}: start: {e}") from None
        if start is None or (start.rows, start.cols) != (rows, cols):
            raise SetupError(f"{source}: start: expected the {rows} x {cols} cauldron drawn as rows like \"B..R..\"")
    return ChaudronSetup(deck, players, potions, start, rows, cols, cell_id)


def _potions(ids: Any, deck: Deck, players: int, source: str) -> tuple[Potion, ...]:
    if not isinstance(ids, list) or len(ids) != POTIONS_TO_MAKE or not all(isinstance(i, str) for i in ids):
        raise SetupError(f"{source}: potions: expected the {POTIONS_TO_MAKE} potion ids, top of the deck first")
    try:
        potions = tuple(deck.potion(i) for i in ids)
    except KeyError as e:
        raise SetupError(f"{source}: potions: no potion {e.args[0]!r} in the deck") from None
    wrong = rarity_mismatch(potions, players)
    if wrong:
        raise SetupError(f"{source}: potions: {wrong}")
    return potions
