"""``alchemy-table bench chaudron``: median times of the Chaudron engine's two hot checks.

- concoction: a full 6 x 6 cauldron (random resources, stones included, no empty cell) against 3 revealed
  potions of the sample deck (target: under 1 ms for the three);
- physical move: ``check_move`` on every card of games played by the autoplay with the sample deck, legal
  as played and illegal with one cell of the after-cauldron changed (target: under 50 ms median).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from assistant.decks.chaudron import load_deck
from assistant.engines.chaudron import RESOURCES, Cauldron, Game, check_move, concoctable
from assistant.engines.chaudron.autoplay import play_game
from assistant.engines.chaudron.game import potion_deck, setup_cauldron


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="alchemy-table bench chaudron")
    parser.add_argument("--repeat", type=int, default=2000, help="cauldrons for the concoction check")
    parser.add_argument("--games", type=int, default=6, help="autoplay games for the physical-move check")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    deck = load_deck()
    rng = random.Random(args.seed)

    # Concoction: the three hardest revealed potions a table can hold at once.
    big = sorted(deck.potions, key=lambda p: -p.size)
    potions = [p for p in big if p.rarity != "legendary"][:3]
    weights = [5, 5, 5, 2, 2, 1]  # stones are rare
    times = []
    made = 0
    for _ in range(args.repeat):
        cells = tuple(rng.choices(RESOURCES, weights, k=36))
        t0 = time.perf_counter()
        pot = Cauldron(6, 6, cells)
        found = [concoctable(pot, p) for p in potions]
        times.append(time.perf_counter() - t0)
        made += sum(f is not None for f in found)
    print(f"concoction check, full 6 x 6 cauldron vs 3 potions ({', '.join(p.name for p in potions)}):")
    print(f"  median {statistics.median(times) * 1e3:.3f} ms, p95 {_p95(times) * 1e3:.3f} ms "
          f"over {args.repeat} cauldrons (target < 1 ms); {made / args.repeat:.2f} potions concoctable on average")

    legal, illegal, wrong = [], [], 0
    for g in range(args.games):
        players = 2 + g % 3
        seed = args.seed + g
        _, _start, turns = play_game(list(deck.potions), deck.pile(), players=players, seed=seed)
        r = random.Random(seed)
        game = Game.new(setup_cauldron(r), potion_deck(list(deck.potions), players, r), players)
        for t in turns:
            if t.kind == "reveal":
                game, _ = game.reveal()
                continue
            waiting = [w.potion for w in game.revealed]
            t0 = time.perf_counter()
            verdict = check_move(game.cauldron, t.after, t.card, waiting, game.deck)
            legal.append(time.perf_counter() - t0)
            wrong += not verdict.legal
            bad = _tamper(t.after, rng)
            t0 = time.perf_counter()
            check_move(game.cauldron, bad, t.card, waiting, game.deck)
            illegal.append(time.perf_counter() - t0)
            game, _ = game.play_seen(t.card, t.after)
    print(f"physical-move check over {len(legal)} cards of {args.games} autoplay games:")
    print(f"  legal moves:   median {statistics.median(legal) * 1e3:.2f} ms, p95 {_p95(legal) * 1e3:.2f} ms, "
          f"max {max(legal) * 1e3:.1f} ms (target < 50 ms median); {wrong} wrongly refused")
    print(f"  tampered (one cell changed): median {statistics.median(illegal) * 1e3:.2f} ms, "
          f"p95 {_p95(illegal) * 1e3:.2f} ms, max {max(illegal) * 1e3:.1f} ms")
    return 0 if wrong == 0 else 1


def _p95(values: list[float]) -> float:
    return sorted(values)[int(0.95 * (len(values) - 1))]


def _tamper(pot: Cauldron, rng: random.Random) -> Cauldron:
    i = rng.randrange(len(pot.cells))
    other = rng.choice([label for label in ("empty", *RESOURCES, "burnt") if label != pot.cells[i]])
    return pot.with_cells({divmod(i, pot.cols): other})
