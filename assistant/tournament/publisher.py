"""A table in a tournament: what its live loop committed, published to the tournament's broker.

The live loop calls :meth:`Publisher.update` after each frame or button (cheap: the compact state is read
from the table mode and compared with the last one); everything else happens on the publisher's own thread:
it reads the records the journal has gained (:class:`~assistant.tournament.stream.JournalTail`), publishes
their messages in journal order with QoS 1, and publishes the compact state (retained) when it changed.

Nothing is lost when the network or the broker is:

- the table never waits for the broker: paho-mqtt keeps what could not be sent yet and sends it, in order,
  once it is connected again;
- what the broker acknowledged (PUBACK, paho's ``on_publish``) is written to ``STATE_DIR/tournament.json``
  (game id and seq); after a restart the table publishes its journal from the first record the broker had
  not acknowledged;
- a broker that dies after acknowledging a message may never deliver it: the hub sees the gap (each event
  names the previous one, ``prev``; the retained state names the last one) and asks for the records again
  on the table's ``resend`` topic; the table publishes them again from its stream.

Subscribers drop duplicates by game id and seq. The last will (retained ``status``, online false) tells
the hub the table went away without saying goodbye; :meth:`close` says goodbye.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from assistant.tournament import messages
from assistant.tournament.connection import Broker, make_client
from assistant.tournament.stream import JournalTail, Stream
from assistant.tournament.summary import summary

log = logging.getLogger(__name__)

ACKED_FILE = "tournament.json"


class Publisher:
    """One table's connection to the tournament. ``state_dir`` keeps what the broker acknowledged."""

    def __init__(self, broker: Broker, table: str, state_dir: str | os.PathLike[str],
                 say: Callable[[str], None] | None = None):
        self.broker = broker
        self.table = messages.check_name("table", table)
        self.state_dir = Path(state_dir)
        self.say = say or (lambda message: log.info("%s", message))
        self._lock = threading.Lock()
        # The camera's state is read and its status handed to paho under one lock: a status built on the
        # publisher's thread just before the camera was lost must not reach the broker after the "lost" one.
        self._status_lock = threading.RLock()
        self._wake = threading.Event()
        self._stop = False
        self._tail: JournalTail | None = None
        self._stream: Stream | None = None
        self._cursor = 0               # the next stream entry to hand to paho
        self._state: dict[str, Any] | None = None   # the last summary and the journal seq it reflects
        self._state_sent = True
        self._camera_lost = False
        self._connected = False
        self._unreachable = False
        self._greet = False            # just connected: status and state again (a restarted broker forgot them)
        self._resend: tuple[str, int] | None = None
        self._pending: dict[int, int | None] = {}    # paho mid -> journal seq (None: status...), awaiting PUBACK
        self._early: set[int] = set()                # acknowledged before publish() returned its mid
        self._outstanding: dict[int, int] = {}       # journal seq -> messages of it not yet acknowledged
        self._published_upto = 0
        self._resume_after = 0
        self._acked = self._read_acked()
        self._acked_written = self._acked
        self.client = make_client(broker, f"alchemy-table/{broker.tournament}/{table}")
        self.client.will_set(self._topic("status"), self._payload("status", {"online": False}), qos=1, retain=True)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_publish = self._on_publish
        self.client.on_message = self._on_message
        self.client.on_connect_fail = self._on_connect_fail
        self.client.max_inflight_messages_set(100)
        self.client.connect_async(broker.host, broker.port, keepalive=15)
        self.client.loop_start()
        self._thread = threading.Thread(target=self._run, name=f"tournament-{table}", daemon=True)
        self._thread.start()

    # -- what the live loop calls ---------------------------------------------------------------------

    def update(self, pipeline: Any) -> None:
        """After a frame or a button: follow the pipeline's journal and note its compact state."""
        journal = getattr(pipeline, "journal", None)
        if journal is not None:
            self.note(journal.path, journal.next_seq - 1, summary(pipeline.game, pipeline.mode))

    def note(self, journal_path: str | os.PathLike[str], seq: int, state: dict[str, Any]) -> None:
        """The journal to follow, its last record's ``seq`` and the compact state as of that record."""
        with self._lock:
            if self._tail is None or self._tail.path != Path(journal_path):
                if self._tail is not None:
                    self._tail.close()
                self._tail = JournalTail(journal_path)
            if self._state is None or self._state["summary"] != state or self._state["seq"] != seq:
                self._state = {"summary": state, "seq": seq}
                self._state_sent = False
        self._wake.set()

    def camera(self, message: str) -> None:
        """A line from the camera's retrying source: the camera lost (or given up on), or back."""
        if "back after" in message:
            lost = False
        elif "retrying in" in message or "giving up" in message:
            lost = True
        else:
            return  # not about the camera's connection (an unreadable recorded frame, say)
        with self._status_lock:
            if lost == self._camera_lost:
                return
            self._camera_lost = lost
            self._publish("alert", {"alert": "camera", "message": message, "lost": lost, **self._game_ids()})
            self._publish_status()

    def close(self, timeout: float = 2.0) -> None:
        """Publish what is left (for up to ``timeout`` seconds), say goodbye (status offline), disconnect."""
        deadline = time.monotonic() + timeout
        self._wake.set()
        while time.monotonic() < deadline and (self._unsent() or self._outstanding) and self._connected:
            time.sleep(0.02)
        self._stop = True
        self._wake.set()
        self._thread.join(timeout=2)
        self._write_acked()
        if self._tail is not None:
            self._tail.close()
        if self._connected:
            info = self.client.publish(self._topic("status"), self._payload("status", {"online": False}), qos=1,
                                       retain=True)
            info.wait_for_publish(timeout=max(0.1, deadline - time.monotonic()))
        self.client.disconnect()
        self.client.loop_stop()

    @property
    def acked(self) -> int:
        return self._acked

    @property
    def connected(self) -> bool:
        return self._connected

    # -- the publisher's thread -----------------------------------------------------------------------

    def _run(self) -> None:
        while not self._stop:
            self._wake.wait(0.25)
            self._wake.clear()
            try:
                self._step()
            except Exception as e:  # a bad journal line must not silence the table for the evening
                log.warning("tournament: %s: %s", self.table, e)
                time.sleep(1)

    def _step(self) -> None:
        with self._lock:  # the state taken and marked sent at once: an update() meanwhile is sent next time
            tail, greet = self._tail, self._greet
            state = self._state if greet or not self._state_sent else None
            self._greet, self._state_sent = False, True
            resend, self._resend = self._resend, None
        if tail is not None:
            for record in tail.new():
                if record.seq == 1 and record.kind == "game":  # every journal, every game, starts so
                    if self._stream is not None:
                        self._flush(self._stream)  # the end of the game before, read from the archived file
                    self._new_game(record)
                elif self._stream is not None:
                    self._stream.add(record)
        stream = self._stream
        if stream is None:
            with self._lock:
                self._greet = self._greet or greet
                self._state_sent = self._state_sent and state is None
            return
        if resend is not None and resend[0] == stream.game_id:
            self._cursor = min(self._cursor, stream.index_after(resend[1] - 1))
            self._resume_after = min(self._resume_after, resend[1] - 1)
        if greet:
            self._publish_status()
        self._flush(stream)
        if state is not None:
            body = {"game_id": stream.game_id, "seq": max(1, state["seq"]),
                    "last": stream.last_event_upto(state["seq"]), **state["summary"]}
            self._publish("state", body, True)
        self._write_acked()

    def _flush(self, stream: Stream) -> None:
        """Hand paho the stream's entries not handed over yet, in order."""
        while self._cursor < len(stream.entries):
            entry = stream.entries[self._cursor]
            if entry.seq > self._resume_after:  # the broker acknowledged the others before a restart
                for kind, body, retain in entry.messages:
                    self._publish(kind, body, retain, seq=entry.seq)
            self._cursor += 1
            self._published_upto = max(self._published_upto, entry.seq)

    def _new_game(self, first) -> None:
        self._stream = Stream.start(first)
        with self._lock:
            self._outstanding.clear()
            self._pending.clear()
        saved = self._saved_game
        self._acked = self._acked if saved == self._stream.game_id else 0
        self._published_upto = self._resume_after = self._acked
        self._cursor = 0
        if self._acked:
            self.say(f"tournament: {self._stream.game_id}: the broker has the records up to {self._acked}; "
                     f"publishing from there")
        self._publish_status()

    def _unsent(self) -> bool:
        return self._stream is not None and self._cursor < len(self._stream.entries)

    # -- publishing and acknowledgements --------------------------------------------------------------

    def _topic(self, kind: str) -> str:
        return messages.topic(self.broker.tournament, self.table, kind)

    def _payload(self, kind: str, body: dict[str, Any]) -> bytes:
        return messages.encode(kind, self.table, body)

    def _game_ids(self) -> dict[str, Any]:
        stream = self._stream
        return {} if stream is None else {"game_id": stream.game_id, "game": stream.game}

    def _publish_status(self) -> None:
        with self._status_lock:
            self._publish("status", {"online": True, "camera": "lost" if self._camera_lost else "ok",
                                     "time": _now(), **self._game_ids()}, True)

    def _publish(self, kind: str, body: dict[str, Any], retain: bool = False, seq: int | None = None) -> None:
        info = self.client.publish(self._topic(kind), self._payload(kind, body), qos=1, retain=retain)
        with self._lock:  # paho may have had the PUBACK before publish() returned the mid
            if info.mid in self._early:
                self._early.discard(info.mid)
            else:
                self._pending[info.mid] = seq
                if seq is not None:
                    self._outstanding[seq] = self._outstanding.get(seq, 0) + 1

    def _on_publish(self, client, userdata, mid, reason_code, properties) -> None:
        with self._lock:
            if mid not in self._pending:
                self._early.add(mid)
                return
            seq = self._pending.pop(mid)
            if seq is None:
                return  # status, state: nothing to remember
            left = self._outstanding.get(seq, 1) - 1
            if left > 0:
                self._outstanding[seq] = left
            else:
                self._outstanding.pop(seq, None)
            upto = min(self._outstanding) - 1 if self._outstanding else self._published_upto
            if upto > self._acked:
                self._acked = upto

    def _on_connect(self, client, userdata, flags, reason_code, properties) -> None:
        if reason_code.is_failure:
            self.say(f"tournament: {self.broker.host}:{self.broker.port} refused {self.table}: {reason_code}")
            return
        self._connected = True
        self._unreachable = False
        client.subscribe(self._topic("resend"), qos=1)
        with self._lock:
            self._greet = True
        self._wake.set()

    def _on_disconnect(self, client, userdata, flags, reason_code, properties) -> None:
        if self._connected and not self._stop:
            self.say(f"tournament: lost the broker {self.broker.host}:{self.broker.port} ({reason_code}); "
                     f"the table plays on and will publish what it missed")
            self._unreachable = True
        self._connected = False

    def _on_connect_fail(self, client, userdata) -> None:
        if not self._unreachable:  # once per outage, not once per try
            self._unreachable = True
            self.say(f"tournament: cannot reach the broker {self.broker.host}:{self.broker.port}; the table plays "
                     f"on and will publish when it can")

    def _on_message(self, client, userdata, message) -> None:
        try:
            request = messages.parse(message.topic, message.payload)
        except messages.BadMessage as e:
            log.warning("tournament: %s", e)
            return
        with self._lock:
            game, start = request.body["game_id"], request.body["from"]
            if self._resend is None or self._resend[0] != game or start < self._resend[1]:
                self._resend = (game, start)
        self._wake.set()

    # -- what the broker acknowledged, kept in the state folder -----------------------------------------

    @property
    def _path(self) -> Path:
        return self.state_dir / ACKED_FILE

    def _read_acked(self) -> int:
        self._saved_game = None
        try:
            saved = json.loads(self._path.read_text(encoding="utf-8"))
            self._saved_game = str(saved["game_id"])
            return int(saved["acked"])
        except FileNotFoundError:
            return 0
        except (ValueError, KeyError, TypeError, OSError) as e:
            log.warning("%s: unreadable (%s); publishing the whole journal again", self._path, e)
            return 0

    def _write_acked(self) -> None:
        stream = self._stream
        if stream is None or self._acked == self._acked_written:
            return
        acked = self._acked
        tmp = self._path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"game_id": stream.game_id, "acked": acked}), encoding="utf-8")
        os.replace(tmp, self._path)  # no fsync: a lost update only means some records are published twice
        self._acked_written = acked
        self._saved_game = stream.game_id


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z")


def close_all(publishers: list[Publisher], timeout: float = 2.0) -> None:
    """Close many publishers at once (each waits for its broker's goodbye on its own)."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=max(1, min(32, len(publishers)))) as pool:
        list(pool.map(lambda p: p.close(timeout), publishers))
