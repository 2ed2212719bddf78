"""A fingertip over a card comes from beyond its edge: where the finder sees something that is not the mat cross
the card's outline beside it, a patch that deviates from the card's common print within ``tell.BESIDE_MM`` of
the edge is something over the card, even where the finger is of the card's border's colour and deviates only
further in (bench seed 19685: a dark fingertip over a fire crystal's orange border in dim light)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from calibration.layout import load_layout
from vision.cards import features, find, tell
from vision.read import Reader
from vision.render import LIGHTINGS, random_conditions, random_state, render_frame
from vision.render.card_photos import enrol_rendered
from vision.render.deck import CardStyle

CARD_MM = (63.0, 88.0)
GRID = features.fine_grid(CARD_MM)  # (cols, rows)
PX = find.CARD_PX_PER_MM
M = round(find.AROUND_MM * PX)
W, H = round(CARD_MM[0] * PX), round(CARD_MM[1] * PX)


def ring() -> np.ndarray:
    return np.zeros((H + 2 * M, W + 2 * M), bool)


def cell(mm: float) -> int:
    return int(mm / features.FINE_MM)


def test_the_cells_near_a_crossing_are_beside_it_and_the_rest_of_the_card_is_not():
    around = ring()
    # A finger 16 mm wide crossing the right edge, 40-56 mm down the card, over the ring beyond the sleeve's gap.
    around[M + round(40 * PX):M + round(56 * PX), M + W + round(find.GAP_MM * PX):] = True
    beside = tell._beside(around, GRID)
    assert beside.shape == (GRID[1], GRID[0])
    # 7 mm in from the right edge, level with the finger: beside it (a patch there starting one cell further in
    # than the 4.5 mm border reaches the edge through it).
    assert beside[cell(48), GRID[0] - 1 - cell(7)]
    assert not beside[cell(48), GRID[0] - 1 - cell(14)]  # the card's middle
    assert not beside[cell(10), GRID[0] - 1]  # the same edge, far from the finger
    assert not beside[:, : GRID[0] // 2].any()  # the other side


def test_a_fingertip_over_a_corner_reaches_along_both_edges():
    around = ring()
    # The corner itself covered, and a little of both edges beside it.
    around[: M + round(8 * PX), : M + round(8 * PX)] = True
    gap = round(find.GAP_MM * PX)
    around[M - gap:M + H + gap, M - gap:M + W + gap] = False  # only the ring beyond the sleeve's gap is looked at
    beside = tell._beside(around, GRID)
    assert beside[cell(6), cell(6)]  # 6 mm in from both edges at the corner
    assert not beside[cell(40), cell(6)]


def test_what_lies_beyond_a_whole_side_tells_nothing():
    # A neighbouring card, the card's own smear in a shaken frame, or a printed mat: all along the side.
    around = ring()
    around[:, M + W + round(find.GAP_MM * PX):] = True
    assert not tell._beside(around, GRID).any()
    assert not tell._beside(ring(), GRID).any()


def test_a_patch_one_cell_short_of_the_border_reaches_the_edge_only_beside_a_crossing():
    labels = np.zeros((GRID[1], GRID[0]), np.int32)
    k = round(tell.EDGE_MM / features.FINE_MM)
    labels[cell(40):cell(56), GRID[0] - 1 - k - 4:GRID[0] - 1 - k] = 1  # starts one cell inside the border
    assert not tell._at_edge(labels, 2)[1]
    around = ring()
    around[M + round(40 * PX):M + round(56 * PX), M + W + round(find.GAP_MM * PX):] = True
    assert tell._at_edge(labels, 2, tell._beside(around, GRID))[1]


@pytest.fixture(scope="module")
def crystals():
    layout = load_layout("alchymia-crystals")
    return layout, enrol_rendered(layout, deck=4244)


@pytest.mark.parametrize("frame, zone", [(4, "crystal-time"), (9, "crystal-fire")])
def test_a_crystal_card_with_a_fingertip_over_its_corner_is_read(crystals, frame, zone):
    # Deck 4244, a fingertip over every card of the mat, each frame read as the first: each of these cards read
    # `unknown` before (its fingertip's patch stopped short of the card's border, of the finger's colour), and
    # no card is read as another.
    layout, cards = crystals
    rng = np.random.default_rng([4244, frame])
    conditions = random_conditions(layout, rng, lighting=LIGHTINGS[frame % len(LIGHTINGS)], hand=False, foreign=False)
    places = tuple(z.id for z in layout.zones if z.kind == "card")
    conditions = replace(conditions, fingers=places, cards=CardStyle(4244))
    picture, truth = render_frame(layout, random_state(layout, rng, fill=1.0), conditions, rng)
    reading = Reader(layout, cards=cards).read(picture)
    assert reading.zones[zone].label == truth["zones"][zone]
    assert all(reading.zones[z].label in (truth["zones"][z], "unknown") for z in places)
