"""What a tray in doubt decides: the counts it may hold, and the school places and winners that change
between them (``referee alchimiste ENDGAME.json --photo``).

A doubtful tray is never guessed; the referee is asked to count it, told which of the results hang on it:
"grey 7 or 8: decides first place between Abigail and Merlin". Its possible counts: around the count and
the area the photo gave when it was only unsure (one either side of both), from the area's upper half up to
every cube in play when its pile must be spread (a cube on another hides the one under it), anything in
play when it was hidden. Each value is scored with the engine's end-game scoring, the other trays as
counted (another tray in doubt at its middle value).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

from assistant.engines.alchimiste import Cubes, EndPlayer, IllegalAction, score_endgame
from assistant.engines.alchimiste.rules import SETUP

MOST_OUTCOMES = 20_000  # (each a scoring of the end-game: a few tens of microseconds)
ORDINALS = ("first", "second", "third", "fourth", "fifth")


def possible_counts(count: int | None, area: float, hidden: bool, most: int) -> list[int]:
    """The counts a tray may hold: ``count`` (None: no count) and the tops' ``area`` (in cubes) as read;
    ``hidden``: nothing of it seen; ``most``: cubes of its colour that can be in the reserve."""
    if hidden or (count is None and area <= 0):
        lo, hi = 0, most
    elif count is None:
        lo, hi = max(0, math.floor(area) - 1), most
    else:
        lo, hi = max(0, min(count, round(area)) - 1), max(count, round(area)) + 1
    return list(range(lo, max(lo, min(hi, most)) + 1))


def most_in_reserve(players: Sequence[EndPlayer], colour: str) -> int:
    """Cubes of ``colour`` that can lie in the reserve: those in play less those behind the screens."""
    return max(0, SETUP[len(players)].in_play - sum(p.screen[colour] for p in players))


def decides(players: Sequence[EndPlayer], reserve: dict[str, int], colour: str, values: list[int]) -> str:
    """What changes with the count of ``colour`` over ``values`` (the rest of the reserve as given)."""
    results = []
    for v in values:
        try:
            results.append(score_endgame(players, Cubes.of(**{**reserve, colour: v})))
        except IllegalAction:
            continue  # more cubes than a game has: not a count the tray can hold
    if not results:
        return "no count of it makes a game"
    names = [line.name for line in results[0].lines]
    # who holds each school place in each outcome; the first place whose holders change is the one decided
    holders = [[frozenset(n for n, line in zip(names, r.lines, strict=True) if line.school_place == p)
                for r in results] for p in range(1, len(names) + 1)]
    varying = [p for p, h in enumerate(holders, 1) if len(set(h)) > 1]
    winners = sorted({" and ".join(r.winners) for r in results})
    parts = []
    if varying:
        first = varying[0]
        between = [n for n in names if any(n in h for h in holders[first - 1])]
        parts.append(f"decides {ORDINALS[first - 1]} place between {_and(between)}"
                     + (" (and the places after it)" if len(varying) > 1 else ""))
    if len(winners) > 1:
        parts.append("the winner: " + " or ".join(winners))
    return "; ".join(parts) if parts else "changes no school place nor the winner"


def changes_nothing(players: Sequence[EndPlayer], reserve: dict[str, int], doubtful: dict[str, list[int]],
                    most: int = MOST_OUTCOMES) -> bool:
    """Whether the trays in ``doubtful`` (colour: the counts each may hold, together) leave every school place
    and the winners as they are, whatever they hold (the rest of the reserve as given): then none needs
    counting by hand. Only schools in play are ranked, so a colour no adept has changes nothing; counts that
    make no game are left out. More than ``most`` outcomes to score: not known (False)."""
    schools = {p.school for p in players}
    spans = {c: (v if c in schools else v[len(v) // 2:len(v) // 2 + 1]) for c, v in doubtful.items()}
    if math.prod(len(v) for v in spans.values()) > most:
        return False
    seen = set()
    for values in itertools.product(*spans.values()):
        try:
            result = score_endgame(players, Cubes.of(**{**reserve, **dict(zip(spans, values, strict=True))}))
        except IllegalAction:
            continue
        seen.add((tuple(line.school_place for line in result.lines), result.winners))
        if len(seen) > 1:
            return False
    return len(seen) == 1


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def values_text(values: list[int]) -> str:
    if len(values) == 1:
        return str(values[0])
    if len(values) == 2:
        return f"{values[0]} or {values[1]}"
    return f"{values[0]} to {values[-1]}"
