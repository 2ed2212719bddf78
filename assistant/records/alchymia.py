"""Alchymia game records (format in docs/records-alchymia.md): JSON validation into engine values and the
replay behind ``alchemy-table check``.

Each turn gives the card played and either the power uses the player announced (``uses``) or the boards
as they were read after the turn (``after``), in which case the turn checker looks for uses that explain
them. Hands are hidden information and are not part of a record.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from assistant.decks.alchymia import SAMPLE, DeckError, load_deck_for, ordered_stacks
from assistant.engines.alchymia import (
    COLOURS,
    ELEMENTS,
    AlchymiaError,
    Attraction,
    Board,
    Colour,
    Deck,
    Dispersion,
    Element,
    Extraction,
    Game,
    Integration,
    Inversion,
    PotionCard,
    Purification,
    Spot,
    Table,
    Transformation,
    Turn,
    Use,
    check_turn,
)
from assistant.engines.alchymia.check import describe
from assistant.engines.alchymia.moves import can_move
from assistant.records import RecordError, Report, Step
from calibration.layout import LayoutError, load_layout

TOP_KEYS = {"game", "layout", "deck", "players", "expert", "seed", "crystals", "turns"}
TURN_KEYS = {"player", "card", "swap", "empty", "uses", "after", "took", "pass"}
USE_KEYS = {
    "Integration": {"colour", "to"}, "Extraction": {"colour", "from"}, "Attraction": {"from", "to"},
    "Dispersion": {"moves"}, "Transformation": {"at", "colour"}, "Purification": {"moves"},
    "Inversion": {"own", "other"},
}


def check(record: dict[str, Any], source: str) -> Report:
    """Replay ``record`` turn by turn; stop at the first illegal turn."""
    _keys(record, source, "", TOP_KEYS, {"players", "turns"})
    rows, cols = _board_size(record, source)
    deck = _deck(record, source, rows, cols)
    names = _players(record.get("players"), source)
    expert = record.get("expert", False)
    if not isinstance(expert, bool):
        raise RecordError(f"{source}: expert: expected true or false")
    table = Table.new(names, _stacks(record, source, deck, names), expert)
    turns = record.get("turns")
    if not isinstance(turns, list):
        raise RecordError(f"{source}: turns: expected a list of turns")
    parser = _TurnParser(source, table, deck)
    steps: list[Step] = []
    player = 0
    for index, raw in enumerate(turns):
        where = f"turns[{index}]"
        turn, after, took, passing = parser.turn(raw, where, player)
        text = f"{names[player]} plays {turn.card.letters if turn.card.name == turn.card.letters else turn.card}"
        try:
            table, text, detail = _play(table, player, turn, after, took, passing, text)
        except AlchymiaError as e:
            steps.append(Step(index, text, False, str(e), _scores(table)))
            return Report("alchymia", tuple(steps), *_closing(table))
        steps.append(Step(index, text, True, None, _scores(table), detail))
        if table.winner is not None and index < len(turns) - 1:
            steps.append(Step(index + 1, f"{names[(player + 1) % len(names)]} plays on", False,
                              f"the game is over: {names[table.winner]} holds the five crystals", _scores(table)))
            return Report("alchymia", tuple(steps), *_closing(table))
        player = (player + 1) % len(names)
    return Report("alchymia", tuple(steps), *_closing(table))


def _play(table: Table, player: int, turn: Turn, after, took, passing: bool, text: str):
    """One turn on the table: (table after, description, detail)."""
    if passing:
        if _can_use(table, player, turn.card):
            raise AlchymiaError(f"a potion of {turn.card.letters} can be used: passing is only for a player "
                                f"who cannot")
        table, _ = table.play(player, turn, passing=True)
        return table, f"{text} and passes (no potion can be used)", {}
    if after is None:
        new, taken = table.play(player, turn)
        uses, emptied = turn.uses, turn.empty
    else:
        boards = tuple(after.get(p, table.boards[p]) for p in range(len(table.players)))
        found = check_turn(table, player, boards, turn.card, swapped=turn.swap_with is not None, took=took)
        new, taken, uses, emptied = found.table, found.taken, found.uses, found.emptied
    words = ([f"swaps hands with {table.players[turn.swap_with]}"] if turn.swap_with is not None else []) + \
            [f"empties board {b + 1}" if len(table.boards[player]) > 1 else "empties the board" for b in emptied]
    start = table.emptied(player, emptied) if emptied else table
    described = []
    for use in uses:
        described.append(describe(start, use))
        start = start.apply(player, use)
    words += described
    words += [f"takes {card.name} ({card.element})" for card in taken]
    text = f"{text}{' (boards read)' if after is not None else ''}: " + "; ".join(words)
    detail = {"uses": described, "taken": [card.name for card in taken]}
    if new.winner is not None:
        text += " and wins"
    return new, text, detail


def _can_use(table: Table, player: int, card: PotionCard) -> bool:
    hand = (card, card, card)
    game = Game(table, tuple(hand if p == player else () for p in range(len(table.players))), (), (), player)
    return can_move(game)


def _scores(table: Table) -> dict[str, int]:
    return {name: len(table.crystals[p]) for p, name in enumerate(table.players)}


def _closing(table: Table) -> tuple[list[str], dict[str, Any]]:
    held = {name: [card.element.value for card in table.crystals[p]] for p, name in enumerate(table.players)}
    final = {"winner": None if table.winner is None else table.players[table.winner], "crystals": held,
             "boards": {name: [b.line() for b in table.boards[p]] for p, name in enumerate(table.players)},
             "reserve": dict(zip((c.value for c in COLOURS), table.reserve, strict=True))}
    lines = [f"{name}: {', '.join(els) or 'no crystal'}" for name, els in held.items()]
    if table.winner is not None:
        lines.append(f"{table.players[table.winner]} holds the five crystals and wins")
    else:
        lines.append("no winner yet")
    return lines, final


# validation ------------------------------------------------------------------------------------------
def _keys(raw: Any, source: str, where: str, allowed: set[str], required: set[str]) -> None:
    if not isinstance(raw, dict):
        raise RecordError(f"{source}: {where or 'top'}: expected a JSON object")
    prefix = f"{where}." if where else ""
    for key in raw:
        if key not in allowed:
            raise RecordError(f"{source}: {prefix}{key}: unknown key (expected {', '.join(sorted(allowed))})")
    for key in sorted(required):
        if key not in raw:
            raise RecordError(f"{source}: {prefix}{key}: missing")


def _board_size(record: dict, source: str) -> tuple[int, int]:
    name = record.get("layout", "alchymia")
    if not isinstance(name, str):
        raise RecordError(f"{source}: layout: expected a layout name or path")
    try:
        game = load_layout(name).game
    except LayoutError as e:
        raise RecordError(f"{source}: layout: {e}") from None
    rows, cols = game.get("rows"), game.get("cols")
    if not (isinstance(rows, int) and isinstance(cols, int)):
        raise RecordError(f"{source}: layout: {name} gives no board size (game.rows and game.cols)")
    return rows, cols


def _deck(record: dict, source: str, rows: int, cols: int) -> Deck:
    name = record.get("deck", SAMPLE)
    if not isinstance(name, str):
        raise RecordError(f"{source}: deck: expected a deck name or path")
    if name != SAMPLE and not Path(name).is_absolute():
        name = str(Path(source).parent / name)  # a deck file beside the record
    try:
        return load_deck_for(name, rows, cols)
    except DeckError as e:
        raise RecordError(f"{source}: deck: {e}") from None


def _players(raw: Any, source: str) -> list[str]:
    if not isinstance(raw, list) or not 2 <= len(raw) <= 5:
        raise RecordError(f"{source}: players: expected a list of 2 to 5 player names")
    for i, name in enumerate(raw):
        if not isinstance(name, str) or not name.strip() or name != name.strip():
            raise RecordError(f"{source}: players[{i}]: expected a name")
        if raw.index(name) != i:
            raise RecordError(f"{source}: players[{i}]: {name!r} is named twice")
    return list(raw)


def _stacks(record: dict, source: str, deck: Deck, names: list[str]) -> Deck:
    """The deck with its crystal stacks in the record's order: ``crystals`` (every card, top first) or ``seed``."""
    return ordered_stacks(deck, record, source, error=RecordError, players=names)


