"""The game page's state panel: what the table mode knows of the game, per game, as plain data the page draws.

A panel is ``{"facts": [[label, value], ...], "tables": [{"caption", "head", "rows"}, ...]}``, made on the
loop's thread right after each answer of the table (:meth:`Hub.on_step`), so the server never reads a mode
that is being changed. Only what the players see on the table goes in: never the Alchemists assignment nor
the scan area's answers, never an Alchimiste school before the end or the cubes known behind a screen,
never the order of a Chaudron deck or an Alchymia hand.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any


def panel(game: str | None, mode: Any, answers: Counter[str] | None = None) -> dict[str, Any]:
    """The panel of ``mode`` (a table mode of ``game``); ``answers``: Alchemists answers per player. A mode
    that names its own game is drawn as that game (a mode standing in for another has no panel)."""
    game = getattr(mode, "game", None) or game
    make: Callable[..., dict[str, Any]] | None = {"chaudron": _chaudron, "alchimiste": _alchimiste,
                                                  "alchymia": _alchymia, "alchemists": _alchemists}.get(game or "")
    if make is None or mode is None:
        return {"facts": [], "tables": []}
    return make(mode, answers or Counter()) if game == "alchemists" else make(mode)


def _table(caption: str, head: list[str], rows: list[list[Any]]) -> dict[str, Any]:
    return {"caption": caption, "head": head, "rows": [[str(v) for v in row] for row in rows]}


def _listing(counts: Counter[str] | dict[str, int]) -> str:
    return ", ".join(f"{n} {label}" for label, n in counts.items() if n) or "nothing"


def _chaudron(mode: Any) -> dict[str, Any]:
    from assistant.engines.chaudron import CRAMES_TO_LOSE, POTIONS_TO_MAKE
    from assistant.table.chaudron.mode import TIMER

    g = mode.state
    if g is None:
        return {"facts": [["Cauldron", "waiting for the opening throw"]], "tables": []}
    phase = {"throw": "the opening throw", "reveal": "a potion to reveal", "settle": "the table to match the game",
             "play": "playing cards", "over": {"won": "won", "lost": "lost"}.get(g.status, g.status)}
    facts = [["Round", g.round], ["Cramés", f"{g.burnt} of {CRAMES_TO_LOSE}"],
             ["Potions made", f"{len(g.made)} of {POTIONS_TO_MAKE}"],
             *([["Potion cards face down", len(g.deck)]] if mode.known else []),  # how many, never which
             ["Now", phase.get(mode.phase, mode.phase)],
             ["In the cauldron", _listing(Counter(c for c in g.cauldron.cells if c != "empty"))]]
    tables = [_table("Potions revealed", ["potion", "timer cubes"],
                     [[r.potion.name, f"{r.cubes} of {TIMER}"] for r in g.revealed])] if g.revealed else []
    if g.made:
        tables.append(_table("Potions made", ["potion"], [[p.name] for p in g.made]))
    return {"facts": [[k, str(v)] for k, v in facts], "tables": tables}


def _alchimiste(mode: Any) -> dict[str, Any]:
    g = mode.engine
    if g is None:
        return {"facts": [["Board", "waiting for the first reading"]], "tables": []}
    seals = {p.name: p.seal for p in mode.players or ()}
    facts = [["To play", "the game is over" if g.over else g.adepts[g.turn].name],
             ["Fame tiles in the supply", ", ".join(str(t) for t in g.tiles) or "none"],
             ["Reserve", str(g.reserve) or "empty"], ["Cubes in the bag", str(g.bag)]]
    track = _table("Fame track", ["adept", "seal", "fame", "seals left", "cubes behind the screen"],
                   [[a.name, seals.get(a.name, ""), a.fame, a.seals, a.count]
                    for a in sorted(g.adepts, key=lambda a: -a.fame)])
    cauldrons = _table("Cauldrons", ["cauldron", "ingredients", "potion"],
                       [[c.number, " + ".join(c.produces),
                         f"{g.adepts[c.potion.creator].name}: {c.potion.mix}, tile {c.potion.tile}" if c.potion
                         else "open"] for c in g.cauldrons])
    tables = [track, cauldrons]
    if mode.result is not None:  # the end: schools are public now
        tables.insert(0, _table("Final scores", ["adept", "school", "fame", "screen", "school place", "total"],
                                [[x.name, x.school, x.fame, x.screen_points, x.school_place, x.total]
                                 for x in mode.result.lines]))
        facts.insert(0, ["Winner", ", ".join(mode.result.winners)])
    return {"facts": facts, "tables": tables}


def _alchymia(mode: Any) -> dict[str, Any]:
    from assistant.engines.alchymia.stones import COLOURS, ELEMENTS

    t = mode.table
    if t is None:
        return {"facts": [["Boards", "waiting for the players' boards"]], "tables": []}
    winner = t.winner
    facts = [["Winner" if winner is not None else "To play",
              t.players[winner] if winner is not None else (t.players[mode.mover] if mode.mover is not None
                                                            else "the first to move")],
             ["Turns played", str(mode.turns)],
             ["Stones in the reserve", ", ".join(f"{t.reserve[i]} {c.value}" for i, c in enumerate(COLOURS))]]
    crystals = _table("Crystals won", ["player", "crystals", "elements", "still to win"],
                      [[p, len(t.crystals[i]), ", ".join(sorted(e.value for e in t.elements(i))) or "none",
                        len(ELEMENTS) - len(t.elements(i))] for i, p in enumerate(t.players)])
    stacks = _table("Crystal cards", ["element", "cards left", "on top"],
                    [[e.value, len(t.stacks[k]), t.stacks[k][0].name if t.stacks[k] else "none"]
                     for k, e in enumerate(ELEMENTS)])
    return {"facts": facts, "tables": [crystals, stacks]}


def _alchemists(mode: Any, answers: Counter[str]) -> dict[str, Any]:
    facts = [["Mode", mode.mode], ["Action chosen", mode.action],
             ["Assignment", "revealed" if mode.revealed else "secret until the reveal"]]
    tables = [_table("Answers of the scan area", ["player", "answers"], sorted(answers.items()))] if answers else []
    return {"facts": facts, "tables": tables}
