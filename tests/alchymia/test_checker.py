"""The turn checker: it explains every legal turn and refuses every board no power could produce.

Two sources of truth: random games played by the engine's own move generator (every turn must be
explained), and, on small 2 x 2 boards, an exhaustive enumeration of every sequence of power uses the engine
allows (the checker must accept exactly the boards that enumeration reaches).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace
from itertools import combinations, permutations

import pytest

from assistant.decks.alchymia import load_deck
from assistant.engines.alchymia import (
    COLOURS,
    ELEMENTS,
    AlchymiaError,
    Board,
    CrystalCard,
    Deck,
    Dispersion,
    Element,
    Game,
    Integration,
    PotionCard,
    Purification,
    Spot,
    Table,
    Turn,
    check_turn,
    powers_for,
)
from assistant.engines.alchymia.moves import other_spots, own_spots, play_out, uses
from assistant.engines.alchymia.powers import DISPERSION, PURIFICATION


# random games ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("players, seed, expert", [(5, 1, False), (3, 2, False), (2, 3, False), (4, 4, True),
                                                   (2, 5, True)])
def test_every_turn_of_a_random_game_is_explained(players, seed, expert):
    game = Game.new(load_deck(), [f"P{i}" for i in range(players)], seed=seed, expert=expert)
    rng = random.Random(seed)
    checked = taken = 0
    for before, turn, passing in play_out(game, rng, max_turns=90):
        if passing:
            continue
        player = before.to_move
        read, done = before.table.play_uses(player, turn)
        found = check_turn(before.table, player, read.boards, turn.card, swapped=turn.swap_with is not None)
        after, cards = before.table.play(player, turn)
        assert found.table == after and found.taken == cards
        # the camera may also read the boards once the player has cleared his completed board
        if done:
            again = check_turn(before.table, player, after.boards, turn.card, took=[c.element for c in cards])
            assert again.table == after
            taken += 1
        checked += 1
    assert checked > 50 and taken > 0


# exhaustive enumeration on small boards ----------------------------------------------------------------
SMALL = Deck(2, 2, tuple(
    (CrystalCard(f"{e.value}-1", e, Board.parse(s)),)
    for e, s in zip(ELEMENTS, ["G. .G", "W. ..", "BB ..", "Y. .R", "R. .."], strict=True)), ())


def every_use(table: Table, player: int, colour):
    for power in powers_for(colour, table.elements(player), table.expert):
        if power == DISPERSION:
            spots = own_spots(table, player)
            stones = tuple(table.cell(s) for s in spots)
            for arrangement in arrangements(stones):
                if arrangement == stones:
                    continue
                lifted = [s for s, a, b in zip(spots, stones, arrangement, strict=True) if a is not None and a != b]
                placed = [s for s, a, b in zip(spots, stones, arrangement, strict=True) if b is not None and a != b]
                moves = []
                for s in lifted:
                    t = next(t for t in placed if arrangement[spots.index(t)] is table.cell(s))
                    placed.remove(t)
                    moves.append((s, t))
                yield Dispersion(tuple(moves))
        elif power == PURIFICATION:
            full = [s for s in own_spots(table, player) if table.cell(s) is not None]
            free = [s for s in other_spots(table, player) if table.cell(s) is None]
            for k in range(1, len(full) + 1):
                for sent in combinations(full, k):
                    for places in permutations(free, k):
                        yield Purification(tuple(zip(sent, places, strict=True)))
        else:
            yield from uses(table, player, colour, power)


def arrangements(stones: tuple) -> set[tuple]:
    """Every arrangement of the same stones on the same positions."""
    out = {()}
    for _ in stones:
        out = {(*a, s) for a in out for s in set(stones) if ((*a, s)).count(s) <= stones.count(s)}
    return out


def reachable(table: Table, player: int, card: PotionCard) -> set:
    """Every tuple of boards the camera could read after a legal turn with ``card`` (before and after a
    completed board is cleared)."""
    out = set()
    starts = [table]
    if not (table.expert and Element.AIR in table.elements(player)):
        full = tuple(b for b, board in enumerate(table.boards[player]) if not board.is_empty)
        starts += [table.emptied(player, (b,)) for b in full] + ([table.emptied(player, full)] if len(full) > 1 else [])
    seen = set()
    frontier = [(start, tuple(sorted(card.potions)), 0) for start in starts]
    while frontier:
        state, left, used = frontier.pop()
        for colour in set(left):
            rest = list(left)
            rest.remove(colour)
            for use in every_use(state, player, colour):
                new = state.apply(player, use)
                key = (new, tuple(rest))
                if key in seen:
                    continue
                seen.add(key)
                done = new.completions(player)
                if new.boards != table.boards:
                    out.add(new.boards)
                    if done:
                        out.add(new.taking(player, done).boards)
                if rest and not done:
                    frontier.append((new, tuple(rest), used + 1))
    return out


def small_table(rng: random.Random, players: int = 3) -> Table:
    table = Table.new([f"P{i}" for i in range(players)], SMALL, expert=rng.random() < 0.3)
    boards = []
    for boards_of in table.boards:
        boards.append(tuple(Board(2, 2, tuple(rng.choice([None, None, *COLOURS]) for _ in range(4)))
                            for _ in boards_of))
    held = [e for e in ELEMENTS if rng.random() < 0.5]
    crystals = tuple(tuple(SMALL.stack(e)[0] for e in held) if p == 0 else () for p in range(players))
    reserve = tuple(rng.randint(0, 2) for _ in COLOURS)
    return replace(table, boards=tuple(boards), crystals=crystals, reserve=reserve)


def neighbours(boards, rng: random.Random, count: int):
    """Boards one or two positions away from ``boards`` (most of them no turn can produce)."""
    for _ in range(count):
        new = [list(b) for b in boards]
        for _ in range(rng.randint(1, 2)):
            p = rng.randrange(len(new))
            b = rng.randrange(len(new[p]))
            i = rng.randrange(4)
            board = new[p][b]
            new[p][b] = board.put(board.name(i), rng.choice([None, *COLOURS]))
        yield tuple(tuple(b) for b in new)


@pytest.mark.parametrize("seed", range(12))
def test_checker_accepts_exactly_what_the_powers_can_produce(seed):
    rng = random.Random(seed)
    table = small_table(rng, players=3 if seed % 3 else 2)
    letters = "".join(rng.choice("GWBYR") for _ in range(rng.randint(1, 3 if seed % 3 else 2)))
    card = PotionCard("c", letters)
    legal = reachable(table, 0, card)
    for boards in legal:
        check_turn(table, 0, boards, card)  # raises if a legal turn is not explained
    tried = refused = 0
    for boards in {b for legal_boards in list(legal)[:30] for b in neighbours(legal_boards, rng, 4)} - legal:
        tried += 1
        try:
            check_turn(table, 0, boards, card)
        except AlchymiaError:
            refused += 1
        else:
            pytest.fail(f"explained boards no power can produce: {boards}")
    assert tried > 0 and tried == refused


# refusals with a reason ---------------------------------------------------------------------------------
def three_players(*boards: str, reserve=(8, 8, 8, 8, 8), held=(), expert=False) -> Table:
    deck = load_deck()
    table = Table.new(["Ada", "Bea", "Cy"], deck, expert)
    by_element = {c.element: c for stack in deck.crystals for c in stack}
    # stacks whose top cards no test board reproduces by accident
    stacks = tuple(tuple(c for c in stack if c.name.endswith("-5")) for stack in deck.crystals)
    return replace(table, boards=tuple((Board.parse(b),) for b in boards), reserve=reserve, stacks=stacks,
                   crystals=(tuple(by_element[e] for e in held), (), ()))


def read(*boards: str):
    return tuple((Board.parse(b),) for b in boards)


def test_a_stone_from_nowhere_is_refused():
    table = three_players("... ... ...", "... ... ...", "... ... ...", reserve=(0, 8, 8, 8, 8))
    with pytest.raises(AlchymiaError, match="more green stones on the boards than before, and the reserve had only 0"):
        check_turn(table, 0, read("G.. ... ...", "... ... ...", "... ... ..."), "G")


def test_an_opponent_board_that_changed_needs_an_advanced_power():
    table = three_players("G.. ... ...", "R.. ... ...", "... ... ...")
    with pytest.raises(AlchymiaError, match="Bea's board changed"):
        check_turn(table, 0, read("GR. ... ...", "... ... ...", "... ... ..."), "GR")
    found = check_turn(replace(table, crystals=((load_deck().crystals[0][0],), (), ())), 0,
                       read("GR. ... ...", "... ... ...", "... ... ..."), "GR")
    assert [u.power for u in found.uses] == ["Attraction"]


def test_a_board_that_did_not_change_is_refused():
    table = three_players("G.. ... ...", "... ... ...", "... ... ...")
    with pytest.raises(AlchymiaError, match="nothing changed"):
        check_turn(table, 0, table.boards, "GY")


def test_moved_stones_need_a_dispersion():
    table = three_players("G.. ... ...", "... ... ...", "... ... ...")
    after = read("... .G. ...", "... ... ...", "... ... ...")
    with pytest.raises(AlchymiaError, match="stones moved on your board"):
        check_turn(table, 0, after, "Y")
    found = check_turn(table, 0, after, "GG")  # an Extraction and an Integration do it too
    assert sorted(u.power for u in found.uses) == ["Extraction", "Integration"]
    air = three_players("G.. ... ...", "... ... ...", "... ... ...", held=(Element.AIR,))
    assert [u.power for u in check_turn(air, 0, after, "W").uses] == ["Dispersion"]


def test_too_many_changes_for_the_card_are_refused():
    table = three_players("... ... ...", "... ... ...", "... ... ...")
    with pytest.raises(AlchymiaError, match=r"no use of the card's potions \(G G\)"):
        check_turn(table, 0, read("GGG ... ...", "... ... ...", "... ... ..."), "GG")
    assert len(check_turn(table, 0, read("GGG ... ...", "... ... ...", "... ... ..."), "GGG").uses) == 3


def test_a_reserve_reading_that_does_not_add_up_is_refused():
    table = three_players("... ... ...", "... ... ...", "... ... ...")
    with pytest.raises(AlchymiaError, match="the reserve should hold 7 green, the reading says 8"):
        check_turn(table, 0, read("G.. ... ...", "... ... ...", "... ... ..."), "G", reserve_after=(8, 8, 8, 8, 8))


def test_the_expert_earth_holder_cannot_have_swapped():
    table = three_players("... ... ...", "... ... ...", "... ... ...", held=(Element.EARTH,), expert=True)
    after = read("G.. ... ...", "... ... ...", "... ... ...")
    assert check_turn(table, 0, after, "G")
    with pytest.raises(AlchymiaError, match="may no longer swap"):
        check_turn(table, 0, after, "G", swapped=True)


def test_an_emptied_board_is_part_of_the_explanation():
    table = three_players("GWB ... ...", "... ... ...", "... ... ...")
    found = check_turn(table, 0, read("... .R. ...", "... ... ...", "... ... ..."), "R")
    assert found.emptied == (0,) and [u.power for u in found.uses] == ["Integration"]
    expert = three_players("GWB ... ...", "... ... ...", "... ... ...", held=(Element.AIR,), expert=True)
    with pytest.raises(AlchymiaError):
        check_turn(expert, 0, read("... .R. ...", "... ... ...", "... ... ..."), "R")


def test_a_completion_read_before_or_after_the_board_is_cleared():
    deck = load_deck()
    earth = next(c for c in deck.stack(Element.EARTH) if c.name == "earth-1")  # G.. .G. ..G
    table = replace(three_players("..G .G. ...", "... ... ...", "... ... ..."),
                    stacks=((earth,), *load_deck().crystals[1:]))
    for after in (read("..G .G. G..", "... ... ...", "... ... ..."),   # a quarter turn of the structure
                  read("... ... ...", "... ... ...", "... ... ...")):  # cleared by the player
        found = check_turn(table, 0, after, "GY", took=[Element.EARTH])
        assert found.taken == (earth,) and found.table.boards[0][0].is_empty
        assert found.table.crystals[0] == (earth,) and found.table.top(Element.EARTH) is None


def test_the_explanation_is_legal_and_in_words():
    table = three_players("G.. ... ...", "... ... ...", "... ... ...")
    found = check_turn(table, 0, read("G.. .Y. ...", "... ... ...", "... ... ..."), "GY")
    assert found.uses == (Integration(COLOURS[3], Spot(0, 0, "r1c1")),)
    assert found.lines(table) == ["Integration: yellow onto Ada r1c1"]
    assert table.play(0, Turn(PotionCard("c", "GY"), found.uses))[0] == found.table


def test_potions_counted_once():
    table = three_players("... ... ...", "... ... ...", "... ... ...")
    assert Counter(u.potion for u in check_turn(table, 0, read("GY. ... ...", "... ... ...", "... ... ..."),
                                                "GYY").uses) == Counter({COLOURS[0]: 1, COLOURS[3]: 1})
