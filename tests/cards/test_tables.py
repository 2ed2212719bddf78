"""The table modes take what the card zones read: the Alchemists scan area (labels are ingredient names),
the revealed Chaudron potions, the top crystal of each Alchymia stack."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from assistant.engines.chaudron import Cauldron
from assistant.stabilise import State
from assistant.table import make_mode
from calibration.layout import load_layout
from vision.read import Reader
from vision.render import random_conditions, render_frame

START = """
R . . . . .
. . . . . .
. . F . B .
f . . . . .
. . . . P .
B . . R . F
"""


def cauldron(drawing: str) -> State:
    c = Cauldron.parse(drawing)
    return State.of({f"r{r}c{k}": c[r, k] for r in range(c.rows) for k in range(c.cols)})


def test_the_potion_cards_laid_on_the_mat_are_the_potions_revealed():
    mode = make_mode("chaudron", load_layout("chaudron"), {"players": 2})
    mode.start()
    assert mode.on_commit(cauldron(START), None).screen.title == "Potion revealed?"
    mat = {f"potion-{n}": "empty" for n in range(1, 8)}
    reply = mode.on_potion_cards({**mat, "potion-1": "dawn-tonic"})
    assert [(e.kind, e.message) for e in reply.events] == [("reveal", "revealed Dawn Tonic")]
    assert mode.on_potion_cards({**mat, "potion-1": "dawn-tonic"}).events == ()  # the same mat: nothing new
    assert mode.on_potion_cards({**mat, "potion-1": "unknown"}).events == ()  # a card not read: nothing
    odd = mode.on_potion_cards({**mat, "potion-1": "dawn-tonic", "potion-2": "nectar"})
    assert [e.kind for e in odd.events] == ["reading"] and "not a potion of deck sample" in odd.events[0].message
    early = mode.on_potion_cards({**mat, "potion-1": "dawn-tonic", "potion-2": "tempest"})
    assert [(e.kind, e.legal) for e in early.events] == [("illegal", False)]  # no potion is due yet


def test_a_crystal_read_on_top_of_its_stack_becomes_the_top():
    mode = make_mode("alchymia", load_layout("alchymia"), {"players": ["Ada", "Bea", "Cy"]})
    mode.start()
    tops = {"crystal-earth": "earth-1", "crystal-air": "air-1", "crystal-water": "water-4",
            "crystal-fire": "empty", "crystal-time": "unknown"}
    reply = mode.on_crystal_cards(tops)
    assert [(e.kind, e.data["card"]) for e in reply.events] == [("top", "water-4")]  # earth-1, air-1: as known
    assert mode._tops()["water"] == "water-4"
    assert mode.on_crystal_cards(tops).events == ()


def test_the_scan_area_read_from_a_frame_gives_the_potion(ingredients):
    layout = load_layout("alchemists")
    rng = np.random.default_rng(12)
    conditions = replace(random_conditions(layout, rng, lighting="cool", hand=False, foreign=False), fingers=())
    frame, _ = render_frame(layout, {"zones": {"card-left": "mushroom", "card-right": "toad"}}, conditions, rng)
    reading = Reader(layout, cards={ingredients.name: ingredients}).read(frame)
    state = State.of({zone: z.label for zone, z in reading.zones.items()})
    mode = make_mode("alchemists", layout, {"code": "TBGJ", "demo": True})
    mode.start()
    reply = mode.on_commit(state, None)
    assert [e.kind for e in reply.events] == ["potion"]
    assert reply.events[0].data["ingredients"] == ["mushroom", "toad"]
