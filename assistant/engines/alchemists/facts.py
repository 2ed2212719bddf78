"""A player's facts, as the player saw them, for the deduction aid.

Three kinds are enough for everything the app tells a player:

- ``MixFact``: two ingredients gave one of a set of potions. A test, a drink or a master-mode demonstration
  gives one potion; a sale gives its quality class (e.g. "right sign, other colour": two potions; "wrong
  sign": the three potions of that sign, colour unknown); a failed exhibit gives "not that potion".
- ``AspectFact``: an apprentice-mode debunk showed the sign of one aspect of one ingredient.
- ``TheoryFact``: a published theory the player chooses to trust.

The JSON form of a facts file is documented in docs/alchemists.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .alchemicals import (
    POTIONS,
    Alchemical,
    AlchemistsError,
    Colour,
    Potion,
    parse_ingredient,
    parse_sign,
    sign_text,
)
from .master import Quality

SIGN_WORDS = {"+": 1, "-": -1, "plus": 1, "minus": -1}


@dataclass(frozen=True)
class MixFact:
    ingredients: tuple[str, str]
    potions: frozenset[Potion]  # the potion was one of these

    def __str__(self) -> str:
        shown = (str(next(iter(self.potions))) if len(self.potions) == 1
                 else "one of " + " ".join(str(p) for p in POTIONS if p in self.potions))
        return f"{self.ingredients[0]} + {self.ingredients[1]}: {shown}"


@dataclass(frozen=True)
class AspectFact:
    ingredient: str
    colour: Colour
    sign: int

    def __str__(self) -> str:
        return f"{self.ingredient}: {self.colour} is {sign_text(self.sign)}"


@dataclass(frozen=True)
class TheoryFact:
    ingredient: str
    alchemical: Alchemical

    def __str__(self) -> str:
        return f"{self.ingredient} is {self.alchemical} (trusted theory)"


Fact = MixFact | AspectFact | TheoryFact


def _pair(first: str, second: str) -> tuple[str, str]:
    first, second = parse_ingredient(first), parse_ingredient(second)
    if first == second:
        raise AlchemistsError(f"cannot mix {first} with itself: a potion takes two different ingredients")
    return first, second


def mixed(first: str, second: str, potions: Potion | frozenset[Potion] | set[Potion]) -> MixFact:
    """``first`` + ``second`` gave ``potions`` (one potion, or a set: "one of these")."""
    chosen = frozenset([potions]) if isinstance(potions, Potion) else frozenset(potions)
    if not chosen:
        raise AlchemistsError("a mix gives some potion: the set of possible potions is empty")
    return MixFact(_pair(first, second), chosen)


def with_sign(sign: int) -> frozenset[Potion]:
    """The potions of one sign, colour unknown."""
    return frozenset(p for p in POTIONS if p.sign == sign)


def sold(first: str, second: str, wanted: Potion, reached: Quality) -> MixFact:
    """What a sale tells the seller: the quality class reached for the adventurer's wanted potion."""
    if wanted.neutral:
        raise AlchemistsError("an adventurer never wants the neutral potion")
    possible = {
        Quality.PERFECT: {wanted},
        Quality.GOOD: with_sign(wanted.sign) - {wanted},
        Quality.NEUTRAL: {POTIONS[-1]},
        Quality.BAD: with_sign(-wanted.sign),
    }[reached]
    return mixed(first, second, frozenset(possible))


def exhibited(first: str, second: str, promised: Potion, success: bool) -> MixFact:
    return mixed(first, second, frozenset([promised]) if success else frozenset(POTIONS) - {promised})


def parse_facts(data: Any, source: str = "facts") -> tuple[list[Fact], list[str] | None]:
    """The facts and the optional hand (ingredients the player holds) of a facts file's JSON object."""
    if not isinstance(data, dict) or not isinstance(data.get("facts"), list):
        raise AlchemistsError(f"{source}: facts: expected a list of facts")
    facts = []
    for i, item in enumerate(data["facts"]):
        try:
            facts.append(_parse_fact(item))
        except AlchemistsError as e:
            raise AlchemistsError(f"{source}: facts[{i}]: {e}") from None
    hand = data.get("hand")
    if hand is not None:
        if not isinstance(hand, list) or not all(isinstance(h, str) for h in hand):
            raise AlchemistsError(f"{source}: hand: expected a list of ingredient names")
        try:
            hand = [parse_ingredient(h) for h in hand]
        except AlchemistsError as e:
            raise AlchemistsError(f"{source}: hand: {e}") from None
    return facts, hand


def _parse_fact(item: Any) -> Fact:
    if not isinstance(item, dict):
        raise AlchemistsError("expected an object")
    kinds = [k for k in ("mix", "sell", "exhibit", "debunk", "theory") if k in item]
    if len(kinds) != 1:
        raise AlchemistsError("expected exactly one of the keys mix, sell, exhibit, debunk, theory")
    kind = kinds[0]
    if kind == "debunk":
        return AspectFact(parse_ingredient(_text(item, "debunk")), Colour.parse(_text(item, "colour")),
                          parse_sign(_text(item, "sign")))
    if kind == "theory":
        return TheoryFact(parse_ingredient(_text(item, "theory")), Alchemical.parse(_text(item, "alchemical")))
    pair = item[kind]
    if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(x, str) for x in pair)):
        raise AlchemistsError(f"{kind}: expected two ingredient names")
    if kind == "sell":
        return sold(*pair, Potion.parse(_text(item, "wanted")), Quality.parse(_text(item, "result")))
    if kind == "exhibit":
        if not isinstance(item.get("success"), bool):
            raise AlchemistsError("success: expected true or false")
        return exhibited(*pair, Potion.parse(_text(item, "promised")), item["success"])
    potion = item.get("potion")
    if isinstance(potion, str) and potion.strip().lower() in SIGN_WORDS:
        return mixed(*pair, with_sign(SIGN_WORDS[potion.strip().lower()]))
    if isinstance(potion, str):
        return mixed(*pair, Potion.parse(potion))
    if isinstance(potion, list) and potion and all(isinstance(p, str) for p in potion):
        return mixed(*pair, frozenset(Potion.parse(p) for p in potion))
    raise AlchemistsError('potion: expected a potion ("red+"), a sign only ("+" or "-"), or a list of '
                          "potions (one of them)")


def _text(item: dict, key: str) -> str:
    value = item.get(key)
    if not isinstance(value, str):
        raise AlchemistsError(f"{key}: {'missing' if value is None else 'expected a string'}")
    return value
