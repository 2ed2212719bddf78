"""Published theories, seals, and the grand reveal's victory points.

A theory names the alchemical of one ingredient; each player who published or endorsed it has a seal on it.
At the grand reveal (rule text, "La grande révélation"):

- a right theory: gold star +5, silver star +3, hedged seal 0;
- a wrong theory: star seals -4; a hedged seal -4 unless its colour is the right one, which it is when the
  theory is wrong on that colour's aspect and on no other (an aspect is compared by its sign, as the app
  shows it; the sign pattern alone tells the eight alchemicals apart).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum
from typing import Any

from .alchemicals import COLOURS, Alchemical, AlchemistsError, Colour, parse_ingredient
from .codes import Assignment

MAX_SEALS = 3  # the publisher and at most two players who endorse the theory


class SealKind(Enum):
    GOLD = "gold"
    SILVER = "silver"
    HEDGE_RED = "hedge-red"
    HEDGE_GREEN = "hedge-green"
    HEDGE_BLUE = "hedge-blue"

    def __str__(self) -> str:
        return self.value

    @property
    def hedged(self) -> Colour | None:
        """The colour a hedged seal is unsure of, or None for a star seal."""
        return Colour(self.value.split("-")[1]) if self.value.startswith("hedge-") else None

    @classmethod
    def parse(cls, name: str) -> SealKind:
        try:
            return cls(str(name).strip().lower())
        except ValueError:
            raise AlchemistsError(f"unknown seal {name!r} (expected "
                                  f"{', '.join(k.value for k in cls)})") from None


@dataclass(frozen=True)
class Seal:
    player: str
    kind: SealKind


@dataclass(frozen=True)
class Theory:
    ingredient: str
    alchemical: Alchemical
    seals: tuple[Seal, ...] = ()


def wrong_colours(theory: Alchemical, truth: Alchemical) -> tuple[Colour, ...]:
    """The colours whose aspect (sign) the theory has wrong."""
    return tuple(c for c in COLOURS if theory.sign(c) != truth.sign(c))


def seal_points(kind: SealKind, wrong: tuple[Colour, ...]) -> int:
    """Victory points of one seal at the grand reveal, given the colours the theory has wrong."""
    if not wrong:
        return {SealKind.GOLD: 5, SealKind.SILVER: 3}.get(kind, 0)
    if kind.hedged is not None and wrong == (kind.hedged,):
        return 0
    return -4


@dataclass(frozen=True)
class Verdict:
    theory: Theory
    truth: Alchemical
    points: tuple[tuple[Seal, int], ...]

    @property
    def wrong(self) -> tuple[Colour, ...]:
        return wrong_colours(self.theory.alchemical, self.truth)

    @property
    def correct(self) -> bool:
        return self.theory.alchemical == self.truth


@dataclass(frozen=True)
class Revelation:
    verdicts: tuple[Verdict, ...]

    @property
    def points(self) -> dict[str, int]:
        """Victory points gained or lost by each player, in the order players first appear."""
        totals: dict[str, int] = {}
        for verdict in self.verdicts:
            for seal, points in verdict.points:
                totals[seal.player] = totals.get(seal.player, 0) + points
        return totals


def check_board(theories: Iterable[Theory]) -> tuple[Theory, ...]:
    """Check that the theories could lie on the theory board together."""
    theories = tuple(theories)
    ingredients: set[str] = set()
    alchemicals: set[Alchemical] = set()
    for t in theories:
        if t.ingredient in ingredients:
            raise AlchemistsError(f"two theories about {t.ingredient}: an ingredient has one grimoire")
        if t.alchemical in alchemicals:
            raise AlchemistsError(f"two theories name {t.alchemical}: each alchemical token is placed once")
        ingredients.add(t.ingredient)
        alchemicals.add(t.alchemical)
        check_seals(t.seals, f"the theory about {t.ingredient}")
    return theories


def check_seals(seals: Iterable[Seal], theory: str = "the theory") -> tuple[Seal, ...]:
    """Check that ``seals`` could lie on one theory: one seal per player, at most ``MAX_SEALS``."""
    seals = tuple(seals)
    players = [s.player for s in seals]
    if len(set(players)) != len(players):
        raise AlchemistsError(f"{theory} has two seals of one player")
    if len(players) > MAX_SEALS:
        raise AlchemistsError(f"{theory} has {len(players)} seals; at most {MAX_SEALS} (the publisher and two "
                              "endorsers)")
    return seals


def grand_reveal(assignment: Assignment, theories: Iterable[Theory]) -> Revelation:
    verdicts = []
    for theory in check_board(theories):
        truth = assignment[theory.ingredient]
        wrong = wrong_colours(theory.alchemical, truth)
        verdicts.append(Verdict(theory, truth, tuple((s, seal_points(s.kind, wrong)) for s in theory.seals)))
    return Revelation(tuple(verdicts))


def parse_theories(data: Any, source: str = "theories") -> tuple[Theory, ...]:
    """Theories from the JSON object of a theories file (format in docs/alchemists.md)."""
    if not isinstance(data, dict) or not isinstance(data.get("theories"), list):
        raise AlchemistsError(f"{source}: theories: expected a list of theories")
    theories = []
    for i, item in enumerate(data["theories"]):
        where = f"{source}: theories[{i}]"
        if not isinstance(item, dict):
            raise AlchemistsError(f"{where}: expected an object with ingredient, alchemical, seals")
        try:
            ingredient = parse_ingredient(_field(item, "ingredient", str))
            alchemical = Alchemical.parse(_field(item, "alchemical", str))
            seals = []
            if not isinstance(item.get("seals", []), list):
                raise AlchemistsError("seals: expected a list of seals")
            for j, seal in enumerate(item.get("seals", [])):
                if not isinstance(seal, dict):
                    raise AlchemistsError(f"seals[{j}]: expected an object with player and seal")
                player = _field(seal, "player", str).strip()
                if not player:
                    raise AlchemistsError(f"seals[{j}].player: empty name")
                seals.append(Seal(player, SealKind.parse(_field(seal, "seal", str))))
        except AlchemistsError as e:
            raise AlchemistsError(f"{where}: {e}") from None
        theories.append(Theory(ingredient, alchemical, tuple(seals)))
    try:
        return check_board(theories)
    except AlchemistsError as e:
        raise AlchemistsError(f"{source}: {e}") from None


def _field(obj: dict, key: str, kind: type) -> Any:
    if key not in obj:
        raise AlchemistsError(f"{key}: missing")
    if not isinstance(obj[key], kind):
        raise AlchemistsError(f"{key}: expected a {kind.__name__}")
    return obj[key]
