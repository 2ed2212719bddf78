"""Tables: evaluation sets organised as real evenings are. One table is one board (its face), one camera,
one set of pieces (their sizes and colours) and players who set pieces down their own way; the light
changes through the evening, hands come and go.

A table folder holds ``table.json`` (what the table is), ``empty.png`` (the empty board, for
``calibrate board``), ``calibration.png`` (pieces as the layout's ``[calibration]`` table says, for
``calibrate colours``; both under one lighting, no hand), then frames ``f000-warm.png`` ... of random
states under the five lightings (``warm``, ``cool``, ``dim``, ``daylight``, ``mixed``), each with its truth
``.json`` beside it, as ``render_frame`` writes it (with ``conditions.board`` and, when blurred,
``conditions.blur``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from calibration.layout import Layout
from vision.render import Conditions, Hand, Pose, calibration_state, empty_state, random_state, render_frame
from vision.render.artwork import BOARD_KINDS, Artwork, random_artwork
from vision.render.components import PieceSet, random_piece_set
from vision.render.deck import CardStyle
from vision.render.piles import PileStyle, random_style
from vision.render.variation import ALL_LIGHTINGS, varied_hand, varied_lighting

TABLE_FILE = "table.json"
EMPTY, CALIBRATION = "empty.png", "calibration.png"
HANDS, FOREIGN = 0.25, 0.1  # fractions of a table's frames with an arm over the board / a foreign object
# Share of a table's trays (of two cubes and more) where players left a cube lying on another, flagged in the truth
# (``piles``): the count is then right only as the count or "spread the pile".
STACKED = 0.2
PILES_STREAM = 23  # the players' way with their piles comes from its own generator, the table's seed and this
TABLE_TOPS = ((96, 64, 42), (150, 112, 78), (46, 84, 56), (110, 110, 112), (60, 44, 36), (200, 196, 188),
              (30, 30, 34), (170, 60, 50))


@dataclass(frozen=True)
class Table:
    layout: str
    board: str  # plain | illustrated
    artwork: Artwork
    pose: Pose
    pieces: PieceSet
    table_rgb: tuple[int, int, int]
    set_down: float  # how far off-centre these players set pieces (fraction of half a slot)
    calibration_lighting: str  # the light when the board and colours were calibrated
    seed: int
    piles: PileStyle | None = None  # how these players leave their reserve piles (None: packed square, as before)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def random_table(layout: Layout, rng: np.random.Generator, board: str) -> Table:
    """A table of ``layout`` with a ``board`` face (plain or illustrated): camera anywhere above the
    board (turned any way, some tilt, barrel distortion), its own pieces, its own players."""
    pose = Pose(height_mm=float(rng.uniform(550, 1050)),
                target_mm=(float(layout.size[0] * rng.uniform(0.44, 0.56)),
                           float(layout.size[1] * rng.uniform(0.44, 0.56))),
                tilt_deg=float(rng.uniform(0, 14)), tilt_towards_deg=float(rng.uniform(0, 360)),
                yaw_deg=_yaw(rng), fill=float(rng.uniform(0.65, 0.92)),
                k1=float(rng.uniform(-0.25, 0.05)), k2=float(rng.uniform(-0.03, 0.03)))
    table = Table(layout.name, board, random_artwork(layout, rng, board), pose, random_piece_set(layout, rng),
                  TABLE_TOPS[int(rng.integers(len(TABLE_TOPS)))], float(rng.uniform(0.4, 1.0)),
                  ALL_LIGHTINGS[int(rng.integers(len(ALL_LIGHTINGS)))], int(rng.integers(2**31)))
    if not any(z.kind == "count" for z in layout.zones):
        return table
    # Piles as players leave them (loose, touching, turned, some with a cube on another), drawn from a generator
    # of their own so that the table's other draws stay as they were. The cubes' size is the piece set's already.
    style = random_style(np.random.default_rng([table.seed, PILES_STREAM]), STACKED)
    return replace(table, piles=replace(style, scale=1.0))


def _yaw(rng: np.random.Generator) -> float:
    """How the camera is turned over the board: mostly square to one of its sides (give or take 15
    degrees), sometimes any way at all."""
    if rng.random() < 0.3:
        return float(rng.uniform(-180, 180))
    return float(90 * int(rng.integers(4)) + rng.uniform(-15, 15))


def _stacked(layout: Layout, state: dict, rng: np.random.Generator) -> tuple[tuple[str, str], ...]:
    """Seals stacked on the fame track: a seal of another colour under about one seal in four there."""
    out = []
    for zid, label in state["zones"].items():
        if zid.startswith("track-") and label != "empty" and rng.random() < 0.25:
            others = [x for x in layout.zone(zid).labels if x not in ("empty", label)]
            if others:
                out.append((zid, str(rng.choice(others))))
    return tuple(out)


def table_frame(table: Table, layout: Layout, rng: np.random.Generator, lighting: str,
                state: dict | None = None, hand: bool | Hand = False, foreign: bool = False,
                motion_blur_px: float = 0.0, defocus_px: float = 0.0, cards: CardStyle | None = None
                ) -> tuple[np.ndarray, dict]:
    """One frame at ``table`` (a random state unless ``state`` is given) and its truth; ``hand``: a random arm
    over the board, or this one; ``cards``: the deck the cards are drawn from (None: the plain faces). A state
    given (the empty board, the calibration table) is set out as given: the table's piles, no cube on another."""
    piles = table.piles
    if state is None:
        state = random_state(layout, rng, fill=float(rng.uniform(0.2, 0.8)))
    elif piles is not None:
        piles = replace(piles, stacked=0.0)
    slots = [z.id for z in layout.zones if z.kind == "slot"]
    dim = lighting == "dim"
    conditions = Conditions(
        pose=table.pose, lighting=varied_lighting(lighting, layout, rng),
        hand=hand if isinstance(hand, Hand) else varied_hand(layout, rng) if hand else None, table_rgb=table.table_rgb,
        noise=float(rng.uniform(2.5, 6.0) if dim else rng.uniform(1.0, 4.0)), blur=float(rng.uniform(0, 0.8)),
        jpeg_quality=int(rng.integers(60, 96)), vignette=float(rng.uniform(0, 0.3)),
        specular=float(rng.uniform(0.1, 0.8)),
        foreign=(str(rng.choice(slots)),) if foreign and slots else (),
        placement_seed=int(rng.integers(2**31)), artwork=table.artwork, pieces=table.pieces,
        set_down=table.set_down, stacked=_stacked(layout, state, rng), piles=piles,
        motion_blur_px=motion_blur_px, motion_blur_deg=float(rng.uniform(0, 180)) if motion_blur_px else 0.0,
        defocus_px=defocus_px, cards=cards)
    return render_frame(layout, state, conditions, rng)


