"""The set-up wizard's steps, each over the live frame and each merged into the table's calibration file as
the ``calibrate`` commands do it; each answers what it learned and a re-read of the live frame with it.

- ``board``: the empty board (nothing on it) -> ``vision.board.enrol_board``, as ``calibrate board``.
- ``colours``: the calibration frame (pieces set out as the layout's ``[calibration]`` table says; the page
  draws that table on the live picture as a guide, :func:`guide`) -> ``vision.learn.learn_colours``.
- ``corners``: the board's four corners clicked on the live picture -> as ``calibrate corners``.
- ``card``: one card enrolled from the card place it lies in -> as ``calibrate cards``.
- ``use``: the running loop reads with the new calibration and cards from its next frame.

Every step raises ValueError with one line when it cannot be done; nothing is stored then.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from calibration.layout import default_layouts, load_layout
from calibration.store import load_calibration, merge_into


def jpeg(image: np.ndarray, quality: int = 80) -> bytes:
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise OSError("cannot encode the picture")
    return data.tobytes()


def data_url(image: np.ndarray, width: int = 960) -> str:
    h, w = image.shape[:2]
    if w > width:
        image = cv2.resize(image, (width, round(h * width / w)), interpolation=cv2.INTER_AREA)
    return "data:image/jpeg;base64," + base64.b64encode(jpeg(image)).decode()


def layouts(hub: Any) -> dict[str, Any]:
    """The layouts the wizard offers (the boards in view first) and where it stores what it learns."""
    in_view = [layout.name for layout in hub.layouts]
    names = list(dict.fromkeys([*in_view, *default_layouts()]))
    info = []
    for name in names:
        layout = load_layout(name)
        info.append({"name": name, "in_view": name in in_view, "colours": bool(layout.calibration),
                     "board": any(z.kind in ("slot", "count") for z in layout.zones),
                     "cards": sorted({z.id for z in layout.zones if z.kind == "card"}),
                     "card_names": sorted({label for z in layout.zones if z.kind == "card" for label in z.labels}
                                          - {"empty", "unknown"})})
    return {"game": hub.game, "games": list(hub.wheel), "layouts": info,
            "game_layouts": {game: game_layouts(game) for game in hub.wheel},
            "calibration": str(hub.calibration_path) if hub.calibration_path else None,
            "cards": str(hub.cards_path) if hub.cards_path else None}


def game_layouts(game: str) -> list[str]:
    """The shipped layouts of ``game``: its own and those named after it (``chaudron-potions``)."""
    return [name for name in default_layouts() if name == game or name.startswith(f"{game}-")]


def pick_layouts(hub: Any, game: Any, names: Any) -> dict[str, Any]:
    """The layouts ``game`` is played with from its next start (as ``table.layouts.<game>`` would give them);
    ValueError, nothing changed, for a layout of another game or an unknown name."""
    if hub.picked_layouts is None:
        raise ValueError(f"choosing layouts needs 'alchemy-table run' (a recording plays its own game, {hub.game})")
    if game not in hub.wheel:
        raise ValueError(f"game: expected one of {', '.join(hub.wheel)}")
    own = game_layouts(game)
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        raise ValueError(f"layouts: choose one or more of {', '.join(own)}")
    wrong = [n for n in names if n not in own]
    if wrong:
        raise ValueError(f"layouts: {wrong[0]!r} is not a layout of {game} (its layouts: {', '.join(own)})")
    hub.picked_layouts[game] = list(dict.fromkeys(names))
    return {"game": game, "layouts": hub.picked_layouts[game], "applies": "at the game's next start"}


def _layout(hub: Any, name: Any):
    if not isinstance(name, str) or not name:
        raise ValueError("layout: choose a layout")
    allowed = {layout.name for layout in hub.layouts} | set(default_layouts())
    if name not in allowed:
        raise ValueError(f"layout: {name!r} is none of {', '.join(sorted(allowed))}")
    return load_layout(name)


def _path(hub: Any) -> Path:
    if hub.calibration_path is None:
        raise ValueError("this table has no calibration file to write to (start it with --calibration CAL.json)")
    return hub.calibration_path


def _base(path: Path, layout_name: str):
    return load_calibration(path, layout_name) if path.exists() else None


def _reading_calibration(path: Path | None, layout_name: str):
    """The table's calibration for reading ``layout_name``: none when the file is for another board."""
    if path is None or not path.exists():
        return None
    calibration = load_calibration(path)
    return calibration if calibration.layout == layout_name else None


