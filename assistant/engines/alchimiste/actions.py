"""The three actions of a turn (create, copy, take ingredients) as small immutable values, and how a
player would say them. A take is either ``Take`` (one cube from the reserve) or ``Draw`` (two from the
bag); ``Pass`` exists only for the adept who can do nothing at all (see ``Game``)."""

from __future__ import annotations

from dataclasses import dataclass

from .cubes import Cubes


@dataclass(frozen=True, slots=True)
class Create:
    """Seal an empty cauldron, put ``mix`` in it from behind the screen, take fame tile ``tile``."""

    cauldron: int  # 1-based, as numbered on the Compendium
    mix: Cubes
    tile: int


@dataclass(frozen=True, slots=True)
class Copy:
    """Pay the exact ``mix`` of someone else's potion; ``tribute`` goes to its creator, the rest out."""

    cauldron: int
    mix: Cubes
    tribute: str


@dataclass(frozen=True, slots=True)
class Take:
    """Take one cube of ``colour`` from the reserve."""

    colour: str


@dataclass(frozen=True, slots=True)
class Draw:
    """Draw ``count`` cubes from the Oracle's bag (2, or what is left). ``drawn`` says which colours came
    out: required in a full-information game, absent in a public one (draws are secret)."""

    count: int = 2
    drawn: Cubes | None = None


@dataclass(frozen=True, slots=True)
class Pass:
    """Do nothing: only for an adept with no legal action (reserve and bag both empty)."""


Action = Create | Copy | Take | Draw | Pass


def describe(action: Action, who: str) -> str:
    """The action as a player would say it.

    >>> describe(Create(10, Cubes.of(blue=2, grey=2, orange=1), 9), "Abigail")
    'Abigail creates 2 grey, 2 blue, 1 orange in cauldron 10 with fame tile 9'
    """
    match action:
        case Create(cauldron, mix, tile):
            return f"{who} creates {mix} in cauldron {cauldron} with fame tile {tile}"
        case Copy(cauldron, mix, tribute):
            return f"{who} copies cauldron {cauldron} paying {mix}, tribute {tribute}"
        case Take(colour):
            return f"{who} takes {colour} from the reserve"
        case Draw(count, None):
            return f"{who} draws {count} from the bag"
        case Draw(count, drawn):
            return f"{who} draws {drawn} from the bag"
        case Pass():
            return f"{who} passes"
    raise TypeError(f"not an Alchimiste action: {action!r}")
