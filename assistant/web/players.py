"""Alchemists players' own pages: joining with the code shown on the table's display, each player's results,
and each player's deduction aid (``assistant.engines.alchemists.solver``) filled from them.

A player presses "I am at the scanner" on their page before laying their two cards; the next answer of the
scan area (a test, a drink, a sale, an exhibit, a debunk) is then theirs: it goes to their page and becomes a
fact of their deduction, and the shared page says only whose it was. An answer nobody claimed stays on the
table's display. The deduction aid uses nothing but the player's own results: the assignment is never read.

>>> players = Players(); players.reset("alchemists")
>>> token = players.join("Ada", players.new_code())
>>> players.by_token(token).name
'Ada'
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from assistant.engines import alchemists as al

PRIVATE_KINDS = frozenset({"potion", "drink", "sale", "exhibit", "demonstration", "debunk", "mix", "reading"})
CODE_SECONDS = 120.0
SCAN_SECONDS = 180.0
MAX_PLAYERS = 6


class PlayerError(ValueError):
    """A join or a request a player cannot make; the message says why."""


@dataclass
class Player:
    name: str
    results: list[dict[str, Any]] = field(default_factory=list)   # what the table answered this player
    facts: list[dict[str, Any]] = field(default_factory=list)     # the same, as a facts file's items


class Players:
    def __init__(self):
        self._lock = threading.Lock()
        self.game: str | None = None
        self._by_token: dict[bytes, Player] = {}
        self._codes: dict[str, float] = {}
        self._scanner: tuple[Player, float] | None = None
        self.revealed = False

    def reset(self, game: str | None) -> None:
        """A new game on the table: nobody has joined it yet."""
        with self._lock:
            self.game = game
            self._by_token.clear()
            self._codes.clear()
            self._scanner = None
            self.revealed = False

    def new_code(self) -> str:
        """A one-use join code, valid two minutes (shown on the table's display)."""
        if self.game != "alchemists":
            raise PlayerError(f"players join an Alchemists game; the game on the table is {self.game}")
        code = f"{secrets.randbelow(10 ** 6):06d}"
        with self._lock:
            now = time.monotonic()
            self._codes = {c: t for c, t in self._codes.items() if t > now}
            self._codes[code] = now + CODE_SECONDS
        return code

    def join(self, name: str, code: str) -> str:
        """Join with a code from the display; returns the player's own token (kept in their cookie)."""
        name = " ".join(str(name).split())
        if not 1 <= len(name) <= 20 or not all(c.isalnum() or c in " -_'" for c in name):
            raise PlayerError("name: 1 to 20 letters, digits, spaces, - _ or '")
        with self._lock:
            if self.game != "alchemists":
                raise PlayerError(f"players join an Alchemists game; the game on the table is {self.game}")
            expiry = self._codes.pop(str(code).strip(), None)
            if expiry is None or expiry < time.monotonic():
                raise PlayerError("join code: wrong or expired; ask for a new one on the table's display")
            if any(p.name.lower() == name.lower() for p in self._by_token.values()):
                raise PlayerError(f"name: {name} has already joined; choose another name")
            if len(self._by_token) >= MAX_PLAYERS:
                raise PlayerError(f"this game has {MAX_PLAYERS} players already")
            token = secrets.token_urlsafe(24)
            self._by_token[_digest(token)] = Player(name)
        return token

    def by_token(self, token: str | None) -> Player | None:
        if not token:
            return None
        digest = _digest(token)
        with self._lock:
            for known, player in self._by_token.items():
                if hmac.compare_digest(known, digest):
                    return player
        return None

    def names(self) -> list[str]:
        with self._lock:
            return sorted(p.name for p in self._by_token.values())

    def claim(self, player: Player) -> None:
        """``player`` is at the scanner: the next answer of the scan area is theirs."""
        with self._lock:
            self._scanner = (player, time.monotonic() + SCAN_SECONDS)

    def scanner_name(self) -> str | None:
        with self._lock:
            held = self._scanner
            return held[0].name if held and held[1] > time.monotonic() else None

    def record(self, event: Any) -> str | None:
        """A private answer of the scan area: to the player at the scanner (who then leaves it)."""
        with self._lock:
            held, self._scanner = self._scanner, None
            if held is None or held[1] < time.monotonic():
                return None
            player = held[0]
            player.results.append({"kind": event.kind, "message": event.message, "legal": event.legal})
            fact = _fact(event.kind, dict(event.data))
            if fact is not None:
                player.facts.append(fact)
            return player.name

    def page(self, player: Player) -> dict[str, Any]:
        """The player's own page: their results and their deduction aid."""
        with self._lock:
            results, items = list(player.results), list(player.facts)
        facts, _ = al.parse_facts({"facts": items}, f"{player.name}'s results")
        deduction = al.deduce(facts)
        out: dict[str, Any] = {"name": player.name, "results": results, "facts": [str(f) for f in facts],
                               "remaining": deduction.remaining, "total": al.GAMES,
                               "scanning": self.scanner_name() == player.name}
        if not deduction.consistent:
            out["contradiction"] = str(facts[deduction.contradiction])
            return out
        p = deduction.probabilities
        out["alchemicals"] = [str(a) for a in al.ALCHEMICALS]
        out["probabilities"] = {i: [round(float(p[n, a.index]), 3) for a in al.ALCHEMICALS]
                                for n, i in enumerate(al.INGREDIENTS)}
        out["certain"] = {i: str(a) for i, a in deduction.certain.items()}
        suggestion = al.suggest_mix(deduction)
        if suggestion is not None and suggestion.expected_bits > 0:
            out["next_mix"] = {"ingredients": list(suggestion.ingredients),
                               "expected_bits": round(suggestion.expected_bits, 2),
                               "outcomes": {str(q): round(v, 3) for q, v in suggestion.outcomes}}
        return out


def _fact(kind: str, data: dict[str, Any]) -> dict[str, Any] | None:
    """An answer as a facts file's item (docs/alchemists.md), or None when it tells nothing."""
    pair = data.get("ingredients")
    if kind in ("potion", "drink", "demonstration") and pair and "potion" in data:
        return {"mix": list(pair), "potion": data["potion"]}
    if kind == "sale" and pair and "reached" in data:
        return {"sell": list(pair), "wanted": data["wanted"], "result": data["reached"]}
    if kind == "exhibit" and pair:
        return {"exhibit": list(pair), "promised": data["promised"], "success": data["success"]}
    if kind == "debunk" and "sign" in data:
        return {"debunk": data["ingredient"], "colour": data["colour"], "sign": data["sign"]}
    return None


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()
