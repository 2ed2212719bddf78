"""``alchemy-table render``: rendered test frames of a board, with their ground truth.

One frame: ``render --layout NAME [--state STATE.json] --out FRAME.png`` writes FRAME.png and FRAME.json
(the truth: zone labels, counts, hidden zones, conditions). A random legal-looking state when no state is
given; ``--calibration-frame`` sets the pieces out as the layout's calibration table says.
An evaluation set: ``render --layout all --set DIR --frames 400`` cycles through the layouts and the four
lightings, with hands over some frames. Table sets, as real evenings are: ``render --layout all --set DIR
--tables N --frames-per-table M [--boards plain|illustrated|both] [--blur]`` writes one folder per table (one
board face, camera and piece set each; its empty board and calibration frame, then M frames under the
five lightings, mixed included): see ``vision.render.table``.
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from calibration.layout import default_layouts, load_layout
from vision.render import LIGHTINGS, calibration_state, lighting_preset, load_state, random_conditions, random_state
from vision.render import render_frame as render_one
from vision.render.dataset import write_frame, write_set
from vision.render.deck import CardStyle
from vision.render.table import HANDS, write_tables


def register(sub) -> None:
    p = sub.add_parser("render", help="render a test frame of a board (and its ground truth), or a whole set",
                       description="Render a 1280x960 frame of a board with pieces, camera pose, lens, light, "
                                   "shadows, noise and optionally a hand; FRAME.json beside it holds the truth.")
    p.add_argument("--layout", required=True, help="layout name or file; with --set, a comma list or 'all'")
    p.add_argument("--state", metavar="STATE.json", help="what lies in each zone (default: a random state)")
    p.add_argument("--out", metavar="FRAME.png", help="the frame to write (its truth goes to FRAME.json)")
    p.add_argument("--calibration-frame", action="store_true",
                   help="set the pieces out as the layout's calibration table says (for 'calibrate colours')")
    p.add_argument("--lighting", choices=LIGHTINGS, help="light (default: random)")
    hand = p.add_mutually_exclusive_group()
    hand.add_argument("--hand", action="store_true", default=None, help="a hand over the board")
    hand.add_argument("--no-hand", dest="hand", action="store_false", help="no hand")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--deck", type=int, metavar="N", help="cards drawn from deck N: families of look-alikes, sleeves, "
                                                         "glare, bowed and moving cards (vision/render/deck.py); "
                                                         "with --tables, the set's cards are that deck's")
    p.add_argument("--still", action="store_true", help="with --deck: cards lie still, no glare (an enrolment photo)")
    p.add_argument("--set", metavar="DIR", help="write an evaluation set of --frames frames into DIR")
    p.add_argument("--frames", type=int, default=400, help="frames in the --set (default 400)")
    p.add_argument("--hands", type=float, metavar="F",
                   help="fraction of --set frames with a hand (default 1/6; with --tables, 1/4)")
    p.add_argument("--tables", type=int, metavar="N",
                   help="write N table folders into the --set (each: one board, camera and piece set)")
    p.add_argument("--frames-per-table", type=int, default=20, metavar="M",
                   help="frames per table, under the five lightings (default 20)")
    p.add_argument("--boards", choices=("plain", "illustrated", "both"), default="both",
                   help="the tables' board faces (default both, alternating)")
    p.add_argument("--blur", action="store_true",
                   help="blur every third frame of a table: camera shake up to 9 px, or defocus")
    p.set_defaults(run=run)


def run(args) -> int:
    if args.set:
        names = default_layouts() if args.layout == "all" else args.layout.split(",")
        layouts = [load_layout(n) for n in names]
        if args.hands is not None and not 0 <= args.hands <= 1:
            raise ValueError(f"--hands: expected a fraction 0..1, got {args.hands}")
        if args.tables is not None:
            return _tables(args, layouts)
        if args.frames < 1:
            raise ValueError(f"--frames: expected at least 1, got {args.frames}")
        hands = 1 / 6 if args.hands is None else args.hands
        n = 0
        for n, path in enumerate(write_set(Path(args.set), layouts, args.frames, args.seed, hands, deck=args.deck),
                                 1):
            if n % 50 == 0:
                print(f"{n} frames ... {path}")
        print(f"{n} frames with their truth written to {args.set}")
        return 0
    if args.tables is not None:
        raise ValueError("--tables: give --set DIR to write the tables into")
    if not args.out:
        raise ValueError("render: --out FRAME.png is needed (or --set DIR)")
    layout = load_layout(args.layout)
    rng = np.random.default_rng(args.seed)
    if args.calibration_frame:
        state = calibration_state(layout)
    elif args.state:
        state = load_state(args.state, layout)
    else:
        state = random_state(layout, rng)
    conditions = random_conditions(layout, rng, lighting=args.lighting,
                                   hand=False if args.calibration_frame else args.hand, foreign=False)
    if args.calibration_frame:
        conditions = replace(conditions, lighting=lighting_preset(args.lighting or "daylight"))
    if args.deck is not None:
        conditions = replace(conditions, cards=CardStyle(args.deck, handled=not args.still))
    frame, truth = render_one(layout, state, conditions, rng)
    out = Path(args.out)
    write_frame(out, frame, truth)
    hidden = sum(1 for v in truth["zones"].values() if v == "unknown")
    print(f"{out}: {layout.name}, {truth['conditions']['lighting']} light"
          f"{', hand over ' + str(hidden) + ' zones' if truth['conditions']['hand'] else ''}; truth in "
          f"{out.with_suffix('.json')}")
    return 0


def _tables(args, layouts) -> int:
    if args.tables < 1 or args.frames_per_table < 1:
        raise ValueError(f"--tables/--frames-per-table: expected at least 1, got {args.tables}/{args.frames_per_table}")
    start = time.perf_counter()
    n = 0
    for n, path in enumerate(write_tables(Path(args.set), layouts, args.tables, args.frames_per_table, args.seed,
                                          args.boards, args.blur, deck=args.deck,
                                          hands=HANDS if args.hands is None else args.hands), 1):
        if n % 50 == 0:
            print(f"{n} frames ... {path}")
    took = time.perf_counter() - start
    print(f"{args.tables} tables, {n} frames with their truth written to {args.set} "
          f"({took:.0f} s, {1000 * took / max(1, n):.0f} ms a frame)")
    return 0
