"""The Alchemists set-up: which game (its secret assignment), the mode, the published theories.

The game code is a secret: whoever knows it (and the table's key) knows the answers. The set-up may give
the game by ``code``, by ``game`` (its name in the owner-only state file) or not at all (the current game
of the state file, ``alchemy-table alchemists new`` makes one). The set-up the mode keeps, and that the live
loop writes to the journal, never holds the code: the game is named there by ``game_id``, a keyed digest of
the code (``assistant.engines.alchemists.game_id``) that says nothing about it or its answers. Resuming
finds exactly that game again, or refuses: never another game (two games recorded in the same second once
made a time stamp name the wrong one). A journal of an older version names the game by ``created``: it is
used when exactly one game has that time, refused otherwise.

``"demo": true`` with a ``code`` declares a demonstration game (the shipped sessions, the tests): its
answers are the code's published, unkeyed derivation, the same on every machine, and the state file is not
used. Its ``game_id`` is a plain digest of the code, which anyone can invert by trying the 40,320 codes:
a demonstration game is not secret.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assistant import alchemists_state
from assistant.engines import alchemists as al
from assistant.table import SetupError
from calibration import files

KEYS = ("code", "game", "game_id", "created", "demo", "mode", "theories", "state_file")
WHICH = ("code", "game", "game_id", "created")  # the ways to name the game: one at most


@dataclass(frozen=True, repr=False)
class Setup:
    assignment: al.Assignment
    mode: str
    theories: tuple[al.Theory, ...] | None
    public: dict[str, Any]   # the set-up without the code: safe to journal, enough to resume
    game_id: str

    def __repr__(self) -> str:
        return f"Setup(<secret>, mode={self.mode!r})"


def parse_setup(raw: Mapping[str, Any], source: str) -> Setup:
    for key in raw:
        if key not in KEYS:
            raise SetupError(f"{source}: {key}: unknown key (expected one of {', '.join(KEYS)})")
    path = raw.get("state_file")
    if path is not None and not isinstance(path, str):
        raise SetupError(f"{source}: state_file: expected a path")
    path = Path(path) if path else alchemists_state.state_path()
    given = [k for k in WHICH if k in raw]
    if len(given) > 1:
        raise SetupError(f"{source}: {given[1]}: give the game one way only ({' or '.join(given)})")
    for key in given:
        if not isinstance(raw[key], str):
            raise SetupError(f"{source}: {key}: expected a string")
    if raw.get("demo", False) is not False:
        return _demo(raw, source)
    try:
        if "created" in raw:
            game = _by_time(raw["created"], path, source)
        else:
            game = alchemists_state.find_game(code=raw.get("code"), name=raw.get("game"),
                                              game_id=raw.get("game_id"), path=path)
    except al.AlchemistsError as e:  # messages never repeat the code
        raise SetupError(f"{source}: code: {e}") from None
    except alchemists_state.StateError as e:
        raise SetupError(f"{source}: {given[0] if given else 'game'}: {e}") from None
    public = {k: v for k, v in raw.items() if k not in WHICH} | {"game_id": game.id}
    mode = raw.get("mode", game.mode or al.APPRENTICE)
    if mode not in al.MODES:
        raise SetupError(f"{source}: mode: expected {' or '.join(al.MODES)}, got {mode!r}")
    theories = _theories(raw["theories"], source) if "theories" in raw else None
    return Setup(game.assignment, mode, theories, public, game.id)


def _demo(raw: Mapping[str, Any], source: str) -> Setup:
    if raw["demo"] is not True:
        raise SetupError(f"{source}: demo: expected true or false")
    if "game" in raw or "created" in raw:
        raise SetupError(f"{source}: demo: a demonstration game is given by its code")
    try:
        if "code" in raw:
            code = al.code_for_index(al.index_of_code(raw["code"]))
        else:  # resuming: the code whose digest the journal kept
            code = next((al.code_for_index(n) for n in range(al.GAMES)
                         if demo_id(al.code_for_index(n)) == raw.get("game_id")), None)
            if code is None:
                raise SetupError(f"{source}: game_id: no demonstration game has this id")
    except al.AlchemistsError as e:
        raise SetupError(f"{source}: code: {e}") from None
    mode = raw.get("mode", al.APPRENTICE)
    if mode not in al.MODES:
        raise SetupError(f"{source}: mode: expected {' or '.join(al.MODES)}, got {mode!r}")
    theories = _theories(raw["theories"], source) if "theories" in raw else None
    public = {k: v for k, v in raw.items() if k not in WHICH} | {"game_id": demo_id(code)}
    return Setup(al.assignment_from_code(code), mode, theories, public, demo_id(code))


def demo_id(code: str) -> str:
    return hashlib.sha256(f"alchemists-demo:{code}".encode()).hexdigest()[:20]


def _by_time(created: str, path: Path, source: str) -> alchemists_state.Game:
    games = alchemists_state.load(path)["games"]
    found = [code for code, game in games.items() if isinstance(game, dict) and game.get("created") == created]
    if len(found) != 1:
        raise SetupError(f"{source}: created: {'no game' if not found else f'{len(found)} games'} recorded at "
                         f"{created} in {path}; refusing to guess which game this journal played")
    return alchemists_state.find_game(code=found[0], path=path)


def _theories(raw: Any, source: str) -> tuple[al.Theory, ...]:
    """The theories published on the board: inline (as a theories file) or a path to one."""
    where = f"{source}: theories"
    if isinstance(raw, str):
        try:
            raw = files.load_json(raw, SetupError)
        except SetupError as e:
            raise SetupError(f"{where}: {e}") from None
    if isinstance(raw, list):
        raw = {"theories": raw}
    try:
        return al.parse_theories(raw, where)
    except al.AlchemistsError as e:
        raise SetupError(str(e)) from None
