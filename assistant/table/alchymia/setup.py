"""The Alchymia set-up (plain JSON, docs/table-alchymia.md) and the reading of the boards from a state.

Several player boards are read at once: each board is one copy of the ``alchymia`` layout, and the live
loop prefixes its zone ids with the board's name, ``ada/r0c0`` for position r0c0 of the board named ``ada``.
The set-up says which board is whose (``boards``); by default a player's board is named after the player
in lower case (``Ada`` -> ``ada``), and in the 2-player game (two boards each) ``ada-1`` and ``ada-2``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assistant.decks.alchymia import SAMPLE, DeckError, load_deck_for, ordered_stacks
from assistant.engines.alchymia import AlchymiaError, Board, Deck, PotionCard
from assistant.stabilise import State
from assistant.table import SetupError

KEYS = ("players", "boards", "deck", "expert", "seed", "crystals", "first", "cards")
SEPARATOR = "/"


@dataclass(frozen=True)
class Setup:
    players: tuple[str, ...] | None          # None until the first committed state names them
    boards: dict[str, tuple[str, ...]] | None  # player -> board prefixes; None: the defaults
    deck: Deck                               # crystal stacks in the game's order, top first
    expert: bool
    first: str | None                        # who starts; None: whoever makes the first move
    cards: tuple[PotionCard | None, ...]     # the card played on each turn, when the set-up knows it
    rows: int
    cols: int


def parse_setup(raw: Mapping[str, Any], layout_game: Mapping[str, Any], source: str) -> Setup:
    for key in raw:
        if key not in KEYS:
            raise SetupError(f"{source}: {key}: unknown key (expected one of {', '.join(KEYS)})")
    rows, cols = layout_game.get("rows", 3), layout_game.get("cols", 3)
    if not (isinstance(rows, int) and isinstance(cols, int)):
        raise SetupError(f"{source}: layout: game.rows and game.cols must be whole numbers")
    deck = _deck(raw.get("deck", SAMPLE), source, rows, cols)
    players = None
    if "players" in raw:
        players = _players(raw["players"], source)
    expert = raw.get("expert", False)
    if not isinstance(expert, bool):
        raise SetupError(f"{source}: expert: expected true or false")
    boards = _boards(raw["boards"], players, source) if "boards" in raw else None
    if boards is not None and players is None:
        players = tuple(boards)
    deck = _stacks(raw, deck, source)
    first = raw.get("first")
    if first is not None and (not isinstance(first, str) or (players is not None and first not in players)):
        raise SetupError(f"{source}: first: expected one of the players ({', '.join(players or ())})")
    cards = _cards(raw.get("cards", []), deck, source)
    return Setup(players, boards, deck, expert, first, cards, rows, cols)


def default_boards(players: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    if len(players) == 2:
        return {p: (f"{p.lower()}-1", f"{p.lower()}-2") for p in players}
    return {p: (p.lower(),) for p in players}


def prefixes(state: State) -> list[str]:
    """The board names seen in a state (sorted), from zone ids ``NAME/rRcC``."""
    return sorted({z.rsplit(SEPARATOR, 1)[0] for z in state.labels() if SEPARATOR in z})


def read_boards(state: State, players: tuple[str, ...], boards: Mapping[str, tuple[str, ...]],
                rows: int, cols: int) -> tuple[tuple[Board, ...], ...]:
    """Every player's boards as the state shows them. Raises AlchymiaError naming the board."""
    labels = state.labels()
    out = []
    for player in players:
        own = []
        for prefix in boards[player]:
            head = f"{prefix}{SEPARATOR}" if prefix else ""
            cells = {f"r{r}c{c}": labels.get(f"{head}r{r}c{c}") for r in range(rows) for c in range(cols)}
            missing = [z for z, label in cells.items() if label is None]
            if missing:
                raise AlchymiaError(f"board {prefix or '(unprefixed)'} of {player}: no zone {head}{missing[0]} "
                                    f"in the committed state")
            try:
                own.append(Board.from_labels(cells, rows, cols))
            except AlchymiaError as e:
                raise AlchymiaError(f"board {prefix} of {player}: {e}") from None
        out.append(tuple(own))
    return tuple(out)