def shake(n: int, rng: np.random.Generator) -> tuple[float, float]:
    """The ``n``-th blurred frame's (camera shake px, defocus px): in turn a shake (the first one 9 px, the
    issue's moderate motion blur at its worst; then 3-9 px), a shake of 2-9 px, and defocus of 1-3.5 px."""
    if n % 3 == 0:
        return (9.0 if n == 0 else float(rng.uniform(3, 9))), 0.0
    if n % 3 == 1:
        return float(rng.uniform(2, 9)), 0.0
    return 0.0, float(rng.uniform(1, 3.5))


def table_name(index: int, table: Table) -> str:
    return f"t{index:03d}-{table.layout}-{table.board}"


def write_tables(out: Path, layouts: list[Layout], tables: int, frames_per_table: int, seed: int = 0,
                 boards: str = "both", blur: bool = False, workers: int = 1, deck: int | None = None,
                 hands: float = HANDS) -> Iterable[Path]:
    """``tables`` table folders in ``out``, cycling through ``layouts`` (then board kinds, with ``both``),
    each with its empty board, its calibration frame and ``frames_per_table`` frames cycling through the
    five lightings (continuing from one table to the next, so that every lighting comes round as often).
    With ``blur``, every third frame (the second, fifth...) is blurred: camera shake up to 9 px (the first
    at 9, the case where the markers are lost and the cached position must hold) or defocus. Yields each
    frame's path. Each table draws from its own generator (``seed``, its index), so table ``i`` is the same
    whatever the number of tables and however many ``workers`` processes render them. The card layouts' cards
    (the plain faces, or ``deck``'s families of look-alikes, sleeved, bowed, with glare, some moving as they are
    set down) are enrolled into ``out / "cards"`` (``vision.render.card_photos``) from still photos. ``hands``: the
    share of the frames with an arm over the board."""
    kinds = BOARD_KINDS if boards == "both" else (boards,)
    for kind in kinds:
        if kind not in BOARD_KINDS:
            raise ValueError(f"--boards: {boards!r}: expected plain, illustrated or both")
    jobs = [(out, layouts[i % len(layouts)], kinds[(i // len(layouts)) % len(kinds)], i, frames_per_table, seed,
             blur, deck, hands) for i in range(tables)]
    if workers <= 1:
        for job in jobs:
            yield from write_table(*job)
    else:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(max_workers=workers) as pool:
            for paths in pool.map(_written_table, jobs):
                yield from paths
    # The card layouts' cards enrolled from rendered photos, as a user enrols them (``eval`` names the cards with
    # them).
    from vision.render.card_photos import write_cards

    write_cards(out, list({id(job[1]): job[1] for job in jobs}.values()), deck=deck)


def _written_table(job: tuple) -> list[Path]:
    return list(write_table(*job))


def write_table(out: Path, layout: Layout, kind: str, i: int, frames_per_table: int, seed: int,
                blur: bool, deck: int | None = None, hands: float = HANDS) -> Iterable[Path]:
    """Table ``i`` of ``write_tables``: its folder in ``out``, yielding each frame's path."""
    from vision.render.dataset import write_frame

    rng = np.random.default_rng([seed, i])
    cards = None if deck is None else CardStyle(deck)
    table = random_table(layout, rng, kind)
    folder = out / table_name(i, table)
    folder.mkdir(parents=True, exist_ok=True)
    deck_of = {} if deck is None else {"deck": deck}
    (folder / TABLE_FILE).write_text(json.dumps({**table.to_dict(), "frames": frames_per_table, **deck_of}, indent=1)
                                     + "\n", encoding="utf-8")
    light = table.calibration_lighting
    for name, state in ((EMPTY, empty_state(layout)), (CALIBRATION, calibration_state(layout))):
        frame, truth = table_frame(table, layout, rng, light, state, cards=cards)
        write_frame(folder / name, frame, truth)
        yield folder / name
    blurred = 0
    for k in range(frames_per_table):
        lighting = ALL_LIGHTINGS[(i * frames_per_table + k) % len(ALL_LIGHTINGS)]
        hand, foreign = bool(rng.random() < hands), bool(rng.random() < FOREIGN)
        motion = defocus = 0.0
        if blur and k % 3 == 1:
            motion, defocus = shake(blurred, rng)
            blurred += 1
        frame, truth = table_frame(table, layout, rng, lighting, hand=hand, foreign=foreign,
                                   motion_blur_px=motion, defocus_px=defocus, cards=cards)
        path = folder / f"f{k:03d}-{lighting}.png"
        write_frame(path, frame, truth)
        yield path
