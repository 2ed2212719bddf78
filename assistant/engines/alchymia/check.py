"""Checking a physical turn: do the boards after follow from the boards before by the card played?

This is what the table assistant calls when the camera has read every board before and after a player's
turn: given the table before (boards, reserve, crystal stacks, crystals held), the boards after and the
card played, ``check_turn`` returns one explanation (the boards emptied first, if any, and the list of power
uses, with the crystals taken) or raises ``AlchymiaError`` with the reason no explanation exists.

The boards after may be read before or after the player clears a board that completed a crystal: both are
accepted. The reserve after follows from the boards (stones are neither made nor lost); a reading of it may
be given to be checked too. A swap of hands cannot be seen by the camera: say ``swapped=True`` when the
player announced one, so that the expert Earth restriction is applied.

Every explanation is replayed through ``Table.play`` before it is returned, so it obeys every rule the
engine knows (expert restrictions, the 2-player variant, completion stopping the turn).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import product

from .cards import CrystalCard, PotionCard
from .concretize import concretize
from .powers import (
    ATTRACTION,
    INVERSION,
    PURIFICATION,
    Attraction,
    Dispersion,
    Extraction,
    Integration,
    Inversion,
    Purification,
    Spot,
    Transformation,
    Use,
    powers_for,
)
from .search import CODE, Problem
from .stones import COLOURS, AlchymiaError, Board, Colour, Element
from .table import Table, Turn


@dataclass(frozen=True)
class Explanation:
    """One way the turn could have been played."""

    emptied: tuple[int, ...]             # the player's boards emptied at the start of the turn
    uses: tuple[Use, ...]                # the power uses, in order
    taken: tuple[CrystalCard, ...]       # crystal cards completed (and taken)
    table: Table                         # the table after the turn (crystals taken, their boards emptied)

    def lines(self, before: Table) -> list[str]:
        """The explanation as a player would say it."""
        out = [f"empty board {b + 1}" if len(before.boards[0]) > 1 else "empty the board" for b in self.emptied]
        table = before
        out += [describe(table, use) for use in self.uses]
        out += [f"complete {card.name} and take the {card.element} crystal" for card in self.taken]
        return out


def describe(table: Table, use: Use) -> str:
    """One power use in words, e.g. ``Integration: green onto Ada r1c1``."""
    n = table.name_of
    if isinstance(use, Integration):
        return f"Integration: {use.colour} onto {n(use.to)}"
    if isinstance(use, Extraction):
        return f"Extraction: {use.colour} from {n(use.source)}"
    if isinstance(use, Attraction):
        return f"Attraction: {n(use.source)} to {n(use.to)}"
    if isinstance(use, Transformation):
        return f"Transformation: {n(use.at)} becomes {use.colour}"
    if isinstance(use, Inversion):
        return f"Inversion: {n(use.own)} with {n(use.other)}"
    return f"{use.power}: " + ", ".join(f"{n(a)} to {n(b)}" for a, b in use.moves)


def check_turn(before: Table, player: int, after: Sequence[Sequence[Board]], card: PotionCard | str, *,
               swapped: bool = False, took: Iterable[Element] | None = None,
               reserve_after: Sequence[int] | None = None) -> Explanation:
    """Explain how ``player`` went from ``before`` to the boards ``after`` with ``card``.

    ``after`` lists every player's boards as read; ``took`` (if known) the elements of the crystal cards
    the player took; ``reserve_after`` (if read) the stones of each colour in the reserve, in COLOURS order.
    Raises AlchymiaError with the reason when no use of the card's potions explains the change."""
    if isinstance(card, str):
        card = PotionCard("played", card)
    if before.winner is not None:
        raise AlchymiaError(f"the game is over: {before.players[before.winner]} holds the five crystals")
    held = before.elements(player)
    if swapped and before.expert and Element.EARTH in held:
        raise AlchymiaError("expert mode: holding the Earth crystal, you may no longer swap hands")
    after = _boards(before, after)
    res_after = _reserve(before, after, reserve_after)
    wanted = None if took is None else frozenset(Element(e) for e in took)
    starts: list[tuple[int, ...]] = [()]
    if not (before.expert and Element.AIR in held):
        full = tuple(b for b, board in enumerate(before.boards[player]) if not board.is_empty)
        starts += [(b,) for b in full] + ([full] if len(full) > 1 else [])
    codes = {COLOURS.index(c) + 1: {CODE[p] for p in powers_for(c, held, before.expert)} for c in COLOURS}
    potions = [0] * 6
    for colour in card.potions:
        potions[COLOURS.index(colour) + 1] += 1
    dispersion = potions[2] and "D" in codes[2]
    for emptied in starts:
        start = before.emptied(player, emptied) if emptied else before
        for own_end, res_end in _variants(before, player, after, res_after, wanted):
            problem = _problem(start, player, after, own_end, res_end, codes, potions)
            for mode_f in (False, True) if dispersion else (False,):
                for plan in problem.plans(mode_f):
                    steps = concretize(problem, plan, mode_f)
                    if steps is None:
                        continue
                    found = _replay(before, player, card, emptied, steps, after, wanted)
                    if found is not None:
                        return found
    raise AlchymiaError(_reason(before, player, after, card, res_after, codes, potions))


