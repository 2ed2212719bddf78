"""The game: the potion deck, the round, timer cubes, forced concoction, winning and losing.

A round (``Game.reveal`` then one ``Game.play`` per witch):

1. Reveal the top potion (concocted at once if the cauldron already holds it), then put a timer cube on
   every revealed potion. A potion that gets its fourth cube is concocted by force (oldest first).
2. Each witch draws 3 ingredient cards (5 with 2 witches; one more on the first round), keeps one for the
   next round and plays one face down (see ``hand_size``).
3. The played cards are shuffled and applied one by one in that order.

The witches win when the seventh potion is made, and lose as soon as the cauldron holds 20 Cramés, except
when the card that passes 20 also makes the last potion. Decisions where the rulebook is silent: a
forced concoction costs its Cramés *after* the potion is made ("vous subirez ensuite"), so a forced
concoction of the last potion wins; the 5-Cramé cap is for ingredient cards, so it does not limit a
forced concoction; a potion revealed because none was left gets one cube, and one revealed during step 1
gets its cube with the others.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from .cards import CRAMES_TO_LOSE, POTIONS_TO_MAKE, RARITIES, RARITY_TABLE, Ingredient, Potion
from .concoct import Concoction, concoct, forced_options
from .grid import BURNT, EMPTY, Cauldron, IllegalMove, bits, cell_name
from .ingredient import Play, Resolution, apply
from .physical import Verdict, check_move

FORCED_AT = 4  # "Si jamais vous deviez mettre un quatrième cube sur l'une de ces Potions"
SETUP = {"bone": 2, "root": 2, "fluid": 2, "fire": 1, "poison": 1}


def hand_size(players: int, first_round: bool) -> int:
    """Cards each witch draws: 3, or 5 with two witches, and one more on the first round."""
    _check_players(players)
    return (5 if players == 2 else 3) + (1 if first_round else 0)


def _check_players(players: int) -> None:
    if players not in RARITY_TABLE:
        raise ValueError(f"Le Chaudron Magique is for 2 to 7 witches, not {players}")


def potion_deck(potions, players: int, rng: random.Random) -> tuple[Potion, ...]:
    """Choose the 7 potions by the rarity table, at random, and stack them Communes on top down to
    Mythiques (then Légendaires) at the bottom."""
    _check_players(players)
    deck = []
    for rarity in RARITIES:
        wanted = RARITY_TABLE[players][rarity]
        pool = [p for p in potions if p.rarity == rarity]
        if len(pool) < wanted:
            raise ValueError(f"{players} witches need {wanted} {rarity} potion(s), the deck has {len(pool)}")
        deck += rng.sample(pool, wanted)
    return tuple(deck)


def rarity_counts(potions) -> dict[str, int]:
    """How many of ``potions`` are of each rarity (every rarity, in RARITIES' order)."""
    return {r: sum(p.rarity == r for p in potions) for r in RARITIES}


def rarity_mismatch(potions, players: int) -> str | None:
    """Why these 7 potions are not a deck for ``players`` witches by the rarity table, or None."""
    wanted = RARITY_TABLE[players]
    if rarity_counts(potions) == wanted:
        return None
    return f"{players} witches play " + ", ".join(f"{n} {r}" for r, n in wanted.items() if n)


def setup_cauldron(rng: random.Random, rows: int = 6, cols: int = 6) -> Cauldron:
    """The starting cauldron: 2 bones, 2 roots, 2 fluids, a fire crystal and a poison seed thrown in (here on
    random distinct cells; at the table the camera reads where they landed)."""
    pieces = [label for label, n in SETUP.items() for _ in range(n)]
    cells = ["empty"] * (rows * cols)
    for i, label in zip(rng.sample(range(rows * cols), len(pieces)), pieces, strict=True):
        cells[i] = label
    return Cauldron(rows, cols, tuple(cells))


@dataclass(frozen=True)
class Revealed:
    potion: Potion
    cubes: int


@dataclass(frozen=True)
class Game:
    """The whole table state that the rules care about (the witches' hands are secret)."""

    cauldron: Cauldron
    deck: tuple[Potion, ...]                 # face down, top first
    players: int = 2
    revealed: tuple[Revealed, ...] = ()      # oldest first
    made: tuple[Potion, ...] = ()
    round: int = 0
    status: str = "playing"                  # playing, won, lost

    @classmethod
    def new(cls, cauldron: Cauldron, deck, players: int) -> Game:
        _check_players(players)
        return cls(cauldron, tuple(deck), players)

    @property
    def burnt(self) -> int:
        return self.cauldron.burnt

    def _playing(self) -> None:
        if self.status != "playing":
            raise IllegalMove(f"the game is over: the witches have {self.status}")

    def _settle(self, won: bool) -> Game:
        if won or (not self.deck and not self.revealed):
            return replace(self, status="won")
        if self.burnt >= CRAMES_TO_LOSE:
            return replace(self, status="lost")
        return self

    # -- step 1
    def reveal(self, after: Cauldron | None = None) -> tuple[Game, list[str]]:
        """Step 1 of a round. ``after``, when given, is the cauldron seen once it is done (it says where a
        forced concoction's Cramés went and which resources it took); otherwise the engine chooses."""
        self._playing()
        g, notes = replace(self, round=self.round + 1), []
        if g.deck:
            g, more = g._reveal_top(cubes=0)
            notes += more
        g = replace(g, revealed=tuple(replace(r, cubes=r.cubes + 1) for r in g.revealed))
        forced_done = False
        while g.status == "playing":
            due = next((r for r in g.revealed if r.cubes >= FORCED_AT), None)
            if due is None:
                break
            g, more = g._forced(due, after)
            notes += more
            forced_done = True
        if after is not None and g.cauldron != after:
            raise IllegalMove("the cauldron seen after revealing does not match: " + (
                "no forced concoction gives it" if forced_done else "nothing should have changed"))
        return g, notes

    def _reveal_top(self, cubes: int) -> tuple[Game, list[str]]:
        top, g = self.deck[0], replace(self, deck=self.deck[1:])
        g = replace(g, revealed=(*g.revealed, Revealed(top, cubes)))
        notes = [f"revealed {top.name}"]
        done = concoct(g.cauldron, top)
        if done is not None:
            g, more = g._made(top, done[0], done[1])
            notes += more
        return g, notes

    def _made(self, potion: Potion, cauldron: Cauldron, how: Concoction) -> tuple[Game, list[str]]:
        g = replace(self, cauldron=cauldron, made=(*self.made, potion),
                    revealed=tuple(r for r in self.revealed if r.potion is not potion))
        notes = [f"concocted {potion.name}" + (f" ({how.burnt} Cramés)" if how.burnt else "")]
        if not g.revealed and g.deck:
            g, more = g._reveal_top(cubes=1)
            notes += more
        return g._settle(won=not g.deck and not g.revealed), notes

    def _forced(self, due: Revealed, after: Cauldron | None) -> tuple[Game, list[str]]:
        pot = self.cauldron
        matched, burnt, ways = forced_options(pot.masks, due.potion, pot.rows, pot.cols)
        options = []
        for used, wildcard in ways:
            emptied = pot.with_cells({divmod(i, pot.cols): "empty" for i in bits(used & ~wildcard)})
            options.append((emptied, used & ~wildcard, wildcard))
        chosen = options[0]
        if after is not None:
            chosen = next((o for o in options if _burns_to(o[0], after, burnt)), chosen)
        emptied, removed, wildcard = chosen
        cauldron = _place_burnt(emptied, burnt, after)
        how = Concoction(due.potion, tuple(divmod(i, pot.cols) for i in bits(removed)),
                         divmod(next(bits(wildcard)), pot.cols) if wildcard else None,
                         missing=due.potion.size - matched, burnt=burnt)
        g, notes = self._made(due.potion, cauldron, how)
        return g, [f"forced concoction of {due.potion.name} (4th cube): {how.missing} missing", *notes]

    # -- step 3
    def play(self, card: Ingredient, play: Play | None = None) -> tuple[Game, Resolution]:
        """Apply one ingredient card with the player's choices."""
        self._playing()
        res = apply(self.cauldron, card, play, [r.potion for r in self.revealed], self.deck)
        return self._after_card(res), res

    def play_seen(self, card: Ingredient, after: Cauldron) -> tuple[Game, Verdict]:
        """Apply one ingredient card as the camera saw it; an illegal move leaves the game unchanged."""
        self._playing()
        verdict = check_move(self.cauldron, after, card, [r.potion for r in self.revealed], self.deck)
        if not verdict.legal:
            return self, verdict
        return self._after_card(verdict.resolution), verdict

    def _after_card(self, res: Resolution) -> Game:
        known = [(r.potion, r.cubes) for r in self.revealed] + [(p, 1) for p in self.deck]
        revealed = tuple(Revealed(*known[i]) for i in res.still_revealed)
        made = self.made + tuple(c.potion for c in res.concocted)
        g = replace(self, cauldron=res.cauldron, revealed=revealed, made=made,
                    deck=self.deck[res.next_up - len(self.revealed):])
        return g._settle(won=res.won)

    def summary(self) -> str:
        waiting = ", ".join(f"{r.potion.name} ({r.cubes} cube{'s' if r.cubes > 1 else ''})" for r in self.revealed)
        return (f"round {self.round}: {len(self.made)}/{len(self.made) + len(self.revealed) + len(self.deck)} "
                f"potions made, {self.burnt} Cramés, waiting: {waiting or 'none'}; {self.status}")


def _burns_to(emptied: Cauldron, after: Cauldron, burnt: int) -> bool:
    """Can ``burnt`` Cramés placed by the rule turn ``emptied`` into ``after``?"""
    if (emptied.rows, emptied.cols) != (after.rows, after.cols):
        return False
    try:
        return _place_burnt(emptied, burnt, after) == after
    except IllegalMove:
        return False


def _place_burnt(pot: Cauldron, burnt: int, after: Cauldron | None) -> Cauldron:
    """Place Cramés one at a time: where ``after`` shows new ones if given, else the first empty cells; over a
    resource only when no cell is empty."""
    codes = list(pot.codes)
    wanted = [] if after is None else [i for i, (a, b) in enumerate(zip(codes, after.codes, strict=True))
                                       if b == BURNT and a != BURNT]
    for _ in range(burnt):
        empty = [i for i, c in enumerate(codes) if c == EMPTY]
        targets = empty or [i for i, c in enumerate(codes) if c != BURNT]
        if not targets:
            break
        pick = next((i for i in wanted if i in targets), targets[0])
        if pick in wanted:
            wanted.remove(pick)
        codes[pick] = BURNT
    if after is not None and wanted:
        raise IllegalMove(f"a Cramé on {cell_name(wanted[0], pot.cols)} that the rules did not put there")
    return Cauldron.from_codes(pot.rows, pot.cols, codes)


__all__ = ["POTIONS_TO_MAKE", "Game", "Revealed", "hand_size", "potion_deck", "setup_cauldron"]
