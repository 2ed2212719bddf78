"""The tournament's messages: topics and versioned JSON payloads (docs/tournament.md has examples).

Every topic is ``alchemy-table/<tournament>/<table>/<kind>``:

=========  ========  ==========================================================================================
kind       retained  payload
=========  ========  ==========================================================================================
status     yes       the table online or not (its last will says offline), the game it keeps, the camera
state      yes       the compact current state: game, round, whose turn, players' scores, Cramés, result
event      no        one journal record of the game (its ``game`` record, then each ``event``): seq, prev
alert      no        an illegal move, Cramés at 15 and more, the camera lost or back
result     yes       the final result with the end-game detail
resend     no        hub -> table: publish the game's records again from ``from`` (a gap was seen)
=========  ========  ==========================================================================================

Every payload has ``v`` (:data:`VERSION`), ``type`` (the kind) and ``table``; those about a game have its
``game_id`` (the table's name and the time its journal started the game) and ``seq`` (the journal record it
comes from, or for ``state`` the last record it reflects). An ``event`` also has ``prev``, the ``seq`` of the
game's previous event message (0 for the first), so a subscriber sees a gap, and drops a duplicate.

:func:`parse` is the subscriber's side: a payload that is not what it says it is raises :class:`BadMessage`,
whose text is the one line the hub logs.

>>> topic("club-night", "table-3", "event")
'alchemy-table/club-night/table-3/event'
>>> parse("alchemy-table/club-night/table-3/status", b'{"v": 1, "type": "status", "table": "table-3", '
...       b'"online": false}').online
False
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

ROOT = "alchemy-table"
VERSION = 1
KINDS = ("status", "state", "event", "alert", "result", "resend")
RETAINED = ("status", "state", "result")
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


class BadMessage(ValueError):
    """A message on a tournament topic that cannot be used; the text says what is wrong and where."""


def check_name(what: str, name: str) -> str:
    """Tournament and table names are topic levels: letters, digits, ``_ . -``; no ``/ + #``."""
    if not isinstance(name, str) or not NAME.fullmatch(name):
        raise ValueError(f"tournament.{what}: {name!r} must be 1-64 letters, digits, '_', '.' or '-' "
                         f"(it is a topic level)")
    return name


def topic(tournament: str, table: str, kind: str) -> str:
    return f"{ROOT}/{tournament}/{table}/{kind}"


def encode(kind: str, table: str, body: dict[str, Any]) -> bytes:
    return json.dumps({"v": VERSION, "type": kind, "table": table, **body}, ensure_ascii=False,
                      separators=(",", ":")).encode("utf-8")


@dataclass(frozen=True)
class Message:
    table: str
    kind: str
    body: dict[str, Any]

    def __getattr__(self, key: str) -> Any:
        try:
            return self.body[key]
        except KeyError:
            raise AttributeError(key) from None


_REQUIRED: dict[str, dict[str, type | tuple[type, ...]]] = {
    "status": {"online": bool},
    "state": {"game_id": str, "seq": int, "game": str, "players": list, "over": bool},
    "event": {"game_id": str, "seq": int, "prev": int, "kind": str, "message": str},
    "alert": {"alert": str, "message": str},
    "result": {"game_id": str, "seq": int, "winners": list},
    "resend": {"game_id": str, "from": int},
}


def parse(topic_name: str, payload: bytes) -> Message:
    """Check a message received on ``topic_name``; :class:`BadMessage` says why it cannot be used."""
    parts = topic_name.split("/")
    if len(parts) != 4 or parts[0] != ROOT or parts[3] not in KINDS:
        raise BadMessage(f"{topic_name}: not a tournament topic ({ROOT}/TOURNAMENT/TABLE/{'|'.join(KINDS)})")
    table, kind = parts[2], parts[3]
    try:
        body = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise BadMessage(f"{topic_name}: malformed JSON ({_short(e)})") from None
    if not isinstance(body, dict):
        raise BadMessage(f"{topic_name}: expected a JSON object, got {type(body).__name__}")
    if body.get("v") != VERSION:
        raise BadMessage(f"{topic_name}: version {body.get('v')!r}, this hub reads version {VERSION}")
    if body.get("type") != kind:
        raise BadMessage(f"{topic_name}: type {body.get('type')!r} on a {kind} topic")
    if body.get("table") != table:
        raise BadMessage(f"{topic_name}: claims to be table {body.get('table')!r}; ignored")
    for key, want in _REQUIRED[kind].items():
        value = body.get(key)
        if not isinstance(value, want) or (want is int and isinstance(value, bool)):
            raise BadMessage(f"{topic_name}: {key}: expected {_type_name(want)}, got {value!r}"[:200])
    if (kind in ("state", "event", "result") and body["seq"] < 1) or \
            (kind == "event" and not 0 <= body["prev"] < body["seq"]):
        raise BadMessage(f"{topic_name}: seq {body.get('seq')!r} / prev {body.get('prev')!r} out of order")
    return Message(table, kind, body)


def _type_name(want: type | tuple[type, ...]) -> str:
    names = {bool: "true or false", int: "an integer", str: "a string", list: "a list", dict: "an object"}
    return names.get(want, str(want)) if isinstance(want, type) else " or ".join(names[w] for w in want)


def _short(error: Exception) -> str:
    return " ".join(str(error).split())[:120]
