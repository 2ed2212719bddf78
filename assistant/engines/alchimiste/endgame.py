"""End-game scoring: screen points, school places and rewards, winners. This is the referee's whole
computation, over plain data (fame, screens, reserve), so it serves a finished game record, a table
typed in by hand and, later, a reserve counted by the camera alike.

>>> from assistant.engines.alchimiste import Cubes
>>> result = score_endgame(
...     [EndPlayer("Abigail", "grey", 31, Cubes.of(grey=2, blue=1)),
...      EndPlayer("Merlin", "orange", 30, Cubes.of(orange=4))],
...     reserve=Cubes.of(grey=3, orange=5))
>>> [(line.name, line.screen_points, line.school_place, line.total) for line in result.lines]
[('Abigail', 1, 1, 38), ('Merlin', 2, 2, 32)]
>>> result.winners
('Abigail',)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from .cubes import Cubes, colour_index
from .rules import REWARDS, SETUP, IllegalAction, check_player_count


@dataclass(frozen=True, slots=True)
class EndPlayer:
    """An adept at the end of the game: fame on the track, cubes behind the screen."""

    name: str
    school: str
    fame: int
    screen: Cubes


@dataclass(frozen=True, slots=True)
class EndLine:
    name: str
    school: str
    fame: int            # before the end-game points
    screen_points: int   # 1 per 2 cubes behind the screen, rounded down
    school_place: int    # 1 = fewest cubes of the school's colour left in the reserve
    school_reward: int
    total: int

    def to_dict(self) -> dict[str, int | str]:
        return {"name": self.name, "fame": self.fame, "screen_points": self.screen_points,
                "school_place": self.school_place, "school_reward": self.school_reward, "total": self.total}


@dataclass(frozen=True, slots=True)
class EndResult:
    lines: tuple[EndLine, ...]       # in the order the players were given
    winners: tuple[str, ...]         # more than one when the tie-break still ties
    reserve_after: Cubes             # the reserve once every screen is emptied into it

    def to_dict(self) -> dict:
        return {"players": [line.to_dict() for line in self.lines], "winners": list(self.winners)}


def school_places(reserve_after: Cubes | Mapping[str, int], schools: Iterable[str]) -> dict[str, int]:
    """Dense ranking of the schools in play by fewest cubes of their colour left in the reserve: equal
    counts share a place and no place is skipped. Colours of schools not in play are not ranked.

    >>> school_places(Cubes.of(grey=2, blue=2, orange=5), ["grey", "blue", "orange"])
    {'grey': 1, 'blue': 1, 'orange': 2}
    """
    left = {school: reserve_after[school] for school in schools}
    levels = sorted(set(left.values()))
    return {school: levels.index(n) + 1 for school, n in left.items()}


def score_endgame(players: Sequence[EndPlayer], reserve: Cubes) -> EndResult:
    """Score the end of the game from each adept's fame and screen and the reserve as it lies on the table
    before the screens are emptied.

    Raises IllegalAction for a table that cannot come from a game: a player count outside 2..5, a name or a
    school used twice, negative fame, or more cubes of a colour in the reserve and screens than that
    player count puts in play.
    """
    n = len(players)
    check_player_count(n)
    _check_distinct([p.name for p in players], "name")
    _check_distinct([p.school for p in players], "school")
    for p in players:
        colour_index(p.school)
        if p.fame < 0:
            raise IllegalAction(f"{p.name}: fame cannot be negative ({p.fame})")
    reserve_after = reserve
    for p in players:
        reserve_after = reserve_after + p.screen
    in_play = SETUP[n].in_play
    for colour, count in reserve_after.items():
        if count > in_play:
            raise IllegalAction(f"{colour}: {count} cubes in the reserve and behind the screens, but a {n}-player "
                                f"game has only {in_play} {colour} in play")
    places = school_places(reserve_after, [p.school for p in players])
    lines = []
    for p in players:
        points = p.screen.total // 2
        place = places[p.school]
        reward = REWARDS[n][place - 1]
        lines.append(EndLine(p.name, p.school, p.fame, points, place, reward, p.fame + points + reward))
    return EndResult(tuple(lines), winners(lines), reserve_after)


def winners(lines: Sequence[EndLine]) -> tuple[str, ...]:
    """Highest total wins; a tie goes to the larger school reward; a tie after that is shared."""
    best = max((line.total, line.school_reward) for line in lines)
    return tuple(line.name for line in lines if (line.total, line.school_reward) == best)


def _check_distinct(values: list[str], what: str) -> None:
    seen: dict[str, int] = {}
    for i, value in enumerate(values):
        if value in seen:
            raise IllegalAction(f"{what} {value!r} is used twice (players {seen[value] + 1} and {i + 1})")
        seen[value] = i
