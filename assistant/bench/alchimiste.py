"""``alchemy-table bench alchimiste [--games N] [--seed S]``: the Alchimiste engine's speed.

Plays N random legal games per player count (full information), then replays each one: in full
information, in the public mode, and as ``reason()`` checks only. Prints medians per action and per game,
and the cost of listing the legal actions and of the end-game referee.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from itertools import combinations

from assistant.engines.alchimiste import COLOURS, Cubes, EndPlayer, Game, score_endgame
from assistant.engines.alchimiste.simulate import public_action, random_game


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="alchemy-table bench alchimiste")
    parser.add_argument("--games", type=int, default=40, help="random games per player count (default 40)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    # The default layout's Compendium (the ten pairs of colours); engines take plain data, not layouts.
    produces = list(combinations(COLOURS, 2))
    print(f"{'adepts':>6}  {'actions/game':>12}  {'play us/action':>14}  {'public us/action':>16}  "
          f"{'reason us':>9}  {'legal_actions ms':>16}  {'games/s':>7}")
    for n in range(2, 6):
        players = [(f"P{i}", COLOURS[i]) for i in range(n)]
        rng = random.Random(args.seed + n)
        games = [random_game(players, produces, rng) for _ in range(max(1, args.games))]
        lengths, full_us, public_us, reason_us, listing_ms, per_game = [], [], [], [], [], []
        for last, history in games:
            lengths.append(len(history))
            start = time.perf_counter()
            game = history[0][0]
            for _, action in history:
                game = game.play(action)
            elapsed = time.perf_counter() - start
            full_us.append(elapsed / len(history) * 1e6)
            per_game.append(elapsed)
            start = time.perf_counter()
            game = Game.new(players, produces)
            for _, action in history:
                game = game.play(public_action(action))
            public_us.append((time.perf_counter() - start) / len(history) * 1e6)
            start = time.perf_counter()
            for before, action in history:
                before.reason(action)
            reason_us.append((time.perf_counter() - start) / len(history) * 1e6)
            start = time.perf_counter()
            for before, _ in history[:5]:
                sum(1 for _ in before.legal_actions())
            listing_ms.append((time.perf_counter() - start) / min(5, len(history)) * 1e3)
            assert last.over
        print(f"{n:>6}  {statistics.median(lengths):>12.0f}  {statistics.median(full_us):>14.1f}  "
              f"{statistics.median(public_us):>16.1f}  {statistics.median(reason_us):>9.1f}  "
              f"{statistics.median(listing_ms):>16.2f}  {1 / statistics.median(per_game):>7.0f}")
    table = [EndPlayer(f"P{i}", COLOURS[i], 40 + i, Cubes.of({COLOURS[i]: 3})) for i in range(5)]
    runs = []
    for _ in range(2000):
        start = time.perf_counter()
        score_endgame(table, Cubes.each(2))
        runs.append(time.perf_counter() - start)
    print(f"referee (5 adepts): median {statistics.median(runs) * 1e6:.1f} us per end-game table")
    print("(play/public: replaying a recorded game; games/s: full-information replays of whole games; "
          "legal_actions: listing every legal action in the first 5 states of a game, ~2,500 creations each)")
    return 0
