"""``alchemy-table train-stacked``: retrain the test of a cube lying on another (``vision/stacked_model.py``).

``train-stacked [--seed S] [--seeds N] [--tables T] [--frames F] [--examples FILE.npz] [--out MODEL.npz]``
renders T tables of F reserve photos per lighting for each of the N seeds S, S+1, ... (piles as players leave
them, a share of trays with a cube on another, half the tables' cube sets as ``eval-piles`` draws them, half
0.8-1.2 times the layout's size; the tables' boards in turn the layout's plain board, a plain board face and an
illustrated one, each face enrolled), calibrates each table as a user would, and learns from every counted tray,
its signs and its picture; the last seed's trays are held out, and the figures printed are theirs.
``--examples FILE.npz``: the trays measured are kept there, and taken from there when the file exists (to
retrain without rendering again). Learning needs PyTorch (``pip install -e .[train]``), reading numpy only;
about 16 minutes on two shared cores with the defaults (renders 1,200 frames), 5 from kept trays.
"""

from __future__ import annotations

import time
from pathlib import Path

DEFAULT_SEED = 19700
DEFAULT_SEEDS = 10
DEFAULT_TABLES = 6
DEFAULT_FRAMES = 4


def register(sub) -> None:
    p = sub.add_parser("train-stacked", help="retrain the test of a cube lying on another on rendered trays",
                       description=__doc__.split("\n\n", 1)[1])
    p.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"the first seed (default {DEFAULT_SEED})")
    p.add_argument("--seeds", type=int, default=DEFAULT_SEEDS, metavar="N",
                   help=f"seeds to render, the last held out (default {DEFAULT_SEEDS})")
    p.add_argument("--tables", type=int, default=DEFAULT_TABLES, metavar="T",
                   help=f"tables per lighting and seed (default {DEFAULT_TABLES})")
    p.add_argument("--frames", type=int, default=DEFAULT_FRAMES, metavar="F",
                   help=f"reserve photos per table (default {DEFAULT_FRAMES})")
    p.add_argument("--examples", metavar="FILE.npz", help="keep the measured trays here, or learn from them")
    p.add_argument("--out", metavar="MODEL.npz", help="where to write the model (default: the package's own)")
    p.set_defaults(run=run)


def run(args) -> int:
    from vision import stacked_model
    from vision.train_stacked import load_examples, render_examples, save_examples, train_seeing

    if args.seeds < 2 or args.tables < 1 or args.frames < 1:
        raise ValueError("train-stacked: --seeds at least 2 (the last is held out), --tables and --frames at least 1")
    out = Path(args.out) if args.out else stacked_model.MODEL_PATH
    if out.is_dir() or not out.parent.is_dir():
        raise ValueError(f"--out {out}: not a file in an existing folder")
    start = time.perf_counter()
    cache = Path(args.examples) if args.examples else None
    seeds = list(range(args.seed, args.seed + args.seeds))
    if cache is not None and cache.exists():
        kept = load_examples(cache)
    else:
        kept = render_examples(seeds, args.tables, args.frames, progress=lambda k, n: print(f"  {k}/{n}", flush=True))
        if cache is not None:
            save_examples(cache, kept)
    x, y, seed_of, pictures = kept.x, kept.y, kept.seed, kept.pictures()
    held = seed_of == seed_of.max()
    model = train_seeing(x[~held], pictures[~held], y[~held], progress=print, board=kept.board[~held])
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
