"""``alchemy-table demo``: what ``make demo`` runs.

For each game, its recorded session (``assistant/sessions/data/<game>.json``) is rendered into camera
frames (``OUT/frames/<game>/``, reused on later runs) and played through the real pipeline: the vision
reads every frame, the stabiliser waits for the hands to leave, the table mode checks each move, the
journal keeps it, and the simulated LEDs and display answer. The events are printed as they happen and
one composed picture per event goes to ``OUT/<game>/``. The plans of the board layouts are drawn to
``OUT/layout-<name>.png`` too.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from assistant.cli.layout import summary
from calibration.layout import default_layouts, load_layout
from calibration.plan import draw_plan

GAMES = ("alchimiste", "chaudron", "alchymia", "alchemists")
PLAYERS_WAIT_S = 120.0


def register(sub) -> None:
    p = sub.add_parser("demo", help="run the demo (what 'make demo' runs), writing pictures to demo-output/")
    p.add_argument("--out", default="demo-output", help="folder for the pictures (default demo-output)")
    p.add_argument("--game", choices=GAMES, action="append",
                   help="play only this game's session (may be repeated; default: all four)")
    p.add_argument("--workers", type=int, default=2, metavar="N",
                   help="processes rendering the frames the first time (default 2)")
    p.add_argument("--web", metavar="[HOST:]PORT",
                   help="serve the table's page: the sessions play at their own pace (the Alchemists one "
                        "waits for a player at the scanner, at most two minutes), and the last game's page stays "
                        "up until Ctrl-C")
    p.set_defaults(run=run)


def run(args) -> int:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for name in default_layouts():
        layout = load_layout(name)
        print(summary(layout))
        path = out / f"layout-{name}.png"
        draw_plan(layout).save(path)
        print(f"  plan drawn to {path}\n")
    status = 1
    began = time.perf_counter()
    hub = server = None
    if args.web:
        from assistant.web import Hub
        from assistant.web.serve import start

        hub = Hub(calibration=out / "calibration.json", cards=out / "cards")
        server = start(args.web, hub, out, lambda m: print(f"alchemy-table: {m}", file=sys.stderr, flush=True))
    try:
        status = _play(args, out, hub, server.url if server is not None else "")
    except KeyboardInterrupt:
        print("alchemy-table: stopping", file=sys.stderr)
    finally:
        if server is not None:
            server.stop()
    print(f"demo done in {time.perf_counter() - began:.0f} s; pictures in {out}/")
    return status


def _play(args, out: Path, hub, url: str = "") -> int:
    from assistant.live.run import print_step
    from assistant.sessions import load_session
    from assistant.sessions.play import play_session

    status = 0
    games = args.game or GAMES
    for game in games:
        session = load_session(game)
        print(f"== {session.title}", flush=True)
        t0 = time.perf_counter()

        def rendering(done: int, total: int, game: str = game) -> None:
            if sys.stderr.isatty():
                print(f"\rrendering the frames: {done}/{total} pictures", end="" if done < total else "\n",
                      file=sys.stderr, flush=True)
            elif done == total:
                print(f"rendered {total} pictures into {out / 'frames' / game}", file=sys.stderr, flush=True)

        played = play_session(session, out / "frames" / game, out / game, workers=max(1, args.workers),
                              on_step=print_step, render_progress=rendering, web=hub, realtime=hub is not None,
                              hold=hub is not None and game == games[-1],
                              wait=_players(hub, url) if hub is not None and game == "alchemists" else None)
        took = time.perf_counter() - t0
        frames = played.replayed.frames
        events = sum(len(s.events) for s in played.replayed.pipeline.steps)
        print(f"   {frames} frames{' (reused)' if played.rendered.reused else ''}, {events} events, "
              f"{len(played.replayed.pictures)} pictures in {out / game} ({took:.0f} s)")
        for problem in played.mismatches + played.wrong_commits:
            print(f"   NOT AS SCRIPTED: {problem}")
            status = 1
        print()
    return status


def _players(hub, url: str):
    """The Alchemists session waits after its first frame until a player is at the scanner (or two minutes):
    its scans played at their own pace would be over before anyone could join from a phone."""
    deadline: list[float] = []

    def waiting() -> bool:
        if not deadline:  # the game is on the table now: players join it
            deadline.append(time.monotonic() + PLAYERS_WAIT_S)
            print(f"   players: open {url}player and join with a code (the game page's 'Show a join code on the "
                  f"table'), then press 'I am at the scanner'; the session starts then, or in "
                  f"{PLAYERS_WAIT_S / 60:.0f} minutes", flush=True)
        return hub.players.scanner_name() is None and time.monotonic() < deadline[0]

    return waiting
