"""The table: what every player can see (boards, reserve, crystal stacks, crystals won), and turns on it.

A turn (the rulebook's "À tour de rôle"): optionally swap hands with an opponent *or* empty one's board;
play one potion card; use at least one of its potions, each with one power; at least one board must have
changed. Reproducing the structure of the top crystal card of an element one does not hold yet, exactly and
under any of the board's four rotations, stops the turn at once (even with potions left): the player takes
the card, empties that board and draws. The first player holding all five elements wins.

Decisions where the text is silent:
- Only the active player's own boards complete crystals, checked after each of his power uses; a board
  another player's power made match does not count for its owner.
- If one board reproduces the top cards of two elements at once (two stacks showing the same structure),
  the player takes the first in the order Earth, Air, Water, Fire, Time. In the 2-player game both boards
  may complete at once (one Dispersion across them); each takes its card.
- "At least one board must change" compares the boards at the end of the turn (before a completed
  board is emptied) with the boards at its start, so emptying one's board counts as a change only if
  the potions do not put it back as it was.
- Emptying an empty board is not an operation, and is refused.
- 2-player game: each player has two boards; emptying may clear one of them or both.
- Hands are not part of the table (the camera cannot see them): the swap is only checked against the
  expert Earth restriction here; ``Game`` checks the cards themselves.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace

from .cards import CrystalCard, Deck, PotionCard
from .powers import (
    ATTRACTION,
    EXTRACTION,
    INVERSION,
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
from .stones import COLOURS, ELEMENTS, AlchymiaError, Board, Cell, Colour, Element

STONES_PER_COLOUR = 8


@dataclass(frozen=True)
class Turn:
    """What a player does on his turn. ``uses`` are applied in order; ``empty`` lists his boards emptied
    at the start (at most one of ``swap_with`` and ``empty``)."""

    card: PotionCard
    uses: tuple[Use, ...] = ()
    swap_with: int | None = None
    empty: tuple[int, ...] = ()


@dataclass(frozen=True)
class Table:
    players: tuple[str, ...]
    boards: tuple[tuple[Board, ...], ...]         # per player: one board, two in the 2-player game
    reserve: tuple[int, ...]                      # stones in the reserve, per colour in COLOURS order
    stacks: tuple[tuple[CrystalCard, ...], ...]   # per element in ELEMENTS order, top card first
    crystals: tuple[tuple[CrystalCard, ...], ...]  # crystal cards won, per player
    expert: bool = False

    @classmethod
    def new(cls, players: tuple[str, ...] | list[str], deck: Deck, expert: bool = False) -> Table:
        """An empty table: boards empty, 8 stones of each colour in the reserve, the deck's crystal stacks."""
        players = tuple(players)
        if not 2 <= len(players) <= 5:
            raise AlchymiaError(f"Alchymia is played by 2 to 5 players, not {len(players)}")
        per_player = 2 if len(players) == 2 else 1
        board = Board.empty(deck.rows, deck.cols)
        return cls(players, tuple((board,) * per_player for _ in players), (STONES_PER_COLOUR,) * len(COLOURS),
                   deck.crystals, tuple(() for _ in players), expert)

    # reading ----------------------------------------------------------------------------------------
    def in_reserve(self, colour: Colour) -> int:
        return self.reserve[COLOURS.index(colour)]

    def elements(self, player: int) -> frozenset[Element]:
        return frozenset(card.element for card in self.crystals[player])

    def top(self, element: Element) -> CrystalCard | None:
        stack = self.stacks[ELEMENTS.index(element)]
        return stack[0] if stack else None

    def targets(self, player: int) -> tuple[CrystalCard, ...]:
        """The top crystal cards of the elements ``player`` does not hold yet (what he may complete)."""
        held = self.elements(player)
        return tuple(card for e in ELEMENTS if e not in held and (card := self.top(e)) is not None)

    def cell(self, spot: Spot) -> Cell:
        return self._board(spot)[spot.position]

    def name_of(self, spot: Spot) -> str:
        board = f" board {spot.board + 1}" if len(self.boards[spot.player]) > 1 else ""
        return f"{self.players[spot.player]}{board} {spot.position}"

    @property
    def winner(self) -> int | None:
        return next((p for p in range(len(self.players)) if len(self.elements(p)) == len(ELEMENTS)), None)

    def completions(self, player: int) -> tuple[tuple[int, CrystalCard], ...]:
        """(board, card) for each of ``player``'s boards that reproduces a top card he may take."""
        taken: list[tuple[int, CrystalCard]] = []
        targets = list(self.targets(player))
        for b, board in enumerate(self.boards[player]):
            for card in targets:
                if board.matches(card.structure):
                    taken.append((b, card))
                    targets = [t for t in targets if t.element is not card.element]
                    break
        return tuple(taken)

    def _board(self, spot: Spot) -> Board:
        if not 0 <= spot.player < len(self.players):
            raise AlchymiaError(f"there is no player {spot.player}")
        boards = self.boards[spot.player]
        if not 0 <= spot.board < len(boards):
            raise AlchymiaError(f"{self.players[spot.player]} has no board {spot.board + 1}")
        return boards[spot.board]

    # one power use ------------------------------------------------------------------------------------
    def apply(self, player: int, use: Use) -> Table:
        """The table after ``player`` uses one potion with one power; raises AlchymiaError if illegal."""
        self._check_power(player, use)
        cells = _Cells(self)
        reserve = list(self.reserve)
        if isinstance(use, Integration):
            self._own(player, use.to)
            self._free(use.to)
            if not reserve[COLOURS.index(use.colour)]:
                raise AlchymiaError(f"the reserve has no {use.colour} stone left")
            reserve[COLOURS.index(use.colour)] -= 1
            cells[use.to] = use.colour
        elif isinstance(use, Extraction):
            self._own(player, use.source)
            if self.cell(use.source) is not use.colour:
                raise AlchymiaError(f"there is no {use.colour} stone on {self.name_of(use.source)} to extract")
            reserve[COLOURS.index(use.colour)] += 1
            cells[use.source] = None
        elif isinstance(use, Attraction):
            self._opponent(player, use.source, ATTRACTION)
            self._own(player, use.to)
            self._free(use.to)
            cells[use.to] = self._stone(use.source)
            cells[use.source] = None
        elif isinstance(use, Transformation):
            self._own(player, use.at)
            old = self._stone(use.at)
            if use.colour is old:
                raise AlchymiaError(f"Transformation must change the stone: {self.name_of(use.at)} is already "
                                    f"{old}")
            if not reserve[COLOURS.index(use.colour)]:
                raise AlchymiaError(f"the reserve has no {use.colour} stone left")
            reserve[COLOURS.index(old)] += 1
            reserve[COLOURS.index(use.colour)] -= 1
            cells[use.at] = use.colour
        elif isinstance(use, Inversion):
            self._own(player, use.own)
            self._opponent(player, use.other, INVERSION)
            mine, theirs = self._stone(use.own), self._stone(use.other)
            if mine is theirs:
                raise AlchymiaError(f"Inversion must change the boards: both stones are {mine}")
            cells[use.own], cells[use.other] = theirs, mine
        elif isinstance(use, Dispersion | Purification):
            self._moves(player, use, cells)
        else:
            raise AlchymiaError(f"unknown power use {use!r}")
        return replace(self, boards=cells.boards(), reserve=tuple(reserve))

    def _check_power(self, player: int, use: Use) -> None:
        elements = self.elements(player)
        if use.power in powers_for(use.potion, elements, self.expert):
            return
        element = Element.of_colour(use.potion)
        if use.power == EXTRACTION:
            raise AlchymiaError("expert mode: holding the Water crystal, you may no longer use Extraction")
        if element in elements:  # an expert Fire/Time holder using his potion for a base power
            raise AlchymiaError(f"expert mode: holding the {element.value.title()} crystal, you must use "
                                f"{use.potion} potions for {element.power}")
        raise AlchymiaError(f"{use.power} needs the {element.value.title()} crystal (with a {use.potion} potion)")

    def _own(self, player: int, spot: Spot) -> None:
        self._board(spot).index(spot.position)
        if spot.player != player:
            raise AlchymiaError(f"{self.name_of(spot)} is not on your board")

    def _opponent(self, player: int, spot: Spot, power: str) -> None:
        self._board(spot).index(spot.position)
        if spot.player == player:
            raise AlchymiaError(f"{power} works with an opponent's board, not between your own boards")

    def _free(self, spot: Spot) -> None:
        if self.cell(spot) is not None:
            raise AlchymiaError(f"{self.name_of(spot)} is not free")

    def _stone(self, spot: Spot) -> Colour:
        stone = self.cell(spot)
        if stone is None:
            raise AlchymiaError(f"there is no stone on {self.name_of(spot)}")
        return stone

    def _moves(self, player: int, use: Dispersion | Purification, cells: _Cells) -> None:
        if not use.moves:
            raise AlchymiaError(f"{use.power} must move at least one stone")
        sources = [a for a, _ in use.moves]
        targets = [b for _, b in use.moves]
        if len(set(sources)) < len(sources) or len(set(targets)) < len(targets):
            raise AlchymiaError(f"{use.power} moves each stone once and puts one stone on each position")
        stones = []
        for a in sources:
            self._own(player, a)
            stones.append(self._stone(a))
        for a in sources:
            cells[a] = None  # every moved stone is lifted before any is put down
        for b, stone in zip(targets, stones, strict=True):
            if isinstance(use, Dispersion):
                self._own(player, b)
            else:
                self._opponent(player, b, use.power)
            if cells[b] is not None:
                raise AlchymiaError(f"{self.name_of(b)} is not free")
            cells[b] = stone
        if isinstance(use, Dispersion) and cells.boards() == self.boards:
            raise AlchymiaError("Dispersion must change the board: every stone went back where it was")

    # a whole turn -------------------------------------------------------------------------------------
    def play(self, player: int, turn: Turn, *, passing: bool = False) -> tuple[Table, tuple[CrystalCard, ...]]:
        """Apply ``player``'s turn: the table after it and the crystal cards he took.

        ``passing`` allows a turn with no use (the caller has established that no potion of any card in
        the player's hand can be used, see ``Game``)."""
        table, done = self.play_uses(player, turn, passing=passing)
        return table.taking(player, done), tuple(card for _, card in done)

    def play_uses(self, player: int, turn: Turn, *, passing: bool = False
                  ) -> tuple[Table, tuple[tuple[int, CrystalCard], ...]]:
        """The table after the turn's power uses, before completed crystals are taken and their boards
        emptied (what the camera sees before the player clears his board), and the (board, card) completed."""
        if self.winner is not None:
            raise AlchymiaError(f"the game is over: {self.players[self.winner]} holds the five crystals")
        elements = self.elements(player)
        table = self
        if turn.swap_with is not None and turn.empty:
            raise AlchymiaError("swap hands or empty your board, not both")
        if turn.swap_with is not None:
            if not 0 <= turn.swap_with < len(self.players) or turn.swap_with == player:
                raise AlchymiaError("swap hands with an opponent")
            if self.expert and Element.EARTH in elements:
                raise AlchymiaError("expert mode: holding the Earth crystal, you may no longer swap hands")
        if turn.empty:
            table = self.emptied(player, turn.empty)
        used = Counter(use.potion for use in turn.uses)
        missing = used - turn.card.counts()
        if missing:
            colour = next(iter(missing))
            raise AlchymiaError(f"the card {turn.card.letters} has no {'more ' if turn.card.counts()[colour] else ''}"
                                f"{colour} potion for that use")
        if not turn.uses and not passing:
            raise AlchymiaError("use at least one potion of the card")
        done: tuple[tuple[int, CrystalCard], ...] = ()
        for i, use in enumerate(turn.uses):
            if done:
                raise AlchymiaError(f"the {done[0][1].element} crystal was completed by use {i}: the turn "
                                    f"stopped there, even with potions left")
            table = table.apply(player, use)
            done = table.completions(player)
        if turn.uses and table.boards == self.boards:
            raise AlchymiaError("at least one board must change")
        return table, done

    def emptied(self, player: int, boards: tuple[int, ...]) -> Table:
        """The start-of-turn operation B: the given boards of ``player`` emptied into the reserve."""
        if self.expert and Element.AIR in self.elements(player):
            raise AlchymiaError("expert mode: holding the Air crystal, you may no longer empty your board")
        own = list(self.boards[player])
        reserve = list(self.reserve)
        for b in sorted(set(boards)):
            if not 0 <= b < len(own):
                raise AlchymiaError(f"you have no board {b + 1}")
            if own[b].is_empty:
                raise AlchymiaError("your board is already empty")
            for _, stone in own[b].stones():
                reserve[COLOURS.index(stone)] += 1
            own[b] = own[b].cleared()
        boards_ = (*self.boards[:player], tuple(own), *self.boards[player + 1:])
        return replace(self, boards=boards_, reserve=tuple(reserve))

    def taking(self, player: int, done: tuple[tuple[int, CrystalCard], ...]) -> Table:
        """The completed crystals taken: each card off its stack to ``player``, its board emptied."""
        if not done:
            return self
        stacks = list(self.stacks)
        for _, card in done:
            i = ELEMENTS.index(card.element)
            stacks[i] = stacks[i][1:]
        crystals = list(self.crystals)
        crystals[player] = crystals[player] + tuple(card for _, card in done)
        table = replace(self, stacks=tuple(stacks), crystals=tuple(crystals))
        return _force_empty(table, player, tuple(b for b, _ in done))


