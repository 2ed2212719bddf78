"""Game records: JSON files of a whole game, replayed through an engine by ``alchemy-table check``.

A record is a JSON object whose ``"game"`` key names the game (``alchimiste``, ``chaudron``, ``alchymia``);
the rest is that game's own format, documented in ``docs/records-<game>.md``. Each game has a module here,
``assistant.records.<game>``, with one function::

    def check(record: dict, source: str) -> Report

which validates the record (a malformed one raises ``RecordError`` naming ``source`` and the key), replays
every action through the engine, and stops at the first illegal action (nothing after it is applied).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from calibration import files

GAMES = ("alchimiste", "chaudron", "alchymia")


class RecordError(ValueError):
    """A record file that cannot be read; the message reads ``FILE: key: what is wrong``."""


@dataclass(frozen=True)
class Step:
    """One action of a record and the engine's verdict on it."""

    index: int                 # position in the record's action list, from 0
    action: str                # the action as a player would say it
    legal: bool
    reason: str | None = None  # why it is illegal, as a player would be told
    scores: dict[str, int] = field(default_factory=dict)  # running scores by player name, after the action
    detail: dict[str, Any] = field(default_factory=dict)  # game-specific facts for --json

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "action": self.action, "legal": self.legal, "reason": self.reason,
                "scores": self.scores, **({"detail": self.detail} if self.detail else {})}


@dataclass(frozen=True)
class Report:
    """The verdict on a whole record."""

    game: str
    steps: tuple[Step, ...]
    summary: list[str] = field(default_factory=list)     # closing lines for people (end, winners...)
    final: dict[str, Any] = field(default_factory=dict)  # the same for machines

    @property
    def first_illegal(self) -> Step | None:
        return next((s for s in self.steps if not s.legal), None)

    def to_dict(self) -> dict[str, Any]:
        bad = self.first_illegal
        return {"game": self.game, "legal": bad is None,
                "first_illegal": None if bad is None else {"index": bad.index, "reason": bad.reason},
                "steps": [s.to_dict() for s in self.steps], "final": self.final}


def read_json(path: str | Path) -> dict[str, Any]:
    """Read a JSON object from a file, or raise RecordError with a one-line reason."""
    path = Path(path)
    data = files.load_json(path, RecordError)  # guarded: regular file, size, nesting, finite numbers
    if not isinstance(data, dict):
        raise RecordError(f"{path}: expected a JSON object at the top")
    return data


def check_file(path: str | Path) -> Report:
    """Replay the record in ``path`` through its game's engine."""
    record = read_json(path)
    game = record.get("game")
    if game not in GAMES:
        raise RecordError(f"{path}: game: expected one of {', '.join(GAMES)}, got {game!r}")
    try:
        module = importlib.import_module(f"{__name__}.{game}")
    except ModuleNotFoundError as e:
        if e.name != f"{__name__}.{game}":
            raise
        raise RecordError(f"{path}: game: records of {game} are not supported yet") from None
    return module.check(record, str(path))
