"""The journal: an append-only JSONL file of committed states and game events that survives power cuts.

Every record is one line, a JSON object ``{"seq", "time", "kind", "data"}`` (format in ``docs/journal.md``).
``Journal.append`` writes the whole line in one system call, flushes it and fsyncs the file before it
returns, so once it has returned the record is on disk: the LEDs and the display answer only after that.
When the journal (or a folder above it) is created, the folder is fsynced too, so the new file's name is on
disk as well as its content.

One lock for everything that writes or moves a journal: ``.NAME.lock`` beside the journal ``NAME``, held
(``flock``) by an open ``Journal`` for as long as it is open, and by :func:`start` while it moves the
previous journal aside and creates the new one. The lock is a file of its own, never renamed, because a
lock on the journal itself would travel with it into the archive, and a second process would then write
a new journal beside the one the first is still appending to.

A power cut or a kill in the middle of an append can leave at most one incomplete last line. Reading back
ignores it with a one-line warning (``FILE:LINE: ...``) and keeps every record before it; ``resume`` also cuts
it off so that the next append starts on a clean line. A bad line anywhere else is not a crash but damage,
and it is an error naming the file and the line.

Secrets never go in clear: the journal writes exactly the ``data`` its caller passes, so the caller must not
pass secrets (the Alchemists game code, the ingredient assignment before the final reveal, hidden screens).
Write what the players can see; to prove a secret later, write a salted digest of it, not the secret.

>>> import tempfile, pathlib
>>> path = pathlib.Path(tempfile.mkdtemp()) / "game.jsonl"
>>> with Journal(path) as j:
...     _ = j.append("event", {"what": "creation", "cauldron": 3})
>>> [(r.seq, r.kind, r.data["cauldron"]) for r in read(path)]
[(1, 'event', 3)]
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import os
import stat
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, NamedTuple

try:
    import fcntl
except ImportError:  # not on Windows; there one process at a time is the user's business
    fcntl = None

log = logging.getLogger(__name__)

ARCHIVE = "games"  # finished and abandoned journals, beside the journal (start)


class JournalError(ValueError):
    """A journal that cannot be used: ``FILE:LINE: what is wrong``, or ``FILE: what is wrong``."""


@dataclass(frozen=True)
class Record:
    seq: int           # 1 for the first record, then +1 per record: a gap or a repeat is damage
    time: str          # wall-clock time of the append, ISO 8601 with the UTC offset
    kind: str          # "game", "state", "event"... (docs/journal.md)
    data: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"seq": self.seq, "time": self.time, "kind": self.kind, "data": self.data}


class Journal:
    """An open journal, appending. Opening an existing one reads it (``records``) and repairs a torn tail.

    One process at a time: a second ``Journal`` on the same file (or :func:`start` on its path) raises
    JournalError while the first is open; ``lock`` is the lock already held by :func:`start`. After a
    failed write or fsync the journal refuses further appends, because what reached the disk is no longer
    known; reopen it (``resume``) to carry on from what is really there.
    """

    def __init__(self, path: str | os.PathLike[str], *, lock: int | None = None):
        self.path = Path(path)
        self._fd = self._lock = -1
        _make_folders(self.path.parent)
        self._lock = _lock(self.path) if lock is None else lock
        created = not self.path.exists()
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND | getattr(os, "O_CLOEXEC", 0), 0o644)
        except BaseException:
            self.close()
            raise
        self._broken: str | None = None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise JournalError(f"{self.path}: not a regular file")
            if created:
                _fsync_folder(self.path.parent)
            records, good_end, warning = _parse(self.path, _read_all(fd))
            if warning:
                log.warning("%s (cut off before appending)", warning)
                os.ftruncate(fd, good_end)
                _sync(fd)
        except BaseException:
            os.close(fd)
            self.close()
            raise
        self._fd = fd
        self.records: tuple[Record, ...] = tuple(records)
        self.next_seq = records[-1].seq + 1 if records else 1

    def append(self, kind: str, data: dict[str, Any]) -> Record:
        """Append one record and return once it is on disk. ``data`` must be JSON: nothing secret in it."""
        if self._fd < 0:
            raise JournalError(f"{self.path}: journal is closed")
        if self._broken:
            raise JournalError(f"{self.path}: an earlier append failed ({self._broken}); resume the journal")
        if not isinstance(kind, str) or not kind:
            raise JournalError(f"{self.path}: kind: expected a non-empty string, got {kind!r}")
        if not isinstance(data, dict):
            raise JournalError(f"{self.path}: data: expected a dict, got {type(data).__name__}")
        record = Record(self.next_seq, datetime.now().astimezone().isoformat(timespec="milliseconds"), kind, data)
        try:  # serialise first: a value JSON cannot hold fails here, before a byte is written
            line = (json.dumps(record.to_dict(), ensure_ascii=False, allow_nan=False, separators=(",", ":"))
                    + "\n").encode("utf-8")
        except (TypeError, ValueError) as e:  # UnicodeEncodeError (a lone surrogate) is a ValueError too
            raise JournalError(f"{self.path}: record {kind!r} is not JSON: {e}") from None
        try:
            view = memoryview(line)
            while view:  # a regular file takes it in one go, but a short write must not tear a record
                view = view[os.write(self._fd, view):]
            _sync(self._fd)
        except OSError as e:
            self._broken = e.strerror or str(e)
            raise
        self.next_seq += 1
        return record

    def close(self) -> None:
        if getattr(self, "_fd", -1) >= 0:
            os.close(self._fd)
            self._fd = -1
        if getattr(self, "_lock", -1) >= 0:
            os.close(self._lock)  # closing the lock's descriptor releases it
            self._lock = -1

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):
        self.close()


class Resumed(NamedTuple):
    records: tuple[Record, ...]
    journal: Journal


def resume(path: str | os.PathLike[str]) -> Resumed:
    """Reopen an existing journal after a restart or a power cut: its records, to rebuild the game from,
    and the journal, open for appending after them (a torn last line is cut off, with a warning)."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(errno.ENOENT, "no journal to resume", str(path))
    journal = Journal(path)
    return Resumed(journal.records, journal)


