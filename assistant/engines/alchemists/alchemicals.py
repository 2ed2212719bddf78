"""Aspects, alchemicals, potions, the eight ingredients, and mixing.

An alchemical has one aspect of each colour (red, green, blue); an aspect has a sign (+ or -) and a size
(small or big). Alchemicals are written ``r-g+B-``: lower case small, upper case big. Two alchemicals react
on a colour when they have the same sign on it and different sizes; that colour and sign is the potion.
Two exact opposites (every sign different, every size the same) give a neutral potion. The eight
alchemicals are chosen so that any two distinct ones give exactly one result.

>>> mix(Alchemical.parse("r-g+B-"), Alchemical.parse("R+g+b-"))
Potion.parse('blue-')
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class AlchemistsError(ValueError):
    """An illegal action or a malformed input; the message is the reason a player would be told."""


class Colour(Enum):
    RED = "red"
    GREEN = "green"
    BLUE = "blue"

    def __str__(self) -> str:
        return self.value

    @classmethod
    def parse(cls, name: str) -> Colour:
        try:
            return cls(str(name).strip().lower())
        except ValueError:
            raise AlchemistsError(f"unknown colour {name!r} (expected red, green or blue)") from None


COLOURS = (Colour.RED, Colour.GREEN, Colour.BLUE)


def sign_text(sign: int) -> str:
    return "+" if sign > 0 else "-"


def parse_sign(text: str) -> int:
    if text in ("+", "plus"):
        return 1
    if text in ("-", "minus"):
        return -1
    raise AlchemistsError(f"unknown sign {text!r} (expected + or -)")


@dataclass(frozen=True)
class Aspect:
    """One colour of an alchemical: a sign (+1 or -1) and a size."""

    colour: Colour
    sign: int
    big: bool

    def __str__(self) -> str:
        letter = self.colour.value[0]
        return (letter.upper() if self.big else letter) + sign_text(self.sign)


@dataclass(frozen=True)
class Alchemical:
    """Three aspects, red, green, blue in that order. Use ``Alchemical.parse`` or ``ALCHEMICALS``."""

    aspects: tuple[Aspect, Aspect, Aspect]

    def __str__(self) -> str:
        return "".join(str(a) for a in self.aspects)

    def __repr__(self) -> str:
        return f"Alchemical.parse({str(self)!r})"

    def aspect(self, colour: Colour) -> Aspect:
        return self.aspects[COLOURS.index(colour)]

    def sign(self, colour: Colour) -> int:
        return self.aspect(colour).sign

    @property
    def index(self) -> int:
        """Position in ``ALCHEMICALS``."""
        return ALCHEMICALS.index(self)

    @classmethod
    def parse(cls, text: str) -> Alchemical:
        text = str(text).strip()
        if len(text) == 6:
            aspects = []
            for colour, (letter, sign) in zip(COLOURS, (text[0:2], text[2:4], text[4:6]), strict=True):
                if letter.lower() != colour.value[0] or sign not in "+-":
                    break
                aspects.append(Aspect(colour, 1 if sign == "+" else -1, letter.isupper()))
            else:
                alchemical = cls(tuple(aspects))  # type: ignore[arg-type]
                if alchemical in ALCHEMICALS:
                    return alchemical
                raise AlchemistsError(f"{text!r} is not one of the eight alchemicals "
                                      f"({', '.join(map(str, ALCHEMICALS))})")
        raise AlchemistsError(f"unknown alchemical {text!r} (written like r-g+B-: red, green, blue; "
                              "lower case small, upper case big)")


def _alchemical(text: str) -> Alchemical:
    return Alchemical(tuple(  # type: ignore[arg-type]
        Aspect(colour, 1 if text[i + 1] == "+" else -1, text[i].isupper())
        for colour, i in zip(COLOURS, (0, 2, 4), strict=True)))


#: The eight alchemicals (DESIGN.md), in a fixed order that the game codes and the solver rely on.
ALCHEMICALS: tuple[Alchemical, ...] = tuple(_alchemical(t) for t in (
    "r-g+B-", "r+g-B+", "r+G-b-", "r-G+b+", "R-g-b+", "R+g+b-", "R-G-B-", "R+G+B+"))


@dataclass(frozen=True)
class Potion:
    """A coloured potion with its sign, or the neutral potion (``colour`` None, ``sign`` 0)."""

    colour: Colour | None
    sign: int

    def __str__(self) -> str:
        return "neutral" if self.colour is None else f"{self.colour.value}{sign_text(self.sign)}"

    def __repr__(self) -> str:
        return f"Potion.parse({str(self)!r})"

    @property
    def neutral(self) -> bool:
        return self.colour is None

    @property
    def index(self) -> int:
        """Position in ``POTIONS``."""
        return POTIONS.index(self)

    @property
    def effect(self) -> str:
        """The potion's name in the game (its effect when drunk or given to a student)."""
        return _EFFECTS[str(self)]

    @classmethod
    def parse(cls, text: str) -> Potion:
        key = str(text).strip().lower()
        for potion in POTIONS:
            if key == str(potion):
                return potion
        raise AlchemistsError(f"unknown potion {text!r} (expected one of {', '.join(map(str, POTIONS))})")


#: The seven potions, in a fixed order used by the solver's tables.
POTIONS: tuple[Potion, ...] = (
    *(Potion(colour, sign) for colour in COLOURS for sign in (1, -1)), Potion(None, 0))
NEUTRAL = POTIONS[-1]

# The rule text lists Sagesse/Folie, Vitesse/Paralysie, Soin/Poison without their symbols; the published
# game pairs them with blue, green and red respectively.
_EFFECTS = {"red+": "healing", "red-": "poison", "green+": "speed", "green-": "paralysis",
            "blue+": "wisdom", "blue-": "insanity", "neutral": "neutral"}

#: The eight ingredients by their command-line names (fern, bird claw, mushroom, flower, mandrake root,
#: scorpion, toad, raven feather), in the fixed order the game codes rely on.
INGREDIENTS: tuple[str, ...] = ("fern", "claw", "mushroom", "flower", "root", "scorpion", "toad", "feather")


def parse_ingredient(name: str) -> str:
    key = str(name).strip().lower()
    if key not in INGREDIENTS:
        raise AlchemistsError(f"unknown ingredient {name!r} (expected one of {' '.join(INGREDIENTS)})")
    return key


def mix(a: Alchemical, b: Alchemical) -> Potion:
    """The potion two distinct alchemicals give."""
    if a == b:
        raise AlchemistsError("an ingredient cannot be mixed with itself: a potion takes two different ones")
    reacting = [Potion(x.colour, x.sign) for x, y in zip(a.aspects, b.aspects, strict=True)
                if x.sign == y.sign and x.big != y.big]
    if len(reacting) == 1:
        return reacting[0]
    if not reacting and all(x.sign != y.sign and x.big == y.big for x, y in zip(a.aspects, b.aspects, strict=True)):
        return NEUTRAL
    # Unreachable with the eight alchemicals (the tests check all 28 pairs); kept as a guard.
    raise AlchemistsError(f"{a} and {b} do not give exactly one potion")
