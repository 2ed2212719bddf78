"""``alchemy-table calibrate board EMPTY.png|--camera --layout NAME --out CAL.json``: enrol the empty board.

The board as this camera sees it, artwork included, is stored in the calibration file; the reader then
decides "piece or not" against it (``vision/board_read.py``). Run ``calibrate colours`` after it, so that the
pieces are learnt against the same board.
"""

from __future__ import annotations

from pathlib import Path

from assistant.cli._frames import add_frame_source, frame_from_args
from calibration.layout import load_layout
from calibration.store import load_calibration, merge_into
from vision.board import enrol_board, markers_unseen, overexposed


def register_calibrate(sub) -> None:
    p = sub.add_parser("board", help="enrol the empty board (artwork included) as this camera sees it",
                       description="Learn the empty board, zone by zone, from a frame of it with no piece on it; "
                                   "stored in the calibration file. Run 'calibrate colours' after it.")
    add_frame_source(p)  # EMPTY.png, or --camera: a frame from the configured camera as the service sees it
    p.add_argument("--layout", required=True)
    p.add_argument("--out", required=True, metavar="CAL.json", help="calibration file to create or update")
    p.set_defaults(run=run_board)


def run_board(args) -> int:
    layout = load_layout(args.layout)
    frame = frame_from_args(args)
    base = load_calibration(args.out, layout.name) if Path(args.out).exists() else None
    board = enrol_board(frame, layout, base, source=args.image or "the camera")
    merge_into(args.out, layout.name, board=board)
    h, w = board.image.shape[:2]
    print(f"{layout.name}: empty board enrolled ({w} x {h} px at {board.px_per_mm:g} px/mm); stored in {args.out}")
    for warning in (markers_unseen(board, layout), overexposed(board, layout)):
        if warning:
            print(f"  {warning}")
    if base is not None and base.colours:  # (learnt with no board, or against one learnt from their own frame)
        print("  the colours in it were learnt without this board: run 'calibrate colours' again to learn the "
              "pieces against it")
    return 0
