"""The rulebook's numbers (001 text, tables settled in DESIGN.md) and the one exception of the engine."""

from __future__ import annotations

from dataclasses import dataclass

#: The five ingredients, in the order the engine stores them (32 cubes of each in the box).
COLOURS = ("grey", "blue", "orange", "yellow", "green")
CUBES_PER_COLOUR = 32
SCREEN_AT_START = 12      # each adept draws 12 from the Oracle's bag at set-up
SEALS = 5                 # seals in front of the screen for creating (the sixth marks the fame track)
TILES = tuple(range(1, 11))  # fame tiles 1..10, one of each
TRACK_SPACES = 50
MAX_MIX = 5               # ingredients in a potion: 1 to 5
MAX_SAME = 2              # no ingredient more than twice in a potion
EXHAUSTED_TO_END = 3      # colours exhausted in the reserve at the end of a round that end the game
OPENING_TILE = 5          # with 2 players, the first action is a creation with a tile of 5 or more


class IllegalAction(ValueError):
    """An action (or a set-up, or an end-game table) the rules forbid; the message is the reason."""


@dataclass(frozen=True)
class Setup:
    """Cubes of each colour in the bag, in the reserve and out of the game, for one player count."""

    bag: int
    reserve: int
    removed: int

    @property
    def in_play(self) -> int:
        return self.bag + self.reserve


SETUP = {2: Setup(6, 10, 16), 3: Setup(8, 12, 12), 4: Setup(12, 16, 4), 5: Setup(14, 18, 0)}

#: School rewards by place (1st, 2nd, ...) for each player count.
REWARDS = {2: (6, 0), 3: (10, 5, 0), 4: (12, 8, 4, 0), 5: (12, 9, 6, 3, 0)}


def check_player_count(n: int) -> None:
    if n not in SETUP:
        raise IllegalAction(f"Alchimiste is played by 2 to 5 adepts, not {n}")


def track_position(fame: int) -> tuple[int, int]:
    """Where a score sits on the circular fame track: (space 0..49, completed laps).

    A seal reaching 0 again earns a 50 score token, a second time turns it to 100.

    >>> track_position(57)
    (7, 1)
    """
    if fame < 0:
        raise IllegalAction(f"fame cannot be negative: {fame}")
    return fame % TRACK_SPACES, fame // TRACK_SPACES


def fame_from_track(space: int, laps: int) -> int:
    """The score of a seal on ``space`` after ``laps`` completed laps (the inverse of track_position)."""
    if not 0 <= space < TRACK_SPACES:
        raise IllegalAction(f"the fame track has spaces 0 to {TRACK_SPACES - 1}, not {space}")
    if laps < 0:
        raise IllegalAction(f"laps cannot be negative: {laps}")
    return space + TRACK_SPACES * laps
