"""``alchemy-table read IMAGE --layout NAME``: read one frame (DESIGN.md "Reading a frame").

``--json`` prints ``{"layout", "board_found", "homography", "zones", "counts"}``; ``homography`` maps board
millimetres to image pixels. A frame without the board gives ``board_found: false`` (empty zones and
counts) and exit 0; an unreadable file, one line and exit 2. A board of pieces read without its empty board
enrolled (``calibrate board``) says so on stderr, once.

One photo is read as the referee reads it (``Reader(spread_stacked=True)``): a tray where a cube seems to lie on
another has ``count: null`` and the reason ("spread the grey pile: ..."), never a count of the cubes it shows.
The live loop does not ask it (an uncounted tray would hold every commit back); one photo holds nothing back.
"""

from __future__ import annotations

import json
import sys

from calibration.layout import load_layout
from calibration.store import load_calibration
from vision.annotate import annotate
from vision.cards.store import CardLibrary
from vision.image import load_frame, save_image
from vision.read import Reader
from vision.reading import low_confidence


def register(sub) -> None:
    p = sub.add_parser("read", help="read one frame: every zone's label and confidence, every count",
                       description="Find the board in IMAGE, read every zone of the layout and count the "
                                   "count zones.")
    p.add_argument("image", metavar="IMAGE")
    p.add_argument("--layout", required=True, help="layout name or file")
    p.add_argument("--calibration", metavar="CAL.json", help="calibration file (colours, corners, lens)")
    p.add_argument("--cards", metavar="DIR", help="cards folder (calibrate cards) to name the cards in card zones")
    p.add_argument("--json", action="store_true", help="print the reading as JSON")
    p.add_argument("--annotate", metavar="OUT.png", help="draw each zone's reading on the frame")
    p.set_defaults(run=run)


def run(args) -> int:
    layout = load_layout(args.layout)
    calibration = load_calibration(args.calibration, layout.name) if args.calibration else None
    frame = load_frame(args.image)
    cards = CardLibrary(args.cards) if args.cards else None
    reader = Reader(layout, calibration, cards=cards, spread_stacked=True)
    note = reader.unenrolled()
    if note:  # (on stderr: ``--json`` keeps its one object on stdout)
        print(f"alchemy-table: {note}", file=sys.stderr)
    reading = reader.read(frame)
    if args.annotate:
        save_image(args.annotate, annotate(frame, layout, reading))
    if args.json:
        print(json.dumps(reading.to_dict()))
        return 0
    if not reading.board_found:
        print(f"{args.image}: board not found")
        return 0
    print(f"{args.image}: {layout.name}, board found ({reading.source})")
    for zid, z in reading.zones.items():
        if z.label != "empty" or low_confidence(z):
            flag = "  (low confidence)" if low_confidence(z) and z.label != "unknown" else ""
            print(f"  {zid:28} {z.label:12} {z.confidence:.2f}{flag}")
    empty = sum(1 for z in reading.zones.values() if z.label == "empty" and not low_confidence(z))
    print(f"  ({empty} zones empty)")
    for zid, c in reading.counts.items():
        if c.count is None:
            print(f"  {zid:28} no count: {c.reason or 'hidden'}")
        else:
            print(f"  {zid:28} {c.count:<12} {c.confidence:.2f}")
    return 0
