"""``alchemy-table calibrate WHAT``: marker sheets, the four-corner fallback, the lens, the colours.

Sub-commands are a small registry: the built-in ones below, plus any module ``assistant/cli/calibrate_*.py``
that defines ``register_calibrate(subparsers)`` (adding its parser and ``set_defaults(run=...)``), so that
``calibrate cards`` can land in a module of its own. Every sub-command that learns something merges it
into the calibration file given by ``--out`` (one file per board and camera).
"""

from __future__ import annotations

import importlib
import pkgutil
import re

import assistant.cli as cli_package
from assistant.cli._frames import add_frame_source, frame_from_args
from calibration.camera import board_image, calibrate_camera, read_images
from calibration.layout import load_layout
from calibration.markers import marker_sheets, save_sheets
from calibration.store import merge_into
from vision.image import load_frame, save_image
from vision.learn import learn_colours, stored
from vision.locate import corners_homography, detect_markers

_POINT = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$")


def register(sub) -> None:
    p = sub.add_parser("calibrate", help="marker sheets, corner fallback, lens and colour calibration",
                       description="Sub-commands: " + ", ".join(name for name, _ in subcommands()) + ".")
    inner = p.add_subparsers(dest="what", metavar="WHAT", parser_class=type(p))
    for _, add in subcommands():
        add(inner)
    p.set_defaults(run=lambda args: _help(p))


def _help(parser) -> int:
    parser.print_help()
    return 2


def subcommands() -> list[tuple[str, object]]:
    """(name, register function) of every calibrate sub-command: built-ins, then plug-in modules."""
    found = [("markers", _markers), ("corners", _corners), ("camera", _camera), ("colours", _colours)]
    for info in sorted(pkgutil.iter_modules(cli_package.__path__), key=lambda m: m.name):
        if info.name.startswith("calibrate_"):
            module = importlib.import_module(f"{cli_package.__name__}.{info.name}")
            add = getattr(module, "register_calibrate", None)
            if add is not None:
                found.append((info.name.removeprefix("calibrate_"), add))
    return found


def _markers(sub) -> None:
    p = sub.add_parser("markers", help="print the layout's ArUco markers at true size, with cutting guides")
    p.add_argument("--layout", required=True)
    p.add_argument("--out", required=True, metavar="FILE.pdf|FILE.png")
    p.add_argument("--dpi", type=int, default=300, help="print resolution (default 300)")
    p.set_defaults(run=run_markers)


def run_markers(args) -> int:
    if not 72 <= args.dpi <= 1200:
        raise ValueError(f"--dpi: {args.dpi} is outside 72..1200")
    layout = load_layout(args.layout)
    paths = save_sheets(marker_sheets(layout, args.dpi), args.out, args.dpi)
    sizes = ", ".join(f"#{m.id} {m.size:g} mm" for m in layout.markers)
    print(f"{layout.name}: {len(layout.markers)} markers ({sizes}) on {len(paths) if len(paths) > 1 else 'one'} "
          f"page(s) -> {', '.join(map(str, paths))}; print at 100 % scale")
    return 0


def _corners(sub) -> None:
    p = sub.add_parser("corners", help="store the board's four corners in an image (fallback without markers)")
    p.add_argument("image", metavar="IMAGE")
    p.add_argument("--layout", required=True)
    p.add_argument("--points", nargs=4, required=True, metavar="X,Y",
                   help="the board's top-left, top-right, bottom-right, bottom-left corners in pixels")
    p.add_argument("--out", required=True, metavar="CAL.json", help="calibration file to create or update")
    p.set_defaults(run=run_corners)


def run_corners(args) -> int:
    layout = load_layout(args.layout)
    frame = load_frame(args.image)
    points = []
    for text in args.points:
        m = _POINT.match(text)
        if not m:
            raise ValueError(f"--points: {text!r}: expected x,y in pixels")
        points.append((float(m.group(1)), float(m.group(2))))
    check_corners(layout, frame.shape, points)
    merge_into(args.out, layout.name, corners=tuple(points))
    print(f"{layout.name}: corners stored in {args.out} (used when no marker is found)")
    return 0


