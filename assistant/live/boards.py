"""The boards in view: one layout per physical board, each read by its own ``vision.read.Reader``.

Most games have one board. Alchymia has one per player, each a copy of the ``alchymia`` layout with its own
markers; the table mode expects their zones prefixed with the board's name (``ada/r0c0``:
docs/table-alchymia.md). :class:`Boards` reads every board of a frame and merges the readings into one
reading of the ``read --json`` shape, zone ids prefixed where a board has a name.

A card mat (``chaudron-potions``, ``alchymia-crystals``) is one more board in view, always named (by default
after its layout) so its zones are prefixed (``chaudron-potions/potion-1``). It goes through the stabiliser
like the rest, but :meth:`Boards.split` takes it out of a committed state: the table mode gets the boards'
zones in ``on_commit`` and each mat's card zones in ``on_cards``. With one game board beside mats, that
board may stay unnamed (its zones unprefixed, as the mode expects).

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

from assistant.live.timing import StageTimes, stage
from assistant.stabilise import State
from calibration.layout import Layout, Marker, load_layout
from calibration.store import Calibration, load_calibration
from vision.read import Reader
from vision.reading import Reading

SEPARATOR = "/"


@dataclass
class Board:
    """One board in view: its name (``""`` when it is the only one), layout and reader."""

    name: str
    layout: Layout
    reader: Reader
    mat: bool = False        # a card mat: its readings go to the mode's ``on_cards``

    def prefix(self, zone_id: str) -> str:
        return f"{self.name}{SEPARATOR}{zone_id}" if self.name else zone_id


class Boards:
    """Every board in view, read frame by frame; ``last`` keeps each board's last ``Reading`` (annotation)."""

    def __init__(self, boards: Sequence[Board]):
        if not boards:
            raise ValueError("boards: at least one board is needed")
        names = [b.name for b in boards]
        game_boards = [b for b in boards if not b.mat]
        if not game_boards:
            raise ValueError("boards: a card mat alone is not a game; give the game's board too")
        if any(b.mat and not b.name for b in boards) or len(set(names)) != len(names) or \
                (len(game_boards) > 1 and not all(b.name for b in game_boards)):
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
    def from_specs(cls, specs: Sequence[str], calibration: str | Sequence[str] | None = None,
                   cards: str | Path | None = None, mat_sets: Sequence[str] = ()) -> Boards:
        """From ``--layout`` values: ``LAYOUT`` for a single board, ``NAME=LAYOUT`` for each of several.
        A calibration file is used for the boards of the layout it was made for (one file per layout: the game
        board's, and a card mat's enrolled empty with ``calibrate board``); ``cards`` is the folder of
        enrolled cards (``calibrate cards``) that card zones are read against. A layout whose zones are all
        card places of ``mat_sets`` (the mode's ``card_mats``) is a card mat, named after its layout unless
        ``NAME=`` says otherwise."""
        paths = [calibration] if isinstance(calibration, str | Path) else list(calibration or ())
        loaded = [(path, load_calibration(path)) for path in paths]
        cals: dict[str, Calibration] = {}
        for path, cal in loaded:
            if cal.layout in cals:
                raise ValueError(f"{path}: layout: a second calibration for layout {cal.layout!r}")
            cals[cal.layout] = cal
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
            mat = is_mat(layout, mat_sets)
            boards.append(Board(name.strip() or (layout.name if mat else ""), layout,
                                Reader(layout, cals.get(layout.name), cards=library), mat))
        for path, cal in loaded:
            if all(b.layout.name != cal.layout for b in boards):
                raise ValueError(f"{path}: layout: made for layout {cal.layout!r}, not for the boards in view")
        game_boards = [b for b in boards if not b.mat]
        if not game_boards:
            raise ValueError("--layout: only card mats given; give the game's board too (--layout LAYOUT)")
        if len(game_boards) > 1 and not all(b.name for b in game_boards):
            raise ValueError("--layout: with several boards, name each one: --layout NAME=LAYOUT")
        return cls(boards)

    def unenrolled(self) -> list[str]:
        """A line for each board of pieces read without its empty board enrolled (``Reader.unenrolled``)."""
        return [note for b in self.boards if (note := b.reader.unenrolled())]

    @property
    def layout(self) -> Layout:
        """The layout the table mode is given (every board of a game shares its zones; mats aside)."""
        return next(b for b in self.boards if not b.mat).layout

    @property
    def names(self) -> list[str]:
        return [b.name for b in self.boards]

    @property
    def mats(self) -> list[Board]:
        return [b for b in self.boards if b.mat]

    def split(self, state: State | None) -> tuple[State | None, dict[str, dict[str, str]]]:
        """A committed state as the table mode takes it: (the game boards' part, for ``on_commit``;
        ``{mat name: {card zone: label}}``, for ``on_cards``). Without mats, the state as it is."""
        if state is None or not self.mats:
            return state, {}
        heads = {b.name + SEPARATOR: b.name for b in self.mats}
        zones: dict[str, str] = {}
        mats: dict[str, dict[str, str]] = {b.name: {} for b in self.mats}
        for zid, label in state.zones:
            head, sep, _ = zid.partition(SEPARATOR)
            if sep and head + SEPARATOR in heads:
                mats[head][zid[len(head) + 1:]] = label
            else:
                zones[zid] = label
        counts = tuple((z, v) for z, v in state.counts if z.partition(SEPARATOR)[0] + SEPARATOR not in heads)
        return State(tuple(sorted(zones.items())), counts), mats

    def read(self, frame: np.ndarray, times: StageTimes | None = None) -> dict[str, Any]:
        """Read every board and merge: ``board_found`` only when all are found, zone ids prefixed. ``times``
        gets the time spent finding the boards (``locate``) apart from reading them (``read``)."""
        merged: dict[str, Any] = {"layout": ",".join(b.layout.name for b in self.boards), "board_found": True,
                                  "zones": {}, "counts": {}}
        for i, board in enumerate(self.boards):
            reader = board.reader
            with stage(times, "locate"):  # as Reader.read does, in two steps so that each can be timed
                location = reader.locator.locate(frame)
            with stage(times, "read"):
                reading = (reader.read_at(frame, location) if location.found
                           else Reading(reader.layout.name, False, None, {}, {}, location.source))
            self.last[i] = reading
            data = reading.to_dict()
            if not data["board_found"]:
                merged["board_found"] = False
                merged["missing"] = [*merged.get("missing", []), board.name or board.layout.name]
                seen = len(set(location.markers) & {m.id for m in board.layout.markers})
                merged.setdefault("markers_seen", {})[board.name or board.layout.name] = \
                    f"{seen} of {len(board.layout.markers)}"
            for zid, entry in data["zones"].items():
                merged["zones"][board.prefix(zid)] = entry
            for zid, entry in data["counts"].items():
                merged["counts"][board.prefix(zid)] = entry
        return merged

    def to_json(self) -> list[dict[str, Any]]:
        """What the journal's ``game`` record keeps about the boards (names, layouts, markers; ``mat``)."""
        return [{"name": b.name, "layout": b.layout.name, "markers": [m.id for m in b.layout.markers]}
                | ({"mat": True} if b.mat else {}) for b in self.boards]


def is_mat(layout: Layout, mat_sets: Sequence[str]) -> bool:
    """A card mat of a mode reading ``mat_sets``: every zone a card place of one of those sets."""
    return bool(mat_sets) and bool(layout.zones) and all(z.kind == "card" and z.card_set in mat_sets
                                                         for z in layout.zones)


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
    from calibration import files

    path = Path(path)
    data = files.load_data(path)
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected an object (the game's set-up)")
    return data
