"""Random legal games: the 160 cubes are conserved, every game ends, and the public mode accepts every game
the full-information mode accepts while tracking the same public state."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from assistant.engines.alchimiste import COLOURS, CUBES_PER_COLOUR, Copy, Create, Cubes, Draw, Game, Take
from assistant.engines.alchimiste.simulate import public_action, random_game

MAX_ACTIONS = 2_000


def players(n):
    return [(f"P{i}", COLOURS[i]) for i in range(n)]


def total(cubes_list):
    result = Cubes()
    for cubes in cubes_list:
        result = result + cubes
    return result


def check_conservation(game: Game) -> None:
    screens = total(a.known for a in game.adepts)
    if game.full:
        everything = game.bag_contents + game.reserve + screens + game.in_cauldrons + game.removed
        assert everything == Cubes.each(CUBES_PER_COLOUR)
        assert game.bag == game.bag_contents.total
    # Both modes: each colour is somewhere public or in the pool of unplaced cubes, and the pool is exactly
    # the bag plus the unseen cubes behind the screens.
    assert game.pool + game.reserve + screens + game.in_cauldrons + game.removed == Cubes.each(CUBES_PER_COLOUR)
    assert game.pool.total == game.bag + sum(a.unknown for a in game.adepts)
    counted = game.bag + game.reserve.total + sum(a.count for a in game.adepts)
    assert counted + game.in_cauldrons.total + game.removed.total == 160


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 5), seed=st.integers(0, 2**32 - 1))
def test_random_games_conserve_cubes_and_end(produces, n, seed):
    last, history = random_game(players(n), produces, random.Random(seed), MAX_ACTIONS)
    assert last.over, f"no end after {MAX_ACTIONS} actions"
    assert len(history) % n == 0                      # the game ends at the end of a round
    assert len(last.exhausted) >= 3
    public = Game.new(players(n), produces)
    for before, action in history:
        check_conservation(before)
        check_conservation(public)
        public = public.play(public_action(action))
        after = before.play(action)
        # The public game sees the same table.
        assert (public.reserve, public.bag, public.removed, public.tiles, public.cauldrons) == \
            (after.reserve, after.bag, after.removed, after.tiles, after.cauldrons)
        assert [(a.fame, a.count, a.seals) for a in public.adepts] == [(a.fame, a.count, a.seals) for a in after.adepts]
        assert all(p.known.within(f.known) for p, f in zip(public.adepts, after.adepts, strict=True))
    check_conservation(last)
    assert public.over
    result = last.final()
    assert public.final([a.known for a in last.adepts]) == result
    assert sum(line.total for line in result.lines) >= sum(a.fame for a in last.adepts)


@settings(max_examples=15, deadline=None)
@given(n=st.integers(2, 5), seed=st.integers(0, 2**32 - 1))
def test_legal_actions_agree_with_reason(produces, n, seed):
    """In full information, an action is in legal_actions() exactly when reason() has nothing against it."""
    rng = random.Random(seed)
    _, history = random_game(players(n), produces, rng, MAX_ACTIONS)
    for game, _ in rng.sample(history, min(5, len(history))):
        legal = set(game.legal_actions())
        assert all(game.reason(action) is None for action in legal)
        for _ in range(200):
            candidate = random_candidate(game, rng)
            assert (game.reason(candidate) is None) == (candidate in legal), candidate


def random_candidate(game: Game, rng: random.Random):
    mix = Cubes(tuple(rng.choice((0, 0, 1, 2)) for _ in COLOURS))
    kind = rng.randrange(4)
    if kind == 0:
        return Create(rng.randint(1, 10), mix, rng.randint(1, 10))
    if kind == 1:
        potions = [c for c in game.cauldrons if c.potion is not None]
        cauldron = rng.choice(potions) if potions and rng.random() < 0.8 else game.cauldrons[0]
        paid = cauldron.potion.mix if cauldron.potion and rng.random() < 0.8 else mix
        return Copy(cauldron.number, paid, rng.choice(COLOURS))
    if kind == 2:
        return Take(rng.choice(COLOURS))
    return Draw(2, Cubes.listing(rng.choices(COLOURS, k=2)))
