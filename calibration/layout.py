"""Board layouts: the contract between the table and the vision.

A layout describes one physical board in millimetres in the board's own frame (origin top-left, x right,
y down): the rectangle the ArUco markers frame, the markers, every zone the vision reads, the nominal
colour of every label, and which piece goes where in the colour-calibration frame.

Layouts are TOML files (the four defaults ship in ``calibration/layouts/``); the resolved form printed by
``alchemy-table layout NAME --json`` is accepted too, so that a resolved layout loads back unchanged.

>>> from calibration.layout import load_layout
>>> chaudron = load_layout("chaudron")
>>> len(chaudron.zones), chaudron.zone("r0c0").labels[:3]
(36, ('empty', 'bone', 'root'))
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from calibration import files

ZONE_KINDS = ("slot", "count", "card")
LABEL_KINDS = ("slot", "card")  # zones read as one label (a reading's "zones"); "count" zones give counts
MARKER_IDS = range(50)  # ArUco DICT_4X4_50
_HEX = re.compile(r"^#[0-9a-fA-F]{6}$")
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")


class LayoutError(ValueError):
    """A layout file that cannot be used; the message reads ``FILE: key: what is wrong``."""


@dataclass(frozen=True)
class Marker:
    id: int
    center: tuple[float, float]
    size: float

    def corners(self) -> tuple[tuple[float, float], ...]:
        """Corners in mm, in ArUco order: top-left, top-right, bottom-right, bottom-left."""
        cx, cy = self.center
        h = self.size / 2
        return ((cx - h, cy - h), (cx + h, cy - h), (cx + h, cy + h), (cx - h, cy + h))


@dataclass(frozen=True)
class Zone:
    id: str
    kind: str
    center: tuple[float, float]
    size: tuple[float, float]
    labels: tuple[str, ...]
    card_set: str | None = None  # a card zone: the enrolled card set it is read against (``set`` in the file)

    @property
    def bounds(self) -> tuple[float, float, float, float]:
        """(left, top, right, bottom) in mm."""
        (cx, cy), (w, h) = self.center, self.size
        return (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)


@dataclass(frozen=True)
class Layout:
    name: str
    description: str
    size: tuple[float, float]
    markers: tuple[Marker, ...]
    zones: tuple[Zone, ...]
    palette: dict[str, str]
    background: str
    calibration: dict[str, Any]
    game: dict[str, Any] = field(default_factory=dict)

    def zone(self, zone_id: str) -> Zone:
        for z in self.zones:
            if z.id == zone_id:
                return z
        raise KeyError(zone_id)

    def zone_ids(self, kind: str | None = None) -> list[str]:
        return [z.id for z in self.zones if kind is None or z.kind == kind]

    def colour(self, label: str) -> tuple[int, int, int]:
        """Nominal RGB colour of a label (``empty`` is the board background)."""
        return hex_to_rgb(self.palette.get(label, self.background))

    def to_dict(self) -> dict[str, Any]:
        """The resolved layout as plain data (every zone expanded): what ``layout NAME --json`` prints."""
        return {
            "name": self.name,
            "description": self.description,
            "size": list(self.size),
            "background": self.background,
            "markers": [{"id": m.id, "center": list(m.center), "size": m.size} for m in self.markers],
            "zones": [
                {"id": z.id, "kind": z.kind, "center": list(z.center), "size": list(z.size),
                 "labels": list(z.labels), **({"set": z.card_set} if z.card_set else {})}
                for z in self.zones
            ],
            "palette": dict(self.palette),
            "calibration": dict(self.calibration),
            "game": self.game,
        }


def hex_to_rgb(value: str) -> tuple[int, int, int]:
    return (int(value[1:3], 16), int(value[3:5], 16), int(value[5:7], 16))


def default_layouts() -> list[str]:
    """Names of the layouts that ship with the package."""
    folder = resources.files("calibration") / "layouts"
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".toml"))


def layout_path(name_or_path: str | Path) -> Path:
    """A layout name (``chaudron``) or a path to a ``.toml``/``.json`` file -> the file's path."""
    text = str(name_or_path)
    if text in default_layouts():
        return Path(str(resources.files("calibration") / "layouts" / f"{text}.toml"))
    path = Path(text)
    if path.suffix in (".toml", ".json") or path.exists():
        if not path.is_file():
            raise LayoutError(f"{path}: no such layout file")
        return path
    raise LayoutError(f"{text}: no such layout (known: {', '.join(default_layouts())}; or give a file path)")


