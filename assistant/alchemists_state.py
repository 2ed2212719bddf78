"""The Alchemists state file: the games this machine created, with their codes and secret assignments, and
the table's secret key.

The state file is the only place the code and the assignment are ever written. It is readable by its owner alone
(mode 0600): every write goes to a new file created with that mode from the start (``mkstemp``), then
renamed over the old one, so there is no moment when a reader could find it open to others, nor a
half-written file after a power cut. A state file found readable by others is refused, not used.

Each game has a name (``game-1``... or the one given to ``new --name``), and the newest is the current
game: commands find a game by name or take the current one, so its code is never typed on a command line
(where every local user sees it in ``ps``, and the shell keeps it in its history).

The table's key, ``alchemists.key`` beside the state file, is 32 random bytes created on first use (mode
0600 from the start, by ``O_EXCL``): it enters the derivation of every game's assignment from its code
(``assistant.engines.alchemists.codes``), so a code read off this table reveals nothing on another
machine. ``export``/``import`` move a game between machines on purpose (the assignment travels with it).

Location: ``$ALCHEMY_TABLE_STATE_DIR/alchemists.json`` when that variable is set, otherwise
``$XDG_STATE_HOME/alchemy-table/alchemists.json``, otherwise ``~/.local/state/alchemy-table/alchemists.json``.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import json
import os
import secrets
import stat
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assistant.engines import alchemists as al
from calibration import files

ENV = "ALCHEMY_TABLE_STATE_DIR"
FILENAME = "alchemists.json"
KEY_FILENAME = "alchemists.key"
KEY_BYTES = 32
EXPORT_KIND = "alchemy-table alchemists game"


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
    if not path.exists():
        return {"games": {}}
    _owner_only(path)
    data = files.parse_json(files.read_text(path, error=StateError), str(path), StateError)
    if not isinstance(data, dict) or not isinstance(data.get("games"), dict):
        raise StateError(f"{path}: games: expected an object of games by code")
    return data


def _owner_only(path: Path) -> None:
    try:
        mode = stat.S_IMODE(os.stat(path).st_mode)
    except OSError as e:
        raise StateError(f"{path}: cannot read: {e.strerror}") from None
    if mode & 0o077:
        raise StateError(f"{path}: readable by other users (mode {mode:04o}); it holds the secret "
                         f"answers: run chmod 600 on it")


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


def table_key(path: Path | None = None) -> bytes:
    """The table's secret key (beside the state file ``path``), created on first use, owner-only."""
    key_path = (path or state_path()).parent / KEY_FILENAME
    key_path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    try:
        fd = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        _owner_only(key_path)
        key = files.read_bytes(key_path, 4096, StateError)
        if len(key) < 16:
            raise StateError(f"{key_path}: the table's key is {len(key)} bytes, not {KEY_BYTES}") from None
        return key
    key = secrets.token_bytes(KEY_BYTES)
    try:
        os.fchmod(fd, 0o600)  # whatever the umask
        os.write(fd, key)
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        os.unlink(key_path)
        raise
    os.close(fd)
    _fsync_folder(key_path.parent)
    return key


def _fsync_folder(folder: Path) -> None:
    directory = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


@dataclass(frozen=True, repr=False)
class Game:
    """A game of this table, as the state file has it. Its ``repr`` shows neither code nor answers."""

    code: str
    name: str
    mode: str
    assignment: al.Assignment
    id: str           # for the journal (al.game_id): names the game, tells nothing

    def __repr__(self) -> str:
        return f"Game({self.name!r}, <secret>, mode={self.mode!r})"


def record_game(code: str, mode: str, assignment: Mapping[str, str] | None = None, path: Path | None = None,
                name: str | None = None) -> Path:
    """Add (or replace) one game in the state file and make it the current game. Without ``assignment``,
    the code's assignment at this table (keyed)."""
    path = path or state_path()
    with _locked(path):
        data = load(path)
        games = data["games"]
        if assignment is None and isinstance(games.get(code), dict) and "assignment" in games[code]:
            assignment = games[code]["assignment"]  # a game already here keeps its answers (imported ones too)
        elif assignment is None:
            assignment = al.assignment_from_code(code, table_key(path)).as_dict()
        if name is None:
            name = games.get(code, {}).get("name") or _free_name(games)
        _check_name(name)
        if any(g.get("name") == name for c, g in games.items() if c != code and isinstance(g, dict)):
            raise StateError(f"{path}: a game named {name!r} is already recorded (choose another --name)")
        games[code] = {"mode": mode, "assignment": dict(assignment), "name": name,
                       "created": dt.datetime.now(dt.UTC).isoformat(timespec="seconds")}
        data["current"] = name
        return save(data, path)


def _free_name(games: Mapping[str, Any]) -> str:
    taken = {g.get("name") for g in games.values() if isinstance(g, dict)}
    return next(f"game-{n}" for n in range(1, len(taken) + 2) if f"game-{n}" not in taken)


