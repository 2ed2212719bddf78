"""The Alchemists state file: the games this machine created, with their codes and secret assignments.

It is the only place the code and the assignment are ever written. It is readable by its owner alone
(mode 0600): every write goes to a new file created with that mode from the start (``mkstemp``), then
renamed over the old one, so there is no moment when a reader could find it open to others, nor a
half-written file after a power cut. A state file found readable by others is refused, not used.

Location: ``$ALCHEMY_TABLE_STATE_DIR/alchemists.json`` when that variable is set, otherwise
``$XDG_STATE_HOME/alchemy-table/alchemists.json``, otherwise ``~/.local/state/alchemy-table/alchemists.json``.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import json
import os
import stat
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

ENV = "ALCHEMY_TABLE_STATE_DIR"
FILENAME = "alchemists.json"


class StateError(ValueError):
    """The state file is unusable; the message is one line naming the file."""


def state_dir(environ: Mapping[str, str] = os.environ) -> Path:
    if environ.get(ENV):
        return Path(environ[ENV])
    if environ.get("XDG_STATE_HOME"):
        return Path(environ["XDG_STATE_HOME"]) / "alchemy-table"
    return Path.home() / ".local" / "state" / "alchemy-table"


def state_path(environ: Mapping[str, str] = os.environ) -> Path:
    return state_dir(environ) / FILENAME


def load(path: Path | None = None) -> dict[str, Any]:
    """The state: ``{"games": {CODE: {"mode", "assignment", "created"}}}`` (empty when there is no file)."""
    path = path or state_path()
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return {"games": {}}
    except OSError as e:
        raise StateError(f"{path}: cannot read: {e.strerror}") from None
    with os.fdopen(fd, encoding="utf-8") as f:
        mode = stat.S_IMODE(os.fstat(f.fileno()).st_mode)
        if mode & 0o077:
            raise StateError(f"{path}: readable by other users (mode {mode:04o}); it holds the secret "
                             f"answers: run chmod 600 on it")
        try:
            data = json.load(f)
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise StateError(f"{path}: not valid JSON: {e}") from None
    if not isinstance(data, dict) or not isinstance(data.get("games"), dict):
        raise StateError(f"{path}: games: expected an object of games by code")
    return data


def save(data: dict[str, Any], path: Path | None = None) -> Path:
    """Replace the state file atomically; the new file is created with mode 0600."""
    path = path or state_path()
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{FILENAME}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o600)  # mkstemp already creates 0600; said again so that it never depends on it
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=2, sort_keys=True)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)
    return path


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Serialise read-modify-write cycles of two commands run at once."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd = os.open(path.parent / f".{FILENAME}.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def record_game(code: str, mode: str, assignment: Mapping[str, str], path: Path | None = None) -> Path:
    """Add (or replace) one game in the state file."""
    path = path or state_path()
    with _locked(path):
        data = load(path)
        data["games"][code] = {"mode": mode, "assignment": dict(assignment),
                               "created": dt.datetime.now(dt.UTC).isoformat(timespec="seconds")}
        return save(data, path)


def game_mode(code: str, path: Path | None = None) -> str | None:
    """The mode recorded for ``code`` by ``new``, or None when this machine has no record of it."""
    game = load(path)["games"].get(code)
    return game.get("mode") if isinstance(game, dict) else None