def _force_empty(table: Table, player: int, boards: tuple[int, ...]) -> Table:
    own = list(table.boards[player])
    reserve = list(table.reserve)
    for b in boards:
        for _, stone in own[b].stones():
            reserve[COLOURS.index(stone)] += 1
        own[b] = own[b].cleared()
    return replace(table, boards=(*table.boards[:player], tuple(own), *table.boards[player + 1:]),
                   reserve=tuple(reserve))


class _Cells:
    """Mutable cells of every board while one use is applied."""

    def __init__(self, table: Table):
        self.rows = [[list(board.cells) for board in boards] for boards in table.boards]
        self.shapes = [[(board.rows, board.cols) for board in boards] for boards in table.boards]
        self.table = table

    def _index(self, spot: Spot) -> int:
        return self.table.boards[spot.player][spot.board].index(spot.position)

    def __getitem__(self, spot: Spot) -> Cell:
        return self.rows[spot.player][spot.board][self._index(spot)]

    def __setitem__(self, spot: Spot, value: Cell) -> None:
        self.rows[spot.player][spot.board][self._index(spot)] = value

    def boards(self) -> tuple[tuple[Board, ...], ...]:
        return tuple(tuple(Board(r, c, tuple(cells)) for (r, c), cells in zip(shapes, boards, strict=True))
                     for shapes, boards in zip(self.shapes, self.rows, strict=True))