def _deck(name: Any, source: str, rows: int, cols: int) -> Deck:
    if not isinstance(name, str):
        raise SetupError(f"{source}: deck: expected a deck name ({SAMPLE}) or a path to a deck file")
    try:
        return load_deck_for(name if name == SAMPLE else Path(name), rows, cols)
    except DeckError as e:
        raise SetupError(f"{source}: deck: {e}") from None


def _players(raw: Any, source: str) -> tuple[str, ...]:
    if not isinstance(raw, list) or not 2 <= len(raw) <= 5:
        raise SetupError(f"{source}: players: expected a list of 2 to 5 player names, in playing order")
    for i, name in enumerate(raw):
        if not isinstance(name, str) or not name.strip() or name != name.strip() or SEPARATOR in name:
            raise SetupError(f"{source}: players[{i}]: expected a name (without '/')")
        if raw.index(name) != i:
            raise SetupError(f"{source}: players[{i}]: {name!r} is named twice")
    return tuple(raw)


def _boards(raw: Any, players: tuple[str, ...] | None, source: str) -> dict[str, tuple[str, ...]]:
    if not isinstance(raw, dict) or not raw:
        raise SetupError(f'{source}: boards: expected an object player -> board name, e.g. {{"Ada": "ada"}}')
    names = players if players is not None else tuple(raw)
    if players is None:
        _players(list(raw), source)
    out: dict[str, tuple[str, ...]] = {}
    per_player = 2 if len(names) == 2 else 1
    for player in names:
        if player not in raw:
            raise SetupError(f"{source}: boards.{player}: missing (every player needs a board)")
        value = raw[player]
        value = [value] if isinstance(value, str) else value
        if not isinstance(value, list) or len(value) != per_player or not all(isinstance(v, str) for v in value):
            what = "a board name" if per_player == 1 else "a list of two board names (2-player game)"
            raise SetupError(f"{source}: boards.{player}: expected {what}")
        if any(SEPARATOR in v for v in value):
            raise SetupError(f"{source}: boards.{player}: a board name has no '/'")
        out[player] = tuple(value)
    for player in raw:
        if player not in names:
            raise SetupError(f"{source}: boards.{player}: not a player ({', '.join(names)})")
    seen = [p for v in out.values() for p in v]
    twice = sorted({p for p in seen if seen.count(p) > 1})
    if twice:
        raise SetupError(f"{source}: boards: the board {twice[0]!r} is given twice")
    return out


def _stacks(raw: Mapping[str, Any], deck: Deck, source: str) -> Deck:
    """The crystal stacks: ``seed`` (shuffled as Game.new shuffles them; the shuffle does not depend on the
    players) or ``crystals`` (names, top first; a stack may list only its first cards, the rest follow in the
    deck's order); else the deck's order."""
    return ordered_stacks(deck, dict(raw), source, error=SetupError, partial=True)


def parse_card(raw: Any, deck: Deck) -> PotionCard:
    """A card by its name in the deck (``p12``) or its potions (``GGY``)."""
    by_name = {card.name: card for card in deck.potions}
    if isinstance(raw, str) and raw in by_name:
        return by_name[raw]
    if not isinstance(raw, str):
        raise AlchymiaError("expected a card name of the deck or its potions, e.g. \"GGY\"")
    return PotionCard(raw.upper(), raw)


def _cards(raw: Any, deck: Deck, source: str) -> tuple[PotionCard | None, ...]:
    if not isinstance(raw, list):
        raise SetupError(f"{source}: cards: expected a list, one card per turn (null when not known)")
    out = []
    for i, card in enumerate(raw):
        if card is None:
            out.append(None)
            continue
        try:
            out.append(parse_card(card, deck))
        except AlchymiaError as e:
            raise SetupError(f"{source}: cards[{i}]: {e}") from None
    return tuple(out)