def _check_name(name: str) -> None:
    if not isinstance(name, str) or not name.strip() or len(name) > 64 or len(name.split()) != 1:
        raise StateError(f"game name: expected one word of at most 64 characters, got {name!r}")


def find_game(code: str | None = None, name: str | None = None, game_id: str | None = None,
              path: Path | None = None) -> Game:
    """A game of this table: by code (a code this machine never recorded gets its keyed assignment), by
    name, by journal id, or else the current game. Messages never repeat the code."""
    path = path or state_path()
    data = load(path)
    games = {c: g for c, g in data["games"].items() if isinstance(g, dict)}
    key = table_key(path)
    if code is not None:
        code = al.code_for_index(al.index_of_code(code))
        if code not in games:
            assignment = al.assignment_from_code(code, key)
            return Game(code, "(not recorded)", "", assignment, al.game_id(code, key))
        return _game(code, games[code], key, path)
    if game_id is not None:
        found = [c for c in games if _valid(c) and al.game_id(c, key) == game_id]
        if not found:
            raise StateError(f"{path}: no game of this table has the id {game_id!r} (the state file or the "
                             f"table's key {KEY_FILENAME} was replaced, or the game was deleted)")
        return _game(found[0], games[found[0]], key, path)
    wanted = name if name is not None else data.get("current")
    if wanted is None:
        if len(games) == 1:
            code = next(iter(games))
            return _game(code, games[code], key, path)
        raise StateError(f"{path}: no current game: start one with 'alchemy-table alchemists new', or give "
                         f"--game NAME" + (f" ({', '.join(_names(games))})" if games else ""))
    found = [c for c, g in games.items() if g.get("name") == wanted]
    if not found:
        raise StateError(f"{path}: no game named {wanted!r}" + (f" (games: {', '.join(_names(games))})"
                                                               if games else ""))
    return _game(found[0], games[found[0]], key, path)


def _names(games: Mapping[str, Any]) -> list[str]:
    return sorted(str(g.get("name")) for g in games.values() if g.get("name"))


def _valid(code: str) -> bool:
    try:
        al.index_of_code(code)
    except al.AlchemistsError:
        return False
    return True


def _game(code: str, entry: Mapping[str, Any], key: bytes, path: Path) -> Game:
    name = str(entry.get("name") or "(unnamed)")
    where = f"{path}: games.{name}"
    if not _valid(code):
        raise StateError(f"{where}: not a game code")
    mode = entry.get("mode", al.APPRENTICE)
    if mode not in al.MODES:
        raise StateError(f"{where}: mode: expected {' or '.join(al.MODES)}")
    raw = entry.get("assignment")
    if not isinstance(raw, dict) or not all(isinstance(v, str) for v in raw.values()):
        raise StateError(f"{where}: assignment: expected an alchemical for each ingredient")
    try:
        assignment = al.Assignment.from_mapping(raw)
    except al.AlchemistsError:  # its message could name an alchemical: not repeated
        raise StateError(f"{where}: assignment: not an assignment of the eight alchemicals") from None
    return Game(code, name, mode, assignment, al.game_id(code, key))


def game_mode(code: str, path: Path | None = None) -> str | None:
    """The mode recorded for ``code`` by ``new``, or None when this machine has no record of it."""
    game = load(path)["games"].get(code)
    return game.get("mode") if isinstance(game, dict) else None


def export_game(game: Game) -> dict[str, Any]:
    """A game as a file for ``import`` on another machine: its code, mode and answers (secret)."""
    return {"kind": EXPORT_KIND, "name": game.name, "code": game.code, "mode": game.mode,
            "assignment": game.assignment.as_dict()}


def import_game(data: Any, source: str, path: Path | None = None, name: str | None = None) -> Game:
    """Record an exported game (``export_game``) on this machine, with its answers as they were."""
    if not isinstance(data, dict) or data.get("kind") != EXPORT_KIND:
        raise StateError(f"{source}: kind: not an exported game (expected \"kind\": \"{EXPORT_KIND}\")")
    code = data.get("code")
    if not isinstance(code, str) or not _valid(code):
        raise StateError(f"{source}: code: not a game code")
    code = al.code_for_index(al.index_of_code(code))
    mode = data.get("mode")
    if mode not in al.MODES:
        raise StateError(f"{source}: mode: expected {' or '.join(al.MODES)}")
    raw = data.get("assignment")
    if not isinstance(raw, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in raw.items()):
        raise StateError(f"{source}: assignment: expected an alchemical for each ingredient")
    try:
        assignment = al.Assignment.from_mapping(raw)
    except al.AlchemistsError:
        raise StateError(f"{source}: assignment: not an assignment of the eight alchemicals") from None
    name = name if name is not None else data.get("name")
    path = path or state_path()
    if name is not None:
        _check_name(name)
        games = load(path)["games"]
        if any(isinstance(g, dict) and g.get("name") == name for c, g in games.items() if c != code):
            name = None  # taken here: the next free one
    record_game(code, mode, assignment.as_dict(), path, name)
    return find_game(code=code, path=path)
