"""``alchemy-table replay SOURCE --game GAME``: a recorded image folder or video through the live pipeline.

Simulated LEDs and display; writes one composed picture per answer of the table that carries events
(annotated frame, LED strip, display, events), ``events.jsonl`` and the journal ``journal.jsonl`` to
``--out``, and prints the events as they happen (a progress bar on stderr). A folder rendered from a
recorded session (``demo``) carries its set-up, boards and button presses, which are used unless given.
"""

from __future__ import annotations

import sys
from pathlib import Path

from assistant.config import GAMES
from calibration import files


def register(sub) -> None:
    p = sub.add_parser("replay", help="play an image folder or a video through the assistant (simulated LEDs "
                                      "and display), one picture per event",
                       description=__doc__.split("\n\n")[1].replace("\n", " "))
    p.add_argument("source", metavar="SOURCE", help="image folder or video file")
    p.add_argument("--game", required=True, choices=GAMES)
    p.add_argument("--layout", action="append", metavar="[NAME=]LAYOUT",
                   help="board layout (default: the game's); several boards: NAME=LAYOUT each; a card mat "
                        "(chaudron-potions, alchymia-crystals) is one more --layout")
    p.add_argument("--setup", metavar="FILE", help="the game's set-up, JSON (docs/table-<game>.md)")
    p.add_argument("--calibration", metavar="CAL.json", action="append",
                   help="colour and camera calibration; again for a card mat enrolled empty, one file per layout")
    p.add_argument("--cards", metavar="DIR", help="enrolled cards (calibrate cards) for card zones (default: "
                                                 "SOURCE/cards if present)")
    p.add_argument("--commands", metavar="FILE", help="button presses, [{\"frame\": N, \"command\": C}] "
                                                     "(default: SOURCE/commands.json if present)")
    p.add_argument("--out", default="replay-output", metavar="DIR", help="output folder (default replay-output)")
    p.add_argument("--no-pictures", action="store_true", help="only the events log and the journal")
    p.add_argument("--web", metavar="[HOST:]PORT",
                   help="serve the table's page while replaying, at the recording's own pace; the page (and its "
                        "buttons) stays up after the last frame until Ctrl-C")
    p.set_defaults(run=run)


def run(args) -> int:
    from assistant.live.boards import Boards, load_setup
    from assistant.live.replay import (
        Progress,
        commands_beside,
        ensure_empty_or_ours,
        open_recorded,
        read_commands,
        source_length,
    )
    from assistant.live.replay import replay as play
    from assistant.live.run import print_step
    from assistant.table import mode_class

    source_path = Path(args.source)
    manifest = _manifest(source_path)
    if manifest and manifest.get("game") != args.game:
        raise ValueError(f"{source_path}: these frames are a {manifest.get('game')} session, not {args.game}")
    layouts = args.layout or _session_layouts(source_path, manifest) or [args.game]
    setup = load_setup(args.setup) if args.setup else dict(manifest.get("setup", {}))
    commands = read_commands(args.commands) if args.commands else commands_beside(source_path)
    cards = args.cards or (source_path / "cards" if (source_path / "cards").is_dir() else None)
    boards = Boards.from_specs(layouts, args.calibration, cards, mat_sets=mode_class(args.game).card_mats)
    out = Path(args.out)
    ensure_empty_or_ours(out)
    hub = server = None
    if args.web:
        from assistant.web import Hub
        from assistant.web.serve import start

        hub = Hub(calibration=args.calibration[0] if args.calibration else out / "calibration.json",
                  cards=cards or out / "cards")
        server = start(args.web, hub, out, lambda m: print(f"alchemy-table: {m}", file=sys.stderr, flush=True))
    try:
        with open_recorded(source_path) as source:
            for note in boards.unenrolled():  # (once the frames open: an error stays one line)
                print(f"alchemy-table: {note}", file=sys.stderr)
            result = play(source, args.game, boards, setup, out, commands=commands, on_step=print_step,
                          progress=None if hub else Progress(source_length(source)), pictures=not args.no_pictures,
                          title=f"{args.game}: {source_path.name}", web=hub, realtime=hub is not None,
                          hold=hub is not None)
    except KeyboardInterrupt:
        print("alchemy-table: stopping", file=sys.stderr)
        return 0
    finally:
        if server is not None:
            server.stop()
    steps = result.pipeline.steps
    events = sum(len(s.events) for s in steps)
    commits = sum(1 for s in steps if s.kind == "state")
    print(f"{result.frames} frames, {commits} states committed, {events} events; "
          f"{len(result.pictures)} pictures, events.jsonl and journal.jsonl in {out}", file=sys.stderr)
    return 0


def _manifest(source: Path) -> dict:
    path = source / "session.json"
    if not path.is_file():
        return {}
    data = files.load_json(path)
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected an object (the session's manifest)")
    return data


def _session_layouts(source: Path, manifest: dict) -> list[str]:
    if not manifest:
        return []
    from assistant.sessions.render import manifest_layout_specs

    return manifest_layout_specs(source, manifest)
