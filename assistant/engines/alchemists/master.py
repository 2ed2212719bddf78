"""What the companion app answers at the table, given the secret assignment.

Test on a student and drink a potion (``brew``, ``drink_effect``), sell to an adventurer (``sell``), debunk
in apprentice mode (``debunk_aspect``) and in master mode (``demonstrate``), the seals' penalties on a
successful debunk (``seal_penalties``), and the final exhibition (``exhibit``, ``exhibition_reputation``).
The grand reveal is in ``reveal``.

Reputation zones: every reputation loss computed here goes through ``reputation_loss``, which deepens it
in the green and blue zones when the loser's reputation is given (an optional ``reputation`` argument);
without it, a loss is the one printed in the rule text.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum

from .alchemicals import ALCHEMICALS, Alchemical, AlchemistsError, Colour, Potion, mix, parse_ingredient
from .codes import Assignment
from .reveal import Seal, check_seals

APPRENTICE = "apprentice"
MASTER = "master"
MODES = (APPRENTICE, MASTER)

DEBUNK_GAIN = 2    # a successful debunk (or a new conflict shown), in either mode
SEAL_PENALTY = 5   # each seal that a successful debunk does not spare


def brew(assignment: Assignment, first: str, second: str) -> Potion:
    """The potion two ingredient cards make (test on a student, drink, or a master-mode demonstration)."""
    first, second = parse_ingredient(first), parse_ingredient(second)
    if first == second:
        raise AlchemistsError(f"cannot mix {first} with itself: a potion takes two different ingredients")
    return mix(assignment[first], assignment[second])


def drink_reputation(potion: Potion, reputation: int | None = None) -> int:
    """The reputation change of the player who drinks ``potion``: insanity (``blue-``) costs 1 point, more
    in the green and blue zones when the drinker's ``reputation`` is given; nothing else costs reputation."""
    return reputation_loss(1, reputation) if str(potion) == "blue-" else 0


def drink_effect(potion: Potion, reputation: int | None = None) -> str | None:
    """What happens to a player who drinks ``potion`` (positive and neutral potions do nothing).

    With the drinker's ``reputation``, the insanity text gives the loss of that reputation zone."""
    lost = -reputation_loss(1, reputation)
    return {
        "blue-": f"insanity: lose {lost} reputation point{'s' if lost > 1 else ''}",
        "green-": "paralysis: put your vial on the paralysed space of the turn-order track; you play last "
                  "next round",
        "red-": "poison: put this action cube in the hospital; you play with one cube fewer next round",
    }.get(str(potion))


STUDENT_NOTE = "a negative potion: the players after you now pay 1 gold to test on a student"


class Quality(Enum):
    """The quality promised to an adventurer, and the quality class a potion reaches."""

    PERFECT = "perfect"   # the wanted colour and sign
    GOOD = "good"         # the wanted sign, another colour
    NEUTRAL = "neutral"
    BAD = "bad"           # the wrong sign, colour not told

    def __str__(self) -> str:
        return self.value

    @property
    def price(self) -> int:
        return {"perfect": 4, "good": 3, "neutral": 2, "bad": 1}[self.value]

    @property
    def rank(self) -> int:
        return self.price

    @classmethod
    def parse(cls, name: str) -> Quality:
        try:
            return cls(str(name).strip().lower())
        except ValueError:
            raise AlchemistsError(f"unknown quality {name!r} (expected perfect, good, neutral or bad)") from None


def quality_reached(wanted: Potion, potion: Potion) -> Quality:
    if wanted.neutral:
        raise AlchemistsError("an adventurer never wants the neutral potion")
    if potion.neutral:
        return Quality.NEUTRAL
    if potion.sign != wanted.sign:
        return Quality.BAD
    return Quality.PERFECT if potion.colour == wanted.colour else Quality.GOOD


def reputation_zone_bonus(reputation: int | None) -> int:
    """Coins added to a promise's price by the seller's reputation zone: -1 below 6, +1 from 18."""
    if reputation is None:
        return 0
    return -1 if reputation < 6 else (1 if reputation >= 18 else 0)