def _boards(before: Table, after: Sequence[Sequence[Board]]) -> tuple[tuple[Board, ...], ...]:
    if len(after) != len(before.players):
        raise AlchymiaError(f"the reading has boards for {len(after)} players, the game has {len(before.players)}")
    out = []
    for p, (old, new) in enumerate(zip(before.boards, after, strict=True)):
        new = tuple(new)
        if len(new) != len(old) or any((a.rows, a.cols) != (b.rows, b.cols) for a, b in zip(old, new, strict=True)):
            raise AlchymiaError(f"the reading of {before.players[p]}'s boards does not match the game's boards")
        out.append(new)
    return tuple(out)


def _reserve(before: Table, after, reading: Sequence[int] | None) -> list[int]:
    """The reserve after, in the search's form (index 0 unused): what the boards leave of each colour."""
    res = [0]
    for k, colour in enumerate(COLOURS):
        on_before = sum(b.count(colour) for boards in before.boards for b in boards)
        on_after = sum(b.count(colour) for boards in after for b in boards)
        left = before.reserve[k] + on_before - on_after
        if left < 0:
            raise AlchymiaError(f"there are {on_after - on_before} more {colour} stones on the boards than before, "
                                f"and the reserve had only {before.reserve[k]}")
        if reading is not None and reading[k] != left:
            raise AlchymiaError(f"the stones do not add up: the reserve should hold {left} {colour}, "
                                f"the reading says {reading[k]}")
        res.append(left)
    return res


def _ints(board: Board) -> list[int]:
    return [0 if c is None else COLOURS.index(c) + 1 for c in board.cells]


def _variants(before: Table, player: int, after, res_after: list[int], wanted):
    """(player's boards at the end of his uses, reserve then): the boards read, or for a board read empty,
    the structure of a crystal he completed and then cleared."""
    options = []
    targets = before.targets(player)
    for board in after[player]:
        choice = [(board, None)]
        if board.is_empty:
            choice += [(turned, card) for card in targets for turned in card.structure.rotations()
                       if (turned.rows, turned.cols) == (board.rows, board.cols)]
        options.append(choice)
    for combo in product(*options):
        cards = [card for _, card in combo if card is not None]
        elements = {card.element for card in cards}
        if len(elements) < len(cards) or (wanted is not None and not elements <= wanted):
            continue
        res = list(res_after)
        for card in cards:
            for _, stone in card.structure.stones():
                res[COLOURS.index(stone) + 1] -= 1
        if min(res) < 0:
            continue
        yield [board for board, _ in combo], res


