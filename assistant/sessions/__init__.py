"""Recorded sessions: scripts of real games, rendered into camera frames for ``demo``, tests and benchmarks.

A session script (JSON, ``assistant/sessions/data/<game>.json``, format in docs/sessions.md) gives the
set-up, the camera pose and the light, the opening state of the table and then the steps of the game: each
step changes some zones (a hand comes in, the pieces change under it, the hand leaves) and may press
buttons once the table has settled. :func:`load_session` reads and checks a script;
:mod:`assistant.sessions.render` turns it into frames.

>>> session = load_session("chaudron")
>>> session.game, len(session.states()) == len(session.steps) + 1
('chaudron', True)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from assistant.live.boards import SEPARATOR, board_layouts
from calibration import files
from calibration.layout import LABEL_KINDS, Layout, load_layout
from hardware.buttons import Command

GAMES = ("alchimiste", "chaudron", "alchymia", "alchemists")
SIDES = ("top", "right", "bottom", "left")
LIGHTINGS = ("warm", "cool", "dim", "daylight")
CAMERA_KEYS = ("height_mm", "tilt_deg", "tilt_towards_deg", "yaw_deg", "fill", "k1", "k2")


class SessionError(ValueError):
    """A session script that cannot be used: ``FILE: key: what is wrong``."""


@dataclass(frozen=True)
class Step:
    """One move at the table: zones set (``zones``), trays recounted (``counts``), by a hand reaching for
    ``hand_to`` (a zone id; default: the middle of the changed zones) from ``hand_from`` (a side), then
    ``commands`` pressed once the table is still. ``expect`` lists the event kinds the step should give."""

    say: str
    zones: Mapping[str, str] = field(default_factory=dict)
    counts: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    hand: bool = True
    hand_to: str | None = None
    hand_from: str | None = None
    commands: tuple[str, ...] = ()
    expect: tuple[str, ...] | None = None
    steady: int | None = None


@dataclass(frozen=True)
class Session:
    game: str
    title: str
    layout: Layout                      # the table mode's layout (each board's, for several boards)
    boards: tuple[str, ...]             # board names when several boards are in view, else ()
    setup: Mapping[str, Any]
    start: Mapping[str, Any]            # {"zones": {...}, "counts": {...}}, ids prefixed for several boards
    steps: tuple[Step, ...]
    seed: int = 1
    lighting: str = "warm"
    camera: Mapping[str, float] = field(default_factory=dict)
    steady_frames: int = 4
    hand_frames: int = 3
    source: str = "<session>"
    raw: Mapping[str, Any] = field(default_factory=dict)
    mats: tuple[Layout, ...] = ()       # card mats in view beside the boards, each named after its layout

    def board_layouts(self) -> dict[str, Layout]:
        """Each board's layout (markers renumbered per board; ``{"": layout}`` for a single board), then each
        card mat's under its layout's name (its zones are written ``MAT/zone``)."""
        if not self.boards:
            out = {"": self.layout}
        else:
            out = board_layouts(self.layout, self.boards, min(m.id for m in self.layout.markers))
        return out | {mat.name: mat for mat in self.mats}

    def states(self) -> list[dict[str, Any]]:
        """The table's state before the first step and after each one (full: every zone of every board)."""
        state = _full_state(self, self.start)
        out = [state]
        for step in self.steps:
            state = {"zones": {**state["zones"], **step.zones},
                     "counts": {**state["counts"], **{z: dict(c) for z, c in step.counts.items()}}}
            out.append(state)
        return out


def session_path(name: str) -> Path:
    if name in GAMES:
        return Path(str(resources.files("assistant.sessions") / "data" / f"{name}.json"))
    return Path(name)


def load_session(name_or_path: str | Path) -> Session:
    """A shipped session by game name, or a session file."""
    path = session_path(str(name_or_path))
    data = files.load_json(path, SessionError)
    return parse_session(data, str(path))


