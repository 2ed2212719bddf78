"""``alchemy-table train-stacked``: retrain the test of a cube lying on another (``vision/stacked_model.py``).

``train-stacked [--enrolled] [--seed S] [--seeds N] [--tables T] [--frames F] [--examples FILE.npz] [--out MODEL.npz]``
renders T tables of F reserve photos per lighting for each of the N seeds S, S+1, ... (piles as players leave
them, a share of trays with a cube on another, half the tables' cube sets as ``eval-piles`` draws them, half
0.8-1.2 times the layout's size), calibrates each table as a user would, and learns from every counted tray,
its signs and its picture; the last seed's trays are held out, and the figures printed are theirs. The tables
lie on the layout's own board (the test ``vision/models/stacked.npz``), or with ``--enrolled`` in turn on it, a
plain board face and an illustrated one, each face enrolled (the test read against enrolled boards,
``vision/models/stacked_enrolled.npz``; defaults ``--seed 19700 --tables 6``).
``--examples FILE.npz``: the trays measured are kept there, and taken from there when the file exists (to
retrain without rendering again). Learning needs PyTorch (``pip install -e .[train]``), reading numpy only;
about 16 minutes on two shared cores with the defaults (renders 1,200 frames), 5 from kept trays.
"""

from __future__ import annotations

import time
from pathlib import Path

DEFAULT_SEED = 16001
DEFAULT_SEEDS = 10
DEFAULT_TABLES = 4
DEFAULT_FRAMES = 4
ENROLLED_SEED, ENROLLED_TABLES = 19700, 6


def register(sub) -> None:
    p = sub.add_parser("train-stacked", help="retrain the test of a cube lying on another on rendered trays",
                       description=__doc__.split("\n\n", 1)[1])
    p.add_argument("--enrolled", action="store_true",
                   help="the test read against enrolled boards (tables on every kind of board)")
    p.add_argument("--seed", type=int, help=f"the first seed (default {DEFAULT_SEED}; --enrolled {ENROLLED_SEED})")
    p.add_argument("--seeds", type=int, default=DEFAULT_SEEDS, metavar="N",
                   help=f"seeds to render, the last held out (default {DEFAULT_SEEDS})")
    p.add_argument("--tables", type=int, metavar="T",
                   help=f"tables per lighting and seed (default {DEFAULT_TABLES}; --enrolled {ENROLLED_TABLES})")
    p.add_argument("--frames", type=int, default=DEFAULT_FRAMES, metavar="F",
                   help=f"reserve photos per table (default {DEFAULT_FRAMES})")
    p.add_argument("--examples", metavar="FILE.npz", help="keep the measured trays here, or learn from them")
    p.add_argument("--out", metavar="MODEL.npz", help="where to write the model (default: the package's own)")
    p.set_defaults(run=run)


def run(args) -> int:
    from vision import stacked_model
    from vision.train_stacked import BOARDS, LAYOUT_BOARD, load_examples, render_examples, save_examples, train_seeing

    if args.seed is None:
        args.seed = ENROLLED_SEED if args.enrolled else DEFAULT_SEED
    if args.tables is None:
        args.tables = ENROLLED_TABLES if args.enrolled else DEFAULT_TABLES
    if args.seeds < 2 or args.tables < 1 or args.frames < 1:
        raise ValueError("train-stacked: --seeds at least 2 (the last is held out), --tables and --frames at least 1")
    out = Path(args.out) if args.out else stacked_model.ENROLLED_PATH if args.enrolled else stacked_model.MODEL_PATH
    if out.is_dir() or not out.parent.is_dir():
        raise ValueError(f"--out {out}: not a file in an existing folder")
    start = time.perf_counter()
    cache = Path(args.examples) if args.examples else None
    seeds = list(range(args.seed, args.seed + args.seeds))
    if cache is not None and cache.exists():
        kept = load_examples(cache)
    else:
        kept = render_examples(seeds, args.tables, args.frames, progress=lambda k, n: print(f"  {k}/{n}", flush=True),
                               boards=BOARDS if args.enrolled else LAYOUT_BOARD)
        if cache is not None:
            save_examples(cache, kept)
    x, y, seed_of, pictures = kept.x, kept.y, kept.seed, kept.pictures()
    held = seed_of == seed_of.max()
    model = train_seeing(x[~held], pictures[~held], y[~held], progress=print, board=kept.board[~held],
                         enrolled=args.enrolled)
    model.save(out)
    p = model.probability(x[held], pictures[held])
    asked, unsure = p >= model.threshold, p >= model.unsure
    single, stacked = ~y[held], y[held]
    print(f"{int((~held).sum())} trays learnt from, {int(held.sum())} held out (seed {int(seed_of.max())}): "
          f"single-layer trays asked {100 * asked[single].mean():.1f} % of {int(single.sum())}, trays with a cube "
          f"on another asked {100 * asked[stacked].mean():.1f} % of {int(stacked.sum())}; in doubt for the referee "
          f"{100 * unsure[single].mean():.1f} % and {100 * unsure[stacked].mean():.1f} %; {out} "
          f"({time.perf_counter() - start:.0f} s)")
    return 0
