"""The Alchimiste referee on the page: the players as ``referee alchimiste`` takes them, the reserve trays
counted in an uploaded photo or in the live frame (``assistant.referee_photo``), and a tray the picture
cannot count asked in the form, never guessed.

Form fields: ``endgame`` (the ENDGAME.json text: its ``players``; a ``reserve`` in it is replaced by the
picture's counts), ``photo`` (a JPEG or PNG) or ``source=live``, and ``count-COLOUR`` for trays counted by
hand.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from assistant.engines.alchimiste import IllegalAction, score_endgame
from assistant.records.alchimiste import read_endgame, result_lines
from assistant.referee_photo import LAYOUT, UncountedTray, photo_counts
from assistant.web.wizard import data_url


def judge(fields: dict[str, str], photo: bytes | None, seen: Any, hub: Any) -> dict[str, Any]:
    try:
        data = json.loads(fields.get("endgame") or "")
    except json.JSONDecodeError as e:
        raise ValueError(f"players: not valid JSON ({e.msg}, line {e.lineno}); paste an ENDGAME.json") from None
    if not isinstance(data, dict) or not isinstance(data.get("players"), list):
        raise ValueError("players: expected an object with \"players\" (see docs/referee-alchimiste.md)")
    hand: dict[str, int] = {}
    for key, value in fields.items():
        if key.startswith("count-") and value.strip():
            if not value.strip().isdigit():
                raise ValueError(f"{key}: expected a number of cubes, got {value.strip()!r}")
            hand[key.removeprefix("count-")] = int(value)
    if photo:
        if not photo.startswith((b"\xff\xd8\xff", b"\x89PNG\r\n\x1a\n")):
            raise ValueError("photo: not a picture (send a JPEG or PNG of the table)")
        frame = cv2.imdecode(np.frombuffer(photo, np.uint8), cv2.IMREAD_COLOR)
        if frame is None:
            raise ValueError("photo: not a picture (send a JPEG or PNG of the table)")
        source = "the photo"
    elif fields.get("source") == "live":
        if seen is None:
            raise ValueError("no frame from the camera yet")
        frame, source = seen.frame, "the live frame"
    else:
        raise ValueError("give a photo of the table, or choose the live frame")
    # the players are checked before anything is counted; given them, trays in doubt that decide nothing are not asked
    players, _ = read_endgame({**data, "reserve": {}}, "players")
    calibration = _calibration(hub)
    with tempfile.TemporaryDirectory() as tmp:
        picture_path, drawn = Path(tmp) / "table.png", Path(tmp) / "drawn.png"
        cv2.imwrite(str(picture_path), frame)
        try:
            counts, origin = photo_counts(str(picture_path), hand, str(drawn), calibration, LAYOUT, players)
        except UncountedTray as e:
            message = (str(e).replace(str(picture_path), source).replace("give --count COLOUR=N", "type the count")
                       .replace("type them in ENDGAME.json", "type them below"))  # the CLI's words, the form's
            out: dict[str, Any] = {"ask": list(e.colours), "message": message}
            if drawn.exists():
                out["picture"] = data_url(cv2.imread(str(drawn)))
            return out
        picture = data_url(cv2.imread(str(drawn)))
    players, reserve = read_endgame({"players": data["players"], "reserve": counts}, f"{source} (reserve)")
    try:
        result = score_endgame(players, reserve)
    except IllegalAction as e:
        raise ValueError(f"players: {e}") from None
    return {"result": result.to_dict(), "lines": result_lines(result), "counts": counts, "origin": origin,
            "picture": picture}


def _calibration(hub: Any) -> str | None:
    """The table's calibration file, when it is for the Alchimiste board."""
    from calibration.store import CalibrationError, load_calibration

    path = getattr(hub, "calibration_path", None)
    if path is None or not Path(path).exists():
        return None
    try:
        load_calibration(path, LAYOUT)
    except CalibrationError:
        return None
    return str(path)