def parse_session(data: Any, source: str = "<session>") -> Session:
    def fail(key: str, message: str) -> SessionError:
        return SessionError(f"{source}: {key}: {message}")

    if not isinstance(data, dict):
        raise fail("(top)", "expected an object")
    known = {"game", "title", "layout", "boards", "mats", "setup", "start", "steps", "seed", "lighting", "camera",
             "steady_frames", "hand_frames", "about"}
    for key in data:
        if key not in known:
            raise fail(key, f"unknown key (known: {', '.join(sorted(known))})")
    game = data.get("game")
    if game not in GAMES:
        raise fail("game", f"expected one of {', '.join(GAMES)}, got {game!r}")
    try:
        layout = load_layout(data.get("layout", game))
    except ValueError as e:
        raise fail("layout", str(e)) from None
    boards = data.get("boards", [])
    if not isinstance(boards, list) or not all(isinstance(b, str) and b and SEPARATOR not in b for b in boards) \
            or len(set(boards)) != len(boards):
        raise fail("boards", "expected a list of distinct board names")
    if boards and len(boards) * len(layout.markers) + min(m.id for m in layout.markers) > 50:
        raise fail("boards", "too many boards for the 50 ArUco marker ids")
    mats = _mats(data.get("mats", []), layout, boards, fail)
    setup = data.get("setup", {})
    if not isinstance(setup, dict):
        raise fail("setup", "expected an object (the game's set-up)")
    lighting = data.get("lighting", "warm")
    if lighting not in LIGHTINGS:
        raise fail("lighting", f"expected one of {', '.join(LIGHTINGS)}")
    camera = data.get("camera", {})
    if not isinstance(camera, dict) or any(k not in CAMERA_KEYS or not isinstance(v, int | float)
                                           for k, v in camera.items()):
        raise fail("camera", f"expected numbers for some of {', '.join(CAMERA_KEYS)}")
    numbers = {}
    for key, default, low in (("seed", 1, 0), ("steady_frames", 4, 3), ("hand_frames", 3, 1)):
        value = data.get(key, default)
        if not isinstance(value, int) or isinstance(value, bool) or value < low:
            raise fail(key, f"expected a whole number >= {low}")
        numbers[key] = value
    session = Session(game, str(data.get("title", game)), layout, tuple(boards), setup, {}, (),
                      lighting=lighting, camera=camera, source=source, raw=data, mats=mats, **numbers)
    zone_ids = _zone_ids(session)
    start = data.get("start", {})
    _check_state(start, zone_ids, session, "start", fail)
    steps_raw = data.get("steps")
    if not isinstance(steps_raw, list) or not steps_raw:
        raise fail("steps", "expected a list of steps")
    steps = tuple(_step(raw, f"steps[{i}]", zone_ids, session, fail) for i, raw in enumerate(steps_raw))
    return Session(game, session.title, layout, tuple(boards), setup, start, steps, lighting=lighting,
                   camera=camera, source=source, raw=data, mats=mats, **numbers)


def _mats(raw: Any, layout: Layout, boards: list[str], fail) -> tuple[Layout, ...]:
    """The card mats in view (layout names or files): each a board named after its layout."""
    if not isinstance(raw, list) or not all(isinstance(m, str) and m for m in raw):
        raise fail("mats", "expected a list of card mat layouts (chaudron-potions, alchymia-crystals)")
    mats = []
    for i, name in enumerate(raw):
        try:
            mat = load_layout(name)
        except ValueError as e:
            raise fail(f"mats[{i}]", str(e)) from None
        if not mat.zones or any(z.kind != "card" for z in mat.zones):
            raise fail(f"mats[{i}]", f"{mat.name} is not a card mat (every zone a card place)")
        if mat.name in boards or SEPARATOR in mat.name or any(m.name == mat.name for m in mats):
            raise fail(f"mats[{i}]", f"{mat.name}: a board of that name is already in view")
        mats.append(mat)
    ids = [m.id for m in layout.markers] if not boards else []
    ids += [m.id for m in mats for m in m.markers]
    if len(set(ids)) != len(ids):
        raise fail("mats", "two boards in view share a marker id")
    return tuple(mats)


