"""``alchemy-table run``: the live assistant over the configured camera, LEDs, display and buttons.

The journal is kept in ``table.state_dir`` (``game.jsonl``); ``--resume`` carries on the game in it after a
restart or a power cut. Everything else comes from the configuration (``alchemy-table config show``).
"""

from __future__ import annotations

import sys

from assistant.config import GAMES, add_arguments, from_args


def register(sub) -> None:
    p = sub.add_parser("run", help="the live assistant: camera -> pieces read -> rules checked -> LEDs and display",
                       description="Watch the table with the configured camera, check every move against the "
                                   "game's rules and answer on the LEDs and the display. Ctrl-C or SIGTERM stops "
                                   "it cleanly.")
    p.add_argument("--game", choices=GAMES, help="the game on the table (default: table.game; with --resume, the "
                                                 "journal's)")
    p.add_argument("--resume", action="store_true",
                   help="carry on the game in the journal (after a restart or a power cut); a new game if none")
    p.add_argument("--setup", metavar="FILE", help="the game's set-up, JSON (docs/table-<game>.md)")
    p.add_argument("--layout", action="append", metavar="[NAME=]LAYOUT",
                   help="board layout (default: the game's); several boards: NAME=LAYOUT each (Alchymia); a "
                        "card mat (chaudron-potions, alchymia-crystals) is one more --layout")
    p.add_argument("--calibration", metavar="CAL.json", action="append",
                   help="colour and camera calibration (calibrate colours); default: calibration.file; again for a "
                        "card mat enrolled empty (calibrate board), one file per layout")
    p.add_argument("--realtime", action="store_true",
                   help="over a recorded source (camera.source folder or video), read the frames at their own pace")
    p.add_argument("--cards", metavar="DIR", help="enrolled cards for card zones (default: STATE_DIR/cards if "
                                                 "present)")
    p.add_argument("--journal", metavar="FILE", help="journal file (default: STATE_DIR/game.jsonl)")
    p.add_argument("--web", metavar="[HOST:]PORT", help="serve the table's page on this port (all addresses) or "
                                                       "HOST:PORT (default: web.listen, 8080; \"\" for none)")
    add_arguments(p)
    p.set_defaults(run=run)


def run(args) -> int:
    from assistant.live.run import run as run_live

    config = from_args(args)
    calibration = args.calibration or ([config["calibration.file"]] if config["calibration.file"] else [])
    return run_live(config, game=args.game, resume_game=args.resume, setup_path=args.setup,
                    layout_specs=args.layout, calibration=calibration,
                    journal_override=args.journal,
                    realtime=args.realtime, cards=args.cards, web=args.web,
                    say=lambda message: print(f"alchemy-table: {message}", file=sys.stderr, flush=True))
