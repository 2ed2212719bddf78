"""Le Chaudron Magique records (format: ``docs/records-chaudron.md``).

Each action is what the table saw: a round's potion reveal, or one ingredient card with the cauldron
seen after it. Cards are checked with the physical-move check, so a record needs no placements.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from assistant.decks.chaudron import SAMPLE, DeckError, load_deck
from assistant.engines.chaudron import (
    RARITIES,
    RARITY_TABLE,
    Cauldron,
    Game,
    IllegalMove,
    rarity_counts,
    rarity_mismatch,
)
from assistant.records import RecordError, Report, Step
from calibration.layout import load_layout

_KEYS = {"game", "layout", "deck", "players", "potions", "start", "actions", "note"}


def check(record: dict, source: str) -> Report:
    unknown = set(record) - _KEYS
    if unknown:
        raise RecordError(f"{source}: {', '.join(sorted(unknown))}: unknown key(s)")
    try:
        layout = load_layout(record.get("layout", "chaudron"))
    except ValueError as e:
        raise RecordError(f"{source}: layout: {e}") from None
    rows, cols = int(layout.game.get("rows", 6)), int(layout.game.get("cols", 6))
    deck_name = record.get("deck", SAMPLE)
    if not isinstance(deck_name, str):
        raise RecordError(f"{source}: deck: expected \"sample\" or a path to a deck file")
    if deck_name != SAMPLE and not Path(deck_name).is_absolute():
        deck_name = str(Path(source).parent / deck_name)
    try:
        deck = load_deck(deck_name)
    except DeckError as e:
        raise RecordError(f"{source}: deck: {e}") from None
    players = record.get("players")
    if not isinstance(players, int) or isinstance(players, bool) or players not in RARITY_TABLE:
        raise RecordError(f"{source}: players: expected 2 to 7, got {players!r}")
    potions = _potions(record, source, deck, players)
    start = _grid(record.get("start"), source, "start", rows, cols)
    actions = record.get("actions")
    if not isinstance(actions, list):
        raise RecordError(f"{source}: actions: expected a list")

    game = Game.new(start, potions, players)
    steps: list[Step] = []
    played = 0  # cards played in the current round
    for index, action in enumerate(actions):
        where = f"actions[{index}]"
        if not isinstance(action, dict) or not ({"reveal", "play"} & set(action)):
            raise RecordError(f"{source}: {where}: expected {{\"reveal\": true}} or "
                              f"{{\"play\": CARD, \"after\": GRID}}")
        extra = set(action) - {"reveal", "play", "after"}
        if extra:
            raise RecordError(f"{source}: {where}: {', '.join(sorted(extra))}: unknown key(s)")
        after = None if action.get("after") is None else _grid(action["after"], source, f"{where}.after", rows, cols)
        if "play" in action:
            card_id = action["play"]
            try:
                card = deck.ingredient(card_id)
            except (KeyError, TypeError):
                raise RecordError(f"{source}: {where}.play: no ingredient card {card_id!r} in the deck") from None
            if after is None:
                raise RecordError(f"{source}: {where}.after: the cauldron seen after the card is required")
            label = f"round {game.round}: {card.name}"
            reason = None
            if game.status != "playing":
                reason = f"the game is over: the witches have {game.status}"
            elif game.round == 0:
                reason = "a card is played before the first potion is revealed"
            elif played >= players:
                reason = f"{players} witches play {players} cards a round, this is card {played + 1}"
            if reason:
                steps.append(Step(index, label, False, reason, _scores(game)))
                break
            game, verdict = game.play_seen(card, after)
            played += 1
            detail = {"burnt": verdict.burnt, "steps": list(verdict.resolution.steps)} if verdict.resolution else {}
            steps.append(Step(index, label, verdict.legal, verdict.reason, _scores(game), detail))
            if not verdict.legal:
                break
        else:
            label = f"round {game.round + 1}: reveal a potion, timer cubes"
            reason = None
            if game.status != "playing":
                reason = f"the game is over: the witches have {game.status}"
            elif game.round and played != players:
                reason = f"round {game.round} had {played} card(s) played; each of the {players} witches plays one"
            if reason is None:
                try:
                    game, notes = game.reveal(after)
                except IllegalMove as e:
                    reason = str(e)
            if reason:
                steps.append(Step(index, label, False, reason, _scores(game)))
                break
            played = 0
            steps.append(Step(index, label, True, None, _scores(game), {"notes": notes}))
    summary = [game.summary()]
    final = {"status": game.status, "round": game.round, "potions_made": [p.id for p in game.made],
             "burnt": game.burnt, "cauldron": str(game.cauldron).splitlines(),
             "waiting": {r.potion.id: r.cubes for r in game.revealed}}
    return Report("chaudron", tuple(steps), summary, final)


def _scores(game: Game) -> dict[str, int]:
    return {"potions": len(game.made), "Cramés": game.burnt}


def _potions(record: dict, source: str, deck, players: int):
    ids = record.get("potions")
    if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
        raise RecordError(f"{source}: potions: expected the list of the 7 potion ids, top of the deck first")
    try:
        potions = [deck.potion(i) for i in ids]
    except KeyError as e:
        raise RecordError(f"{source}: potions: no potion {e.args[0]!r} in the deck") from None
    wrong = rarity_mismatch(potions, players)
    if wrong:
        raise RecordError(f"{source}: potions: {wrong}; the record has "
                          + ", ".join(f"{n} {r}" for r, n in rarity_counts(potions).items() if n))
    ranks = [RARITIES.index(p.rarity) for p in potions]
    if ranks != sorted(ranks):
        raise RecordError(f"{source}: potions: the deck is stacked commons on top down to mythics at the bottom")
    return potions


def _grid(raw: Any, source: str, key: str, rows: int, cols: int) -> Cauldron:
    if isinstance(raw, list) and all(isinstance(r, str) for r in raw):
        raw = "\n".join(raw)
    if not isinstance(raw, str):
        raise RecordError(f"{source}: {key}: expected the cauldron drawn as a list of rows like \"B..R..\"")
    try:
        grid = Cauldron.parse(raw)
    except ValueError as e:
        raise RecordError(f"{source}: {key}: {e}") from None
    if (grid.rows, grid.cols) != (rows, cols):
        raise RecordError(f"{source}: {key}: the cauldron is {rows} x {cols}, the drawing {grid.rows} x {grid.cols}")
    return grid


def record_of(start: Cauldron, potions, players: int, turns, deck: str = SAMPLE) -> dict[str, Any]:
    """A record (as JSON data) of a game played by ``assistant.engines.chaudron.autoplay.play_game``."""
    actions: list[dict[str, Any]] = []
    for t in turns:
        if t.kind == "reveal":
            actions.append({"reveal": True, "after": str(t.after).splitlines()})
        else:
            actions.append({"play": t.card.id, "after": str(t.after).splitlines()})
    return {"game": "chaudron", "layout": "chaudron", "deck": deck, "players": players,
            "potions": [p.id for p in potions], "start": str(start).splitlines(), "actions": actions}
