"""A table's journal as the tournament's messages: read from the file the live loop appends to, never
from the loop itself (the journal is the one source of truth).

:class:`JournalTail` reads the records appended since it last looked (only whole lines: a line being
written is left for next time). :class:`Stream` turns a game's records into the messages each one gives,
in order: the ``game`` record and every ``event`` record as an ``event`` message (with ``prev``, the seq of
the game's previous one), each with its alerts and, for the event that ends the game, the result.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from assistant.journal import Record
from assistant.tournament.summary import alerts, result


class JournalTail:
    """The records appended to a journal file since the last call of :meth:`new`. When the live loop starts a
    new game (the file moved to the archive and a new one begun), the rest of the old file is read first
    (it stays open), then the new file from its first record."""

    def __init__(self, path: str | os.PathLike[str]):
        self.path = Path(path)
        self._file = None
        self._offset = 0

    def new(self) -> list[Record]:
        out = self._read() if self._file is not None else []
        try:
            replaced = self._file is None or os.stat(self.path).st_ino != os.fstat(self._file.fileno()).st_ino
        except FileNotFoundError:
            return out
        if replaced:
            self.close()
            try:
                self._file = open(self.path, "rb")  # noqa: SIM115 (kept open across calls)
            except FileNotFoundError:
                return out
            out += self._read()
        return out

    def _read(self) -> list[Record]:
        self._file.seek(self._offset)
        data = self._file.read()
        end = data.rfind(b"\n") + 1
        out = []
        for raw in data[:end].split(b"\n")[:-1]:
            obj = json.loads(raw)  # the journal wrote and synced it: a whole line is a whole record
            out.append(Record(obj["seq"], obj["time"], obj["kind"], obj["data"]))
        self._offset += end
        return out

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file, self._offset = None, 0


def game_id(first: Record) -> str:
    """A game's id: its game and the time its journal started it (a table never starts two in one ms)."""
    stamp = first.time[:23].replace("-", "").replace(":", "")
    return f"{first.data.get('game', 'game')}-{stamp}"


@dataclass
class Entry:
    """The messages of one journal record: ``[(kind, body, retained)]``, ``body`` without the envelope."""

    seq: int
    messages: list[tuple[str, dict[str, Any], bool]]


@dataclass
class Stream:
    """One game's messages, record by record, as the journal gave them."""

    game_id: str
    game: str
    entries: list[Entry] = field(default_factory=list)
    last_event: int = 0
    last_seq: int = 0
    _memo: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def start(cls, first: Record) -> Stream:
        stream = cls(game_id(first), str(first.data.get("game", "")))
        stream.add(first)
        return stream

    def add(self, record: Record) -> Entry | None:
        self.last_seq = record.seq
        if record.kind == "game":
            data = record.data
            event = {"kind": "game", "message": f"a new game of {data.get('game')}", "data": dict(data)}
        elif record.kind == "event":
            event = dict(record.data)
        else:
            return None
        ids = {"game_id": self.game_id, "seq": record.seq}
        body = {**ids, "prev": self.last_event, "time": record.time, "kind": str(event.get("kind", "")),
                "message": str(event.get("message", ""))}
        body.update({k: event[k] for k in ("legal", "data", "after") if k in event})
        out: list[tuple[str, dict[str, Any], bool]] = [("event", body, False)]
        for alert in alerts(event, self._memo):
            out.append(("alert", {**ids, "time": record.time, **alert}, False))
        end = result(self.game, event)
        if end is not None:
            out.append(("result", {**ids, "time": record.time, "game": self.game, **end}, True))
        self.last_event = record.seq
        entry = Entry(record.seq, out)
        self.entries.append(entry)
        return entry

    def index_after(self, seq: int) -> int:
        """The index of the first entry whose record comes after ``seq``."""
        return next((i for i, e in enumerate(self.entries) if e.seq > seq), len(self.entries))

    def last_event_upto(self, seq: int) -> int:
        return next((e.seq for e in reversed(self.entries) if e.seq <= seq), 0)