class Started(NamedTuple):
    journal: Journal
    moved: Path | None   # where the journal found at the path went (None: there was none, or it was empty)


def start(path: str | os.PathLike[str], archive: str | None = ARCHIVE) -> Started:
    """A new, empty journal at ``path``. Under the journal's lock, the one found there is moved first into
    the folder ``archive`` beside it, named by its start and game (removed instead when ``archive`` is
    None: a replay's output), and the move is made durable (both folders fsynced) before the new journal
    is created. Raises JournalError, and touches nothing, while another process has the journal open."""
    path = Path(path)
    _make_folders(path.parent)
    lock = _lock(path)
    try:
        moved = None
        if path.exists():
            moved = _move_aside(path, archive)
            _fsync_folder(path.parent)
    except BaseException:
        os.close(lock)
        raise
    return Started(Journal(path, lock=lock), moved)  # the journal owns the lock from here, even if it fails


def _move_aside(path: Path, archive: str | None) -> Path | None:
    if archive is None or path.stat().st_size == 0:
        path.unlink()
        return None
    game, started = "game", time.strftime("%Y%m%d-%H%M%S", time.localtime(path.stat().st_mtime))
    with contextlib.suppress(ValueError, OSError):  # a damaged journal is kept all the same, named by its date
        records = read(path)
        if records:
            started = records[0].time[:19].replace("-", "").replace(":", "").replace("T", "-")
            game = "".join(c for c in str(records[0].data.get("game", game)) if c.isalnum() or c in "-_") or game
    folder = path.parent / archive
    _make_folders(folder)
    target = folder / f"{started}-{game}.jsonl"
    n = 1
    while target.exists():
        n += 1
        target = folder / f"{started}-{game}-{n}.jsonl"
    with open(path, "rb") as f:  # its last appends were synced already; said again, as the rename's content
        os.fsync(f.fileno())
    os.rename(path, target)
    _fsync_folder(folder)
    return target


def read(path: str | os.PathLike[str]) -> list[Record]:
    """Every record of a journal, without changing the file. A torn last line is left out with a warning."""
    path = Path(path)
    with open(path, "rb") as f:
        records, _, warning = _parse(path, f.read())
    if warning:
        log.warning("%s", warning)
    return records


def _parse(path: Path, content: bytes) -> tuple[list[Record], int, str | None]:
    """(records, byte offset where the good records end, warning about a torn last line or None)."""
    records: list[Record] = []
    lines = content.split(b"\n")  # bytes, not str.splitlines: JSON strings may hold U+2028 and friends
    offset = 0
    for number, raw in enumerate(lines, start=1):
        last = number == len(lines) or (number == len(lines) - 1 and lines[-1] == b"")
        if number == len(lines) and raw == b"":
            break  # the empty remainder after the final newline
        try:
            if number == len(lines):
                raise ValueError("no newline at the end")  # never acknowledged: append writes the newline too
            records.append(_record(raw, records[-1].seq + 1 if records else 1))
        except ValueError as e:
            where = f"{path}:{number}"
            if last:
                return records, offset, f"{where}: torn last line ignored ({len(raw)} bytes: {e})"
            raise JournalError(f"{where}: corrupt record ({e}); the journal is damaged before its end") from None
        offset += len(raw) + 1
    return records, offset, None


def _record(raw: bytes, seq: int) -> Record:
    try:
        obj = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ValueError("not UTF-8") from None
    if not isinstance(obj, dict) or set(obj) != {"seq", "time", "kind", "data"}:
        raise ValueError("expected an object with seq, time, kind and data")
    if obj["seq"] != seq or isinstance(obj["seq"], bool):
        raise ValueError(f"seq: expected {seq}, got {obj['seq']!r}")
    if not isinstance(obj["time"], str) or not isinstance(obj["kind"], str) or not isinstance(obj["data"], dict):
        raise ValueError("time and kind must be strings, data an object")
    return Record(obj["seq"], obj["time"], obj["kind"], obj["data"])


def _read_all(fd: int) -> bytes:
    chunks, position = [], 0
    while chunk := os.pread(fd, 1 << 20, position):
        chunks.append(chunk)
        position += len(chunk)
    return b"".join(chunks)


def _sync(fd: int) -> None:
    # fdatasync is enough: it also writes the file size, which an append changes.
    (getattr(os, "fdatasync", None) or os.fsync)(fd)


def lock_path(path: Path) -> Path:
    return path.with_name(f".{path.name}.lock")


def _lock(path: Path) -> int:
    """Take the journal's lock (a descriptor of its lock file, held until closed), or raise JournalError."""
    fd = os.open(lock_path(path), os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
    if fcntl is None:
        return fd
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise JournalError(f"{path}: in use by another process (another alchemy-table run?)") from None
    return fd


def _make_folders(folder: Path) -> None:
    """Create missing folders, fsyncing each parent so that the new names survive a power cut."""
    missing = []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    for new in reversed(missing):
        try:
            new.mkdir()
        except FileExistsError:
            continue
        _fsync_folder(new.parent)


def _fsync_folder(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:  # a platform that cannot open folders (Windows) has no folder fsync to do
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
