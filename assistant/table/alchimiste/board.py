"""What the camera shows of an Alchimiste table, in the game's words, and the set-up the mode is given.

``Geometry`` reads the layout once (which zones are the cauldrons' seal, ingredient and tile slots, the
fame-tile supply, the fame track and the reserve trays); ``read_board`` turns a committed ``State`` into a
``Board``: per cauldron the seal colour, the cubes and whether a tile lies on it, the tiles still in the
supply, where each seal colour sits on the track, and the reserve counts.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from assistant.engines.alchimiste import COLOURS, SETUP, TRACK_SPACES, Cubes
from assistant.stabilise import State
from assistant.table import SetupError
from calibration.layout import Layout

SEAL_PREFIX = "seal-"
_SEAL = re.compile(r"^cauldron-(\d+)\.seal$")
_INGREDIENT = re.compile(r"^cauldron-(\d+)\.ingredient-(\d+)$")
_SUPPLY = re.compile(r"^tile-(\d+)$")
_TRACK = re.compile(r"^track-(\d+)$")


@dataclass(frozen=True)
class Geometry:
    """The zone ids of one Alchimiste layout, grouped the way the rules see them."""

    cauldrons: tuple[int, ...]                      # 1..N
    ingredients: Mapping[int, tuple[str, ...]]      # cauldron -> its ingredient slot ids
    supply: Mapping[int, str]                       # tile value -> supply slot id
    track: tuple[str, ...]                          # track space k -> slot id
    reserve: Mapping[str, str]                      # colour -> tray id
    produces: tuple[tuple[str, str], ...]           # cauldron k+1 produces produces[k]
    seals: tuple[str, ...]                          # seal colours, without "seal-"

    @classmethod
    def of(cls, layout: Layout, source: str) -> Geometry:
        ids = layout.zone_ids()
        cauldrons = sorted(int(m.group(1)) for z in ids if (m := _SEAL.match(z)))
        ingredients: dict[int, list[tuple[int, str]]] = {}
        for z in ids:
            if m := _INGREDIENT.match(z):
                ingredients.setdefault(int(m.group(1)), []).append((int(m.group(2)), z))
        supply = {int(m.group(1)): z for z in ids if (m := _SUPPLY.match(z))}
        track = {int(m.group(1)): z for z in ids if (m := _TRACK.match(z))}
        reserve = {c: f"reserve-{c}" for c in COLOURS}
        where = f"{source}: layout {layout.name}"
        if not cauldrons or any(n not in ingredients for n in cauldrons):
            raise SetupError(f"{where}: zones: expected cauldron-N.seal and cauldron-N.ingredient-K slots")
        if sorted(track) != list(range(TRACK_SPACES)):
            raise SetupError(f"{where}: zones: expected fame track slots track-0 to track-{TRACK_SPACES - 1}")
        if not supply:
            raise SetupError(f"{where}: zones: expected fame-tile supply slots tile-1 to tile-10")
        missing = [z for z in reserve.values() if z not in ids]
        if missing:
            raise SetupError(f"{where}: zones: missing reserve tray(s) {', '.join(missing)}")
        produces = layout.game.get("cauldron_produces")
        if (not isinstance(produces, list) or len(produces) < len(cauldrons) or not all(
                isinstance(p, list) and len(p) == 2 and all(c in COLOURS for c in p) for p in produces)):
            raise SetupError(f"{where}: game.cauldron_produces: expected a pair of colours for each of the "
                             f"{len(cauldrons)} cauldrons")
        seals = tuple(str(s).removeprefix(SEAL_PREFIX) for s in layout.game.get("seal_colours", ()))
        if not seals:
            raise SetupError(f"{where}: game.seal_colours: expected the seal colours")
        return cls(tuple(cauldrons), {n: tuple(z for _, z in sorted(v)) for n, v in ingredients.items()},
                   supply, tuple(track[k] for k in range(TRACK_SPACES)), reserve,
                   tuple((p[0], p[1]) for p in produces[:len(cauldrons)]), seals)


@dataclass(frozen=True)
class CauldronSeen:
    number: int
    seal: str | None      # the seal's colour ("red"), None when the seal slot is empty
    mix: Cubes
    tile: bool            # a fame tile lies on the cauldron

    @property
    def empty(self) -> bool:
        return self.seal is None and not self.mix.total and not self.tile


@dataclass(frozen=True)
class Board:
    cauldrons: Mapping[int, CauldronSeen]
    supply: frozenset[int]                 # values of the fame tiles still in the supply row
    track: Mapping[str, tuple[int, ...]]   # seal colour -> the spaces where it shows (stacked seals hide)
    reserve: Cubes | None                  # None when a tray was not counted


def read_board(state: State, geo: Geometry) -> Board:
    labels = state.labels()

    def seal(zone: str) -> str | None:
        label = labels.get(zone, "empty")
        return label.removeprefix(SEAL_PREFIX) if label.startswith(SEAL_PREFIX) else None

    cauldrons = {}
    for n in geo.cauldrons:
        cubes = [labels.get(z, "empty") for z in geo.ingredients[n]]
        mix = Cubes.listing(c for c in cubes if c in COLOURS)
        cauldrons[n] = CauldronSeen(n, seal(f"cauldron-{n}.seal"), mix, labels.get(f"cauldron-{n}.tile") == "tile")
    supply = frozenset(v for v, z in geo.supply.items() if labels.get(z) == "tile")
    track: dict[str, list[int]] = {}
    for space, z in enumerate(geo.track):
        colour = seal(z)
        if colour is not None:
            track.setdefault(colour, []).append(space)
    counted = {z for z, _ in state.counts}
    reserve = None
    if all(z in counted for z in geo.reserve.values()):
        reserve = Cubes.of({c: state.count(z) for c, z in geo.reserve.items()})
    return Board(cauldrons, supply, {c: tuple(v) for c, v in track.items()}, reserve)


# -- the set-up ------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Player:
    name: str
    seal: str
    school: str | None    # secret until the end unless the set-up gives it


def read_players(value: Any, geo: Geometry, source: str) -> list[Player]:
    """The ``players`` key: 2 to 5 ``{"name", "seal", "school"?}`` in turn order."""
    if not isinstance(value, list) or not 2 <= len(value) <= 5:
        raise SetupError(f"{source}: players: expected a list of 2 to 5 players in turn order")
    players: list[Player] = []
    for i, raw in enumerate(value):
        where = f"{source}: players[{i}]"
        if not isinstance(raw, dict):
            raise SetupError(f"{where}: expected an object like {{\"name\": \"Abigail\", \"seal\": \"purple\"}}")
        unknown = set(raw) - {"name", "seal", "school"}
        if unknown:
            raise SetupError(f"{where}.{sorted(unknown)[0]}: unknown key (expected name, seal, school)")
        seal = raw.get("seal")
        if seal not in geo.seals:
            raise SetupError(f"{where}.seal: expected one of {', '.join(geo.seals)}, got {seal!r}")
        name = raw.get("name", seal)
        if not isinstance(name, str) or not name.strip():
            raise SetupError(f"{where}.name: expected a non-empty string")
        school = raw.get("school")
        if school is not None and school not in COLOURS:
            raise SetupError(f"{where}.school: expected one of {', '.join(COLOURS)}, got {school!r}")
        for other in players:
            for key in ("name", "seal", "school"):
                mine = {"name": name, "seal": seal, "school": school}[key]
                if mine is not None and mine == getattr(other, key):
                    raise SetupError(f"{where}.{key}: {mine!r} is used twice")
        players.append(Player(name, seal, school))
    return players


def infer_players(board: Board, geo: Geometry, source: str) -> list[Player]:
    """Players from the first committed state, when it shows them: the reserve's count of each colour gives
    the number of adepts (set-up table), and the seals on the fame track, in the layout's order, who they
    are. Seals stacked on space 0 hide each other, so this works only with the seals laid side by side."""
    counts = set(board.reserve.counts) if board.reserve is not None else set()
    n = next((k for k, s in SETUP.items() if counts == {s.reserve}), None)
    seen = [c for c in geo.seals if board.track.get(c)]
    if n is None or len(seen) != n:
        raise SetupError(f"{source}: players: not given, and the first state does not show them (the reserve "
                         f"gives {n or 'no known'} adepts, the track shows {len(seen)} seal(s)): list the players "
                         f"in the set-up")
    return [Player(c, c, None) for c in seen]


def read_reveal(value: Any, players: list[Player], source: str) -> list[Cubes]:
    """The ``reveal`` key: each player's screen at the end, ``{name: {colour: n}}``."""
    names = [p.name for p in players]
    if not isinstance(value, dict) or set(value) != set(names):
        raise SetupError(f"{source}: reveal: expected every player's screen, {{name: {{colour: count}}}} for "
                         f"{', '.join(names)}")
    screens = []
    for name in names:
        raw = value[name]
        if not isinstance(raw, dict) or not all(
                c in COLOURS and isinstance(n, int) and not isinstance(n, bool) and n >= 0 for c, n in raw.items()):
            raise SetupError(f"{source}: reveal.{name}: expected colour counts like {{\"grey\": 2}}")
        screens.append(Cubes.of(raw))
    return screens