class _TurnParser:
    def __init__(self, source: str, table: Table, deck: Deck):
        self.source, self.table = source, table
        self.names = list(table.players)
        self.cards = {card.name: card for card in deck.potions}

    def fail(self, where: str, message: str) -> RecordError:
        return RecordError(f"{self.source}: {where}: {message}")

    def turn(self, raw: Any, where: str, player: int):
        _keys(raw, self.source, where, TURN_KEYS, {"card"})
        if "player" in raw and raw["player"] != self.names[player]:
            raise self.fail(f"{where}.player", f"it is {self.names[player]}'s turn, not {raw['player']!r}'s")
        card = self.card(raw["card"], f"{where}.card")
        swap = None
        if "swap" in raw:
            swap = self.player(raw["swap"], f"{where}.swap")
        empty: tuple[int, ...] = ()
        if "empty" in raw:
            empty = self.empty(raw["empty"], f"{where}.empty", player)
        passing = raw.get("pass", False)
        if passing is not False and passing is not True:
            raise self.fail(f"{where}.pass", "expected true")
        given = [k for k in ("uses", "after") if k in raw]
        if passing:
            if given or swap is not None or empty:
                raise self.fail(f"{where}.pass", "a pass has no uses, after, swap or empty")
            return Turn(card), None, None, True
        if len(given) != 1:
            raise self.fail(where, "give either uses (the power uses) or after (the boards read after the turn)")
        if "uses" in raw:
            if "took" in raw:
                raise self.fail(f"{where}.took", "only with after: with uses the crystals taken follow from them")
            uses = raw["uses"]
            if not isinstance(uses, list):
                raise self.fail(f"{where}.uses", "expected a list of power uses")
            parsed = tuple(self.use(u, f"{where}.uses[{i}]") for i, u in enumerate(uses))
            return Turn(card, parsed, swap, empty), None, None, False
        after = self.after(raw["after"], f"{where}.after")
        took = None
        if "took" in raw:
            took = raw["took"]
            if not isinstance(took, list) or any(t not in {e.value for e in ELEMENTS} for t in took):
                raise self.fail(f"{where}.took", "expected a list of elements (earth, air, water, fire, time)")
            took = [Element(t) for t in took]
        return Turn(card, (), swap, empty), after, took, False

    def card(self, raw: Any, where: str) -> PotionCard:
        if isinstance(raw, str) and raw in self.cards:
            return self.cards[raw]
        if not isinstance(raw, str):
            raise self.fail(where, "expected the card's name in the deck or its potions, e.g. \"GGY\"")
        try:
            return PotionCard(raw, raw)
        except AlchymiaError as e:
            raise self.fail(where, f"{raw!r} is neither a card of the deck nor 1 to 4 potion letters ({e})") from None

    def player(self, raw: Any, where: str) -> int:
        if raw not in self.names:
            raise self.fail(where, f"{raw!r} is not a player ({', '.join(self.names)})")
        return self.names.index(raw)

    def empty(self, raw: Any, where: str, player: int) -> tuple[int, ...]:
        count = len(self.table.boards[player])
        if raw is True:
            return tuple(range(count)) if count == 1 else self._fail_which(where)
        if not isinstance(raw, list) or not raw or any(not isinstance(b, int) or not 1 <= b <= count for b in raw):
            raise self.fail(where, f"expected true or a list of board numbers from 1 to {count}")
        return tuple(sorted({b - 1 for b in raw}))

    def _fail_which(self, where: str):
        raise self.fail(where, "with two boards, say which: [1], [2] or [1, 2]")

    def spot(self, raw: Any, where: str) -> Spot:
        """``"Ada r1c2"`` or, in the 2-player game, ``"Ada board 2 r1c2"``."""
        if not isinstance(raw, str) or " " not in raw.strip():
            raise self.fail(where, "expected a player and a position, e.g. \"Ada r1c2\" (or \"Ada board 2 r1c2\")")
        rest, position = raw.strip().rsplit(" ", 1)
        board = 0
        parts = rest.rsplit(" ", 2)
        if len(parts) == 3 and parts[1] == "board" and parts[2].isdigit():
            rest, board = parts[0], int(parts[2]) - 1
        player = self.player(rest, where)
        if not 0 <= board < len(self.table.boards[player]):
            raise self.fail(where, f"{rest} has no board {board + 1}")
        try:
            self.table.boards[player][board].index(position)
        except AlchymiaError as e:
            raise self.fail(where, str(e)) from None
        return Spot(player, board, position)

    def colour(self, raw: Any, where: str) -> Colour:
        try:
            return Colour(raw)
        except ValueError:
            raise self.fail(where, f"expected a colour ({', '.join(c.value for c in COLOURS)})") from None

    def use(self, raw: Any, where: str) -> Use:
        if not isinstance(raw, dict) or raw.get("power") not in USE_KEYS:
            raise self.fail(f"{where}.power", f"expected one of {', '.join(USE_KEYS)}")
        power = raw["power"]
        _keys(raw, self.source, where, USE_KEYS[power] | {"power"}, USE_KEYS[power])
        if power == "Integration":
            return Integration(self.colour(raw["colour"], f"{where}.colour"), self.spot(raw["to"], f"{where}.to"))
        if power == "Extraction":
            return Extraction(self.colour(raw["colour"], f"{where}.colour"), self.spot(raw["from"], f"{where}.from"))
        if power == "Attraction":
            return Attraction(self.spot(raw["from"], f"{where}.from"), self.spot(raw["to"], f"{where}.to"))
        if power == "Transformation":
            return Transformation(self.spot(raw["at"], f"{where}.at"), self.colour(raw["colour"], f"{where}.colour"))
        if power == "Inversion":
            return Inversion(self.spot(raw["own"], f"{where}.own"), self.spot(raw["other"], f"{where}.other"))
        moves = raw["moves"]
        if not isinstance(moves, list) or not all(isinstance(m, list) and len(m) == 2 for m in moves):
            raise self.fail(f"{where}.moves", "expected a list of [from, to] pairs")
        pairs = tuple((self.spot(a, f"{where}.moves[{i}][0]"), self.spot(b, f"{where}.moves[{i}][1]"))
                      for i, (a, b) in enumerate(moves))
        return Dispersion(pairs) if power == "Dispersion" else Purification(pairs)

    def after(self, raw: Any, where: str) -> dict[int, tuple[Board, ...]]:
        """Boards read after the turn, by player name; players left out are unchanged."""
        if not isinstance(raw, dict):
            raise self.fail(where, "expected an object of player name -> board rows, e.g. {\"Ada\": \"G../.W./...\"}")
        out = {}
        for name, boards in raw.items():
            p = self.player(name, f"{where}.{name}")
            count = len(self.table.boards[p])
            if count == 1:
                boards = [boards]
            if not isinstance(boards, list) or len(boards) != count:
                raise self.fail(f"{where}.{name}", f"expected a list of {count} boards")
            read = []
            for b, rows in enumerate(boards):
                text = "/".join(rows) if isinstance(rows, list) and all(isinstance(r, str) for r in rows) else rows
                if not isinstance(text, str):
                    raise self.fail(f"{where}.{name}", "a board is a list of rows like [\"G..\", \".W.\", \"...\"]")
                try:
                    board = Board.parse(text)
                except AlchymiaError as e:
                    raise self.fail(f"{where}.{name}", str(e)) from None
                shape = self.table.boards[p][b]
                if (board.rows, board.cols) != (shape.rows, shape.cols):
                    raise self.fail(f"{where}.{name}", f"a {board.rows} x {board.cols} board, the game's boards are "
                                                       f"{shape.rows} x {shape.cols}")
                read.append(board)
            out[p] = tuple(read)
        return out