def reputation_loss(points: int, reputation: int | None = None) -> int:
    """The change of reputation when a player at ``reputation`` loses ``points``: one point more in the green
    zone (14 to 17), two more in the blue zone (from 18); the bare loss when ``reputation`` is not given.
    The zone is the one of ``reputation`` before the loss, and the extra is per loss, not per point lost
    (a seal's 5 points cost 6 in the green zone): the text's "par perte de réputation".

    The red zone's "+ 1 point de supplémentaire/ réputation perdue" is left out: the sentence is garbled.
    """
    extra = 0 if reputation is None else (2 if reputation >= 18 else (1 if reputation >= 14 else 0))
    return -(points + extra)


def promise_price(promise: Quality, discount: int = 0, reputation: int | None = None) -> int:
    """What the adventurer pays for a kept promise; a promise that would pay nothing cannot be made."""
    if discount not in (0, 1, 2, 3):
        raise AlchemistsError(f"discount must be 0, 1, 2 or 3 (the discount cards), got {discount}")
    price = promise.price + reputation_zone_bonus(reputation) - discount
    if price <= 0:
        raise AlchemistsError(f"a {promise} promise with a discount of {discount} would pay nothing: "
                              "promise a better quality or give a smaller discount")
    return price


@dataclass(frozen=True)
class Sale:
    """The answer to a sale: only the quality class reached is told, never the potion itself."""

    wanted: Potion
    promise: Quality
    reached: Quality
    coins: int        # paid by the bank: the promise's price less the discount, if the promise was kept
    reputation: int   # change of the seller's reputation

    @property
    def kept(self) -> bool:
        return self.reached.rank >= self.promise.rank


def sell(potion: Potion, wanted: Potion, promise: Quality, discount: int = 0,
         reputation: int | None = None) -> Sale:
    """Sell ``potion`` to an adventurer who wants ``wanted``, with ``promise`` guaranteed.

    The promise is kept when the quality reached is at least the one promised; then the bank pays the
    promise's price less the discount (and the reputation-zone adjustment when ``reputation`` is given).
    A neutral or bad potion costs the seller 1 reputation point, as the text says, whatever was promised
    (more in the green and blue zones when ``reputation`` is given: ``reputation_loss``).
    """
    price = promise_price(promise, discount, reputation)
    reached = quality_reached(wanted, potion)
    kept = reached.rank >= promise.rank
    return Sale(wanted, promise, reached, price if kept else 0,
                reputation_loss(1, reputation) if reached in (Quality.NEUTRAL, Quality.BAD) else 0)


@dataclass(frozen=True)
class AspectReveal:
    """Apprentice-mode debunk: the sign of one aspect of one ingredient."""

    ingredient: str
    colour: Colour
    sign: int
    theory: Alchemical | None = None  # the published theory being debunked, if given
    player_reputation: int | None = None  # the debunker's reputation before the debunk, if given

    @property
    def debunked(self) -> bool | None:
        """True when the theory's aspect is the opposite sign: the theory is proved wrong."""
        return None if self.theory is None else self.theory.sign(self.colour) != self.sign

    @property
    def reputation(self) -> int:
        """The debunker's change: +2 for a debunk, -1 for a failure (deeper by the zone), 0 without a theory."""
        if self.debunked is None:
            return 0
        return DEBUNK_GAIN if self.debunked else reputation_loss(1, self.player_reputation)

    @property
    def debunked_colour(self) -> Colour | None:
        """The colour the theory is proved wrong on (the aspect chosen), for ``seal_penalties``."""
        return self.colour if self.debunked else None


