"""The Alchemists set-up: which game (its secret assignment), the mode, the published theories.

The game code is a secret: whoever knows it knows the answers. The set-up may give it (``code``), but the
set-up the mode keeps, and that the live loop writes to the journal, never holds it: the game is named there
by the time it was recorded in the owner-only state file (``created``), which is enough to find it again
after a restart and says nothing about the answers. Without ``code`` or ``created`` the game is the newest
one in the state file (``alchemy-table alchemists new`` records it).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from assistant import alchemists_state
from assistant.engines import alchemists as al
from assistant.table import SetupError
from calibration import files

KEYS = ("code", "created", "mode", "theories", "state_file")


@dataclass(frozen=True, repr=False)
class Setup:
    assignment: al.Assignment
    mode: str
    theories: tuple[al.Theory, ...] | None
    public: dict[str, Any]   # the set-up without the code: safe to journal, enough to resume

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
    if "code" in raw and "created" in raw:
        raise SetupError(f"{source}: code: give the game by code or by created, not both")
    games = _games(path, source, needed="code" not in raw)
    public = {k: v for k, v in raw.items() if k != "code"}
    if "code" in raw:
        if not isinstance(raw["code"], str):
            raise SetupError(f"{source}: code: expected the game's four letters")
        try:
            index = al.index_of_code(raw["code"])  # messages never repeat the code
        except al.AlchemistsError as e:
            raise SetupError(f"{source}: code: {e}") from None
        code = al.code_for_index(index)
        entry = games.get(code, {})
        if entry.get("created"):
            public["created"] = entry["created"]
    else:
        code, entry = _recorded(games, raw.get("created"), path, source)
        public["created"] = entry.get("created")
    mode = raw.get("mode", entry.get("mode", al.APPRENTICE))
    if mode not in al.MODES:
        raise SetupError(f"{source}: mode: expected {' or '.join(al.MODES)}, got {mode!r}")
    theories = _theories(raw["theories"], source) if "theories" in raw else None
    return Setup(al.assignment_from_code(code), mode, theories, public)


def _games(path: Path, source: str, needed: bool) -> dict[str, dict]:
    try:
        data = alchemists_state.load(path)
    except alchemists_state.StateError as e:
        if needed:
            raise SetupError(f"{source}: state_file: {e}") from None
        return {}
    return {code: game for code, game in data["games"].items() if isinstance(game, dict)}


def _recorded(games: dict[str, dict], created: Any, path: Path, source: str) -> tuple[str, dict]:
    if created is not None:
        if not isinstance(created, str):
            raise SetupError(f"{source}: created: expected the time a game was recorded, as in the state file")
        found = [(code, game) for code, game in games.items() if game.get("created") == created]
        if not found:
            raise SetupError(f"{source}: created: no game recorded at {created} in {path}")
        return sorted(found)[0]
    if not games:
        raise SetupError(f"{source}: code: no game code given and no game in {path} "
                         f"(start one with: alchemy-table alchemists new)")
    return max(games.items(), key=lambda item: (str(item[1].get("created", "")), item[0]))


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
