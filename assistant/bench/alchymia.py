"""Alchymia turn checker: median time to explain (or refuse) a turn read by the camera.

The position: 5 players, mid-game boards from games played by the engine's greedy player; the player to
check holds four crystals (Earth, Air, Water, Time: the most powers a player can hold while the game goes
on, since the fifth wins it) and another player holds the fifth, so five crystals are held on the table; he
plays the 4-potion card G W B R, whose every potion then has an advanced power (Attraction, Dispersion,
Purification, Inversion) besides Integration and Extraction. Legal turns are drawn by the engine's move
generator; "refused" turns are those same turns with one position of one board changed at random (most
become impossible, some stay explainable). Target: median under 20 ms.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from dataclasses import replace

from assistant.decks.alchymia import load_deck
from assistant.engines.alchymia import COLOURS, AlchymiaError, Element, Game, PotionCard, Table, Turn, check_turn
from assistant.engines.alchymia.moves import play_out, random_use

CARD = PotionCard("bench", "GWBR")
HELD = (Element.EARTH, Element.AIR, Element.WATER, Element.TIME)
TARGET_MS = 20.0


def positions(count: int, rng: random.Random) -> list[Table]:
    """Mid-game tables of 5-player games, the player 0 holding the four crystals of HELD."""
    deck = load_deck()
    by_element = {card.element: card for stack in deck.crystals for card in stack}
    tables: list[Table] = []
    seed = 0
    while len(tables) < count:
        game = Game.new(deck, [f"P{i}" for i in range(5)], seed=f"bench-{seed}")
        seed += 1
        for k, (g, _, _) in enumerate(play_out(game, rng, max_turns=80)):
            if k >= 20 and k % 10 == 0 and len(tables) < count:
                crystals = [(), (by_element[Element.FIRE],), (), (), ()]
                crystals[0] = tuple(by_element[e] for e in HELD)
                tables.append(replace(g.table, crystals=tuple(crystals), stacks=deck.crystals))
    return tables


def legal_turn(table: Table, rng: random.Random) -> Table | None:
    """The table after a random legal turn of player 0 with CARD (uses drawn by the move generator)."""
    current, uses = table, []
    potions = list(CARD.potions)
    rng.shuffle(potions)
    for colour in potions[:rng.randint(1, len(potions))]:
        use = random_use(current, 0, colour, rng)
        if use is None:
            continue
        uses.append(use)
        current = current.apply(0, use)
        if current.completions(0):
            break
    try:
        return table.play_uses(0, Turn(CARD, tuple(uses)))[0]
    except AlchymiaError:
        return None


def corrupt(boards, rng: random.Random):
    boards = [list(b) for b in boards]
    p = rng.randrange(len(boards))
    board = boards[p][0]
    i = rng.randrange(len(board.cells))
    choices = [c for c in (None, *COLOURS) if c is not board.cells[i]]
    boards[p][0] = board.put(board.name(i), rng.choice(choices))
    return boards


def timed(table: Table, boards) -> tuple[float, bool]:
    start = time.perf_counter()
    try:
        check_turn(table, 0, boards, CARD)
        ok = True
    except AlchymiaError:
        ok = False
    return (time.perf_counter() - start) * 1000, ok


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="alchemy-table bench alchymia", description=__doc__.split("\n")[0])
    parser.add_argument("--positions", type=int, default=30, help="mid-game positions (default 30)")
    parser.add_argument("--turns", type=int, default=10, help="turns checked per position (default 10)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)
    tables = positions(args.positions, rng)
    legal, wrong, refused, missed = [], [], 0, 0
    for table in tables:
        for _ in range(args.turns):
            after = legal_turn(table, rng)
            if after is None:
                continue
            ms, ok = timed(table, after.boards)
            legal.append(ms)
            missed += not ok
            ms, ok = timed(table, corrupt(after.boards, rng))
            wrong.append(ms)
            refused += not ok
    print(f"5 players, card {CARD.letters}, player holding {', '.join(e.value for e in HELD)} "
          f"(5 crystals held on the table); {len(tables)} positions")
    for name, times in (("legal turns", legal), ("one position changed", wrong)):
        times = sorted(times)
        print(f"  {name:<22} n={len(times):<4} median {statistics.median(times):6.2f} ms   "
              f"p90 {times[int(0.9 * (len(times) - 1))]:6.2f} ms   max {times[-1]:7.2f} ms")
    median = statistics.median(legal)
    print(f"  legal turns explained: {len(legal) - missed}/{len(legal)}; changed boards refused: "
          f"{refused}/{len(wrong)}")
    print(f"  median {median:.2f} ms against a target of {TARGET_MS:.0f} ms: ratio {median / TARGET_MS:.3f} "
          f"({'met' if median < TARGET_MS else 'NOT met'})")
    return 0 if missed == 0 else 1