def debunk_aspect(assignment: Assignment, ingredient: str, colour: Colour,
                  theory: Alchemical | None = None, reputation: int | None = None) -> AspectReveal:
    """Reveal the sign of ``ingredient``'s aspect of ``colour``, as the app does in apprentice mode.

    The app shows an aspect as its sign only (sizes are not shown): a theory is debunked when its sign on
    that colour is the opposite one (+2 reputation), otherwise the debunker loses 1 (more in the green and
    blue zones when the debunker's ``reputation`` is given). The seals of a debunked theory are judged by
    ``seal_penalties(seals, reveal.debunked_colour)``.
    """
    ingredient = parse_ingredient(ingredient)
    return AspectReveal(ingredient, colour, assignment[ingredient].sign(colour), theory, reputation)


def seal_penalties(seals: Iterable[Seal], colour: Colour,
                   reputations: Mapping[str, int] | None = None) -> dict[str, int]:
    """Each seal owner's reputation change when a debunk proves a theory wrong on ``colour``.

    Rule text, "Réfuter une théorie avec succès": the seals are revealed; a star seal (gold or silver)
    loses 5 points, a hedged seal of another colour loses 5, a hedged seal of ``colour`` (the colour the
    debunk proved wrong: the aspect chosen in apprentice mode, the potion's colour in master mode) is not
    penalised (0). Every seal owner is in the answer, in the order of ``seals``.

    ``reputations`` gives the owners' reputations when the seals are revealed, for the zones
    (``reputation_loss``: a 5-point loss is 6 from 14 to 17 and 7 from 18); an owner left out loses the
    bare 5. The text scores the debunk first and reveals the seals after, so a player who debunks their
    own theory is judged at their reputation after the +2. A penalty is one loss per seal: a player with
    seals on two theories debunked by one demonstration calls this once per theory, with the reputation
    left by the first.
    """
    if not isinstance(colour, Colour):
        raise AlchemistsError("a debunk proves a theory wrong on one colour: the neutral potion debunks nothing")
    seals = check_seals(seals)
    reputations = reputations or {}
    return {s.player: 0 if s.kind.hedged == colour else reputation_loss(SEAL_PENALTY, reputations.get(s.player))
            for s in seals}


def producible(alchemical: Alchemical) -> frozenset[Potion]:
    """Every potion that ``alchemical`` can give with some other alchemical: neutral (with its opposite)
    and, for each colour, the potion of its own sign."""
    return frozenset(mix(alchemical, other) for other in ALCHEMICALS if other != alchemical)


@dataclass(frozen=True)
class Demonstration:
    """Master-mode debunk: a potion brewed in public, checked against the published theories."""

    ingredients: tuple[str, str]
    potion: Potion
    debunked: tuple[str, ...]  # ingredients whose theory cannot give this potion with any partner
    conflict: bool             # both theories survive alone but together predict another potion
    already_in_conflict: bool = False     # the two theories already had a conflict token
    player_reputation: int | None = None  # the debunker's reputation before the demonstration, if given

    @property
    def success(self) -> bool:
        """A theory debunked, or a conflict that was not already known."""
        return bool(self.debunked) or (self.conflict and not self.already_in_conflict)

    @property
    def reputation(self) -> int:
        """+2 for a success (one or two theories debunked, or a new conflict); -1 otherwise, including a
        conflict already known (deeper by the zone when the debunker's reputation is given)."""
        return DEBUNK_GAIN if self.success else reputation_loss(1, self.player_reputation)

    @property
    def debunked_colour(self) -> Colour | None:
        """The colour the debunked theories are proved wrong on (the potion's), for ``seal_penalties``."""
        return self.potion.colour if self.debunked else None