def load_layout(name_or_path: str | Path) -> Layout:
    """Load, expand and validate a layout given by name or path; raises LayoutError."""
    path = layout_path(name_or_path)
    raw = files.read_text(path, error=LayoutError)
    if path.suffix == ".json":
        data = files.parse_json(raw, str(path), LayoutError)
    else:
        data = files.parse_toml(raw, str(path), LayoutError)
    return parse_layout(data, source=str(path))


def parse_layout(data: dict[str, Any], source: str = "<layout>") -> Layout:
    """Build a Layout from plain data (TOML or resolved JSON form); raises LayoutError."""
    return _Parser(source).parse(data)


class _Parser:
    def __init__(self, source: str):
        self.source = source

    def fail(self, key: str, message: str) -> LayoutError:
        return LayoutError(f"{self.source}: {key}: {message}")

    def require(self, table: dict, key: str, where: str = "") -> Any:
        if key not in table:
            raise self.fail(where + key, "missing")
        return table[key]

    def number(self, value: Any, key: str, positive: bool = False) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            raise self.fail(key, f"expected a number, got {value!r}")
        if positive and value <= 0:
            raise self.fail(key, f"must be greater than 0, got {value!r}")
        return float(value)

    def pair(self, value: Any, key: str, positive: bool = False) -> tuple[float, float]:
        if not isinstance(value, list | tuple) or len(value) != 2:
            raise self.fail(key, f"expected [x, y] in mm, got {value!r}")
        return (self.number(value[0], key, positive), self.number(value[1], key, positive))

    def string(self, value: Any, key: str) -> str:
        if not isinstance(value, str) or not value:
            raise self.fail(key, f"expected a non-empty string, got {value!r}")
        return value

    def colour(self, value: Any, key: str) -> str:
        if not isinstance(value, str) or not _HEX.match(value):
            raise self.fail(key, f"expected a colour like \"#a1b2c3\", got {value!r}")
        return value.lower()

    def parse(self, data: dict[str, Any]) -> Layout:
        if not isinstance(data, dict):
            raise self.fail("(top)", "expected a table")
        known = {"name", "description", "size", "background", "markers", "zones", "grids", "palette",
                 "calibration", "game"}
        for key in data:
            if key not in known:
                raise self.fail(key, f"unknown key (known: {', '.join(sorted(known))})")
        name = self.string(self.require(data, "name"), "name")
        description = data.get("description", "")
        if not isinstance(description, str):
            raise self.fail("description", "expected a string")
        size = self.pair(self.require(data, "size"), "size", positive=True)
        background = self.colour(self.require(data, "background"), "background")
        palette_raw = self.require(data, "palette")
        if not isinstance(palette_raw, dict):
            raise self.fail("palette", "expected a table of label = \"#rrggbb\"")
        palette = {str(k): self.colour(v, f"palette.{k}") for k, v in palette_raw.items()}
        markers = self.markers(self.require(data, "markers"), size)
        zones = self.zones(data.get("zones", []), "zones") + self.grids(data.get("grids", []))
        if not zones:
            raise self.fail("zones", "a layout needs at least one zone (in zones or grids)")
        self.check_zones(zones, size, palette, markers)
        calibration = self.calibration(data.get("calibration", {}), {z.id: z for z in zones})
        game = data.get("game", {})
        if not isinstance(game, dict):
            raise self.fail("game", "expected a table")
        return Layout(name, description, size, markers, tuple(zones), palette, background, calibration, game)

    def markers(self, raw: Any, size: tuple[float, float]) -> tuple[Marker, ...]:
        if not isinstance(raw, list) or not raw:
            raise self.fail("markers", "expected a list of markers ([[markers]] id, center, size)")
        out, seen = [], set()
        for i, m in enumerate(raw):
            key = f"markers[{i}]"
            if not isinstance(m, dict):
                raise self.fail(key, "expected a table with id, center, size")
            mid = self.require(m, "id", key + ".")
            if isinstance(mid, bool) or not isinstance(mid, int) or mid not in MARKER_IDS:
                raise self.fail(key + ".id", f"expected an ArUco DICT_4X4_50 id 0..49, got {mid!r}")
            if mid in seen:
                raise self.fail(key + ".id", f"marker id {mid} is used twice")
            seen.add(mid)
            marker = Marker(mid, self.pair(self.require(m, "center", key + "."), key + ".center"),
                            self.number(self.require(m, "size", key + "."), key + ".size", positive=True))
            left, top = marker.corners()[0]
            right, bottom = marker.corners()[2]
            if left < 0 or top < 0 or right > size[0] or bottom > size[1]:
                raise self.fail(key, f"marker {mid} lies outside the board ({size[0]:g} x {size[1]:g} mm)")
            out.append(marker)
        return tuple(out)

    def zone(self, z: Any, key: str, zone_id: str | None = None, center=None) -> Zone:
        if not isinstance(z, dict):
            raise self.fail(key, "expected a table with id, kind, center, size, labels")
        zid = zone_id if zone_id is not None else self.string(self.require(z, "id", key + "."), key + ".id")
        if not _ID.match(zid):
            raise self.fail(key + ".id", f"{zid!r}: use letters, digits, '-', '_' and '.' only")
        kind = self.require(z, "kind", key + ".")
        if kind not in ZONE_KINDS:
            raise self.fail(key + ".kind", f"expected one of {', '.join(ZONE_KINDS)}, got {kind!r}")
        if center is None:
            center = self.pair(self.require(z, "center", key + "."), key + ".center")
        size = self.pair(self.require(z, "size", key + "."), key + ".size", positive=True)
        labels = self.require(z, "labels", key + ".")
        if not isinstance(labels, list) or not labels or not all(isinstance(x, str) and x for x in labels):
            raise self.fail(key + ".labels", "expected a non-empty list of label names")
        if len(set(labels)) != len(labels):
            raise self.fail(key + ".labels", "a label is listed twice")
        card_set = z.get("set")
        if kind == "card":
            # A card place: read against an enrolled card set (``calibrate cards``), labels are card names.
            card_set = self.string(self.require(z, "set", key + "."), key + ".set")
            if not _ID.match(card_set):
                raise self.fail(key + ".set", f"{card_set!r}: use letters, digits, '-', '_' and '.' only")
            if "empty" not in labels:
                raise self.fail(key + ".labels", "a card zone lists \"empty\" and the cards it may show")
        elif card_set is not None:
            raise self.fail(key + ".set", "only a card zone (kind = \"card\") reads a card set")
        return Zone(zid, kind, center, size, tuple(labels), card_set)

    def zones(self, raw: Any, key: str) -> list[Zone]:
        if not isinstance(raw, list):
            raise self.fail(key, "expected a list of zones ([[zones]])")
        return [self.zone(z, f"{key}[{i}]") for i, z in enumerate(raw)]

    def grids(self, raw: Any) -> list[Zone]:
        """Expand the grid shorthand: ``rows`` x ``cols`` zones from ``origin`` (the centre of the first
        zone) stepping by ``pitch`` = [dx, dy] mm; ``id`` is a template with {row}, {col} (from 0) and
        {n} (``start`` + row * cols + col). A negative pitch walks left or up (fame tracks)."""
        if not isinstance(raw, list):
            raise self.fail("grids", "expected a list of grids ([[grids]])")
        out = []
        for i, g in enumerate(raw):
            key = f"grids[{i}]"
            if not isinstance(g, dict):
                raise self.fail(key, "expected a table")
            template = self.string(self.require(g, "id", key + "."), key + ".id")
            rows = self.require(g, "rows", key + ".")
            cols = self.require(g, "cols", key + ".")
            start = g.get("start", 0)
            for k, v in (("rows", rows), ("cols", cols), ("start", start)):
                if isinstance(v, bool) or not isinstance(v, int) or v < (0 if k == "start" else 1):
                    raise self.fail(f"{key}.{k}", f"expected a whole number, got {v!r}")
            ox, oy = self.pair(self.require(g, "origin", key + "."), key + ".origin")
            dx, dy = self.pair(self.require(g, "pitch", key + "."), key + ".pitch")
            if "{" not in template:
                raise self.fail(key + ".id", "a grid id needs {row}, {col} or {n} so that its zones differ")
            for r in range(rows):
                for c in range(cols):
                    try:
                        zid = template.format(row=r, col=c, n=start + r * cols + c)
                    except (KeyError, IndexError, ValueError) as e:
                        raise self.fail(key + ".id", f"bad template {template!r}: {e}") from None
                    out.append(self.zone(g, key, zone_id=zid, center=(ox + c * dx, oy + r * dy)))
        return out

    def check_zones(self, zones: list[Zone], size, palette, markers) -> None:
        seen: set[str] = set()
        for z in zones:
            if z.id in seen:
                raise self.fail(f"zones.{z.id}", "zone id used twice")
            seen.add(z.id)
            left, top, right, bottom = z.bounds
            if left < 0 or top < 0 or right > size[0] or bottom > size[1]:
                raise self.fail(f"zones.{z.id}",
                                f"zone lies outside the board ({size[0]:g} x {size[1]:g} mm)")
            for label in z.labels:
                if z.kind != "card" and label != "empty" and label not in palette:
                    raise self.fail(f"zones.{z.id}.labels", f"unknown label {label!r} (not in palette)")
            if z.kind == "count" and "empty" in z.labels:
                raise self.fail(f"zones.{z.id}.labels", "a count zone lists the colours it counts, not empty")
        bounds = [z.bounds for z in zones]  # (once each: every pair is checked, 9 000 on the Alchimiste board)
        stickers = [(m, (*m.corners()[0], *m.corners()[2])) for m in markers]
        for a_i, a in enumerate(zones):
            for b_i in range(a_i + 1, len(zones)):
                if _overlap(bounds[a_i], bounds[b_i]):
                    raise self.fail(f"zones.{a.id}", f"overlaps zone {zones[b_i].id}")
            for m, sticker in stickers:
                if _overlap(bounds[a_i], sticker):
                    raise self.fail(f"zones.{a.id}", f"overlaps marker {m.id}")

    def calibration(self, raw: Any, zones: dict[str, Zone]) -> dict[str, Any]:
        """``zone = "label"`` for a slot; ``zone = {label = count}`` for a count zone."""
        if not isinstance(raw, dict):
            raise self.fail("calibration", "expected a table of zone = label")
        out: dict[str, Any] = {}
        for zid, value in raw.items():
            key = f"calibration.{zid}"
            if zid not in zones:
                raise self.fail(key, "no such zone")
            zone = zones[zid]
            if zone.kind == "card":
                raise self.fail(key, "a card zone takes no part in the colour calibration (cards are enrolled: "
                                     "calibrate cards)")
            if zone.kind == "slot":
                if value not in zone.labels:
                    raise self.fail(key, f"unknown label {value!r} for this zone")
                out[zid] = value
            else:
                if not isinstance(value, dict) or not value:
                    raise self.fail(key, "a count zone takes {label = count}")
                for label, n in value.items():
                    if label not in zone.labels:
                        raise self.fail(key, f"unknown label {label!r} for this zone")
                    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
                        raise self.fail(f"{key}.{label}", f"expected a count >= 0, got {n!r}")
                out[zid] = dict(value)
        return out


def _overlap(a, b) -> bool:
    eps = 1e-6
    return a[0] < b[2] - eps and b[0] < a[2] - eps and a[1] < b[3] - eps and b[1] < a[3] - eps