def _reread(seen: Any, layout, calibration, cards: Path | None = None) -> tuple[dict[str, Any], str]:
    from vision.annotate import annotate
    from vision.read import Reader

    library = None
    if cards is not None and cards.is_dir():
        from vision.cards.store import CardLibrary
        library = CardLibrary(cards)
    reading = Reader(layout, calibration, cards=library).read(seen.frame)
    return reading.to_dict(), data_url(annotate(seen.frame, layout, reading))


def guide(hub: Any, seen: Any, name: str) -> bytes:
    """The live frame with the layout's calibration table drawn on it: which piece goes in which place."""
    from vision.geometry import to_frame
    from vision.read import Reader

    layout = _layout(hub, name)
    calibration = _reading_calibration(hub.calibration_path, layout.name)
    location = Reader(layout, calibration).locator.locate(seen.frame)
    out = seen.frame.copy()
    if not location.found:
        cv2.putText(out, f"{layout.name}: board not found", (30, 60), cv2.FONT_HERSHEY_SIMPLEX, 1.4, (40, 40, 230),
                    3, cv2.LINE_AA)
        return jpeg(out)
    for zone_id, value in layout.calibration.items():
        zone = layout.zone(zone_id)
        left, top, right, bottom = zone.bounds
        pts = to_frame([[left, top], [right, top], [right, bottom], [left, bottom]], location.homography,
                       location.lens).astype(np.int32)
        label = value if isinstance(value, str) else next(iter(value))
        r, g, b = layout.colour(label)
        cv2.polylines(out, [pts], True, (b, g, r), 3, cv2.LINE_AA)
        text = value if isinstance(value, str) else ", ".join(f"{n} {k}" for k, n in value.items())
        x, y = pts.min(axis=0)
        cv2.putText(out, text, (int(x) + 2, int(y) + 16), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 4, cv2.LINE_AA)
        cv2.putText(out, text, (int(x) + 2, int(y) + 16), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 255, 255), 1,
                    cv2.LINE_AA)
    return jpeg(out)


def colours(hub: Any, seen: Any, data: dict[str, Any]) -> dict[str, Any]:
    from vision.learn import learn_colours, stored

    layout = _layout(hub, data.get("layout"))
    path = _path(hub)
    base = _base(path, layout.name)
    learnt = learn_colours(seen.frame, layout, base, source="the live frame")
    calibration = merge_into(path, layout.name, **stored(learnt, base))
    reading, picture = _reread(seen, layout, calibration)
    return {"step": "colours", "layout": layout.name, "stored": str(path),
            "learnt": {label: "#{:02x}{:02x}{:02x}".format(*rgb) for label, rgb in sorted(learnt.colours.items())},
            "top_area_mm2": {k: round(v) for k, v in sorted(learnt.top_area_mm2.items())},
            "tops_unlearnt": dict(sorted(learnt.tops_unlearnt.items())),
            "board_found": reading["board_found"], "picture": picture}


def board(hub: Any, seen: Any, data: dict[str, Any]) -> dict[str, Any]:
    """The empty board as this camera sees it (as ``calibrate board``): pieces are then told from its artwork."""
    from vision.board import enrol_board, markers_unseen, overexposed

    layout = _layout(hub, data.get("layout"))
    path = _path(hub)
    base = _base(path, layout.name)
    image = enrol_board(seen.frame, layout, base, source="the live frame")
    calibration = merge_into(path, layout.name, board=image)
    reading, picture = _reread(seen, layout, calibration)
    h, w = image.image.shape[:2]
    again = base is not None and bool(base.colours)  # (learnt with no board, or against one learnt from a frame)
    places = [z.id for z in layout.zones if z.kind == "slot"]
    # The empty board read again with itself: every piece place should read empty; any other is named.
    labels = {z: reading["zones"].get(z, {}).get("label", "unknown") for z in places}
    return {"step": "board", "layout": layout.name, "stored": str(path), "size": [w, h],
            "px_per_mm": image.px_per_mm, "colours_again": again, "board_found": reading["board_found"],
            "overexposed": overexposed(image, layout), "markers_unseen": markers_unseen(image, layout),
            "learnt": data_url(image.image, 640), "places": len(places),
            "empty": sum(label == "empty" for label in labels.values()),
            "not_empty": {z: label for z, label in labels.items() if label != "empty"},
            "picture": picture}


