"""``alchemy-table eval-piles``: the reserve count on piles as players leave them, against rendered truth.

Per lighting (mixed apart): single-layer trays exact %, null %, worst error; trays with a cube on another:
null % and wrong (``vision.evaluate_piles``). With ``--endgames N``: the referee from a photo on N rendered
end-games, results announced right or wrong, or trays asked (``assistant.endgame_check``). Use seeds never
looked at while developing for figures (the project's development seeds are 1-99).
"""

from __future__ import annotations

import sys


def register(sub) -> None:
    p = sub.add_parser("eval-piles", help="score reserve counting (and the photo referee) on rendered piles",
                       description="Render tables (each calibrated as a user would) with reserve piles as players "
                                   "leave them, and score the counts per lighting; or, with --endgames, the "
                                   "Alchimiste referee from a photo.")
    p.add_argument("--seed", type=int, required=True, help="random seed of the rendered set")
    p.add_argument("--tables", type=int, default=6, metavar="N", help="tables per lighting (default 6)")
    p.add_argument("--frames", type=int, default=4, metavar="N", help="reserve photos per table (default 4)")
    p.add_argument("--stacked", type=float, default=0.25, metavar="SHARE",
                   help="share of trays with a cube on another (default 0.25)")
    p.add_argument("--scale", type=float, metavar="K",
                   help="every table's cubes K times the layout's size (calibration frame too; default: a random "
                        "set's, 0.9-1.08)")
    p.add_argument("--board", choices=("plain", "illustrated"),
                   help="each table a random board face of this kind, enrolled with its empty board first "
                        "(default: the layout's plain board, learnt empty from the calibration frame as "
                        "'calibrate colours' learns it)")
    p.add_argument("--endgames", type=int, metavar="N", help="instead: the referee on N rendered end-games")
    p.add_argument("--mistakes", type=int, default=10, metavar="N", help="list the first N mistakes (default 10)")
    p.set_defaults(run=run)


def run(args) -> int:
    if args.tables < 1 or args.frames < 1 or not 0 <= args.stacked <= 1:
        raise ValueError("eval-piles: --tables and --frames are at least 1, --stacked a share from 0 to 1")
    if args.scale is not None and not 0.7 <= args.scale <= 1.3:
        raise ValueError(f"eval-piles: --scale {args.scale}: cubes from 0.7 to 1.3 times the layout's size")
    if args.endgames is not None:
        return _endgames(args)
    from vision.evaluate_piles import evaluate

    def progress(light, t):
        print(f"  {light}: table {t + 1}/{args.tables}", file=sys.stderr)

    tallies = evaluate(args.seed, args.tables, args.frames, stacked=args.stacked, progress=progress, scale=args.scale,
                       board=args.board)
    size = "" if args.scale is None else f", cubes {args.scale:g} x the layout's"
    print(f"seed {args.seed}: {args.tables} tables x {args.frames} photos per lighting, stacked share {args.stacked}"
          f"{size}")
    print(f"{'lighting':9} {'single':>6} {'exact %':>8} {'null %':>7} {'worst':>5}   {'stacked':>7} {'null %':>7} "
          f"{'wrong':>5}")
    mistakes = []
    for light, t in tallies.items():
        print(f"{light:9} {t.single:6} {_pct(t.exact, t.single):>8} {_pct(t.null, t.single):>7} {t.worst:5}   "
              f"{t.stacked:7} {_pct(t.stacked_null, t.stacked):>7} {t.stacked_wrong:5}")
        mistakes += t.mistakes
    _mistakes(mistakes, args.mistakes)
    return 0


def _endgames(args) -> int:
    from assistant.endgame_check import check

    if args.endgames < 1:
        raise ValueError("eval-piles: --endgames is at least 1")
    def progress(g, t):
        if g % 10 == 9:
            print(f"  game {g + 1}/{args.endgames}: announced {t.announced} ({t.wrong} wrong), asked {t.asked}",
                  file=sys.stderr)

    t = check(args.seed, args.endgames, args.stacked, progress=progress)
    print(f"seed {args.seed}: {t.games} end-games; results announced {t.announced} ({t.wrong} wrong), "
          f"trays asked in {t.asked}")
    _mistakes(t.mistakes, args.mistakes)
    return 0


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}" if whole else "-"


def _mistakes(mistakes: list[str], n: int) -> None:
    if mistakes and n > 0:
        print(f"\n{len(mistakes)} mistakes; the first {min(n, len(mistakes))}:")
        for line in mistakes[:n]:
            print(f"  {line}")
