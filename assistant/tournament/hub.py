"""The referee's hub: every table of a tournament, as its messages tell it.

:class:`Hub` subscribes to ``alchemy-table/<tournament>/+/+`` and keeps, per table, whether it is online,
its compact state and, per game, the events in journal order. A message that cannot be used (malformed
JSON, another version, a table claiming another's name, a field of the wrong type) is logged in one line
and ignored. An event is kept once: a duplicate (same game id and seq, or older) is dropped; an event whose
``prev`` is not the last one kept waits until the missing ones arrive, and if they do not come within
:data:`GAP_WAIT_S`, the hub asks the table for them again on its ``resend`` topic (again every
:data:`RESEND_EVERY_S` while they are missing). The retained state's ``last`` reveals a gap at the end.

Threads: paho's network thread writes the model, the page reads it; one lock guards it. The page waits on
:meth:`Hub.feed_after` to learn of new events.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from assistant.tournament import messages
from assistant.tournament.connection import Broker, make_client
from assistant.tournament.summary import alerts as alerts_of

log = logging.getLogger(__name__)

GAP_WAIT_S = 1.0
RESEND_EVERY_S = 3.0
FEED_KEPT = 5000


@dataclass
class GameLog:
    """One game of one table: its events in journal order, each once."""

    game_id: str
    game: str = ""
    events: list[dict[str, Any]] = field(default_factory=list)
    last: int = 0                                               # seq of the last event kept in order
    waiting: dict[int, dict[str, Any]] = field(default_factory=dict)   # prev -> event that came too early
    known: int = 0                                              # the last event seq the table says it has
    gap_since: float | None = None
    asked_at: float = 0.0
    alerts: list[dict[str, Any]] = field(default_factory=list)
    result: dict[str, Any] | None = None
    _memo: dict[str, Any] = field(default_factory=dict)

    @property
    def missing(self) -> bool:
        return bool(self.waiting) or self.known > self.last


@dataclass
class TableView:
    name: str
    online: bool = False
    camera: str = "ok"
    seen: float = 0.0
    state: dict[str, Any] | None = None
    game_id: str | None = None
    games: dict[str, GameLog] = field(default_factory=dict)
    camera_alerts: list[dict[str, Any]] = field(default_factory=list)

    def log(self, game_id: str) -> GameLog:
        if game_id not in self.games:
            self.games[game_id] = GameLog(game_id)
        return self.games[game_id]

    @property
    def current(self) -> GameLog | None:
        return self.games.get(self.game_id) if self.game_id else None


class Hub:
    """The tournament as the hub sees it. ``start()`` connects; the model can also be fed directly
    (:meth:`receive`), which is how the page is tested without a broker."""

    def __init__(self, broker: Broker | None, say: Callable[[str], None] | None = None, client_id: str = ""):
        self.broker = broker
        self.say = say or (lambda message: log.warning("%s", message))
        self.tables: dict[str, TableView] = {}
        self.rejected = 0
        self.duplicates = 0
        self.received = 0
        self.lock = threading.Lock()
        self.feed: list[dict[str, Any]] = []     # every event kept, in the order kept (the page's ticker)
        self.feed_base = 0                        # feed index of feed[0] (older ones are dropped)
        self._changed = threading.Condition(self.lock)
        self._listeners: list[Callable[[], None]] = []
        self._stop = threading.Event()
        self.client = None
        self._unreachable = False
        self.subscribed = threading.Event()      # set while the hub is subscribed on a live connection
        self._client_id = client_id or (f"alchemy-table-hub/{broker.tournament}" if broker else "hub")

    # -- connection -----------------------------------------------------------------------------------

    def start(self) -> None:
        if self.broker is None:
            return
        self.client = make_client(self.broker, self._client_id, clean_session=False)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message
        self.client.on_connect_fail = self._on_connect_fail
        self.client.on_subscribe = lambda client, userdata, mid, codes, properties: self.subscribed.set()
        self.client.connect_async(self.broker.host, self.broker.port, keepalive=15)
        self.client.loop_start()
        threading.Thread(target=self._watch_gaps, name="hub-gaps", daemon=True).start()

    def stop(self) -> None:
        self._stop.set()
        if self.client is not None:
            self.client.disconnect()
            self.client.loop_stop()

    def _on_connect(self, client, userdata, flags, reason_code, properties) -> None:
        if reason_code.is_failure:
            self.say(f"hub: the broker {self.broker.host}:{self.broker.port} refused the hub: {reason_code}")
            return
        self._unreachable = False
        client.subscribe(f"{messages.ROOT}/{self.broker.tournament}/+/+", qos=1)  # again: a restarted broker forgot

    def _on_disconnect(self, client, userdata, flags, reason_code, properties) -> None:
        self.subscribed.clear()
        if not self._stop.is_set():
            self.say(f"hub: lost the broker ({reason_code}); reconnecting")
            self._unreachable = True

    def _on_connect_fail(self, client, userdata) -> None:
        if not self._unreachable:  # once per outage, not once per try
            self._unreachable = True
            self.say(f"hub: cannot reach the broker {self.broker.host}:{self.broker.port}; retrying")

    def _on_message(self, client, userdata, message) -> None:
        self.receive(message.topic, message.payload)

    # -- the model ------------------------------------------------------------------------------------

    def receive(self, topic: str, payload: bytes) -> None:
        """One message off the broker: checked, then into the model (or one line in the log)."""
        if topic.endswith("/resend"):
            return  # the hub's own requests
        try:
            msg = messages.parse(topic, payload)
        except messages.BadMessage as e:
            self.rejected += 1
            self.say(f"hub: ignored: {e}")
            return
        with self._changed:
            self.received += 1
            view = self.tables.setdefault(msg.table, TableView(msg.table))
            view.seen = time.time()
            getattr(self, f"_{msg.kind}")(view, msg.body)
            self._changed.notify_all()
        for listener in list(self._listeners):
            listener()

    def _status(self, view: TableView, body: dict[str, Any]) -> None:
        view.online = body["online"]
        if isinstance(body.get("camera"), str):
            view.camera = body["camera"]
        if isinstance(body.get("game_id"), str):
            view.game_id = body["game_id"]
            view.log(body["game_id"]).game = str(body.get("game", ""))

    def _state(self, view: TableView, body: dict[str, Any]) -> None:
        old = view.state
        if old is not None and old["game_id"] == body["game_id"] and old["seq"] > body["seq"]:
            return  # an older state, resent
        view.state = body
        view.game_id = body["game_id"]
        game = view.log(body["game_id"])
        game.game = body["game"]
        last = body.get("last")
        if isinstance(last, int) and last > game.known:
            game.known = last
            self._gap(game)

    def _event(self, view: TableView, body: dict[str, Any]) -> None:
        game = view.log(body["game_id"])
        seq = body["seq"]
        if seq <= game.last or body["prev"] in game.waiting:
            self.duplicates += 1
            return
        game.known = max(game.known, seq)
        if body["prev"] != game.last:
            game.waiting[body["prev"]] = body
            self._gap(game)
            return
        self._keep(view, game, body)
        while game.last in game.waiting:
            self._keep(view, game, game.waiting.pop(game.last))
        if not game.missing:
            game.gap_since = None

    def _keep(self, view: TableView, game: GameLog, body: dict[str, Any]) -> None:
        game.events.append(body)
        game.last = body["seq"]
        if body["kind"] == "game" and isinstance(body.get("data"), dict):
            game.game = str(body["data"].get("game", game.game))
        for alert in alerts_of(body, game._memo):
            game.alerts.append({**alert, "seq": body["seq"], "time": body.get("time")})
        self.feed.append({"table": view.name, "game_id": game.game_id, "seq": body["seq"], "kind": body["kind"],
                          "message": body["message"], "legal": body.get("legal"), "at": time.time()})
        if len(self.feed) > FEED_KEPT * 2:
            drop = len(self.feed) - FEED_KEPT
            del self.feed[:drop]
            self.feed_base += drop

    def _alert(self, view: TableView, body: dict[str, Any]) -> None:
        if body["alert"] == "camera":  # the others the hub works out from the events, each once
            view.camera = "lost" if body.get("lost") else "ok"
            view.camera_alerts.append(body)

    def _result(self, view: TableView, body: dict[str, Any]) -> None:
        view.log(body["game_id"]).result = body

    def _gap(self, game: GameLog) -> None:
        if game.missing and game.gap_since is None:
            game.gap_since = time.monotonic()

    def _watch_gaps(self) -> None:
        while not self._stop.wait(0.25):
            asks = []
            with self.lock:
                now = time.monotonic()
                for view in self.tables.values():
                    for game in view.games.values():
                        if not game.missing or game.gap_since is None or now - game.gap_since < GAP_WAIT_S:
                            continue
                        if now - game.asked_at >= RESEND_EVERY_S:
                            game.asked_at = now
                            asks.append((view.name, game.game_id, game.last + 1))
            for table, game_id, start in asks:
                self.client.publish(messages.topic(self.broker.tournament, table, "resend"),
                                    messages.encode("resend", table, {"game_id": game_id, "from": start}), qos=1)

    # -- what the page shows --------------------------------------------------------------------------

    def on_change(self, listener: Callable[[], None]) -> None:
        """``listener()`` is called (on the network thread) after each message kept."""
        self._listeners.append(listener)

    def feed_after(self, index: int) -> tuple[int, list[dict[str, Any]]]:
        """Events kept after feed index ``index``: (the index to ask after next time, the events)."""
        with self.lock:
            start = max(index, self.feed_base)
            return self.feed_base + len(self.feed), self.feed[start - self.feed_base:]

    def glance(self) -> list[dict[str, Any]]:
        """Every table in one line: game, round, scores, alerts, online."""
        with self.lock:
            out = []
            for view in sorted(self.tables.values(), key=lambda v: _natural(v.name)):
                state, game = view.state or {}, view.current
                alerts = (game.alerts if game else []) + [a for a in view.camera_alerts if a.get("lost")]
                out.append({"table": view.name, "online": view.online, "camera": view.camera,
                            "game_id": view.game_id, "game": state.get("game") or (game.game if game else None),
                            "round": state.get("round"), "turn": state.get("turn"),
                            "players": state.get("players", []), "cramés": state.get("cramés"),
                            "over": state.get("over", False), "events": len(game.events) if game else 0,
                            "missing": bool(game and game.missing),
                            "alerts": [{k: a.get(k) for k in ("alert", "message", "seq")} for a in alerts[-5:]],
                            "alert_count": len(alerts),
                            "winners": (game.result or {}).get("winners") if game else None})
            return out

    def table(self, name: str, game_id: str | None = None) -> dict[str, Any] | None:
        """One table's full event log (its current game unless ``game_id``) and its games."""
        with self.lock:
            view = self.tables.get(name)
            if view is None:
                return None
            game = view.games.get(game_id) if game_id else view.current
            return {"table": name, "online": view.online, "camera": view.camera, "state": view.state,
                    "games": list(view.games), "game_id": game.game_id if game else None,
                    "events": list(game.events) if game else [], "alerts": list(game.alerts) if game else [],
                    "result": game.result if game else None, "missing": bool(game and game.missing)}

    def standings(self) -> list[dict[str, Any]]:
        """Every player of every table's current game, ranked within each game by wins, then score; equal
        players share a place."""
        rows = []
        with self.lock:
            for view in self.tables.values():
                state, game = view.state, view.current
                if state is None:
                    continue
                winners = set((game.result or {}).get("winners", ())) if game else set()
                for p in state.get("players", []):
                    rows.append({"game": state["game"], "table": view.name, "player": p.get("name"),
                                 "score": p.get("score", 0), "won": p.get("name") in winners,
                                 "over": bool(state.get("over"))})
        rows.sort(key=lambda r: (r["game"], -r["won"], -r["score"], _natural(r["table"]), str(r["player"])))
        place, previous = 0, None
        for i, row in enumerate(rows):
            key = (row["game"], row["won"], row["score"])
            if previous is None or key != previous:
                place = 1 if previous is None or previous[0] != row["game"] else i + 1 - _first(rows, row["game"])
            row["place"] = place
            previous = key
        return rows

    def results_csv(self) -> str:
        """The finished games, one line per player: tournament, table, game, game id, player, score, won."""
        import csv
        import io

        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["tournament", "table", "game", "game_id", "player", "score", "won", "result"])
        tournament = self.broker.tournament if self.broker else ""
        for row in self.standings():
            if not row["over"]:
                continue
            view = self.tables[row["table"]]
            game = view.current
            result = (game.result or {}) if game else {}
            writer.writerow([tournament, row["table"], row["game"], view.game_id, row["player"], row["score"],
                             "yes" if row["won"] else "no", result.get("message", "")])
        return out.getvalue()


def _first(rows: list[dict[str, Any]], game: str) -> int:
    return next(i for i, r in enumerate(rows) if r["game"] == game)


def _natural(name: str) -> tuple:
    """table-2 before table-10."""
    import re

    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name))
