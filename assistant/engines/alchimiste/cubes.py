"""Cubes: a count of ingredient cubes per colour (a potion's mix, a screen, the reserve, the bag)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from .rules import COLOURS, IllegalAction

_INDEX = {c: i for i, c in enumerate(COLOURS)}


def colour_index(colour: str) -> int:
    try:
        return _INDEX[colour]
    except (KeyError, TypeError):
        raise IllegalAction(f"no ingredient {colour!r}: the colours are {', '.join(COLOURS)}") from None


@dataclass(frozen=True, slots=True)
class Cubes:
    """How many cubes of each colour, in the order of ``COLOURS``; never negative.

    >>> mix = Cubes.of({"blue": 2, "grey": 2, "orange": 1})
    >>> str(mix), mix.total, mix["blue"]
    ('2 grey, 2 blue, 1 orange', 5, 2)
    """

    counts: tuple[int, ...] = (0,) * len(COLOURS)

    def __post_init__(self) -> None:
        if len(self.counts) != len(COLOURS):
            raise IllegalAction(f"expected {len(COLOURS)} counts, one per colour, got {len(self.counts)}")
        for colour, n in zip(COLOURS, self.counts, strict=True):
            if isinstance(n, bool) or not isinstance(n, int):
                raise IllegalAction(f"{colour}: a count is a whole number, not {n!r}")
            if n < 0:
                raise IllegalAction(f"{colour}: a count cannot be negative ({n})")

    @classmethod
    def of(cls, counts: Mapping[str, int] | None = None, **more: int) -> Cubes:
        """From a mapping colour -> count (missing colours count 0)."""
        values = [0] * len(COLOURS)
        for colour, n in {**(counts or {}), **more}.items():
            values[colour_index(colour)] = n
        return cls(tuple(values))

    @classmethod
    def each(cls, n: int) -> Cubes:
        return cls((n,) * len(COLOURS))

    @classmethod
    def listing(cls, colours: Iterable[str]) -> Cubes:
        """From a list of colours, one per cube: ``Cubes.listing(["grey", "grey"])`` is 2 grey."""
        values = [0] * len(COLOURS)
        for colour in colours:
            values[colour_index(colour)] += 1
        return cls(tuple(values))

    def __getitem__(self, colour: str) -> int:
        return self.counts[colour_index(colour)]

    @property
    def total(self) -> int:
        return sum(self.counts)

    def __add__(self, other: Cubes) -> Cubes:
        return Cubes(tuple(a + b for a, b in zip(self.counts, other.counts, strict=True)))

    def __sub__(self, other: Cubes) -> Cubes:
        """The difference; raises IllegalAction if a colour would go below zero."""
        return Cubes(tuple(a - b for a, b in zip(self.counts, other.counts, strict=True)))

    def within(self, other: Cubes) -> bool:
        """True if every colour of self is available in other."""
        return all(a <= b for a, b in zip(self.counts, other.counts, strict=True))

    def items(self) -> Iterator[tuple[str, int]]:
        """(colour, count) for the colours present, in ``COLOURS`` order."""
        return ((c, n) for c, n in zip(COLOURS, self.counts, strict=True) if n)

    def colours(self) -> tuple[str, ...]:
        """One colour name per cube."""
        return tuple(c for c, n in self.items() for _ in range(n))

    def to_dict(self) -> dict[str, int]:
        return dict(self.items())

    def __str__(self) -> str:
        return ", ".join(f"{n} {c}" for c, n in self.items()) or "nothing"


NO_CUBES = Cubes()


def add_one(cubes: Cubes, colour: str, n: int = 1) -> Cubes:
    values = list(cubes.counts)
    values[colour_index(colour)] += n
    return Cubes(tuple(values))