def corners(hub: Any, seen: Any, data: dict[str, Any]) -> dict[str, Any]:
    from assistant.cli.calibrate import check_corners

    layout = _layout(hub, data.get("layout"))
    raw = data.get("points")
    if not (isinstance(raw, list) and len(raw) == 4 and all(
            isinstance(p, list) and len(p) == 2 and all(isinstance(v, int | float) and not isinstance(v, bool)
                                                        for v in p) for p in raw)):
        raise ValueError("points: expected the four corners [[x, y], ...] in the frame's pixels")
    points = [(float(x), float(y)) for x, y in raw]
    check_corners(layout, seen.frame.shape, points, "corners")
    path = _path(hub)
    calibration = merge_into(path, layout.name, corners=tuple(points))
    reading, picture = _reread(seen, layout, calibration)
    return {"step": "corners", "layout": layout.name, "stored": str(path), "corners": raw,
            "board_found": reading["board_found"], "picture": picture}


def card(hub: Any, seen: Any, data: dict[str, Any]) -> dict[str, Any]:
    from vision.cards import card_size
    from vision.cards.enrol import cards_shown
    from vision.cards.store import open_set

    layout = _layout(hub, data.get("layout"))
    zones = {z.id: z for z in layout.zones if z.kind == "card"}
    if not zones:
        raise ValueError(f"layout: {layout.name} has no card place")
    name, zone = data.get("name"), data.get("zone") or None
    if zone is not None and zone not in zones:
        raise ValueError(f"zone: {zone!r} is not a card place of {layout.name} ({', '.join(zones)})")
    if hub.cards_path is None:
        raise ValueError("this table has no cards folder to write to (start it with --cards DIR)")
    calibration = _reading_calibration(hub.calibration_path, layout.name)
    found = cards_shown(seen.frame, layout, calibration, "the live frame", zone)
    if not found:
        raise ValueError(f"no card found in {zone or 'any card place'} of {layout.name}: lay it whole and flat")
    if len(found) > 1:
        raise ValueError(f"{len(found)} card places hold a card ({', '.join(found)}): show one card at a time")
    zone_id, image = next(iter(found.items()))
    set_name = zones[zone_id].card_set
    allowed = sorted({label for z in zones.values() if z.card_set == set_name for label in z.labels}
                     - {"empty", "unknown"})
    if not isinstance(name, str) or (allowed and name not in allowed):
        raise ValueError(f"name: {name!r} is not a card of {set_name} ({', '.join(allowed)})")
    card_set = open_set(hub.cards_path, set_name, card_size(layout))
    again = name in card_set
    card_set.enrol(name, image, source="the live frame", zone=zone_id)
    reading, picture = _reread(seen, layout, calibration, hub.cards_path)
    seen_as = reading["zones"].get(zone_id, {})
    return {"step": "card", "layout": layout.name, "name": name, "zone": zone_id, "replaced": again,
            "enrolled": sorted(n for n in allowed if n in card_set) if allowed else [name],
            "missing": [n for n in allowed if n not in card_set], "reread": seen_as, "picture": picture}


def use(hub: Any, seen: Any, data: dict[str, Any]) -> dict[str, Any]:
    hub.use_calibration()
    cal = hub.calibration_path
    return {"step": "use", "using": str(cal) if cal is not None and cal.exists() else None}


STEPS = {"board": board, "colours": colours, "corners": corners, "card": card, "use": use}