# writing records ---------------------------------------------------------------------------------------
def turn_to_json(table: Table, player: int, turn: Turn, passing: bool = False) -> dict[str, Any]:
    """A turn in the record format, with its uses (``table`` is the table before the turn)."""
    out: dict[str, Any] = {"player": table.players[player], "card": turn.card.name}
    if passing:
        out["pass"] = True
        return out
    if turn.swap_with is not None:
        out["swap"] = table.players[turn.swap_with]
    if turn.empty:
        out["empty"] = True if len(table.boards[player]) == 1 else [b + 1 for b in turn.empty]
    out["uses"] = [use_to_json(table, use) for use in turn.uses]
    return out


def use_to_json(table: Table, use: Use) -> dict[str, Any]:
    n = table.name_of
    if isinstance(use, Integration):
        return {"power": use.power, "colour": use.colour.value, "to": n(use.to)}
    if isinstance(use, Extraction):
        return {"power": use.power, "colour": use.colour.value, "from": n(use.source)}
    if isinstance(use, Attraction):
        return {"power": use.power, "from": n(use.source), "to": n(use.to)}
    if isinstance(use, Transformation):
        return {"power": use.power, "at": n(use.at), "colour": use.colour.value}
    if isinstance(use, Inversion):
        return {"power": use.power, "own": n(use.own), "other": n(use.other)}
    return {"power": use.power, "moves": [[n(a), n(b)] for a, b in use.moves]}
