"""``alchemy-table bench live``: the live pipeline over the recorded sessions (1280 x 960 frames).

Prints, per game: frames per second of ``replay`` (every stage: decoding the JPEG, reading the boards, motion,
stabiliser, table mode, journal with its fsyncs, simulated LEDs and display; without the composed pictures,
then with them), the median and worst number of frames from the hand leaving the table to the commit (the
first frame without the hand counts as 1: the target is at most 3), and any state committed that the
table did not show. The frames are rendered once into ``--frames`` (shared with ``demo``). With ``--viewers N``,
each game is also replayed with the table's page served to N viewers, against none (``assistant.bench.web``).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

GAMES = ("alchimiste", "chaudron", "alchymia", "alchemists")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="alchemy-table bench live", description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", action="append", choices=GAMES, help="only this game (may be repeated)")
    parser.add_argument("--frames", default="demo-output/frames", help="rendered frames cache (default "
                                                                       "demo-output/frames)")
    parser.add_argument("--repeat", type=int, default=2, help="replays per game; the best is kept (default 2)")
    parser.add_argument("--viewers", type=int, default=0, metavar="N",
                        help="also replay with the web page served to N viewers on loopback, against no page "
                             "(frames per second of each and their ratio; the target is 0.9 or more)")
    args = parser.parse_args(argv)
    if args.viewers < 0:
        raise ValueError(f"--viewers: expected a number of viewers >= 0, got {args.viewers}")

    from assistant.sessions import load_session
    from assistant.sessions.play import play_session
    from assistant.sessions.render import render_session

    latencies: list[int] = []
    status = 0
    print(f"{'game':<11} {'frames':>6} {'fps':>6} {'fps+pictures':>12} {'hand->commit median':>20} {'worst':>5} "
          f"{'wrong commits':>13}")
    for game in args.game or GAMES:
        session = load_session(game)
        folder = Path(args.frames) / game
        best = pictured = 0.0
        played = None
        render_session(session, folder)  # once, before anything is timed
        with tempfile.TemporaryDirectory() as tmp:
            for k in range(max(1, args.repeat)):
                t0 = time.perf_counter()
                played = play_session(session, folder, Path(tmp) / f"run{k}", pictures=False)
                best = max(best, played.replayed.frames / (time.perf_counter() - t0))
            t0 = time.perf_counter()
            with_pictures = play_session(session, folder, Path(tmp) / "pictures", pictures=True)
            pictured = with_pictures.replayed.frames / (time.perf_counter() - t0)
        latencies += played.latencies
        median = statistics.median(played.latencies) if played.latencies else float("nan")
        worst = max(played.latencies, default=0)
        status |= bool(played.wrong_commits)
        print(f"{game:<11} {played.replayed.frames:>6} {best:>6.1f} {pictured:>12.1f} {median:>20.1f} {worst:>5} "
              f"{len(played.wrong_commits):>13}")
    if latencies:
        print(f"all games: hand leaving -> commit, median {statistics.median(latencies):.1f} frames, worst "
              f"{max(latencies)} (target: 3) over {len(latencies)} moves")
    if args.viewers:
        from assistant.bench.web import FOOTNOTE, HEADER, compare, print_comparison

        print(f"\nthe web page served to {args.viewers} viewers on loopback, against no page (medians of "
              f"{max(1, args.repeat)} alternating replays each; target ratio >= 0.90):\n{HEADER}")
        for game in args.game or GAMES:
            print_comparison(game, compare(load_session(game), Path(args.frames) / game, args.viewers, args.repeat))
        print(FOOTNOTE)
    return status