def _problem(start: Table, player: int, after, own_end, res_end, codes, potions) -> Problem:
    opp_start, opp_end = [], []
    for p, boards in enumerate(start.boards):
        if p != player:
            for a, b in zip(boards, after[p], strict=True):
                opp_start += _ints(a)
                opp_end += _ints(b)
    forbidden = []
    for board in start.boards[player]:
        forbidden.append({tuple(_ints(turned)) for card in start.targets(player)
                          for turned in card.structure.rotations() if (turned.rows, turned.cols) ==
                          (board.rows, board.cols)})
    reserve = [0, *start.reserve]
    return Problem(codes, potions, [_ints(b) for b in start.boards[player]], [_ints(b) for b in own_end],
                   opp_start, opp_end, reserve, res_end, forbidden)


def _replay(before: Table, player: int, card: PotionCard, emptied, steps, after, wanted) -> Explanation | None:
    own = before.boards[player]
    opponents = [Spot(p, b, board.name(i)) for p, boards in enumerate(before.boards) if p != player
                 for b, board in enumerate(boards) for i in range(len(board.cells))]

    def spot(s: tuple[int, int]) -> Spot:
        return Spot(player, s[0], own[s[0]].name(s[1]))

    uses: list[Use] = []
    for step in steps:
        kind = step[0]
        if kind == "I":
            uses.append(Integration(COLOURS[step[1] - 1], spot(step[2])))
        elif kind == "E":
            uses.append(Extraction(COLOURS[step[1] - 1], spot(step[2])))
        elif kind == "A":
            uses.append(Attraction(opponents[step[1]], spot(step[2])))
        elif kind == "T":
            uses.append(Transformation(spot(step[1]), COLOURS[step[2] - 1]))
        elif kind == "V":
            uses.append(Inversion(spot(step[1]), opponents[step[2]]))
        elif kind == "P":
            uses.append(Purification(tuple((spot(a), opponents[b]) for a, b in step[1])))
        else:
            uses.append(Dispersion(tuple((spot(a), spot(b)) for a, b in step[1])))
    turn = Turn(card, tuple(uses), None, tuple(emptied))
    try:
        table, done = before.play_uses(player, turn)
    except AlchymiaError:
        return None
    taken = tuple(c for _, c in done)
    final = table.taking(player, done)
    if wanted is not None and {c.element for c in taken} != wanted:
        return None
    if after not in (table.boards, final.boards):
        return None
    return Explanation(tuple(emptied), tuple(uses), taken, final)


def _reason(before: Table, player: int, after, card: PotionCard, res_after, codes, potions) -> str:
    """Why no explanation exists, as specifically as can be said."""
    if after == before.boards:
        return "nothing changed: at least one board must change"
    letters = " ".join(c.letter for c in card.potions)
    reach = {ATTRACTION: Colour.GREEN, PURIFICATION: Colour.BLUE, INVERSION: Colour.RED}
    others = [p for p in range(len(before.players)) if p != player and after[p] != before.boards[p]]
    if others and not any(potions[COLOURS.index(c) + 1] and CODE[power] in codes[COLOURS.index(c) + 1]
                          for power, c in reach.items()):
        return (f"{before.players[others[0]]}'s board changed, but no potion of the card ({letters}) gives you "
                f"a power over another player's board")
    for k, colour in enumerate(COLOURS):
        moved = res_after[k + 1] - before.reserve[k]
        has = potions[k + 1] or (potions[4] and "T" in codes[4])
        if moved and not has:
            way = "left" if moved < 0 else "went back to"
            return f"a {colour} stone {way} the reserve, but the card ({letters}) has no potion that can do it"
    moved = any(a != b and a.counts() == b.counts() for a, b in zip(before.boards[player], after[player], strict=True))
    if moved and not others and not (potions[2] and "D" in codes[2]):
        return (f"stones moved on your board, but the card ({letters}) gives you no Dispersion and no other use of "
                f"its potions explains it")
    return f"no use of the card's potions ({letters}) with your powers turns the boards before into the boards after"