def check_corners(layout, shape: tuple[int, ...], points: list[tuple[float, float]], what: str = "--points") -> None:
    """ValueError unless ``points`` (top-left, top-right, bottom-right, bottom-left, in pixels of an image of
    ``shape``) make a board (the web page's set-up clicks them)."""
    h, w = shape[:2]
    for x, y in points:
        if not (0 <= x < w and 0 <= y < h):
            raise ValueError(f"{what}: {x:g},{y:g}: outside the {w}x{h} image")
    H = corners_homography(layout, points)
    if abs(float(H[2, 2])) < 1e-12 or (H[:2, :2] @ [1, 1] == 0).all():
        raise ValueError(f"{what}: the four corners do not make a board (are they in order?)")
    area = 0.5 * abs(sum(points[i][0] * points[(i + 1) % 4][1] - points[(i + 1) % 4][0] * points[i][1]
                         for i in range(4)))
    if area < 0.01 * w * h:
        raise ValueError(f"{what}: the four corners enclose almost nothing")


def _camera(sub) -> None:
    p = sub.add_parser("camera", help="lens calibration from photos of a ChArUco board (optional)")
    p.add_argument("images", nargs="*", metavar="IMAGE")
    p.add_argument("--layout", help="layout the calibration file is for (needed with IMAGE)")
    p.add_argument("--out", metavar="CAL.json", help="calibration file to create or update")
    p.add_argument("--print-board", metavar="FILE.png", help="draw the ChArUco board to print (10 px/mm)")
    p.set_defaults(run=run_camera)


def run_camera(args) -> int:

    if args.print_board:
        save_image(args.print_board, board_image())
        print(f"ChArUco board written to {args.print_board} (print it flat, 254 dpi is true size)")
        if not args.images:
            return 0
    if not args.images or not args.layout or not args.out:
        raise ValueError("calibrate camera: give IMAGE... with --layout and --out (or --print-board FILE)")
    layout = load_layout(args.layout)
    lens, rms, used = calibrate_camera(read_images(args.images))
    merge_into(args.out, layout.name, camera=lens)
    print(f"lens calibrated from {used} of {len(args.images)} photos, RMS error {rms:.2f} px; k1 k2 = "
          f"{lens.distortion[0]:.4f} {lens.distortion[1]:.4f}; stored in {args.out}")
    return 0


def _colours(sub) -> None:
    p = sub.add_parser("colours", help="learn the pieces' real colours from a frame set out as the layout's "
                                       "calibration table says")
    add_frame_source(p)
    p.add_argument("--layout", required=True)
    p.add_argument("--out", required=True, metavar="CAL.json", help="calibration file to create or update")
    p.set_defaults(run=run_colours)


def run_colours(args) -> int:
    from pathlib import Path

    from calibration.store import load_calibration

    layout = load_layout(args.layout)
    frame = frame_from_args(args)
    base = load_calibration(args.out, layout.name) if Path(args.out).exists() else None
    notes: list[str] = []
    learnt = learn_colours(frame, layout, base, source=args.image or "the camera", notes=notes)
    pieces = learnt.pieces
    merge_into(args.out, layout.name, **stored(learnt, base))
    if learnt.board is not None and learnt.board.learnt:
        print("  the board is plain: learnt empty from this frame (under each piece, what its place's empty "
              "fellows show); a printed board must be enrolled empty: calibrate board EMPTY.png")
    for note in notes:
        print(f"  no board learnt: {note}")
    markers = len(detect_markers(frame))
    for label, rgb in sorted(learnt.colours.items()):
        print(f"  {label:14} #{rgb[0]:02x}{rgb[1]:02x}{rgb[2]:02x}  (palette {layout.palette.get(label, '?')})")
    for label, area in sorted(learnt.top_area_mm2.items()):
        print(f"  {label:14} one piece's top {area:.0f} mm²")
    for label, why in sorted(learnt.tops_unlearnt.items()):
        print(f"  {label:14} {why} (its trays are left uncounted until then)")
    for label, p in sorted(pieces.items()):
        print(f"  {label:14} against the enrolled board: Lab {p.lab[0]:.0f} {p.lab[1]:.0f} {p.lab[2]:.0f}, "
              f"{p.area_mm2:.0f} mm² seen")
    if learnt.board is not None:
        unseen = sorted({v for v in layout.calibration.values() if isinstance(v, str) and v != "empty"} - set(pieces))
        if unseen:
            print(f"  not seen against the enrolled board: {', '.join(unseen)} (too like the board there, or lit to "
                  f"the camera's ceiling, which tells no colour; the layout's colour and size stand in)")
    print(f"{layout.name}: {len(learnt.colours)} colours learnt ({markers} markers seen); stored in {args.out}")
    return 0
