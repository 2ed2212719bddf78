"""The Alchymia table mode driven by hand-built states: a test reads like the table.

``table.put("ada", "r0c0", "green")`` puts a stone, ``table.take("ada", "r0c0")`` lifts it, and
``table.commit()`` hands the state to the mode as the stabiliser would.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image, ImageChops

from assistant.stabilise import State
from assistant.table import SetupError, make_mode
from calibration.layout import load_layout
from hardware.display.screens import Menu, Scores, render
from hardware.leds.patterns import AMBER, BLUE, GREEN, RED, WHITE, Flash, Pulse, Solid

GOLDEN = Path(__file__).parent / "golden"
LAYOUT = load_layout("alchymia")
LETTER = {"green": "G", "white": "W", "blue": "B", "yellow": "Y", "red": "R"}


class Tabletop:
    """The player boards on the table and the mode watching them."""

    def __init__(self, setup: dict, boards: tuple[str, ...] = ("ada", "bea", "cy")):
        self.mode = make_mode("alchymia", LAYOUT, setup, "test-setup")
        self.opening = self.mode.start()
        self.cells = {b: {f"r{r}c{c}": "empty" for r in range(3) for c in range(3)} for b in boards}
        self.previous: State | None = None

    def put(self, board: str, *moves: str) -> Tabletop:
        """``put("ada", "r0c0 green", "r1c1 yellow")``."""
        for move in moves:
            position, colour = move.split()
            self.cells[board][position] = colour
        return self

    def take(self, board: str, *positions: str) -> Tabletop:
        for position in positions:
            self.cells[board][position] = "empty"
        return self

    def commit(self):
        state = State.of({f"{b}/{p}": label for b, cells in self.cells.items() for p, label in cells.items()})
        response = self.mode.on_commit(state, self.previous)
        self.previous = state
        return response

    def press(self, *commands: str):
        responses = [self.mode.on_command(c) for c in commands]
        return responses[-1]

    def board(self, board: str) -> str:
        cells = self.cells[board]
        return "/".join("".join(LETTER.get(cells[f"r{r}c{c}"], ".") for c in range(3)) for r in range(3))


def kinds(response) -> list[str]:
    return [e.kind for e in response.events]


THREE = {"players": ["Ada", "Bea", "Cy"]}


def test_start_names_players_and_lights_the_status():
    table = Tabletop(THREE)
    start = table.opening
    assert kinds(start) == ["start"]
    assert start.events[0].data["boards"] == {"Ada": ["ada"], "Bea": ["bea"], "Cy": ["cy"]}
    assert start.events[0].data["crystals"]["earth"] == "earth-1"  # the sample deck's order without seed
    assert start.leds["status"] == Solid(BLUE)
    assert "Ada, Bea, Cy" in start.screen.text


def test_empty_boards_at_first_commit_say_nothing():
    table = Tabletop(THREE)
    assert table.commit().events == ()


def test_an_integration_is_legal_and_lights_the_player_green():
    table = Tabletop(THREE)
    table.commit()
    reply = table.put("ada", "r0c0 green").commit()
    assert kinds(reply) == ["move"]
    move = reply.events[0]
    assert move.legal is True
    assert move.data["uses"] == ["Integration: green onto Ada r0c0"]
    assert "G" in move.data["cards"] and "RRRR" not in move.data["cards"]
    assert reply.leds == {"player-1": Solid(GREEN), "status": Solid(GREEN)}
    assert reply.screen.title == "Ada: legal" and reply.screen.tone == "ok"


def test_a_turn_caught_half_done_goes_on_and_ends_when_the_next_player_moves():
    table = Tabletop(THREE)
    table.put("ada", "r0c0 green").commit()
    second = table.put("ada", "r1c1 yellow").commit()
    assert kinds(second) == ["move"]  # the same turn, seen further on
    assert second.events[0].data["uses"] == ["Integration: green onto Ada r0c0", "Integration: yellow onto Ada r1c1"]
    assert set(second.events[0].data["cards"]) == {"GY", "BGY", "GYY", "BGRY"}
    bea = table.put("bea", "r0c2 red").commit()
    assert kinds(bea) == ["turn", "move"]
    assert bea.events[0].data["player"] == "Ada" and bea.events[1].data["player"] == "Bea"
    assert bea.leds["player-1"] is None and bea.leds["player-2"] == Solid(GREEN)


def test_confirm_ends_the_turn_and_the_next_player_pulses():
    table = Tabletop(THREE)
    table.put("ada", "r0c0 green").commit()
    done = table.press("confirm")
    assert kinds(done) == ["turn"] and "turn done" in done.events[0].message
    assert done.leds["player-2"] == Pulse(WHITE) and done.leds["player-1"] is None
    assert isinstance(done.screen, Scores) and done.screen.note == "Bea to play"


def test_a_crystal_completed_under_rotation_lights_the_player_in_the_element_colour():
    # earth-1 is G../.G./..G; Ada builds it turned a quarter: ..G/.G./G..
    table = Tabletop(THREE)
    first = table.put("ada", "r0c2 green", "r1c1 green").commit()
    assert kinds(first) == ["move"]
    done = table.put("ada", "r2c0 green").commit()
    assert kinds(done) == ["move", "turn", "crystal"]
    crystal = done.events[2]
    assert crystal.data == {"player": "Ada", "card": "earth-1", "element": "earth", "held": 1}
    assert done.leds["player-1"] == Solid(GREEN) and done.leds["player-2"] == Pulse(WHITE)
    assert done.screen.title == "Ada: earth crystal"
    # Ada clears her board in two handfuls, Bea plays before she has finished: nothing is flagged.
    assert table.take("ada", "r0c2", "r1c1").commit().events == ()
    bea = table.put("bea", "r0c0 white").commit()
    assert kinds(bea) == ["move"] and bea.events[0].legal
    assert table.take("ada", "r2c0").commit().events == ()


def test_a_crystal_image_on_the_display_matches_the_golden_picture():
    table = Tabletop(THREE)
    done = table.put("ada", "r0c2 green", "r1c1 green", "r2c0 green").commit()
    image = render(done.screen, (128, 64), "1")
    golden = Image.open(GOLDEN / "alchymia-crystal.png").convert("1")
    assert ImageChops.difference(image.convert("L"), golden.convert("L")).getbbox() is None


def test_a_change_no_card_explains_is_flagged_with_the_reason():
    table = Tabletop(THREE)
    reply = table.put("ada", "r0c0 green").put("bea", "r0c0 red").commit()
    assert kinds(reply) == ["illegal"]
    event = reply.events[0]
    assert event.legal is False
    assert "Bea's board changed" in event.data["reason"]
    assert reply.leds["player-1"] == Flash(RED, 0.5) and reply.leds["status"] == Flash(RED, 0.5)
    assert reply.screen.tone == "error" and reply.screen.title == "Ada: not allowed"
    # Bea's stone goes back: Ada's move alone is legal.
    fixed = table.take("bea", "r0c0").commit()
    assert kinds(fixed) == ["move"] and fixed.events[0].legal


def test_the_boards_put_back_as_they_were_clear_the_flag():
    table = Tabletop(THREE)
    table.put("ada", "r0c0 green", "r0c1 green", "r0c2 green", "r1c0 green", "r1c1 green").commit()
    back = table.take("ada", "r0c0", "r0c1", "r0c2", "r1c0", "r1c1").commit()
    assert kinds(back) == ["undo"]
    assert back.leds["player-1"] is None


def test_a_card_given_by_the_setup_is_the_one_checked():
    table = Tabletop({**THREE, "cards": ["G"]})
    reply = table.put("ada", "r0c0 green", "r0c1 yellow").commit()
    assert kinds(reply) == ["illegal"]
    assert reply.events[0].data["reason"].startswith("with G: ")


def test_the_card_chosen_with_the_buttons_is_checked_again():
    table = Tabletop(THREE)
    table.put("ada", "r0c0 green").commit()
    menu = table.press("next")
    assert isinstance(menu.screen, Menu) and menu.screen.items[0] == "any card of the deck"
    assert menu.screen.selected == 0 and menu.screen.title == "Card played by Ada"
    index = menu.screen.items.index("B")
    reply = table.press(*["next"] * index, "confirm")
    assert kinds(reply) == ["card", "illegal"]
    assert "with B: " in reply.events[1].data["reason"]
    # Choosing "any card" again makes the move legal.
    table.press("next")
    back = table.press(*["back"] * index, "confirm")
    assert kinds(back) == ["card", "move"]


def test_confirm_accepts_a_flagged_position_and_play_goes_on_from_it():
    table = Tabletop(THREE)
    table.put("ada", "r0c0 green", "r0c1 red", "r0c2 blue", "r1c0 white", "r1c1 yellow").commit()
    accepted = table.press("confirm")
    assert kinds(accepted) == ["accept"]
    assert accepted.events[0].data["boards"]["Ada"] == ["GRB/WY./..."]
    assert accepted.leds["player-2"] == Pulse(WHITE)
    reply = table.put("bea", "r2c2 red").commit()
    assert kinds(reply) == ["move"] and reply.events[0].data["player"] == "Bea"


def test_playing_out_of_turn_is_warned_and_followed():
    table = Tabletop({**THREE, "first": "Ada"})
    reply = table.put("bea", "r0c0 blue").commit()
    assert kinds(reply) == ["order", "move"]
    assert reply.events[0].message == "Bea played, but it was Ada's turn"
    assert reply.leds["status"] == Solid(AMBER) and reply.leds["player-2"] == Solid(GREEN)


def test_players_are_inferred_from_the_board_names():
    table = Tabletop({}, boards=("ada", "bea", "cy"))
    assert table.opening.screen.text == "Waiting for the boards"
    first = table.put("cy", "r0c0 red").commit()
    assert kinds(first) == ["start", "move"]
    assert first.events[0].data["players"] == ["ada", "bea", "cy"]
    assert first.events[1].data["player"] == "cy"


def test_two_players_each_have_two_boards():
    table = Tabletop({"players": ["Ada", "Bea"]}, boards=("ada-1", "ada-2", "bea-1", "bea-2"))
    reply = table.put("ada-2", "r1c1 green").commit()
    assert reply.events[0].data["uses"] == ["Integration: green onto Ada board 2 r1c1"]


def test_a_whole_game_to_the_winner(tmp_path):
    # A deck whose five crystals are one stone in the centre: Ada wins in five turns.
    deck = tmp_path / "centre.toml"
    crystals = "".join(f'[[crystal]]\nname = "{e}"\nelement = "{e}"\nstructure = ["...", ".{c}.", "..."]\n\n'
                       for e, c in (("earth", "G"), ("air", "W"), ("water", "B"), ("fire", "Y"), ("time", "R")))
    deck.write_text("[deck]\nrows = 3\ncols = 3\n\n" + crystals + '[potions]\np1 = "GWBY"\np2 = "R"\np3 = "Y"\n')
    table = Tabletop({"players": ["Ada", "Bea", "Cy"], "deck": str(deck)})
    events = []
    for turn, colour in enumerate(("green", "white", "blue", "yellow", "red")):
        events += table.put("ada", f"r1c1 {colour}").commit().events
        events += table.take("ada", "r1c1").commit().events  # the completed board emptied
        if table.mode.over:
            break
        for board in ("bea", "cy"):  # they put a yellow stone on a corner, then take it back
            events += (table.put(board, "r0c0 yellow") if turn % 2 == 0 else table.take(board, "r0c0")).commit().events
            events += table.press("confirm").events
    assert [e.data["element"] for e in events if e.kind == "crystal"] == ["earth", "air", "water", "fire", "time"]
    assert not [e for e in events if e.legal is False]
    assert events[-1].kind == "win" and events[-1].message == "Ada holds the five crystals and wins"
    assert table.mode.over
    assert table.put("bea", "r2c2 red").commit().screen.title == "Ada wins"


def test_same_states_give_the_same_responses():
    def play():
        table = Tabletop(THREE)
        out = [table.opening]
        out.append(table.put("ada", "r0c0 green").commit())
        out.append(table.put("bea", "r1c1 red").put("ada", "r2c2 red").commit())
        out.append(table.press("confirm"))
        out.append(table.put("cy", "r0c0 blue").commit())
        out.append(table.press("next", "next", "confirm"))
        return out

    assert play() == play()


@pytest.mark.parametrize(("setup", "message"), [
    ({"players": ["Ada"]}, "test-setup: players: expected a list of 2 to 5 player names"),
    ({"players": ["Ada", "Ada"]}, "test-setup: players[1]: 'Ada' is named twice"),
    ({"players": ["Ada", "Bea", "Cy"], "boards": {"Ada": "a", "Bea": "b"}}, "test-setup: boards.Cy: missing"),
    ({"players": ["Ada", "Bea", "Cy"], "boards": {"Ada": "a", "Bea": "a", "Cy": "c"}},
     "test-setup: boards: the board 'a' is given twice"),
    ({"players": ["Ada", "Bea"], "boards": {"Ada": "a", "Bea": "b"}},
     "test-setup: boards.Ada: expected a list of two board names (2-player game)"),
    ({"players": ["Ada", "Bea", "Cy"], "deck": "nowhere.toml"}, "test-setup: deck: nowhere.toml: no such deck file"),
    ({"players": ["Ada", "Bea", "Cy"], "first": "Dan"}, "test-setup: first: expected one of the players"),
    ({"players": ["Ada", "Bea", "Cy"], "crystals": {"earth": ["earth-9"]}}, "test-setup: crystals.earth: expected"),
    ({"players": ["Ada", "Bea", "Cy"], "cards": ["GGGGG"]}, "test-setup: cards[0]: potion card GGGGG"),
    ({"players": ["Ada", "Bea", "Cy"], "colour": "red"}, "test-setup: colour: unknown key"),
])
def test_setup_errors_name_the_key(setup, message):
    with pytest.raises(SetupError) as error:
        Tabletop(setup)
    assert str(error.value).startswith(message)


def test_boards_missing_from_the_state_are_a_setup_error():
    table = Tabletop({"players": ["Ada", "Bea", "Cy"]}, boards=("ada", "bea", "dan"))
    with pytest.raises(SetupError, match=r"test-setup: boards: board cy of Cy: no zone cy/r0c0 .*ada, bea, dan"):
        table.commit()


def test_crystal_stacks_follow_the_setup():
    table = Tabletop({**THREE, "crystals": {"earth": ["earth-3"]}})
    assert table.opening.events[0].data["crystals"]["earth"] == "earth-3"
    seeded = Tabletop({**THREE, "seed": 3})
    assert seeded.opening.events[0].data["crystals"] != table.opening.events[0].data["crystals"]


def test_a_crystal_shown_on_top_is_the_one_to_complete():
    table = Tabletop(THREE)
    assert kinds(table.put("ada", "r0c1 blue", "r1c1 green", "r2c1 blue").commit()) == ["move"]
    shown = table.mode.show_crystal("water-4")  # .B./.G./.B. : Ada's board completes it
    assert [e.kind for e in shown.events] == ["top", "move", "turn", "crystal"]
    assert shown.events[3].data["card"] == "water-4"
    assert table.mode.show_crystal("fire-9").screen.title == "Unknown crystal"


def test_play_card_checks_the_turn_with_that_card():
    table = Tabletop(THREE)
    table.put("ada", "r0c0 green", "r0c1 yellow").commit()
    reply = table.mode.play_card("GY")
    assert kinds(reply) == ["card", "move"] and reply.events[1].data["cards"] == ["GY"]
    assert kinds(table.mode.play_card("B")) == ["card", "illegal"]


def test_a_commit_with_nothing_to_say_leaves_the_card_menu_open():
    table = Tabletop(THREE)
    table.put("ada", "r0c0 green", "r0c1 green", "r0c2 green").commit()  # GGG completes no crystal
    table.press("next", "next")
    assert table.put("ada", "r0c1 green").commit().screen is None  # the same boards: nothing new
    chosen = table.press("confirm")
    assert kinds(chosen) == ["card", "illegal"]  # the menu's second item, B, cannot put three greens


def test_a_move_out_of_turn_taken_back_gives_the_turn_back():
    table = Tabletop({**THREE, "first": "Ada"})
    table.put("bea", "r0c0 blue").commit()
    back = table.take("bea", "r0c0").commit()
    assert kinds(back) == ["undo"] and back.leds["player-1"] == Pulse(WHITE)
    assert kinds(table.put("ada", "r0c0 red").commit()) == ["move"]