def _zone_ids(session: Session) -> dict[str, Any]:
    """Every zone id of the session's boards (prefixed) -> its zone."""
    out = {}
    for name, layout in session.board_layouts().items():
        for z in layout.zones:
            out[f"{name}{SEPARATOR}{z.id}" if name else z.id] = z
    return out


def _check_state(raw: Any, zone_ids: Mapping[str, Any], session: Session, where: str, fail) -> None:
    if not isinstance(raw, dict):
        raise fail(where, "expected an object with zones and counts")
    for key in raw:
        if key not in ("zones", "counts"):
            raise fail(f"{where}.{key}", "unknown key (known: zones, counts)")
    for zid, label in raw.get("zones", {}).items():
        zone = zone_ids.get(zid)
        if zone is None or zone.kind not in LABEL_KINDS:
            raise fail(f"{where}.zones.{zid}", "no such zone holding one piece (a slot or a card place)")
        if label not in zone.labels:
            raise fail(f"{where}.zones.{zid}", f"{label!r} is not one of {', '.join(zone.labels)}")
    for zid, counts in raw.get("counts", {}).items():
        zone = zone_ids.get(zid)
        if zone is None or zone.kind != "count":
            raise fail(f"{where}.counts.{zid}", "no such count zone")
        if not isinstance(counts, dict) or any(c not in zone.labels or not isinstance(n, int) or n < 0
                                               for c, n in counts.items()):
            raise fail(f"{where}.counts.{zid}", f"expected {{colour: number}} with colours among {zone.labels}")


def _step(raw: Any, where: str, zone_ids: Mapping[str, Any], session: Session, fail) -> Step:
    if not isinstance(raw, dict):
        raise fail(where, "expected an object")
    known = {"say", "zones", "counts", "hand", "hand_to", "hand_from", "commands", "expect", "steady"}
    for key in raw:
        if key not in known:
            raise fail(f"{where}.{key}", f"unknown key (known: {', '.join(sorted(known))})")
    _check_state({k: raw[k] for k in ("zones", "counts") if k in raw}, zone_ids, session, where, fail)
    commands = raw.get("commands", [])
    valid = [c.value for c in Command]
    if not isinstance(commands, list) or any(c not in valid for c in commands):
        raise fail(f"{where}.commands", f"expected a list of {', '.join(valid)}")
    hand_to = raw.get("hand_to")
    if hand_to is not None and hand_to not in zone_ids:
        raise fail(f"{where}.hand_to", "no such zone")
    hand_from = raw.get("hand_from")
    if hand_from is not None and hand_from not in SIDES:
        raise fail(f"{where}.hand_from", f"expected one of {', '.join(SIDES)}")
    expect = raw.get("expect")
    if expect is not None and (not isinstance(expect, list) or not all(isinstance(e, str) for e in expect)):
        raise fail(f"{where}.expect", "expected a list of event kinds")
    steady = raw.get("steady")
    if steady is not None and (not isinstance(steady, int) or steady < 3):
        raise fail(f"{where}.steady", "expected a whole number of frames >= 3")
    changes = bool(raw.get("zones") or raw.get("counts"))
    hand = raw.get("hand", changes)
    if not isinstance(hand, bool):
        raise fail(f"{where}.hand", "expected true or false")
    return Step(str(raw.get("say", "")), dict(raw.get("zones", {})),
                {z: dict(c) for z, c in raw.get("counts", {}).items()}, hand, hand_to, hand_from,
                tuple(commands), None if expect is None else tuple(expect), steady)


def _full_state(session: Session, start: Mapping[str, Any]) -> dict[str, Any]:
    zones: dict[str, str] = {}
    counts: dict[str, dict[str, int]] = {}
    for name, layout in session.board_layouts().items():
        for z in layout.zones:
            zid = f"{name}{SEPARATOR}{z.id}" if name else z.id
            if z.kind in LABEL_KINDS:
                zones[zid] = "empty"
            else:
                counts[zid] = dict.fromkeys(z.labels, 0)
    zones.update(start.get("zones", {}))
    for zid, c in start.get("counts", {}).items():
        counts[zid] = {**counts[zid], **c}
    return {"zones": zones, "counts": counts}
