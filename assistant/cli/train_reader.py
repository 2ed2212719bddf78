"""``alchemy-table train-reader``: retrain the board reader's two learnt models, the hand model that finds arms and
hands over the board (``vision/hand_cells.py``) and the place model it decides each place with
(``vision/place_model.py``).

``train-reader [--tables N] [--frames-per-table M] [--seed S] [--out MODEL.npz]`` renders N fresh tables of the
randomised renderer (every layout with piece places, plain and illustrated boards, blur on every third frame),
calibrates each as a user would, learns where the hands lie in every frame, then from every place of every frame,
and writes the models (by default over those the package ships; with ``--out``, the hand model beside it as
``hands.npz`` unless ``--hands-out`` says where). The places are read with the package's hand model, the one just
written when it is the package's. ``--from DIR`` (repeatable) learns from table sets already rendered
(``render --set DIR --tables N``) instead. The last fifth of the tables is held out: the figures printed are
theirs. Needs PyTorch (``pip install -e '.[train]'``; about fifty minutes on two cores, most of it
rendering); reading needs numpy only.
"""

from __future__ import annotations

import importlib.util
import os
import tempfile
import time
from pathlib import Path

import numpy as np

from calibration.layout import default_layouts, load_layout

DEFAULT_TABLES = 560
DEFAULT_FRAMES = 10
DEFAULT_SEED = 9100


def register(sub) -> None:
    p = sub.add_parser("train-reader", help="retrain the board reader's place model on rendered tables",
                       description=__doc__.split("\n\n", 1)[1])
    p.add_argument("--tables", type=int, default=DEFAULT_TABLES, metavar="N",
                   help=f"tables to render (default {DEFAULT_TABLES})")
    p.add_argument("--frames-per-table", type=int, default=DEFAULT_FRAMES, metavar="M",
                   help=f"frames per table (default {DEFAULT_FRAMES})")
    p.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"the renderer's seed (default {DEFAULT_SEED})")
    p.add_argument("--from", dest="sets", action="append", metavar="DIR",
                   help="learn from this rendered table set instead of rendering (repeatable)")
    p.add_argument("--out", metavar="MODEL.npz", help="where to write the model (default: the package's own)")
    p.add_argument("--hands-out", metavar="HANDS.npz",
                   help="where to write the hand model (default: the package's own; beside --out when it is given)")
    p.add_argument("--epochs", type=int, default=None, metavar="E",
                   help="passes over the places (default: the shipped model's)")
    p.set_defaults(run=run)


def run(args) -> int:
    from vision import hand_cells, place_model
    from vision.train_places import EPOCHS, examples, train

    if importlib.util.find_spec("torch") is None:  # (not imported yet: the tables are read in forked workers)
        raise ValueError("train-reader needs PyTorch: pip install -e '.[train]'")
    epochs = EPOCHS if args.epochs is None else args.epochs
    if epochs < 1:
        raise ValueError(f"--epochs {epochs}: at least 1")
    out = Path(args.out) if args.out else place_model.MODEL_PATH
    if out.is_dir() or not out.parent.is_dir():
        raise ValueError(f"--out {out}: not a file in an existing folder")
    hands_out = Path(args.hands_out) if args.hands_out else out.parent / "hands.npz" if args.out else \
        hand_cells.MODEL_PATH
    if hands_out.is_dir() or not hands_out.parent.is_dir():
        raise ValueError(f"--hands-out {hands_out}: not a file in an existing folder")
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="alchemy-train-") as work:
        if args.sets:
            sets = [Path(s) for s in args.sets]
        else:
            if args.tables < 2 or args.frames_per_table < 1:
                raise ValueError("train-reader: --tables is at least 2 (one is held out), --frames-per-table 1")
            sets = [_render(Path(work) / "tables", args)]
        _train_hands(sets, hands_out, args.seed)
        x, crops, y, table = examples(sets, progress=lambda line: print(line, flush=True))
    held = table >= np.quantile(np.unique(table), 0.8) if len(np.unique(table)) > 1 else np.zeros(len(y), bool)
    def say(line):
        print(line, flush=True)

    if held.any():
        model = train(x[~held], crops[~held], y[~held], seed=args.seed, epochs=epochs, progress=say)
        _report(model, x[held], crops[held], y[held])
    model = train(x, crops, y, seed=args.seed, epochs=epochs, progress=say)  # the shipped one learns from all
    model.save(out)
    counts = np.bincount(y, minlength=len(place_model.CLASSES))
    print(f"{len(y)} places ({', '.join(f'{c} {n}' for c, n in zip(place_model.CLASSES, counts, strict=True))}) from "
          f"{len(np.unique(table))} tables; model written to {out} ({time.perf_counter() - start:.0f} s)")
    return 0


def _train_hands(sets: list[Path], out: Path, seed: int) -> None:
    """The hand model learnt from the tables' frames (its held-out figures printed), written to ``out``."""
    from vision import hand_cells
    from vision.train_hands import examples, scores, train

    tables = examples(sets, progress=lambda line: print(line, flush=True))
    if not any((t.share >= 0.5).any() for t in tables):
        print("no hand in these tables: the hand model is not retrained", flush=True)
        return

    def say(line: str) -> None:
        print(line, flush=True)

    cut = len(tables) - len(tables) // 5  # (the last fifth held out)
    if cut < len(tables) and any((t.share >= 0.5).any() for t in tables[:cut]):
        found, taken = scores(train(tables[:cut], seed=seed, progress=say), tables[cut:])
        print(f"held-out tables: {100 * found:.1f} % of the hands' cells found, {1000 * taken:.2f} of every 1000 "
              f"other cells taken for a hand", flush=True)
    train(tables, seed=seed, progress=say).save(out)
    hand_cells.shipped.cache_clear()
    print(f"{sum(int((t.share >= 0.5).sum()) for t in tables)} hand cells (8 mm) from {len(tables)} tables; "
          f"hand model written to {out}", flush=True)


def _render(folder: Path, args) -> Path:
    from vision.render.table import write_tables

    layouts = [load_layout(n) for n in default_layouts()]
    layouts = [lay for lay in layouts if any(z.kind == "slot" for z in lay.zones)]
    tables = write_tables(folder, layouts, args.tables, args.frames_per_table, args.seed, "both", blur=True,
                          workers=os.cpu_count() or 1)
    for n, path in enumerate(tables, 1):
        if n % 50 == 0:
            print(f"{n} frames rendered ... {path.parent.name}", flush=True)
    return folder


def _report(model, x: np.ndarray, crops: np.ndarray, y: np.ndarray) -> None:
    from vision import place_model

    kind, p = model.decide(x, crops)
    read = (p >= place_model.SURE) & (kind != place_model.NEITHER)
    wrong = read & (kind != y)
    print(f"held-out tables: {len(y)} places, {100 * wrong.mean():.2f} % read wrong, "
          f"{100 * (~read).mean():.2f} % unread (at probability {place_model.SURE})")
