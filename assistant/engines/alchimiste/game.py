"""The state of a game of Alchimiste and its rules: set-up, turns, create / copy / take, the end trigger.

A ``Game`` is immutable: ``game.play(action)`` returns the next state or raises ``IllegalAction`` whose
message is the reason a player would be told; ``game.reason(action)`` gives that reason (or None) without
raising; ``game.legal_actions()`` lists what the adept to play may do.

Two modes, chosen at set-up:

* **Public** (``Game.new(players, produces)``): what everyone at a real table sees. The reserve, the fame
  track, the Compendium, the tiles, the seals, the cubes removed from play, the bag's size and the number
  of cubes behind each screen are exact (they follow from public actions). The colours behind a screen are
  known only in part: a lower bound per colour (``Adept.known``: cubes seen going behind it, from the
  reserve, the cauldrons' production or a tribute, minus what may have come out since); draws from the bag
  are secret. ``Game.pool`` counts, per colour, the cubes whose place nobody knows (in the bag or unseen
  behind a screen). Checked exactly: everything except what a screen holds. Checked as a necessary
  condition: that the adept could hold the mix paid (enough cubes behind the screen; for each colour, the
  cubes known there plus, at most, the unknown ones that could be that colour). Revealing the screens at
  the end (``reveal_reason``, ``final``) checks they agree with everything seen.
* **Full information** (``Game.new(players, produces, screens=...)``): the 12 cubes each adept drew at
  set-up are given and every draw names its colours, so every screen and the bag are known exactly and
  every rule is checked exactly. For simulations and tests.

Rules decisions where the texts are silent (also in docs/records-alchimiste.md):

* Drawing takes 2 cubes, or the single cube left if the bag holds one (never happens with the set-up
  table, whose bag sizes stay even).
* ``Pass`` is legal only for an adept who cannot take ingredients (reserve and bag both empty); in the
  full-information mode, also only if no creation or copy is possible. The reserve is then exhausted, so
  the game ends with that round.
* With 2 players only the very first action of the game must be a creation with a tile of 5 or more.
* The produced ingredients of a cauldron come from the reserve one by one as printed; a colour the reserve
  lacks is not received (the rule's partial payout), for a creation and for a copy alike.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

from .actions import Action, Copy, Create, Draw, Pass, Take
from .cubes import NO_CUBES, Cubes, add_one, colour_index
from .endgame import EndPlayer, EndResult, score_endgame
from .rules import (
    COLOURS,
    EXHAUSTED_TO_END,
    MAX_MIX,
    MAX_SAME,
    OPENING_TILE,
    SCREEN_AT_START,
    SEALS,
    SETUP,
    TILES,
    IllegalAction,
    check_player_count,
)


@dataclass(frozen=True, slots=True)
class Potion:
    creator: int   # index of the adept whose seal is on the cauldron
    mix: Cubes
    tile: int


@dataclass(frozen=True, slots=True)
class Cauldron:
    number: int                  # 1-based, as on the Compendium
    produces: tuple[str, ...]    # the two ingredients printed on top
    potion: Potion | None = None


@dataclass(frozen=True, slots=True)
class Adept:
    name: str
    school: str
    fame: int = 0
    seals: int = SEALS          # seals left in front of the screen for creating
    count: int = 0              # cubes behind the screen (public)
    known: Cubes = NO_CUBES      # cubes known to be behind the screen (all of them in full-information mode)

    @property
    def unknown(self) -> int:
        """Cubes behind the screen whose colour is not public."""
        return self.count - self.known.total


@dataclass(frozen=True)
class Game:
    adepts: tuple[Adept, ...]         # in turn order; the first plays first
    cauldrons: tuple[Cauldron, ...]
    reserve: Cubes
    bag: int                          # cubes in the Oracle's bag
    pool: Cubes                       # per colour, cubes in the bag or unseen behind screens (= the bag in full mode)
    removed: Cubes                    # out of play: at set-up and the paid ingredients of copies
    tiles: tuple[int, ...]            # fame tiles still in the supply
    full: bool                        # full-information mode
    turn: int = 0                     # index of the adept to play
    ply: int = 0                      # actions played so far
    over: bool = False

    @classmethod
    def new(cls, players: Sequence[tuple[str, str]], produces: Sequence[Sequence[str]],
            screens: Sequence[Cubes] | None = None) -> Game:
        """Set up a game for ``players`` ((name, school) in turn order) on a Compendium whose cauldron k+1
        produces ``produces[k]``. With ``screens`` (the 12 cubes each adept drew), full-information mode."""
        n = len(players)
        check_player_count(n)
        names = [name for name, _ in players]
        schools = [school for _, school in players]
        for what, values in (("name", names), ("school", schools)):
            for value in values:
                if values.count(value) > 1:
                    raise IllegalAction(f"two adepts have the {what} {value!r}")
        if any(not name for name in names):
            raise IllegalAction("every adept needs a name")
        for school in schools:
            colour_index(school)
        if not produces:
            raise IllegalAction("the Compendium needs at least one cauldron")
        cauldrons = []
        for number, pair in enumerate(produces, 1):
            if len(pair) != 2:
                raise IllegalAction(f"cauldron {number} must produce two ingredients, not {len(pair)}")
            for colour in pair:
                colour_index(colour)
            cauldrons.append(Cauldron(number, tuple(pair)))
        setup = SETUP[n]
        bag = Cubes.each(setup.bag)
        if screens is None:
            adepts = tuple(Adept(name, school, count=SCREEN_AT_START) for name, school in players)
            pool = bag
        else:
            if len(screens) != n:
                raise IllegalAction(f"expected {n} screens, one per adept, got {len(screens)}")
            for name, screen in zip(names, screens, strict=True):
                if screen.total != SCREEN_AT_START:
                    raise IllegalAction(f"{name} draws {SCREEN_AT_START} cubes at set-up, not {screen.total}")
            drawn = functools.reduce(Cubes.__add__, screens)
            if not drawn.within(bag):
                raise IllegalAction(f"the screens hold {drawn} but the bag held {setup.bag} of each colour")
            adepts = tuple(Adept(name, school, count=SCREEN_AT_START, known=screen)
                           for (name, school), screen in zip(players, screens, strict=True))
            pool = bag - drawn
        return cls(adepts, tuple(cauldrons), Cubes.each(setup.reserve), bag.total - SCREEN_AT_START * n, pool,
                   Cubes.each(setup.removed), TILES, screens is not None)

    # -- what the table shows --------------------------------------------------------------------------

    @property
    def to_play(self) -> Adept:
        return self.adepts[self.turn]

    @property
    def round(self) -> int:
        """The round in progress (the last one played once the game is over), from 1."""
        return self.ply // len(self.adepts) + (0 if self.over else 1)

    @property
    def exhausted(self) -> tuple[str, ...]:
        """Colours with no cube left in the reserve."""
        return tuple(c for c, n in zip(COLOURS, self.reserve.counts, strict=True) if n == 0)

    @property
    def bag_contents(self) -> Cubes | None:
        """The colours in the bag: known in full-information mode only."""
        return self.pool if self.full else None

    @property
    def in_cauldrons(self) -> Cubes:
        return functools.reduce(Cubes.__add__, (c.potion.mix for c in self.cauldrons if c.potion), NO_CUBES)

    def scores(self) -> dict[str, int]:
        return {a.name: a.fame for a in self.adepts}

    def cauldron(self, number: int) -> Cauldron:
        if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= len(self.cauldrons):
            raise IllegalAction(f"there is no cauldron {number} (the Compendium has 1 to {len(self.cauldrons)})")
        return self.cauldrons[number - 1]

    def payout(self, number: int) -> Cubes:
        """What cauldron ``number`` gives now: its produced ingredients the reserve still has."""
        reserve, got = self.reserve, NO_CUBES
        for colour in self.cauldron(number).produces:
            if reserve[colour]:
                reserve, got = add_one(reserve, colour, -1), add_one(got, colour)
        return got

    # -- legality -------------------------------------------------------------------------------------

    def reason(self, action: Action, player: str | None = None) -> str | None:
        """Why ``action`` by the adept to play (or by ``player``, if named) is illegal, or None if it is
        legal (in public mode: not shown illegal by public information)."""
        try:
            if self.over:
                return f"the game is over (it ended with round {self.round})"
            if player is not None and player != self.to_play.name:
                return f"it is {self.to_play.name}'s turn, not {player}'s"
            opening = len(self.adepts) == 2 and self.ply == 0
            if opening and not isinstance(action, Create):
                return (f"with 2 players the first action of the game must be creating a potion with a fame tile "
                        f"of {OPENING_TILE} or more")
            match action:
                case Create():
                    return self._create_reason(action, opening)
                case Copy():
                    return self._copy_reason(action)
                case Take(colour):
                    colour_index(colour)
                    return None if self.reserve[colour] else f"the reserve has no {colour} left"
                case Draw():
                    return self._draw_reason(action)
                case Pass():
                    return self._pass_reason()
            raise TypeError(f"not an Alchimiste action: {action!r}")
        except IllegalAction as e:
            return str(e)

    def _create_reason(self, action: Create, opening: bool) -> str | None:
        cauldron, adept, mix = self.cauldron(action.cauldron), self.to_play, action.mix
        if cauldron.potion is not None:
            owner = self.adepts[cauldron.potion.creator].name
            return f"cauldron {cauldron.number} is not empty: it holds {owner}'s potion"
        if adept.seals == 0:
            return f"{adept.name} has no seal left to create a potion"
        if not 1 <= mix.total <= MAX_MIX:
            return f"a potion takes 1 to {MAX_MIX} ingredients, not {mix.total}"
        for colour in cauldron.produces:
            if mix[colour]:
                return (f"cauldron {cauldron.number} produces {' and '.join(cauldron.produces)}, so its potion "
                        f"cannot use {colour}")
        for colour, n in mix.items():
            if n > MAX_SAME:
                return f"no ingredient may be used more than twice in a potion, not {n} {colour}"
        for other in self.cauldrons:
            if other.potion is not None and other.potion.mix == mix:
                return f"the Compendium already has this potion ({mix}) in cauldron {other.number}"
        if action.tile not in TILES:
            return f"there is no fame tile {action.tile} (the tiles are {TILES[0]} to {TILES[-1]})"
        if action.tile not in self.tiles:
            return f"fame tile {action.tile} has already been taken"
        if opening and action.tile < OPENING_TILE:
            return (f"with 2 players the first potion of the game needs a fame tile of {OPENING_TILE} or more, "
                    f"not {action.tile}")
        return self._pay_reason(adept, mix)

    def _copy_reason(self, action: Copy) -> str | None:
        cauldron, adept = self.cauldron(action.cauldron), self.to_play
        potion = cauldron.potion
        if potion is None:
            return f"cauldron {cauldron.number} holds no potion to copy"
        if potion.creator == self.turn:
            return f"{adept.name} cannot copy their own potion (cauldron {cauldron.number})"
        if action.mix != potion.mix:
            return f"a copy of cauldron {cauldron.number} pays exactly {potion.mix}, not {action.mix}"
        colour_index(action.tribute)
        if not potion.mix[action.tribute]:
            return f"the tribute must be one of the ingredients used ({potion.mix}), not {action.tribute}"
        return self._pay_reason(adept, potion.mix)

    def _pay_reason(self, adept: Adept, mix: Cubes) -> str | None:
        """Can ``adept`` hold ``mix`` behind the screen? Exact in full mode, a necessary condition in public."""
        if mix.total > adept.count:
            return f"{adept.name} has {adept.count} cubes behind the screen, {mix.total} are needed"
        unseen = 0
        for colour, n in mix.items():
            short = n - adept.known[colour]
            if short <= 0:
                continue
            if self.full:
                return f"{adept.name} has {adept.known[colour]} {colour} behind the screen, {n} are needed"
            possible = adept.known[colour] + min(adept.unknown, self.pool[colour])
            if n > possible:
                return f"{adept.name} cannot have {n} {colour} behind the screen: at most {possible} can be there"
            unseen += short
        if unseen > adept.unknown:
            return (f"{adept.name} cannot hold {mix} behind the screen: {adept.known} are known to be there and "
                    f"only {adept.unknown} other cubes")
        return None

    def _draw_reason(self, action: Draw) -> str | None:
        if self.bag == 0:
            return "the bag is empty: take one ingredient from the reserve instead"
        count = min(2, self.bag)
        if action.count != count:
            return f"a draw takes {count} cube{'s' if count > 1 else ''} from the bag, not {action.count}"
        if action.drawn is None:
            return "the colours drawn must be given in a full-information game" if self.full else None
        if not self.full:
            return "draws are secret in a public game: give the number of cubes drawn, not their colours"
        if action.drawn.total != count:
            return f"{count} cubes are drawn, not {action.drawn.total} ({action.drawn})"
        if not action.drawn.within(self.pool):
            return f"the bag holds {self.pool}: {action.drawn} cannot come out of it"
        return None

    def _pass_reason(self) -> str | None:
        adept = self.to_play
        if self.reserve.total or self.bag:
            return f"{adept.name} can still take ingredients and must play an action"
        if self.full and next(self._potion_actions(False), None) is not None:
            return f"{adept.name} can still create or copy a potion and must play it"
        return None

    # -- playing --------------------------------------------------------------------------------------

    def play(self, action: Action, player: str | None = None) -> Game:
        """The state after ``action`` by the adept to play; raises IllegalAction with the reason."""
        why = self.reason(action, player)
        if why is not None:
            raise IllegalAction(why)
        adepts = list(self.adepts)
        adept = adepts[self.turn]
        state = self
        match action:
            case Create(number, mix, tile):
                got = self.payout(number)
                adept, pool = self._spend(adept, mix)
                adepts[self.turn] = replace(adept, fame=adept.fame + tile, seals=adept.seals - 1,
                                            count=adept.count + got.total, known=adept.known + got)
                cauldrons = list(self.cauldrons)
                cauldrons[number - 1] = replace(cauldrons[number - 1], potion=Potion(self.turn, mix, tile))
                state = replace(self, cauldrons=tuple(cauldrons), reserve=self.reserve - got, pool=pool,
                                tiles=tuple(t for t in self.tiles if t != tile))
            case Copy(number, mix, tribute):
                potion = self.cauldrons[number - 1].potion
                assert potion is not None  # checked by reason()
                got = self.payout(number)
                adept, pool = self._spend(adept, mix)
                adepts[self.turn] = replace(adept, fame=adept.fame + potion.tile, count=adept.count + got.total,
                                            known=adept.known + got)
                creator = adepts[potion.creator]
                adepts[potion.creator] = replace(creator, count=creator.count + 1,
                                                 known=add_one(creator.known, tribute))
                state = replace(self, reserve=self.reserve - got, pool=pool,
                                removed=self.removed + add_one(mix, tribute, -1))
            case Take(colour):
                adepts[self.turn] = replace(adept, count=adept.count + 1, known=add_one(adept.known, colour))
                state = replace(self, reserve=add_one(self.reserve, colour, -1))
            case Draw(count, drawn):
                # A secret draw adds unseen cubes; a known one moves them from the bag to the screen.
                known = adept.known if drawn is None else adept.known + drawn
                adepts[self.turn] = replace(adept, count=adept.count + count, known=known)
                state = replace(self, bag=self.bag - count, pool=self.pool if drawn is None else self.pool - drawn)
        turn = (self.turn + 1) % len(adepts)
        over = turn == 0 and len(state.exhausted) >= EXHAUSTED_TO_END
        return replace(state, adepts=tuple(adepts), turn=turn, ply=self.ply + 1, over=over)

    def _spend(self, adept: Adept, mix: Cubes) -> tuple[Adept, Cubes]:
        """Take ``mix`` from behind the screen: known cubes first (they are certainly there); what the known
        ones do not cover was unseen until now and leaves the pool of unplaced cubes."""
        from_known = tuple(min(m, k) for m, k in zip(mix.counts, adept.known.counts, strict=True))
        unseen = Cubes(tuple(m - k for m, k in zip(mix.counts, from_known, strict=True)))
        known = adept.known - Cubes(from_known)
        return replace(adept, count=adept.count - mix.total, known=known), self.pool - unseen

    # -- what may be played -----------------------------------------------------------------------------

    def legal_actions(self) -> Iterator[Action]:
        """Every legal action of the adept to play (in public mode: every one public information allows).
        In full-information mode each possible outcome of a draw is its own action."""
        if self.over:
            return
        opening = len(self.adepts) == 2 and self.ply == 0
        any_potion = False
        for action in self._potion_actions(opening):
            any_potion = True
            yield action
        if opening:
            return
        for colour, _ in self.reserve.items():
            yield Take(colour)
        if self.bag:
            count = min(2, self.bag)
            if not self.full:
                yield Draw(count)
            else:
                for drawn in _draws(self.pool, count):
                    yield Draw(count, drawn)
        elif not self.reserve.total and not (self.full and any_potion):
            yield Pass()

    def _potion_actions(self, opening: bool) -> Iterator[Create | Copy]:
        adept = self.to_play
        if adept.seals:
            tiles = [t for t in self.tiles if not opening or t >= OPENING_TILE]
            on_book = {c.potion.mix for c in self.cauldrons if c.potion is not None}
            payable: dict[Cubes, bool] = {}
            for cauldron in self.cauldrons:
                if cauldron.potion is not None:
                    continue
                for mix in _mixes(frozenset(cauldron.produces)):
                    if mix in on_book:
                        continue
                    if mix not in payable:
                        payable[mix] = self._pay_reason(adept, mix) is None
                    if payable[mix]:
                        for tile in tiles:
                            yield Create(cauldron.number, mix, tile)
        if opening:
            return
        for cauldron in self.cauldrons:
            potion = cauldron.potion
            if potion is not None and potion.creator != self.turn and self._pay_reason(adept, potion.mix) is None:
                for colour, _ in potion.mix.items():
                    yield Copy(cauldron.number, potion.mix, colour)

    # -- the end ----------------------------------------------------------------------------------------

    def reveal_reason(self, screens: Sequence[Cubes]) -> str | None:
        """Why the screens' contents revealed at the end cannot be true given everything seen, or None."""
        if len(screens) != len(self.adepts):
            return f"expected {len(self.adepts)} screens, one per adept, got {len(screens)}"
        unseen = NO_CUBES
        for adept, screen in zip(self.adepts, screens, strict=True):
            if screen.total != adept.count:
                return f"{adept.name}'s screen should hold {adept.count} cubes, not {screen.total}"
            for colour, n in adept.known.items():
                if screen[colour] < n:
                    return (f"{adept.name}'s screen must hold at least {n} {colour} (seen going behind it), "
                            f"not {screen[colour]}")
            unseen = unseen + (screen - adept.known)
        for colour, n in unseen.items():
            if n > self.pool[colour]:
                return (f"the screens hold {n} {colour} nobody saw going behind them, but only "
                        f"{self.pool[colour]} {colour} were unaccounted for")
        return None

    def final(self, screens: Sequence[Cubes] | None = None) -> EndResult:
        """End-game scoring. In public mode give the screens' contents as revealed at the end."""
        if not self.over:
            raise IllegalAction(f"the game is not over: round {self.round}, {self.to_play.name} to play")
        if screens is None:
            if not self.full:
                raise IllegalAction("the screens' contents are secret in a public game: reveal them to score")
            screens = [adept.known for adept in self.adepts]
        why = self.reveal_reason(screens)
        if why is not None:
            raise IllegalAction(why)
        players = [EndPlayer(a.name, a.school, a.fame, s) for a, s in zip(self.adepts, screens, strict=True)]
        return score_endgame(players, self.reserve)


@functools.cache
def _mixes(excluded: frozenset[str]) -> tuple[Cubes, ...]:
    """Every mix of 1..5 cubes, no colour more than twice, avoiding the ``excluded`` colours."""
    allowed = [i for i, c in enumerate(COLOURS) if c not in excluded]
    mixes = []
    for combo in itertools.product(range(MAX_SAME + 1), repeat=len(allowed)):
        if 1 <= sum(combo) <= MAX_MIX:
            counts = [0] * len(COLOURS)
            for i, n in zip(allowed, combo, strict=True):
                counts[i] = n
            mixes.append(Cubes(tuple(counts)))
    return tuple(mixes)


def _draws(bag: Cubes, count: int) -> Iterator[Cubes]:
    """Every distinct set of ``count`` cubes that can come out of ``bag``."""
    present = [c for c, _ in bag.items()]
    for combo in itertools.combinations_with_replacement(present, count):
        drawn = Cubes.listing(combo)
        if drawn.within(bag):
            yield drawn