def demonstrate(assignment: Assignment, first: str, second: str,
                theories: Mapping[str, Alchemical] | None = None, already_in_conflict: bool = False,
                reputation: int | None = None) -> Demonstration:
    """Brew ``first`` + ``second`` and judge the published ``theories`` of those ingredients.

    A theory is debunked when the potion is one its alchemical can never give (the colour of the potion
    with the other sign). When both ingredients have a theory, neither is debunked alone, and the two
    theories mixed give another potion, they are in conflict (one of them is wrong, nobody knows which).
    Debunking one theory or two gains 2 (the text: "si vous réfutez 2 théories ... vous gagnez 2 points");
    showing a conflict gains 2; nothing shown loses 1.

    ``already_in_conflict``: the two theories already carry a conflict token. The text: "lorsqu'une
    démonstration concerne déjà deux théories en conflit, vous perdez 1 point". Decision: a demonstration
    that only shows that conflict again loses 1 instead of gaining 2; one that debunks a theory still gains
    2 (the debunk is new). It needs the theories of both ingredients.

    ``reputation``: the debunker's reputation before the demonstration, for the zone of a loss.
    """
    theories = {parse_ingredient(k): v for k, v in (theories or {}).items()}
    first, second = parse_ingredient(first), parse_ingredient(second)
    unrelated = sorted(set(theories) - {first, second})
    if unrelated:
        raise AlchemistsError(f"a demonstration with {first} and {second} says nothing about "
                              f"{', '.join(unrelated)}")
    if already_in_conflict and len(theories) != 2:
        raise AlchemistsError("a conflict is between two theories: give the theories of both ingredients "
                              "to say they are already in conflict")
    potion = brew(assignment, first, second)
    debunked = tuple(i for i in (first, second) if i in theories and potion not in producible(theories[i]))
    conflict = False
    if not debunked and first in theories and second in theories:
        if theories[first] == theories[second]:
            raise AlchemistsError("two published theories cannot name the same alchemical")
        conflict = mix(theories[first], theories[second]) != potion
    return Demonstration((first, second), potion, debunked, conflict, already_in_conflict, reputation)


@dataclass(frozen=True)
class Exhibit:
    """The final exhibition: the app says whether the potion is the one promised (not what it is)."""

    promised: Potion
    success: bool
    player_reputation: int | None = None  # the exhibitor's reputation before, if given

    @property
    def penalty(self) -> int:
        """The reputation a failure costs (1, more in the green and blue zones); 0 for a success, whose
        gains depend on the other exhibits (``exhibition_reputation``)."""
        return 0 if self.success else reputation_loss(1, self.player_reputation)


def exhibit(assignment: Assignment, first: str, second: str, promised: Potion,
            reputation: int | None = None) -> Exhibit:
    if promised.neutral:
        raise AlchemistsError("the exhibition shows the six coloured potions, not the neutral one")
    return Exhibit(promised, brew(assignment, first, second) == promised, reputation)


def exhibition_reputation(exhibits: Iterable[tuple[str, Potion, bool]],
                          reputations: Mapping[str, int] | None = None) -> dict[str, int]:
    """Reputation won and lost at the exhibition, from ``(player, promised potion, success)`` in the order
    the exhibits were made.

    A failure costs 1 point. The first player to show a potion successfully gains 1 point (later players
    who show it take the space below, for nothing). A player who shows both signs of one colour
    successfully gains 2 points per such colour. A player cannot exhibit the same potion twice.

    With ``reputations`` (each player's reputation before the exhibition), a failure costs more in the
    green and blue zones, judged at the player's reputation at that moment (before plus what the earlier
    exhibits changed).
    """
    reputations = reputations or {}
    points: dict[str, int] = {}
    tried: dict[str, set[Potion]] = {}
    made: dict[str, set[Potion]] = {}
    first_shown: set[Potion] = set()
    for player, promised, success in exhibits:
        if promised.neutral:
            raise AlchemistsError("the exhibition shows the six coloured potions, not the neutral one")
        if promised in tried.setdefault(player, set()):
            raise AlchemistsError(f"{player} cannot exhibit {promised} twice")
        tried[player].add(promised)
        points.setdefault(player, 0)
        if not success:
            before = reputations.get(player)
            points[player] += reputation_loss(1, None if before is None else before + points[player])
            continue
        if promised not in first_shown:
            first_shown.add(promised)
            points[player] += 1
        made.setdefault(player, set()).add(promised)
        if Potion(promised.colour, -promised.sign) in made[player]:
            points[player] += 2
    return points
