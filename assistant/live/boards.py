"""The boards in view: one layout per physical board, each read by its own ``vision.read.Reader``.

Most games have one board. Alchymia has one per player, each a copy of the ``alchymia`` layout with its own
markers; the table mode expects their zones prefixed with the board's name (``ada/r0c0``:
docs/table-alchymia.md). :class:`Boards` reads every board of a frame and merges the readings into one
reading of the ``read --json`` shape, zone ids prefixed where a board has a name.

>>> from calibration.layout import load_layout
>>> boards = Boards.single(load_layout("chaudron"))
>>> boards.names, boards.layout.name
([''], 'chaudron')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from calibration.layout import Layout, Marker, load_layout
from calibration.store import Calibration, load_calibration
from vision.read import Reader, Reading

SEPARATOR = "/"


@dataclass
class Board:
    """One board in view: its name (``""`` when it is the only one), layout and reader."""

    name: str
    layout: Layout
    reader: Reader

    def prefix(self, zone_id: str) -> str:
        return f"{self.name}{SEPARATOR}{zone_id}" if self.name else zone_id


class Boards:
    """Every board in view, read frame by frame; ``last`` keeps each board's last ``Reading`` (annotation)."""

    def __init__(self, boards: Sequence[Board]):
        if not boards:
            raise ValueError("boards: at least one board is needed")
        names = [b.name for b in boards]
        if len(boards) > 1 and (not all(names) or len(set(names)) != len(names)):
            raise ValueError(f"boards: several boards need distinct names, got {names}")
        ids = [m.id for b in boards for m in b.layout.markers]
        if len(set(ids)) != len(ids):
            raise ValueError("boards: two boards share a marker id; give each board its own markers")
        self.boards = list(boards)
        self.last: list[Reading | None] = [None] * len(boards)

    @classmethod
    def single(cls, layout: Layout, calibration: Calibration | None = None) -> Boards:
        return cls([Board("", layout, Reader(layout, calibration))])

    @classmethod
    def from_specs(cls, specs: Sequence[str], calibration: str | None = None,
                   cards: str | Path | None = None) -> Boards:
        """From ``--layout`` values: ``LAYOUT`` for a single board, ``NAME=LAYOUT`` for each of several.
        A calibration file is used for the boards of the layout it was made for; ``cards`` is the folder of
        enrolled cards (``calibrate cards``) that card zones are read against."""
        cal = load_calibration(calibration) if calibration else None
        library = None
        if cards is not None:
            from vision.cards.store import CardLibrary
            library = CardLibrary(cards)
        boards = []
        for spec in specs:
            name, sep, layout_name = spec.partition("=")
            if not sep:
                name, layout_name = "", spec
            layout = load_layout(layout_name)
            boards.append(Board(name.strip(), layout,
                                Reader(layout, cal if cal is not None and cal.layout == layout.name else None,
                                       cards=library)))
        if cal is not None and all(b.layout.name != cal.layout for b in boards):
            raise ValueError(f"{calibration}: layout: made for layout {cal.layout!r}, not for the boards in view")
        if len(boards) > 1 and not all(b.name for b in boards):
            raise ValueError("--layout: with several boards, name each one: --layout NAME=LAYOUT")
        return cls(boards)

    @property
    def layout(self) -> Layout:
        """The layout the table mode is given (every board of a game shares its zones)."""
        return self.boards[0].layout

    @property
    def names(self) -> list[str]:
        return [b.name for b in self.boards]

    def read(self, frame: np.ndarray) -> dict[str, Any]:
        """Read every board and merge: ``board_found`` only when all are found, zone ids prefixed."""
        merged: dict[str, Any] = {"layout": ",".join(b.layout.name for b in self.boards), "board_found": True,
                                  "zones": {}, "counts": {}}
        for i, board in enumerate(self.boards):
            reading = board.reader.read(frame)
            self.last[i] = reading
            data = reading.to_dict()
            if not data["board_found"]:
                merged["board_found"] = False
                merged["missing"] = [*merged.get("missing", []), board.name or board.layout.name]
            for zid, entry in data["zones"].items():
                merged["zones"][board.prefix(zid)] = entry
            for zid, entry in data["counts"].items():
                merged["counts"][board.prefix(zid)] = entry
        return merged

    def to_json(self) -> list[dict[str, Any]]:
        """What the journal's ``game`` record keeps about the boards (names, layouts, markers)."""
        return [{"name": b.name, "layout": b.layout.name, "markers": [m.id for m in b.layout.markers]}
                for b in self.boards]


def with_markers(layout: Layout, first_id: int) -> Layout:
    """A copy of ``layout`` whose markers are renumbered from ``first_id`` (one more physical board)."""
    markers = tuple(Marker(first_id + k, m.center, m.size) for k, m in enumerate(layout.markers))
    return replace(layout, markers=markers)


def board_layouts(layout: Layout, names: Sequence[str], first_id: int = 20) -> dict[str, Layout]:
    """One copy of ``layout`` per board name, markers numbered in blocks of the layout's marker count."""
    step = len(layout.markers)
    return {name: with_markers(layout, first_id + k * step) for k, name in enumerate(names)}


def load_setup(path: str | Path | None) -> Mapping[str, Any]:
    """A game set-up file (JSON, or TOML by its suffix); ``{}`` without one. Errors: ``FILE: what``."""
    if path is None:
        return {}
    import json
    import tomllib

    path = Path(path)
    text = path.read_text(encoding="utf-8")
    try:
        data = tomllib.loads(text) if path.suffix == ".toml" else json.loads(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{path}: not valid {'TOML' if path.suffix == '.toml' else 'JSON'}: {e}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected an object (the game's set-up)")
    return data
