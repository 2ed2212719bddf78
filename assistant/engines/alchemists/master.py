"""What the companion app answers at the table, given the secret assignment.

Test on a student and drink a potion (``brew``), sell to an adventurer (``sell``), debunk in apprentice
mode (``debunk_aspect``) and in master mode (``demonstrate``), and the final exhibition (``exhibit``,
``exhibition_reputation``). The grand reveal is in ``reveal``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum

from .alchemicals import ALCHEMICALS, Alchemical, AlchemistsError, Colour, Potion, mix, parse_ingredient
from .codes import Assignment

APPRENTICE = "apprentice"
MASTER = "master"
MODES = (APPRENTICE, MASTER)


def brew(assignment: Assignment, first: str, second: str) -> Potion:
    """The potion two ingredient cards make (test on a student, drink, or a master-mode demonstration)."""
    first, second = parse_ingredient(first), parse_ingredient(second)
    if first == second:
        raise AlchemistsError(f"cannot mix {first} with itself: a potion takes two different ingredients")
    return mix(assignment[first], assignment[second])


def drink_effect(potion: Potion) -> str | None:
    """What happens to a player who drinks ``potion`` (positive and neutral potions do nothing)."""
    return {
        "blue-": "insanity: lose 1 reputation point",
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

    @property
    def debunked(self) -> bool | None:
        """True when the theory's aspect is the opposite sign: the theory is proved wrong."""
        return None if self.theory is None else self.theory.sign(self.colour) != self.sign

    @property
    def reputation(self) -> int:
        return {None: 0, True: 2, False: -1}[self.debunked]


def debunk_aspect(assignment: Assignment, ingredient: str, colour: Colour,
                  theory: Alchemical | None = None) -> AspectReveal:
    """Reveal the sign of ``ingredient``'s aspect of ``colour``, as the app does in apprentice mode.

    The app shows an aspect as its sign only (sizes are not shown): a theory is debunked when its sign on
    that colour is the opposite one (+2 reputation), otherwise the debunker loses 1.
    """
    ingredient = parse_ingredient(ingredient)
    return AspectReveal(ingredient, colour, assignment[ingredient].sign(colour), theory)


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

    @property
    def success(self) -> bool:
        return bool(self.debunked) or self.conflict

    @property
    def reputation(self) -> int:
        return 2 if self.success else -1


def demonstrate(assignment: Assignment, first: str, second: str,
                theories: Mapping[str, Alchemical] | None = None) -> Demonstration:
    """Brew ``first`` + ``second`` and judge the published ``theories`` of those ingredients.

    A theory is debunked when the potion is one its alchemical can never give (the colour of the potion
    with the other sign). When both ingredients have a theory, neither is debunked alone, and the two
    theories mixed give another potion, they are in conflict (one of them is wrong, nobody knows which).
    """
    theories = {parse_ingredient(k): v for k, v in (theories or {}).items()}
    first, second = parse_ingredient(first), parse_ingredient(second)
    unrelated = sorted(set(theories) - {first, second})
    if unrelated:
        raise AlchemistsError(f"a demonstration with {first} and {second} says nothing about "
                              f"{', '.join(unrelated)}")
    potion = brew(assignment, first, second)
    debunked = tuple(i for i in (first, second) if i in theories and potion not in producible(theories[i]))
    conflict = False
    if not debunked and first in theories and second in theories:
        if theories[first] == theories[second]:
            raise AlchemistsError("two published theories cannot name the same alchemical")
        conflict = mix(theories[first], theories[second]) != potion
    return Demonstration((first, second), potion, debunked, conflict)


@dataclass(frozen=True)
class Exhibit:
    """The final exhibition: the app says whether the potion is the one promised (not what it is)."""

    promised: Potion
    success: bool


def exhibit(assignment: Assignment, first: str, second: str, promised: Potion) -> Exhibit:
    if promised.neutral:
        raise AlchemistsError("the exhibition shows the six coloured potions, not the neutral one")
    return Exhibit(promised, brew(assignment, first, second) == promised)


def exhibition_reputation(exhibits: Iterable[tuple[str, Potion, bool]]) -> dict[str, int]:
    """Reputation won and lost at the exhibition, from ``(player, promised potion, success)`` in the order
    the exhibits were made.

    A failure costs 1 point. The first player to show a potion successfully gains 1 point (later players
    who show it take the space below, for nothing). A player who shows both signs of one colour
    successfully gains 2 points per such colour. A player cannot exhibit the same potion twice.
    """
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
            points[player] -= 1
            continue
        if promised not in first_shown:
            first_shown.add(promised)
            points[player] += 1
        made.setdefault(player, set()).add(promised)
        if Potion(promised.colour, -promised.sign) in made[player]:
            points[player] += 2
    return points
