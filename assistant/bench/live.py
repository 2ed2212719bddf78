"""``alchemy-table bench live``: the live loop over the recorded sessions (1280 x 960 frames), stage by stage.

Per game, the frames are decoded once (``decode``: what a JPEG costs; a Pi camera gives raw frames) and fed
from memory to the real pipeline (simulated LEDs and display, the journal on disk with its fsyncs), timed
stage by stage: ``locate`` (markers, or the cached homography re-checked), ``read`` (every zone and count,
card zones included), ``stabilise`` (motion and the gates), ``table mode``, ``journal``, ``outputs`` (LED
patterns, the display) and, after the run, ``pictures`` (one composed picture per answer, as ``replay``
writes). Medians in ms over the frames that commit nothing, and the ``loop`` per such frame against a
``read`` with marker search of the same frames (the target: at most 1.5 times). Then a replay from the files
gives the frames from the hand leaving the table to the commit (the first frame without the hand counts as
1: the target is at most 3) and any state committed that the table did not show. The frames are rendered
once into ``--frames`` (shared with ``demo``). With ``--viewers N``, each
game is also replayed with the table's page served to N viewers, against none (``assistant.bench.web``).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

GAMES = ("alchimiste", "chaudron", "alchymia", "alchemists")
COLUMNS = ("decode", "locate", "read", "stabilise", "table mode", "journal", "outputs")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="alchemy-table bench live", description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", action="append", choices=GAMES, help="only this game (may be repeated)")
    parser.add_argument("--frames", default="demo-output/frames", help="rendered frames cache (default "
                                                                       "demo-output/frames)")
    parser.add_argument("--repeat", type=int, default=3, help="replays with --viewers (default 3)")
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
    ratios: list[float] = []
    status = 0
    print("medians, ms per frame, over the frames that commit nothing (table mode: per commit; pictures: per "
          "picture)")
    print(f"{'game':<11} {'frames':>6} " + " ".join(f"{c:>10}" for c in COLUMNS)
          + f" {'loop':>7} {'read+markers':>12} {'ratio':>6} {'pictures':>8} {'hand->commit':>12} {'worst':>5} "
            f"{'wrong':>5}")
    for game in args.game or GAMES:
        session = load_session(game)
        rendered = render_session(session, Path(args.frames) / game)  # once, before anything is timed
        figures = measure(session, rendered)
        with tempfile.TemporaryDirectory() as tmp:
            played = play_session(session, rendered.folder, Path(tmp) / "run", pictures=False)
        latencies += played.latencies
        median = statistics.median(played.latencies) if played.latencies else float("nan")
        worst = max(played.latencies, default=0)
        status |= bool(played.wrong_commits)
        ratio = figures["loop"] / figures["read+markers"]
        ratios.append(ratio)
        print(f"{game:<11} {figures['frames']:>6} " + " ".join(f"{figures[c]:>10.1f}" for c in COLUMNS)
              + f" {figures['loop']:>7.1f} {figures['read+markers']:>12.1f} {ratio:>6.2f} {figures['pictures']:>8.0f}"
                f" {median:>12.1f} {worst:>5} {len(played.wrong_commits):>5}")
    if ratios:
        print(f"loop / read with marker search, frames that commit nothing: worst {max(ratios):.2f} (target: at most "
              f"1.5)")
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


def measure(session, rendered) -> dict[str, float]:
    """The stage medians (ms) of one session fed from memory, and the read with marker search of its frames."""
    from assistant.journal import Journal
    from assistant.live.boards import Boards
    from assistant.live.compose import compose
    from assistant.live.outputs import Outputs
    from assistant.live.pipeline import Pipeline
    from assistant.live.replay import commands_beside
    from assistant.live.timing import StageTimes
    from assistant.sessions.render import cards_folder, layout_specs
    from assistant.table import make_mode, mode_class
    from hardware.camera.folder import FolderSource

    def boards() -> Boards:
        return Boards.from_specs(layout_specs(rendered), cards=cards_folder(rendered),
                                 mat_sets=mode_class(session.game).card_mats)

    source = FolderSource(rendered.folder)
    frames, decode = [], []
    while True:
        start = time.perf_counter()
        item = source.read()
        if item is None:
            break
        decode.append(time.perf_counter() - start)
        frames.append(item[1])

    searched = boards()
    read_markers = []
    for frame in frames:
        start = time.perf_counter()
        for board in searched.boards:
            board.reader.locator.invalidate()
        searched.read(frame)
        read_markers.append(time.perf_counter() - start)

    commands = commands_beside(rendered.folder)
    live = boards()
    with tempfile.TemporaryDirectory() as tmp:
        outputs = Outputs.simulated()
        pipeline = Pipeline(session.game, make_mode(session.game, live.layout, session.setup, source="setup"), live,
                            outputs, Journal(Path(tmp) / "game.jsonl"))
        pipeline.start()
        pipeline.times = times = StageTimes()
        loops, pictures = [], []
        answered: list[tuple[int, object]] = []
        for index, frame in enumerate(frames):
            start = time.perf_counter()
            result = pipeline.feed(frame, index / 10)
            if result.step is None:
                loops.append(time.perf_counter() - start)
            else:
                answered.append((index, result.step))
            for command in commands.get(result.index, ()):
                answered.append((index, pipeline.command(command)))
        pipeline.close()
        for index, step in answered:
            if step.events:
                start = time.perf_counter()
                compose(frames[index], live, outputs, step, session.title)
                pictures.append(time.perf_counter() - start)
        outputs.close()
    quiet = [t for t in times.frames if "table mode" not in t]
    committing = [t for t in times.frames if "table mode" in t]
    out = {"frames": len(frames), "decode": ms(decode), "loop": ms(loops), "read+markers": ms(read_markers),
           "pictures": ms(pictures)}
    for name in COLUMNS[1:]:
        pool = committing if name == "table mode" else quiet
        out[name] = ms([t.get(name, 0.0) for t in pool])
    return out


def ms(seconds: list[float]) -> float:
    return 1000 * statistics.median(seconds) if seconds else float("nan")
