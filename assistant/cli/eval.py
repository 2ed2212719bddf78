"""``alchemy-table eval DIR``: read every rendered frame in DIR and score it against its ground truth,
per lighting condition (the rules of the score are in ``vision.evaluate``)."""

from __future__ import annotations

import json
from pathlib import Path

from calibration.store import load_calibration
from vision.evaluate import evaluate, format_table


def register(sub) -> None:
    p = sub.add_parser("eval", help="score the reading of rendered frames against their ground truth",
                       description="Per lighting: zones wrong %%, zones unread %%, boards fully right %%, "
                                   "counts exact %% and worst count error, board found %%.")
    p.add_argument("folder", metavar="DIR", help="frames (.png/.jpg) each with its truth .json")
    p.add_argument("--calibration", metavar="CAL.json", action="append", default=[],
                   help="calibration file; repeat for several layouts (each applies to its own layout)")
    p.add_argument("--json", action="store_true", help="print the table as JSON")
    p.add_argument("--mistakes", type=int, default=10, metavar="N", help="list the first N mistakes (default 10)")
    p.set_defaults(run=run)


def run(args) -> int:
    calibrations = {}
    for path in args.calibration:
        cal = load_calibration(path)
        calibrations[cal.layout] = cal
    tallies = evaluate(Path(args.folder), calibrations)
    if args.json:
        print(json.dumps({name: t.row() for name, t in tallies.items()}, indent=2))
        return 0
    print(format_table(tallies))
    mistakes = tallies["all"].mistakes
    if mistakes and args.mistakes > 0:
        print(f"\n{len(mistakes)} mistakes; the first {min(len(mistakes), args.mistakes)}:")
        for line in mistakes[:args.mistakes]:
            print(f"  {line}")
    return 0
