"""``alchemy-table eval DIR``: read every rendered frame in DIR and score it against its ground truth,
per lighting condition (the rules of the score are in ``vision.evaluate``). A table set (``render
--tables``) is calibrated table by table as a new user would, then scored per lighting, per board face
(plain, illustrated), per both and per layout (``vision.evaluate_tables``)."""

from __future__ import annotations

import json
import time
from pathlib import Path

from calibration.store import load_calibration
from vision.cards.evaluate import format_cards
from vision.cards.store import CardLibrary
from vision.evaluate import evaluate, format_table
from vision.evaluate_tables import evaluate_tables, table_folders
from vision.render.card_photos import CARDS


def register(sub) -> None:
    p = sub.add_parser("eval", help="score the reading of rendered frames against their ground truth",
                       description="Per lighting: zones wrong %%, zones unread %%, boards fully right %%, "
                                   "counts exact %% and worst count error, board found %%.")
    p.add_argument("folder", metavar="DIR", help="frames (.png/.jpg) each with its truth .json")
    p.add_argument("--calibration", metavar="CAL.json", action="append", default=[],
                   help="calibration file; repeat for several layouts (each applies to its own layout)")
    p.add_argument("--cards", metavar="DIR", help="cards folder (calibrate cards): card zones are scored too (a table "
                                                  "set's own cards/ by default)")
    p.add_argument("--json", action="store_true", help="print the table as JSON")
    p.add_argument("--mistakes", type=int, default=10, metavar="N", help="list the first N mistakes (default 10)")
    p.set_defaults(run=run)


def run(args) -> int:
    if table_folders(Path(args.folder)):
        return _tables(args)
    calibrations = {}
    for path in args.calibration:
        cal = load_calibration(path)
        calibrations[cal.layout] = cal
    card_tallies: dict = {}
    cards = CardLibrary(args.cards) if args.cards else None
    tallies = evaluate(Path(args.folder), calibrations, cards, card_tallies)
    card_tallies = {k: v for k, v in sorted(card_tallies.items(), key=lambda kv: kv[0] == "all")
                    if v.views + v.strangers}
    if args.json:
        table = {name: t.row() for name, t in tallies.items()}
        if card_tallies:  # card zones (alchemists, chaudron-potions, alchymia-crystals) are scored apart
            table["cards"] = {name: t.row() for name, t in card_tallies.items()}
        print(json.dumps(table, indent=2))
        return 0
    print(format_table(tallies))
    if card_tallies:
        print("\nCard zones:\n" + format_cards(card_tallies))
        if cards is None:
            print("(no --cards folder: card zones can only read empty or unknown)")
    mistakes = tallies["all"].mistakes
    if mistakes and args.mistakes > 0:
        print(f"\n{len(mistakes)} mistakes; the first {min(len(mistakes), args.mistakes)}:")
        for line in mistakes[:args.mistakes]:
            print(f"  {line}")
    return 0


def _tables(args) -> int:
    if args.calibration:
        raise ValueError("--calibration: a table set is calibrated table by table from its own frames")
    start = time.perf_counter()
    card_tallies: dict = {}
    report = evaluate_tables(Path(args.folder), CardLibrary(args.cards) if args.cards else None, card_tallies)
    took = time.perf_counter() - start
    card_tallies = {k: v for k, v in sorted(card_tallies.items(), key=lambda kv: kv[0] == "all")
                    if v.views + v.strangers}
    if args.json:
        cards = {"cards": {name: t.row() for name, t in card_tallies.items()}} if card_tallies else {}
        print(json.dumps({**report.to_dict(), **cards, "seconds": round(took, 1)}, indent=2))
        return 0
    print(f"{report.tables} tables, {report.total.frames} frames, each table calibrated from its own empty board "
          f"and calibration frame\n")
    for group, first in (("lighting", "lighting"), ("board", "board"), ("board_lighting", "board / lighting"),
                         ("layout", "layout")):
        print(format_table({**report.ordered(group), **({"all": report.total} if group == "lighting" else {})},
                           first) + "\n")
    if card_tallies:
        print("Card zones:\n" + format_cards(card_tallies))
        own = (Path(args.folder) / CARDS).is_dir()
        print("(no --cards folder: card zones can only read empty or unknown)\n" if args.cards is None and not own
              else f"(cards: {args.cards or Path(args.folder) / CARDS})\n")
    for note in report.notes:
        print(f"calibration failed: {note}")
    timing = report.timing()
    print(f"read {timing['read_ms_median']} ms a frame (median), calibration {timing['calibrate_s_median']} s a "
          f"table (median); {took:.1f} s in all")
    mistakes = report.total.mistakes
    if mistakes and args.mistakes > 0:
        print(f"\n{len(mistakes)} mistakes; the first {min(len(mistakes), args.mistakes)}:")
        for line in mistakes[:args.mistakes]:
            print(f"  {line}")
    return 0
