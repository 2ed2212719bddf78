"""``alchemy-table capture``: one frame from the configured camera, as the service sees it, to aim the camera
and check that the boards' markers are seen.

The frame goes through the live path (``camera.*`` settings, exposure settled and locked) and is saved
(``--out``, default ``capture.png``); ``--annotate`` draws the markers found and, for each board of the game
(``table.game`` and ``table.layouts``, or ``--layout``), its zones as read. It prints the frame's size, the
markers seen and, per board, found or not. Exit 0 when every board is found, 1 when one is not (aim again).
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from assistant.cli._frames import grab_frame
from assistant.config import add_arguments, from_args


def register(sub) -> None:
    p = sub.add_parser("capture", help="one frame from the configured camera (aim it; check the markers are seen)",
                       description=__doc__.split("\n\n")[1].replace("\n", " "))
    p.add_argument("--out", metavar="FILE", default="capture.png", help="where to save the frame (default "
                                                                        "capture.png; .png or .jpg)")
    p.add_argument("--annotate", action="store_true", help="draw the markers found and the zones as read")
    p.add_argument("--layout", action="append", metavar="[NAME=]LAYOUT",
                   help="the boards to look for (default: the game's, as run would)")
    p.add_argument("--calibration", metavar="CAL.json", help="calibration to read with (default calibration.file)")
    add_arguments(p)
    p.set_defaults(run=run)


def run(args) -> int:
    from assistant.live.boards import Boards
    from vision.annotate import annotate
    from vision.locate import detect_markers

    config = from_args(args)
    game = config["table.game"]
    specs = args.layout or config["table.layouts"].get(game) or [game]
    boards = Boards.from_specs(specs, args.calibration or config["calibration.file"] or None)
    frame = grab_frame(config)
    markers = detect_markers(frame)
    reading = boards.read(frame)
    picture = frame
    if args.annotate:
        picture = frame.copy()
        for board, seen in zip(boards.boards, boards.last, strict=True):
            if seen is not None and seen.board_found:
                picture = annotate(picture, board.layout, seen)
        for marker_id, corners in markers.items():
            cv2.polylines(picture, [np.round(corners).astype(np.int32)], True, (255, 0, 255), 2)
            x, y = corners[0]
            cv2.putText(picture, str(marker_id), (int(x), int(y) - 6), cv2.FONT_HERSHEY_SIMPLEX, 0.7,
                        (255, 0, 255), 2, cv2.LINE_AA)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(out), picture):
        raise OSError(f"{out}: cannot write the picture (use .png or .jpg)")
    height, width = frame.shape[:2]
    print(f"{width}x{height} frame saved to {out}; markers seen: {', '.join(map(str, sorted(markers))) or 'none'}")
    missing = set(reading.get("missing", ()))
    for board in boards.boards:
        name = board.name or board.layout.name
        wanted = sorted(m.id for m in board.layout.markers)
        seen = [m for m in wanted if m in markers]
        state = "NOT FOUND" if name in missing else "found"
        print(f"  {name}: {state} ({len(seen)} of its {len(wanted)} markers seen: {', '.join(map(str, seen)) or '-'})")
    return 1 if missing else 0
