"""``alchemy-table bench alchemists``: the deduction aid's speed over all 40,320 assignments.

Prints the median time of the posterior (which assignments survive, the probability of every
ingredient-alchemical pair, the certain ingredients) with 30 facts (target: under 50 ms), and of the
next-mix suggestion with those facts and with no facts at all (every assignment still possible: the
suggestion's worst case). Options (after ``--``): ``--facts N`` (default 30), ``--repeat N`` (default 50), ``--seed N``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from assistant.engines import alchemists as al
from assistant.engines.alchemists import solver

TARGET_MS = 50.0


def player_facts(rng: random.Random, truth: al.Assignment, count: int) -> list[al.Fact]:
    """Facts such as one player gathers in a game: tests, sales, debunks, signs seen across the table."""
    facts: list[al.Fact] = []
    while len(facts) < count:
        a, b = rng.sample(al.INGREDIENTS, 2)
        potion = al.brew(truth, a, b)
        kind = rng.choice(["mix", "sign", "sell", "debunk"])
        if kind == "mix" or (kind == "sign" and potion.neutral):
            facts.append(al.mixed(a, b, potion))
        elif kind == "sign":
            facts.append(al.mixed(a, b, al.with_sign(potion.sign)))
        elif kind == "sell":
            wanted = rng.choice(al.POTIONS[:-1])
            facts.append(al.sold(a, b, wanted, al.quality_reached(wanted, potion)))
        else:
            colour = rng.choice(al.COLOURS)
            facts.append(al.AspectFact(a, colour, truth[a].sign(colour)))
    return facts


def _median_ms(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return 1000 * statistics.median(times)


def posterior(facts: list[al.Fact]) -> al.Deduction:
    deduction = al.deduce(facts)
    _ = deduction.probabilities, deduction.certain
    return deduction


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="alchemy-table bench alchemists")
    parser.add_argument("--facts", type=int, default=30)
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--seed", type=int, default=6)
    args = parser.parse_args(argv)
    rng = random.Random(args.seed)

    start = time.perf_counter()
    solver.tables()
    build_ms = 1000 * (time.perf_counter() - start)
    truth = al.Assignment.from_index(rng.randrange(al.GAMES))
    facts = player_facts(rng, truth, args.facts)
    deduction = posterior(facts)
    nothing = al.deduce([])

    post_ms = _median_ms(lambda: posterior(facts), args.repeat)
    suggest_ms = _median_ms(lambda: al.suggest_mix(deduction), args.repeat)
    suggest_all_ms = _median_ms(lambda: al.suggest_mix(nothing), args.repeat)
    both_ms = _median_ms(lambda: al.suggest_mix(posterior(facts)), args.repeat)

    print(f"tables (permutations, mixing, pair potions), built once: {build_ms:.1f} ms")
    print(f"{args.facts} facts leave {deduction.remaining} of {al.GAMES} assignments "
          f"(true one kept: {bool(deduction.mask[truth.index])}); medians over {args.repeat} runs:")
    rows = [(f"posterior, {args.facts} facts", post_ms, True),
            (f"next-mix suggestion, {args.facts} facts", suggest_ms, False),
            (f"next-mix suggestion, no facts ({al.GAMES} left)", suggest_all_ms, False),
            (f"posterior + suggestion, {args.facts} facts", both_ms, True)]
    for label, ms, targeted in rows:
        verdict = f"  (target < {TARGET_MS:.0f} ms: {'met' if ms < TARGET_MS else 'MISSED'})" if targeted else ""
        print(f"  {label:<44} {ms:8.2f} ms{verdict}")
    return 0
