"""What a referee wants of a table at a glance, and what should catch their eye.

- :func:`summary`: the compact current state of a game, read from its table mode right after the live loop
  committed a step (game, round, whose turn, each player's score and crystals, Cramés, over or not). Nothing
  secret: the Alchemists assignment is never read, only whether it was revealed.
- :func:`alerts`: the alerts a journal ``event`` record raises (an illegal move, Cramés at 15 and more),
  worked out from the record alone so that a table restarted from its journal raises the same ones.
- :func:`result`: the final result, from the event that ends the game (its data is the end-game detail).

>>> memo = {}
>>> [a["alert"] for a in alerts({"kind": "card", "legal": True, "data": {"cramés": 16}}, memo)]
['cramés']
>>> alerts({"kind": "card", "legal": True, "data": {"cramés": 16}}, memo)   # no higher: said already
[]
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from typing import Any

CRAMES_ALERT = 15
"""Cramés in the cauldron from which a table is in trouble (the witches lose at 20)."""

END_KINDS = {"alchimiste": ("end",), "chaudron": ("won", "lost"), "alchymia": ("win",), "alchemists": ("reveal",)}
"""The event kinds that end a game of each kind."""


def summary(game: str, mode: Any) -> dict[str, Any]:
    """The compact state of ``mode`` (a table mode of ``game``): the ``state`` payload without its envelope."""
    out: dict[str, Any] = {"game": game, "round": None, "turn": None, "players": [], "cramés": None,
                           "over": bool(mode.over)}
    reader = _READERS.get(game)
    if reader is not None:
        reader(mode, out)
    return out


def _alchimiste(mode: Any, out: dict[str, Any]) -> None:
    g = mode.engine
    if g is None:
        out["players"] = [{"name": p.name, "score": 0} for p in mode.players or ()]
        return
    out["round"] = g.round
    out["turn"] = None if g.over else g.to_play.name
    totals = {line.name: line.total for line in mode.result.lines} if mode.result is not None else {}
    out["players"] = [{"name": a.name, "score": totals.get(a.name, a.fame), "fame": a.fame, "school": a.school}
                      for a in g.adepts]


def _chaudron(mode: Any, out: dict[str, Any]) -> None:
    g = mode.state
    if g is None:
        return
    out["round"] = g.round
    out["cramés"] = g.burnt
    out["players"] = [{"name": "witches", "score": len(g.made), "witches": g.players}]


def _alchymia(mode: Any, out: dict[str, Any]) -> None:
    t = mode.table
    if t is None:
        return
    out["round"] = mode.turns // len(t.players) + 1
    out["turn"] = None if mode.over or mode.mover is None else t.players[mode.mover]
    out["players"] = [{"name": name, "score": len(t.crystals[i]),
                       "crystals": sorted(str(c.element.value) for c in t.crystals[i])}
                      for i, name in enumerate(t.players)]


def _alchemists(mode: Any, out: dict[str, Any]) -> None:
    out["revealed"] = bool(mode.revealed)


_READERS = {"alchimiste": _alchimiste, "chaudron": _chaudron, "alchymia": _alchymia, "alchemists": _alchemists}


def alerts(event: Mapping[str, Any], memo: MutableMapping[str, Any]) -> list[dict[str, str]]:
    """The alerts of one journalled event (``{"kind", "message", "legal", "data"}``). ``memo`` carries what
    earlier events of the same game said (the Cramés already alerted), so feed it the game's events in order."""
    out = []
    if event.get("legal") is False:
        out.append({"alert": "illegal", "message": str(event.get("message", ""))})
    data = event.get("data")
    crames = data.get("cramés") if isinstance(data, Mapping) else None
    if isinstance(crames, int) and crames >= CRAMES_ALERT and crames > memo.get("cramés", 0):
        memo["cramés"] = crames
        out.append({"alert": "cramés", "message": f"{crames} Cramés in the cauldron"})
    return out


def result(game: str, event: Mapping[str, Any]) -> dict[str, Any] | None:
    """The final result if ``event`` ends a ``game``: ``{"kind", "message", "winners", "detail"}``."""
    if event.get("kind") not in END_KINDS.get(game, ()):
        return None
    data = dict(event.get("data") or {})
    if game == "alchimiste":
        winners = list(data.get("winners", []))
    elif game == "chaudron":
        winners = ["witches"] if event["kind"] == "won" else []
    elif game == "alchymia":
        winners = [data["player"]] if "player" in data else []
    else:
        winners = []
    return {"kind": event["kind"], "message": str(event.get("message", "")), "winners": winners, "detail": data}
