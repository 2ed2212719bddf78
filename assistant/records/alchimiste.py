"""Alchimiste game records (format in docs/records-alchimiste.md) and end-game tables for the referee
(docs/referee-alchimiste.md): JSON validation into engine values, and the replay behind
``alchemy-table check``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from assistant.engines.alchimiste import (
    COLOURS,
    Action,
    Copy,
    Create,
    Cubes,
    Draw,
    EndPlayer,
    EndResult,
    Game,
    IllegalAction,
    Pass,
    Take,
    describe,
    fame_from_track,
    track_position,
)
from assistant.records import RecordError, Report, Step
from calibration.layout import default_layouts, load_layout

ACTION_KEYS = ("create", "copy", "take", "draw", "pass")


def check(record: dict[str, Any], source: str) -> Report:
    """Replay ``record`` through the engine; stop at the first illegal action."""
    _keys(record, source, "", {"game", "layout", "players", "actions", "reveal"}, {"players", "actions"})
    produces, seals = _compendium(record, source)
    names, schools, screens = _players(record.get("players"), source, seals)
    try:
        game = Game.new(list(zip(names, schools, strict=True)), produces, screens)
    except IllegalAction as e:
        raise RecordError(f"{source}: players: {e}") from None
    actions = record.get("actions")
    if not isinstance(actions, list):
        raise RecordError(f"{source}: actions: expected a list of actions")
    parsed = [_action(raw, f"actions[{i}]", source, names) for i, raw in enumerate(actions)]
    steps: list[Step] = []
    for index, (player, action) in enumerate(parsed):
        text = describe(action, player)
        why = game.reason(action, player)
        if why is not None:
            steps.append(Step(index, text, False, why, game.scores()))
            return Report("alchimiste", tuple(steps), *_unfinished(game))
        after = game.play(action, player)
        outcome, detail = _outcome(game, after, action)
        steps.append(Step(index, f"{text}{outcome}", True, None, after.scores(), detail))
        game = after
    reveal = record.get("reveal")
    if reveal is None and not (game.over and game.full):
        if game.over:
            return Report("alchimiste", tuple(steps), *_unrevealed(game))
        return Report("alchimiste", tuple(steps), *_unfinished(game))
    shown = None if reveal is None else _reveal(reveal, source, names)
    try:
        result = game.final(shown)
    except IllegalAction as e:
        text = "end-game scoring" if shown is None else "screens revealed: " + "; ".join(
            f"{name} {screen}" for name, screen in zip(names, shown, strict=True))
        steps.append(Step(len(parsed), text, False, str(e), game.scores()))
        return Report("alchimiste", tuple(steps), *_unfinished(game))
    return Report("alchimiste", tuple(steps), *_finished(game, result))


# -- the replay's words --------------------------------------------------------------------------------

def _outcome(before: Game, after: Game, action: Action) -> tuple[str, dict[str, Any]]:
    adept, now = before.to_play, after.adepts[before.turn]
    gained = now.fame - adept.fame
    detail: dict[str, Any] = {}
    words = []
    if gained:
        space, laps = track_position(now.fame)
        detail.update(fame=gained, track={"space": space, "laps": laps})
        words.append(f"+{gained}" + (f" (completes lap {laps})" if laps > track_position(adept.fame)[1] else ""))
    if isinstance(action, Create | Copy):
        got = before.payout(action.cauldron)
        detail["received"] = got.to_dict()
        words.append(f"receives {got}" if got.total else "the reserve has none of its ingredients")
    if isinstance(action, Copy):
        creator = before.adepts[before.cauldron(action.cauldron).potion.creator].name  # type: ignore[union-attr]
        detail["tribute_to"] = creator
        words.append(f"{action.tribute} to {creator}")
    if after.over:
        detail["game_over"] = True
        words.append(f"end of round {after.round}: the game is over")
    return (": " + ", ".join(words)) if words else "", detail


def _unfinished(game: Game) -> tuple[list[str], dict[str, Any]]:
    if game.over:
        return [_ended(game)], {"over": True, "round": game.round, "exhausted": list(game.exhausted)}
    line = f"game not over: round {game.round}, {game.to_play.name} to play"
    return [line], {"over": False, "round": game.round, "to_play": game.to_play.name}


def _ended(game: Game) -> str:
    return f"game over after round {game.round}: {', '.join(game.exhausted)} exhausted in the reserve"


def _unrevealed(game: Game) -> tuple[list[str], dict[str, Any]]:
    points = {a.name: a.count // 2 for a in game.adepts}
    lines = [_ended(game)]
    lines += [f"  {a.name}: fame {a.fame} + screen {points[a.name]} ({a.count} cubes)" for a in game.adepts]
    lines.append("school places need the screens' contents: add \"reveal\" to the record")
    return lines, {"over": True, "round": game.round, "exhausted": list(game.exhausted),
                   "screen_points": points, "revealed": False}


def _finished(game: Game, result: EndResult) -> tuple[list[str], dict[str, Any]]:
    lines = [_ended(game), *result_lines(result)]
    final = {"over": True, "round": game.round, "exhausted": list(game.exhausted), **result.to_dict(),
             "reserve_after": result.reserve_after.to_dict()}
    return lines, final


def result_lines(result: EndResult) -> list[str]:
    """The end-game result for people: one line per adept, then the winner(s)."""
    lines = []
    for line in result.lines:
        left = result.reserve_after[line.school]
        lines.append(f"  {line.name}: fame {line.fame} + screen {line.screen_points} + school {line.school} "
                     f"(place {line.school_place}, {left} left) {line.school_reward} = {line.total}")
    if len(result.winners) == 1:
        lines.append(f"winner: {result.winners[0]}")
    else:
        lines.append(f"winners (a shared victory): {', '.join(result.winners)}")
    return lines


# -- reading JSON -------------------------------------------------------------------------------------

def _keys(obj: Any, source: str, where: str, allowed: set[str], required: set[str]) -> None:
    prefix = f"{where}." if where else ""
    if not isinstance(obj, dict):
        raise RecordError(f"{source}: {where or 'top'}: expected a JSON object")
    for key in obj:
        if key not in allowed:
            raise RecordError(f"{source}: {prefix}{key}: unknown key (expected {', '.join(sorted(allowed))})")
    for key in sorted(required - set(obj)):
        raise RecordError(f"{source}: {prefix}{key}: missing")


def _compendium(record: dict[str, Any], source: str) -> tuple[list[tuple[str, str]], list[str]]:
    """The cauldrons' produced pairs and the seal colours, from the record's layout."""
    name = record.get("layout", "alchimiste")
    if not isinstance(name, str):
        raise RecordError(f"{source}: layout: expected a layout name or path")
    if name not in default_layouts() and not Path(name).is_absolute():
        beside = Path(source).parent / name
        name = str(beside) if beside.exists() else name
    layout = load_layout(name)
    produces = layout.game.get("cauldron_produces")
    where = f"{name}: game.cauldron_produces"
    if not isinstance(produces, list) or not produces:
        raise RecordError(f"{where}: expected a list of pairs of colours")
    for pair in produces:
        if not (isinstance(pair, list) and len(pair) == 2 and all(c in COLOURS for c in pair)):
            raise RecordError(f"{where}: {pair!r} is not a pair of colours ({', '.join(COLOURS)})")
    seals = [str(s).removeprefix("seal-") for s in layout.game.get("seal_colours", [])]
    return [tuple(pair) for pair in produces], seals


def _text(value: Any, source: str, where: str, choices: list[str] | tuple[str, ...] | None = None) -> str:
    if not isinstance(value, str) or not value.strip():
        raise RecordError(f"{source}: {where}: expected a non-empty string")
    if choices is not None and value not in choices:
        raise RecordError(f"{source}: {where}: {value!r} is not one of {', '.join(choices)}")
    return value


def _count(value: Any, source: str, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RecordError(f"{source}: {where}: expected a whole number, got {value!r}")
    if value < 0:
        raise RecordError(f"{source}: {where}: a count cannot be negative ({value})")
    return value


def read_cubes(value: Any, source: str, where: str) -> Cubes:
    """A JSON object colour -> count (missing colours count 0)."""
    if not isinstance(value, dict):
        raise RecordError(f"{source}: {where}: expected an object of colour counts, like {{\"grey\": 2}}")
    counts = {}
    for colour, n in value.items():
        if colour not in COLOURS:
            raise RecordError(f"{source}: {where}.{colour}: not a colour (expected {', '.join(COLOURS)})")
        counts[colour] = _count(n, source, f"{where}.{colour}")
    return Cubes.of(counts)


def _players(value: Any, source: str, seals: list[str]) -> tuple[list[str], list[str], list[Cubes] | None]:
    if not isinstance(value, list) or not 2 <= len(value) <= 5:
        raise RecordError(f"{source}: players: expected a list of 2 to 5 players")
    names, schools, screens, used_seals = [], [], [], []
    for i, raw in enumerate(value):
        where = f"players[{i}]"
        _keys(raw, source, where, {"name", "seal", "school", "screen"}, {"name", "seal", "school"})
        name = _text(raw["name"], source, f"{where}.name")
        seal = _text(raw["seal"], source, f"{where}.seal", seals or None)
        school = _text(raw["school"], source, f"{where}.school", COLOURS)
        for what, mine, taken in (("name", name, names), ("seal", seal, used_seals), ("school", school, schools)):
            if mine in taken:
                raise RecordError(f"{source}: {where}.{what}: {mine!r} is used twice "
                                  f"(players {taken.index(mine) + 1} and {i + 1})")
        names.append(name)
        used_seals.append(seal)
        schools.append(school)
        if "screen" in raw:
            screens.append(read_cubes(raw["screen"], source, f"{where}.screen"))
    if screens and len(screens) != len(names):
        raise RecordError(f"{source}: players: give every player's starting \"screen\" (full information) "
                          f"or none (public record)")
    return names, schools, screens or None


def _action(raw: Any, where: str, source: str, names: list[str]) -> tuple[str, Action]:
    if not isinstance(raw, dict):
        raise RecordError(f"{source}: {where}: expected a JSON object")
    kinds = [k for k in ACTION_KEYS if k in raw]
    if len(kinds) != 1:
        raise RecordError(f"{source}: {where}: expected exactly one of {', '.join(ACTION_KEYS)}")
    kind = kinds[0]
    extra = {"create": {"mix", "tile"}, "copy": {"mix", "tribute"}}.get(kind, set())
    _keys(raw, source, where, {"player", kind, *extra}, {"player", *extra})
    player = _text(raw["player"], source, f"{where}.player", names)
    value = raw[kind]
    if kind in ("create", "copy"):
        cauldron = _count(value, source, f"{where}.{kind}")
        mix = read_cubes(raw["mix"], source, f"{where}.mix")
        if kind == "create":
            return player, Create(cauldron, mix, _count(raw["tile"], source, f"{where}.tile"))
        return player, Copy(cauldron, mix, _text(raw["tribute"], source, f"{where}.tribute", COLOURS))
    if kind == "take":
        return player, Take(_text(value, source, f"{where}.take", COLOURS))
    if kind == "draw":
        if isinstance(value, list):
            for j, colour in enumerate(value):
                _text(colour, source, f"{where}.draw[{j}]", COLOURS)
            return player, Draw(len(value), Cubes.listing(value))
        return player, Draw(_count(value, source, f"{where}.draw"))
    if value is not True:
        raise RecordError(f"{source}: {where}.pass: expected true")
    return player, Pass()


def _reveal(value: Any, source: str, names: list[str]) -> list[Cubes]:
    _keys(value, source, "reveal", set(names), set(names))
    return [read_cubes(value[name], source, f"reveal.{name}") for name in names]


# -- end-game tables for the referee -------------------------------------------------------------------

def read_endgame(data: dict[str, Any], source: str) -> tuple[list[EndPlayer], Cubes]:
    """An ENDGAME.json table: the players (fame, school, screen) and the reserve before the screens are
    emptied into it."""
    _keys(data, source, "", {"game", "players", "reserve"}, {"players", "reserve"})
    if data.get("game", "alchimiste") != "alchimiste":
        raise RecordError(f"{source}: game: expected \"alchimiste\"")
    return read_endgame_players(data["players"], source), read_reserve(data["reserve"], source)


def read_endgame_players(value: Any, source: str) -> list[EndPlayer]:
    if not isinstance(value, list) or not 2 <= len(value) <= 5:
        count = len(value) if isinstance(value, list) else "none"
        raise RecordError(f"{source}: players: Alchimiste is played by 2 to 5 adepts, got {count}")
    players: list[EndPlayer] = []
    for i, raw in enumerate(value):
        where = f"players[{i}]"
        _keys(raw, source, where, {"name", "school", "fame", "screen"}, {"name", "school", "fame", "screen"})
        name = _text(raw["name"], source, f"{where}.name")
        school = _text(raw["school"], source, f"{where}.school", COLOURS)
        for other in players:
            if other.name == name:
                raise RecordError(f"{source}: {where}.name: {name!r} is named twice")
            if other.school == school:
                raise RecordError(f"{source}: {where}.school: school {school} is used twice ({other.name} and {name})")
        players.append(EndPlayer(name, school, _fame(raw["fame"], source, f"{where}.fame"),
                                 read_cubes(raw["screen"], source, f"{where}.screen")))
    return players


def _fame(value: Any, source: str, where: str) -> int:
    """A score, or a seal's place on the track: {"space": 7, "laps": 1} is 57."""
    if isinstance(value, dict):
        _keys(value, source, where, {"space", "laps"}, {"space"})
        try:
            return fame_from_track(_count(value["space"], source, f"{where}.space"),
                                   _count(value.get("laps", 0), source, f"{where}.laps"))
        except IllegalAction as e:
            raise RecordError(f"{source}: {where}: {e}") from None
    return _count(value, source, where)


def read_reserve(value: Any, source: str) -> Cubes:
    return read_cubes(value, source, "reserve")
