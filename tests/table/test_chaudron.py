"""The Le Chaudron Magique table mode, driven with cauldrons drawn as the rulebook draws them.

Letters: ``.`` empty, ``B`` bone, ``R`` root, ``F`` fluid, ``f`` fire, ``P`` poison, ``S`` stone, ``X`` Cramé.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from PIL import Image, ImageChops

from assistant.engines.chaudron import Cauldron
from assistant.stabilise import State
from assistant.table import Response, SetupError, make_mode
from calibration.layout import load_layout
from hardware.display.screens import Counter, Message, render
from hardware.leds.patterns import AMBER, BLUE, GREEN, RED, BarGraph, Flash, Pulse, Solid

LAYOUT = load_layout("chaudron")
GOLDEN = Path(__file__).parent / "golden"
RECORD = json.loads((Path(__file__).parents[2] / "docs" / "examples" / "chaudron-game.json").read_text())
# A potion deck for 2 witches (1 common, 1 rare, 3 epic, 2 mythic), Dawn Tonic (a bone beside a root) on top.
POTIONS = ["dawn-tonic", "root-knot", "tempest", "viper-venom", "twin-essence", "smoulder", "sage-stone"]
START = """
R . . . . .
. . . . . .
. . F . B .
f . . . . .
. . . . P .
B . . R . F
"""


def pot(drawing: str) -> State:
    """The state the camera commits for a cauldron drawn in letters."""
    c = Cauldron.parse(drawing)
    return State.of({f"r{r}c{k}": c[r, k] for r in range(c.rows) for k in range(c.cols)})


def assert_golden(picture: Image.Image, name: str) -> None:
    """Compare with a picture checked by eye; ALCHEMY_GOLDEN=update writes it anew (look at it before keeping)."""
    path = GOLDEN / name
    if os.environ.get("ALCHEMY_GOLDEN") == "update":
        picture.save(path)
    assert ImageChops.difference(picture.convert("RGB"), Image.open(path).convert("RGB")).getbbox() is None


class Table:
    def __init__(self, setup):
        self.mode = make_mode("chaudron", LAYOUT, setup)
        self.previous: State | None = None
        self.responses = [self.mode.start()]

    def see(self, drawing: str) -> Response:
        state = pot(drawing)
        response = self.mode.on_commit(state, self.previous)
        self.previous = state
        self.responses.append(response)
        return response

    def press(self, *commands: str) -> Response:
        total = Response()
        for command in commands:
            response = self.mode.on_command(command)
            self.responses.append(response)
            total = total + response
        return total

    def choose_item(self, label: str) -> Response:
        """Browse the open menu (or open the card menu) to the item ``label`` and confirm it."""
        response = Response() if self.mode.choice else self.press("next")
        while self.mode.choice.items[self.mode.choice.selected] != label:
            response = response + self.press("next")
        return response + self.press("confirm")

    def choose_card(self, card_id: str) -> Response:
        """Browse the card menu to ``card_id`` and confirm it."""
        response = self.press("next")
        values = self.mode.choice.values
        target = next(i for i, v in enumerate(values) if getattr(v, "id", None) == card_id)
        while self.mode.choice.selected != target:
            response = response + self.press("next")
        return response + self.press("confirm")


def kinds(response: Response) -> list[str]:
    return [e.kind for e in response.events]


def dawn_table() -> Table:
    table = Table({"players": 2, "potions": POTIONS, "start": START.strip().splitlines()})
    first = table.responses[0]
    assert kinds(first) == ["start", "reveal"]
    assert first.events[1].message == "revealed Dawn Tonic"
    assert first.leds["crame"] == BarGraph(0, 20, (GREEN, RED))
    return table


def test_a_card_chosen_with_the_buttons_is_checked_once_complete():
    table = dawn_table()
    r = table.choose_card("bone-meal")
    assert table.mode.card.id == "bone-meal" and r.events == ()
    # One bone of the two: Bone Meal cannot leave the cauldron so, and the table says so.
    r = table.see(START.replace("R . . . . .\n. . . . . .", "R . . . . .\n. . . . . B", 1))
    assert kinds(r) == ["illegal"] and r.leds["cauldron-1"] == Flash(RED)
    assert r.screen.title == "Bone Meal?" and r.screen.tone == "error"
    # (the engine's reading: the second bone could have gone off the edge, which costs a Cramé)
    assert r.screen.text == "1 Cramé missing: Bone Meal causes 1 Cramé here"
    # The second bone completes the card.
    r = table.see(START.replace("R . . . . .\n. . . . . .", "R . . . . .\n. . . . B B", 1))
    assert kinds(r) == ["card"] and r.events[0].data["chosen"] is True
    assert r.leds["cauldron-1"] == Solid(GREEN)
    assert r.screen == Message("Bone Meal", "Bone Meal: no Cramé. Waiting: Dawn Tonic 1/3", "ok")


def test_without_a_choice_any_card_of_the_deck_that_explains_the_change_is_named():
    table = dawn_table()
    added = START.replace("R . . . . .\n. . . . . .", "R . . . . .\n. . . F F .", 1)
    r = table.see(added)
    assert [(e.kind, e.message) for e in r.events] == [("card", "Fluid Flask (found by the table): no Cramé")]
    r = table.see(added.replace(". . . . P .", "S . S . P ."))   # two stones out of nowhere
    assert kinds(r) == ["illegal"]
    assert r.events[0].message == ("no ingredient card of the deck explains this change (r4c0 empty->stone, "
                                   "r4c2 empty->stone)")
    assert r.screen.title == "Unexplained change" and r.leds["cauldron-1"] == Flash(RED)


def test_a_potion_completed_but_not_taken_out_is_announced_with_its_cells():
    table = dawn_table()
    table.choose_card("bone-meal")
    # Two bones beside the root at r0c0: Dawn Tonic is complete, but the players have not taken it out.
    r = table.see(START.replace("R . . . . .", "R B B . . .", 1))
    assert [(e.kind, e.message) for e in r.events] == [
        ("ready", "Dawn Tonic is made: take r0c0 r0c1 out of the cauldron")]
    assert r.leds["cauldron-1"] == Pulse(AMBER) and r.screen.tone == "warn"
    r = table.see(START.replace("R . . . . .", ". . B . . .", 1))
    assert kinds(r) == ["card", "potion", "reveal"]
    assert r.events[1].message == "concocted Dawn Tonic: emptied r0c0 r0c1"
    assert r.events[2].message == "revealed Root Knot"
    assert r.leds["cauldron-1"] == Solid(GREEN)


def test_a_card_that_changed_nothing_is_entered_with_the_buttons():
    table = dawn_table()
    table.choose_card("stir")
    r = table.press("back")          # the card menu opens on Stir; back is the card before it
    assert r.screen.items[0] == "Any card" and r.screen.items[-1] == "Played: no change"
    r = table.choose_item("Played: no change")
    assert [(e.kind, e.message) for e in r.events] == [("card", "Stir: no Cramé")]
    # With no card named, the first card of the deck that can leave the cauldron as it was: a bone and a
    # root make Dawn Tonic at once, and it is taken out again.
    r = table.choose_item("Played: no change")
    assert [(e.kind, e.message) for e in r.events] == [
        ("card", "Mixed Bundle (found by the table): no Cramé"), ("potion", "concocted Dawn Tonic: emptied r0c1 r0c2"),
        ("reveal", "revealed Root Knot"), ("reveal", "revealed Tempest")]   # and round 2 begins


def test_twenty_cramés_fill_the_bar_and_lose():
    start = """
    X X X X X X
    X X X X X X
    X X X X X X
    . . . . . .
    B . R . . .
    . . . . . .
    """
    table = Table({"players": 2, "potions": POTIONS, "start": start.strip().splitlines()})
    assert table.responses[0].leds["crame"] == BarGraph(18, 20, (GREEN, RED))
    assert table.responses[0].screen == Counter("Cramés, round 1", 18, 20)
    table.choose_card("distil")      # no fire crystal and no poison seed: its 2 Cramés instead
    r = table.see(start.replace(". . . . . .\n    B", "X X . . . S\n    B", 1))
    assert kinds(r) == ["card", "lost"]
    assert r.events[0].data["burnt"] == 2 and r.events[0].data["cramés"] == 20
    assert r.leds["crame"] == BarGraph(20, 20, (GREEN, RED)) and r.leds["status"] == Flash(RED)
    assert r.screen == Message("Cauldron exploded", "20 Cramés: the witches lose", "error")
    assert table.mode.over
    assert_golden(render(r.screen, (128, 64), "1"), "chaudron-lost.png")
    assert_golden(render(table.responses[0].screen, (240, 240), "RGB"), "chaudron-crames.png")


def _replay(setup, name_potions: bool) -> tuple[Table, list]:
    """The bundled record of a whole game, seen by the camera one cauldron at a time."""
    table = Table(setup)
    order = list(RECORD["potions"])
    events = []

    def reveals():
        while name_potions and table.mode.phase == "reveal":
            events.extend(table.mode.reveal_potion(order.pop(0)).events)

    events += table.see("\n".join(RECORD["start"])).events
    reveals()
    for action in RECORD["actions"]:
        if "after" in action and pot("\n".join(action["after"])) != table.previous:
            events += table.see("\n".join(action["after"])).events
        elif "play" in action:   # a card that changed nothing: no commit, so the buttons say it
            events += table.choose_item("Played: no change").events
        reveals()
    return table, events


def test_a_whole_recorded_game_with_the_potion_deck_in_the_setup():
    table, events = _replay({"players": RECORD["players"], "potions": RECORD["potions"]}, False)
    assert [e.kind for e in events].count("card") == sum("play" in a for a in RECORD["actions"])
    made = [e.data["potion"] for e in events if e.kind == "potion" and "potion" in e.data]
    assert made == ["marrow-broth", "viper-venom", "root-knot", "tempest"]
    assert [e.kind for e in events][-3:] == ["forced", "potion", "won"]
    assert table.mode.over and table.mode.state.status == "won"
    last = table.responses[-1]
    assert last.leds["status"] == Solid(GREEN) and last.screen.title == "The witches win"


def test_the_same_game_with_the_potions_named_as_they_are_revealed():
    table, events = _replay({"players": RECORD["players"]}, True)
    reveals = [e.message for e in events if e.kind == "reveal"]
    assert reveals == ["revealed Marrow Broth", "revealed Root Knot", "revealed Viper Venom",
                       "revealed Twin Essence", "revealed Tempest", "revealed Smoulder", "revealed Sage Stone"]
    assert events[-1].kind == "won" and table.mode.state.status == "won"


def test_the_potion_menu_and_a_forced_concoction_waiting_for_the_table():
    table = Table({"players": 2})
    r = table.see(START)
    assert kinds(r) == ["start"] and r.leds["status"] == Solid(AMBER)
    assert r.screen.title == "Potion revealed?" and r.screen.items[0] == "Dawn Tonic"
    r = table.press("confirm")
    assert [(e.kind, e.message) for e in r.events] == [("reveal", "revealed Dawn Tonic")]
    assert r.leds["status"] == Pulse(BLUE) and r.screen == Counter("Cramés, round 1", 0, 20)
    with pytest.raises(SetupError, match="no potion 'nectar'"):
        table.mode.reveal_potion("nectar")
    assert table.mode.reveal_potion("dawn-tonic").events == ()   # the same card seen again
    r = table.mode.reveal_potion("tempest")
    assert [(e.kind, e.message, e.legal) for e in r.events] == [
        ("illegal", "Tempest revealed, but no potion is due (the last one revealed is dawn-tonic)", False)]


def test_same_states_give_the_same_responses():
    assert _replay({"players": 2}, True)[0].responses == _replay({"players": 2}, True)[0].responses


@pytest.mark.parametrize("setup, message", [
    ({}, "setup: players: expected the number of witches, 2 to 7, got None"),
    ({"players": 2, "cards": []}, "setup: cards: unknown key (expected deck, players, potions, start)"),
    ({"players": 2, "potions": ["dawn-tonic"]}, "setup: potions: expected the 7 potion ids, top of the deck first"),
    ({"players": 2, "potions": ["x"] * 7}, "setup: potions: no potion 'x' in the deck"),
    ({"players": 2, "potions": ["dawn-tonic"] * 7},
     "setup: potions: 2 witches play 1 common, 1 rare, 3 epic, 2 mythic"),
    ({"players": 2, "start": ["BB"]}, "setup: start: expected the 6 x 6 cauldron drawn as rows like \"B..R..\""),
    ({"players": 2, "deck": "/nowhere.toml"}, "setup: deck: /nowhere.toml: cannot read: No such file or directory"),
])
def test_setup_errors_name_the_key(setup, message):
    with pytest.raises(SetupError) as e:
        make_mode("chaudron", LAYOUT, setup)
    assert str(e.value) == message
